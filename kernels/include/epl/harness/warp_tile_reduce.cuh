// epl/harness/warp_tile_reduce.cuh — measurement harness of the "warp-tile-reduce" contract.
//
// Contract: x has n elements (1 <= n < 2^31); the grid has ceil_div(ceil_div(n, 32*ITEMS), BLOCK/32)
// blocks of BLOCK threads, i.e. BLOCK/32 INDEPENDENT warps each (no barrier, no shared state
// between them). Global warp w = blockIdx.x * BLOCK/32 + warp_id() reduces the tile
// x[w*32*ITEMS, (w+1)*32*ITEMS) ∩ [0, n) and writes ONE partial, partials[w]; warps past the last
// tile return at once. The harness's only job is the warp reduction under test: load, fold in
// registers, call it, write.
//
// Element types: float32 / bfloat16 accumulate in float32 (float partials); int32 accumulates in
// int32 with the wrap-around Sum of warp/reduce_redux.cuh (int partials).
//
// Loads (all issued before the first op, so they are in flight together):
//   - 16-byte vectors when ITEMS is a multiple of V = 16 / sizeof(T) (fp32/int32: 4, bf16: 8), the
//     tile is whole, and x is 16-byte aligned (checked at run time; a misaligned x, possible only
//     through a sliced array, takes the scalar path): lane l loads vectors l, l+32, ... of the
//     tile, so every warp instruction reads 512 contiguous bytes (LDG.E.128).
//   - otherwise scalars: lane l loads elements l, l+32, ..., l+32*(ITEMS-1) of the tile
//     (coalesced, 32*sizeof(T) bytes per warp instruction); out-of-range items are the identity.
// Traffic: reads sizeof(T) bytes per element once, writes 4 bytes per 32*ITEMS elements.
//
// Who writes: lane 0 when the algorithm leaves the answer in lane 0 only; when it promises the
// answer in EVERY lane (kResultInAllLanes), lane (w mod 32) writes, so over any 32 consecutive
// warps every lane's copy is the one checked against the reference.
//
// Order of operations (fixed, so bitwise reproducible): each lane folds its ITEMS values in the
// order it loaded them starting from the identity; the warp reduction then fixes the rest.
#pragma once

#include "../thread/convert.cuh"
#include "../thread/load.cuh"
#include "../thread/ops.cuh"
#include "../util.cuh"
#include "../warp/reduce_redux.cuh"

namespace epl {
namespace harness {

// The accumulator of a warp tile: float32 for floating-point inputs, int32 for int32 inputs.
template <typename T, typename Op>
struct WarpTileAccum {
  using type = float;
  static __device__ __forceinline__ float identity() { return Op::identity(); }
  static __device__ __forceinline__ float widen(T v) { return to_float(v); }
  static __device__ __forceinline__ float combine(float a, float b) { return Op{}(a, b); }
};

template <typename Op>
struct WarpTileAccum<int, Op> {
  using type = int;
  static __device__ __forceinline__ int identity() { return ReduxOp<Op>::identity(); }
  static __device__ __forceinline__ int widen(int v) { return v; }
  static __device__ __forceinline__ int combine(int a, int b) { return ReduxOp<Op>::combine(a, b); }
};

namespace detail {
template <typename A, typename B> struct same_type { static constexpr bool value = false; };
template <typename A> struct same_type<A, A> { static constexpr bool value = true; };
}  // namespace detail

// WarpReduceT: a warp-reduce realization class template <typename Op> with value_type,
//              kResultInAllLanes, TempStorage and reduce(value_type, Op) (warp/reduce_classes.cuh).
// Called from a __global__ entry with blockDim.x == BLOCK and a 1-D grid as above.
template <template <typename> class WarpReduceT, int BLOCK, int ITEMS, typename T, typename Op>
__device__ __forceinline__ void warp_tile_reduce(const T* __restrict__ x,                                  // n inputs
                                                 typename WarpTileAccum<T, Op>::type* __restrict__ partials,  // one per warp tile
                                                 int n) {                                                  // element count
  using Accum = WarpTileAccum<T, Op>;
  using A = typename Accum::type;
  using WarpReduce = WarpReduceT<Op>;
  static_assert(detail::same_type<typename WarpReduce::value_type, A>::value,
                "the warp algorithm does not reduce this element type's accumulator (redux: int32 only)");
  static_assert(BLOCK % kWarpThreads == 0 && BLOCK <= 1024, "BLOCK must be a multiple of 32, at most 1024");
  static_assert(ITEMS >= 1, "ITEMS must be at least 1");
  constexpr int WARPS = BLOCK / kWarpThreads;
  __shared__ typename WarpReduce::TempStorage temp[WARPS];
  const Op op{};

  // Unsigned 32-bit indices: the last tile's end can pass 2^31 - 1 by less than a tile, never 2^32.
  constexpr unsigned TILE = static_cast<unsigned>(kWarpThreads) * ITEMS;
  const unsigned count = static_cast<unsigned>(n);
  const unsigned warp = blockIdx.x * WARPS + static_cast<unsigned>(warp_id());
  const unsigned base = warp * TILE;
  if (base >= count) return;  // whole warp past the data (last block): uniform per warp
  const int lane = lane_id();

  A acc = Accum::identity();
  bool vectorized = false;
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  if constexpr (ITEMS % V == 0) {
    const bool aligned = (reinterpret_cast<unsigned long long>(x) & 15ull) == 0;  // uniform
    vectorized = aligned && base + TILE <= count;
    if (vectorized) {
      constexpr int VECS = ITEMS / V;
      Vec16<T> v[VECS];
#pragma unroll
      for (int i = 0; i < VECS; ++i) v[i] = load_16B_aligned(x + base + (i * kWarpThreads + lane) * V);
#pragma unroll
      for (int i = 0; i < VECS; ++i) {
#pragma unroll
        for (int k = 0; k < V; ++k) acc = Accum::combine(acc, Accum::widen(v[i].v[k]));
      }
    }
  }
  if (!vectorized) {  // scalars: ITEMS not a multiple of V, the ragged last tile, a misaligned x
    T v[ITEMS];
    const unsigned first = base + lane;
    if (base + TILE <= count) {  // whole tile: no bounds checks
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) v[i] = x[first + i * kWarpThreads];
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) acc = Accum::combine(acc, Accum::widen(v[i]));
    } else {  // ragged last tile: out-of-range items stay the identity
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        if (first + i * kWarpThreads < count) v[i] = x[first + i * kWarpThreads];
      }
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        if (first + i * kWarpThreads < count) acc = Accum::combine(acc, Accum::widen(v[i]));
      }
    }
  }

  const A r = WarpReduce(temp[warp_id()]).reduce(acc, op);
  const int writer = WarpReduce::kResultInAllLanes ? static_cast<int>(warp % kWarpThreads) : 0;
  if (lane == writer) partials[warp] = r;
}

}  // namespace harness
}  // namespace epl
