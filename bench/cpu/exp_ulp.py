#!/usr/bin/env python3
"""Accuracy of the CPU backend's exp and exp2 of f32 (veclib=tile: the
inline expansion of lib/Target/CPU/VectorMath.cpp) as compiled kernels
compute them, in ulp of the f32 result against the f64 function, and as
relative error (normal results, and those in f16's normal range, where
-exp=fast is meant for).

Runs bench/cpu/exp_ulp.tile through tile-jit on every 61st f32 bit pattern
of [-110, 90] (exp) and [-160, 130] (exp2), for each target given (default:
this CPU, and -mcpu=haswell for the path without AVX-512), and prints the
largest error over finite nonzero results and whether infinities, zeros
and NaN (appended inputs NaN, +-inf) match.

  /usr/bin/python3 bench/cpu/exp_ulp.py [--tile-jit build/bin/tile-jit] [TARGET...]
This is a program, not a test.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def sweep(lo, hi):
    bits = np.arange(0, 1 << 32, 61, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    x = x[np.isfinite(x) & (x >= lo) & (x <= hi)]
    return np.concatenate([x, np.array([np.nan, np.inf, -np.inf], np.float32)])


def ulps(got, x, fn):
    with np.errstate(over="ignore", invalid="ignore"):
        ref64 = fn(x.astype(np.float64))
        ref32 = ref64.astype(np.float32)
    same_special = (np.array_equal(np.isnan(got), np.isnan(ref32)) and
                    np.array_equal(np.isinf(got), np.isinf(ref32)) and
                    np.array_equal(got == 0, ref32 == 0))
    ok = np.isfinite(ref32) & (ref32 != 0) & np.isfinite(got)
    diff = np.abs(got[ok].astype(np.float64) - ref64[ok])
    err = diff / np.spacing(np.abs(ref32[ok]))
    # Relative error where the result is a normal f32 and where it is in
    # f16's normal range (what -exp=fast is for).
    normal = np.abs(ref64[ok]) >= 2.0 ** -126
    half = normal & (np.abs(ref64[ok]) >= 2.0 ** -14) & (np.abs(ref64[ok]) <= 65504)
    rel = diff / np.abs(ref64[ok])
    return err.max(), rel[normal].max(), rel[half].max(), same_special


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    build = os.environ.get("TILE_BUILD_DIR", os.path.join(ROOT, "build"))
    ap.add_argument("--tile-jit", default=os.path.join(build, "bin", "tile-jit"))
    ap.add_argument("targets", nargs="*", default=["cpu", "cpu -mcpu=haswell"])
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name, fn, lo, hi in (("exp", np.exp, -110, 90), ("exp2", np.exp2, -160, 130)):
            x = sweep(lo, hi)
            xf = os.path.join(tmp, "x.npy")
            np.save(xf, x)
            for target in args.targets:
                out = {k: os.path.join(tmp, k + ".npy") for k in ("E", "E2")}
                cmd = [args.tile_jit, os.path.join(HERE, "exp_ulp.tile"), "-target=" + target,
                       "--no-cache", "--dim", "N=%d" % len(x), "--input=X=" + xf]
                cmd += ["--output=%s=%s" % kv for kv in out.items()]
                p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True)
                if p.returncode:
                    sys.exit("exp_ulp: '%s' failed:\n%s" % (" ".join(cmd), p.stdout))
                got = np.load(out["E" if name == "exp" else "E2"])
                err, rel, rel16, special = ulps(got, x, fn)
                print("%-4s on '%s': %d inputs in [%g, %g] + NaN, +-inf: max %.2f ulp, "
                      "relative %.2g (normal results), %.2g (in f16's normal range); "
                      "inf / 0 / NaN %s" % (name, target, len(x), lo, hi, err, rel, rel16,
                                            "match" if special else "DIFFER"))


if __name__ == "__main__":
    main()
