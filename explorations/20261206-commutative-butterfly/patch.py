"""Patch a tree copy: the butterfly of epl/warp/reduce_state.cuh selects (lower, upper) operands only
for merges that do not commute bit for bit; a merge that declares `static constexpr bool
kCommutative = true` (epl::Sum, Max, Min of thread/ops.cuh, whose header already promises
op(a, b) == op(b, a) bit for bit, and row/ops.cuh's MergeSumPair, two such sums) takes
merge(s, other) in every lane, as before commit d63183f. With 'bound' also: the two-reduction
kernels' vector entry bounded to 64 registers (1024 threads an SM).
Usage: python3 patch.py TREE [bound]"""
import pathlib
import sys

tree = pathlib.Path(sys.argv[1]) / "kernels/include/epl"


def replace(path: str, pairs: list[tuple[str, str]]) -> None:
    p = tree / path
    s = p.read_text()
    for old, new in pairs:
        assert s.count(old) == 1, (path, old)
        s = s.replace(old, new)
    p.write_text(s)


replace("warp/reduce_state.cuh", [
    ("""// Merges the states of each group of WIDTH consecutive lanes""",
     """// Whether Merge declares that merge(a, b) and merge(b, a) have the same bits
// (`static constexpr bool kCommutative = true`); a merge that says nothing does not.
template <typename Merge>
__device__ constexpr auto merge_commutes(int) -> decltype(Merge::kCommutative, bool()) {
  return Merge::kCommutative;
}
template <typename Merge>
__device__ constexpr bool merge_commutes(...) {
  return false;
}

// Merges the states of each group of WIDTH consecutive lanes"""),
    ("""    const State other = shfl_xor_state(s, mask, WIDTH);
    const bool upper = (lane & mask) != 0;  // operands chosen by select, so the merge is one straight-line copy
    const State lower_state = upper ? other : s;
    const State upper_state = upper ? s : other;
    s = merge(lower_state, upper_state);  // lower lane's state first, in both lanes
""", """    const State other = shfl_xor_state(s, mask, WIDTH);
    if constexpr (merge_commutes<Merge>(0)) {
      s = merge(s, other);  // the same bits in both lanes, in either order
    } else {
      const bool upper = (lane & mask) != 0;  // operands chosen by select: one straight-line merge
      const State lower_state = upper ? other : s;
      const State upper_state = upper ? s : other;
      s = merge(lower_state, upper_state);  // lower lane's state first, in both lanes
    }
"""),
])
for name in ("Sum", "Max", "Min"):
    replace("thread/ops.cuh", [(f"struct {name} {{\n", f"struct {name} {{\n  static constexpr bool kCommutative = true;  // bit for bit: see the contract above\n")])
replace("row/ops.cuh", [("struct MergeSumPair {\n", "struct MergeSumPair {\n  static constexpr bool kCommutative = true;  // two IEEE sums\n")])

if "bound" in sys.argv[2:]:
    # The two-reduction kernels' vector entry asks for 1024 threads an SM (64 registers), their
    # element entry for 512 as before: at 1024 the vector entry spills nowhere and every 32-item
    # point of log-softmax drops from 76-79 registers to 64; the element entry would spill.
    replace("row/group.cuh", [(
        "__host__ __device__ constexpr int row_min_blocks(int block) { return block >= 512 ? 1 : 512 / block; }",
        "__host__ __device__ constexpr int row_min_blocks(int block, int sm_threads = 512) {\n"
        "  return block >= sm_threads ? 1 : sm_threads / block;\n}")])
    for op in ("softmax", "log-softmax"):
        k = tree.parent.parent / f"operators/{op}/two-reduction-registers.cu"
        s = k.read_text()
        old = "epl::row_min_blocks(epl::row_block_threads(G, MIN_BLOCK)))"
        assert s.count(old) == 1, k
        k.write_text(s.replace(old, "epl::row_min_blocks(epl::row_block_threads(G, MIN_BLOCK), PATH == epl::kVectorPath ? 1024 : 512))"))
