// total/two-stage — a fixture for the loader's tests, not a real realization: an operator realization
// composed from tile-sum/naive (stage 1) and a serial sum of the partials (stage 2).
template <int BLOCK, typename T>
__global__ void total_two_stage_tiles(const T* x, float* partials, int n) {
  if (threadIdx.x != 0) return;
  float acc = 0.f;
  for (int i = blockIdx.x * BLOCK; i < n && i < (blockIdx.x + 1) * BLOCK; ++i) acc += float(x[i]);
  partials[blockIdx.x] = acc;
}

template <int BLOCK>
__global__ void total_two_stage_partials(const float* partials, float* y, int count) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  float acc = 0.f;
  for (int i = 0; i < count; ++i) acc += partials[i];
  *y = acc;
}
