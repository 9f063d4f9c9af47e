#!/usr/bin/env python3
"""The tile Python package on torch CUDA tensors (bench/gpu/run_python_h200.sh).

1. examples/gemm.tile and examples/flash_attention.tile (both entries)
   compiled with tile.compile for the H200, run on torch tensors, compared
   with torch.matmul and torch SDPA (random inputs, outputs poisoned with
   NaN first, tolerances stated below), timed beside them (CUDA events,
   median of 20 after warm-up; TFLOP/s).
2. Per-call launch overhead from Python of an already-compiled kernel,
   beside a Triton kernel launch in the same run: the same elementwise add
   on the same tensors (N = 4096 f32), R launches back to back, host time
   per launch (median of 7 rounds), and torch's own add for scale. Measured
   for the launcher's direct torch path and for the plain __dlpack__ path,
   and, to attribute the time, the C API call alone (tileLaunchCall through
   ctypes on arguments already written). Then the checks the direct path
   leaves to the entry point, on CUDA tensors: a wrong dtype, a wrong
   length, a strided view and a CPU tensor are each refused by name.
"""
import math
import os
import re
import statistics
import sys
import time

import torch
import torch.nn.functional as F

import tile
from peers import bench as cuda_time  # CUDA events, median

TARGET = os.environ.get("TILE_TARGET", "cuda -arch=sm_90a")
failures = []


def check(name, got, want, atol, rtol):
    got, want = got.double(), want.double()
    bad = ~torch.isclose(got, want, atol=atol, rtol=rtol)
    nan = torch.isnan(got).sum().item()
    err = (got - want).abs().max().item()
    ok = not bad.any().item()
    print(f"check {name}: {'ok' if ok else 'FAIL'} (max abs err {err:.3g}, "
          f"{bad.sum().item()} outside atol={atol} rtol={rtol}, {nan} NaN)")
    if not ok:
        failures.append(name)


def gemm():
    t0 = time.perf_counter()
    k = tile.compile("examples/gemm.tile", target=TARGET)
    print(f"gemm: compiled and loaded in {time.perf_counter() - t0:.2f} s: {k}")
    for m, n, kk in [(1000, 1000, 1000), (4096, 4096, 4096), (8192, 8192, 8192)]:
        a = torch.randn(m, kk, device="cuda", dtype=torch.float16)
        b = torch.randn(kk, n, device="cuda", dtype=torch.float16)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
        k(a, b, c)
        torch.cuda.synchronize()
        # f32 accumulation over K, one f16 rounding (relative 2^-11).
        check(f"gemm {m}x{n}x{kk} vs torch.matmul", c, a.float() @ b.float(),
              atol=1e-2 * math.sqrt(kk) / 8, rtol=2e-3)
        flops = 2 * m * n * kk
        tt = cuda_time(lambda: k(a, b, c))
        tp = cuda_time(lambda: torch.matmul(a, b, out=c))
        print(f"  gemm {m}x{n}x{kk}: tile {flops / tt / 1e12:.1f} TFLOP/s, "
              f"torch.matmul {flops / tp / 1e12:.1f} TFLOP/s, "
              f"ratio {tp / tt:.2f}")


def attention():
    for entry, causal in [("flash_attention", False),
                          ("flash_attention_causal", True)]:
        t0 = time.perf_counter()
        k = tile.compile("examples/flash_attention.tile", target=TARGET,
                         entry=entry)
        print(f"{entry}: compiled and loaded in {time.perf_counter() - t0:.2f} s")
        for b, h, s in [(1, 2, 257), (8, 16, 2048), (4, 16, 4096)]:
            q, kk, v = (torch.randn(b, h, s, 128, device="cuda",
                                    dtype=torch.float16) for _ in range(3))
            o = torch.full_like(q, float("nan"))
            scale = 1 / math.sqrt(128)
            k(q, kk, v, o, scale)
            torch.cuda.synchronize()
            want = F.scaled_dot_product_attention(q.float(), kk.float(),
                                                  v.float(), is_causal=causal)
            check(f"{entry} B={b} H={h} S={s} vs SDPA", o, want,
                  atol=1e-2, rtol=1e-2)
            flops = 4 * b * h * s * s * 128 / (2 if causal else 1)
            tt = cuda_time(lambda: k(q, kk, v, o, scale))
            tp = cuda_time(lambda: F.scaled_dot_product_attention(
                q, kk, v, is_causal=causal))
            print(f"  {entry} B={b} H={h} S={s}: tile {flops / tt / 1e12:.1f} "
                  f"TFLOP/s, SDPA {flops / tp / 1e12:.1f} TFLOP/s, "
                  f"ratio {tp / tt:.2f}")


