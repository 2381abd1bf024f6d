// epl/mma/wgmma.cuh — Hopper's warpgroup MMA (wgmma.mma_async, sm_90a, SASS HGMMA): shared-memory
// matrix descriptors, the fences and groups around it, and m64nNk16 bf16 -> fp32 for N = 64, 128, 256.
// B is K-major (layout nt) or N-major (layout nn: wgmma_desc_sw128_mn, imm-trans-b).
//
// The four warps of a warpgroup (128 threads) issue one wgmma together; A (64 x 16) and B (N x 16)
// are read straight from shared memory through 64-bit descriptors, never through registers. Both
// operands here are K-major tiles of 64 bf16 (128 B) a row in the 128-byte swizzle, which is
// epl/tile/swizzle.cuh's layout: chunk c of row r at chunk c ^ (r & 7), 8-row groups of 1024 B,
// the tile 1024-byte aligned. The descriptor of such a tile: start address >> 4 (bits 0-13),
// leading byte offset 16 >> 4 (unused for swizzled K-major), stride byte offset 1024 >> 4 (one
// 8-row group; bits 32-45), swizzle mode 1 = 128 B (bits 62-63); the k16 step s of a 64-wide row
// starts 32·s bytes in. Accumulators: lane l of warp w holds, for each n8 chunk j, d[j][0..1] at
// row 16w + l/4, columns 8j + 2(l%4) + {0, 1}, and d[j][2..3] eight rows below: mma.sync's m16n8
// layout, so epl::WarpTile<16, N> stores them.
#pragma once

#include "../block/bulk_copy.cuh"  // fence_proxy_async_shared: generic-proxy writes (cp.async) before wgmma reads
#include "../target.cuh"

namespace epl {

#if EPL_HAS_WGMMA

// The descriptor of a 128-byte-swizzled tile at shared address `smem` (1024-byte aligned for the
// tile): start address >> 4, leading byte offset `lbo` (unused by a K-major tile), stride byte
// offset 1024 (one 8-row group), swizzle mode 1. K-major, a k16 step adds 32 bytes.
__device__ __forceinline__ unsigned long long wgmma_desc_sw128(const void* smem, unsigned lbo = 16) {
  const unsigned long long addr = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  return ((addr & 0x3FFFF) >> 4) | (static_cast<unsigned long long>(lbo >> 4) << 16) | ((1024ull >> 4) << 32) |
         (1ull << 62);
}

// The descriptor of a 128-byte-swizzled MN-major B tile (layout nn, B [k, n]): sub-tiles of 64 k
// rows x 64 n (128 B a row, the same swizzle) side by side along n, kMnSubBytes apart (the leading
// byte offset: from one 64-wide n block to the next), 8-row groups of k 1024 B apart (the stride
// byte offset). A k16 step is 16 rows: 2048 bytes, 128 in the descriptor's units. The wgmma that
// reads it says so with imm-trans-b = 1 (Wgmma<N>::mma<1>).
constexpr unsigned kMnSubBytes = 64 * 128;
__device__ __forceinline__ unsigned long long wgmma_desc_sw128_mn(const void* smem) {
  return wgmma_desc_sw128(smem, kMnSubBytes);
}

// Orders the warpgroup's register accesses of the accumulators before the wgmma that follow.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// Returns when at most N of the warpgroup's committed wgmma groups are still running.
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

template <int N>
struct Wgmma;

template <>
struct Wgmma<64> {
  // d [64/8][4] += A (64 x 16, descriptor da) · B (64 x 16, descriptor db)ᵀ; B K-major, or N-major
  // where TRANS_B is 1.
  template <int TRANS_B = 0>
  __device__ __forceinline__ static void mma(float (&d)[8][4], unsigned long long da, unsigned long long db) {
    asm volatile(
        "{\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
        "%32, %33, 1, 1, 1, 0, %34;\n"
        "}\n"
        : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]), "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]), "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]), "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]), "+f"(d[7][2]), "+f"(d[7][3])
        : "l"(da), "l"(db), "n"(TRANS_B));
  }
};

