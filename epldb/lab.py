"""What ``epldb.load()`` gives a user: the catalog, linted, with the layers above it at hand.

epldb.catalog loads and schema-checks records and imports nothing above it; this module puts the
layers together: the lint rules on every load (the cheap ones; ``validate`` adds the launch-plan
resolution) and the evidence as a table (``Lab.evidence``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from epldb.catalog import Catalog, CatalogInvalid
from epldb.catalog import load as load_records
from epldb.evidence import load_evidence
from epldb.lint import run_rules
from epldb.problems import has_errors, sort_problems

if TYPE_CHECKING:
    import pandas

    from epldb.select import Choice


class Lab(Catalog):
    """A catalog with its evidence."""

    def evidence(self, *, fresh: bool | None = None, device: str | Iterable[str] | None = None,
                 run_kind: str | Iterable[str] | None = None, kind: str | Iterable[str] | None = None,
                 experiments: bool = False) -> "pandas.DataFrame":
        """Every measured row under evidence/ as a tidy table: shape and parameter fields as typed
        columns, device, run kind, time, commit and ``stale`` (the machine code changed since); the
        filters keep fresh rows, or rows of the devices, run kinds (verify, bench, experiment) and row
        kinds (realization, peer, ceiling) given. Columns: epldb.evidence.table."""
        return load_evidence(self.root, self, fresh=fresh, device=device, run_kind=run_kind, kind=kind,
                             experiments=experiments)


    def select(self, subject: str, shape: "str | Mapping[str, int]", dtype: str, device: str | None = None,
               **problem: Any) -> "Choice":
        """The realization and parameter point the evidence picks for ``subject`` (an operator or
        primitive) at ``shape`` ('8192x32001' or a mapping), ``dtype`` and ``device`` (default: this
        machine's GPU, else the device measured most), with its predicted time, the evidence rows it
        rests on and the record's reason (epldb.select). Problem keys such as ``op="max"`` as keywords."""
        from epldb.select import Selector

        selector = self.__dict__.get("_selector")
        if selector is None:
            selector = self.__dict__["_selector"] = Selector(self)
        return selector.select(subject, shape, dtype, device, **problem)


def load(root: Path | str | None = None, *, strict: bool = False, lint: bool = True) -> Lab:
    """Load, schema-check and lint the catalog under ``root`` (default: the nearest above the
    working directory) with the rules cheap enough for every load; ``validate`` adds the
    launch-plan resolution. ``strict``: raise CatalogInvalid on any error instead of keeping it."""
    lab = cast(Lab, load_records(root, cls=Lab))
    if lint and lab.files:
        lab.problems = sort_problems([*lab.problems, *run_rules(lab)])
    if strict and has_errors(lab.problems):
        raise CatalogInvalid(lab.problems)
    return lab


def validate(root: Path | str | None = None, *, strict: bool = False) -> Lab:
    """``load`` plus every lint rule a load leaves out (each launch plan resolved at every point and
    verification shape): what ``epldb validate --schema-only`` reports, without evidence."""
    lab = load(root)
    if lab.ok:  # deep rules on records that failed would only repeat their errors
        lab.problems = sort_problems([*lab.problems, *run_rules(lab, deep=True)])
    if strict and has_errors(lab.problems):
        raise CatalogInvalid(lab.problems)
    return lab
