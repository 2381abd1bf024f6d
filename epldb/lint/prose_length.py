"""A realization's ``when_it_wins`` reads like a reference book: at most 150 words on the regime where
it wins and the mechanism behind it. The numbers of each run are no part of it: the site renders the
current standing and the history across runs from evidence/ at build time, so a run id, "Earlier
runs" or "at commit <hex>" in the field is residue of a run-by-run log, and an error at the place it
stands. Cheap: one split and three searches a record; the file is read only to locate a match."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from epldb.problems import Location, Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog
    from epldb.records import Realization

RULE = "prose-length"
FIELD = "when_it_wins"
MAX_WORDS = 150

_BELONGS = ("say the regime where it wins and the mechanism; the numbers of each run come from the evidence, "
            "which the site renders on the realization's page")

#: (its pattern, what the message says it is): each reported once a record, at its first occurrence.
RESIDUE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b\d{8}T\d{6}Z(?:-[0-9A-Za-z]+)*"), "names run {first}{more}"),
    (re.compile(r"\bearlier\s+runs\b", re.I), "keeps a run-by-run history ('{first}'{more})"),
    (re.compile(r"\bat\s+commit\s+[0-9a-f]{7,40}\b", re.I), "cites a commit ('{first}'{more})"),
)


def check(catalog: "Catalog") -> Iterator[Problem]:
    for r in catalog.realizations.values():
        text = r.when_it_wins
        if not text:
            continue
        words = len(text.split())
        if words > MAX_WORDS:
            yield Problem(r.loc(FIELD), f"{FIELD} has {words} words, over the cap of {MAX_WORDS}: {_BELONGS}",
                          RULE, f"$.{FIELD}")
        flat = " ".join(text.split())
        for pattern, says in RESIDUE:
            found = list(pattern.finditer(flat))
            if not found:
                continue
            more = f", and {len(found) - 1} more" if len(found) > 1 else ""
            yield Problem(_locate(catalog.root, r, flat, found[0].start()),
                          f"{FIELD} {says.format(first=found[0].group(0), more=more)}: {_BELONGS}", RULE,
                          f"$.{FIELD}")


def _locate(root: Path, r: "Realization", flat: str, offset: int) -> Location:
    """Where the word of ``flat`` (the field's words joined by single spaces) that holds ``offset``
    stands in the file: the field's words are read from its block in the file and matched one for
    one; where they differ (a quoted scalar with escapes) the field's own location stands in."""
    start = r.loc(FIELD)
    index = flat.count(" ", 0, offset)  # the match starts in this word
    try:
        lines = (root / r.file).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return start
    tokens: list[tuple[str, int, int]] = []  # (word, line, col), 1-based
    for i in range(start.line - 1, len(lines)):
        line = lines[i]
        if i > start.line - 1 and line.strip() and not line[0].isspace():
            break  # the next key at the document's top level
        begin = start.col - 1 if i == start.line - 1 else 0
        for m in re.finditer(r"\S+", line[begin:]):
            tokens.append((m.group(0), i + 1, begin + m.start() + 1))
    if tokens and re.fullmatch(r"[>|][-+0-9]*", tokens[0][0]):
        tokens = tokens[1:]  # a block scalar's indicator
    words = flat.split(" ")
    if [t[0] for t in tokens[: len(words)]] != words:
        return start
    _, line, col = tokens[index]
    return Location(start.file, line, col + offset - (len(" ".join(words[:index])) + (1 if index else 0)))
