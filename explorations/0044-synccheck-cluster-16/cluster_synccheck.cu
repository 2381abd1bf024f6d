// explorations/0044-synccheck-cluster-16/cluster_synccheck.cu — experiment 0044 (catalog/experiments/0044-synccheck-cluster-16.yaml):
// does compute-sanitizer's synccheck fail kernels at the non-portable cluster size 16 that pass at 8,
// and which cluster mechanism does it take? Three kernels, one row per cluster, each on the shared
// blocks the staged row kernels use:
//   barrier  — barrier.cluster arrive/wait only (no distributed shared memory);
//   exchange — RowCluster::all_reduce (st.async into every peer's slots, counted on its mbarrier);
//   staged   — the row's slices staged by cp.async.bulk (bulk_copy_to_shared, an mbarrier), then
//              summed and exchanged as in `exchange`: the staged bodies' structure.
// Each prints PASS or FAIL (first wrong row, or the CUDA error) per (kernel, cluster).
//   nvcc -std=c++17 -arch=sm_90a -I kernels/include -o /tmp/probe explorations/0044-synccheck-cluster-16/cluster_synccheck.cu
//   /tmp/probe; compute-sanitizer --tool synccheck /tmp/probe
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <epl/block/bulk_copy.cuh>
#include <epl/cluster/row_cluster.cuh>

constexpr int kBlock = 256;

struct Add {
  __device__ float operator()(float a, float b) const { return a + b; }
};

template <int C>
__global__ void __cluster_dims__(C, 1, 1) __launch_bounds__(kBlock) barrier_only(float* out) {
  asm volatile("barrier.cluster.arrive.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  if (threadIdx.x == 0) out[blockIdx.x] = static_cast<float>(blockIdx.x % C);
}

// The row's sum over the block's slice of x (rows x cols), all-reduced over the cluster.
template <int C>
__global__ void __cluster_dims__(C, 1, 1) __launch_bounds__(kBlock) exchange(const float* x, float* out, int cols) {
#if defined(EPL_HAS_CLUSTERS)  // the device pass (the host pass sees the kernel's signature only)
  using Group = epl::RowCluster<C, kBlock>;
  __shared__ typename Group::TempStorage temp;
  Group g(temp);
  const epl::RowSegment seg = g.template segment<float>(cols);
  const float* row = x + static_cast<size_t>(g.row()) * cols + seg.begin;
  float s = 0.f;
  for (int i = threadIdx.x; i < seg.n; i += kBlock) s += row[i];
  s = g.all_reduce(s, Add{});
  if (g.leader()) out[g.row()] = s;
  // No closing cluster barrier, as in the row kernels: every store into this block has landed
  // (its barrier counted them) before it reads the states, so it may exit.
#endif
}

template <int C>
__global__ void __cluster_dims__(C, 1, 1) __launch_bounds__(kBlock) staged(const float* x, float* out, int cols) {
#if defined(EPL_HAS_CLUSTERS)
  using Group = epl::RowCluster<C, kBlock>;
  extern __shared__ __align__(128) float slice[];
  __shared__ typename Group::TempStorage temp;
  __shared__ unsigned long long staged_bar;
  Group g(temp);
  const epl::RowSegment seg = g.template segment<float>(cols);
  if (threadIdx.x == 0) {
    epl::mbarrier_init(epl::shared_address(&staged_bar), 1);
    epl::mbarrier_init_fence();
  }
  __syncthreads();
  if (threadIdx.x < 32 && seg.n > 0)
    epl::bulk_copy_to_shared(slice, x + static_cast<size_t>(g.row()) * cols + seg.begin, seg.n * 4,
                             epl::shared_address(&staged_bar));
  if (seg.n > 0) epl::mbarrier_wait_parity(epl::shared_address(&staged_bar), 0);
  float s = 0.f;
  for (int i = threadIdx.x; i < seg.n; i += kBlock) s += slice[i];
  s = g.all_reduce(s, Add{});
  if (g.leader()) out[g.row()] = s;
#endif
}

static bool check(const char* what, int c, cudaError_t e, const std::vector<float>& got, const std::vector<double>& want) {
  if (e != cudaSuccess) {
    std::printf("%-8s cluster %2d: FAIL %s\n", what, c, cudaGetErrorString(e));
    return false;
  }
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::abs(got[i] - want[i]) > 1e-3 * (1 + std::abs(want[i]))) {
      std::printf("%-8s cluster %2d: FAIL row %zu: %g, want %g\n", what, c, i, got[i], want[i]);
      return false;
    }
  }
  std::printf("%-8s cluster %2d: PASS\n", what, c);
  return true;
}

