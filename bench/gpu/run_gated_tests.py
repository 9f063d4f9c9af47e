#!/usr/bin/env python3
"""Runs the GPU-gated lit tests (REQUIRES: cuda-device) on the GPU machine.

That machine has no LLVM, so neither lit nor FileCheck: this reads the RUN
lines of each test/**/*.test that requires cuda-device, substitutes what
lit would (tile-jit, %examples, %S, %tile_src) and runs them with bash. The
gated tests are written so that the exit status is the check (tile-jit
--check exits 1 on any mismatch). Prints PASS/FAIL per test and a summary;
exits non-zero if any failed.

Usage, from the repository root: python3 bench/gpu/run_gated_tests.py --jit .bundle/tile-jit
"""
import argparse
import glob
import os
import re
import shlex
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jit", default=".bundle/tile-jit")
    ap.add_argument("--timeout", type=int, default=180)
    ap.add_argument("tests", nargs="*")
    o = ap.parse_args()
    root = os.getcwd()
    tests = o.tests or sorted(glob.glob("test/**/*.test", recursive=True))
    failed = 0
    ran = 0
    for t in tests:
        text = open(t).read()
        req = re.findall(r"^// REQUIRES: (.*)$", text, re.M)
        if not any("cuda-device" in r for r in req):
            continue
        ran += 1
        ok = True
        for run in re.findall(r"^// RUN: (.*)$", text, re.M):
            cmd = (run.replace("%examples", os.path.join(root, "examples"))
                      .replace("%S", os.path.dirname(os.path.abspath(t)))
                      .replace("%tile_src", root))
            cmd = re.sub(r"(^|[|;&]\s*)tile-jit\b", lambda m: m.group(1) + shlex.quote(o.jit), cmd)
            try:
                p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True,
                                   text=True, timeout=o.timeout)
                rc, out = p.returncode, p.stdout + p.stderr
            except subprocess.TimeoutExpired:
                rc, out = 124, "timeout"
            lines = [l for l in out.splitlines() if l.startswith("check ") or "error" in l]
            print(f"  {'ok  ' if rc == 0 else 'FAIL'} {run}")
            for l in lines[:4]:
                print(f"       {l}")
            ok &= rc == 0
        print(f"{'PASS' if ok else 'FAIL'}: {t}")
        failed += not ok
    print(f"gated tests: {ran} run, {ran - failed} passed, {failed} failed")
    return 1 if failed or not ran else 0


if __name__ == "__main__":
    sys.exit(main())
