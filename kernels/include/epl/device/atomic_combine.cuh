// epl/device/atomic_combine.cuh — one thread folds a block's partial into the single result with a
// float atomic in L2.
//
// Scope: device. Called by one thread per block (thread 0, holding the block's partial); every call
// is one atomic on the SAME address, so the L2 slice owning it serializes them: the cost grows with
// the number of blocks, not with n. The order in which blocks arrive varies run to run, so a Sum
// varies in its last bits run to run; a Max does not (max is exact and order-free).
// *out must hold Op::identity() before the first call (a separate launch writes it).
#pragma once

#include "../thread/ops.cuh"

namespace epl {
namespace device {

// RED.E.ADD.F32: a fire-and-forget reduction in L2 (the old value is not returned).
__device__ __forceinline__ void atomic_combine(float* out, float v, Sum) { atomicAdd(out, v); }

// There is no float atomicMax; the IEEE order is an integer order on the bits, sign by sign:
// for sign bit 0 (+0 .. +inf) larger floats have larger signed bits, so signed atomicMax works;
// for sign bit 1 (-0 .. -inf) larger floats have SMALLER unsigned bits, so unsigned atomicMin works.
// Either update leaves a value of the other sign alone exactly when it should: a non-negative *out
// has unsigned bits below every negative's, a negative *out has signed bits below every
// non-negative's. Branching on the sign bit (not on v < 0) sends -0.0 to atomicMin, so
// max(-inf, -0.0) is -0.0. NaN is not supported (contracts feed finite data).
__device__ __forceinline__ void atomic_combine(float* out, float v, Max) {
  if (__float_as_int(v) >= 0) {
    atomicMax(reinterpret_cast<int*>(out), __float_as_int(v));
  } else {
    atomicMin(reinterpret_cast<unsigned*>(out), __float_as_uint(v));
  }
}

// The mirror image of Max: signed atomicMin for sign bit 0, unsigned atomicMax for sign bit 1.
__device__ __forceinline__ void atomic_combine(float* out, float v, Min) {
  if (__float_as_int(v) >= 0) {
    atomicMin(reinterpret_cast<int*>(out), __float_as_int(v));
  } else {
    atomicMax(reinterpret_cast<unsigned*>(out), __float_as_uint(v));
  }
}

}  // namespace device
}  // namespace epl
