"""Typed records of the catalog, built from schema-valid YAML documents.

Each record keeps where it came from (its file and a map from JSON paths to positions), so that
every later check (lint, compile claims, evidence freshness) can point at the line it is about.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Literal

from epldb.problems import Location

JsonPath = tuple[str | int, ...]


@dataclass(frozen=True)
class SourceMap:
    """Positions of a document's values (and of mapping keys) by JSON path."""

    file: str
    values: dict[JsonPath, Location] = field(default_factory=dict)
    keys: dict[JsonPath, Location] = field(default_factory=dict)

    def at(self, path: JsonPath = ()) -> Location:
        """The position of the value at ``path``, or of its nearest ancestor that exists."""
        for cut in range(len(path), -1, -1):
            loc = self.values.get(tuple(path[:cut]))
            if loc is not None:
                return loc
        return Location(self.file, 1, 1)

    def key_at(self, path: JsonPath) -> Location:
        """The position of the mapping key that names ``path`` (falls back to its value)."""
        return self.keys.get(tuple(path)) or self.at(path)


@dataclass(frozen=True)
class Record:
    """Fields every record kind has: id, title, and where it came from."""

    id: str
    title: str
    file: str  # path relative to the repository root, POSIX
    source: SourceMap = field(repr=False, compare=False)
    data: dict[str, Any] = field(repr=False, compare=False)

    def loc(self, *path: str | int) -> Location:
        return self.source.at(tuple(path))


@dataclass(frozen=True)
class TargetLimits:
    """What one launch on a target may ask for (catalog/schema/target.schema.json, ``limits``)."""

    max_threads_per_block: int
    max_block: tuple[int, int, int]
    max_grid: tuple[int, int, int]
    max_shared_bytes_per_block: int
    shared_bytes_per_sm: int
    registers_per_sm: int
    max_registers_per_thread: int
    max_threads_per_sm: int
    max_blocks_per_sm: int
    max_cluster_blocks: int
    reference_sms: int


@dataclass(frozen=True)
class Target(Record):
    """A compilation target's profile: its features, launch limits and NVRTC options."""

    summary: str = ""
    compute_capability: tuple[int, int] = (0, 0)
    arch_specific: bool = False
    features: tuple[str, ...] = ()
    limits: TargetLimits | None = None
    nvrtc_options: tuple[str, ...] = ()
    devices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Feature(Record):
    question: str = ""
    definition: str = ""
    properties: tuple[str, ...] = ()
    example: str | None = None
    counterexample: str | None = None


@dataclass(frozen=True)
class Cost:
    factor: str
    note: str


@dataclass(frozen=True)
class Primitive(Record):
    family: str = ""
    summary: str = ""
    scope: str = ""
    features: tuple[str, ...] = ()
    properties: tuple[str, ...] = ()
    costs: tuple[Cost, ...] = ()
    contract: str | None = None
    operators: tuple[str, ...] = ()
    also_in: tuple[str, ...] = ()
    notes: str | None = None


@dataclass(frozen=True)
class Phase:
    name: str
    text: str


@dataclass(frozen=True)
class Entry:
    """A kernel entry point; ``expression`` is the NVRTC name expression with ``{param}`` placeholders."""

    name: str
    expression: str
    symbol: str

    @staticmethod
    def from_dict(d: dict[str, Any]) -> "Entry":
        expression = d["expression"]
        symbol = d.get("symbol") or expression.split("<", 1)[0].strip()
        return Entry(name=d["name"], expression=expression, symbol=symbol)


@dataclass(frozen=True)
class Kernel:
    source: str  # relative to kernels/
    entries: tuple[Entry, ...]

    def entry(self, name: str) -> Entry:
        for e in self.entries:
            if e.name == name:
                return e
        raise KeyError(name)


@dataclass(frozen=True)
class Claims:
    sass_require: tuple[str, ...] = ()
    sass_forbid: tuple[str, ...] = ()
    max_registers: int | None = None
    no_spills: bool = False
    # The entries sass_require applies to; empty: every entry.
    sass_require_entries: tuple[str, ...] = ()

    def requires_of(self, entry: str) -> tuple[str, ...]:
        """The opcodes entry ``entry``'s code must contain."""
        applies = not self.sass_require_entries or entry in self.sass_require_entries
        return self.sass_require if applies else ()


ParamValue = int | str | bool


