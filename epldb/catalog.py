"""The catalog: every record of a repository loaded, schema-validated and typed.

``load(root)`` never raises for bad content: each problem is kept, located, on ``Catalog.problems``,
and records that failed their schema are left out of the mappings (they cannot be typed).
``load(root, strict=True)`` raises ``CatalogInvalid`` instead, for API users who want the model only.
This is the bottom layer: lint rules (epldb.lint), evidence (epldb.evidence) and the linted
catalog users get from ``epldb.load`` (epldb.lab) are built on it, and it imports none of them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from epldb import schema
from epldb.problems import Location, Problem, has_errors, sort_problems
from epldb.records import (
    Experiment,
    Feature,
    Operator,
    Primitive,
    Realization,
    Record,
    SourceMap,
    Target,
    experiment_from,
    feature_from,
    operator_from,
    primitive_from,
    realization_from,
    target_from,
)
from epldb.yamlsafe import load_yaml


# kind → (folder under catalog/, depth of the file below it, record builder)
_LAYOUT: dict[schema.Kind, tuple[str, int, Callable[[dict[str, Any], str, SourceMap], Record]]] = {
    "feature": ("features", 1, feature_from),
    "primitive": ("primitives", 2, primitive_from),
    "realization": ("realizations", 2, realization_from),
    "operator": ("operators", 1, operator_from),
    "experiment": ("experiments", 1, experiment_from),
    "target": ("targets", 1, target_from),
}


class CatalogInvalid(Exception):
    """Raised by ``load(strict=True)`` when the catalog has errors; carries all of them."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        errors = [p for p in problems if p.severity == "error"]
        super().__init__(f"{len(errors)} error(s) in the catalog:\n" + "\n".join(p.format() for p in errors))


@dataclass
class RecordFile:
    """A record file as found on disk, before and after validation."""

    kind: schema.Kind
    path: str  # relative to the root, POSIX
    expected_id: str
    data: Any = None
    source: SourceMap | None = None
    valid: bool = False


