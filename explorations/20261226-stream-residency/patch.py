"""Patch a tree copy (not evidence): the one-pass stream records (cross-entropy/online-stream,
logsumexp/online-stream) declare group 512 too, and, with `bounded`, their kernels ask ptxas for
2048 threads an SM (__launch_bounds__' second argument: at most 32 registers a thread).

Usage: python3 patch.py TREE [bounded]"""
import pathlib
import sys

tree = pathlib.Path(sys.argv[1])
bounded = sys.argv[2:] == ["bounded"]
for op in ("cross-entropy", "logsumexp"):
    rec = tree / f"catalog/realizations/{op}/online-stream.yaml"
    s = rec.read_text()
    assert s.count("group: [4, 8, 32, 256, 1024]") == 1
    rec.write_text(s.replace("group: [4, 8, 32, 256, 1024]", "group: [4, 8, 32, 256, 512, 1024]"))
    if bounded:
        cu = tree / f"kernels/operators/{op}/online-stream.cu"
        s = cu.read_text()
        old = "__launch_bounds__(epl::row_block_threads(G))"
        assert s.count(old) == 1
        cu.write_text(s.replace(old, "__launch_bounds__(epl::row_block_threads(G), 2048 / epl::row_block_threads(G))"))
print(f"patched {tree}{' (bounded)' if bounded else ''}")
