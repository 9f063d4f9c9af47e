"""Writes a small .npy file for the tile-jit tests.

  npy.py OUT DTYPE DIM...             values 0.25 * (i % 7) - 0.5, C order
  npy.py OUT DTYPE DIM... --fortran   the same array saved in Fortran order
  npy.py OUT DTYPE DIM... --truncate  the file less its last 4 bytes
  npy.py OUT --not-npy                bytes that are not a .npy file
  npy.py OUT --huge-shape             a header claiming 10^12 x 10^12 float32
                                      elements over 16 bytes of data
"""
import sys

import numpy as np

out, rest = sys.argv[1], sys.argv[2:]
if rest == ["--not-npy"]:
    with open(out, "wb") as f:
        f.write(b"this is not a .npy file\n")
    sys.exit(0)
if rest == ["--huge-shape"]:
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000, 1000000000000), }"
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    with open(out, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") +
                header.encode() + b"\0" * 16)
    sys.exit(0)
flags = [a for a in rest if a.startswith("--")]
dtype, dims = rest[0], [int(a) for a in rest[1:] if not a.startswith("--")]
n = int(np.prod(dims)) if dims else 1
a = (0.25 * (np.arange(n) % 7) - 0.5).astype(dtype).reshape(dims)
if "--fortran" in flags:
    a = np.asfortranarray(a)
np.save(out, a)
if "--truncate" in flags:
    with open(out, "rb") as f:
        data = f.read()
    with open(out, "wb") as f:
        f.write(data[:-4])
