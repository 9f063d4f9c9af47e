"""A direct path for torch tensors: the DLTensor their __dlpack__ would
make, written into a buffer the kernel keeps per parameter.

torch.Tensor.__dlpack__ runs Python checks and allocates a managed tensor
and a capsule on every call; for a kernel launched in a loop that is most
of the launch cost. The fields are the same ones torch.to_dlpack fills
(data_ptr with byte_offset 0, strides in elements), so the entry point
checks exactly what it would check through __dlpack__. Tensors of a dtype
outside this table (complex, say) take the __dlpack__ path.
TILE_PY_DLPACK_ONLY=1 turns this path off (bench/gpu compares the two).
"""

import ctypes
import os
import struct

ENABLED = os.environ.get("TILE_PY_DLPACK_ONLY", "0") != "1"

# DLTensor: data, device (type, id), ndim, dtype (code, bits, lanes), shape,
# strides, byte_offset; then the shape and strides arrays themselves.
_HEADER = "=QiiiBBHQQQ"
_HEADER_SIZE = struct.calcsize(_HEADER)
assert _HEADER_SIZE == 48

_DEVICE_TYPES = {"cpu": 1, "cuda": 2, "xpu": 14, "mps": 8}


def _dtype_table(torch):
    table = {
        torch.float16: (2, 16), torch.float32: (2, 32), torch.float64: (2, 64),
        torch.bfloat16: (4, 16), torch.bool: (6, 8),
        torch.int8: (0, 8), torch.int16: (0, 16), torch.int32: (0, 32),
        torch.int64: (0, 64), torch.uint8: (1, 8),
    }
    # fp8 tensors take the __dlpack__ path: their codes differ between
    # DLPack versions.
    return table


class TensorSlot:
    """The DLTensor of one parameter of rank ``rank``."""

    __slots__ = ("buf", "addr", "pack", "shape_addr", "strides_addr")

    def __init__(self, rank):
        self.buf = ctypes.create_string_buffer(_HEADER_SIZE + 16 * rank)
        self.addr = ctypes.addressof(self.buf)
        self.shape_addr = self.addr + _HEADER_SIZE
        self.strides_addr = self.shape_addr + 8 * rank
        self.pack = struct.Struct(_HEADER + "q" * (2 * rank)).pack_into


class Filler:
    """Fills TensorSlots from torch tensors."""

    def __init__(self, torch):
        self.tensor_type = torch.Tensor
        self.dtypes = _dtype_table(torch)

    def fill(self, slot, t, rank):
        """The DLTensor address, or None to take the __dlpack__ path."""
        dt = self.dtypes.get(t.dtype)
        shape = t.shape
        if dt is None or len(shape) != rank:
            return None  # the entry point's checks speak through __dlpack__
        dev = t.device
        dev_type = _DEVICE_TYPES.get(dev.type)
        if dev_type is None:
            return None
        slot.pack(slot.buf, 0, t.data_ptr(), dev_type, dev.index or 0, rank, dt[0], dt[1], 1, slot.shape_addr,
                  slot.strides_addr, 0, *shape, *t.stride())
        return slot.addr
