// Exploratory (not a catalog kernel): the staged-pipelined norms' memory skeleton alone. A
// persistent grid; block b streams chunks b, b + G, ... of x through a ring of STAGES shared
// buffers by bulk copies (epl/block/bulk_copy.cuh, as the norms issue them) and, when WRITE, copies
// each landed chunk to y with 16-byte shared loads and global stores. No fold, no exchange.
#include <epl/block/bulk_copy.cuh>

template <int BLOCK, int STAGES, bool WRITE>
__device__ __forceinline__ void stream_body(const float4* __restrict__ x, float4* __restrict__ y, int chunks,
                                            int chunk_vecs) {
  extern __shared__ __align__(16) unsigned char ring[];
  __shared__ unsigned long long landed[STAGES];
  const int G = gridDim.x, b = blockIdx.x;
  const int iters = b < chunks ? (chunks - b + G - 1) / G : 0;
  const unsigned bytes = static_cast<unsigned>(chunk_vecs) * 16u;
  float4* const buf0 = reinterpret_cast<float4*>(ring);
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) epl::mbarrier_init(epl::shared_address(&landed[s]), 1);
    epl::mbarrier_init_fence();
  }
  __syncthreads();
  auto issue = [&](int it) {
    if (threadIdx.x < 32)
      epl::bulk_copy_to_shared(buf0 + (it % STAGES) * chunk_vecs, x + static_cast<size_t>(b + it * G) * chunk_vecs,
                               bytes, epl::shared_address(&landed[it % STAGES]));
  };
  for (int it = 0; it < STAGES && it < iters; ++it) issue(it);
  for (int it = 0; it < iters; ++it) {
    epl::mbarrier_wait_parity(epl::shared_address(&landed[it % STAGES]), static_cast<unsigned>(it / STAGES) & 1u);
    if constexpr (WRITE) {
      const float4* src = buf0 + (it % STAGES) * chunk_vecs;
      float4* dst = y + static_cast<size_t>(b + it * G) * chunk_vecs;
#pragma unroll 4
      for (int v = threadIdx.x; v < chunk_vecs; v += BLOCK) dst[v] = src[v];
    }
    if (it + STAGES < iters) {
      __syncthreads();
      if (threadIdx.x < 32) epl::fence_proxy_async_shared();
      issue(it + STAGES);
    }
  }
}

template <int BLOCK, int STAGES, bool WRITE>
__global__ void __launch_bounds__(BLOCK, 1) stream_plain(const float4* x, float4* y, int chunks, int chunk_vecs) {
  stream_body<BLOCK, STAGES, WRITE>(x, y, chunks, chunk_vecs);
}

template <int CLUSTER, int BLOCK, int STAGES, bool WRITE>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(BLOCK, 1)
stream_cluster(const float4* x, float4* y, int chunks, int chunk_vecs) {
  stream_body<BLOCK, STAGES, WRITE>(x, y, chunks, chunk_vecs);
}
