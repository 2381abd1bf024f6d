// epl/body/staged.cuh — row-in, row-out operators that stage their row (or a cluster block's slice of
// it) in shared memory: one read from global memory by bulk copies, then the statistics fold and
// the rewrite both read shared memory.
//
// Records: catalog/realizations/{softmax/online-staged,log-softmax/online-staged,rmsnorm/staged,
//          layernorm/welford-staged,layernorm/two-pass-staged}.yaml
//
// Why it exists beside epl/body/resident.cuh and epl/body/reread.cuh: a row held in registers costs a
// register per element, so a long row leaves one block per SM and ptxas little room; a row streamed
// twice reads it twice, the second time from L2 only while the rows in flight fit there. Staged, the
// row costs shared memory instead (up to 227 KiB a block on sm_90: 56 Ki float32 or 113 Ki bfloat16
// elements; a cluster of CLUSTER blocks stages CLUSTER times that), global memory is read once, and
// the copy engine keeps the whole segment in flight at once, with no registers to hold it.
//
// The statistics and the rewrite are reread.cuh's policies and rewrite.cuh's pass, unchanged, with
// the segment pointer in shared memory (Evict::kShared: plain loads).
#pragma once

#include "../block/stage_bulk.cuh"
#include "../cluster/row_cluster.cuh"
#include "../target.cuh"
#include "reread.cuh"

namespace epl {

// Shared memory per block of the staged bodies: the group's segment, whole 16-byte vectors of T
// (RowCluster::segment's slice; the row itself for a one-block group), passed as the launch's
// dynamic shared memory.
template <typename T>
__host__ __device__ constexpr int row_staged_bytes(int cols, int cluster) {
  return ceil_div(ceil_div(cols, cluster), Vec16<T>::N) * Vec16<T>::N * static_cast<int>(sizeof(T));
}

// rows_staged's dynamic shared memory: the segment staged at its own offset mod 16 (up to 15 bytes
// before it), so that its 16-byte body lands on 16-byte boundaries of shared memory.
template <typename T>
__host__ __device__ constexpr int row_staged_split_bytes(int cols, int cluster) {
  return row_staged_bytes<T>(cols, cluster) + 16;
}

#if defined(EPL_HAS_BULK_COPY) && defined(EPL_HAS_CLUSTERS)

// Who stages a row: a block (CLUSTER 1) or a cluster of CLUSTER blocks, a slice each.
template <int CLUSTER, int BLOCK>
struct RowStagers {
  using Group = RowCluster<CLUSTER, BLOCK>;
};
template <int BLOCK>
struct RowStagers<1, BLOCK> {
  using Group = RowLanes<BLOCK, BLOCK>;
};

// The body: one row per Group, Group::ROWS_PER_BLOCK == 1: RowLanes<BLOCK, BLOCK> (a block per row)
// or RowCluster<CLUSTER, BLOCK> (a cluster per row, a slice per block). Stats: a policy of
// reread.cuh. x, y: rows x cols, row-major; p0, p1: cols each (or null), as the Op reads them.
// Launch: blockDim.x == BLOCK, gridDim.x == rows (RowLanes) or rows * CLUSTER (RowCluster), dynamic
// shared memory >= row_staged_split_bytes<T>(cols, CLUSTER) (row_staged_bytes but for kSplitPath);
// cols >= 1.
// PATH as for rows_in_registers (share.cuh's RowPath). Vector path: the segment arrives by bulk
// copies (stage_bulk). Split path (x and y at one offset mod 16, any cols): the segment is staged
// at its global offset mod 16 (element j at stage + g + j, g = its address % 16), so it splits in
// shared memory as in global memory (group/walk.cuh): its 16-byte body arrives by bulk copies
// (16-byte aligned addresses and sizes on both sides), this lane's head and tail elements by scalar
// loads and shared stores, made visible by stage_bulk's barrier. The element path (rows or arrays
// that allow neither) copies it element by element through registers.
// Cost per element: one global load, two shared loads, one global store; per row one all-reduce.
template <typename Group, int UNROLL, RowPath PATH, typename T, typename Stats>
__device__ __forceinline__ void rows_staged(Stats stats, const T* __restrict__ x, const T* __restrict__ p0,
                                            const T* __restrict__ p1, T* __restrict__ y, int cols) {
  static_assert(Group::ROWS_PER_BLOCK == 1, "a staged row (or slice) needs the whole block");
  extern __shared__ __align__(16) unsigned char row_stage[];
  __shared__ typename Group::TempStorage temp;
  __shared__ BulkBarrier landed;
  Group group(temp);
  const int lane = group.lane();
  constexpr bool SPLIT = PATH == kSplitPath;
  const bool vector_path = PATH == kVectorPath || SPLIT || (PATH == kAnyPath && row_arrays_vector_aligned(x, y, p0, p1, cols));
  const RowSegment seg = group.template segment<T>(cols);
  const size_t base = static_cast<size_t>(group.row()) * static_cast<size_t>(cols);
  const T* src = x + base + seg.begin;
  T* stage = reinterpret_cast<T*>(row_stage);
  if (!SPLIT && vector_path) {
    stage_bulk(stage, src, static_cast<unsigned>(seg.n) * sizeof(T), landed);
  } else if (vector_path) {
    stage = reinterpret_cast<T*>(row_stage + (reinterpret_cast<size_t>(src) & 15));
    using Edges = RowEdges<Group::LANES, T>;
    const RowSplit sp = split_row_segment(src, seg.n);
#pragma unroll
    for (int s = 0; s < 2 * Edges::kSlots; ++s) {
      if (Edges::valid(sp, lane, s)) stage[Edges::col(sp, lane, s)] = src[Edges::col(sp, lane, s)];
    }
    stage_bulk(stage + sp.head, src + sp.head, static_cast<unsigned>(sp.nv) * 16u, landed);
  } else {
    for (int j = lane; j < seg.n; j += Group::LANES) stage[j] = src[j];
    __syncthreads();
  }
  const auto constants =
      stats.template stats<SegmentWalk<Group::LANES, UNROLL, Evict::kShared, 0, SPLIT>>(x + base, stage, seg.n, lane, vector_path, group, cols);
  const auto op = stats.op;
  const size_t at = base + static_cast<size_t>(seg.begin);
  rewrite_row_segment<SegmentWalk<Group::LANES, UNROLL, Evict::kShared, 0, SPLIT>, Stats::Op::kParams>(
      stage, p0 ? p0 + seg.begin : p0, p1 ? p1 + seg.begin : p1, y + at, seg.n, lane, vector_path,
      [op, constants](float v, float a, float c) { return op.apply(v, constants, a, c); });
}

#endif  // EPL_HAS_BULK_COPY && EPL_HAS_CLUSTERS

}  // namespace epl