def host_time_per_call(fn, r=2000, rounds=7):
    """Host seconds per launch: r launches back to back (the queue absorbs
    them; a few microseconds of GPU work each), median over rounds."""
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    per = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(r):
            fn()
        per.append((time.perf_counter() - t0) / r)
        torch.cuda.synchronize()
    return statistics.median(per)


def launch_overhead():
    import triton
    import triton.language as tl

    @triton.jit
    def triton_add(a, b, c, n, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = i < n
        tl.store(c + i, tl.load(a + i, mask=m) + tl.load(b + i, mask=m), mask=m)

    n = 4096
    a = torch.randn(n, device="cuda")
    b = torch.randn(n, device="cuda")
    c = torch.full_like(a, float("nan"))
    add = tile.compile("examples/elementwise_add.tile", target=TARGET)
    add(a, b, c)
    torch.cuda.synchronize()
    check("add (launch test) vs torch", c, a + b, atol=0, rtol=0)
    c.fill_(float("nan"))
    grid = (triton.cdiv(n, 1024),)
    triton_add[grid](a, b, c, n, BLOCK=1024)
    torch.cuda.synchronize()
    check("triton add vs torch", c, a + b, atol=0, rtol=0)

    results = {}
    launcher = type(add).__call__.__globals__  # the launcher's constants
    # The direct path must be the one timed: count what goes via __dlpack__.
    dlpack_calls = [0]
    through_dlpack = tile._dltensor

    def counting(*args):
        dlpack_calls[0] += 1
        return through_dlpack(*args)

    tile._dltensor = counting
    results["tile (torch direct path)"] = host_time_per_call(lambda: add(a, b, c))
    tile._dltensor = through_dlpack
    print(f"check direct path taken: {'ok' if dlpack_calls[0] == 0 else 'FAIL'}"
          f" ({dlpack_calls[0]} arguments went through __dlpack__)")
    if dlpack_calls[0]:
        failures.append("direct path taken")
    call, launch, args, nargs = (launcher["call"], launcher["L"],
                                 launcher["ARGS"], launcher["NC"])
    add(a, b, c)  # the launcher's buffer now holds a, b, c
    results["  of which tileLaunchCall"] = host_time_per_call(
        lambda: call(launch, args, nargs))
    tile._torch.ENABLED = False
    saved = tile._torch_info
    tile._set_torch_info(None)
    results["tile (__dlpack__ path)"] = host_time_per_call(lambda: add(a, b, c))
    tile._torch.ENABLED = True
    tile._set_torch_info(saved)
    results["triton"] = host_time_per_call(
        lambda: triton_add[grid](a, b, c, n, BLOCK=1024))
    results["torch.add(out=)"] = host_time_per_call(lambda: torch.add(a, b, out=c))
    print(f"launch overhead, host time per call (N={n} f32 add, "
          f"triton {triton.__version__}, torch {torch.__version__}):")
    for name, sec in results.items():
        print(f"  {name:28s} {sec * 1e6:7.2f} us")
    tile_us = results["tile (torch direct path)"] * 1e6
    print(f"  tile / triton: {results['tile (torch direct path)'] / results['triton']:.2f}"
          f"  (goal: tile <= 10 us per call: "
          f"{'met' if tile_us <= 10 else 'not met'})")

    try:
        launch_parts(a, b, c, n)
    except Exception as e:  # an attribution only: the checks go on
        print(f"(launch attribution failed: {type(e).__name__}: {e})")

    # What the direct path leaves to the entry point is still refused.
    def refused(name, pattern, *args):
        try:
            add(*args)
            torch.cuda.synchronize()
        except tile.ArgumentError as e:
            ok = re.match(pattern, e.message) is not None
            print(f"check {name}: {'ok' if ok else 'FAIL'} ({e.message})")
        else:
            ok = False
            print(f"check {name}: FAIL (no error)")
        if not ok:
            failures.append(name)

    refused("f16 tensor refused", r"argument 'B' \(#1\): expected dtype f32",
            a, b.half(), c)
    refused("short tensor refused", r"argument 'C' \(#2\) dimension 0 \(N\) "
            r"is 4095", a, b, c[:4095])
    refused("strided view refused", r"argument 'A' \(#0\) stride of "
            r"dimension 0 is 2", torch.randn(2 * n, device="cuda")[::2], b, c)
    refused("CPU tensor refused", r"argument 'A' \(#0\)", a.cpu(), b, c)
    c.fill_(float("nan"))
    add(a, b, c)
    torch.cuda.synchronize()
    check("add after the refusals vs torch", c, a + b, atol=0, rtol=0)


NOOP_PTX = b"""
.version 8.0
.target sm_90a
.address_size 64
.visible .entry noop(.param .u64 a, .param .u64 b, .param .u64 c,
                     .param .u32 n) { ret; }
"""


def launch_parts(a, b, c, n):
    """Where a launch's host time goes on this machine: a ctypes call that
    returns at once, cuLaunchKernel of an empty kernel with the same
    arguments straight from ctypes (the floor for any launch from Python
    through ctypes), and the torch.Tensor reads the launcher makes."""
    import ctypes
    cu = ctypes.CDLL("libcuda.so.1")
    noop_call = tile.lib._FuncPtr(("tileArtifactGetNumEntries", tile.lib))
    noop_call.restype = ctypes.c_size_t
    null = ctypes.c_void_p()
    parts = {"ctypes call returning at once": host_time_per_call(
        lambda: noop_call(null))}
    mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
    if cu.cuModuleLoadData(ctypes.byref(mod), NOOP_PTX) == 0 and \
            cu.cuModuleGetFunction(ctypes.byref(fn), mod, b"noop") == 0:
        values = [ctypes.c_uint64(t.data_ptr()) for t in (a, b, c)]
        values.append(ctypes.c_uint32(n))
        params = (ctypes.c_void_p * 4)(*[ctypes.addressof(v) for v in values])
        launch = cu.cuLaunchKernel
        one, threads, zero = ctypes.c_uint(1), ctypes.c_uint(256), ctypes.c_uint(0)
        status = launch(fn, one, one, one, threads, one, one, zero, null,
                        params, null)
        torch.cuda.synchronize()
        parts["cuLaunchKernel (empty kernel, ctypes)"] = host_time_per_call(
            lambda: launch(fn, one, one, one, threads, one, one, zero, null,
                           params, null)) if status == 0 else float("nan")
    else:
        print("(no empty kernel: cuModuleLoadData/cuModuleGetFunction failed)")
    parts["t.data_ptr()"] = host_time_per_call(lambda: a.data_ptr())
    parts["t.shape"] = host_time_per_call(lambda: a.shape)
    parts["t.stride()"] = host_time_per_call(lambda: a.stride())
    parts["t.get_device()"] = host_time_per_call(lambda: a.get_device())
    parts["t.is_cuda"] = host_time_per_call(lambda: a.is_cuda)
    parts["t.dtype"] = host_time_per_call(lambda: a.dtype)
    parts["(the timing loop's own lambda)"] = host_time_per_call(lambda: None)
    print("where the time goes (host time per call):")
    for name, sec in parts.items():
        print(f"  {name:38s} {sec * 1e6:7.2f} us")


def main():
    print(f"tile {tile.version()} on {torch.cuda.get_device_name()}, "
          f"target '{TARGET}'")
    gemm()
    attention()
    launch_overhead()
    if failures:
        print("FAILED: " + ", ".join(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
