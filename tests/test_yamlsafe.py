"""The positioned safe YAML loader: types as records need them, every mistake located."""

from __future__ import annotations

from pathlib import Path

import pytest

import epldb
from repository import repository_catalog
from epldb import yamlsafe
from epldb.yamlsafe import load_yaml

CATALOG_ROOT = repository_catalog().root
RECORDS = sorted((CATALOG_ROOT / "catalog").rglob("*.yaml"))


@pytest.fixture(params=["libyaml", "python"])
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """A test taking it runs on both parsers: libyaml's events where PyYAML has them, and the
    pure-Python parser that words the errors (and parses alone where libyaml is missing)."""
    if request.param == "libyaml" and yamlsafe._CParser is None:
        pytest.skip("PyYAML here has no libyaml")
    if request.param == "python":
        monkeypatch.setattr(yamlsafe, "_CParser", None)
    return request.param


def _load(text: str):
    doc, problems = load_yaml(text, "f.yaml")
    return doc, [p.format() for p in problems]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("v: off", "off"), ("v: yes", "yes"), ("v: No", "No"), ("v: true", True), ("v: false", False),
        ("v: 1.10", "1.10"), ("v: 12.0", "12.0"), ("v: 0.97", 0.97), ("v: 1e-5", 1e-5), ("v: 256", 256),
        ("v: 0x10", 16), ("v: 0755", "0755"), ("v: 1:30", "1:30"), ("v: '1.1'", "1.1"), ("v: ~", None),
        ("v: -3", -3), ("v: .inf", float("inf")), ("v: sm_90a", "sm_90a"),
    ],
)
def test_scalars_resolve_like_yaml_1_2_with_versions_kept(text: str, value: object, parser: str) -> None:
    doc, problems = _load(text)
    assert problems == []
    assert doc.data["v"] == value and type(doc.data["v"]) is type(value)


def test_positions_are_one_based_for_values_and_keys(parser: str) -> None:
    doc, _ = _load("a:\n  b: [x, y]\n")
    assert str(doc.source.at(("a", "b", 1))) == "f.yaml:2:10"
    assert str(doc.source.key_at(("a", "b"))) == "f.yaml:2:3"
    assert str(doc.source.at(("a", "missing", 3))) == "f.yaml:2:3"  # nearest ancestor


def test_duplicate_keys_are_errors_and_the_first_value_is_kept(parser: str) -> None:
    doc, problems = _load("a: 1\nb:\n  c: 1\n  c: 2\n")
    assert problems == ["f.yaml:4:3: error: $.b.c: duplicate key 'c' (first at line 3, column 3); keep one of them [yaml]"]
    assert doc.data["b"]["c"] == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: &x 1\nb: *x\n", "f.yaml:1:4: error: YAML syntax: anchors ('&name') are not allowed in records; write the value out [yaml]"),
        ("a: 1\n<<: {b: 2}\n", "f.yaml:2:1: error: merge keys ('<<') are not allowed; write the fields out [yaml]"),
        ("? [a]\n: 1\n", "f.yaml:1:3: error: a mapping key must be a plain string [yaml]"),
        ("a: !!python/object 1\n", "f.yaml:1:4: error: $.a: explicit tag 'tag:yaml.org,2002:python/object' is not allowed; write a plain value [yaml]"),
        ("a: 'unterminated\n", "f.yaml:2:1: error: YAML syntax: while scanning a quoted scalar: found unexpected end of stream [yaml]"),
        ("", "f.yaml:1:1: error: the file is empty; a record is a YAML mapping [yaml]"),
        ("a: 1\n---\nb: 2\n", "f.yaml:2:1: error: YAML syntax: expected a single document in the stream: but found another document [yaml]"),
    ],
)
def test_refused_constructs_are_located(text: str, message: str, parser: str) -> None:
    _, problems = _load(text)
    assert problems == [message]


@pytest.mark.parametrize("record", RECORDS, ids=lambda p: str(p.relative_to(CATALOG_ROOT)))
def test_every_record_reads_the_same_on_both_parsers(record: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if yamlsafe._CParser is None:
        pytest.skip("PyYAML here has no libyaml: the Python parser is the only one")
    text = record.read_text(encoding="utf-8")
    fast, fast_problems = load_yaml(text, record.name)
    monkeypatch.setattr(yamlsafe, "_CParser", None)
    slow, slow_problems = load_yaml(text, record.name)
    assert fast is not None and slow is not None
    assert (fast.data, fast.source.values, fast.source.keys) == (slow.data, slow.source.values, slow.source.keys)
    assert [p.format() for p in fast_problems] == [p.format() for p in slow_problems]