template <int C>
static int probe(int rows, int cols, const float* dx, const std::vector<float>& hx) {
  float* dout;
  cudaMalloc(&dout, sizeof(float) * rows * C);
  int failed = 0;
  if (C > 8) {  // the non-portable size: each kernel opts in
    cudaFuncSetAttribute(barrier_only<C>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    cudaFuncSetAttribute(exchange<C>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    cudaFuncSetAttribute(staged<C>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  }
  std::vector<float> got(rows * C);
  std::vector<double> want(rows * C);
  for (int b = 0; b < rows * C; ++b) want[b] = b % C;
  barrier_only<C><<<rows * C, kBlock>>>(dout);
  cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(got.data(), dout, sizeof(float) * rows * C, cudaMemcpyDeviceToHost);
  failed += !check("barrier", C, e, got, want);
  if (e != cudaSuccess) return failed + 2;  // a sticky error: nothing after it can run
  want.assign(rows, 0.0);
  got.assign(rows, 0.f);
  for (int r = 0; r < rows; ++r)
    for (int i = 0; i < cols; ++i) want[r] += hx[static_cast<size_t>(r) * cols + i];
  exchange<C><<<rows * C, kBlock>>>(dx, dout, cols);
  e = cudaDeviceSynchronize();
  cudaMemcpy(got.data(), dout, sizeof(float) * rows, cudaMemcpyDeviceToHost);
  failed += !check("exchange", C, e, got, want);
  if (e != cudaSuccess) return failed + 1;
  const int slice_bytes = (cols + C - 1) / C * 4 + 16;
  cudaFuncSetAttribute(staged<C>, cudaFuncAttributeMaxDynamicSharedMemorySize, slice_bytes);
  staged<C><<<rows * C, kBlock, slice_bytes>>>(dx, dout, cols);
  e = cudaDeviceSynchronize();
  cudaMemcpy(got.data(), dout, sizeof(float) * rows, cudaMemcpyDeviceToHost);
  failed += !check("staged", C, e, got, want);
  cudaFree(dout);
  return failed;
}

int main(int argc, char** argv) {
  // The failing point of the staged row kernels: 33 rows of 32768 fp32 columns (a multiple of 16 C).
  const int rows = 33, cols = argc > 1 ? std::atoi(argv[1]) : 32768;
  const int which = argc > 2 ? std::atoi(argv[2]) : 0;  // 0: both sizes; 8 or 16: that one alone
  std::vector<float> hx(static_cast<size_t>(rows) * cols);
  unsigned s = 12345;
  for (auto& v : hx) v = ((s = s * 1664525u + 1013904223u) >> 8) * (1.0f / (1u << 24)) + 0.5f;
  float* dx;
  cudaMalloc(&dx, sizeof(float) * hx.size());
  cudaMemcpy(dx, hx.data(), sizeof(float) * hx.size(), cudaMemcpyHostToDevice);
  int failed = 0;
  if (which != 16) failed += probe<8>(rows, cols, dx, hx);
  if (which != 8) failed += probe<16>(rows, cols, dx, hx);
  std::printf("%s\n", failed ? "FAILED" : "ALL PASS");
  return failed ? 1 : 0;
}
