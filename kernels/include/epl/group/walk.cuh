// epl/group/walk.cuh — how the threads of a group walk a row segment, by name.
//
// Every pass over a row segment (visit.cuh's folds, rewrite.cuh's rewrites, the statistics policies
// of epl/policy/) is parametrized by the same five choices; they travel together as one policy type
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
//   kSplit   true: the vector path splits the segment by its real address (RowSplit below), so it
//            serves a segment of any length starting anywhere; false: the vector path needs the
//            segment 16-byte aligned and n a whole number of vectors (kCols > 0 needs false).
//
// The split: the head, the elements before the segment's first 16-byte boundary; the body, whole
// 16-byte vectors; the tail, the rest. Head and tail are at most 16 / sizeof(T) - 1 elements each,
// read with scalar loads spread over the lanes; the body takes the 16-byte loads. So the rows of an
// odd-length [rows, cols] matrix, which start at a different offset mod 16 each, are read at vector
// speed. Arrays walked together (x and y, a segment and its staged copy) must sit at the same
// offset mod 16, which they do when their bases do (row_arrays_split_aligned below). It is a
// separate choice, not the vector path's only form, because it costs registers: the head and tail
// values and the split's bounds stay live through the pass (ptxas, sm_90a: rmsnorm/reread 55 -> 64
// registers at 1024 threads an SM, more spills under the 32 of 2048; softmax/online-registers with
// a batch of 4 rows 42 -> 58), which aligned rows need not pay.
#pragma once

#include "../thread/load_evict.cuh"
#include "../thread/load_unaligned.cuh"

namespace epl {

template <int LANES, int UNROLL, Evict HINT = Evict::kNone, int COLS = 0, bool SPLIT = false>
struct SegmentWalk {
  static_assert(LANES >= 1 && UNROLL >= 1 && COLS >= 0, "LANES and UNROLL must be positive, COLS >= 0");
  static_assert(!(SPLIT && COLS > 0), "a kernel compiled for one column count walks whole vectors");
  static constexpr int kLanes = LANES;
  static constexpr int kUnroll = UNROLL;
  static constexpr Evict kHint = HINT;
  static constexpr int kCols = COLS;
  static constexpr bool kSplit = SPLIT;
};

// seg[0, n) split by address: [0, head) scalar, [head, head + 16 * nv / sizeof(T)) whole 16-byte
// vectors, [body_end, n) scalar. head is min(n, vec16_lead(seg)): a segment shorter than its head
// is all head (nv 0, no tail); n == 0 gives nothing at all.
struct RowSplit {
  int head;      // elements before the first 16-byte boundary (or all n, when fewer)
  int nv;        // whole 16-byte vectors from seg + head
  int body_end;  // head + nv * 16 / sizeof(T): the tail is [body_end, n)
  int n;
};

template <typename T>
__device__ __forceinline__ RowSplit split_row_segment(const T* seg, int n) {
  constexpr int N = Vec16<T>::N;
  const int lead = vec16_lead(seg);
  const int head = lead < n ? lead : n;
  const int nv = (n - head) / N;
  return RowSplit{head, nv, head + nv * N, n};
}

// A lane's scalar share of the head and the tail of a RowSplit: head elements lane, lane + LANES, ...
// below head; tail elements body_end + lane, ... below n. kSlots a part, ceil_div(N - 1, LANES):
// one where the group has at least N - 1 lanes (the slot loop unrolls; a slot is one predicated load).
template <int LANES, typename T>
struct RowEdges {
  static constexpr int kSlots = (Vec16<T>::N - 1 + LANES - 1) / LANES;
  // Column of slot s (0 <= s < 2 * kSlots: the head's slots, then the tail's) and whether it is in range.
  __device__ __forceinline__ static int col(const RowSplit& sp, int lane, int s) {
    return s < kSlots ? lane + s * LANES : sp.body_end + lane + (s - kSlots) * LANES;
  }
  __device__ __forceinline__ static bool valid(const RowSplit& sp, int lane, int s) {
    return s < kSlots ? lane + s * LANES < sp.head : sp.body_end + lane + (s - kSlots) * LANES < sp.n;
  }
};

// x and y sit at the same offset mod 16, so every segment of a row splits the same way in both:
// what the vector path of a split row needs (cols any). Parameter arrays read beside the row need
// nothing (rewrite.cuh reads them element by element where out of phase).
template <typename T>
__device__ __forceinline__ bool row_arrays_split_aligned(const T* x, const T* y) {
  return ((reinterpret_cast<size_t>(x) ^ reinterpret_cast<size_t>(y)) & 15) == 0;
}

}  // namespace epl
