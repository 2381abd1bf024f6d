// Record:       layernorm/welford-reread-fixed-cols
//               (catalog/realizations/layernorm/welford-reread-fixed-cols.yaml)
// Contract:     row-layernorm — y[r, j] = (x[r, j] - mean[r]) * rsqrt(var[r] + eps) * weight[j] + bias[j]
//               in T, population variance.
// Phases:       layernorm/welford-reread's, with the column count a compile-time constant COLS: G
//               threads per row, each with exactly COLS / (G * 16 / sizeof(T)) vectors, all loaded in
//               one round on each pass (the Welford fold of that round an in-register two-pass; no
//               loop, no ragged round, no bound test left after constant folding).
// Traffic:      reads sizeof(T) bytes per element twice (the second from L1 or L2), writes them once;
//               weight and bias once per row from L1/L2.
// Shared mem:   G > 32: 16 * BLOCK / 32 bytes static; none otherwise.
// Determinism:  bitwise (fixed fold and merge order for fixed COLS and G; no atomics).
// Constraints:  cols == COLS (the record's domain; the cols argument is not read);
//               gridDim.x == ceil_div(rows, BLOCK / G); x and y do not overlap.
#include <epl/body/reread.cuh>
#include <epl/group/lanes.cuh>
#include <epl/group/share.cuh>
#include <epl/policy/streamed.cuh>

template <int COLS, int G, int SM_THREADS, typename T, epl::RowPath PATH>
__global__ void __launch_bounds__(epl::row_block_threads(G), epl::row_reread_min_blocks(SM_THREADS, epl::row_block_threads(G)))
layernorm_welford_reread_fixed_cols(const T* __restrict__ x,       // rows x COLS, row-major
                                    const T* __restrict__ weight,  // COLS
                                    const T* __restrict__ bias,    // COLS
                                    T* __restrict__ y,             // rows x COLS
                                    int rows, int /*cols == COLS*/, float eps) {
  using Group = epl::RowLanes<epl::row_block_threads(G), G>;
  constexpr int UNROLL = epl::row_vectors_per_lane<T>(COLS, G);
  epl::rows_reread<Group, UNROLL, PATH, COLS>(epl::LayerNormWelford{{eps}}, x, weight, bias, y, rows, COLS);
}
