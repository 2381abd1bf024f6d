"""The JSON Schemas: well-formed, every field described, and violations said plainly at their place."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from epldb.catalog import default_root
from epldb.schema import KINDS, validate
from epldb.yamlsafe import load_yaml

SCHEMA_DIR = default_root() / "catalog" / "schema"
FILES = sorted(SCHEMA_DIR.glob("*.schema.json"))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_schema_is_valid_draft_2020_12(path: Path) -> None:
    doc = json.loads(path.read_text())
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(doc)


def _objects(node: Any, where: str = "$") -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, dict):
        if node.get("type") == "object" and "properties" in node:
            found.append((where, node))
        for key, value in node.items():
            found += _objects(value, f"{where}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _objects(value, f"{where}[{i}]")
    return found


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_field_is_described_and_objects_are_closed(path: Path) -> None:
    doc = json.loads(path.read_text())
    for where, obj in _objects(doc):
        assert obj.get("additionalProperties") is False, f"{where} must set additionalProperties: false"
        for name, field in obj["properties"].items():
            assert field.get("description"), f"{where}.properties.{name} has no description"
    for name, definition in doc.get("$defs", {}).items():
        assert definition.get("description"), f"$defs.{name} has no description"


def test_one_schema_per_record_kind() -> None:
    assert {p.name.split(".")[0] for p in FILES} == {*KINDS, "defs"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("id: x\ntitle: X\nquestion: q?\ndefinition: d\nproperties: [associativity]\nextra: 1\n",
         ["f.yaml:6:1: error: $.extra: unknown field 'extra' in feature record; allowed fields: counterexample, "
          "definition, example, id, properties, question, title [schema]"]),
        ("id: x\ntitle: X\nquestion: q?\nproperties: [associativity]\n",
         ["f.yaml:1:1: error: $.definition: missing required field 'definition': add it to the record [schema]"]),
        ("id: Not_A_Slug\ntitle: X\nquestion: q?\ndefinition: d\nproperties: [associativity]\n",
         ["f.yaml:1:5: error: $.id: \"Not_A_Slug\" does not have the required form (The id of a structural execution "
          "feature, its file name under catalog/features/ without '.yaml') [schema]"]),
        ("id: x\ntitle: 3\nquestion: q?\ndefinition: d\nproperties: [beauty]\n",
         ["f.yaml:2:8: error: $.title: expected a string, got an integer 3; quote it to make it a string [schema]",
          "f.yaml:5:14: error: $.properties[0]: \"beauty\" is not one of: associativity, commutativity, identity-element, "
          "idempotence, rescaling-equivalence, mergeable-sufficient-state, linearity, distributivity, monotonicity, "
          "shift-invariance, deterministic-regeneration, elementwise-independence, row-independence [schema]"]),
    ],
)
def test_violations_are_located_and_plain(text: str, expected: list[str]) -> None:
    doc, problems = load_yaml(text, "f.yaml")
    assert problems == [] and doc is not None
    assert [p.format() for p in validate(doc.data, "feature", doc.source, SCHEMA_DIR)] == expected
