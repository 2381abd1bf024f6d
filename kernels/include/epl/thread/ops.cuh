// epl/thread/ops.cuh — binary reduction operators with their identities.
//
// Every operator accumulates in float32 whatever the element type (bf16 and fp16 inputs are
// widened by epl::to_float first). The lab spells them in name expressions as epl::Sum, epl::Max
// and epl::Min (epldb/cxx.py: OP_CPP).
//
// Contract used by every reduction in epl/:
//   - identity() is the neutral element: op(identity(), x) == x for every finite x. Threads with
//     no data contribute identity(), so reductions never need a "number of valid threads".
//   - op(a, b) == op(b, a) bit for bit (IEEE add, fmaxf and fminf are commutative), which is what
//     lets the xor butterfly leave identical bits in every lane.
//   - Associativity holds only approximately for Sum; each realization fixes one order of
//     operations, so results are bitwise reproducible run to run but differ between realizations.
#pragma once

namespace epl {

// a + b. Identity 0.0f (note: a tile of only -0.0f sums to +0.0f).
struct Sum {
  static __device__ __forceinline__ float identity() { return 0.0f; }
  __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
};

// fmaxf(a, b): one FMNMX. Identity -inf. NaN is NOT propagated (IEEE maxNum: fmaxf(NaN, x) == x);
// contracts feed finite data, and a NaN-propagating variant would be a separate operator.
struct Max {
  static __device__ __forceinline__ float identity() { return __int_as_float(0xff800000); }  // -inf
  __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

// fminf(a, b): one FMNMX. Identity +inf. NaN is not propagated, as for Max.
struct Min {
  static __device__ __forceinline__ float identity() { return __int_as_float(0x7f800000); }  // +inf
  __device__ __forceinline__ float operator()(float a, float b) const { return fminf(a, b); }
};

}  // namespace epl
