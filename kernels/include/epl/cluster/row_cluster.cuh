// epl/cluster/row_cluster.cuh — a thread-block cluster per row: the group policy of the row bodies
// for rows too long for one block (sm_90 clusters).
//
// RowCluster<CLUSTER, BLOCK> has RowLanes' interface (epl/group/lanes.cuh): block rank k owns the
// k-th slice of whole 16-byte vectors of the row; all_reduce is the block's, then the CLUSTER block
// states through distributed shared memory (remote stores counted on the receiver's mbarrier).
// The merges run in rank order: every thread of the row gets the same bits.
#pragma once

#include "../block/mbarrier.cuh"
#include "../group/lanes.cuh"
#include "../target.cuh"
#include "../util.cuh"
#include "../warp/reduce_state.cuh"
#include "dsmem.cuh"

namespace epl {

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
