#!/usr/bin/env python3
"""Peers measured on the GPU machine in the same run as Tile's kernels.

Prints one JSON object: cuBLAS (torch.matmul) bf16/fp16 GEMM TFLOP/s,
torch SDPA attention TFLOP/s (causal and not), device-to-device copy and
elementwise add bandwidth (bytes read + written), RMSNorm through torch.
Timing: CUDA events around repeated launches after warm-up, median.
"""
import json
import sys

import torch


def bench(fn, reps=20, warmup=5):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) / 1e3)
    times.sort()
    return times[len(times) // 2]


def main():
    out = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__}
    for dt, name in [(torch.bfloat16, "bf16"), (torch.float16, "fp16")]:
        for n in [2048, 4096, 8192]:
            a = torch.randn(n, n, device="cuda", dtype=dt)
            b = torch.randn(n, n, device="cuda", dtype=dt)
            t = bench(lambda: torch.matmul(a, b))
            out[f"cublas_{name}_{n}_TFLOPs"] = 2 * n**3 / t / 1e12
    B, H, S, D = 8, 16, 2048, 128
    q = torch.randn(B, H, S, D, device="cuda", dtype=torch.float16)
    k, v = torch.randn_like(q), torch.randn_like(q)
    for causal in [False, True]:
        t = bench(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal))
        flops = 4 * B * H * S * S * D / (2 if causal else 1)
        out[f"sdpa_causal{int(causal)}_TFLOPs"] = flops / t / 1e12
    n = 1 << 28
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    t = bench(lambda: y.copy_(x))
    out["copy_TBps"] = 2 * n * 4 / t / 1e12
    z = torch.randn_like(x)
    t = bench(lambda: torch.add(x, z, out=y))
    out["add_f32_TBps"] = 3 * n * 4 / t / 1e12
    m = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    w = torch.randn(8192, device="cuda", dtype=torch.float16)
    def rms():
        return (m.float() * torch.rsqrt(m.float().pow(2).mean(-1, keepdim=True) + 1e-6)).half() * w
    t = bench(rms)
    out["rmsnorm_torch_TBps"] = 2 * m.numel() * 2 / t / 1e12
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
