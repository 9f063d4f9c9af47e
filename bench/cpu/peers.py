"""NumPy peers of the CPU benchmark, measured in a process of their own.

run_cpu_bench.py starts this with OPENBLAS_NUM_THREADS set to tile-jit's
thread count and OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE removed, so that
OpenBLAS picks its kernel for this CPU itself (or OPENBLAS_CORETYPE set to
the AVX-512 kernels, where OpenBLAS falls back to Prescott on an AVX-512
CPU it does not know; run_cpu_bench.py's peer_env). Prints one JSON object:
which BLAS NumPy runs (from threadpoolctl), and per measurement the
median seconds of REPS timed runs after a warm-up. ONLY, a comma list
of gemm, gemv, add and copy, measures those only (run_cpu_bench.py's
--ab-rounds runs one peer at a time between Tile's kernels).

  peers.py THREADS REPS GEMM_SIZES ADD_N COPY_BYTES GEMV_N [ONLY]
"""
import json
import sys
import time

import numpy as np


def median_seconds(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


def blas_info(threads):
    try:
        import threadpoolctl
    except ImportError:
        return {"error": "threadpoolctl is not installed (python3-threadpoolctl)"}
    info = [i for i in threadpoolctl.threadpool_info() if i.get("user_api") == "blas"]
    if not info:
        return {"error": "NumPy loaded no BLAS that threadpoolctl knows"}
    i = info[0]
    return {
        "library": i.get("internal_api"),
        "version": i.get("version"),
        "kernel": i.get("architecture"),
        "threading": i.get("threading_layer"),
        "threads": i.get("num_threads"),
        "path": i.get("filepath"),
    }


def main():
    threads, reps = int(sys.argv[1]), int(sys.argv[2])
    gemm_sizes = [int(s) for s in sys.argv[3].split(",") if s]
    add_n, copy_bytes = int(sys.argv[4]), int(sys.argv[5])
    gemv_n = int(sys.argv[6])
    only = set(sys.argv[7].split(",")) if len(sys.argv) > 7 else None

    def want(name):
        return only is None or name in only

    rng = np.random.default_rng(0)
    out = {"numpy": np.__version__, "blas": blas_info(threads), "gemm": {}}
    for n in gemm_sizes if want("gemm") else []:
        a = rng.random((n, n), dtype=np.float32) * 2 - 1
        b = rng.random((n, n), dtype=np.float32) * 2 - 1
        c = np.empty((n, n), np.float32)
        out["gemm"][str(n)] = median_seconds(lambda: np.matmul(a, b, out=c), reps)
    if want("gemv"):
        # sgemv: y = A x, A f32 [gemv_n, gemv_n] (np.matmul of a matrix and
        # a vector calls OpenBLAS's sgemv).
        a = rng.random((gemv_n, gemv_n), dtype=np.float32) * 2 - 1
        x = rng.random(gemv_n, dtype=np.float32) * 2 - 1
        y = np.empty(gemv_n, np.float32)
        out["gemv"] = median_seconds(lambda: np.matmul(a, x, out=y), reps)
        del a, x, y
    if want("add"):
        a = rng.random(add_n, dtype=np.float32)
        b = rng.random(add_n, dtype=np.float32)
        c = np.empty(add_n, np.float32)
        out["add"] = median_seconds(lambda: np.add(a, b, out=c), reps)
        del a, b, c
    if want("copy"):
        src = np.ones(copy_bytes, np.uint8)
        dst = np.zeros(copy_bytes, np.uint8)
        out["copy"] = median_seconds(lambda: np.copyto(dst, src), reps)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
