// epl/thread/exp.cuh — the exponential of the softmax family's sums, one thread.
//
// exp_flush(x) = e^x as one FMUL by log2(e) and one MUFU.EX2 (ex2.approx.ftz.f32). __expf is the
// same two steps in the non-flushing form, which brackets the MUFU with a range test and two
// predicated multiplies to keep results below 2^-126 (denormals) instead of flushing them to 0:
// five instructions for two, on every element. The results are bitwise those of __expf from 2^-126
// up. Callers take x = v - max <= 0 and either sum the results (or weight values by them, as the
// attention state does), where the max's own term is 1 and a term below 2^-126 is lost in its
// rounding anyway, or scale them by 1/l <= 1 into an output below the smallest normal float:
// normwise, flushing changes an error by less than 2^-126 (times the largest weighted value).
// experiment 0014-flushed-exp measured the state fold with it (bf16 logsumexp +3-6%).
#pragma once

namespace epl {

__device__ __forceinline__ float exp_flush(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.44269504088896341f));  // log2(e), rounded as __expf's
  return y;
}

}  // namespace epl
