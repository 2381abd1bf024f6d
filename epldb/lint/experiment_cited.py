"""Every citation of an experiment resolves, and nothing cites explorations/ any more.

In every text value of every record and in every kernel source (``kernels/**/*.cu``, ``*.cuh``),
``experiment NNNN-slug`` (also ``experiments NNNN-slug``, ``experiments/NNNN-slug``, the words
broken over lines or comment markers) names a record under catalog/experiments/, and a bare
``experiment NNNN`` is written with its full id. The explorations/ folders became experiments (each
id keeps its folder's slug), so a path ``explorations/...`` is an error that names the experiment to
cite; a path at a commit, ``<commit>:explorations/<folder>/``, is history and stays allowed. In a
kernel source the message adds that the facts of the new source need recording (every byte of a
kernel file is in the content hash of every realization that includes it): ``epldb compile
--record`` shows their machine code, and so their evidence, unchanged (epldb.evidence.freshness)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from epldb.problems import Location, Problem, json_path
from epldb.records import JsonPath, Record

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "experiment-cited"

_ID = r"[0-9]{4}-[a-z0-9]+(?:-[a-z0-9]+)*"
# "experiment", then a slash or any run of whitespace and comment markers (a citation broken over
# the lines of a kernel comment), then an id or a bare number.
_CITE = re.compile(rf"\b(?i:experiments?)(?:/|(?:\s|//|/\*|\*|#)+)({_ID}|[0-9]{{4}}(?![0-9-]))")
_EXPLORATIONS = re.compile(r"\bexplorations/(?:[\w.\-/]*[\w/])?")
_FOLDER = re.compile(r"[0-9]{8}-([a-z0-9]+(?:-[a-z0-9]+)*)")
_AT_COMMIT = re.compile(r"[0-9a-f]{7,40}:$")
_KERNEL_SUFFIXES = (".cu", ".cuh")
_IN_KERNEL = (", then `epldb compile --record` the realizations including this file, so that their evidence stays "
              "fresh on unchanged machine code")


def _strings(value: Any, path: JsonPath = ()) -> Iterator[tuple[JsonPath, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, (*path, i))


class _Known:
    """The experiment ids a citation may name (those that failed their schema too: their own
    problems say what is wrong), by id and by number."""

    def __init__(self, catalog: "Catalog") -> None:
        self.valid = list(catalog.experiments)
        self.ids = set(self.valid) | catalog.invalid_ids("experiment")
        self.by_number: dict[str, list[str]] = {}
        for eid in sorted(self.ids):
            self.by_number.setdefault(eid[:4], []).append(eid)
        self.by_slug = {eid[5:]: eid for eid in self.valid}


def _findings(text: str, known: _Known) -> Iterator[tuple[int, str, bool, str]]:
    """(offset in ``text``, the cited token, whether it is an experiment citation rather than an
    explorations/ path, the message) for each citation that does not resolve."""
    if "xperiment" not in text and "XPERIMENT" not in text and "explorations/" not in text:
        return
    for m in _CITE.finditer(text):
        token = m.group(1)
        if "-" not in token:
            numbered = known.by_number.get(token)
            hint = (f"cite it by its full id, 'experiment {numbered[0]}'" if numbered else
                    f"no experiment is numbered {token}; cite one by its full id, 'experiment NNNN-slug'")
            yield m.start(1), token, True, f"experiment {token}: {hint}"
        elif token not in known.ids:
            close = difflib.get_close_matches(token, known.valid, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else "; add catalog/experiments/... or fix the id"
            yield m.start(1), token, True, f"no experiment '{token}' in the catalog{hint}"
    for m in _EXPLORATIONS.finditer(text):
        if _AT_COMMIT.search(text[max(0, m.start() - 41):m.start()]):
            continue  # '<commit>:explorations/<folder>/' names the history, which keeps the folder
        folder = _FOLDER.match(m.group(0), len("explorations/"))
        match = known.by_slug.get(folder.group(1)) if folder else None
        instead = f"'experiment {match}'" if match else "the experiment that holds it ('experiment NNNN-slug')"
        yield m.start(), m.group(0), False, (f"'{m.group(0)}' is gone (the explorations/ folders are experiments "
                                             f"now, under catalog/experiments/): cite {instead} instead")


def _find(text: str, token: str, cited: bool, start: int) -> int:
    if not cited:
        return text.find(token, start)
    return next((m.start(1) for m in _CITE.finditer(text, start) if m.group(1) == token), -1)


def _location(file: str, text: str, offset: int) -> Location:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return Location(file, line, col)


class _RawFile:
    """A record file's text, to place a finding inside a multi-line value at its own line."""

    def __init__(self, root: Path, file: str) -> None:
        try:
            self.text = (root / file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            self.text = ""
        self.starts = [0] + [i + 1 for i, ch in enumerate(self.text) if ch == "\n"]

    def offset(self, loc: Location) -> int:
        if not self.text or loc.line < 1 or loc.line > len(self.starts):
            return 0
        return self.starts[loc.line - 1] + max(loc.col - 1, 0)


def _record_problems(catalog: "Catalog", known: _Known, record: Record) -> Iterator[Problem]:
    raw: _RawFile | None = None
    for path, value in _strings(record.data):
        findings = list(_findings(value, known))
        if not findings:
            continue
        raw = raw or _RawFile(catalog.root, record.file)
        start = record.source.at(path)
        cursor = raw.offset(start)
        for _, token, cited, message in findings:
            # The value as parsed differs from the file (folded lines, quotes); the citation is found
            # again in the file after the value's start: an id or a path has no spaces to fold.
            found = _find(raw.text, token, cited, cursor)
            if found >= 0:
                cursor = found + len(token)
                loc = _location(record.file, raw.text, found)
            else:
                loc = start
            yield Problem(loc, message, RULE, json_path(path))


def _kernel_problems(catalog: "Catalog", known: _Known) -> Iterator[Problem]:
    kernels = catalog.kernels_dir
    if not kernels.is_dir():
        return
    for path in sorted(p for p in kernels.rglob("*") if p.suffix in _KERNEL_SUFFIXES):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if b"xperiment" not in data and b"XPERIMENT" not in data and b"explorations/" not in data:
            continue
        text = data.decode("utf-8", errors="replace")
        rel = path.relative_to(catalog.root).as_posix()
        for offset, _, cited, message in _findings(text, known):
            yield Problem(_location(rel, text, offset), message if cited else message + _IN_KERNEL, RULE)


def check(catalog: "Catalog") -> Iterator[Problem]:
    known = _Known(catalog)
    for record in catalog.records():
        yield from _record_problems(catalog, known, record)
    yield from _kernel_problems(catalog, known)
