// epl/body/staged_pipelined.cuh — staged rows over a persistent grid: each cluster (or block) keeps
// its slice of the per-column parameters in registers for every row it takes, and the bulk copies of
// its next rows land in further shared-memory buffers while it folds and rewrites the current one.
//
// Records: catalog/realizations/{rmsnorm,layernorm}/…-staged-pipelined.yaml
//
// Why it exists beside epl/body/staged.cuh: there a cluster takes one row and ends, so every row
// rereads the weight (and bias) slice from L2 in its rewrite, as many bytes again as the row itself
// (experiment 0022-ncu-staged-weight: at 128 x 262144 fp32 rmsnorm moves 536 MB through L2 to
// softmax's 405 MB, layernorm 670 MB, over the same DRAM bytes, and runs 7% and 19% longer). Here
// the grid is one wave of G groups; group g takes rows g, g + G, ..., reads its parameter slice
// once (rmsnorm at 128 x 262144 fp32: 416 MB through L2), and issues row r + STAGES * G into the
// buffer row r leaves, so STAGES - 1 rows' copies are in flight through each row's fold, cluster
// exchange and rewrite. The price: STAGES row buffers of shared memory and the parameters'
// registers leave one or two blocks an SM (the kernels ask row_min_blocks(BLOCK), group.cuh:
// below 512 threads two blocks share an SM and one's fold, cluster exchange and rewrite overlap the
// other's; experiment 0026-staged-pipelined-blocks: rmsnorm bf16 at 128 x 262144, 256 threads
// two an SM, +9.8% over 512 threads one an SM; three an SM spilled), and a cluster of 16
// 512-thread blocks needs 16 free SMs of one GPC: the H200 holds 7 of them (112 of its 132 SMs;
// with 8, the eighth ran its rows after the others: the SMs were active 106 K cycles of a kernel
// 22% longer than staged.cuh's 125 K, experiment 0025-ncu-staged-pipelined). The records
// therefore size the grid from what the device holds (resident_blocks).
//
// The statistics are reread.cuh's (or shifted_sums.cuh's) policies over the staged buffer, as in
// staged.cuh; the rewrite is rewrite.cuh's with the parameters taken from registers.
#pragma once

#include "../block/bulk_copy.cuh"
#include "../target.cuh"
#include "resident_pipelined.cuh"
#include "staged.cuh"