@dataclass
class Catalog:
    root: Path
    features: dict[str, Feature] = field(default_factory=dict)
    primitives: dict[str, Primitive] = field(default_factory=dict)
    realizations: dict[str, Realization] = field(default_factory=dict)
    operators: dict[str, Operator] = field(default_factory=dict)
    experiments: dict[str, Experiment] = field(default_factory=dict)
    targets: dict[str, Target] = field(default_factory=dict)  # profiles, by target name
    files: list[RecordFile] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    # --- queries ---------------------------------------------------------------------------

    @property
    def ok(self) -> bool:
        return not has_errors(self.problems)

    @property
    def catalog_dir(self) -> Path:
        return self.root / "catalog"

    @property
    def kernels_dir(self) -> Path:
        return self.root / "kernels"

    def records(self) -> Iterator[Record]:
        yield from self.features.values()
        yield from self.primitives.values()
        yield from self.realizations.values()
        yield from self.operators.values()
        yield from self.experiments.values()
        yield from self.targets.values()

    def get(self, record_id: str) -> Record | None:
        """Any record by id (realization ids contain a '/', so ids never collide across kinds
        except between features, primitives and operators, which are looked up in that order;
        primitive and operator ids must differ, lint rule subject-ids-distinct, since both name
        realization folders; experiment ids, '<NNNN>-<slug>', then target profiles, 'sm_NN')."""
        for mapping in (self.realizations, self.primitives, self.features, self.operators, self.experiments,
                        self.targets):
            if record_id in mapping:
                return mapping[record_id]  # type: ignore[return-value]
        return None

    def invalid_ids(self, kind: str) -> set[str]:
        """Ids of records of ``kind`` that exist on disk but failed their schema, or whose id is not
        the one their path gives (path-matches-id says so): references to them are not reported
        again, the record's own problems already say what is wrong."""
        return {rf.expected_id for rf in self.files if rf.kind == kind and (
            not rf.valid or (isinstance(rf.data, dict) and rf.data.get("id") != rf.expected_id))}

    def kind_of(self, record: Record) -> str:
        return type(record).__name__.lower()

    def realizations_of(self, subject_id: str) -> list[Realization]:
        """The realizations of one subject, a primitive or an operator, by id."""
        return [r for r in self.realizations.values() if r.subject == subject_id]

    def select_realizations(self, ids: Iterable[str]) -> tuple[list[str], list[str]]:
        """The realization ids that ``ids`` name, in order without repeats (a primitive or operator id
        names all of its realizations), and the ids that name nothing."""
        chosen: list[str] = []
        unknown: list[str] = []
        for i in ids:
            if i in self.realizations:
                chosen.append(i)
            elif subject := self.realizations_of(i):
                chosen.extend(r.id for r in subject)
            else:
                unknown.append(i)
        return list(dict.fromkeys(chosen)), unknown

    def subject_of(self, realization: Realization) -> Primitive | Operator | None:
        """The primitive or operator record a realization realizes, or None when it is not in the catalog."""
        if realization.primitive is not None:
            return self.primitives.get(realization.primitive)
        if realization.operator is not None:
            return self.operators.get(realization.operator)
        return None

    def contract_name_of(self, realization: Realization) -> str | None:
        """The name of the measurement contract a realization is verified and timed under: its
        primitive's ``contract``, or, for an operator realization, the operator's. None when the
        subject is missing or names none (whether the name is known is ``epldb.contracts``' business)."""
        subject = self.subject_of(realization)
        return subject.contract if subject is not None else None

    def families_of(self, realization: Realization) -> set[str]:
        """The families a realization belongs to: its primitive's, or for an operator realization the
        families of the primitives in the operator's decomposition."""
        subject = self.subject_of(realization)
        if isinstance(subject, Primitive):
            return {subject.family}
        if isinstance(subject, Operator):
            return {p.family for pid in subject.primitives if (p := self.primitives.get(pid)) is not None}
        return set()

    def features_of(self, realization: Realization) -> set[str]:
        """The features a realization exploits: its primitive's, or for an operator realization the
        features its operator shows."""
        subject = self.subject_of(realization)
        if isinstance(subject, Primitive):
            return set(subject.features)
        if isinstance(subject, Operator):
            return {f.feature for f in subject.features}
        return set()

    def primitives_where(self, *, family: str | None = None, feature: str | None = None) -> list[Primitive]:
        """Primitives of a family and/or exploiting a feature."""
        return [
            p
            for p in self.primitives.values()
            if (family is None or p.family == family) and (feature is None or feature in p.features)
        ]

    def realizations_where(
        self, *, family: str | None = None, feature: str | None = None, primitive: str | None = None,
        operator: str | None = None,
    ) -> list[Realization]:
        """Realizations of a family, exploiting a feature, and/or of the primitive or operator named.
        An operator realization counts in every family of its operator's decomposition and for every
        feature its operator shows (``families_of``, ``features_of``); a realization whose subject is
        missing from the catalog matches no family or feature filter."""
        return [
            r
            for r in self.realizations.values()
            if self.subject_of(r) is not None
            and (family is None or family in self.families_of(r))
            and (feature is None or feature in self.features_of(r))
            and (primitive is None or r.primitive == primitive)
            and (operator is None or r.operator == operator)
        ]

    def operators_using(self, primitive_id: str) -> list[Operator]:
        return [o for o in self.operators.values() if primitive_id in o.primitives]

    def operators_with(self, feature_id: str) -> list[Operator]:
        return [o for o in self.operators.values() if any(f.feature == feature_id for f in o.features)]

    def experiments_concerning(self, record_id: str, *, realizations: bool = False) -> list[Experiment]:
        """The experiments whose ``concerns`` name ``record_id`` (a realization, primitive or operator),
        in number order; with ``realizations=True``, for a primitive or operator also those that
        name one of its realizations."""
        ids = {record_id}
        if realizations:
            ids |= {r.id for r in self.realizations_of(record_id)}
        return [e for e in self.experiments.values() if ids.intersection(e.concerns)]


def default_root() -> Path:
    """The catalog to read when none is named, found as git and pytest find their roots: the nearest
    ancestor of the working directory holding a catalog, else the repository the package is
    installed from, else the working directory (which :func:`load` then reports as no catalog)."""
    cwd = Path.cwd().resolve()
    for candidate in (cwd, *cwd.parents):
        if is_root(candidate):
            return candidate
    here = Path(__file__).resolve().parent.parent
    if is_root(here):
        return here
    return cwd


def is_root(path: Path) -> bool:
    """Whether ``path`` holds a catalog: catalog/ with its schemas or a folder of records."""
    catalog = path / "catalog"
    return any((catalog / folder).is_dir() for folder in ("schema", *(f for f, _, _ in _LAYOUT.values())))


def _no_catalog(root: Path) -> Problem | None:
    """Why ``root`` holds no catalog (missing, empty, or the catalog folder itself), or None."""
    where = Location(root.as_posix())
    if (root.name == "catalog" and (root / "schema").is_dir()) or (root / "realizations").is_dir():
        return Problem(where, f"{root} is a catalog folder, not a repository root: give its parent "
                       f"({root.parent}) as the root", "layout")
    if not (root / "catalog").is_dir():
        return Problem(where, f"no catalog/ folder under {root}: run inside a repository of the lab, or give "
                       "its root with --root DIR", "layout")
    if not any((root / "catalog" / folder).is_dir() and any((root / "catalog" / folder).rglob("*.yaml"))
               for folder, _, _ in _LAYOUT.values()):
        return Problem(where, f"{root / 'catalog'} holds no record (catalog/features/, primitives/, "
                       "realizations/, operators/ or experiments/ with YAML files)", "layout")
    return None


