// Record:       transpose/tma-tiles (catalog/realizations/transpose/tma-tiles.yaml)
// Contract:     layout-transpose — y[b, j, i] = x[b, i, j], x [batch, rows, cols] row-major, exact.
// Phases:       a block per TILE x TILE tile, TILE = 128 / sizeof(T) (one 128-byte box row):
//               1. thread 0 loads the box (1, TILE, TILE) of x through its tensor map (TMA, 128B
//                  swizzle) onto an mbarrier; 2. the block transposes it in shared memory into a
//                  box laid out for y's map (epl/tile/transpose.cuh, transpose_swizzled128);
//               3. fence.proxy.async, __syncthreads, thread 0 stores the box through y's map and
//                  waits for its reads. Boxes past the matrix read zeros and store only the inside.
// Traffic:      sizeof(T) bytes per element read and written once, by the copy engine.
// Shared mem:   2 * 16 KiB at most (2 * TILE * TILE * sizeof(T)) + 1024 alignment, dynamic; 8 static.
// Determinism:  bitwise (a copy).
// Constraints:  sm_90; x's and y's row strides multiples of 16 bytes (cols and rows multiples of
//               16 / sizeof(T)): the tensor maps cannot describe other rows; gridDim =
//               (ceil(cols/TILE), ceil(rows/TILE), batch).
#include <cuda_bf16.h>
#include <epl/block/bulk_copy.cuh>
#include <epl/block/tensor_copy.cuh>
#include <epl/tile/transpose.cuh>

template <int BLOCK, typename T>
__global__ void __launch_bounds__(BLOCK)
transpose_tma(const __grid_constant__ epl::TensorMap x_tiles, const __grid_constant__ epl::TensorMap y_tiles) {
#if defined(EPL_HAS_BULK_COPY)
  constexpr int TILE = 128 / static_cast<int>(sizeof(T));
  constexpr unsigned kBytes = TILE * TILE * sizeof(T);
  extern __shared__ unsigned char raw[];
  __shared__ alignas(8) unsigned long long bar_word;
  unsigned char* a = raw + ((1024 - (epl::shared_address(raw) & 1023)) & 1023);  // the 128B swizzle's period
  unsigned char* b = a + kBytes;
  const unsigned bar = epl::shared_address(&bar_word);
  const int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE, z = blockIdx.z;
  if (threadIdx.x == 0) {
    epl::tma_prefetch_map(x_tiles);
    epl::tma_prefetch_map(y_tiles);
    epl::mbarrier_init(bar, 1);
    epl::mbarrier_init_fence();
    epl::mbarrier_arrive_expect_bytes(bar, kBytes);
    epl::tma_load_3d(a, x_tiles, c0, r0, z, bar);
  }
  __syncthreads();  // the barrier's init before anyone waits on it
  epl::mbarrier_wait_parity(bar, 0);
  epl::transpose_swizzled128<BLOCK, T>(a, b);
  epl::fence_proxy_async_shared();  // the generic-proxy writes of b before the copy engine reads it
  __syncthreads();
  if (threadIdx.x == 0) {
    epl::tma_store_3d(y_tiles, r0, c0, z, b);
    epl::tma_store_wait<0>();
  }
#endif
}
