// epl/body/reread.cuh — row-in, row-out operators that stream their row twice instead of holding it:
// one read folds the row's statistics, an all-reduce over the row's threads gives its constants,
// and a second read (from L2 while the rows in flight fit there) writes the output.
//
// Records: catalog/realizations/{rmsnorm/reread,layernorm/welford-reread,log-softmax/online-reread}.yaml
//          (and the staged ones of staged.cuh, which use these policies)
//
// Why it exists beside epl/body/resident.cuh: a register-resident long row needs a register per
// element (64 KiB for 16 Ki float32), which caps a block of G threads at one or two per SM, and each
// row's loads, all-reduce and stores run in sequence. Streamed, a thread holds only UNROLL vectors
// and a small state, so the SM keeps its full 2048 threads of rows in flight and their phases
// overlap; the price is the reread, which stays in L2 while 2048 / G rows per SM of `cols`
// elements fit (16 Ki float32 at G = 1024: 2 rows, 17 MiB over 132 SMs, inside the 60 MiB L2).
//
// Each statistics policy folds the row once with visit_row_segment (visit.cuh) and returns the Row
// of its epl/policy/ops.cuh operator, whose apply writes every element in rewrite_row_segment
// (rewrite.cuh): the per-element expression is the register realizations', unchanged.
//   RmsNormStreamed        sum x^2 (the squared-deviation visitor about 0: x - 0 is exact).
//   LogSoftmaxStreamed     the online (m, l) fold of online-max-accumulation (SoftmaxStreamed:
//                          the same fold, written as softmax).
//   LayerNormWelford       Welford/Chan of x - x[0] (mergeable-statistics/welford-chan with its
//                          shift: exact centring on the row's first element, then (count, mean, M2)).
//   LayerNormTwoPassStreamed  the sum, an all-reduce, the squared deviations about the row's mean,
//                          a second all-reduce: two visits of the segment, for one that rereads
//                          cheaply (staged in shared memory: layernorm/two-pass-staged).
#pragma once

#include "../group/lanes.cuh"
#include "../group/rewrite.cuh"
#include "../group/share.cuh"
#include "../group/walk.cuh"
#include "../util.cuh"

namespace epl {

// Blocks per SM a streamed mapping asks ptxas to fit (__launch_bounds__' second argument) for
// SM_THREADS threads per SM: 2048 (every thread an SM holds on sm_80 and sm_90) caps a thread at 32
// registers, 1024 at 64. Rows in flight hide the latency, and the compiler's own unrolling of the
// fold loop (more loads in flight per thread) competes with them for the same registers: which wins
// is measured, not assumed.
__host__ __device__ constexpr int row_reread_min_blocks(int sm_threads, int block) {
  return sm_threads > block ? sm_threads / block : 1;
}

// 16-byte vectors each of G lanes takes of a row of `cols` elements of T (a kernel specialized for
// one column count loads them in a single round per pass: UNROLL = this).
template <typename T>
__host__ __device__ constexpr int row_vectors_per_lane(int cols, int g) {
  return ceil_div(cols, g * Vec16<T>::N);
}

// The body: one row per group of Group::LANES threads, any length. Group: RowLanes<BLOCK, G> (G
// threads fold the whole row) or RowCluster<CLUSTER, BLOCK> (each block of the row's cluster folds and
// rewrites its slice; the all-reduce spans the cluster, so a block rereads only its slice, soon after
// reading it). Stats: a policy above. x, y: rows x cols, row-major; p0, p1: cols each (or null), as
// the Op reads them. Launch: blockDim.x == BLOCK; gridDim.x == ceil_div(rows, Group::ROWS_PER_BLOCK)
// for RowLanes, rows * CLUSTER for RowCluster; cols >= 1.
// Cost per element: two loads (the second from L1 or L2) and one store; per row one all-reduce.
// Eviction priorities on the row's 16-byte loads, in L1 and L2: the first read evict_last (kept for
// the reread), the reread evict_first (its last use); the parameters' loads carry none. In L1: a row
// longer than L1 (64 Ki fp32 columns: 256 KiB per group) otherwise streams its own first lines out
// before the reread reaches them (experiment 0008-reread-l1-hints: +12-22% at fp32 64 Ki). In
// L2: the output's lines leave first (thread/cache_policy.cuh).
// PATH as for rows_in_registers (share.cuh's RowPath): kVectorPath may assume
// row_arrays_vector_aligned and compiles the 16-byte path alone, kSplitPath may assume
// row_arrays_split_aligned and compiles the split path alone (each segment split by address,
// group/walk.cuh; COLS 0 only), kScalarPath the element path alone, kAnyPath the 16-byte and the
// element path (tested at run time).
// COLS > 0 (RowLanes only: the segment is the row): a kernel compiled for rows of exactly COLS
// columns (cols is COLS; UNROLL = row_vectors_per_lane<T>(COLS, Group::LANES)): each pass one round,
// no loop, on the vector path.
template <typename Group, int UNROLL, RowPath PATH, int COLS = 0, typename T, typename Stats>
__device__ __forceinline__ void rows_reread(Stats stats, const T* __restrict__ x, const T* __restrict__ p0,
                                            const T* __restrict__ p1, T* __restrict__ y, int rows, int cols) {
  __shared__ typename Group::TempStorage temp;
  Group group(temp);
  group.join();  // a cluster's barrier wait invalidates L1: here, not between the read and the reread
  const int row = group.row();
  const bool has_row = row < rows;
  const int lane = group.lane();
  static_assert(PATH != kSplitPath || COLS == 0, "a kernel compiled for one column count walks whole vectors");
  constexpr bool SPLIT = PATH == kSplitPath;
  const bool vector_path = PATH == kVectorPath || SPLIT || (PATH == kAnyPath && row_arrays_vector_aligned(x, y, p0, p1, cols));
  const RowSegment seg = group.template segment<T>(cols);
  const size_t base = static_cast<size_t>(has_row ? row : 0) * static_cast<size_t>(cols);
  // Groups past the last row fold nothing but still take part in the all-reduce.
  const auto constants = stats.template stats<SegmentWalk<Group::LANES, UNROLL, Evict::kEvictLast, COLS, SPLIT>>(
      x + base, x + base + seg.begin, has_row ? seg.n : 0, lane, vector_path, group, cols);
  if (!has_row) return;
  const auto op = stats.op;
  const size_t at = base + static_cast<size_t>(seg.begin);
  rewrite_row_segment<SegmentWalk<Group::LANES, UNROLL, Evict::kEvictFirst, COLS, SPLIT>, Stats::Op::kParams>(
      x + at, p0 ? p0 + seg.begin : p0, p1 ? p1 + seg.begin : p1, y + at, seg.n, lane, vector_path,
      [op, constants](float v, float a, float c) { return op.apply(v, constants, a, c); });
}

}  // namespace epl
