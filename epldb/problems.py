"""Problems as values: a location, a JSON path, a plain sentence and the rule that found it.

Nothing in the loader, the linter or the compiler raises for bad input; each returns problems,
and the CLI prints them as ``file:line:col: severity: $.json.path: message [rule]``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal

Severity = Literal["error", "warning", "notice"]


@dataclass(frozen=True, order=True)
class Location:
    """A place in a file of the repository: path relative to the root (POSIX), 1-based line and column."""

    file: str
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        if self.line <= 0:
            return self.file
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Problem:
    """One thing wrong (or worth saying) about the catalog."""

    location: Location
    message: str
    rule: str
    json_path: str = "$"
    severity: Severity = "error"

    def format(self) -> str:
        path = f"{self.json_path}: " if self.json_path and self.json_path != "$" else ""
        return f"{self.location}: {self.severity}: {path}{self.message} [{self.rule}]"

    def as_dict(self) -> dict[str, object]:
        return {
            "file": self.location.file,
            "line": self.location.line,
            "col": self.location.col,
            "severity": self.severity,
            "json_path": self.json_path,
            "message": self.message,
            "rule": self.rule,
        }


def json_path(parts: tuple[str | int, ...]) -> str:
    """``('kernel', 'entries', 0, 'name')`` → ``$.kernel.entries[0].name``."""
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def first_non_ascii(text: str) -> str | None:
    """Which character of ``text`` is not ASCII, by code point, or None: a look-alike (U+2010 for
    '-', a Cyrillic 'а' for 'a') reads as the right id, so only its code point tells it apart."""
    import unicodedata

    for i, ch in enumerate(text):
        if not ch.isascii():
            return (f"character {i + 1} is U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed')}, not ASCII: ids are "
                    "ASCII letters, digits and '-'; retype it")
    return None


_TARGET = re.compile(r"\bsm_[0-9]+[a-z]?\b")


def merge_repeats(problems: Iterable[Problem]) -> list[Problem]:
    """One problem per place, rule and JSON path, in first-seen order: a build problem recurs at
    every target and parameter point (one false claim printed 96 identical lines), and each
    recurrence is the same defect. The first keeps its words; the count and the targets of the
    others are added to it."""
    groups: dict[tuple[Location, str, str, str], list[Problem]] = {}
    for p in problems:
        groups.setdefault((p.location, p.rule, p.json_path, p.severity), []).append(p)
    out: list[Problem] = []
    for same in groups.values():
        first = same[0]
        if len(same) > 1:
            targets = list(dict.fromkeys(t for p in same for t in _TARGET.findall(p.message)))
            on = f" (targets: {', '.join(targets)})" if targets else ""
            first = replace(first, message=f"{first.message}; the same at {len(same) - 1} more build(s){on}")
        out.append(first)
    return out


def sort_problems(problems: list[Problem]) -> list[Problem]:
    """Problems in file order, then by line and column, so output is stable."""
    return sorted(problems, key=lambda p: (p.location, p.json_path, p.rule, p.message))


def has_errors(problems: list[Problem]) -> bool:
    return any(p.severity == "error" for p in problems)
