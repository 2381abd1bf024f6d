// epl/warp/reduce_state.cuh — warp all-reduce of a mergeable STATE (a small struct), not a float.
//
// Streaming primitives carry states such as (m, l) of online softmax or (count, mean, M2) of
// Welford; their merges are associative but need not be bitwise commutative (Chan's merge of
// (a, b) and of (b, a) round differently). A plain xor butterfly would then leave lanes with
// different bits. Here every butterfly step merges the pair in a canonical order — the value of
// the lower lane first — so both lanes of a pair compute the same merge and every lane ends with
// the same bits.
#pragma once

#include "../thread/ops.cuh"
#include "../util.cuh"

namespace epl {

// Shuffles a trivially copyable State word by word (each 4-byte word is one SHFL.BFLY).
template <typename State>
__device__ __forceinline__ State shfl_xor_state(const State& s, int mask, int width = kWarpThreads) {
  static_assert(sizeof(State) % 4 == 0, "State must be a whole number of 32-bit words");
  constexpr int kWords = sizeof(State) / 4;
  union Words {
    State state;
    unsigned word[kWords];
  };
  Words in, out;
  in.state = s;
#pragma unroll
  for (int i = 0; i < kWords; ++i) out.word[i] = __shfl_xor_sync(kFullWarpMask, in.word[i], mask, width);
  return out.state;
}

// Whether merge(a, b) and merge(b, a) have the same bits, so a butterfly step needs no canonical
// order. Sum, Max and Min promise it (thread/ops.cuh's contract); another merge declares it by
// specializing this trait (policy/ops.cuh: MergeSumPair), and one that says nothing is taken not to.
template <typename Merge>
struct MergeCommutes {
  static constexpr bool value = false;
};
template <>
struct MergeCommutes<Sum> {
  static constexpr bool value = true;
};
template <>
struct MergeCommutes<Max> {
  static constexpr bool value = true;
};
template <>
struct MergeCommutes<Min> {
  static constexpr bool value = true;
};

// Merges the states of each group of WIDTH consecutive lanes (WIDTH a power of two, 1..32).
// Merge: `State operator()(const State& lower, const State& upper) const`, associative.
// Every one of the 32 lanes must call it, converged.
// Valid result: in EVERY lane of the group, bit-identical across the group.
// Cost: log2(WIDTH) steps of (words of State) SHFL.BFLY + one merge.
template <int WIDTH = kWarpThreads, typename State, typename Merge>
__device__ __forceinline__ State warp_allreduce_state(State s, Merge merge) {
  static_assert(is_pow2(WIDTH) && WIDTH <= kWarpThreads, "WIDTH must be a power of two <= 32");
  const int lane = lane_id();
#pragma unroll
  for (int mask = WIDTH / 2; mask > 0; mask /= 2) {
    const State other = shfl_xor_state(s, mask, WIDTH);
    if constexpr (MergeCommutes<Merge>::value) {
      s = merge(s, other);  // the same bits in both lanes, in either order
    } else {
      const bool upper = (lane & mask) != 0;  // operands chosen by select: one straight-line merge
      const State lower_state = upper ? other : s;
      const State upper_state = upper ? s : other;
      s = merge(lower_state, upper_state);  // lower lane's state first, in both lanes
    }
  }
  return s;
}

}  // namespace epl
