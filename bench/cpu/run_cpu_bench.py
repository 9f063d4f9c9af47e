#!/usr/bin/env python3
"""CPU benchmark of Tile's reference kernels against measured peers.

Runs, in one invocation and at one thread count:
  tile-jit --bench on  f32 GEMM 1024^3 and 2048^3 (gemm_f32.tile here),
                       elementwise add of 2^26 f32 (examples/elementwise_add.tile),
                       RMSNorm 8192x8192 in f16 (examples/rmsnorm.tile) and
                       f32 (rmsnorm_f32.tile here);
  the peers            NumPy matmul on OpenBLAS (sgemm), NumPy add, and the
                       copy bandwidth of a large memcpy on the same threads
                       (copy_bw.c) and of numpy.copyto;
and prints the ratios the CPU end-to-end issue sets targets for:
  GEMM >= 0.5x OpenBLAS at equal threads; add and RMSNorm >= 0.8x the
  measured copy bandwidth (bytes read + written per second).
Also the compile latency (.tile to a loaded kernel) of the f32 GEMM, from
tile-jit --print-compile-time.

Usage (see docs/Performance.md):
  bench/cpu/run_cpu_bench.sh [--tile-jit PATH] [--threads N] [--reps R]
                             [--rounds K] [--quick] [--json FILE]
This is a program, not a test: nothing runs it in CI.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def die(msg):
    sys.exit("run_cpu_bench: error: " + msg)


def run(cmd, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, env=env)
    if p.returncode != 0:
        die("'%s' failed (exit %d):\n%s%s" % (" ".join(cmd), p.returncode,
                                              p.stdout, p.stderr))
    return p.stdout


def machine():
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    try:
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True).stdout.strip()
    except OSError:
        commit = "unknown"
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "load_average_before": os.getloadavg()[0],
        "commit": commit,
    }


BENCH_RE = re.compile(r"bench: median ([0-9.]+) ms over \d+ runs, ([0-9.]+) GB/s"
                      r"(?:[^,]*, ([0-9.]+) GFLOP/s)?")
STAGE_RE = re.compile(r"^\s+([a-z+ ]+):\s+([0-9.]+) ms$", re.M)


def tile_jit(args, tile, dims, compile_time=False):
    cmd = [args.tile_jit, tile, "-target=cpu", "--random", "--seed", "1",
           "--bench", str(args.reps), "--num-threads", str(args.threads)]
    for k, v in dims.items():
        cmd += ["--dim", "%s=%d" % (k, v)]
    if compile_time:
        cmd.append("--print-compile-time")
    out = run(cmd)
    m = BENCH_RE.search(out)
    if not m:
        die("no bench line in the output of '%s':\n%s" % (" ".join(cmd), out))
    r = {"ms": float(m.group(1)), "gbs": float(m.group(2)),
         "gflops": float(m.group(3)) if m.group(3) else None,
         "command": " ".join(os.path.relpath(c, ROOT) if os.path.isabs(c) and
                             c.startswith(ROOT) else c for c in cmd)}
    if compile_time:
        r["compile_ms"] = {k.strip(): float(v) for k, v in STAGE_RE.findall(out)}
    return r


def build_copy_bw(tmp):
    cc = os.environ.get("CC") or shutil.which("clang-22") or shutil.which("cc")
    if not cc:
        die("no C compiler for copy_bw.c (set CC)")
    exe = os.path.join(tmp, "copy_bw")
    run([cc, "-O2", "-pthread", "-o", exe, os.path.join(HERE, "copy_bw.c")])
    return exe


def copy_bw(exe, threads, nbytes, reps):
    out = run([exe, str(threads), str(nbytes), str(reps)])
    m = re.search(r"median ([0-9.]+) ms, ([0-9.]+) GB/s", out)
    return {"ms": float(m.group(1)), "gbs": float(m.group(2))}


def peers(args, gemm_sizes, add_n, copy_bytes):
    env = dict(os.environ)
    # Set on some machines for old OpenBLAS builds; they slow a current
    # one. Removed for this process only, so OpenBLAS chooses its kernel.
    removed = {k: env.pop(k) for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
               if k in env}
    env["OPENBLAS_NUM_THREADS"] = str(args.threads)
    env["OMP_NUM_THREADS"] = str(args.threads)
    out = run([args.python, os.path.join(HERE, "peers.py"), str(args.threads),
               str(args.reps), ",".join(map(str, gemm_sizes)), str(add_n),
               str(copy_bytes)], env=env)
    r = json.loads(out)
    r["unset_env"] = removed
    return r


def best(rounds, key):
    """The round with the shortest time, per measurement."""
    return min(rounds, key=lambda r: r[key])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    build = os.environ.get("TILE_BUILD_DIR", os.path.join(ROOT, "build"))
    ap.add_argument("--tile-jit", default=os.path.join(build, "bin", "tile-jit"))
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--reps", type=int, default=5,
                    help="timed runs per measurement (the median is kept)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="repeat everything; keep each measurement's best round")
    ap.add_argument("--quick", action="store_true",
                    help="small sizes, to check the script works")
    ap.add_argument("--python", default=sys.executable,
                    help="Python with NumPy for the peers")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()
    if not os.access(args.tile_jit, os.X_OK):
        die("no tile-jit at '%s'; build it (ninja -C <build> tile-jit) or pass "
            "--tile-jit" % args.tile_jit)

    gemm_sizes = [256, 512] if args.quick else [1024, 2048]
    add_n = 1 << (20 if args.quick else 26)
    rms = (512, 1024) if args.quick else (8192, 8192)
    copy_bytes = 3 * 4 * add_n  # as many bytes as the add moves
    gemm_tile = os.path.join(HERE, "gemm_f32.tile")
    examples = os.path.join(ROOT, "examples")

    info = machine()
    results = {"machine": info, "threads": args.threads, "reps": args.reps,
               "rounds": []}
    with tempfile.TemporaryDirectory() as tmp:
        copy_exe = build_copy_bw(tmp)
        for _ in range(args.rounds):
            r = {}
            r["copy_before"] = copy_bw(copy_exe, args.threads, copy_bytes // 2, args.reps)
            r["peers"] = peers(args, gemm_sizes, add_n, copy_bytes // 2)
            r["gemm"] = {}
            for i, n in enumerate(gemm_sizes):
                r["gemm"][n] = tile_jit(args, gemm_tile, {"M": n, "N": n, "K": n},
                                        compile_time=(i == 0))
            r["add"] = tile_jit(args, os.path.join(examples, "elementwise_add.tile"),
                                {"N": add_n})
            r["rmsnorm_f16"] = tile_jit(args, os.path.join(examples, "rmsnorm.tile"),
                                        {"M": rms[0], "N": rms[1]})
            r["rmsnorm_f32"] = tile_jit(args, os.path.join(HERE, "rmsnorm_f32.tile"),
                                        {"M": rms[0], "N": rms[1]})
            r["copy_after"] = copy_bw(copy_exe, args.threads, copy_bytes // 2, args.reps)
            results["rounds"].append(r)
    info["load_average_after"] = os.getloadavg()[0]

    rounds = results["rounds"]
    blas = rounds[0]["peers"]["blas"]
    # Copy bandwidth: the best of memcpy (before and after) and numpy.copyto.
    copy_gbs = {
        "memcpy (copy_bw.c, %d threads)" % args.threads:
            max(max(r["copy_before"]["gbs"], r["copy_after"]["gbs"]) for r in rounds),
        "numpy.copyto (1 thread)":
            max(2 * (copy_bytes // 2) / r["peers"]["copy"] / 1e9 for r in rounds),
    }
    copy_src, copy_ref = max(copy_gbs.items(), key=lambda kv: kv[1])

    rows = []
    for n in gemm_sizes:
        t = best([r["gemm"][n] for r in rounds], "ms")
        blas_s = min(r["peers"]["gemm"][str(n)] for r in rounds)
        blas_gf = 2.0 * n ** 3 / blas_s / 1e9
        tile_gf = 2.0 * n ** 3 / (t["ms"] / 1e3) / 1e9
        rows.append(("f32 GEMM %d^3" % n, t["ms"], "%.1f GFLOP/s" % tile_gf,
                     "OpenBLAS sgemm %.1f GFLOP/s (%.2f ms)" % (blas_gf, blas_s * 1e3),
                     tile_gf / blas_gf, 0.5, t["command"]))
    t = best([r["add"] for r in rounds], "ms")
    np_add = min(r["peers"]["add"] for r in rounds)
    rows.append(("add 2^%d f32" % (add_n.bit_length() - 1), t["ms"], "%.1f GB/s" % t["gbs"],
                 "copy %.1f GB/s; numpy add %.1f GB/s (%.2f ms)" %
                 (copy_ref, copy_bytes / np_add / 1e9, np_add * 1e3),
                 t["gbs"] / copy_ref, 0.8, t["command"]))
    for key, name in (("rmsnorm_f16", "RMSNorm %dx%d f16" % rms),
                      ("rmsnorm_f32", "RMSNorm %dx%d f32" % rms)):
        t = best([r[key] for r in rounds], "ms")
        rows.append((name, t["ms"], "%.1f GB/s" % t["gbs"], "copy %.1f GB/s" % copy_ref,
                     t["gbs"] / copy_ref, 0.8, t["command"]))
    comp = best([r["gemm"][gemm_sizes[0]] for r in rounds],
                 "ms")["compile_ms"]

    print("Tile CPU benchmark, %s" % info["date"])
    print("machine: %s, %d cores; tile-jit and peers on %d threads; commit %s" %
          (info["cpu"], info["cores"], args.threads, info["commit"]))
    print("load average: %.2f before, %.2f after; %d timed runs per measurement "
          "(median), best of %d round(s)" % (info["load_average_before"],
                                            info["load_average_after"], args.reps,
                                            args.rounds))
    if "error" in blas:
        print("BLAS: %s" % blas["error"])
    else:
        print("BLAS: NumPy %s on %s %s, kernel %s, %s threads (%s)%s" % (
            rounds[0]["peers"]["numpy"], blas["library"], blas["version"], blas["kernel"],
            blas["threads"], blas["path"],
            "; unset for the peers: " + ", ".join(rounds[0]["peers"]["unset_env"])
            if rounds[0]["peers"]["unset_env"] else ""))
    print("copy bandwidth: " + "; ".join("%s %.1f GB/s" % kv for kv in copy_gbs.items()) +
          " -> reference %.1f GB/s (%s)" % (copy_ref, copy_src))
    print()
    print("| kernel | tile-jit median | tile-jit | peer | ratio | target | met |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, ms, rate, peer, ratio, target, _ in rows:
        print("| %s | %.2f ms | %s | %s | %.2fx | >= %.1fx | %s |" % (
            name, ms, rate, peer, ratio, target, "yes" if ratio >= target else "no"))
    print()
    print("compile latency, f32 GEMM (.tile to a loaded kernel): " +
          ", ".join("%s %.1f ms" % kv for kv in comp.items()))
    print()
    print("commands:")
    for row in rows:
        print("  " + row[6])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=str)


if __name__ == "__main__":
    main()
