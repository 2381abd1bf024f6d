// epl/group/lanes.cuh — who shares a row: the thread groups that the row-operator bodies map rows to.
//
// Records: the operator realizations under catalog/realizations/{softmax,log-softmax,logsumexp,
//          cross-entropy,rmsnorm,layernorm}/.
//
// A group policy tells a body which row a thread works on, which part of it (a segment), its index
// among the threads sharing that segment, and how to all-reduce a mergeable state over every
// thread of the row. RowLanes<BLOCK, G> is the policy of this room: G consecutive threads per row
// (G a power of two, 1..BLOCK): a sub-warp group (G < 32, shuffles only), a warp (G == 32), or
// several warps (G > 32: warp butterflies, one shared slot per warp, __syncthreads); BLOCK / G rows
// per block. Rows too long for a block take RowCluster (epl/cluster/row_cluster.cuh), which has the
// same interface.
// Every all-reduce leaves the same bits in every thread of the row: the merges run in a fixed order
// (canonical-order butterflies, then warps and ranks in index order), so results are bitwise
// reproducible run to run for a fixed mapping.
#pragma once

#include "../thread/load.cuh"
#include "../util.cuh"
#include "../warp/reduce_state.cuh"

namespace epl {

// Threads whose states an all-reduce merges must hold at most this many bytes of state (the
// (count, mean, M2) Welford state is 12; (m, l) is 8; a (sum, sum of squares) pair 8).
constexpr int kMaxStateBytes = 16;

// Threads per block of a RowLanes mapping with G threads per row: G, or MIN_BLOCK when a row takes
// fewer (whole rows per block). 256 keeps 8 to 32 short rows per block; 64 lets an SM refill two
// warps at a time instead of waiting for the slowest of eight, at the price of more blocks (a launch
// parameter of the register-resident kernels: experiment 0002-row-block-grain measured 0.8-3.1% at
// 256 and 1 Ki columns).
__host__ __device__ constexpr int row_block_threads(int g, int min_block = 256) { return g > min_block ? g : min_block; }

// Blocks per SM a register-resident mapping asks ptxas to fit (__launch_bounds__' second
// argument): at least SM_THREADS threads per SM, 512 by default, so at most 128 registers per
// thread. Without it ptxas spends up to 255 registers on a long share and one block of 256 fills
// the SM; with a 64-register cap (1024 threads) most shares of 32 items spill. A kernel whose
// vector path fits 64 registers without spilling asks 1024 for that entry alone
// (softmax/two-reduction-registers, log-softmax/two-reduction-registers).
__host__ __device__ constexpr int row_min_blocks(int block, int sm_threads = 512) {
  return block >= sm_threads ? 1 : sm_threads / block;
}

// [begin, begin + n) of a row: the part one block's group of threads shares.
struct RowSegment {
  int begin;
  int n;
};

template <int BLOCK, int G>
class RowLanes {
  static_assert(BLOCK % kWarpThreads == 0 && BLOCK <= 1024, "BLOCK must be whole warps, at most 1024");
  static_assert(is_pow2(G) && G <= BLOCK, "G must be a power of two no larger than BLOCK");
  static constexpr int WARPS = BLOCK / kWarpThreads;
  static constexpr int WARPS_PER_ROW = G > kWarpThreads ? G / kWarpThreads : 1;

 public:
  static constexpr int LANES = G;                    // threads sharing one row
  static constexpr int ROWS_PER_BLOCK = BLOCK / G;   // launch: gridDim.x == ceil_div(rows, this)

  struct TempStorage {
    alignas(16) unsigned char bytes[G > kWarpThreads ? kMaxStateBytes * WARPS : 16];
  };

  __device__ __forceinline__ explicit RowLanes(TempStorage& temp) : temp_(temp) {}

  // This thread's row; may be >= rows in the last block (the body then works on an empty row but
  // still takes part in every all-reduce: shuffles and barriers need every thread).
  __device__ __forceinline__ int row() const { return row(0, 1); }
  // Row b of this thread's group when each group owns `batch` rows: the block's groups take
  // consecutive rows in each of `batch` rounds (the rows a block has in flight are adjacent).
  __device__ __forceinline__ int row(int b, int batch) const {
    return (static_cast<int>(blockIdx.x) * batch + b) * ROWS_PER_BLOCK + static_cast<int>(threadIdx.x) / G;
  }
  __device__ __forceinline__ int lane() const { return static_cast<int>(threadIdx.x) & (G - 1); }
  // The one thread of the row that writes a per-row result.
  __device__ __forceinline__ bool leader() const { return lane() == 0; }
  template <typename T>
  __device__ __forceinline__ RowSegment segment(int cols) const { return RowSegment{0, cols}; }
  // Nothing to wait for: RowCluster::join's counterpart, so a body takes either policy.
  __device__ __forceinline__ void join() {}

  // Every thread of the block calls it, converged, with its state (the identity if it has no data).
  // Cost: G <= 32: log2(G) butterfly steps; G > 32: 5 steps, one __syncthreads (two from the
  // second call on: the slots are reused), log2(G / 32) steps.
  template <typename State, typename Merge>
  __device__ __forceinline__ State all_reduce(State s, Merge merge) {
    static_assert(sizeof(State) <= kMaxStateBytes, "state larger than the shared slot");
    if constexpr (G <= kWarpThreads) {
      return warp_allreduce_state<G>(s, merge);
    } else {
      s = warp_allreduce_state(s, merge);
      State* slots = reinterpret_cast<State*>(temp_.bytes);
      if (used_) __syncthreads();  // every warp has read the previous reduction's slots
      used_ = true;
      if (lane_id() == 0) slots[warp_id()] = s;
      __syncthreads();
      const int first = warp_id() / WARPS_PER_ROW * WARPS_PER_ROW;  // the row's first warp
      s = slots[first + (lane_id() & (WARPS_PER_ROW - 1))];
      return warp_allreduce_state<WARPS_PER_ROW>(s, merge);  // warps of the row in index order
    }
  }

 private:
  TempStorage& temp_;
  bool used_ = false;
};

}  // namespace epl
