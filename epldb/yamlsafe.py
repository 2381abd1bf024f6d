"""Safe YAML with positions: every value and key keeps its line and column.

Workarounds over PyYAML's safe loader, each on purpose:
- duplicate mapping keys are an error (PyYAML silently keeps the last one);
- only ``true``/``false`` are booleans: YAML 1.1's ``yes``/``no``/``on``/``off`` stay strings
  (``targets: [off]`` must not become ``[False]``);
- a decimal written with a trailing zero (``1.10``, ``12.40``) stays a string, because as a float it
  would lose the digit that makes it a version (``1.10`` → ``1.1``); sexagesimal ``1:30`` and
  octal-looking ``0755`` stay strings too (YAML 1.2 core schema);
- anchors, aliases and merge keys are refused: records are read by people, one value in one place;
- non-string keys are refused, since JSON paths and the schemas assume string keys;
- nesting deeper than ``MAX_DEPTH`` and integers longer than ``MAX_DIGITS`` digits are refused at
  their position: the composer recurses once per level (thousands of levels ended in a
  RecursionError) and Python refuses to convert an integer of more than 4300 digits (a ValueError),
  and no record needs either.

Records are parsed by libyaml where PyYAML has it (its events, composed into nodes here, so the
refusals above still apply): the pure-Python scanner took about 0.35 s of a catalog load's 0.8 s.
A document libyaml rejects is parsed again by the Python parser, whose messages the tests pin.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

from epldb.problems import Location, Problem
from epldb.records import JsonPath, SourceMap

RULE = "yaml"

#: The deepest nesting a record may have: the deepest in the catalog is 6 levels (a launch step's
#: scratch buffer); the composer's recursion (two frames a level) stays far from Python's limit.
MAX_DEPTH = 64
#: The longest integer literal a record may hold: launch limits and sizes fit in 20 digits.
MAX_DIGITS = 40

_INT = re.compile(r"^[-+]?(0|[1-9][0-9]*)$|^0x[0-9a-fA-F]+$|^0o[0-7]+$")
_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_SPECIAL_FLOAT = {".inf": float("inf"), "+.inf": float("inf"), "-.inf": float("-inf"), ".nan": float("nan")}
# Tags PyYAML's resolver gives plain scalars; any other tag was written explicitly (``!!python/...``).
_IMPLICIT_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "timestamp", "value",
                                                     "merge", "yaml")}
_VERSION_LIKE = re.compile(r"^[0-9]+\.[0-9]*0$")


def _plain_scalar(text: str) -> Any:
    """YAML 1.2 core-schema resolution of an unquoted scalar, with the version-like exception."""
    if text in ("", "~", "null", "Null", "NULL"):
        return None
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    if _INT.match(text):
        if len(text) > MAX_DIGITS:
            raise _TooLong(len(text))
        return int(text, 0) if text[:2] in ("0x", "0o") else int(text)
    if text.lower() in _SPECIAL_FLOAT:
        return _SPECIAL_FLOAT[text.lower()]
    if _FLOAT.match(text) and any(c in text for c in ".eE"):
        if _VERSION_LIKE.match(text) and "e" not in text.lower():
            return text  # '1.10' is a version, not 1.1
        return float(text)
    return text


class _TooLong(ValueError):
    """An integer literal of more digits than MAX_DIGITS; the builder turns it into a problem."""

    def __init__(self, digits: int) -> None:
        super().__init__(digits)
        self.digits = digits


@dataclass
class YamlDocument:
    data: Any
    source: SourceMap


class _Builder:
    def __init__(self, file: str) -> None:
        self.file = file
        self.values: dict[JsonPath, Location] = {}
        self.keys: dict[JsonPath, Location] = {}
        self.problems: list[Problem] = []

    def loc(self, mark: yaml.Mark) -> Location:
        return Location(self.file, mark.line + 1, mark.column + 1)

    def problem(self, mark: yaml.Mark, path: JsonPath, message: str) -> None:
        from epldb.problems import json_path

        self.problems.append(Problem(self.loc(mark), message, RULE, json_path(path)))

    def build(self, node: yaml.Node, path: JsonPath) -> Any:
        self.values[path] = self.loc(node.start_mark)
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, path + (i,)) for i, item in enumerate(node.value)]
        assert isinstance(node, yaml.ScalarNode)
        if node.tag not in _IMPLICIT_TAGS:
            self.problem(node.start_mark, path, f"explicit tag {node.tag!r} is not allowed; write a plain value")
            return node.value
        if not node.style:  # plain (unquoted) scalar: resolve by the rules above (libyaml says '', Python None)
            try:
                return _plain_scalar(node.value)
            except _TooLong as long:
                self.problem(node.start_mark, path, f"an integer of {long.digits} digits, over the {MAX_DIGITS} a "
                             "record may write; write the value it means, or quote it if it is text")
                return node.value
        return node.value  # quoted or block scalar: always a string

    def _mapping(self, node: yaml.MappingNode, path: JsonPath) -> dict[str, Any]:
        out: dict[str, Any] = {}
        first_seen: dict[str, yaml.Mark] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge" or (
                isinstance(key_node, yaml.ScalarNode) and key_node.value == "<<" and key_node.style is None
            ):
                self.problem(key_node.start_mark, path, "merge keys ('<<') are not allowed; write the fields out")
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                self.problem(key_node.start_mark, path, "a mapping key must be a plain string")
                continue
            key = key_node.value
            if key in first_seen:
                prev = first_seen[key]
                self.problem(
                    key_node.start_mark,
                    path + (key,),
                    f"duplicate key '{key}' (first at line {prev.line + 1}, column {prev.column + 1}); "
                    "keep one of them",
                )
                continue
            first_seen[key] = key_node.start_mark
            self.keys[path + (key,)] = self.loc(key_node.start_mark)
            out[key] = self.build(value_node, path + (key,))
        return out


class _NoAliases:
    """Composer rules that refuse anchors and aliases instead of expanding them."""

    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self._depth >= MAX_DEPTH:
            event = self.peek_event()  # type: ignore[attr-defined]
            raise yaml.composer.ComposerError(
                None, None, f"nested deeper than {MAX_DEPTH} levels; a record is a few levels of fields and lists",
                event.start_mark)
        if self.check_event(yaml.AliasEvent):  # type: ignore[attr-defined]
            event = self.peek_event()  # type: ignore[attr-defined]
            raise yaml.composer.ComposerError(
                None, None, "aliases ('*name') are not allowed in records; write the value out", event.start_mark
            )
        event = self.peek_event()  # type: ignore[attr-defined]
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            raise yaml.composer.ComposerError(
                None, None, "anchors ('&name') are not allowed in records; write the value out", event.start_mark
            )
        self._depth += 1
        try:
            return super().compose_node(parent, index)  # type: ignore[misc]
        finally:
            self._depth -= 1


class _NoAliasComposer(_NoAliases, yaml.SafeLoader):
    """The pure-Python parser and composer: the reference, and the one that words the errors."""


try:
    from yaml.cyaml import CParser as _CParser
except ImportError:  # PyYAML built without libyaml
    _CParser = None

if _CParser is not None:

    class _NoAliasCComposer(_NoAliases, yaml.composer.Composer, _CParser, yaml.resolver.Resolver):
        """libyaml's events, composed in Python: Composer's methods come before CParser's own
        get_single_node in the MRO, so the rules of _NoAliases apply as in the Python loader."""

        def __init__(self, stream: str) -> None:
            _CParser.__init__(self, stream)
            yaml.composer.Composer.__init__(self)
            yaml.resolver.Resolver.__init__(self)


def _compose(text: str) -> Any:
    """The document's node tree; libyaml when present, the Python parser for what libyaml rejects."""
    if _CParser is not None:
        fast = _NoAliasCComposer(text)
        try:
            return fast.get_single_node()
        except yaml.YAMLError:
            pass  # parsed again below, for the Python parser's message and position
        finally:
            fast.dispose()
    loader = _NoAliasComposer(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def load_yaml(text: str, file: str) -> tuple[YamlDocument | None, list[Problem]]:
    """Parse one YAML document; on a syntax error return no document and a located problem."""
    try:
        node = _compose(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        what = exc.problem or exc.context or "not valid YAML"
        if exc.context and exc.problem and exc.context not in what:
            what = f"{exc.context}: {exc.problem}"
        if "'\\t'" in what:  # PyYAML names the tab but not the remedy
            what += "; YAML indents with spaces only: replace the tab by spaces"
        return None, [Problem(Location(file, line, col), f"YAML syntax: {what}", RULE)]
    except yaml.YAMLError as exc:  # errors without a position (rare: encoding)
        return None, [Problem(Location(file, 1, 1), f"YAML: {exc}", RULE)]
    if node is None:
        return None, [Problem(Location(file, 1, 1), "the file is empty; a record is a YAML mapping", RULE)]
    builder = _Builder(file)
    data = builder.build(node, ())
    source = SourceMap(file, builder.values, builder.keys)
    return YamlDocument(data, source), builder.problems
