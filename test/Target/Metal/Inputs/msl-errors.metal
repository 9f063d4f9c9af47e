// Input of msl-syntax.test: MSL with one error of each kind the stub
// catches (not a test).
#include <metal_stdlib>
using namespace metal;
struct Uniforms { int N; };
[[max_total_threads_per_threadgroup(64)]]
kernel void k(device const half *X [[buffer(0)]], device float *Y [[bufer(1)]],
    constant Uniforms &u [[buffer(2)]], uint3 tile_wg [[threadgroup_position_in_grid]]) {
  X[0] = 1.0h;
  device float *Z = &u.N;
  simdgroup_float8x8 a; simdgroup_half8x8 b;
  simdgroup_multiply_accumulate(a, a, b, a);
  Y[0] = expp(1.0f);
  threadgroup_barrier(mem_flags::mem_threadgroups);
}
