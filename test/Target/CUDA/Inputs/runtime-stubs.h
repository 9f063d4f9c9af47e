// Stubs of the runtime functions that host code of a CUDA artifact calls
// and that the lli drivers of these tests (Inputs/*-driver.c) do not
// observe: tensor maps are dummy bytes and workspaces are never needed (no
// device memory is touched: host code only tests the tensors' addresses).
// Each driver defines tile_rt_fail and tile_rt_launch itself.
#ifndef TILE_TEST_CUDA_RUNTIME_STUBS_H
#define TILE_TEST_CUDA_RUNTIME_STUBS_H

#include "tile/Exec/RuntimeABI.h"
#include <dlpack/dlpack.h>
#include <stdio.h>
#include <string.h>

static unsigned char MapBytes[128];

const void *tile_rt_tensor_map(void *Ctx, int32_t Kernel, int32_t Map,
                               const void *Data, int32_t Rank,
                               const int64_t *Dims, const int64_t *Strides) {
  return MapBytes;
}

void *tile_rt_alloc_workspace(void *Ctx, int64_t Bytes) { return 0; }
void tile_rt_free_workspace(void *Ctx, void *Ptr) {}

#endif
