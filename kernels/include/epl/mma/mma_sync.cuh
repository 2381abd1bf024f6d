// epl/mma/mma_sync.cuh — one warp's tensor-core instructions of sm_80+: ldmatrix and
// mma.sync m16n8k16 (bf16 in, fp32 accumulate).
//
// Fragments (PTX ISA, "Matrix fragments for mma.m16n8k16"): A 16x16 row-major in four 32-bit
// registers (a0: rows 0-7 k 0-7, a1: rows 8-15 k 0-7, a2: rows 0-7 k 8-15, a3: rows 8-15 k 8-15;
// lane l holds row l/4, k pair 2*(l%4)); B 16x8 "col" (k-major for each n) in two (b0: k 0-7,
// b1: k 8-15; lane l holds n l/4, k pair 2*(l%4)); C/D 16x8 fp32 in four (c0, c1: row l/4, cols
// 2*(l%4) + {0, 1}; c2, c3: row l/4 + 8). ldmatrix.x4 loads four 8x8 b16 matrices, lanes 8q..8q+7
// giving the row addresses of matrix q, in exactly these layouts.
#pragma once

#include <cuda_bf16.h>

namespace epl {

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* smem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}

// ldmatrix_x4 with each 8x8 matrix transposed: rows in memory are k (8 n values each), and lane l
// receives the k pair 2*(l%4) of n l/4, a "col" B fragment of a B stored [k, n].
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const void* smem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}

// d += a · b on one m16n8k16 tile, bf16 inputs, fp32 accumulators.
__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

}  // namespace epl
