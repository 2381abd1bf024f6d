"""Patch a tree copy (not evidence): the staged-pipelined norms over a grid of ordinary blocks, a row
split over SPLIT of them, their states exchanged through global memory (group_grid.cuh), beside
the committed cluster kernels.

- kernels/include/epl/row/group_grid.cuh: RowGridSplit (this folder's copy);
- staged_pipelined.cuh: the body takes its group as a type (rows_staged_pipelined_on) and builds it
  with the exchange; rows_staged_pipelined keeps its signature and calls it;
- two kernels and two draft records: rmsnorm/staged-pipelined-split and
  layernorm/two-pass-staged-pipelined-split, the committed records' points with `split` in place of
  `cluster`, the grid min(rows, resident_blocks // split) * split, and two scratch arrays (the
  counters zeroed per launch, the slots not).

Usage: python3 patch.py TREE"""
import pathlib
import re
import shutil
import sys

HERE = pathlib.Path(__file__).resolve().parent
tree = pathlib.Path(sys.argv[1])
row = tree / "kernels/include/epl/row"
shutil.copy(HERE / "group_grid.cuh", row / "group_grid.cuh")


def replace(path: pathlib.Path, old: str, new: str) -> None:
    s = path.read_text()
    assert s.count(old) == 1, (path, old[:60])
    path.write_text(s.replace(old, new))


body = row / "staged_pipelined.cuh"
replace(body, '#include "staged.cuh"\n', '#include "group_grid.cuh"\n#include "staged.cuh"\n')
replace(body, "namespace epl {\n", """namespace epl {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
template <int SPLIT, int BLOCK>
struct GridRows<RowGridSplit<SPLIT, BLOCK>> {
  __device__ __forceinline__ static int of_grid() { return static_cast<int>(gridDim.x) / SPLIT; }
};
// The blocks a row is split over, which size a row buffer.
template <typename Group>
struct RowSlices {
  static constexpr int value = 1;
};
template <int CLUSTER, int BLOCK>
struct RowSlices<RowCluster<CLUSTER, BLOCK>> {
  static constexpr int value = CLUSTER;
};
template <int SPLIT, int BLOCK>
struct RowSlices<RowGridSplit<SPLIT, BLOCK>> {
  static constexpr int value = SPLIT;
};
#endif
""")
replace(body, "row_staged_bytes<T>(cols, CLUSTER) / static_cast<int>(sizeof(T));",
        "row_staged_bytes<T>(cols, RowSlices<Group>::value) / static_cast<int>(sizeof(T));")
replace(body, """template <int CLUSTER, int BLOCK, int STAGES, int UNROLL, int ITEMS, int HELD, RowPath PATH, typename T, typename Stats>
__device__ __forceinline__ void rows_staged_pipelined(Stats stats, const T* __restrict__ x, const T* __restrict__ p0,
                                                      const T* __restrict__ p1, T* __restrict__ y, int rows, int cols) {
  using Group = typename RowStagers<CLUSTER, BLOCK>::Group;
""", """template <typename Group, int STAGES, int UNROLL, int ITEMS, int HELD, RowPath PATH, typename T, typename Stats>
__device__ __forceinline__ void rows_staged_pipelined_on(Stats stats, const T* __restrict__ x, const T* __restrict__ p0,
                                                         const T* __restrict__ p1, T* __restrict__ y, int rows, int cols,
                                                         RowExchange exchange) {
""")
replace(body, "  Group group(temp);\n  const int lane = group.lane();\n  const bool vector_path",
        "  Group group = RowGroupMaker<Group>::make(temp, exchange);\n  const int lane = group.lane();\n  const bool vector_path")
replace(body, """#endif  // __CUDA_ARCH__ >= 900

}  // namespace epl""", """template <int CLUSTER, int BLOCK, int STAGES, int UNROLL, int ITEMS, int HELD, RowPath PATH, typename T, typename Stats>
__device__ __forceinline__ void rows_staged_pipelined(Stats stats, const T* __restrict__ x, const T* __restrict__ p0,
                                                      const T* __restrict__ p1, T* __restrict__ y, int rows, int cols) {
  rows_staged_pipelined_on<typename RowStagers<CLUSTER, BLOCK>::Group, STAGES, UNROLL, ITEMS, HELD, PATH>(
      stats, x, p0, p1, y, rows, cols, RowExchange{nullptr, nullptr});
}

#endif  // __CUDA_ARCH__ >= 900

}  // namespace epl""")

