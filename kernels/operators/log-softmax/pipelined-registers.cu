// Record:       log-softmax/pipelined-registers (catalog/realizations/log-softmax/pipelined-registers.yaml)
// Contract:     row-log-softmax — y = x - logsumexp(x) along each row.
// Phases:       a persistent grid of min(ceil_div(rows, ROWS_PER_BLOCK), sms * PER_SM) blocks; each group
//               of G threads takes rows g, g + G_total, ... and keeps its next row's loads in flight
//               (packed, in a second set of registers) while it computes the current row:
//                 1. widen the row, the operator's statistics by all-reduces over the group;
//                 2. rewrite every element from registers and store it (16-byte vectors).
//               The Policy is LogSoftmaxRow (the (m, l) merge) or LogSoftmaxRowTwoReductions (max then sum).
// Traffic:      one read and one write of every element (plus the parameter arrays, from L2).
// Determinism:  bitwise (fixed order per row; no atomics).
// Constraints:  cols <= G * ITEMS (launch.domain); blockDim.x == max(G, 256).
#include <epl/body/resident_pipelined.cuh>
#include <epl/group/lanes.cuh>
#include <epl/policy/ops.cuh>
#include <epl/policy/two_reductions.cuh>

template <int G, int ITEMS, typename T, typename Policy>
__global__ void __launch_bounds__(epl::row_block_threads(G), epl::row_min_blocks(epl::row_block_threads(G)))
log_softmax_pipelined_registers(const T* __restrict__ x,  // rows x cols, row-major
                                T* __restrict__ y,        // rows x cols
                                int rows, int cols) {
  using Group = epl::RowLanes<epl::row_block_threads(G), G>;
  epl::rows_in_registers_pipelined<Group, ITEMS, T>(Policy{}, x, nullptr, nullptr, y, rows, cols);
}
