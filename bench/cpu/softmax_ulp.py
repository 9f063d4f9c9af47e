#!/usr/bin/env python3
"""Accuracy of examples/softmax.tile (f16 in, f16 out) as compiled for the
CPU, in ulp of f16 against softmax computed in f64, for each tile-jit
given (e.g. main's build and this one's, to compare).

Inputs, M x N f16 with N = 4096 + 77 (whole tiles and a tail): normal
values of scale 1 and 8; rows near 1000 and near 30000 whose maximum lies
in the last tile, so that the running maximum changes between tiles
(values a few f16 ulp apart, where the rescaling of the running sum and
the shift of each exp matter); and uniform values over f16's whole range.
Prints per input the largest error in ulp of f16 (subnormal results: ulp
2^-24), the largest relative error over results in f16's normal range,
and whether NaN and infinities match.

  /usr/bin/python3 bench/cpu/softmax_ulp.py [--tile-jit PATH ...] [--target T]
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


def inputs(rng, m, n):
    out = {}
    out["normal, scale 1"] = rng.standard_normal((m, n))
    out["normal, scale 8"] = 8 * rng.standard_normal((m, n))
    near = np.empty((m, n))
    for base, name in [(1000.0, "near 1000, max in last tile"),
                       (30000.0, "near 30000, max in last tile")]:
        ulp = 2.0 ** (np.floor(np.log2(base)) - 10)
        near = base - ulp * rng.integers(0, 12, (m, n))
        near[:, -1] = base + ulp
        out[name] = near.copy()
    out["uniform over f16's range"] = rng.uniform(-65504, 65504, (m, n))
    return {k: v.astype(np.float16) for k, v in out.items()}


def reference(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def errors(y, ref):
    y = y.astype(np.float64)
    same_special = (np.array_equal(np.isnan(y), np.isnan(ref)) and
                    np.array_equal(np.isinf(y), np.isinf(ref)))
    fin = np.isfinite(y) & np.isfinite(ref)
    r, v = ref[fin], y[fin]
    e2 = np.floor(np.log2(np.maximum(np.abs(r), 2.0 ** -24)))
    ulp = 2.0 ** (np.maximum(e2, -14) - 10)
    ulps = np.abs(v - r) / ulp
    normal = np.abs(r) >= 2.0 ** -14
    rel = np.abs(v[normal] - r[normal]) / np.abs(r[normal])
    return float(ulps.max()), float(rel.max()) if rel.size else 0.0, same_special


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tile-jit", action="append",
                    help="tile-jit to run (repeatable; default build/bin/tile-jit)")
    ap.add_argument("--target", default="cpu")
    ap.add_argument("--rows", type=int, default=64)
    args = ap.parse_args()
    jits = args.tile_jit or [os.path.join(ROOT, "build", "bin", "tile-jit")]
    rng = np.random.default_rng(11)
    m, n = args.rows, 4096 + 77
    xs = inputs(rng, m, n)
    tile = os.path.join(ROOT, "examples", "softmax.tile")
    print("softmax %d x %d f16 (%s), error against softmax in f64 (unrounded)" % (m, n, tile))
    with tempfile.TemporaryDirectory() as tmp:
        for jit in jits:
            print("tile-jit: %s" % jit)
            for name, x in xs.items():
                xf, yf = os.path.join(tmp, "x.npy"), os.path.join(tmp, "y.npy")
                np.save(xf, x)
                cmd = [jit, tile, "-target=" + args.target, "--no-cache", "--dim", "M=%d" % m,
                       "--dim", "N=%d" % n, "--input=X=" + xf, "--output=Y=" + yf]
                p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                if p.returncode != 0:
                    sys.exit("softmax_ulp: '%s' failed:\n%s" % (" ".join(cmd), p.stdout))
                ulps, rel, special = errors(np.load(yf), reference(x))
                print("  %-30s max %.3f ulp, max rel %.3e (normal results), NaN/inf %s"
                      % (name, ulps, rel, "match" if special else "DIFFER"))


if __name__ == "__main__":
    main()
