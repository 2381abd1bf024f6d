// epl/block/tensor_copy.cuh — boxes of a tensor copied between global and shared memory by the copy
// engine (TMA, cp.async.bulk.tensor, sm_90), through a tensor map the host encodes
// (cuTensorMapEncodeTiled; a record declares it under launch.tensor_maps, epldb/launch/tensor_map.py)
// and the kernel receives by value: `const __grid_constant__ epl::TensorMap map`.
//
// Loads land on an mbarrier the caller owns (block/mbarrier.cuh: arrive_expect_bytes with the box's
// bytes, then wait on the phase's parity); stores read shared memory through the async proxy, so the
// threads that wrote the box fence first (fence_proxy_async_shared, block/bulk_copy.cuh) and the issuing
// thread waits for the reads (tma_store_wait) before the buffer is reused. Coordinates are element
// indices, innermost first as the PTX takes them (x = column); a box that reaches past the dims reads
// the map's fill (zeros) and stores only the part inside, so edge tiles need no special path.
//
// Records: catalog/realizations/transpose/tma-tiles.yaml (primitive tma-bulk-copy).
#pragma once

#include "../target.cuh"
#include "mbarrier.cuh"

namespace epl {

// The 128 bytes of a CUtensorMap, aligned as the driver requires; only its address is used on the
// device (the parameter space of a __grid_constant__ argument).
struct alignas(64) TensorMap {
  unsigned long long opaque[16];
};

#if defined(EPL_HAS_BULK_COPY)

__device__ __forceinline__ unsigned long long tensor_map_address(const TensorMap& map) {
  return reinterpret_cast<unsigned long long>(&map);
}

// One thread, early: fetch the descriptor into the TMA unit's cache.
__device__ __forceinline__ void tma_prefetch_map(const TensorMap& map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(tensor_map_address(map)) : "memory");
}

// One thread: the box at (x, y) into dst (shared, 128-byte aligned; 1024-byte with the 128B
// swizzle), its bytes counted on `bar` (the caller announces them with mbarrier_arrive_expect_bytes).
__device__ __forceinline__ void tma_load_2d(void* dst, const TensorMap& map, int x, int y, unsigned bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               ::"r"(shared_address(dst)), "l"(tensor_map_address(map)), "r"(x), "r"(y), "r"(bar) : "memory");
}

__device__ __forceinline__ void tma_load_3d(void* dst, const TensorMap& map, int x, int y, int z, unsigned bar) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
               ::"r"(shared_address(dst)), "l"(tensor_map_address(map)), "r"(x), "r"(y), "r"(z), "r"(bar) : "memory");
}

// One thread: the box at (x, y) from src (shared), after the writers' fence_proxy_async_shared and a
// barrier; commits it as one bulk group.
__device__ __forceinline__ void tma_store_2d(const TensorMap& map, int x, int y, const void* src) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
               ::"l"(tensor_map_address(map)), "r"(x), "r"(y), "r"(shared_address(src)) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

__device__ __forceinline__ void tma_store_3d(const TensorMap& map, int x, int y, int z, const void* src) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];"
               ::"l"(tensor_map_address(map)), "r"(x), "r"(y), "r"(z), "r"(shared_address(src)) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// The thread that issued stores: returns once at most `Pending` of its bulk groups still read shared
// memory (0: every source buffer may be rewritten).
template <int Pending = 0>
__device__ __forceinline__ void tma_store_wait() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending) : "memory");
}

#endif  // EPL_HAS_BULK_COPY

}  // namespace epl