@dataclass(frozen=True)
class Realization(Record):
    """A realization of one subject: a primitive (``primitive`` set) or a whole operator composed from
    building blocks (``operator`` set, ``composes`` naming the blocks). The schema allows either field;
    the lint rule realizes-one-subject requires exactly one, so a linted catalog has one of them."""

    primitive: str | None = None
    operator: str | None = None
    composes: tuple[str, ...] = ()
    summary: str = ""
    status: str = "draft"
    strategy: tuple[Phase, ...] = ()
    kernel: Kernel = Kernel("", ())
    params: dict[str, tuple[ParamValue, ...]] = field(default_factory=dict)
    # A launch-plan expression over the integer parameters: the points of the cross product where it
    # is 0 do not exist (e.g. a ring too deep for shared memory at the wider tiles).
    params_when: str | None = None
    targets: tuple[str, ...] = ()  # as written, else (after loading) every profile with `requires`
    requires: tuple[str, ...] = ()  # target features the kernel needs
    launch: dict[str, Any] | None = None  # the raw plan; epldb.launch evaluates it
    claims: Claims = Claims()
    determinism: str = "bitwise"
    when_it_wins: str | None = None
    notes: str | None = None

    @property
    def subject(self) -> str:
        """The id of what this realizes: its primitive, else its operator ('' when neither is given,
        which lint reports). It is also the folder the record lives in and the first part of its id."""
        return self.primitive or self.operator or ""

    @property
    def subject_kind(self) -> str:
        """'primitive' or 'operator': the kind of record ``subject`` names."""
        return "operator" if self.primitive is None and self.operator is not None else "primitive"

    @property
    def name(self) -> str:
        """The realization's own name, the part of the id after the subject."""
        return self.id.split("/", 1)[1]

    @property
    def kernel_path(self) -> PurePosixPath:
        """Path of the kernel source relative to the repository root."""
        return PurePosixPath("kernels") / self.kernel.source

    def points(self) -> list[dict[str, ParamValue]]:
        """Every point of the parameter space, in declaration order: the cross product, less the
        points where ``params_when`` is 0."""
        return [dict(p) for p in self._space]

    def points_crossed(self) -> list[dict[str, ParamValue]]:
        """Every point of the cross product, ``params_when`` not applied (what lint checks it on)."""
        names = list(self.params)
        return [dict(zip(names, combo)) for combo in itertools.product(*(self.params[n] for n in names))]

    @functools.cached_property
    def _space(self) -> tuple[dict[str, ParamValue], ...]:
        crossed = self.points_crossed()
        if self.params_when is None:
            return tuple(crossed)
        from epldb.launch.expr import Expr, parse, evaluate  # the launch language sits above records

        expr = parse(self.params_when)
        if not isinstance(expr, Expr):
            return tuple(crossed)  # lint rule params-when locates the error; no point is lost meanwhile
        return tuple(p for p in crossed if evaluate(expr, p) != 0)  # an evaluation error keeps it too

    def points_covering(self, where: Mapping[str, Sequence[str]] | None = None) -> list[dict[str, ParamValue]]:
        """A few of :meth:`points_where`'s points that hold every value of every parameter at least
        once (epldb.records.covering): what a check too slow for the whole space runs (the
        sanitizer, CI's PTX rebuild)."""
        return covering(self.points_where(where))

    def points_where(self, where: Mapping[str, Sequence[str]] | None) -> list[dict[str, ParamValue]]:
        """The points whose value of every parameter in ``where`` is one of its accepted values,
        compared as strings (as a command line gives them: ``--where group=256,512``; booleans as
        the records spell them, ``--where shift=true``); every point when ``where`` is None."""
        return [p for p in self.points() if not where or all(param_text(p.get(k)) in vs for k, vs in where.items())]


def covering(points: Sequence[Mapping[str, ParamValue]]) -> list[dict[str, ParamValue]]:
    """Points of a space, in its order, that hold every value of every parameter at least once:
    greedily the point with the most values not yet held, the earliest among equals (so the first
    point comes first). A 5 x 3 x 2 x 2 x 2 space of 120 points gives 5."""
    def values(p: Mapping[str, ParamValue]) -> set[tuple[str, str]]:
        return {(k, repr(v)) for k, v in p.items()}

    missing = set().union(*(values(p) for p in points)) if points else set()
    chosen: list[int] = []
    while missing:
        i = max(range(len(points)), key=lambda j: (len(missing & values(points[j])), -j))
        chosen.append(i)
        missing -= values(points[i])
    return [dict(points[i]) for i in sorted(chosen)] or [dict(p) for p in points[:1]]


def param_text(value: object) -> str:
    """A parameter value as records and ``--where`` spell it: a boolean as YAML does (true, false),
    anything else as str()."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def point_text(point: Mapping[str, object], sep: str = " ", empty: str = "") -> str:
    """A parameter point as ``name=value`` pairs joined by ``sep``; ``empty`` for no parameters."""
    return sep.join(f"{k}={param_text(v)}" for k, v in point.items()) or empty


@dataclass(frozen=True)
class OperatorFeature:
    feature: str
    where: str


@dataclass(frozen=True)
class Stage:
    name: str
    primitive: str
    role: str


@dataclass(frozen=True)
class Operator(Record):
    summary: str = ""
    math: str = ""
    features: tuple[OperatorFeature, ...] = ()
    decomposition: tuple[Stage, ...] = ()
    peers: tuple[str, ...] = ()
    contract: str | None = None  # the measurement contract of the operator's own realizations
    #: Degenerate inputs (constant-row, one-element, zero-rows, nan, inf) -> what the operator returns.
    degenerate: tuple[tuple[str, str], ...] = ()
    #: Realization ids as a ladder, simplest first (each rung one structural change over the last).
    ladder: tuple[str, ...] = ()
    notes: str | None = None

    @property
    def primitives(self) -> tuple[str, ...]:
        """The primitives of the decomposition, each once, in stage order."""
        return tuple(dict.fromkeys(s.primitive for s in self.decomposition))


Verdict = Literal["adopted", "rejected", "open"]
VERDICTS: tuple[Verdict, ...] = ("adopted", "rejected", "open")


@dataclass(frozen=True)
class Experiment(Record):
    """One question put to the hardware (``catalog/experiments/<NNNN>-<slug>.yaml``): the expectation
    written before the run, the change, the result and its verdict, and the records it concerns
    (realization, primitive or operator ids). ``evidence`` names its runs of kind experiment."""

    date: str = ""
    question: str = ""
    expectation: str = ""
    change: str = ""
    result: str = ""
    verdict: Verdict = "open"
    concerns: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()

    @property
    def number(self) -> int:
        """The sequence number, the id's first four digits."""
        return int(self.id[:4])