#: The repository epldb is installed from: its schemas and target profiles serve roots without them.
_REPOSITORY = Path(__file__).resolve().parent.parent


def _discover(root: Path, only: str | None = None) -> tuple[list[RecordFile], list[Problem]]:
    files: list[RecordFile] = []
    problems: list[Problem] = []
    catalog_dir = root / "catalog"
    for kind, (folder, depth, _) in _LAYOUT.items():
        if only is not None and kind != only:
            continue
        base = catalog_dir / folder
        if not base.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for name in sorted(filenames):
                full = Path(dirpath) / name
                rel_to_base = full.relative_to(base)
                rel = full.relative_to(root).as_posix()
                if name.startswith("."):
                    continue
                if not name.endswith(".yaml"):
                    problems.append(Problem(Location(rel), "not a record: record files end in '.yaml'; rename or "
                                            "remove it", "layout"))
                    continue
                if len(rel_to_base.parts) != depth:
                    where = f"catalog/{folder}/" + ("<group>/" if depth == 2 else "") + "<id>.yaml"
                    article = "an" if kind[0] in "aeiou" else "a"
                    problems.append(Problem(Location(rel), f"{article} {kind} record belongs at {where}", "layout"))
                    continue
                stem = name[: -len(".yaml")]
                expected = f"{rel_to_base.parts[0]}/{stem}" if kind == "realization" else stem
                files.append(RecordFile(kind, rel, expected))
    return files, problems


#: The largest record file read: the largest in the catalog is about 8 KiB. A larger file is a
#: mistake (a log or data pasted in), and parsing it whole would cost time and memory for nothing.
MAX_RECORD_BYTES = 1 << 20


def _undecodable(data: bytes, file: str, exc: UnicodeDecodeError) -> Problem:
    """Where the first byte that is not UTF-8 sits, by line and column (an editor's terms, not
    the byte offset the codec gives)."""
    before = data[: exc.start]
    line = before.count(b"\n") + 1
    col = len(before[before.rfind(b"\n") + 1:].decode("utf-8", errors="replace")) + 1
    return Problem(Location(file, line, col), f"byte 0x{data[exc.start]:02x} is not UTF-8 ({exc.reason}); save the "
                   "file as UTF-8, or write the character out in ASCII", "io")


def _read_text(root: Path, rf: RecordFile, problems: list[Problem]) -> str | None:
    path = root / rf.path
    try:
        resolved = path.resolve()
        if root not in resolved.parents:
            problems.append(Problem(Location(rf.path, 1, 1), f"the record is a link to {resolved}, outside the "
                                    "repository; put the record itself here", "io"))
            return None
        if not resolved.is_file():
            # A device (/dev/zero) or a pipe would be read forever; only regular files are records.
            problems.append(Problem(Location(rf.path, 1, 1), "not a regular file; a record is a YAML file", "io"))
            return None
        size = path.stat().st_size
        if size > MAX_RECORD_BYTES:
            problems.append(Problem(Location(rf.path, 1, 1), f"the file is {size / (1 << 20):.1f} MiB; a record is "
                                    f"at most {MAX_RECORD_BYTES >> 20} MiB of YAML: move data to evidence/ or "
                                    "remove what was pasted in", "io"))
            return None
        data = path.read_bytes()
    except OSError as exc:
        problems.append(Problem(Location(rf.path, 1, 1), f"cannot read the file: {exc.strerror or exc}", "io"))
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(_undecodable(data, rf.path, exc))
        return None


def _read(root: Path, rf: RecordFile, schema_dir: Path, problems: list[Problem]) -> Record | None:
    """One record file parsed, schema-checked and typed; None (its problems kept) when it is not valid."""
    text = _read_text(root, rf, problems)
    if text is None:
        return None
    doc, yaml_problems = load_yaml(text, rf.path)
    problems.extend(yaml_problems)
    if doc is None:
        return None
    rf.data, rf.source = doc.data, doc.source
    if not isinstance(doc.data, dict):
        got = "a list" if isinstance(doc.data, list) else f"a single value ({type(doc.data).__name__})"
        problems.append(Problem(doc.source.at(()), f"a record is a YAML mapping of fields ('id: ...' lines), but "
                                f"this file holds {got}", schema.RULE))
        return None
    # A value the YAML layer refused (a duplicate, an over-long integer) was kept in some form; the
    # schema's complaint about that same value would be a second message for one mistake.
    refused = [p.json_path for p in yaml_problems if p.json_path != "$"]
    schema_problems = [p for p in schema.validate(doc.data, rf.kind, doc.source, schema_dir)
                       if not any(p.json_path == r or p.json_path.startswith((r + ".", r + "[")) for r in refused)]
    problems.extend(schema_problems)
    if schema_problems or yaml_problems:
        return None
    rf.valid = True
    return _LAYOUT[rf.kind][2](doc.data, rf.path, doc.source)


