"""What the launcher (_launch.py) needs to know of torch to fill a tensor's
DLTensor itself, without torch.Tensor.__dlpack__.

__dlpack__ runs Python checks and allocates a managed tensor and a capsule
on every call; for a kernel launched in a loop that is most of the launch
cost. The launcher reads instead what to_dlpack would write (data_ptr()
with byte_offset 0, the shape, stride() in elements, the dtype and the
device), so the entry point checks exactly what it would check through
__dlpack__. Tensors of a dtype outside this table (complex, fp8) take the
__dlpack__ path. TILE_PY_DLPACK_ONLY=1 turns this path off (bench/gpu
compares the two).
"""

import os
import struct

ENABLED = os.environ.get("TILE_PY_DLPACK_ONLY", "0") != "1"

# DLPack device types.
KDL_CPU, KDL_CUDA, KDL_ROCM = 1, 2, 10


def _packed_dtype(code, bits):
    """A DLDataType (code, bits, lanes 1) as the uint32 it is in memory."""
    return struct.unpack("=I", struct.pack("=BBH", code, bits, 1))[0]


class TorchInfo:
    """torch.Tensor, its dtypes as packed DLDataTypes and the DLPack device
    type of its accelerator tensors (``is_cuda``: CUDA, or ROCm in a HIP
    build of torch)."""

    def __init__(self, torch):
        self.tensor_type = torch.Tensor
        table = {
            torch.float16: (2, 16), torch.float32: (2, 32),
            torch.float64: (2, 64), torch.bfloat16: (4, 16),
            torch.bool: (6, 8), torch.int8: (0, 8), torch.int16: (0, 16),
            torch.int32: (0, 32), torch.int64: (0, 64), torch.uint8: (1, 8),
        }
        # fp8 tensors take the __dlpack__ path: their codes differ between
        # DLPack versions.
        self.dtypes = {t: _packed_dtype(*v) for t, v in table.items()}
        hip = getattr(getattr(torch, "version", None), "hip", None)
        self.accelerator = KDL_ROCM if hip else KDL_CUDA

    def device_test(self, executor_device):
        """The tensor property that says a torch tensor is on the memory of
        an executor whose DLPack device type is \\p executor_device, and the
        DLPack device type it then has; None where torch has no such
        tensors."""
        if executor_device == KDL_CPU:
            return "is_cpu", KDL_CPU
        if executor_device == self.accelerator:
            return "is_cuda", self.accelerator
        return None
