"""The JSON Schemas in catalog/schema/, applied with every violation located and said plainly.

One schema per record kind; the loader, the CLI and CI all validate through here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from epldb.problems import Problem, first_non_ascii, json_path
from epldb.records import JsonPath, SourceMap

Kind = Literal["feature", "primitive", "realization", "operator", "experiment", "target"]
KINDS: tuple[Kind, ...] = ("feature", "primitive", "realization", "operator", "experiment", "target")
RULE = "schema"


@dataclass(frozen=True)
class Schemas:
    directory: Path
    documents: dict[str, dict[str, Any]]

    def validator(self, kind: Kind) -> Any:
        return _validator(self.directory, kind)


@cache
def _documents(directory: Path) -> dict[str, dict[str, Any]]:
    return {p.name.split(".")[0]: json.loads(p.read_text()) for p in sorted(directory.glob("*.schema.json"))}


@cache
def _validator(directory: Path, kind: str) -> Any:
    # jsonschema is imported here, not at module import, so the GPU path can run without it.
    import jsonschema
    from referencing import Registry, Resource

    docs = _documents(directory)
    registry = Registry().with_resources(
        (doc["$id"], Resource.from_contents(doc)) for doc in docs.values()
    )
    return jsonschema.Draft202012Validator(docs[kind], registry=registry)


def schema_problems(directory: Path) -> list[Problem]:
    """Why the schemas under ``directory`` cannot check records (a kind's schema missing, one
    that is not JSON), located; empty when every kind has one. A root's own schemas replace the
    installed ones, so a broken one must be a message, not a KeyError or a JSONDecodeError."""
    from epldb.problems import Location

    out: list[Problem] = []
    missing = [k for k in KINDS if not (directory / f"{k}.schema.json").is_file()]
    if len(missing) == len(KINDS):  # one mistake (an empty or wrong folder), one message
        return [Problem(Location("catalog/schema"), "the folder holds none of the schemas "
                        f"({', '.join(f'{k}.schema.json' for k in KINDS)}): copy them from the lab's repository, "
                        "or remove the folder to use the installed ones", RULE)]
    for kind in KINDS:
        path = directory / f"{kind}.schema.json"
        where = path.name if directory.name != "schema" else f"catalog/schema/{path.name}"
        if not path.is_file():
            out.append(Problem(Location(where), f"no schema for {kind} records: restore {where} (the lab's "
                               "schemas are in its repository's catalog/schema/), or remove catalog/schema/ to use "
                               "the installed ones", RULE))
            continue
        try:
            json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, OSError) as exc:
            out.append(Problem(Location(where, 1, 1), f"the schema cannot be read: {exc}", RULE))
        except json.JSONDecodeError as exc:
            out.append(Problem(Location(where, exc.lineno, exc.colno), f"the schema is not JSON: {exc.msg}", RULE))
    return out


def schemas(directory: Path) -> Schemas:
    return Schemas(directory, _documents(directory))


def _describe_type(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "a mapping", type(None): "empty (null)"}.get(type(value), type(value).__name__)


def _plain(error: Any, kind: str) -> list[tuple[JsonPath, bool, str]]:
    """Turn one jsonschema error into (path, at_key, sentence) triples."""
    path: JsonPath = tuple(error.absolute_path)
    v, inst, schema = error.validator, error.instance, error.schema
    if v == "additionalProperties" and isinstance(inst, dict):
        allowed = sorted(schema.get("properties", {}))
        extra = [k for k in inst if k not in schema.get("properties", {})]
        hint = f"; allowed fields: {', '.join(allowed)}" if allowed else ""
        return [(path + (k,), True, f"unknown field '{k}' in {kind} record{hint}") for k in extra]
    if v == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        # The JSON path names the missing field; the location, the mapping that lacks it (the
        # field has no position of its own).
        where = "the record" if not path else "this mapping"
        return [(path + (missing,), False, f"missing required field '{missing}': add it to {where}")]
    if v == "type":
        want = error.validator_value
        names = {"array": "a list", "object": "a mapping", "string": "a string", "integer": "an integer",
                 "number": "a number", "boolean": "a boolean (true or false)", "null": "empty (null)"}
        want_s = " or ".join(names.get(w, w) for w in (want if isinstance(want, list) else [want]))
        hint = "; quote it to make it a string" if "string" in str(want) else ""
        return [(path, False, f"expected {want_s}, got {_describe_type(inst)} {json.dumps(inst, default=str)}{hint}")]
    if v == "enum":
        allowed = ", ".join(str(x) for x in error.validator_value)
        return [(path, False, f"{json.dumps(inst, default=str)} is not one of: {allowed}")]
    if v == "pattern":
        what = schema.get("description", "")
        message = f"{json.dumps(inst)} does not have the required form ({what.rstrip('.')})"
        if isinstance(inst, str) and (odd := first_non_ascii(inst)):
            message += f"; {odd}"
        return [(path, False, message)]
    if v in ("minItems", "minLength"):
        return [(path, False, "must not be empty")]
    if v == "uniqueItems":
        return [(path, False, "lists the same value twice; keep each value once")]
    if v == "propertyNames":
        return [(path, False, f"name {json.dumps(inst)} is not allowed: {error.message}")]
    return [(path, False, error.message)]


def validate(data: Any, kind: Kind, source: SourceMap, schema_dir: Path) -> list[Problem]:
    """All schema violations of one document, each at its own position."""
    validator = _validator(schema_dir, kind)
    problems: list[Problem] = []
    for error in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        # anyOf/oneOf: report the most specific sub-error instead of the umbrella message
        leaves = [error]
        if error.context:
            best = min(error.context, key=lambda e: (-len(e.absolute_path), e.validator != "type"))
            leaves = [best]
        for leaf in leaves:
            for path, at_key, message in _plain(leaf, kind):
                loc = source.key_at(path) if at_key else source.at(path)
                problems.append(Problem(loc, message, RULE, json_path(path)))
    return sorted(problems, key=lambda p: (p.location, p.json_path))
