"""Evidence stays fresh while the machine code it measured is what the repository compiles: a comment
keeps it (once the compile facts of the new source are recorded), a change of the code does not;
a verified realization with only stale evidence is a warning, and an error under --strict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import epldb
from epldb.compile import compile_realization, find_toolchain
from epldb.evidence import EvidenceWriter, Row, evidence_problems, load_evidence
from epldb.evidence.static import facts_path, read_facts, record, toolchain_id
from realization_fixtures import make_repo

RID = "tile-sum/naive"
PARAMS = {"op": "sum", "block": 128, "items": 1, "dtype": "float32"}


@pytest.fixture(scope="module")
def toolchain():  # type: ignore[no-untyped-def]
    tc = find_toolchain()
    if not tc.usable:
        pytest.skip(f"NVRTC or CUDA headers unavailable: {[p.message for p in tc.problems]}")
    return tc


def _repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path, status="verified")
    real = root / "catalog/realizations/tile-sum/naive.yaml"
    real.write_text(real.read_text().replace("dtype: [float32, bfloat16]", "dtype: [float32]")
                    .replace("targets: [sm_80, sm_90]", "targets: [sm_90]"))
    return root


def _record(root: Path, tc, tmp_path: Path) -> str:  # type: ignore[no-untyped-def]
    cat = epldb.load(root, lint=False)
    build = compile_realization(root, cat.realizations[RID], "sm_90", cache_dir=tmp_path / "cache")
    assert build.cubin is not None and build.entries, [p.format() for p in build.problems]
    assert all(e.sass_sha256 for e in build.entries)
    record(root, [build], toolchain_id(tc))
    return build.source_hash


def _stale(root: Path) -> list[bool]:
    cat = epldb.load(root, lint=False)
    df = load_evidence(root, cat)
    return df.loc[df["kind"] == "realization", "stale"].tolist()


def test_a_comment_keeps_the_evidence_and_a_code_change_does_not(tmp_path: Path, toolchain) -> None:  # type: ignore[no-untyped-def]
    root = _repo(tmp_path)
    measured = _record(root, toolchain, tmp_path)
    w = EvidenceWriter(root / "evidence" / "nvidia-h200", "20260101T000000Z-verify-aaaa").open()
    w.append(Row(RID, "realization", PARAMS, "float32", {"n": 4097}, "passed", source_hash=measured, target="sm_90"))
    w.close()
    assert _stale(root) == [False]

    kernel = root / "kernels/reduction/tile-sum/naive.cu"
    kernel.write_text(kernel.read_text().replace("  float acc = 0.f;", "  // one accumulator: thread 0 adds the tile\n"
                                                                         "  float acc = 0.f;"))
    assert _stale(root) == [True], "no facts for the new source yet: stale until they are recorded"
    cat = epldb.load(root, lint=False)
    (p,) = evidence_problems(cat)
    assert (p.severity, p.rule) == ("warning", "evidence-fresh") and "re-measure pending" in p.message
    (strict,) = evidence_problems(cat, strict=True)
    assert strict.severity == "error"

    commented = _record(root, toolchain, tmp_path)
    assert commented != measured
    assert _stale(root) == [False], "a comment compiles to the same SASS: the evidence stays fresh"
    assert evidence_problems(epldb.load(root, lint=False), strict=True) == []
    hashes = {f["source_hash"] for f in read_facts(facts_path(root, RID))}
    assert hashes == {measured, commented}  # append-only: the measured source's facts stay

    kernel.write_text(kernel.read_text().replace("acc += float(x[i]);", "acc += 2.f * float(x[i]);"))
    _record(root, toolchain, tmp_path)
    assert _stale(root) == [True], "different machine code: re-measure pending"


def test_a_few_fresh_timings_do_not_hide_stale_ones(tmp_path: Path) -> None:
    """A verified realization with fresh passing rows at one point and only stale timings at
    another is partly stale: a warning naming how many (point, shape) timings, an error under
    --strict; once the stale key has a fresh timing too, nothing."""
    import pandas as pd

    from epldb.evidence import canonical_json

    cat = epldb.load(make_repo(tmp_path, status="verified"), lint=False)
    r = cat.realizations[RID]
    first, second = (canonical_json(p) for p in r.points()[:2])

    def row(params: str, run: str, stale: bool, time: float | None) -> dict[str, object]:
        return {"device": "nvidia-h200", "subject": RID, "kind": "realization", "params": params, "dtype": "float32",
                "shape": '{"n":4097}', "status": "passed", "stale": stale, "time_ms_median": time, "run": run}

    rows = [row(first, "20260101T000000Z-bench-aaaa", False, 1.0), row(second, "20260101T000000Z-bench-aaaa", True, 1.0)]
    (p,) = evidence_problems(cat, pd.DataFrame(rows))
    assert (p.severity, p.rule) == ("warning", "evidence-fresh") and "partly stale: 1 declared" in p.message
    (strict,) = evidence_problems(cat, pd.DataFrame(rows), strict=True)
    assert strict.severity == "error"
    rows.append(row(second, "20260102T000000Z-bench-bbbb", False, 1.1))
    assert evidence_problems(cat, pd.DataFrame(rows)) == []


def test_an_entry_is_the_same_machine_code_by_its_ptx_or_its_sass_transitively() -> None:
    """nvdisasm numbers branch labels over the module, so an entry's SASS hash moves when another
    entry joins its program, and NVVM's PTX can differ where ptxas makes the same code: equal PTX or
    equal SASS is the same machine code, both different is not, and a chain of such builds is one."""
    from epldb.evidence.static import code_classes

    def same(a: tuple[str, str], b: tuple[str, str], *between: tuple[str, str]) -> bool:
        builds = [a, *between, b]
        classes = code_classes({("sm_90a", "{}", f"h{i}"): {"rows": c} for i, c in enumerate(builds)})
        return classes[("sm_90a", "{}", "h0")]["rows"] == classes[("sm_90a", "{}", f"h{len(builds) - 1}")]["rows"]

    assert same(("p1", "s1"), ("p1", "s2")) and same(("p1", "s1"), ("p2", "s1"))
    assert not same(("p1", "s1"), ("p2", "s2"))
    assert same(("", "s1"), ("p1", "s1")) and not same(("", "s1"), ("p1", "s2"))
    assert not same(("", ""), ("", ""))
    # measured before PTX hashes were recorded (SASS s1), today's build (PTX p1, SASS labels moved):
    # the same code through a source in between that has both
    assert same(("", "s1"), ("p1", "s2"), ("p1", "s1"))
    assert not same(("", "s1"), ("p2", "s2"), ("p1", "s1"))
    # one class per entry: another entry's equal digest links nothing
    classes = code_classes({("t", "{}", "a"): {"rows": ("p", "s"), "tail": ("q", "u")},
                            ("t", "{}", "b"): {"rows": ("q", "u"), "tail": ("p", "s")}})
    assert classes[("t", "{}", "a")]["rows"] != classes[("t", "{}", "b")]["rows"]


def test_a_gained_or_changed_split_entry_keeps_the_rows_of_shapes_it_does_not_serve() -> None:
    """A point whose step's split entry (rows off 16-byte boundaries) alone joined or changed keeps
    the rows of aligned shapes, where the unchanged aligned entry ran, and loses those of odd row
    lengths; a changed aligned entry loses every row."""
    from epldb.evidence.freshness import _aligned_entry_runs, _machine_code_verdict
    from epldb.evidence.static import code_classes

    point = '{"dtype":"float32"}'
    code = {("sm_90a", point, "old"): {"rows": ("p", "s"), "rows-unaligned": ("q", "t")},
            ("sm_90a", point, "new"): {"rows": ("p", "s2"), "rows-unaligned": ("q", "t2"), "rows-split": ("r", "u")},
            ("sm_90a", point, "other"): {"rows": ("p2", "s3"), "rows-unaligned": ("q", "t")},
            ("sm_90a", point, "fixed"): {"rows": ("p", "s4"), "rows-unaligned": ("q", "t"), "rows-split": ("r2", "u2")}}
    code = code_classes(code)
    names = {"dtype"}
    assert _machine_code_verdict(code, names, "sm_90a", point, "old", "new") == "rows-split"
    assert _machine_code_verdict(code, names, "sm_90a", point, "old", "other") == "rows"
    assert _machine_code_verdict(code, names, "sm_90a", point, "old", "old") == "same"
    assert _machine_code_verdict(code, names, "sm_90a", point, "new", "old") == "changed"  # an entry lost
    assert _machine_code_verdict(code, names, "sm_90a", point, "new", "fixed") == "rows-split"  # only it changed
    assert _machine_code_verdict(code, names, "sm_90a", "{}", "old", "new") == "changed"  # not recorded

    class R:  # the part of a Realization the check reads
        launch = {"steps": [{"entry": "rows", "split_entry": "rows-split", "unaligned_entry": "rows-unaligned",
                             "unaligned_when": "cols % (16 // dtype_bytes)"}]}

    assert _aligned_entry_runs(R(), ["rows-split"], '{"cols":4096,"rows":8}', point)
    assert not _aligned_entry_runs(R(), ["rows-split"], '{"cols":4097,"rows":8}', point)
    assert not _aligned_entry_runs(R(), ["rows-other"], '{"cols":4096,"rows":8}', point)
    assert not _aligned_entry_runs(R(), ["rows"], '{"cols":4096,"rows":8}', point)


def test_a_sanitizer_row_keeps_only_while_every_point_compiles_to_the_same_code() -> None:
    """A sanitizer row watched every entry of every point it verified: it keeps across a source
    change that leaves each point's machine code as it was, not across one that moves any entry of
    any point (a split entry included), nor one that adds or drops a point."""
    from epldb.evidence.freshness import _every_point_same
    from epldb.evidence.static import code_classes

    a, b = '{"dtype":"float32"}', '{"dtype":"bfloat16"}'
    code = code_classes({
        ("sm_90a", a, "old"): {"rows": ("p", "s"), "rows-split": ("r", "u")},
        ("sm_90a", b, "old"): {"rows": ("q", "t"), "rows-split": ("v", "w")},
        ("sm_90a", a, "comment"): {"rows": ("p", "s"), "rows-split": ("r", "u")},
        ("sm_90a", b, "comment"): {"rows": ("q", "t2"), "rows-split": ("v", "w")},
        ("sm_90a", a, "fixed"): {"rows": ("p", "s"), "rows-split": ("r2", "u2")},
        ("sm_90a", b, "fixed"): {"rows": ("q", "t"), "rows-split": ("v", "w")},
        ("sm_90a", a, "fewer"): {"rows": ("p", "s"), "rows-split": ("r", "u")},
    })
    assert _every_point_same(code, "sm_90a", "old", "comment")
    assert not _every_point_same(code, "sm_90a", "old", "fixed")
    assert not _every_point_same(code, "sm_90a", "old", "fewer")
    assert not _every_point_same(code, "sm_80", "old", "comment")  # nothing recorded at the target


@pytest.mark.parametrize("items, rekeyed", [("[1]", True), ("[1, 4]", False)])
def test_a_row_measured_before_a_parameter_existed_takes_the_one_point_of_its_code(
        tmp_path: Path, toolchain, items: str, rekeyed: bool) -> None:  # type: ignore[no-untyped-def]
    """The row of {op, block, dtype} measured before `items` was declared becomes the point with
    items 1 where that is the one point of today's space with its machine code; with items 1 and 4
    (the entry does not read items: both compile alike) no point is told apart and the row keeps
    its key."""
    root = _repo(tmp_path)
    real = root / "catalog/realizations/tile-sum/naive.yaml"
    grown = real.read_text()
    real.write_text(grown.replace("  items: [1, 4]\n", "").replace("block * items", "block"))
    measured = _record(root, toolchain, tmp_path)
    before = {k: v for k, v in PARAMS.items() if k != "items"}
    w = EvidenceWriter(root / "evidence" / "nvidia-h200", "20260101T000000Z-verify-aaaa").open()
    w.append(Row(RID, "realization", before, "float32", {"n": 4097}, "passed", source_hash=measured, target="sm_90"))
    w.close()
    real.write_text(grown.replace("items: [1, 4]", f"items: {items}"))
    assert _record(root, toolchain, tmp_path) == measured  # the kernel is the same; the space grew
    df = load_evidence(root, epldb.load(root, lint=False))
    row = df[df["kind"] == "realization"].iloc[0]
    assert json.loads(row["params"]) == ({**before, "items": 1} if rekeyed else before)
    assert not row["stale"]