# --- construction from schema-valid documents ------------------------------------------------


def _common(data: dict[str, Any], file: str, source: SourceMap) -> dict[str, Any]:
    return {"id": data["id"], "title": data["title"], "file": file, "source": source, "data": data}


def target_from(data: dict[str, Any], file: str, source: SourceMap) -> Target:
    lim = data["limits"]
    limits = TargetLimits(**{k: tuple(v) if isinstance(v, list) else v for k, v in lim.items()})
    return Target(
        **_common(data, file, source),
        summary=data["summary"],
        compute_capability=(int(data["compute_capability"][0]), int(data["compute_capability"][1])),
        arch_specific=bool(data["arch_specific"]),
        features=tuple(data["features"]),
        limits=limits,
        nvrtc_options=tuple(data.get("nvrtc_options", ())),
        devices=tuple(data.get("devices", ())),
    )


def feature_from(data: dict[str, Any], file: str, source: SourceMap) -> Feature:
    return Feature(
        **_common(data, file, source),
        question=data["question"],
        definition=data["definition"],
        properties=tuple(data["properties"]),
        example=data.get("example"),
        counterexample=data.get("counterexample"),
    )


def primitive_from(data: dict[str, Any], file: str, source: SourceMap) -> Primitive:
    return Primitive(
        **_common(data, file, source),
        family=data["family"],
        summary=data["summary"],
        scope=data["scope"],
        features=tuple(data["features"]),
        properties=tuple(data["properties"]),
        costs=tuple(Cost(c["factor"], c["note"]) for c in data["costs"]),
        contract=data.get("contract"),
        operators=tuple(data.get("operators", ())),
        also_in=tuple(data.get("also_in", ())),
        notes=data.get("notes"),
    )


def realization_from(data: dict[str, Any], file: str, source: SourceMap) -> Realization:
    claims = data.get("claims", {})
    sass = claims.get("sass", {})
    return Realization(
        **_common(data, file, source),
        primitive=data.get("primitive"),
        operator=data.get("operator"),
        composes=tuple(data.get("composes", ())),
        summary=data["summary"],
        status=data["status"],
        strategy=tuple(Phase(p["name"], p["text"]) for p in data["strategy"]),
        kernel=Kernel(
            source=data["kernel"]["source"],
            entries=tuple(Entry.from_dict(e) for e in data["kernel"]["entries"]),
        ),
        params={k: tuple(v) for k, v in data["params"].items()},
        params_when=data.get("params_when"),
        targets=tuple(data.get("targets", ())),
        requires=tuple(data.get("requires", ())),
        launch=data.get("launch"),
        claims=Claims(
            sass_require=tuple(sass.get("require", ())),
            sass_forbid=tuple(sass.get("forbid", ())),
            max_registers=claims.get("max_registers"),
            no_spills=bool(claims.get("no_spills", False)),
            sass_require_entries=tuple(sass.get("require_entries", ())),
        ),
        determinism=data["determinism"],
        when_it_wins=data.get("when_it_wins"),
        notes=data.get("notes"),
    )


def operator_from(data: dict[str, Any], file: str, source: SourceMap) -> Operator:
    return Operator(
        **_common(data, file, source),
        summary=data["summary"],
        math=data["math"],
        features=tuple(OperatorFeature(f["feature"], f["where"]) for f in data["features"]),
        decomposition=tuple(Stage(s["name"], s["primitive"], s["role"]) for s in data["decomposition"]),
        peers=tuple(data["peers"]),
        contract=data.get("contract"),
        degenerate=tuple((k, str(v)) for k, v in (data.get("degenerate") or {}).items()),
        ladder=tuple(data.get("ladder") or ()),
        notes=data.get("notes"),
    )


def experiment_from(data: dict[str, Any], file: str, source: SourceMap) -> Experiment:
    return Experiment(
        **_common(data, file, source),
        date=data["date"],
        question=data["question"],
        expectation=data["expectation"],
        change=data["change"],
        result=data["result"],
        verdict=data["verdict"],
        concerns=tuple(data["concerns"]),
        evidence=tuple(data.get("evidence", ())),
    )
