"""Replace RowCluster in a tree copy's epl/row/group.cuh with row_cluster.part.

Arguments: the copy's root, then 'lazy' (the start barrier waited before the first store, behind
the loads; its wait is a CCTL.IVALL, an L1 invalidation, between a reread kernel's two passes) or
'early' (waited at construction, when L1 holds nothing yet, at the cost of a barrier round trip
before the first load)."""
import pathlib
import sys

here = pathlib.Path(__file__).parent
root, when = pathlib.Path(sys.argv[1]), sys.argv[2]
part = (here / "row_cluster.part").read_text()
if when == "early":
    arrive = '    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");\n  }\n'
    assert arrive in part
    part = part.replace(arrive, arrive[:-4] + '    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");\n    joined_ = true;\n  }\n', 1)
else:
    assert when == "lazy", when
p = root / "kernels/include/epl/row/group.cuh"
s = p.read_text()
include = '#include "../util.cuh"\n'
assert include in s
s = s.replace(include, include + '#include "../block/stage_bulk.cuh"  // shared_address\n', 1)
begin = s.index("// One row per cluster of CLUSTER blocks of BLOCK threads.")
end = s.index("#endif  // _CG_HAS_CLUSTER_GROUP")
p.write_text(s[:begin] + part + "\n" + s[end:])
