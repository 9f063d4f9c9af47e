// vecmath_ulp.c - accuracy of the vector math functions Tile's CPU backend
// calls (glibc's libmvec, vector function ABI variants), in ulp of the f32
// result, against the same function evaluated in f64 by libm and rounded
// (the f64 reference interpreter's answer for an f32 kernel).
//
// For each function and ISA level (SSE 'b', AVX2 'd', AVX-512 'e', those
// this CPU has) it sweeps every 61st f32 bit pattern in the function's
// range and prints the largest error.
//
//   cc -O2 -o vecmath_ulp vecmath_ulp.c -lmvec -lm && ./vecmath_ulp
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef __m128 (*Fn4)(__m128);
typedef __m256 (*Fn8)(__m256);
typedef __m512 (*Fn16)(__m512);

#define DECL(name)                                                             \
  __m128 _ZGVbN4v_##name##f(__m128);                                           \
  __attribute__((target("avx2"))) __m256 _ZGVdN8v_##name##f(__m256);           \
  __attribute__((target("avx512f"))) __m512 _ZGVeN16v_##name##f(__m512);
DECL(exp)
DECL(exp2)
DECL(log)
DECL(log2)
DECL(tanh)

static uint32_t bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/// Distance in ulp between f32 values (ordered on the integer line).
static double ulps(float got, double want) {
  float w = (float)want;
  if (isnan(got) || isnan(w))
    return isnan(got) && isnan(w) ? 0 : 1e9;
  if (isinf(w) || isinf(got))
    return got == w ? 0 : 1e9;
  int64_t a = (int32_t)bits(got), b = (int32_t)bits(w);
  if (a < 0) a = INT32_MIN - a;
  if (b < 0) b = INT32_MIN - b;
  // Plus the rounding of the f64 reference to f32 (at most half an ulp).
  double ulp = fabs(nextafterf(w, INFINITY) - w);
  double exact = fabs((double)got - want) / (ulp > 0 ? ulp : 1);
  double whole = (double)(a > b ? a - b : b - a);
  return exact < whole ? exact : whole;
}

struct Func {
  const char *name;
  double (*ref)(double);
  float lo, hi;
  Fn4 b;
  Fn8 d;
  Fn16 e;
};

__attribute__((target("avx2"))) static void call8(Fn8 f, const float *in, float *out) {
  _mm256_storeu_ps(out, f(_mm256_loadu_ps(in)));
}
__attribute__((target("avx512f"))) static void call16(Fn16 f, const float *in, float *out) {
  _mm512_storeu_ps(out, f(_mm512_loadu_ps(in)));
}

int main(void) {
  struct Func fs[] = {
      {"exp", exp, -87.0f, 88.0f, _ZGVbN4v_expf, _ZGVdN8v_expf, _ZGVeN16v_expf},
      {"exp2", exp2, -126.0f, 127.0f, _ZGVbN4v_exp2f, _ZGVdN8v_exp2f, _ZGVeN16v_exp2f},
      {"log", log, 1e-30f, 1e30f, _ZGVbN4v_logf, _ZGVdN8v_logf, _ZGVeN16v_logf},
      {"log2", log2, 1e-30f, 1e30f, _ZGVbN4v_log2f, _ZGVdN8v_log2f, _ZGVeN16v_log2f},
      {"tanh", tanh, -10.0f, 10.0f, _ZGVbN4v_tanhf, _ZGVdN8v_tanhf, _ZGVeN16v_tanhf},
  };
  int have_d = __builtin_cpu_supports("avx2"), have_e = __builtin_cpu_supports("avx512f");
  printf("function  range  max ulp: SSE (b) / AVX2 (d) / AVX-512 (e)\n");
  for (unsigned k = 0; k < sizeof(fs) / sizeof(fs[0]); ++k) {
    struct Func *f = &fs[k];
    double worst[3] = {0, 0, 0};
    float in[16], out[16];
    unsigned n = 0;
    // Every 61st bit pattern of the positive and the negative range.
    for (int sign = 0; sign < 2; ++sign)
      for (uint32_t u = 0; u < 0x7f800000u; u += 61) {
        float x;
        uint32_t v = u | (sign ? 0x80000000u : 0);
        memcpy(&x, &v, 4);
        if (!(x >= f->lo && x <= f->hi))
          continue;
        in[n++] = x;
        if (n < 16)
          continue;
        n = 0;
        for (int lvl = 0; lvl < 3; ++lvl) {
          if ((lvl == 1 && !have_d) || (lvl == 2 && !have_e))
            continue;
          if (lvl == 0)
            for (int i = 0; i < 16; i += 4)
              _mm_storeu_ps(out + i, f->b(_mm_loadu_ps(in + i)));
          else if (lvl == 1)
            for (int i = 0; i < 16; i += 8)
              call8(f->d, in + i, out + i);
          else
            call16(f->e, in, out);
          for (int i = 0; i < 16; ++i) {
            double u = ulps(out[i], f->ref(in[i]));
            if (u > worst[lvl])
              worst[lvl] = u;
          }
        }
      }
    printf("%-5s [%g, %g]  %.2f", f->name, f->lo, f->hi, worst[0]);
    for (int lvl = 1; lvl < 3; ++lvl)
      if ((lvl == 1 && have_d) || (lvl == 2 && have_e))
        printf(" / %.2f", worst[lvl]);
      else
        printf(" / -");
    printf("\n");
  }
  return 0;
}
