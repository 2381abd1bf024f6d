// epl/mma/tma_wgmma_loop.cuh — the k loop of a BM x BN output tile on Hopper: TMA boxes of A and B
// on one mbarrier a stage, consumed by BM / 64 warpgroups of wgmma (sm_90a).
//
// A block of 2 BM threads (BM / 64 warpgroups of 64 x BN; BM 128, or 64 for few rows, whose
// smaller stages let a deeper ring fit) accumulates the k tiles [first, first + count)
// of its tile into each warpgroup's registers (epl::WarpTile<16, BN>, mma.sync's m16n8 layout).
// Thread 0 is the only producer: it announces (BM + BN) x 128 bytes a stage on the stage's
// mbarrier and issues the 128-byte-swizzled boxes (a_tiles [m, k] box BM x 64; B of layout nt,
// b_tiles [n, k], one box BN x 64, K-major; of layout nn, b_tiles [k, n], BN / 64 boxes of 64 k x
// 64 n side by side, N-major, read with wgmma_desc_sw128_mn and imm-trans-b; zeros past the
// matrix, so ragged m, n and k add nothing). STAGES - 2 k tiles are in
// flight ahead of the one consumed; one block barrier a k tile frees the slot of tile i - 2 (every
// warpgroup passed wgmma.wait_group 1 at tile i - 1). The whole k range is one call (first 0, count
// ceil_div(k, 64): gemm/tma-wgmma) or a slice of it (gemm/split-k). A count of 0 leaves the
// accumulators at zero. Shared memory: kSharedBytes (tiles, 1024-byte aligned, then the barriers).
#pragma once

#include "../block/mbarrier.cuh"
#include "../block/tensor_copy.cuh"
#include "../tile/stage.cuh"  // GemmLayout
#include "../tile/swizzle.cuh"
#include "warp_tile.cuh"
#include "wgmma.cuh"

namespace epl {

#if EPL_HAS_WGMMA

template <int BN, int STAGES, GemmLayout L = GemmLayout::nt, int BM = 128>
struct TmaWgmmaLoop {
  static_assert(BM == 64 || BM == 128, "one or two warpgroups of 64 rows");
  static constexpr int kBM = BM, kThreads = 2 * BM, kLead = STAGES - 2;
  static_assert(STAGES >= 3, "one slot for the running wgmma group, one landing, one in flight");
  static constexpr int kElemsA = kBM * kSwizzleRowElems;
  static constexpr int kStage = (kBM + BN) * kSwizzleRowElems;
  static constexpr unsigned kStageBytes = kStage * 2;
  static constexpr unsigned kSharedBytes = STAGES * kStageBytes + 8 * STAGES;

  // Every thread of the block, converged: w (zeroed here) += A [m0 .., k tiles first ..] ·
  // B [n0 .., same k]ᵀ over `count` k tiles of 64, this warpgroup's 64 rows of the BM. Returns
  // after wgmma.wait_group 0 (the accumulators are final); smem is the kernel's dynamic shared memory.
  __device__ __forceinline__ static void accumulate(WarpTile<16, BN>& w, unsigned char* smem,
                                                    const TensorMap& a_tiles, const TensorMap& b_tiles, int m0,
                                                    int n0, int first, int count) {
    __nv_bfloat16* s = reinterpret_cast<__nv_bfloat16*>(smem);
    unsigned long long* full = reinterpret_cast<unsigned long long*>(smem + STAGES * kStageBytes);
    const bool producer = threadIdx.x == 0;
    const int group = static_cast<int>(threadIdx.x) >> 7;

    if (producer) {
      tma_prefetch_map(a_tiles);
      tma_prefetch_map(b_tiles);
      for (int i = 0; i < STAGES; ++i) mbarrier_init(shared_address(full + i), 1);
      mbarrier_init_fence();
    }
    __syncthreads();  // the barriers are initialized before anyone waits on them

    auto issue = [&](int tile) {  // tile: index within the slice
      if (producer && tile < count) {
        const int slot = tile % STAGES;
        const unsigned bar = shared_address(full + slot);
        const int k0 = (first + tile) * kSwizzleRowElems;
        mbarrier_arrive_expect_bytes(bar, kStageBytes);
        tma_load_2d(s + slot * kStage, a_tiles, k0, m0, bar);
        if constexpr (L == GemmLayout::nt) {
          tma_load_2d(s + slot * kStage + kElemsA, b_tiles, k0, n0, bar);
        } else {
#pragma unroll
          for (int j = 0; j < BN / kSwizzleRowElems; ++j)
            tma_load_2d(s + slot * kStage + kElemsA + j * (kMnSubBytes / 2), b_tiles, n0 + j * kSwizzleRowElems, k0, bar);
        }
      }
    };
    for (int i = 0; i < kLead; ++i) issue(i);

    w.zero();
    for (int i = 0; i < count; ++i) {
      const int slot = i % STAGES;
      mbarrier_wait_parity(shared_address(full + slot), static_cast<unsigned>((i / STAGES) & 1));
      __syncthreads();  // every warpgroup is past wait_group 1 of tile i - 1: slot of i - 2 is free
      issue(i + kLead);
      const __nv_bfloat16* sa = s + slot * kStage + group * 64 * kSwizzleRowElems;
      const __nv_bfloat16* sb = s + slot * kStage + kElemsA;
      const unsigned long long da = wgmma_desc_sw128(sa);
      wgmma_fence();
      if constexpr (L == GemmLayout::nt) {
        const unsigned long long db = wgmma_desc_sw128(sb);
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) Wgmma<BN>::mma(w.acc[0], da + 2 * kk, db + 2 * kk);  // + 32 B a k16 step
      } else {
        const unsigned long long db = wgmma_desc_sw128_mn(sb);
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) Wgmma<BN>::template mma<1>(w.acc[0], da + 2 * kk, db + 128 * kk);  // + 2048 B
      }
      wgmma_commit();
      wgmma_wait<1>();
    }
    wgmma_wait<0>();
  }
};

#endif  // EPL_HAS_WGMMA

}  // namespace epl
