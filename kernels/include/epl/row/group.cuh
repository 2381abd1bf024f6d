// epl/row/group.cuh — who shares a row: the thread groups that the row-operator bodies map rows to.
//
// Records: the operator realizations under catalog/realizations/{softmax,log-softmax,logsumexp,
//          cross-entropy,rmsnorm,layernorm}/.
//
// A group policy tells a body which row a thread works on, which part of it (a segment), its index
// among the threads sharing that segment, and how to all-reduce a mergeable state over every
// thread of the row. Two policies:
//   RowLanes<BLOCK, G>        G consecutive threads per row (G a power of two, 1..BLOCK): a sub-warp
//                             group (G < 32, shuffles only), a warp (G == 32), or several warps
//                             (G > 32: warp butterflies, one shared slot per warp, __syncthreads).
//                             BLOCK / G rows per block.
//   RowCluster<CLUSTER, BLOCK> a thread-block cluster per row (sm_90+): block rank k owns the k-th
//                             slice of whole 16-byte vectors; block all-reduce, then the CLUSTER
//                             block states through distributed shared memory (remote stores
//                             counted on the receiver's mbarrier).
// Every all-reduce leaves the same bits in every thread of the row: the merges run in a fixed order
// (canonical-order butterflies, then warps and ranks in index order), so results are bitwise
// reproducible run to run for a fixed mapping.
#pragma once

#include "../block/mbarrier.cuh"
#include "../target.cuh"
#include "../thread/load.cuh"
#include "../util.cuh"
#include "../warp/reduce_state.cuh"

namespace epl {

// Threads whose states an all-reduce merges must hold at most this many bytes of state (the
// (count, mean, M2) Welford state is 12; (m, l) is 8; a (sum, sum of squares) pair 8).
constexpr int kMaxStateBytes = 16;

// Threads per block of a RowLanes mapping with G threads per row: at least 256 (8 warps, enough
// rows in flight per block for short rows), and G itself when a row takes more.
__host__ __device__ constexpr int row_block_threads(int g) { return g > 256 ? g : 256; }

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

#if defined(EPL_HAS_CLUSTERS)

// One row per cluster of CLUSTER blocks of BLOCK threads. Launch: gridDim.x == rows * CLUSTER and a
// compile-time __cluster_dims__(CLUSTER, 1, 1) on the entry.
//
// The block states cross the cluster as remote stores that complete on the receiver's mbarrier
// (st.async ... complete_tx), not through cluster.sync(): on sm_90a each cluster.sync() compiles to
// MEMBAR.ALL.GPU (a wait until every store the block has outstanding, its row's output among them,
// is visible GPU-wide), an arrive, a wait and CCTL.IVALL (an L1 invalidation), and an exchange took
// two. Here a block waits only for the CLUSTER states it needs (experiment 0013-cluster-exchange:
// +8-28% at fp32 64 Ki and 256 Ki columns). The one cluster barrier left orders every peer's
// mbarrier initialization before the first store into it: arrived at construction (relaxed, no
// fence), waited by join().
template <int CLUSTER, int BLOCK>
class RowCluster {
  static_assert(is_pow2(CLUSTER) && CLUSTER <= kWarpThreads, "CLUSTER must be a power of two <= 32");
  using Block = RowLanes<BLOCK, BLOCK>;

 public:
  static constexpr int LANES = BLOCK;
  static constexpr int ROWS_PER_BLOCK = 1;

  struct TempStorage {
    typename Block::TempStorage block;
    // Rank r's state of all-reduce k lands in slots[k & 1][r]; landed[k & 1] completes (phase k >> 1)
    // once all CLUSTER of them have. Two sets: a peer may send all-reduce k + 1 while this block still
    // reads k, never k + 2 (that needs this block's state of k + 1, sent after the read).
    alignas(16) unsigned char slots[2][CLUSTER][kMaxStateBytes];
    unsigned long long landed[2];
  };

