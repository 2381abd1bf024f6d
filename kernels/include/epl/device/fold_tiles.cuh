// epl/device/fold_tiles.cuh — which elements each thread of a grid folds: tiles dealt round-robin,
// coalesced scalar loads inside a tile.
//
// Scope: one thread's share of a grid-wide reduction (the block and device levels come after).
// The input is cut into tiles of TILE = BLOCK * ITEMS consecutive elements; tile t goes to part
// t mod parts (part = the block's index among the `parts` cooperating blocks, usually blockIdx.x
// and gridDim.x). In a tile, thread j loads j, j + BLOCK, ..., j + (ITEMS-1)*BLOCK: every load
// instruction of a warp reads 32 consecutive elements, and all ITEMS loads are issued before the
// first is used, so ITEMS * sizeof(T) bytes per thread are in flight.
//
// With parts == ceil_div(n, TILE) every block folds exactly one tile (the block-tile-reduce
// harness's assignment); with fewer parts each block walks its tiles grid-stride.
#pragma once

#include "../thread/convert.cuh"
#include "../thread/ops.cuh"

namespace epl {
namespace device {

// Returns this thread's fold (identity() when it has no element), accumulated in float32 in a
// fixed order: tiles in increasing order, inside a tile the ITEMS values in index order. The order
// depends only on (n, BLOCK, ITEMS, parts), so repeated runs are bitwise identical.
// Requirements: blockDim.x == BLOCK; 0 <= n < 2^31; part < parts.
// Cost: n * sizeof(T) / parts bytes per block, one ragged tile (predicated loads) in the grid.
template <int BLOCK, int ITEMS, typename T, typename Op>
__device__ __forceinline__ float fold_tiles_strided(const T* __restrict__ x,  // n elements
                                                    unsigned n,               // element count
                                                    unsigned part,            // this block's part
                                                    unsigned parts,           // cooperating blocks
                                                    Op op = Op()) {
  static_assert(ITEMS >= 1, "ITEMS must be at least 1");
  constexpr unsigned TILE = static_cast<unsigned>(BLOCK) * ITEMS;
  const unsigned full_tiles = n / TILE;
  float acc = Op::identity();
  unsigned tile = part;
  for (; tile < full_tiles; tile += parts) {
    const T* p = x + tile * TILE + threadIdx.x;  // tile * TILE <= n < 2^31: no 32-bit overflow
    T v[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) v[i] = p[i * BLOCK];  // all loads in flight before any op
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) acc = op(acc, to_float(v[i]));
  }
  // The ragged last tile belongs to the part whose walk stops exactly on it.
  if (tile == full_tiles && full_tiles * TILE < n) {
    const unsigned first = full_tiles * TILE + threadIdx.x;
    T v[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (first + i * BLOCK < n) v[i] = x[first + i * BLOCK];
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (first + i * BLOCK < n) acc = op(acc, to_float(v[i]));
    }
  }
  return acc;
}

}  // namespace device
}  // namespace epl
