// epl/block/reduce.cuh — block-wide reduction: the algorithms and how to choose.
//
// Scope: all threads of one 1-D block of BLOCK threads (a power of two, 32..1024). Every
// realization has the same small interface (after CUB's BlockReduce specializations):
//
//   using R = epl::BlockReduceWarpShuffle<BLOCK, epl::Sum>;   // or via BlockReduce<..., algorithm>
//   __shared__ typename R::TempStorage temp;
//   float r = R(temp).reduce(my_partial);      // valid in thread 0 only
//   float a = R(temp).all_reduce(my_partial);  // valid in every thread
//
// Every thread calls, converged, with its own partial (the operator's identity() if it has none).
// __syncthreads() before reusing a TempStorage. Results are bitwise reproducible run to run; the
// two algorithms combine in different orders, so their Sum results may differ in the last bits.
//
// Algorithms (structural costs at W = BLOCK / 32 warps; which one wins is measured, see the
// records' when_it_wins and evidence/, not decided here):
//
//   shared_tree   reduce_shared_tree.cuh. Pure shared-memory tree, sequential addressing.
//                 4*BLOCK bytes of shared memory, log2(W) __syncthreads + 5 __syncwarp,
//                 log2(BLOCK) dependent shared load+op steps. No shuffles.
//   warp_shuffle  reduce_warp_shuffle.cuh. Shuffle tree in each warp, one partial per warp in
//                 shared memory, one __syncthreads, shuffle tree over the partials in warp 0.
//                 4*W bytes of shared memory, 5 + log2(W) shuffles on the critical path.
//   raking        reduce_raking.cuh. Every thread stores its value (padded layout), one
//                 __syncthreads, warp 0 folds W values per lane sequentially, then 5 shuffles.
//                 4*(BLOCK + W) bytes of shared memory, W - 1 + 5 ops on the critical path.
//   smem_atomics  reduce_smem_atomics.cuh. One shared float, two __syncthreads, W (from warp)
//                 or BLOCK (from thread) shared atomics on it; Sum is a CAS loop and its bits
//                 vary run to run.
#pragma once

#include "reduce_shared_tree.cuh"
#include "reduce_warp_shuffle.cuh"
#include "reduce_raking.cuh"
#include "reduce_smem_atomics.cuh"

namespace epl {

// Names the algorithm, never a quality; one value per realization of block-reduce.
enum class BlockReduceAlgorithm {
  shared_tree,   // block-reduce/shared-tree
  warp_shuffle,  // block-reduce/warp-shuffle
  raking,        // block-reduce/raking
  smem_atomics,  // block-reduce/smem-atomics (from warp; BlockReduceSmemAtomics for from thread)
};

namespace detail {
template <BlockReduceAlgorithm A, int BLOCK, typename Op> struct block_reduce_of;
template <int BLOCK, typename Op> struct block_reduce_of<BlockReduceAlgorithm::shared_tree, BLOCK, Op> {
  using type = BlockReduceSharedTree<BLOCK, Op>;
};
template <int BLOCK, typename Op> struct block_reduce_of<BlockReduceAlgorithm::warp_shuffle, BLOCK, Op> {
  using type = BlockReduceWarpShuffle<BLOCK, Op>;
};
template <int BLOCK, typename Op> struct block_reduce_of<BlockReduceAlgorithm::raking, BLOCK, Op> {
  using type = BlockReduceRaking<BLOCK, Op>;
};
template <int BLOCK, typename Op> struct block_reduce_of<BlockReduceAlgorithm::smem_atomics, BLOCK, Op> {
  using type = BlockReduceSmemAtomics<BLOCK, Op, SmemAtomicsFrom::warp>;
};
}  // namespace detail

// The realization class for an algorithm chosen as a value (what generated code writes).
template <int BLOCK, typename Op, BlockReduceAlgorithm ALGORITHM>
using BlockReduce = typename detail::block_reduce_of<ALGORITHM, BLOCK, Op>::type;

}  // namespace epl