  __device__ __forceinline__ explicit RowCluster(TempStorage& temp) : temp_(temp), block_(temp.block) {
    if (threadIdx.x == 0) {
      mbarrier_init(landed(0), 1);
      mbarrier_init(landed(1), 1);
      mbarrier_init_fence();
    }
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  }

  __device__ __forceinline__ int row() const { return static_cast<int>(blockIdx.x) / CLUSTER; }
  __device__ __forceinline__ int row(int, int) const { return row(); }  // one row per cluster: no batch
  __device__ __forceinline__ int lane() const { return static_cast<int>(threadIdx.x); }
  __device__ __forceinline__ bool leader() const { return blockIdx.x % CLUSTER == 0 && threadIdx.x == 0; }
  // Block rank k owns [k * S, min((k + 1) * S, cols)) with S = ceil_div(cols, CLUSTER) rounded up to
  // whole 16-byte vectors of T (so every slice of an aligned row stays aligned); ranks past the end
  // own nothing.
  template <typename T>
  __device__ __forceinline__ RowSegment segment(int cols) const {
    constexpr int N = Vec16<T>::N;
    const int rank = static_cast<int>(blockIdx.x) % CLUSTER;  // == block_rank() for a 1-D cluster
    const int slice = ceil_div(ceil_div(cols, CLUSTER), N) * N;
    const int begin = min(cols, rank * slice);
    return RowSegment{begin, min(slice, cols - begin)};
  }

  // Waits until every block of the cluster has initialized its barriers (every thread, converged;
  // later calls return at once). all_reduce joins on its first call, behind the block's loads. Its
  // wait compiles to CCTL.IVALL, an L1 invalidation: a body that rereads its slice through L1 joins
  // before the first read, while L1 holds nothing of it (+2-6% for the cluster-reread rows).
  __device__ __forceinline__ void join() {
    if (joined_) return;
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
    joined_ = true;
  }

  // Block all-reduce; thread r < CLUSTER stores the block's state into rank r's slot for this rank,
  // counted on rank r's barrier; every thread waits on its own block's barrier, then every warp
  // reads the CLUSTER states (lane k reads rank k mod CLUSTER) and merges them in rank order. Cost:
  // the block's, CLUSTER remote stores of sizeof(State) bytes, one wait.
  template <typename State, typename Merge>
  __device__ __forceinline__ State all_reduce(State s, Merge merge) {
    static_assert(sizeof(State) <= kMaxStateBytes && sizeof(State) % 4 == 0, "state must be whole words in a slot");
    constexpr int WORDS = static_cast<int>(sizeof(State)) / 4;
    s = block_.all_reduce(s, merge);
    join();
    const int k = count_++;
    const int set = k & 1;
    if (threadIdx.x == 0) mbarrier_arrive_expect_bytes(landed(set), CLUSTER * WORDS * 4);
    if (threadIdx.x < CLUSTER) {
      const unsigned rank = blockIdx.x % CLUSTER;
      const unsigned peer = threadIdx.x;
      const unsigned dst = cluster_map_shared(shared_address(temp_.slots[set][rank]), peer);
      const unsigned peer_landed = cluster_map_shared(landed(set), peer);
      unsigned words[WORDS];
      memcpy(words, &s, sizeof(State));
#pragma unroll
      for (int w = 0; w < WORDS; ++w) store_remote_async(dst + 4 * w, words[w], peer_landed);
    }
    mbarrier_wait_parity(landed(set), static_cast<unsigned>(k >> 1) & 1u);
    State got;
    memcpy(&got, temp_.slots[set][lane_id() & (CLUSTER - 1)], sizeof(State));
    return warp_allreduce_state<CLUSTER>(got, merge);
  }

 private:
  __device__ __forceinline__ unsigned landed(int set) const { return shared_address(&temp_.landed[set]); }

  TempStorage& temp_;
  Block block_;
  bool joined_ = false;
  int count_ = 0;
};

#endif  // EPL_HAS_CLUSTERS

}  // namespace epl
