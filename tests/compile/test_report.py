"""Builds render as a fixed-width table and as JSON-able dicts."""

import json

from compile_fixtures import KERNEL_REL, make_realization
from epldb.compile import builds_as_dicts, compile_realization, format_table


def test_table_and_json(repo, toolchain):
    r = make_realization(params={"block": [128, 256], "dtype": ["float32"], "op": ["sum"]})
    good = compile_realization(repo, r, "sm_90a")
    (repo / "kernels" / KERNEL_REL).write_text("this is not C++\n")
    bad = compile_realization(repo, r, "sm_80")
    text = format_table([good, bad])
    lines = text.splitlines()
    assert lines[0].split()[:5] == ["realization", "target", "entry", "point", "regs"]
    assert "SHFL" in lines[0] and "LDG" in lines[0]
    assert len({len(line) for line in lines[2:4]}) == 1  # fixed width
    assert "block=128 dtype=float32 op=sum" in text and "FAILED" in lines[4]
    assert lines[-1].startswith("2 builds, 0 from cache")
    dicts = builds_as_dicts([good, bad])
    json.dumps(dicts)
    assert dicts[0]["ok"] and dicts[0]["cubin_bytes"] == len(good.cubin)
    assert dicts[0]["entries"][0]["sass"] == good.entries[0].sass
    assert not dicts[1]["ok"] and dicts[1]["problems"][0]["line"] == 1
