// Record:       transpose/naive (catalog/realizations/transpose/naive.yaml)
// Contract:     layout-transpose — y[b, j, i] = x[b, i, j], x [batch, rows, cols] row-major, exact.
// Phases:       a block (32, BY) per TILE x TILE tile copies it element by element, x to y.
// Traffic:      loads along x's rows (coalesced); stores along y's columns: each warp store writes
//               32 elements 4 * rows bytes apart, one 32-byte sector each (uncoalesced).
// Shared mem:   none. Determinism: bitwise (a copy).
// Constraints:  TILE a multiple of 32 and of BY; gridDim = (ceil(cols/TILE), ceil(rows/TILE), batch).
#include <cuda_bf16.h>
#include <epl/tile/transpose.cuh>

template <int TILE, int BY, typename T>
__global__ void __launch_bounds__(32 * BY)
transpose_naive(const T* __restrict__ x, T* __restrict__ y, int /*batch*/, int rows, int cols) {
  const size_t plane = static_cast<size_t>(rows) * cols * blockIdx.z;
  const int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
  if (r0 + TILE <= rows && c0 + TILE <= cols) {
    epl::transpose_tile_direct<TILE, BY, false>(x + plane, y + plane, rows, cols, r0, c0);
  } else {
    epl::transpose_tile_direct<TILE, BY, true>(x + plane, y + plane, rows, cols, r0, c0);
  }
}
