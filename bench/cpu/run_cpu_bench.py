#!/usr/bin/env python3
"""CPU benchmark of Tile's reference kernels against measured peers.

Runs, in one invocation and at one thread count, each round interleaving
the peers and Tile:
  tile-jit --bench on  f32 GEMM 1024^3 and 2048^3 (gemm_f32.tile here),
                       elementwise add of 2^26 f32 (examples/elementwise_add.tile),
                       RMSNorm 8192x8192 in f16 (examples/rmsnorm.tile) and
                       f32 (rmsnorm_f32.tile here), softmax f16 8192x4096
                       (examples/softmax.tile), LayerNorm f16 8192x4096
                       (layernorm.tile here), GEMV f16 8192^2
                       (examples/gemv.tile), per-thread SAXPY of 2^26 f32
                       (saxpy_threads.tile here), a bf16 linear layer with
                       bias and ReLU at 1024^3 and 2048^3 (linear_bf16.tile)
                       and the same GEMM without them (linear_bf16_plain.tile),
                       FlashAttention f16, 1 x 8 heads x 2048 x 128
                       (examples/flash_attention.tile), with each vector
                       math setting;
  the peers            NumPy matmul on OpenBLAS (sgemm, and sgemv at 8192^2),
                       NumPy add, and the copy bandwidth of a large memcpy on
                       the same threads (copy_bw.c) and of numpy.copyto;
and prints the ratios the CPU issues set targets for: GEMM >= 0.5x
OpenBLAS at equal threads; add, RMSNorm, LayerNorm and SAXPY >= 0.8x and
softmax >= 0.5x the measured copy bandwidth (bytes read + written per
second); GEMV >= 1.0x the bandwidth of OpenBLAS sgemv (bytes of its f32
matrix and vectors per second); the linear layer >= 0.9x its GEMM without
the epilogue, and that GEMM >= 0.8x OpenBLAS sgemm's GFLOP/s.
FlashAttention is reported in GFLOP/s beside the same kernel with exp
computed lane by lane (-veclib=none) and through libmvec (-veclib=libmvec).
Also the compile latency (.tile to a loaded kernel) of the f32 GEMM, from
tile-jit --print-compile-time.

--ab-rounds N adds an A/B table of the memory-bound rows (softmax,
LayerNorm, RMSNorm f16 at softmax's size, GEMV, SAXPY, add, and memcpy
itself against numpy.copyto): per
row, N interleaved rounds of the Tile kernel and its peer (Tile, peer,
Tile, peer, ...; the peer of the bandwidth rows is the memcpy of
copy_bw.c, GEMV's is OpenBLAS sgemv), each round's ratio and their
median. The machine's bandwidth drifts from minute to minute with other
jobs' load, so that a ratio of two measurements minutes apart (the main
table's) can move by 30%; a pair seconds apart moves less, and the
median of N pairs is the figure to quote. --ab-only skips the main table,
--ab-rows picks rows (softmax,layernorm,rmsnorm,gemv,saxpy,add,memcpy). The load
average is printed per row.

Usage (see docs/Performance.md):
  bench/cpu/run_cpu_bench.sh [--tile-jit PATH] [--threads N] [--reps R]
                             [--rounds K] [--quick] [--json FILE]
                             [--ab-rounds N [--ab-only] [--ab-rows R,...]]
This is a program, not a test: nothing runs it in CI.
"""
import argparse
import datetime
import json
import os
import re
import shlex
import shutil
import statistics
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


def tile_jit(args, tile, dims, compile_time=False, target="cpu", entry=None):
    cmd = [args.tile_jit, tile, "-target=" + target, "--random", "--seed", "1",
           "--bench", str(args.reps), "--num-threads", str(args.threads)]
    if entry:
        cmd.append("-entry=" + entry)
    for k, v in dims.items():
        cmd += ["--dim", "%s=%d" % (k, v)]
    if compile_time:
        cmd.append("--print-compile-time")
    # A kernel cache of this run only: the cache's key names Tile's build
    # by one of its libraries, so a rebuilt backend could otherwise load
    # kernels that an older build compiled.
    out = run(cmd, env=dict(os.environ, TILE_CACHE_DIR=args.cache_dir))
    m = BENCH_RE.search(out)
    if not m:
        die("no bench line in the output of '%s':\n%s" % (" ".join(cmd), out))
    r = {"ms": float(m.group(1)), "gbs": float(m.group(2)),
         "gflops": float(m.group(3)) if m.group(3) else None,
         "command": " ".join(shlex.quote(os.path.relpath(c, ROOT) if os.path.isabs(c) and
                                         c.startswith(ROOT) else c) for c in cmd)}
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


