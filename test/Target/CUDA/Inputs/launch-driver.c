// A driver for the host code of a CUDA artifact of examples/gemm.tile, run
// by lli without a GPU: the runtime functions host code calls are stubs
// that print which kernel it launches (tensor maps are dummy bytes; no
// device memory is touched: host code only tests the tensors' addresses).
// Each line of output: the case, then the kernel index host code launched.
#include "runtime-stubs.h"
static int Launched;

int32_t tile_rt_fail(void *Ctx, const char *Message, int64_t Expected,
                     int64_t Actual) {
  printf("fail: %s (expected %lld, actual %lld)\n", Message,
         (long long)Expected, (long long)Actual);
  return 1;
}

int32_t tile_rt_launch(void *Ctx, int32_t Kernel, void **Args, int32_t GX,
                       int32_t GY, int32_t GZ, int32_t Threads,
                       int64_t SharedBytes) {
  Launched = Kernel;
  return 0;
}

int32_t tile_gemm(const TileArg *Args, int32_t NumArgs, void *Ctx);

/// A 2-D f16 tensor of \p Rows x \p Cols at the (never dereferenced)
/// device address \p Addr.
static void tensor(DLTensor *T, int64_t *Shape, unsigned long Addr,
                   int64_t Rows, int64_t Cols) {
  memset(T, 0, sizeof(*T));
  Shape[0] = Rows;
  Shape[1] = Cols;
  T->data = (void *)Addr;
  T->device.device_type = kDLCUDA;
  T->ndim = 2;
  T->dtype.code = kDLFloat;
  T->dtype.bits = 16;
  T->dtype.lanes = 1;
  T->shape = Shape;
}

static void run(int64_t M, int64_t N, int64_t K, unsigned AOff, unsigned BOff,
                unsigned COff) {
  DLTensor A, B, C;
  int64_t SA[2], SB[2], SC[2];
  tensor(&A, SA, 0x10000000ul + AOff, M, K);
  tensor(&B, SB, 0x20000000ul + BOff, K, N);
  tensor(&C, SC, 0x30000000ul + COff, M, N);
  TileArg Args[3];
  memset(Args, 0, sizeof(Args));
  Args[0].value.tensor = &A;
  Args[1].value.tensor = &B;
  Args[2].value.tensor = &C;
  Launched = -1;
  int32_t RC = tile_gemm(Args, 3, 0);
  printf("M=%lld N=%lld K=%lld A+%u B+%u C+%u: rc %d kernel #%d\n", (long long)M,
         (long long)N, (long long)K, AOff, BOff, COff, RC, Launched);
}

int main(void) {
  run(256, 256, 256, 0, 0, 0);
  run(515, 300, 264, 0, 0, 0);
  run(515, 301, 264, 0, 0, 0);
  run(256, 256, 260, 0, 0, 0);
  run(256, 256, 256, 2, 0, 0);
  run(256, 256, 256, 0, 8, 0);
  run(256, 256, 256, 0, 0, 2);
  run(256, 256, 256, 0, 0, 4);
  run(256, 256, 256, 16, 32, 12);
  run(256, 256, 256, 2, 2, 2);
  run(0, 256, 256, 0, 0, 0);
  run(256, 256, 0, 0, 0, 0);
  return 0;
}
