#!/usr/bin/env python3
"""Host cost of launching an already-compiled kernel from the tile Python
package on the CPU target, and where it goes, beside NumPy's and torch's
own add (the peers) in the same run.

    TILE_CAPI_LIBRARY=build/lib/libTileCAPI.so PYTHONPATH=python \\
        python3 bench/cpu/python_launch.py [N]

examples/elementwise_add.tile on N (default 64: one block, so the kernel
itself is a small part) f32 elements; each figure is the best of 9 rounds
of 20000 calls, in microseconds per call. The C part (tileLaunchCall on
arguments already written) runs the kernel on this CPU, unlike a GPU
launch. torch (CPU tensors) is optional: without it its rows are left
out. bench/gpu/python_h200.py measures the same on the H200 with CUDA
tensors and Triton.
"""
import ctypes
import sys
import time
from pathlib import Path

import numpy as np

import tile

ROOT = Path(__file__).resolve().parents[2]


def per_call(fn, r=20000, rounds=9):
    """Best host seconds per call over the rounds (the machine may be
    shared: the best round is the least disturbed)."""
    for _ in range(200):
        fn()
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(r):
            fn()
        best = min(best, (time.perf_counter() - t0) / r)
    return best


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    add = tile.compile(ROOT / "examples/elementwise_add.tile", target="cpu")
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, n)).astype(np.float32)
    c = np.full_like(a, np.nan)
    add(a, b, c)
    if not np.array_equal(c, a + b):
        print("FAIL: tile add differs from NumPy")
        return 1
    rows = {}
    rows["tile, NumPy arrays (__dlpack__)"] = per_call(lambda: add(a, b, c))
    # The C part alone, on a TileArg array of DLTensors kept alive here
    # (the launcher's own buffer points at capsules gone after the call).
    call, launch, count = tile.lib.tileLaunchCall, add._launch, 3
    kept = [tile._dltensor(x, p, i)
            for i, (x, p) in enumerate(zip((a, b, c), add.params))]
    targs = (tile._capi.TileArg * 3)()
    for slot, (addr, _) in zip(targs, kept):
        slot.kind, slot.value.tensor = tile._capi.ARG_TENSOR, addr
    args = ctypes.c_void_p(ctypes.addressof(targs))
    rows["  of which tileLaunchCall (runs the kernel)"] = per_call(
        lambda: call(launch, args, count))
    noop = tile.lib._FuncPtr(("tileArtifactGetNumEntries", tile.lib))
    noop.restype = ctypes.c_size_t
    null = ctypes.c_void_p()
    rows["  a ctypes call returning at once"] = per_call(lambda: noop(null))
    rows["numpy.add(out=)"] = per_call(lambda: np.add(a, b, out=c))
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        ta, tb, tc = (torch.from_numpy(x) for x in (a, b, c))
        add(ta, tb, tc)  # the first call notices torch
        rows["tile, torch tensors (read directly)"] = per_call(
            lambda: add(ta, tb, tc))
        rows["torch.add(out=)"] = per_call(lambda: torch.add(ta, tb, out=tc))
    print(f"host time per call, N={n} f32 add on the CPU target "
          f"(numpy {np.__version__}"
          + (f", torch {torch.__version__}" if torch else ", no torch")
          + f", Python {sys.version.split()[0]}):")
    for name, sec in rows.items():
        print(f"  {name:44s} {sec * 1e6:7.2f} us")
    base = rows["numpy.add(out=)"]
    print(f"  tile (NumPy) / numpy.add: "
          f"{rows['tile, NumPy arrays (__dlpack__)'] / base:.2f}")
    if torch is not None:
        print(f"  tile (torch) / torch.add: "
              f"{rows['tile, torch tensors (read directly)'] / rows['torch.add(out=)']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
