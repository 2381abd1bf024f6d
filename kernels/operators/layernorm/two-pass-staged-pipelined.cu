// Record:       layernorm/two-pass-staged-pipelined (catalog/realizations/layernorm/two-pass-staged-pipelined.yaml)
// Contract:     row-layernorm — y[r, j] = (x[r, j] - mean[r]) * rsqrt(var[r] + eps) * weight[j] + bias[j]
//               in T, population variance.
// Phases:       a persistent grid of min(rows, G) clusters of CLUSTER blocks (a block each for
//               CLUSTER 1), all resident at once; cluster g takes rows g, g + G, ... and block rank k
//               owns slice k of each (ceil_div(cols, CLUSTER) rounded up to 16-byte vectors):
//               0. the weight slice (HELD 1) or the weight and bias slices (HELD 2) loaded once
//                  into registers, ITEMS elements each a thread; the first STAGES rows' slices issued
//                  as bulk copies (cp.async.bulk) into STAGES shared buffers, then (HELD 1) the bias
//                  slice into one more, once;
//               1. the row's buffer waited for; every thread sums every BLOCK-th 16-byte vector of
//                  it; the sums all-reduced over the block, then the cluster: the row's mean;
//               2. the same vectors reread from shared memory for the sum of (x - mean)^2,
//                  all-reduced the same way: the row's variance;
//               3. the same threads reread their vectors and store (x - mean) * rstd * weight + bias,
//                  16 bytes per store; then, once every thread is past the buffer, the row two
//                  ahead is issued into it.
// Traffic:      reads and writes sizeof(T) bytes per element of global memory once; the weight and
//               bias once per cluster.
// Shared mem:   (STAGES + 2 - HELD) * row_staged_bytes<T>(cols, CLUSTER) dynamic, plus 16 * BLOCK / 32 + 40 bytes
//               static (and 32 * CLUSTER + 16 more with CLUSTER > 1).
// Determinism:  bitwise (fixed fold and merge order for fixed CLUSTER, BLOCK, UNROLL and path).
// Constraints:  sm_90 or later; CLUSTER a power of two <= 16 (16: a non-portable size, which the
//               runner opts into); BLOCK a power of two in [32, 1024]; cols >= 1, the slice at most
//               BLOCK * ITEMS elements, STAGES + 2 - HELD slices at most 225 KiB; HELD 1 or 2; gridDim.x == min(rows, G) * CLUSTER with G no
//               more than the device holds at once; x and y do not overlap.
#include <epl/body/staged_pipelined.cuh>
#include <epl/group/lanes.cuh>
#include <epl/group/share.cuh>
#include <epl/policy/streamed.cuh>

template <int CLUSTER, int BLOCK, int STAGES, int UNROLL, int ITEMS, int HELD, typename T, epl::RowPath PATH>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(BLOCK, epl::row_min_blocks(BLOCK))
layernorm_two_pass_staged_pipelined(const T* __restrict__ x,       // rows x cols, row-major
                                    const T* __restrict__ weight,  // cols
                                    const T* __restrict__ bias,    // cols
                                    T* __restrict__ y,             // rows x cols
                                    int rows, int cols, float eps) {
  using Launch = epl::StagedPipeline<CLUSTER, BLOCK, STAGES, UNROLL, ITEMS, HELD, PATH>;
  epl::rows_staged_pipelined<Launch>(epl::LayerNormTwoPassStreamed{{eps}}, x, weight, bias, y, rows, cols);
}
