// epl/row/group_grid.cuh (exploration 20261219-grid-split-rows, copied into a tree copy by patch.py;
// not part of the committed kernels) — a row shared by SPLIT ordinary blocks of a resident grid,
// their states exchanged through global memory instead of a cluster's distributed shared memory.
//
// Why: a persistent grid of clusters of 16 fills only the SMs that the GPCs can place whole
// clusters on (112 of the H200's 132 at one block an SM, run 561a), and at 128 rows it then runs
// ceil(128 / 7) = 19 rounds. Blocks that are not a cluster go to every SM; a grid of
// SPLIT * floor(resident / SPLIT) blocks keeps each block on one slice of every row it takes (its
// parameters stay in registers) and runs 128 / 16 = 8 rounds at two blocks an SM.
//
// The price: an all-reduce waits for a global-memory round trip (a release-add on an L2 counter,
// an acquire poll), where the cluster's remote stores land in the peer's shared memory.
//
// Deadlock freedom: every block of a row group must be running at once, since each spins until
// its peers arrive. The launch guarantees it by sizing the grid from resident_blocks.
#pragma once

#include "group.cuh"

namespace epl {

// Global memory a RowGridSplit grid exchanges states through, per row group g (blockIdx.x / SPLIT):
// arrivals[g], zeroed before the launch, counts the block states posted so far; slots hold two sets
// of SPLIT states of kMaxStateBytes (words[(g * 2 + set) * SPLIT * 4 + rank * 4 ...]).
struct RowExchange {
  unsigned* arrivals;
  unsigned* slots;
};

template <int SPLIT, int BLOCK>
class RowGridSplit {
  static_assert(is_pow2(SPLIT) && SPLIT <= kWarpThreads, "SPLIT must be a power of two <= 32");
  using Block = RowLanes<BLOCK, BLOCK>;
  static constexpr int SLOT_WORDS = kMaxStateBytes / 4;

 public:
  static constexpr int LANES = BLOCK;
  static constexpr int ROWS_PER_BLOCK = 1;

  struct TempStorage {
    typename Block::TempStorage block;
  };

  __device__ __forceinline__ RowGridSplit(TempStorage& temp, RowExchange exchange) : block_(temp.block), ex_(exchange) {}

  __device__ __forceinline__ int row() const { return static_cast<int>(blockIdx.x) / SPLIT; }
  __device__ __forceinline__ int row(int, int) const { return row(); }
  __device__ __forceinline__ int lane() const { return static_cast<int>(threadIdx.x); }
  __device__ __forceinline__ bool leader() const { return blockIdx.x % SPLIT == 0 && threadIdx.x == 0; }
  // As RowCluster::segment: rank k owns slice k of whole 16-byte vectors.
  template <typename T>
  __device__ __forceinline__ RowSegment segment(int cols) const {
    constexpr int N = Vec16<T>::N;
    const int rank = static_cast<int>(blockIdx.x) % SPLIT;
    const int slice = ceil_div(ceil_div(cols, SPLIT), N) * N;
    const int begin = min(cols, rank * slice);
    return RowSegment{begin, min(slice, cols - begin)};
  }
  __device__ __forceinline__ void join() {}

  // Block all-reduce; thread 0 posts the block's state into its rank's slot of set k & 1 and
  // release-adds the group's counter, then polls it (acquire) until all SPLIT blocks have posted
  // all-reduce k; after a __syncthreads every warp reads the SPLIT states (lane r reads rank
  // r mod SPLIT) and merges them in rank order. Set k & 1 is not rewritten before every block has
  // read it: a peer's all-reduce k + 2 needs this block's k + 1, posted after the block all-reduce's
  // __syncthreads that follows these reads.
  template <typename State, typename Merge>
  __device__ __forceinline__ State all_reduce(State s, Merge merge) {
    static_assert(sizeof(State) <= kMaxStateBytes && sizeof(State) % 4 == 0, "state must be whole words in a slot");
    constexpr int WORDS = static_cast<int>(sizeof(State)) / 4;
    s = block_.all_reduce(s, merge);
    const int k = count_++;
    const int group = static_cast<int>(blockIdx.x) / SPLIT;
    unsigned* set = ex_.slots + (group * 2 + (k & 1)) * SPLIT * SLOT_WORDS;
    unsigned* arrivals = ex_.arrivals + group;
    if (threadIdx.x == 0) {
      unsigned words[WORDS];
      memcpy(words, &s, sizeof(State));
      unsigned* mine = set + (blockIdx.x % SPLIT) * SLOT_WORDS;
#pragma unroll
      for (int w = 0; w < WORDS; ++w) asm volatile("st.relaxed.gpu.global.b32 [%0], %1;" ::"l"(mine + w), "r"(words[w]) : "memory");
      asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(arrivals) : "memory");
      const unsigned want = static_cast<unsigned>(SPLIT) * static_cast<unsigned>(k + 1);
      unsigned seen;
      do {
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(arrivals) : "memory");
      } while (seen < want);
    }
    __syncthreads();
    unsigned words[WORDS];
    const unsigned* theirs = set + (lane_id() & (SPLIT - 1)) * SLOT_WORDS;
#pragma unroll
    for (int w = 0; w < WORDS; ++w) asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(words[w]) : "l"(theirs + w) : "memory");
    State got;
    memcpy(&got, words, sizeof(State));
    return warp_allreduce_state<SPLIT>(got, merge);
  }

 private:
  Block block_;
  RowExchange ex_;
  int count_ = 0;
};

// How a body builds its group: the exchange matters to RowGridSplit alone.
template <typename Group>
struct RowGroupMaker {
  __device__ __forceinline__ static Group make(typename Group::TempStorage& temp, RowExchange) { return Group(temp); }
};
template <int SPLIT, int BLOCK>
struct RowGroupMaker<RowGridSplit<SPLIT, BLOCK>> {
  __device__ __forceinline__ static RowGridSplit<SPLIT, BLOCK> make(typename RowGridSplit<SPLIT, BLOCK>::TempStorage& temp,
                                                                    RowExchange exchange) {
    return RowGridSplit<SPLIT, BLOCK>(temp, exchange);
  }
};

}  // namespace epl