def openblas_kernel(args, env):
    """The kernel OpenBLAS picks under env (threadpoolctl's architecture),
    or None when it cannot be told."""
    code = ("import numpy, threadpoolctl\n"
            "print([i.get('architecture') for i in threadpoolctl.threadpool_info()"
            " if i.get('user_api') == 'blas'][0])")
    p = subprocess.run([args.python, "-c", code], env=env, capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 and p.stdout.strip() else None


def avx512_coretype():
    """OpenBLAS's name for this CPU's AVX-512 kernels, from /proc/cpuinfo's
    flags: Cooperlake with AVX512-BF16, SkylakeX with AVX512F, else None."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), [])
    except OSError:
        return None
    if "avx512_bf16" in flags:
        return "Cooperlake"
    return "SkylakeX" if "avx512f" in flags else None


def peer_env(args):
    """The environment of the peers' processes. OPENBLAS_CORETYPE and
    OPENBLAS_L2_SIZE are set on some machines for old OpenBLAS builds and
    slow a current one: removed, so OpenBLAS chooses its kernel. Where it
    chooses Prescott (its generic fallback: OpenBLAS 0.3.21 does not know
    newer CPU models, e.g. Intel model 207) on a CPU with AVX-512, the peer
    would be a weak one; the bench then sets OPENBLAS_CORETYPE to the
    AVX-512 kernel set the CPU's flags allow and says so."""
    env = dict(os.environ)
    removed = {k: env.pop(k) for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
               if k in env}
    env["OPENBLAS_NUM_THREADS"] = str(args.threads)
    env["OMP_NUM_THREADS"] = str(args.threads)
    chosen = openblas_kernel(args, env)
    forced = avx512_coretype() if chosen == "Prescott" else None
    if forced:
        env["OPENBLAS_CORETYPE"] = forced
    return env, removed, (chosen, forced)


def peers(args, gemm_sizes, add_n, copy_bytes, gemv_n, only=None):
    if not hasattr(args, "peer_env"):
        args.peer_env = peer_env(args)
    env, removed, (chosen, forced) = args.peer_env
    env = dict(env)
    env["OMP_NUM_THREADS"] = str(args.threads)
    out = run([args.python, os.path.join(HERE, "peers.py"), str(args.threads),
               str(args.reps), ",".join(map(str, gemm_sizes)), str(add_n),
               str(copy_bytes), str(gemv_n)] + ([",".join(only)] if only else []),
              env=env)
    r = json.loads(out)
    r["unset_env"] = removed
    r["openblas_choice"] = chosen
    r["openblas_forced"] = forced
    return r


AB_ROWS = ("softmax", "layernorm", "rmsnorm", "gemv", "saxpy", "add", "memcpy")
# Rows of the A/B table measured in GFLOP/s against OpenBLAS sgemm at 2048^3,
# taken only when named in --ab-rows (each round takes seconds).
AB_GEMM_ROWS = ("linear", "gemm")


def ab_rounds(args, copy_exe, add_n, rows2, gemv_n, copy_bytes):
    """Per row, args.ab_rounds interleaved rounds of the Tile kernel (or
    memcpy, for the memcpy row) and its peer; each side's bandwidth in GB/s
    per round (GFLOP/s for the GEMM rows, AB_GEMM_ROWS)."""
    examples = os.path.join(ROOT, "examples")

    def memcpy():
        return copy_bw(copy_exe, args.threads, copy_bytes // 2, args.reps)["gbs"]

    def tile(path, dims, figure="gbs"):
        def fn():
            r = tile_jit(args, path, dims)
            fn.command = r["command"]
            return r[figure]
        return fn

    def sgemv():
        s = peers(args, [], add_n, copy_bytes // 2, gemv_n, only=["gemv"])["gemv"]
        return 4.0 * (gemv_n * gemv_n + 2 * gemv_n) / s / 1e9

    gemm_n = 2048

    def sgemm():
        s = peers(args, [gemm_n], add_n, copy_bytes // 2, gemv_n, only=["gemm"])["gemm"]
        return 2.0 * gemm_n ** 3 / s[str(gemm_n)] / 1e9

    def copyto():
        s = peers(args, [], add_n, copy_bytes // 2, gemv_n, only=["copy"])["copy"]
        return 2 * (copy_bytes // 2) / s / 1e9

    memcpy_name = "memcpy (copy_bw.c, %d threads)" % args.threads
    specs = {
        "softmax": ("softmax %dx%d f16" % rows2,
                    tile(os.path.join(examples, "softmax.tile"),
                         {"M": rows2[0], "N": rows2[1]}), memcpy_name, memcpy, 0.5),
        "layernorm": ("LayerNorm %dx%d f16" % rows2,
                      tile(os.path.join(HERE, "layernorm.tile"),
                           {"M": rows2[0], "N": rows2[1]}), memcpy_name, memcpy, 0.8),
        "rmsnorm": ("RMSNorm %dx%d f16" % rows2,
                    tile(os.path.join(examples, "rmsnorm.tile"),
                         {"M": rows2[0], "N": rows2[1]}), memcpy_name, memcpy, 0.8),
        "gemv": ("GEMV %d^2 f16" % gemv_n,
                 tile(os.path.join(examples, "gemv.tile"), {"M": gemv_n, "K": gemv_n}),
                 "OpenBLAS sgemv (f32)", sgemv, 1.0),
        "saxpy": ("per-thread SAXPY 2^%d f32" % (add_n.bit_length() - 1),
                  tile(os.path.join(HERE, "saxpy_threads.tile"), {"N": add_n}),
                  memcpy_name, memcpy, 0.8),
        "add": ("add 2^%d f32" % (add_n.bit_length() - 1),
                tile(os.path.join(examples, "elementwise_add.tile"), {"N": add_n}),
                memcpy_name, memcpy, 0.8),
        "memcpy": (memcpy_name, memcpy, "numpy.copyto (1 thread)", copyto, None),
        "linear": ("bf16 linear GEMM %d^3 (GFLOP/s)" % gemm_n,
                   tile(os.path.join(HERE, "linear_bf16_plain.tile"),
                        {"M": gemm_n, "N": gemm_n, "K": gemm_n}, "gflops"),
                   "OpenBLAS sgemm (f32)", sgemm, 0.8),
        "gemm": ("f32 GEMM %d^3 (GFLOP/s)" % gemm_n,
                 tile(os.path.join(HERE, "gemm_f32.tile"),
                      {"M": gemm_n, "N": gemm_n, "K": gemm_n}, "gflops"),
                 "OpenBLAS sgemm (f32)", sgemm, 0.5),
    }
    out = []
    for key in args.ab_rows:
        name, a, peer_name, b, target = specs[key]
        row = {"row": key, "name": name, "peer": peer_name, "target": target,
               "load_average": os.getloadavg()[0], "a_gbs": [], "b_gbs": []}
        for _ in range(args.ab_rounds):
            row["a_gbs"].append(a())
            row["b_gbs"].append(b())
        row["load_average_after"] = os.getloadavg()[0]
        row["ratios"] = [x / y for x, y in zip(row["a_gbs"], row["b_gbs"])]
        row["median_ratio"] = statistics.median(row["ratios"])
        row["command"] = getattr(a, "command", "copy_bw %d %d %d (bench/cpu/copy_bw.c)" % (
            args.threads, copy_bytes // 2, args.reps))
        out.append(row)
    return out


def print_ab(args, ab):
    print("A/B: %d interleaved rounds per row (kernel, peer, kernel, peer, ...), "
          "%d timed runs per measurement (median); ratio = kernel GB/s / peer GB/s "
          "of the same round" % (args.ab_rounds, args.reps))
    print()
    print("| kernel | median GB/s (GFLOP/s) | peer | peer median GB/s (GFLOP/s) | ratio per round | "
          "median ratio | target | met | load average |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in ab:
        met = "-" if r["target"] is None else (
            "yes" if r["median_ratio"] >= r["target"] else "no")
        print("| %s | %.1f | %s | %.1f | %s | %.2fx | %s | %s | %.2f-%.2f |" % (
            r["name"], statistics.median(r["a_gbs"]), r["peer"], statistics.median(r["b_gbs"]),
            " ".join("%.2f" % x for x in r["ratios"]), r["median_ratio"],
            "-" if r["target"] is None else ">= %.1fx" % r["target"], met,
            r["load_average"], r["load_average_after"]))
    print()
    print("A/B commands:")
    for r in ab:
        print("  " + r["command"])


def write_json(args, results):
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=str)


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
    ap.add_argument("--ab-rounds", type=int, default=0, metavar="N",
                    help="also N interleaved rounds of each memory-bound row's "
                         "kernel and peer, with the median ratio")
    ap.add_argument("--ab-only", action="store_true",
                    help="only the A/B table (with --ab-rounds)")
    ap.add_argument("--ab-rows", default=",".join(AB_ROWS),
                    help="rows of the A/B table, of " + ",".join(AB_ROWS + AB_GEMM_ROWS) +
                    " (the GEMM rows " + ",".join(AB_GEMM_ROWS) + " only when named)")
    args = ap.parse_args()
    args.ab_rows = [r for r in args.ab_rows.split(",") if r]
    bad = [r for r in args.ab_rows if r not in AB_ROWS + AB_GEMM_ROWS]
    if bad:
        die("unknown --ab-rows %s; rows: %s" % (",".join(bad), ",".join(AB_ROWS + AB_GEMM_ROWS)))
    if args.ab_only and args.ab_rounds < 1:
        die("--ab-only needs --ab-rounds N (N >= 1)")
    if not os.access(args.tile_jit, os.X_OK):
        die("no tile-jit at '%s'; build it (ninja -C <build> tile-jit) or pass "
            "--tile-jit" % args.tile_jit)

    gemm_sizes = [256, 512] if args.quick else [1024, 2048]
    add_n = 1 << (20 if args.quick else 26)
    rms = (512, 1024) if args.quick else (8192, 8192)
    rows2 = (512, 1024) if args.quick else (8192, 4096)  # softmax, LayerNorm
    gemv_n = 1024 if args.quick else 8192
    fa_s = 256 if args.quick else 2048
    copy_bytes = 3 * 4 * add_n  # as many bytes as the add moves
    gemm_tile = os.path.join(HERE, "gemm_f32.tile")
    examples = os.path.join(ROOT, "examples")

    info = machine()
    results = {"machine": info, "threads": args.threads, "reps": args.reps,
               "rounds": []}
    with tempfile.TemporaryDirectory() as tmp:
        args.cache_dir = os.path.join(tmp, "kernels")
        copy_exe = build_copy_bw(tmp)
        for _ in range(0 if args.ab_only else args.rounds):
            r = {}
            r["copy_before"] = copy_bw(copy_exe, args.threads, copy_bytes // 2, args.reps)
            r["peers"] = peers(args, gemm_sizes, add_n, copy_bytes // 2, gemv_n)
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
            r["softmax"] = tile_jit(args, os.path.join(examples, "softmax.tile"),
                                    {"M": rows2[0], "N": rows2[1]})
            r["layernorm"] = tile_jit(args, os.path.join(HERE, "layernorm.tile"),
                                      {"M": rows2[0], "N": rows2[1]})
            r["gemv"] = tile_jit(args, os.path.join(examples, "gemv.tile"),
                                 {"M": gemv_n, "K": gemv_n})
            r["saxpy"] = tile_jit(args, os.path.join(HERE, "saxpy_threads.tile"),
                                  {"N": add_n})
            r["linear"], r["linear_plain"] = {}, {}
            for n in gemm_sizes:
                dims = {"M": n, "N": n, "K": n}
                r["linear"][n] = tile_jit(args, os.path.join(HERE, "linear_bf16.tile"), dims)
                r["linear_plain"][n] = tile_jit(
                    args, os.path.join(HERE, "linear_bf16_plain.tile"), dims)
            fa_file = os.path.join(examples, "flash_attention.tile")
            fa_dims = {"B": 1, "H": 8, "S": fa_s}
            r["fa"] = tile_jit(args, fa_file, fa_dims, entry="flash_attention")
            r["fa_libmvec"] = tile_jit(args, fa_file, fa_dims, entry="flash_attention",
                                       target="cpu -veclib=libmvec")
            r["fa_none"] = tile_jit(args, fa_file, fa_dims, entry="flash_attention",
                                    target="cpu -veclib=none")
            r["copy_after"] = copy_bw(copy_exe, args.threads, copy_bytes // 2, args.reps)
            results["rounds"].append(r)
        if args.ab_rounds:
            results["ab"] = ab_rounds(args, copy_exe, add_n, rows2, gemv_n, copy_bytes)
    info["load_average_after"] = os.getloadavg()[0]

    if args.ab_only:
        print("Tile CPU benchmark (A/B only), %s" % info["date"])
        print("machine: %s, %d cores; tile-jit and peers on %d threads; commit %s" %
              (info["cpu"], info["cores"], args.threads, info["commit"]))
        print("load average: %.2f before, %.2f after" % (info["load_average_before"],
                                                         info["load_average_after"]))
        print()
        print_ab(args, results["ab"])
        write_json(args, results)
        return

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
    for key, name, target in (
            ("softmax", "softmax %dx%d f16" % rows2, 0.5),
            ("layernorm", "LayerNorm %dx%d f16" % rows2, 0.8),
            ("saxpy", "per-thread SAXPY 2^%d f32" % (add_n.bit_length() - 1), 0.8)):
        t = best([r[key] for r in rounds], "ms")
        rows.append((name, t["ms"], "%.1f GB/s" % t["gbs"], "copy %.1f GB/s" % copy_ref,
                     t["gbs"] / copy_ref, target, t["command"]))
    t = best([r["gemv"] for r in rounds], "ms")
    sgemv_s = min(r["peers"]["gemv"] for r in rounds)
    sgemv_gbs = 4.0 * (gemv_n * gemv_n + 2 * gemv_n) / sgemv_s / 1e9
    rows.append(("GEMV %d^2 f16" % gemv_n, t["ms"], "%.1f GB/s" % t["gbs"],
                 "OpenBLAS sgemv (f32) %.1f GB/s (%.2f ms)" % (sgemv_gbs, sgemv_s * 1e3),
                 t["gbs"] / sgemv_gbs, 1.0, t["command"]))
    for n in gemm_sizes:
        plain = best([r["linear_plain"][n] for r in rounds], "ms")
        lin = best([r["linear"][n] for r in rounds], "ms")
        blas_s = min(r["peers"]["gemm"][str(n)] for r in rounds)
        blas_gf = 2.0 * n ** 3 / blas_s / 1e9
        plain_gf = 2.0 * n ** 3 / (plain["ms"] / 1e3) / 1e9
        lin_gf = 2.0 * n ** 3 / (lin["ms"] / 1e3) / 1e9
        rows.append(("bf16 linear + bias + ReLU %d^3" % n, lin["ms"], "%.1f GFLOP/s" % lin_gf,
                     "same GEMM without epilogue %.1f GFLOP/s" % plain_gf,
                     lin_gf / plain_gf, 0.9, lin["command"]))
        rows.append(("bf16 linear GEMM %d^3 (no epilogue)" % n, plain["ms"],
                     "%.1f GFLOP/s" % plain_gf,
                     "OpenBLAS sgemm (f32) %.1f GFLOP/s" % blas_gf,
                     plain_gf / blas_gf, 0.8, plain["command"]))
    fa = best([r["fa"] for r in rounds], "ms")
    for i, (key, how) in enumerate((("fa_none", "exp lane by lane (-veclib=none)"),
                                    ("fa_libmvec", "exp from libmvec (-veclib=libmvec)"))):
        other = best([r[key] for r in rounds], "ms")
        cmd = other["command"] if i else fa["command"] + "\n  " + other["command"]
        rows.append(("FlashAttention f16 1x8x%dx128" % fa_s, fa["ms"],
                     "%.1f GFLOP/s" % fa["gflops"],
                     "%s %.1f GFLOP/s (%.2f ms)" % (how, other["gflops"], other["ms"]),
                     fa["gflops"] / other["gflops"], None, cmd))
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
        if rounds[0]["peers"].get("openblas_forced"):
            print("  OpenBLAS chose %s (its generic fallback) for this CPU; the peers run "
                  "with OPENBLAS_CORETYPE=%s, the AVX-512 kernels its flags allow" % (
                      rounds[0]["peers"]["openblas_choice"],
                      rounds[0]["peers"]["openblas_forced"]))
    print("copy bandwidth: " + "; ".join("%s %.1f GB/s" % kv for kv in copy_gbs.items()) +
          " -> reference %.1f GB/s (%s)" % (copy_ref, copy_src))
    print()
    print("| kernel | tile-jit median | tile-jit | peer | ratio | target | met |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, ms, rate, peer, ratio, target, _ in rows:
        if ratio is None or target is None:
            print("| %s | %.2f ms | %s | %s | %s | - | - |" % (
                name, ms, rate, peer, "-" if ratio is None else "%.2fx" % ratio))
            continue
        print("| %s | %.2f ms | %s | %s | %.2fx | >= %.1fx | %s |" % (
            name, ms, rate, peer, ratio, target, "yes" if ratio >= target else "no"))
    print()
    print("compile latency, f32 GEMM (.tile to a loaded kernel): " +
          ", ".join("%s %.1f ms" % kv for kv in comp.items()))
    print()
    print("commands:")
    for row in rows:
        print("  " + row[6])
    if args.ab_rounds:
        print()
        print_ab(args, results["ab"])
    write_json(args, results)


if __name__ == "__main__":
    main()