namespace epl {

// A statistics policy that reads its row's first element (its pivot: ReadsRowHead, epl/group/share.cuh)
// gets it from shared memory: the body bulk-copies each row's first 16 bytes beside the row's
// slice, on the same barrier, and hands the policy that copy as its `row`. A global load at the
// start of every fold waited an L2 round trip that nothing in the pipeline hid (experiment
// 0035-local-pivot: removing it gained 5% at fp32 1024 x 65536).

#if defined(EPL_HAS_BULK_COPY) && defined(EPL_HAS_CLUSTERS)

// rewrite_row_segment's vector path (rewrite.cuh) with the parameters on chip: thread `lane` writes
// vectors lane + k * LANES, k < VECS, of seg[0, n) (n a whole number of vectors, at most VECS * LANES
// of them). Parameter q < HELD is held: held[q][k] is its vector at that offset. The other P - HELD
// are staged in shared memory, parameter q's slice at staged + (q - HELD) * stride.
template <int LANES, int VECS, int P, int HELD, typename T, typename F>
__device__ __forceinline__ void rewrite_segment_held(const T* __restrict__ seg, const Vec16<T> (&held)[HELD > 0 ? HELD : 1][VECS],
                                                     const T* __restrict__ staged, int stride, T* __restrict__ out,
                                                     int n, int lane, F f) {
  constexpr int N = Vec16<T>::N;
  const int nv = n / N;
  auto param = [&](int q, int k, int i) {  // q, k compile-time after unrolling: no local memory
    return q < HELD ? held[q < HELD ? q : 0][k]
                    : load_16B_aligned_hinted<Evict::kShared>(staged + (q - HELD) * stride + i * N);
  };
#pragma unroll
  for (int k = 0; k < VECS; ++k) {
    const int i = lane + k * LANES;
    if (i < nv) {
      const Vec16<T> v = load_16B_aligned_hinted<Evict::kShared>(seg + i * N);
      float xv[N];
      widen_vec16(v, xv);
      Vec16<T> a, b;
      if constexpr (P >= 1) a = param(0, k, i);
      if constexpr (P >= 2) b = param(1, k, i);
      store_16B_aligned(out + i * N, apply_vec16<P>(xv, a, b, f));
    }
  }
}

// The launch parameters of the body, by name: a kernel names them once,
//   using Launch = StagedPipeline<CLUSTER, BLOCK, STAGES, UNROLL, ITEMS, HELD, PATH>;
// and the body, its launch bounds and its host-side plan read kCluster, kStages, ... instead of a
// list of seven integers in a fixed order.
//   kCluster, kBlock  as staged.cuh's RowStagers (a block per row for kCluster 1): Group.
//   kStages           row buffers: the one being folded and rewritten and kStages - 1 rows ahead.
//   kUnroll           the statistics passes' load rounds in flight (visit.cuh).
//   kItems            the elements of each parameter slice a thread holds (whole 16-byte vectors
//                     of T): the block's slice must fit kBlock * kItems.
//   kHeld             how many of the Op's P parameters (the first ones) stay in registers; the
//                     other P - kHeld are bulk-copied once into shared memory after the row
//                     buffers, a slice each, and read from there at every row: a slice in registers
//                     costs kItems / (16 / sizeof(T)) * 4 registers a thread, one in shared memory a
//                     row buffer's bytes a block.
//   kPath             the load path, as for rows_in_registers (share.cuh).
template <int CLUSTER, int BLOCK, int STAGES, int UNROLL, int ITEMS, int HELD = 1, RowPath PATH = kAnyPath>
struct StagedPipeline {
  static constexpr int kCluster = CLUSTER;
  static constexpr int kBlock = BLOCK;
  static constexpr int kStages = STAGES;
  static constexpr int kUnroll = UNROLL;
  static constexpr int kItems = ITEMS;
  static constexpr int kHeld = HELD;
  static constexpr RowPath kPath = PATH;
  using Group = typename RowStagers<CLUSTER, BLOCK>::Group;
};

// The body. Launch: a StagedPipeline. Stats: a policy of streamed.cuh or shifted_sums.cuh
// (ReadsRowHead above). x, y: rows x cols, row-major; p0, p1: cols each (or null), as the Op reads
// them.
// Launch: blockDim.x == kBlock; gridDim.x == min(rows, G) * kCluster for G groups the device holds
// at once (a group that waits for another to exit takes its rows after everyone else); dynamic
// shared memory >= (kStages + P - kHeld) * row_staged_bytes<T>(cols, kCluster); cols >= 1.
// Vector path: the pipeline above. Element path (an array not 16-byte aligned): each row copied
// element by element into the first buffer, the parameters read from global memory at each row, no
// overlap within the block.
// Cost per element: one global load, two shared loads, one global store; the parameters once per
// group on the vector path; per row one all-reduce per statistics pass and one __syncthreads.
template <typename Launch, typename T, typename Stats>
__device__ __forceinline__ void rows_staged_pipelined(Stats stats, const T* __restrict__ x, const T* __restrict__ p0,
                                                      const T* __restrict__ p1, T* __restrict__ y, int rows, int cols) {
  using Group = typename Launch::Group;
  constexpr int CLUSTER = Launch::kCluster;
  constexpr int STAGES = Launch::kStages;
  constexpr int UNROLL = Launch::kUnroll;
  constexpr int ITEMS = Launch::kItems;
  constexpr int HELD = Launch::kHeld;
  constexpr RowPath PATH = Launch::kPath;
  constexpr int N = Vec16<T>::N;
  constexpr int P = Stats::Op::kParams;
  static_assert(ITEMS % N == 0, "ITEMS must be whole 16-byte vectors of T");
  static_assert(STAGES >= 2, "a row in flight while another is rewritten needs two buffers");
  static_assert(HELD >= 0 && HELD <= P, "HELD counts some of the Op's parameters");
  constexpr int VECS = ITEMS / N;
  constexpr int STAGED_P = P - HELD;  // parameters staged once in shared memory
  constexpr bool HEAD = ReadsRowHead<Stats>::value;
  extern __shared__ __align__(16) unsigned char row_stage[];
  __shared__ typename Group::TempStorage temp;
  __shared__ unsigned long long landed[STAGES + 1];  // a barrier per row buffer; the last: the staged parameters
  __shared__ __align__(16) unsigned char heads[HEAD ? STAGES : 1][16];  // each row buffer's row's first 16 bytes
  Group group(temp);
  const int lane = group.lane();
  const bool vector_path = PATH == kVectorPath || (PATH == kAnyPath && row_arrays_vector_aligned(x, y, p0, p1, cols));
  const RowSegment seg = group.template segment<T>(cols);
  T* const buffer0 = reinterpret_cast<T*>(row_stage);
  const int buffer_elems = row_staged_bytes<T>(cols, CLUSTER) / static_cast<int>(sizeof(T));
  // Rows: this group's first and the grid's stride; every block of a cluster runs the same
  // iterations (its all-reduces span the cluster).
  const int first = group.row();
  const int stride = GridRows<Group>::of_grid();
  const int iters = first < rows ? ceil_div(rows - first, stride) : 0;
  auto row_at = [&](int it) { return static_cast<size_t>(first + it * stride) * static_cast<size_t>(cols); };
  const auto op = stats.op;

  if (!vector_path) {
#pragma unroll 1
    for (int it = 0; it < iters; ++it) {
      const size_t base = row_at(it);
      if (it > 0) __syncthreads();  // every thread has rewritten the previous row from the buffer
      for (int j = lane; j < seg.n; j += Group::LANES) buffer0[j] = x[base + seg.begin + j];
      __syncthreads();
      const auto constants = stats.template stats<SegmentWalk<Group::LANES, UNROLL, Evict::kShared>>(
          x + base, buffer0, seg.n, lane, false, group, cols);
      rewrite_row_segment<SegmentWalk<Group::LANES, UNROLL, Evict::kShared>, P>(
          buffer0, p0 ? p0 + seg.begin : p0, p1 ? p1 + seg.begin : p1, y + base + seg.begin, seg.n, lane, false,
          [op, constants](float v, float a, float c) { return op.apply(v, constants, a, c); });
    }
  } else {
    Vec16<T> params[HELD > 0 ? HELD : 1][VECS];
#pragma unroll
    for (int k = 0; k < VECS; ++k) {
      const int c0 = seg.begin + (lane + k * Group::LANES) * N;
      if ((lane + k * Group::LANES) * N < seg.n) {
        if constexpr (HELD >= 1) params[0][k] = load_16B_aligned(p0 + c0);
        if constexpr (HELD >= 2) params[1][k] = load_16B_aligned(p1 + c0);
      }
    }
    if (threadIdx.x == 0) {
#pragma unroll
      for (int b = 0; b < STAGES; ++b) mbarrier_init(shared_address(&landed[b]), HEAD ? 2 : 1);  // a copy each
      if constexpr (STAGED_P > 0) mbarrier_init(shared_address(&landed[STAGES]), STAGED_P);  // a copy each
      mbarrier_init_fence();  // the async proxy (the copy engine) must see the initialized barriers
    }
    __syncthreads();
    const unsigned bytes = static_cast<unsigned>(seg.n) * sizeof(T);
    const T* const staged_params = buffer0 + STAGES * buffer_elems;
    auto issue = [&](int it) {  // warp 0: row it's slice into buffer it % STAGES (and its head)
      if (threadIdx.x < kWarpThreads) {
        const unsigned bar = shared_address(&landed[it % STAGES]);
        bulk_copy_to_shared(buffer0 + (it % STAGES) * buffer_elems, x + row_at(it) + seg.begin, bytes, bar);
        if constexpr (HEAD) bulk_copy_to_shared(heads[it % STAGES], x + row_at(it), 16u, bar);
      }
    };
#pragma unroll
    for (int it = 0; it < STAGES; ++it) {
      if (it < iters) issue(it);
    }
    if constexpr (STAGED_P > 0) {  // after the first rows: their folds come before the first rewrite
      if (threadIdx.x < kWarpThreads && iters > 0) {
#pragma unroll
        for (int q = HELD; q < P; ++q) {
          bulk_copy_to_shared(buffer0 + (STAGES + q - HELD) * buffer_elems, (q == 0 ? p0 : p1) + seg.begin, bytes,
                              shared_address(&landed[STAGES]));
        }
      }
    }
#pragma unroll 1
    for (int it = 0; it < iters; ++it) {
      const T* buffer = buffer0 + (it % STAGES) * buffer_elems;
      // use it / STAGES of this buffer's barrier
      mbarrier_wait_parity(shared_address(&landed[it % STAGES]), static_cast<unsigned>(it / STAGES) & 1u);
      const size_t base = row_at(it);
      const T* const row = HEAD ? reinterpret_cast<const T*>(heads[it % STAGES]) : x + base;  // the policy reads row[0]
      const auto constants = stats.template stats<SegmentWalk<Group::LANES, UNROLL, Evict::kShared>>(
          row, buffer, seg.n, lane, true, group, cols);
      if constexpr (STAGED_P > 0) {
        if (it == 0) mbarrier_wait_parity(shared_address(&landed[STAGES]), 0u);
      }
      rewrite_segment_held<Group::LANES, VECS, P, HELD>(
          buffer, params, staged_params, buffer_elems, y + base + seg.begin, seg.n, lane,
          [op, constants](float v, float a, float c) { return op.apply(v, constants, a, c); });
      if (it + STAGES < iters) {
        __syncthreads();  // every thread is done reading this buffer
        if (threadIdx.x < kWarpThreads) fence_proxy_async_shared();  // the issuing warp
        issue(it + STAGES);
      }
    }
  }
}

#endif  // EPL_HAS_BULK_COPY && EPL_HAS_CLUSTERS

}  // namespace epl
