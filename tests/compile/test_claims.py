"""Machine-code claims are checked on every build; a failed claim is an error at the claim's line."""

from compile_fixtures import LINES, RECORD_FILE, make_realization
from epldb.compile import EntryBuild, check_claims, compile_realization

POINTS = {"block": [128, 256], "dtype": ["float32"], "op": ["sum"]}


def test_forbidding_shfl_on_a_shuffle_kernel_fails_at_the_claim(repo, toolchain):
    if toolchain.nvdisasm is None:
        return  # covered by test_sass_claims_unchecked_without_nvdisasm
    r = make_realization(params=POINTS, claims={"sass": {"require": ["SHFL", "BAR"], "forbid": ["LDL", "SHFL"]}})
    b = compile_realization(repo, r, "sm_90a")
    assert b.cubin is not None  # it compiled; the claim failed
    failed = [p for p in b.problems if p.rule == "sass-claim"]
    assert len(failed) == 2  # one per point; the require claims and LDL hold
    for p in failed:
        assert p.severity == "error"
        assert (p.location.file, p.location.line) == (RECORD_FILE, LINES[("claims", "sass", "forbid", 1)])
        assert p.json_path == "$.claims.sass.forbid[1]"
        assert p.message.startswith("SASS claim forbids SHFL but tiny_shuffle<")
        assert "SHFL on sm_90a" in p.message and "entry reduce" in p.message
    assert {"block=128" in p.message for p in failed} == {True, False}
    assert not b.ok


def test_claims_that_hold_give_no_problem(repo, toolchain):
    r = make_realization(params=POINTS, claims={"sass": {"require": ["SHFL"], "forbid": ["LDL", "STL"]}, "max_registers": 64, "no_spills": True})
    for target in r.targets:
        b = compile_realization(repo, r, target)
        assert b.ok and b.problems == (), [p.format() for p in b.problems]


def _entry(**kw) -> EntryBuild:
    base = dict(entry="reduce", point={"block": 256}, expression="k<256>", lowered_name="_Z1kILi256EEvv", registers=40,
                static_shared_bytes=0, stack_bytes=0, spill_store_bytes=0, spill_load_bytes=0, barriers=1, sass={"SHFL": 3})
    return EntryBuild(**{**base, **kw})


def test_register_spill_and_require_claims():
    r = make_realization(claims={"sass": {"require": ["ATOMS"]}, "max_registers": 32, "no_spills": True})
    problems = check_claims(r, [_entry(spill_store_bytes=8)], "sm_80")
    assert {(p.rule, p.location.line) for p in problems} == {
        ("sass-claim", LINES[("claims", "sass", "require", 0)]),
        ("register-claim", LINES[("claims", "max_registers")]),
        ("spill-claim", LINES[("claims", "no_spills")]),
    }
    assert any("requires ATOMS but k<256> contains no ATOMS on sm_80" in p.message for p in problems)
    assert any("uses 40 registers" in p.message for p in problems)


def test_sass_claims_unchecked_without_nvdisasm(monkeypatch):
    r = make_realization(claims={"sass": {"forbid": ["SHFL"]}})
    assert check_claims(r, [_entry()], "sm_80", sass_available=False) == []
    from epldb.compile.claims import sass_unavailable_problem

    monkeypatch.delenv("CI", raising=False)
    (p,) = sass_unavailable_problem(r, "sm_80")
    assert p.severity == "warning" and p.location.line == LINES[("claims", "sass")]
    monkeypatch.setenv("CI", "true")
    assert sass_unavailable_problem(r, "sm_80")[0].severity == "error"


def test_require_entries_narrow_require_to_those_entries():
    r = make_realization(claims={"sass": {"require": ["SHFL"], "require_entries": ["reduce"], "forbid": ["LDL"]}})
    finish = _entry(entry="finish", sass={"LDL": 1})  # a second launch with no shuffles, but a forbidden op
    problems = check_claims(r, [_entry(), finish], "sm_80")
    assert [(p.json_path, "entry finish" in p.message) for p in problems] == [("$.claims.sass.forbid[0]", True)]
    assert check_claims(r, [_entry(sass={})], "sm_80")[0].json_path == "$.claims.sass.require[0]"
    unknown = make_realization(claims={"sass": {"require": ["SHFL"], "require_entries": ["sum"]}})
    (p,) = check_claims(unknown, [_entry()], "sm_80")
    assert p.json_path == "$.claims.sass.require_entries[0]" and "not one of kernel.entries (reduce)" in p.message
