// epl/warp/reduce_classes.cuh — warp reduction behind one class interface, one class per algorithm.
//
// The functions of warp/reduce.cuh are what block-level code calls; these classes give every warp
// algorithm the same small CUB-style contract, so that a harness (harness/warp_tile_reduce.cuh) or
// generated code can take the algorithm as a template argument:
//
//   using R = epl::WarpReduceButterfly<epl::Sum>;        // or WarpReduce<Op, algorithm>
//   __shared__ typename R::TempStorage temp[WARPS];      // empty for register-only algorithms
//   R::value_type r = R(temp[warp]).reduce(v);           // lane 0, or every lane:
//   R::kResultInAllLanes                                 //   which lanes hold the answer
//
// Every lane of the warp calls reduce, converged, with its own value (the identity if none).
//
// Algorithms (which one wins is measured, see the records' when_it_wins, not decided here):
//
//   shfl_down   5 SHFL.DOWN + 5 op, result in lane 0 (reduce_shfl_down.cuh; class in
//               reduce_shuffle_classes.cuh).
//   butterfly   5 SHFL.BFLY + 5 op, result in every lane, identical bits (reduce_butterfly.cuh;
//               class in reduce_shuffle_classes.cuh).
//   smem_tree   shared-memory tree with __syncwarp, no shuffles, 128 B per warp, result in lane 0
//               (reduce_smem_tree.cuh).
//   redux       one REDUX, int32 only, sm_80+, result in every lane (reduce_redux.cuh).
#pragma once

#include "reduce_redux.cuh"
#include "reduce_shuffle_classes.cuh"
#include "reduce_smem_tree.cuh"

namespace epl {

// Names the algorithm, never a quality; one value per realization of warp-reduce.
enum class WarpReduceAlgorithm {
  shfl_down,  // warp-reduce/shfl-down
  butterfly,  // warp-reduce/butterfly
  smem_tree,  // warp-reduce/smem-tree
  redux,      // warp-reduce/redux-sync
};

namespace detail {
template <WarpReduceAlgorithm A, typename Op> struct warp_reduce_of;
template <typename Op> struct warp_reduce_of<WarpReduceAlgorithm::shfl_down, Op> { using type = WarpReduceShflDown<Op>; };
template <typename Op> struct warp_reduce_of<WarpReduceAlgorithm::butterfly, Op> { using type = WarpReduceButterfly<Op>; };
template <typename Op> struct warp_reduce_of<WarpReduceAlgorithm::smem_tree, Op> { using type = WarpReduceSmemTree<Op>; };
template <typename Op> struct warp_reduce_of<WarpReduceAlgorithm::redux, Op> { using type = WarpReduceRedux<Op>; };
}  // namespace detail

// The realization class for an algorithm chosen as a value (what generated code writes).
template <typename Op, WarpReduceAlgorithm ALGORITHM>
using WarpReduce = typename detail::warp_reduce_of<ALGORITHM, Op>::type;

}  // namespace epl
