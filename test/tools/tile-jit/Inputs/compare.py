"""Compares tile-jit's mm output with NumPy: compare.py A.npy B.npy C.npy."""
import sys

import numpy as np

a, b, c = (np.load(p) for p in sys.argv[1:4])
want = a.astype(np.float64) @ b.astype(np.float64)
assert c.dtype == np.float32, c.dtype
assert c.shape == want.shape, (c.shape, want.shape)
err = np.abs(c - want).max()
# f32 accumulation over K terms of magnitude <= 1.
ok = err <= 1e-5 * a.shape[1]
print("C %s %s max abs error vs numpy %s" % (c.dtype, c.shape, "ok" if ok else "%g FAILED" % err))
