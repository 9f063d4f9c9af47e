"""Runs exp-shift.tile's @exp_shift (Y = exp(X - C[row]), X f16, C f32,
Y f16) through tile-jit on rows chosen for the exp's argument reduction
and compares Y with exp computed in f64 and rounded to f16: NaN, infinities
and zeros where the reference has them, and at most MAXULP ulp of f16
elsewhere. With --div, @exp_shift_div (Y = exp(X - C[row]) / S[row]) on
the same rows, each divided by a sum S: ordinary ones, and 0, +-inf, NaN,
negative, subnormal and beyond 2^100 (whose reciprocal is outside
[2^-100, 2^100]).

  exp_shift_check.py TILE_JIT TILE DIR [MAXULP] [--div]

Rows: shifts near 60000 and -30000, where the shift times log2(e) has
ulps of 2^-7 and 2^-8 (an exp that rounds c = m log2(e) to f32 once errs
by up to half of that, several ulp of f16), moderate ones, and shifts that
are infinite, NaN, beyond 2^100 and between 2^20 and f32's largest. X
holds +-inf, NaN, +-65504 and 0 in every row.
"""
import os
import subprocess
import sys

import numpy as np

args = [a for a in sys.argv[1:] if a != "--div"]
div = "--div" in sys.argv
tile_jit, tile, out_dir = args[:3]
max_ulp = float(args[3]) if len(args) > 3 else 1.0
rng = np.random.default_rng(7)
N = 2500
rows = []


def row(base, spread, shift):
    x = (base + rng.uniform(-spread, spread, N)).astype(np.float16)
    rows.append((x, np.float32(shift)))


# Shift 0: t = x log2(e) exactly for x = 0, where the polynomial's
# argument is 0 (with --div its sum is 0: exp(0) * inf is inf, a
# polynomial whose coefficients are all infinite gives 0 * inf = NaN).
row(0.0, 4.0, 0.0)
for _ in range(4):
    row(60000.0, 16.0, 60000.0 + rng.uniform(-10, 10))
for _ in range(2):
    row(-30000.0, 8.0, -30000.0 + rng.uniform(-10, 10))
row(1000.0, 10.0, 1000.3)
row(0.0, 4.0, 0.37)
row(65504.0, 0.0, 65500.0)
for shift in [np.inf, -np.inf, np.nan, 3e38, -3e38, 2.0 ** 20 + 0.5, -1.5e6, 1e30]:
    row(0.0, 100.0, shift)
X = np.stack([r[0] for r in rows])
C = np.array([r[1] for r in rows], np.float32)
special = np.array([np.inf, -np.inf, np.nan, 65504.0, -65504.0, 0.0], np.float16)
X[:, 5:5 + 97 * len(special):97] = special
if div:
    # Twice the rows: each shift with an ordinary sum, then with an
    # extreme one.
    extreme = [0.0, np.inf, -np.inf, np.nan, -2.5, 1e-40, 2.0 ** -110, 2.0 ** 110,
               3e38, -0.0, 1e-20, 1e20, 2.0 ** -100, 2.0 ** 100, 7.0, 0.3, 5e-39]
    S = np.concatenate([rng.uniform(0.5, 5000, X.shape[0]),
                        np.resize(np.array(extreme), X.shape[0])]).astype(np.float32)
    X = np.concatenate([X, X])
    C = np.concatenate([C, C])
np.save(os.path.join(out_dir, "x.npy"), X)
np.save(os.path.join(out_dir, "c.npy"), C)
y_path = os.path.join(out_dir, "y.npy")
cmd = [tile_jit, tile, "-entry=" + ("exp_shift_div" if div else "exp_shift"), "--no-cache",
       "--dim", "M=%d" % X.shape[0], "--dim", "N=%d" % N,
       "--input=X=" + os.path.join(out_dir, "x.npy"),
       "--input=C=" + os.path.join(out_dir, "c.npy"), "--output=Y=" + y_path]
if div:
    np.save(os.path.join(out_dir, "s.npy"), S)
    cmd.append("--input=S=" + os.path.join(out_dir, "s.npy"))
p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
if p.returncode != 0:
    sys.exit("'%s' failed:\n%s" % (" ".join(cmd), p.stdout))
Y = np.load(y_path).astype(np.float64)
with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
    ref = np.exp(X.astype(np.float64) - C.astype(np.float64)[:, None])
    if div:
        # The kernel multiplies by the reciprocal rounded to f32 (arcp).
        ref = ref * (np.float32(1) / S).astype(np.float64)[:, None]
    ref16 = ref.astype(np.float16).astype(np.float64)
failed = False
nan_ok = np.array_equal(np.isnan(Y), np.isnan(ref16))
inf_ok = np.array_equal(np.isinf(Y) & (Y > 0), np.isinf(ref16) & (ref16 > 0))
zero_ok = np.array_equal(Y == 0, ref16 == 0)
print("NaN where the reference has it: %s" % ("yes" if nan_ok else "NO"))
print("inf where the reference has it: %s" % ("yes" if inf_ok else "NO"))
print("0 where the reference has it: %s" % ("yes" if zero_ok else "NO"))
failed |= not (nan_ok and inf_ok and zero_ok)
fin = np.isfinite(ref16) & np.isfinite(Y)
exp2 = np.floor(np.log2(np.maximum(np.abs(ref[fin]), 2.0 ** -24)))
ulp = 2.0 ** (np.maximum(exp2, -14) - 10)
err = np.abs(Y[fin] - ref[fin]) / ulp
worst = float(err.max())
print("max error %.3f ulp of f16 over %d finite results (bound %.2f): %s"
      % (worst, int(fin.sum()), max_ulp, "ok" if worst <= max_ulp else "FAILED"))
failed |= worst > max_ulp
# Per row, for the report.
for r in range(X.shape[0]):
    f = np.isfinite(ref16[r]) & np.isfinite(Y[r])
    if f.any():
        e2 = np.floor(np.log2(np.maximum(np.abs(ref[r][f]), 2.0 ** -24)))
        u = 2.0 ** (np.maximum(e2, -14) - 10)
        print("  row %2d shift %-14r%s max %.3f ulp"
              % (r, float(C[r]), " sum %-12r" % float(S[r]) if div else "",
                 float((np.abs(Y[r][f] - ref[r][f]) / u).max())))
sys.exit(1 if failed else 0)