KERNEL = """// Exploration 20261219-grid-split-rows (a tree copy): {title}
#include <epl/row/staged_pipelined.cuh>

template <int SPLIT, int BLOCK, int STAGES, int UNROLL, int ITEMS, int HELD, typename T, epl::RowPath PATH>
__global__ void __launch_bounds__(BLOCK, epl::staged_pipelined_min_blocks(BLOCK))
{name}(const T* __restrict__ x, const T* __restrict__ weight, {bias}T* __restrict__ y,
       unsigned* __restrict__ arrivals, unsigned* __restrict__ slots, int rows, int cols, float eps) {{
  epl::rows_staged_pipelined_on<epl::RowGridSplit<SPLIT, BLOCK>, STAGES, UNROLL, ITEMS, HELD, PATH>(
      epl::{stats}{{{{eps}}}}, x, weight, {bias_arg}, y, rows, cols, epl::RowExchange{{arrivals, slots}});
}}
"""
ops = tree / "kernels/operators"
(ops / "rmsnorm/staged-pipelined-split.cu").write_text(KERNEL.format(
    title="rmsnorm/staged-pipelined over split rows", name="rmsnorm_staged_pipelined_split", bias="",
    stats="RmsNormStreamed", bias_arg="static_cast<const T*>(nullptr)"))
(ops / "layernorm/two-pass-staged-pipelined-split.cu").write_text(KERNEL.format(
    title="layernorm/two-pass-staged-pipelined over split rows", name="layernorm_two_pass_staged_pipelined_split",
    bias="const T* __restrict__ bias, ", stats="LayerNormTwoPassStreamed", bias_arg="bias"))

records = tree / "catalog/realizations"
for op, base, kernel, held in (("rmsnorm", "staged-pipelined", "rmsnorm_staged_pipelined_split", "1"),
                               ("layernorm", "two-pass-staged-pipelined", "layernorm_two_pass_staged_pipelined_split",
                                "{held}")):
    s = (records / op / f"{base}.yaml").read_text()
    s = s.replace(f"id: {op}/{base}\n", f"id: {op}/{base}-split\n")
    s = re.sub(r'title: "([^"]*)"', r'title: "\1, a row split over ordinary blocks (exploration)"', s, count=1)
    s = s.replace(f"source: operators/{op}/{base}.cu", f"source: operators/{op}/{base}-split.cu")
    s = re.sub(r'expression: "\w+<\{cluster\}, \{block\}, \{stages\}, \{unroll\}, \{slice\} / \{block\}, (\{held\}, )?\{dtype\}, epl::(kVectorPath|kScalarPath)>"',
               lambda m: f'expression: "{kernel}<{{split}}, {{block}}, {{stages}}, {{unroll}}, {{slice}} / {{block}}, '
                         f'{held}, {{dtype}}, epl::{m.group(2)}>"', s)
    s = s.replace("  cluster: [2, 4, 8, 16]\n", "  split: [4, 8, 16]\n")
    s = s.replace("cluster * slice", "split * slice").replace("cluster * (230400", "split * (230400")
    s = s.replace("ceil_div(ceil_div(cols, cluster)", "ceil_div(ceil_div(cols, split)")
    s = s.replace('grid: "min(rows, resident_blocks // cluster) * cluster"', 'grid: "min(rows, resident_blocks // split) * split"')
    s = s.replace("  steps:\n", "  scratch:\n    arrivals: {dtype: uint32, count: rows, zero: true}\n"
                  "    slots: {dtype: uint32, count: \"rows * split * 8\"}\n  steps:\n", 1)
    s = re.sub(r"args: \[x, weight, (bias, )?y, rows, cols, eps\]", lambda m: f"args: [x, weight, {m.group(1) or ''}y, arrivals, slots, rows, cols, eps]", s)
    s = re.sub(r"when_it_wins: >-\n(  .*\n|\n)*", "", s)  # the committed record's runs are not this kernel's
    assert "cluster" not in s.split("launch:")[1].split("claims:")[0], op
    (records / op / f"{base}-split.yaml").write_text(s)
print("patched", tree)
