// tile-sum/naive — a fixture for the loader's tests, not a real realization.
#include "/usr/include/stdio.h"
#include "../../include/../../../outside.cuh"
#include "../../include/epl/util.cuh"
template <int BLOCK, typename T>
__global__ void tile_sum_naive(const T* x, float* partials, int n) {
  if (threadIdx.x != 0) return;
  float acc = 0.f;
  for (int i = blockIdx.x * BLOCK; i < n && i < (blockIdx.x + 1) * BLOCK; ++i) acc += float(x[i]);
  partials[blockIdx.x] = acc;
}
