// epl/pipeline/cp_async.cuh — sm_80's asynchronous global → shared copies (SASS LDGSTS) and a
// swizzled operand tile staged by them.
//
// cp.async.cg copies 16 bytes straight into shared memory (no staging registers, L1 bypassed);
// src-size 0 writes 16 zero bytes, which is how chunks past the matrix become zeros. Copies are
// grouped by commit(); wait<N>() returns when at most N of this thread's groups are in flight,
// after which a barrier makes the other threads' copies visible.
#pragma once

#include <cuda_bf16.h>

#include "../target.cuh"
#include "../tile/stage.cuh"

namespace epl {

#if EPL_HAS_CP_ASYNC

__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem, bool valid) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(valid ? 16 : 0));
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// Issues this thread's chunks of the [ROWS x 64] tile at (row0, col0) of g [rows x cols] into the
// swizzled shared tile s (OperandTile's chunk assignment); out-of-range chunks are zero-filled.
template <int ROWS, int THREADS>
__device__ __forceinline__ void cp_async_tile(__nv_bfloat16* s, const __nv_bfloat16* __restrict__ g, int row0,
                                              int col0, int rows, int cols) {
  using Tile = OperandTile<ROWS, THREADS>;
#pragma unroll
  for (int j = 0; j < Tile::kPerThread; ++j) {
    const int r = Tile::row(j), c = Tile::col(j);
    const int gr = row0 + r, gc = col0 + c;
    const bool valid = gr < rows && gc < cols;
    const __nv_bfloat16* src = valid ? g + static_cast<long long>(gr) * cols + gc : g;  // any mapped address
    cp_async_16(s + swizzle64(r, c), src, valid);
  }
}

// One stage of a matrix product: the [BM x 64] tile of a at (m0, k0) and the [BN x 64] tile of b
// at (n0, k0), both row-major with k columns, into slot (A) and slot + BM * 64 (B); one commit
// group, empty when `issue` is false, so that wait counts stay those of a full pipeline.
template <int BM, int BN, int THREADS>
__device__ __forceinline__ void cp_async_stage(__nv_bfloat16* slot, const __nv_bfloat16* __restrict__ a,
                                               const __nv_bfloat16* __restrict__ b, int m0, int n0, int k0,
                                               int m, int n, int k, bool issue) {
  if (issue) {
    cp_async_tile<BM, THREADS>(slot, a, m0, k0, m, k);
    cp_async_tile<BN, THREADS>(slot + BM * kSwizzleRowElems, b, n0, k0, n, k);
  }
  cp_async_commit();
}

#endif  // EPL_HAS_CP_ASYNC

}  // namespace epl
