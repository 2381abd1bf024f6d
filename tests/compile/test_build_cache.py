"""Builds are cached by content: a second compile is a fast cache hit; a change is a miss."""

import json

from compile_fixtures import make_realization
from epldb.compile import compile_realization
from epldb.compile.cache import default_cache_dir


def test_second_compile_is_cached_and_fast(repo, toolchain):
    r = make_realization()
    cold = compile_realization(repo, r, "sm_90a")
    assert cold.ok and not cold.cached
    warm = compile_realization(repo, r, "sm_90a")
    assert warm.cached and warm.seconds < 0.5 and warm.seconds < cold.seconds
    assert warm.cubin == cold.cubin and warm.entries == cold.entries
    assert warm.source_hash == cold.source_hash and warm.nvrtc_version == toolchain.nvrtc_version
    assert list(default_cache_dir(repo).rglob("*.json"))  # <root>/.cache/epldb/builds by default
    assert not list(default_cache_dir(repo).rglob("*.tmp"))


def test_entries_cover_every_point_with_mangled_names(repo, toolchain):
    r = make_realization()
    b = compile_realization(repo, r, "sm_80")
    assert [(e.entry, e.point) for e in b.entries] == [("reduce", p) for p in r.points()]
    e = b.find("reduce", {"block": 256, "dtype": "bfloat16", "op": "sum"})
    assert e is not None and e.expression == "tiny_shuffle<256, __nv_bfloat16, epl::Sum>"
    assert e.lowered_name.startswith("_Z") and b.lowered_names()[e.expression] == e.lowered_name
    assert e.registers > 0 and e.static_shared_bytes == 32 and e.barriers == 1  # 8 warps × 4 B
    assert b.find("reduce", {"block": 128, "dtype": "float32", "op": "sum"}).static_shared_bytes == 16


def test_header_change_target_and_points_are_part_of_the_key(repo, toolchain, tmp_path):
    r = make_realization()
    cache = tmp_path / "cache"
    assert not compile_realization(repo, r, "sm_90", cache_dir=cache).cached
    assert not compile_realization(repo, r, "sm_90a", cache_dir=cache).cached
    subset = [{"block": 128, "dtype": "float32", "op": "sum"}]
    sub = compile_realization(repo, r, "sm_90", subset, cache_dir=cache)
    assert not sub.cached and len(sub.entries) == 1
    ops = repo / "kernels/include/epl/ops.cuh"
    ops.write_text(ops.read_text() + "\n")
    assert not compile_realization(repo, r, "sm_90", cache_dir=cache).cached
    assert compile_realization(repo, r, "sm_90", cache_dir=cache).cached


def test_claims_are_checked_on_cache_hits(repo, toolchain, tmp_path):
    cache = tmp_path / "cache"
    compile_realization(repo, make_realization(), "sm_90", cache_dir=cache)
    b = compile_realization(repo, make_realization(claims={"max_registers": 1}), "sm_90", cache_dir=cache)
    assert b.cached and {p.rule for p in b.problems} == {"register-claim"}


def test_corrupt_entry_is_a_miss(repo, toolchain, tmp_path):
    cache = tmp_path / "cache"
    r = make_realization()
    compile_realization(repo, r, "sm_80", cache_dir=cache)
    for cubin in cache.rglob("*.cubin"):
        cubin.write_bytes(cubin.read_bytes()[:-1])  # a truncated cubin must never be loaded
    b = compile_realization(repo, r, "sm_80", cache_dir=cache)
    assert not b.cached and b.ok
    for js in cache.rglob("*.json"):
        facts = json.loads(js.read_text())
        assert facts["target"] == "sm_80" and facts["nvrtc"] == toolchain.nvrtc_version