def _add(record: Record | None, mapping: dict[str, Any], problems: list[Problem]) -> None:
    if record is None:
        return
    if record.id in mapping:
        first = mapping[record.id]
        problems.append(Problem(record.loc("id"), f"id '{record.id}' is already used by {first.file}", "unique-id", "$.id"))
        return
    mapping[record.id] = record


def _derive_targets(catalog: Catalog) -> None:
    """A realization that names the features it needs rather than its targets builds for every
    profile that has them all (lint rule target-profiles reports one that matches none)."""
    for rid, r in catalog.realizations.items():
        if not r.targets and r.requires:
            fitting = tuple(t.id for t in catalog.targets.values() if set(r.requires) <= set(t.features))
            catalog.realizations[rid] = replace(r, targets=fitting)


def load(root: Path | str | None = None, *, strict: bool = False, cls: type[Catalog] = Catalog) -> Catalog:
    """Load and schema-check the catalog under ``root`` (default: :func:`default_root`) as a
    ``cls``; the lint rules are a layer above (epldb.lab.load runs them). A root without a catalog
    is an error, never an empty catalog."""
    root_path = Path(root).resolve() if root is not None else default_root()
    catalog = cls(root_path)
    missing = _no_catalog(root_path)
    if missing is not None:
        catalog.problems = [missing]
        if strict:
            raise CatalogInvalid(catalog.problems)
        return catalog
    files, problems = _discover(root_path)
    schema_dir = root_path / "catalog" / "schema"
    if not schema_dir.is_dir():
        # A root without its own schemas (a test fixture) is checked against those of the repository
        # epldb is installed from.
        schema_dir = _REPOSITORY / "catalog" / "schema"
    broken = schema.schema_problems(schema_dir)
    if broken:  # no record can be checked: the schemas' problems are the only messages
        catalog.problems = broken
        if strict:
            raise CatalogInvalid(catalog.problems)
        return catalog
    mappings: dict[str, dict[str, Any]] = {
        "feature": catalog.features,
        "primitive": catalog.primitives,
        "realization": catalog.realizations,
        "operator": catalog.operators,
        "experiment": catalog.experiments,
        "target": catalog.targets,
    }
    for rf in files:
        _add(_read(root_path, rf, schema_dir, problems), mappings[rf.kind], problems)
    if not (root_path / "catalog" / "targets").is_dir():
        catalog.targets.update(target_profiles(root_path))  # a fixture builds for the repository's
    catalog.files = files
    for mapping in mappings.values():
        ordered = dict(sorted(mapping.items()))
        mapping.clear()
        mapping.update(ordered)
    _derive_targets(catalog)
    catalog.problems = sort_problems(problems)
    if strict and has_errors(catalog.problems):
        raise CatalogInvalid(catalog.problems)
    return catalog


def target_profiles(root: Path | str) -> dict[str, Target]:
    """The target profiles builds under ``root`` read (its own catalog/targets/, else the installed
    repository's), without loading the rest of the catalog; their problems are load()'s to report."""
    base = Path(root).resolve()
    if not (base / "catalog" / "targets").is_dir():
        base = _REPOSITORY
    files, _ = _discover(base, only="target")
    stamps = tuple((rf.path, (base / rf.path).stat().st_mtime_ns) for rf in files)
    return _profiles(base, stamps)


@cache
def _profiles(base: Path, stamps: tuple[tuple[str, int], ...]) -> dict[str, Target]:
    out: dict[str, Target] = {}
    schema_dir = base / "catalog" / "schema"
    for path, _ in stamps:
        record = _read(base, RecordFile("target", path, Path(path).stem), schema_dir, [])
        if isinstance(record, Target):
            out.setdefault(record.id, record)
    return out


_CATALOGS: dict[str, Catalog] = {}


def default_catalog(root: Path | str | None = None) -> Catalog:
    """The catalog under ``root`` (default: :func:`default_root`), loaded once per process and not
    linted: what running, verifying and reading evidence need."""
    key = str(Path(root).resolve() if root else default_root())
    if key not in _CATALOGS:
        _CATALOGS[key] = load(Path(key))
    return _CATALOGS[key]
