// epl/group/walk.cuh — how the threads of a group walk a row segment, by name.
//
// Every pass over a row segment (visit.cuh's folds, rewrite.cuh's rewrites, the statistics policies
// of epl/policy/) is parametrized by the same four choices; they travel together as one policy type
// so that no caller passes them in a different order than the callee reads them:
//   kLanes   threads sharing the segment: thread `lane` takes every kLanes-th 16-byte vector
//            (vector path) or every kLanes-th element (scalar path);
//   kUnroll  16-byte loads issued before the first is used (16 * kUnroll bytes in flight a thread);
//   kHint    the L1 and L2 eviction priority of the segment's 16-byte loads (thread/load_evict.cuh;
//            kNone: the default; kShared for a segment staged in shared memory);
//   kCols    > 0: the kernel is compiled for one column count, n is kCols or 0 (a group without a
//            row), and kUnroll rounds cover it: the vector path is one round with no loop and, where
//            kCols fills the round, no test (the compiler does not derive that from a constant n
//            through a loop); 0: any n.
#pragma once

#include "../thread/load_evict.cuh"

namespace epl {

template <int LANES, int UNROLL, Evict HINT = Evict::kNone, int COLS = 0>
struct SegmentWalk {
  static_assert(LANES >= 1 && UNROLL >= 1 && COLS >= 0, "LANES and UNROLL must be positive, COLS >= 0");
  static constexpr int kLanes = LANES;
  static constexpr int kUnroll = UNROLL;
  static constexpr Evict kHint = HINT;
  static constexpr int kCols = COLS;
};

}  // namespace epl
