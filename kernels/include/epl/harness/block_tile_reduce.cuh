// epl/harness/block_tile_reduce.cuh — measurement harness of the "block-tile-reduce" contract.
//
// Contract: x has n elements (n >= 1, any value below 2^31, not a multiple of anything); the grid
// has ceil_div(n, BLOCK * ITEMS) blocks of BLOCK threads; block b reduces the tile
// x[b*BLOCK*ITEMS, (b+1)*BLOCK*ITEMS) ∩ [0, n) and writes ONE float32 partial, partials[b].
// The harness's only job is the block reduction under test: load, fold in registers, call it.
//
// Traffic: reads sizeof(T) bytes per element once, writes 4 bytes per BLOCK*ITEMS elements.
// Order of operations (fixed, so bitwise reproducible): each thread folds its ITEMS values in
// index order starting from identity(); the block reduction then fixes the rest.
#pragma once

#include "../thread/convert.cuh"
#include "../thread/ops.cuh"

namespace epl {
namespace harness {

// BlockReduceT: a block-reduce realization class template <int BLOCK, typename Op> with a
//               TempStorage type and reduce(float, Op) valid in thread 0 (epl/block/).
// Called from a __global__ entry with blockDim.x == BLOCK and a 1-D grid as above.
template <template <int, typename> class BlockReduceT, int BLOCK, int ITEMS = 4, typename T = float,
          typename Op = Sum>
__device__ __forceinline__ void block_tile_reduce(const T* __restrict__ x,       // n input elements
                                                  float* __restrict__ partials,  // one per block
                                                  int n) {                       // element count
  static_assert(ITEMS >= 1, "ITEMS must be at least 1");
  using BlockReduce = BlockReduceT<BLOCK, Op>;
  __shared__ typename BlockReduce::TempStorage temp;
  const Op op{};

  // Unsigned 32-bit indices: tile_end can pass 2^31 - 1 by up to one tile when n is near the int
  // limit, but never 2^32; cheaper than 64-bit index arithmetic.
  constexpr unsigned TILE = static_cast<unsigned>(BLOCK) * ITEMS;
  const unsigned count = static_cast<unsigned>(n);
  const unsigned first = blockIdx.x * TILE + threadIdx.x;  // thread t loads t, t+BLOCK, ...: coalesced

  // All ITEMS loads are issued before any op so they are in flight together.
  T v[ITEMS];
  float acc = Op::identity();
  if (blockIdx.x * TILE + TILE <= count) {  // full tile (every block but possibly the last)
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) v[i] = x[first + i * BLOCK];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) acc = op(acc, to_float(v[i]));
  } else {  // ragged last tile: out-of-range items are the identity
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const unsigned idx = first + i * BLOCK;
      if (idx < count) v[i] = x[idx];
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (first + i * BLOCK < count) acc = op(acc, to_float(v[i]));
    }
  }

  const float r = BlockReduce(temp).reduce(acc, op);  // valid in thread 0
  if (threadIdx.x == 0) partials[blockIdx.x] = r;
}

}  // namespace harness
}  // namespace epl
