// A driver for the host code of a CUDA artifact of examples/flash_attention.tile
// (plain entry), run by lli without a GPU: the runtime functions host code
// calls are stubs. tile_rt_resident_blocks answers the count a case sets
// (0: the runtime failed) and prints what it was asked; tile_rt_launch
// prints the grid host code launches (no device memory is touched).
#include "runtime-stubs.h"
static int32_t Resident;

int32_t tile_rt_fail(void *Ctx, const char *Message, int64_t Expected,
                     int64_t Actual) {
  printf("fail: %s\n", Message);
  return 1;
}

int32_t tile_rt_resident_blocks(void *Ctx, int32_t Kernel, int32_t Threads,
                                int64_t SharedBytes) {
  printf("resident blocks of kernel #%d, %d threads, %lld bytes: %d\n", Kernel,
         Threads, (long long)SharedBytes, Resident);
  return Resident;
}

int32_t tile_rt_launch(void *Ctx, int32_t Kernel, void **Args, int32_t GX,
                       int32_t GY, int32_t GZ, int32_t Threads,
                       int64_t SharedBytes) {
  printf("launch kernel #%d grid %d x %d x %d\n", Kernel, GX, GY, GZ);
  return 0;
}

int32_t tile_flash_attention(const TileArg *Args, int32_t NumArgs, void *Ctx);

static void run(int64_t B, int64_t H, int64_t S, int32_t R) {
  DLTensor T[4];
  int64_t Shape[4] = {B, H, S, 128};
  TileArg Args[5];
  memset(Args, 0, sizeof(Args));
  for (int I = 0; I != 4; ++I) {
    memset(&T[I], 0, sizeof(T[I]));
    T[I].data = (void *)(0x10000000ul * (I + 1));
    T[I].device.device_type = kDLCUDA;
    T[I].ndim = 4;
    T[I].dtype.code = kDLFloat;
    T[I].dtype.bits = 16;
    T[I].dtype.lanes = 1;
    T[I].shape = Shape;
    Args[I].value.tensor = &T[I];
  }
  Args[4].value.f64 = 0.088;
  Args[4].kind = TILE_ARG_FLOAT;
  Resident = R;
  printf("B=%lld H=%lld S=%lld, %d resident:\n", (long long)B, (long long)H,
         (long long)S, R);
  printf("rc %d\n", tile_flash_attention(Args, 5, 0));
}

int main(void) {
  run(8, 16, 2048, 132); // 2048 tiles: 132 blocks
  run(1, 2, 300, 132);   // 6 tiles: 6 blocks
  run(1, 1, 128, 264);   // 1 tile
  run(2, 3, 1000, 5);
  run(1, 1, 128, 0);     // the runtime failed: nothing launched
  return 0;
}
