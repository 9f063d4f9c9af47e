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
   per launch (median of 7 rounds of 2000, and of 35 rounds of 200), and
   torch's own add for scale. Measured for the launcher's direct torch
   path, for the plain __dlpack__ path and for the launcher before this
   change (main's package as tile_old, when carried); to attribute the
   time: the launcher's Python alone (its C call replaced by one
   returning at once), the C API call alone (tileLaunchCallPacked through
   ctypes on arguments already written), the launcher with each of
   its measures taken back, and the parts (ctypes, cuLaunchKernel of an
   empty kernel, the torch.Tensor reads). Then the checks the direct path
   leaves to the entry point, on CUDA tensors: a wrong dtype, a wrong
   length, a strided view, a CPU tensor, a wrong rank, a missing and an
   unknown argument are each refused by name.
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


def both(fn):
    """(rounds of 2000, rounds of 200 with more of them): a round of 200
    stays well inside the driver's queue, so the GPU's pace cannot enter."""
    return host_time_per_call(fn), host_time_per_call(fn, r=200, rounds=35)


def launcher_globals(kernel):
    """The launcher's constants (the kernel's __call__ is its launcher)."""
    return type(kernel).__call__.__globals__


def python_side(kernel, args):
    """Host time of a launch with its C call replaced by a C function
    that returns at once (libc labs, through ctypes the same way): the
    launcher's Python alone, ctypes crossing included."""
    import ctypes
    g = launcher_globals(kernel)
    noop = ctypes.CDLL(None)["labs"]
    noop.restype = None
    real = g["call"]
    g["call"] = noop
    try:
        return both(lambda: kernel(*args))
    finally:
        g["call"] = real


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
    add(C=c, A=a, B=b)  # by name: bound, then the same launcher
    torch.cuda.synchronize()
    check("add by name vs torch", c, a + b, atol=0, rtol=0)
    c.fill_(float("nan"))
    grid = (triton.cdiv(n, 1024),)
    triton_add[grid](a, b, c, n, BLOCK=1024)
    torch.cuda.synchronize()
    check("triton add vs torch", c, a + b, atol=0, rtol=0)

    results = {}
    # The direct path must be the one timed: count what goes via __dlpack__.
    dlpack_calls = [0]
    through_dlpack = tile._dltensor

    def counting(*args):
        dlpack_calls[0] += 1
        return through_dlpack(*args)

    tile._dltensor = counting
    results["tile (torch direct path)"] = both(lambda: add(a, b, c))
    results["  its Python alone (call -> labs)"] = python_side(add, (a, b, c))
    g = launcher_globals(add)
    add(a, b, c)  # the launcher's buffer now holds a, b, c
    call, block = g["call"], g["PD"]
    results["  tileLaunchCallPacked from ctypes"] = both(lambda: call(block))
    tile._dltensor = through_dlpack
    print(f"check direct path taken: {'ok' if dlpack_calls[0] == 0 else 'FAIL'}"
          f" ({dlpack_calls[0]} arguments went through __dlpack__)")
    if dlpack_calls[0]:
        failures.append("direct path taken")

    # Each of the launcher's measures, taken back one at a time.
    launch_mod, info = tile._launch, tile._torch_info
    for name, attr, value in [
            ("  without NULL strides (stride())", "NULL_STRIDES", False),
            ("  one pack_into of every value", "MAX_PACK_VALUES", 10**6)]:
        saved = getattr(launch_mod, attr)
        setattr(launch_mod, attr, value)
        tile._set_torch_info(info)  # rebuilds the launchers
        c.fill_(float("nan"))
        add(a, b, c)
        torch.cuda.synchronize()
        check(f"add {name.strip()} vs torch", c, a + b, atol=0, rtol=0)
        results[name] = both(lambda: add(a, b, c))
        setattr(launch_mod, attr, saved)
    tile._set_torch_info(info)
    # What releasing the GIL around the call costs (ctypes does for CDLL
    # functions; a PyDLL function keeps it): measured, not used.
    import ctypes
    pylib = ctypes.PyDLL(os.environ["TILE_CAPI_LIBRARY"])
    held = pylib._FuncPtr(("tileLaunchCallPacked", pylib))
    held.restype = ctypes.c_void_p
    g = launcher_globals(add)
    real = g["call"]
    g["call"] = held
    try:
        c.fill_(float("nan"))
        add(a, b, c)
        torch.cuda.synchronize()
        check("add keeping the GIL vs torch", c, a + b, atol=0, rtol=0)
        results["  keeping the GIL in the call"] = both(
            lambda: add(a, b, c))
    finally:
        g["call"] = real

    try:  # the launcher as it was before this change (main's package)
        import tile_old
        old = tile_old.compile("examples/elementwise_add.tile", target=TARGET)
        old(a, b, c)
        results["tile, previous launcher (main)"] = both(lambda: old(a, b, c))
        results["  its Python alone (call -> labs) "] = python_side(
            old, (a, b, c))
    except ImportError:
        print("(no tile_old: the previous launcher is not compared)")

    tile._torch.ENABLED = False
    tile._set_torch_info(None)
    results["tile (__dlpack__ path)"] = both(lambda: add(a, b, c))
    tile._torch.ENABLED = True
    tile._set_torch_info(info)
    results["triton"] = both(lambda: triton_add[grid](a, b, c, n, BLOCK=1024))
    results["torch.add(out=)"] = both(lambda: torch.add(a, b, out=c))
    print(f"launch overhead, host time per call (N={n} f32 add, "
          f"triton {triton.__version__}, torch {torch.__version__}; "
          f"rounds of 2000 / of 200):")
    for name, (sec, sec200) in results.items():
        print(f"  {name:36s} {sec * 1e6:7.2f} us  {sec200 * 1e6:7.2f} us")
    tile_us = results["tile (torch direct path)"][0] * 1e6
    print(f"  tile / triton: "
          f"{results['tile (torch direct path)'][0] / results['triton'][0]:.2f}"
          f"  (goal: tile <= 10 us per call: "
          f"{'met' if tile_us <= 10 else 'not met'})")

    try:
        launch_parts(a, b, c, n)
    except Exception as e:  # an attribution only: the checks go on
        print(f"(launch attribution failed: {type(e).__name__}: {e})")

    # What the direct path leaves to the entry point is still refused.
    def refused(name, pattern, *args, error=tile.ArgumentError, **kwargs):
        try:
            add(*args, **kwargs)
            torch.cuda.synchronize()
        except error as e:
            message = str(e)
            ok = re.match(pattern, message) is not None
            print(f"check {name}: {'ok' if ok else 'FAIL'} ({message})")
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
    refused("rank 2 refused", r"argument 'C' \(#2\): expected a tensor of "
            r"rank 1, got rank 2", a, b, c.view(64, 64))
    refused("missing argument refused", r"missing argument 'C' \(#2\) of @add",
            a, b, error=TypeError)
    refused("unknown argument refused", r"@add has no parameter 'D'",
            a, b, D=c, error=TypeError)
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
    """Where a launch's host time goes on this machine: ctypes calls that
    return at once (1, 3 and 11 arguments), cuLaunchKernel of an empty kernel
    with the same arguments straight from ctypes (11 arguments), and the
    torch.Tensor reads the launcher makes."""
    import ctypes
    import threading
    import struct
    cu = ctypes.CDLL("libcuda.so.1")
    labs = ctypes.CDLL(None)["labs"]
    labs.restype = None
    null = ctypes.c_void_p()
    one, threads, zero = ctypes.c_uint(1), ctypes.c_uint(256), ctypes.c_uint(0)
    p1, p2, p3 = ctypes.c_void_p(1), ctypes.c_void_p(2), ctypes.c_size_t(3)
    parts = {
        "ctypes call, 1 argument, returning": host_time_per_call(
            lambda: labs(p1)),
        "ctypes call, 3 arguments, returning": host_time_per_call(
            lambda: labs(p1, p2, p3)),
        "ctypes call, 11 arguments, returning": host_time_per_call(
            lambda: labs(null, one, one, one, threads, one, one, zero, null,
                         null, null)),
    }
    mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
    if cu.cuModuleLoadData(ctypes.byref(mod), NOOP_PTX) == 0 and \
            cu.cuModuleGetFunction(ctypes.byref(fn), mod, b"noop") == 0:
        values = [ctypes.c_uint64(t.data_ptr()) for t in (a, b, c)]
        values.append(ctypes.c_uint32(n))
        params = (ctypes.c_void_p * 4)(*[ctypes.addressof(v) for v in values])
        launch = cu.cuLaunchKernel
        status = launch(fn, one, one, one, threads, one, one, zero, null,
                        params, null)
        torch.cuda.synchronize()
        parts["cuLaunchKernel (empty kernel, ctypes)"] = host_time_per_call(
            lambda: launch(fn, one, one, one, threads, one, one, zero, null,
                           params, null)) if status == 0 else float("nan")
    else:
        print("(no empty kernel: cuModuleLoadData/cuModuleGetFunction failed)")
    lock = threading.Lock()
    acquire, release = lock.acquire, lock.release
    buf = (ctypes.c_uint64 * 64)()
    pack21 = struct.Struct("=" + "QiiiIQ16xq" * 3).pack_into
    v = a.data_ptr()

    def locked():
        acquire()
        try:
            pass
        finally:
            release()
    parts["lock acquire + release"] = host_time_per_call(locked)
    missing = object()

    def shaped(a0=missing, a1=missing, a2=missing, /, *rest, **kw):
        if rest or kw or a2 is missing:
            raise TypeError
    as_call = type("K", (), {"__call__": staticmethod(shaped)})()
    parts["call of a launcher-shaped no-op"] = host_time_per_call(
        lambda: as_call(a, b, c))
    parts["pack_into of 21 values (add's)"] = host_time_per_call(
        lambda: pack21(buf, 0, v, 2, 0, 1, 5, v, n, v, 2, 0, 1, 5, v, n, v, 2,
                       0, 1, 5, v, n))
    parts["t.data_ptr()"] = host_time_per_call(lambda: a.data_ptr())
    parts["t.shape"] = host_time_per_call(lambda: a.shape)
    parts["t.stride()"] = host_time_per_call(lambda: a.stride())
    parts["t.is_contiguous()"] = host_time_per_call(lambda: a.is_contiguous())
    parts["t.get_device()"] = host_time_per_call(lambda: a.get_device())
    parts["t.is_cuda"] = host_time_per_call(lambda: a.is_cuda)
    parts["t.dtype"] = host_time_per_call(lambda: a.dtype)
    parts["(the timing loop's own lambda)"] = host_time_per_call(lambda: None)
    print("where the time goes (host time per call):")
    for name, sec in parts.items():
        print(f"  {name:40s} {sec * 1e6:7.2f} us")


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