template <>
struct Wgmma<128> {
  // d [128/8][4] += A (64 x 16, descriptor da) · B (128 x 16, descriptor db)ᵀ; B K-major, or
  // N-major where TRANS_B is 1.
  template <int TRANS_B = 0>
  __device__ __forceinline__ static void mma(float (&d)[16][4], unsigned long long da, unsigned long long db) {
    asm volatile(
        "{\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
        "%64, %65, 1, 1, 1, 0, %66;\n"
        "}\n"
        : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]), "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]), "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]), "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]), "+f"(d[7][2]), "+f"(d[7][3]), "+f"(d[8][0]), "+f"(d[8][1]), "+f"(d[8][2]), "+f"(d[8][3]), "+f"(d[9][0]), "+f"(d[9][1]), "+f"(d[9][2]), "+f"(d[9][3]), "+f"(d[10][0]), "+f"(d[10][1]), "+f"(d[10][2]), "+f"(d[10][3]), "+f"(d[11][0]), "+f"(d[11][1]), "+f"(d[11][2]), "+f"(d[11][3]), "+f"(d[12][0]), "+f"(d[12][1]), "+f"(d[12][2]), "+f"(d[12][3]), "+f"(d[13][0]), "+f"(d[13][1]), "+f"(d[13][2]), "+f"(d[13][3]), "+f"(d[14][0]), "+f"(d[14][1]), "+f"(d[14][2]), "+f"(d[14][3]), "+f"(d[15][0]), "+f"(d[15][1]), "+f"(d[15][2]), "+f"(d[15][3])
        : "l"(da), "l"(db), "n"(TRANS_B));
  }
};

template <>
struct Wgmma<256> {
  // d [256/8][4] += A (64 x 16, descriptor da) · B (256 x 16, descriptor db)ᵀ; B K-major, or
  // N-major where TRANS_B is 1.
  template <int TRANS_B = 0>
  __device__ __forceinline__ static void mma(float (&d)[32][4], unsigned long long da, unsigned long long db) {
    asm volatile(
        "{\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, 1, 1, 1, 0, %130;\n"
        "}\n"
        : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]), "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]), "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]), "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]), "+f"(d[7][2]), "+f"(d[7][3]), "+f"(d[8][0]), "+f"(d[8][1]), "+f"(d[8][2]), "+f"(d[8][3]), "+f"(d[9][0]), "+f"(d[9][1]), "+f"(d[9][2]), "+f"(d[9][3]), "+f"(d[10][0]), "+f"(d[10][1]), "+f"(d[10][2]), "+f"(d[10][3]), "+f"(d[11][0]), "+f"(d[11][1]), "+f"(d[11][2]), "+f"(d[11][3]), "+f"(d[12][0]), "+f"(d[12][1]), "+f"(d[12][2]), "+f"(d[12][3]), "+f"(d[13][0]), "+f"(d[13][1]), "+f"(d[13][2]), "+f"(d[13][3]), "+f"(d[14][0]), "+f"(d[14][1]), "+f"(d[14][2]), "+f"(d[14][3]), "+f"(d[15][0]), "+f"(d[15][1]), "+f"(d[15][2]), "+f"(d[15][3]), "+f"(d[16][0]), "+f"(d[16][1]), "+f"(d[16][2]), "+f"(d[16][3]), "+f"(d[17][0]), "+f"(d[17][1]), "+f"(d[17][2]), "+f"(d[17][3]), "+f"(d[18][0]), "+f"(d[18][1]), "+f"(d[18][2]), "+f"(d[18][3]), "+f"(d[19][0]), "+f"(d[19][1]), "+f"(d[19][2]), "+f"(d[19][3]), "+f"(d[20][0]), "+f"(d[20][1]), "+f"(d[20][2]), "+f"(d[20][3]), "+f"(d[21][0]), "+f"(d[21][1]), "+f"(d[21][2]), "+f"(d[21][3]), "+f"(d[22][0]), "+f"(d[22][1]), "+f"(d[22][2]), "+f"(d[22][3]), "+f"(d[23][0]), "+f"(d[23][1]), "+f"(d[23][2]), "+f"(d[23][3]), "+f"(d[24][0]), "+f"(d[24][1]), "+f"(d[24][2]), "+f"(d[24][3]), "+f"(d[25][0]), "+f"(d[25][1]), "+f"(d[25][2]), "+f"(d[25][3]), "+f"(d[26][0]), "+f"(d[26][1]), "+f"(d[26][2]), "+f"(d[26][3]), "+f"(d[27][0]), "+f"(d[27][1]), "+f"(d[27][2]), "+f"(d[27][3]), "+f"(d[28][0]), "+f"(d[28][1]), "+f"(d[28][2]), "+f"(d[28][3]), "+f"(d[29][0]), "+f"(d[29][1]), "+f"(d[29][2]), "+f"(d[29][3]), "+f"(d[30][0]), "+f"(d[30][1]), "+f"(d[30][2]), "+f"(d[30][3]), "+f"(d[31][0]), "+f"(d[31][1]), "+f"(d[31][2]), "+f"(d[31][3])
        : "l"(da), "l"(db), "n"(TRANS_B));
  }
};

#endif  // EPL_HAS_WGMMA

}  // namespace epl
