// Exploratory (not a catalog kernel): variants of stream.cu's skeleton (a persistent grid streaming
// 64 KiB chunks of x through a ring of STAGES shared buffers by bulk copies), differing in how a
// chunk leaves and in the loads' L2 policy. MODE:
//   0 read only (the chunk is waited for, not touched)
//   1 LDS.128 -> STG.128 (as stream.cu and the norms' rewrite)
//   2 LDS.128 -> STS.128 in place, then one bulk store of the chunk (cp.async.bulk.global.shared);
//     the buffer takes its next load once the store has read it (bulk_group wait), so one fewer
//     chunk is ahead
//   3 one bulk store of the landed chunk, no thread touches it (the copy engine both ways)
// KEEP: the loads ask L2 for evict_last (as epl/block/bulk_copy.cuh) or carry no policy.
#include <epl/block/bulk_copy.cuh>

constexpr unsigned kPiece = 16 * 1024;

template <bool KEEP>
__device__ __forceinline__ void load_chunk(void* dst, const void* src, unsigned bytes, unsigned bar) {
  if constexpr (KEEP) {
    epl::bulk_copy_to_shared(dst, src, bytes, bar);
  } else {
    const unsigned lane = threadIdx.x % 32;
    if (lane == 0) epl::mbarrier_arrive_expect_bytes(bar, bytes);
    const unsigned d = epl::shared_address(dst);
    const char* s = static_cast<const char*>(src);
    for (unsigned off = lane * kPiece; off < bytes; off += 32 * kPiece) {
      const unsigned n = min(bytes - off, kPiece);
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                   ::"r"(d + off), "l"(s + off), "r"(n), "r"(bar) : "memory");
    }
  }
}

// One thread: the chunk out as bulk stores, committed as one group.
__device__ __forceinline__ void store_chunk(void* dst, const void* src, unsigned bytes) {
  const unsigned s = epl::shared_address(src);
  char* d = static_cast<char*>(dst);
  for (unsigned off = 0; off < bytes; off += kPiece) {
    const unsigned n = min(bytes - off, kPiece);
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(d + off), "r"(s + off), "r"(n)
                 : "memory");
  }
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wait_stores_read() {  // all but the newest N groups have read smem
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void wait_stores_done() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }

template <int BLOCK, int STAGES, int MODE, bool KEEP>
__global__ void __launch_bounds__(BLOCK, 1) stream2(const float4* __restrict__ x, float4* __restrict__ y, int chunks,
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
  auto chunk_of = [&](int it) { return static_cast<size_t>(b + it * G) * chunk_vecs; };
  auto issue = [&](int it) {
    if (threadIdx.x < 32)
      load_chunk<KEEP>(buf0 + (it % STAGES) * chunk_vecs, x + chunk_of(it), bytes,
                       epl::shared_address(&landed[it % STAGES]));
  };
  // MODE 2 and 3 free a buffer only once its store has read it: one fewer chunk ahead
  constexpr int AHEAD = (MODE >= 2) ? STAGES - 1 : STAGES;
  for (int it = 0; it < AHEAD && it < iters; ++it) issue(it);
  for (int it = 0; it < iters; ++it) {
    float4* buf = buf0 + (it % STAGES) * chunk_vecs;
    epl::mbarrier_wait_parity(epl::shared_address(&landed[it % STAGES]), static_cast<unsigned>(it / STAGES) & 1u);
    if constexpr (MODE == 1) {
#pragma unroll 4
      for (int v = threadIdx.x; v < chunk_vecs; v += BLOCK) y[chunk_of(it) + v] = buf[v];
    } else if constexpr (MODE == 2) {
#pragma unroll 4
      for (int v = threadIdx.x; v < chunk_vecs; v += BLOCK) {
        float4 t = buf[v];
        t.x += 0.0f;  // a touch, as a rewrite's arithmetic would
        buf[v] = t;
      }
      epl::fence_proxy_async_shared();  // each writer: its stores before the async proxy's reads
    }
    if constexpr (MODE <= 1) {
      if (it + STAGES < iters) {
        __syncthreads();
        if (threadIdx.x < 32) epl::fence_proxy_async_shared();
        issue(it + STAGES);
      }
    } else {
      __syncthreads();  // every writer fenced (MODE 2); the chunk is whole in shared memory
      if (threadIdx.x == 0) {
        store_chunk(y + chunk_of(it), buf, bytes);
        wait_stores_read<1>();  // the previous chunk's store has read its buffer
      }
      if (threadIdx.x < 32) {
        __syncwarp();
        if (it + AHEAD < iters) issue(it + AHEAD);  // into the previous chunk's buffer
      }
    }
  }
  if constexpr (MODE >= 2) {
    if (threadIdx.x == 0) wait_stores_done();
  }
}

// The ceiling's way: every thread copies 16-byte vectors, grid-stride, UNROLL loads in flight.
template <int UNROLL>
__global__ void __launch_bounds__(512) plain_copy(const float4* __restrict__ x, float4* __restrict__ y, long long n) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (UNROLL - 1) * stride < n; i += UNROLL * stride) {
    float4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = __ldcs(x + i + u * stride);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) y[i + u * stride] = v[u];
  }
  for (; i < n; i += stride) y[i] = x[i];
}
