/*===- RuntimeABI.h - The C ABI between host code and runtime ----*- C -*-===//
 *
 * Generated host code calls these functions, which libTileExec defines.
 * They are the only way host code reaches the runtime, so the same host
 * code works with every execution backend: the context pointer carries the
 * backend and the loaded module.
 *
 * An entry point generated for `func @f` is
 *
 *   int32_t tile_f(const TileArg *args, int32_t num_args, void *ctx);
 *
 * returning 0 on success; on failure it has recorded a message through
 * tile_rt_fail and returns non-zero. Tensors are DLPack DLTensor pointers.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TILE_EXEC_RUNTIMEABI_H
#define TILE_EXEC_RUNTIMEABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum TileArgKind { TILE_ARG_TENSOR = 0, TILE_ARG_INT = 1, TILE_ARG_FLOAT = 2 };

/** One argument of an entry point. */
typedef struct TileArg {
  union {
    int64_t i64;
    double f64;
    void *tensor; /* DLTensor * */
  } value;
  int32_t kind; /* enum TileArgKind */
  int32_t reserved;
} TileArg;

/** Records why a call failed. `message` may contain two "%lld" which are
 *  replaced by `expected` and `actual`. Returns the error code to return. */
int32_t tile_rt_fail(void *ctx, const char *message, int64_t expected,
                     int64_t actual);

/** Launches kernel number `kernel` of the current entry on a grid of
 *  gx * gy * gz blocks of `threads` threads with `shared_bytes` of dynamic
 *  shared memory. `args` points to one pointer per kernel argument, each
 *  pointing at the argument's value (as cuLaunchKernel takes them). */
int32_t tile_rt_launch(void *ctx, int32_t kernel, void **args, int32_t gx,
                       int32_t gy, int32_t gz, int32_t threads,
                       int64_t shared_bytes);

/** How many blocks of kernel `kernel` of the current entry, launched with
 *  `threads` threads and `shared_bytes` of dynamic shared memory, the
 *  device runs at once (its multiprocessors times the blocks one holds).
 *  Host code launches a persistent kernel, whose blocks loop over its
 *  grid's tiles themselves, with at most that many blocks. 0 after
 *  recording an error. */
int32_t tile_rt_resident_blocks(void *ctx, int32_t kernel, int32_t threads,
                                int64_t shared_bytes);

/** The bytes of tensor map number `map` of kernel `kernel` of the current
 *  entry (the artifact describes it: element type, box, swizzle, fill) for
 *  the tensor of `rank` dimensions at `data`, with extents `dims` and
 *  strides `strides` in elements, outermost first. Host code passes the
 *  pointer as the kernel argument's value (see tile_rt_launch); the bytes
 *  stay valid until the entry returns. Null after recording an error: an
 *  execution backend that builds no tensor maps, or a tensor the map
 *  cannot describe. */
const void *tile_rt_tensor_map(void *ctx, int32_t kernel, int32_t map,
                               const void *data, int32_t rank,
                               const int64_t *dims, const int64_t *strides);

/** Allocates a zero-filled device workspace; null after recording an error. */
void *tile_rt_alloc_workspace(void *ctx, int64_t bytes);
void tile_rt_free_workspace(void *ctx, void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* TILE_EXEC_RUNTIMEABI_H */
