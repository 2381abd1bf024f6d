"""The decision tables of one generation (``epldb.select.rules``): for each primitive or operator, the
regions of dtype, problem and row length with the realization and points the evidence picks there,
computed once per subject over one ``Selector`` that reads this generation's evidence (never the
files again). ``epldb/site/pages/rules.py`` renders them on the subjects' pages. The same Selector
scores the selection on shapes it did not see (``epldb.select.evaluate``), once per generation, for
``epldb/site/pages/selection.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from epldb.catalog import Catalog
from epldb.select.choose import Selector
from epldb.select.evaluate import Evaluation, evaluate
from epldb.select.observations import SelectError
from epldb.select.rules import Region, rules

if TYPE_CHECKING:
    import pandas as pd

#: The evidence columns selection reads (epldb.select.observations).
SELECT_COLUMNS = ("run", "subject", "kind", "params", "dtype", "shape", "status", "stale", "time_ms_median",
                  "device", "run_kind")


class Decisions:
    """The decision table of each subject, computed on first asking and kept for the generation.

    ``of(id)`` is None for a subject there is nothing to choose among (no measurement contract, no
    verified realization with a kernel), an empty list for one without bench evidence, a sentence
    when selection failed on it (shown on its page, as the site shows a room's failure), else the
    regions in ``rules``' order (device, dtype, problem, row length)."""

    def __init__(self, catalog: Catalog, evidence: "pd.DataFrame | None") -> None:
        self.catalog = catalog
        self.evidence = evidence  # the generation's normalized evidence; None when there is none
        self._selector: Selector | None = None
        self._tables: dict[str, list[Region] | str | None] = {}
        self._evaluation: Evaluation | str | None = None

    @property
    def selector(self) -> Selector:
        """The one Selector of the generation, over the bench rows of its evidence."""
        if self._selector is None:
            self._selector = Selector(self.catalog, evidence=bench_rows(self.evidence))
        return self._selector

    def of(self, subject_id: str) -> list[Region] | str | None:
        if subject_id not in self._tables:
            self._tables[subject_id] = self._compute(subject_id)
        return self._tables[subject_id]

    def evaluation(self) -> Evaluation | str:
        """Leave one shape out (``epldb select --evaluate``) over every subject with bench evidence,
        computed on first asking over the one Selector (its observations, read once, are the decision
        tables' too); no cells without evidence, a sentence when the evaluation failed."""
        if self._evaluation is None:
            if self.evidence is None:
                self._evaluation = Evaluation(())
            else:
                try:
                    self._evaluation = evaluate(self.catalog, selector=self.selector)
                except Exception as exc:  # noqa: BLE001 - as _compute: a selection bug must not take the site down
                    self._evaluation = f"{type(exc).__name__}: {exc}"
        return self._evaluation

    def _compute(self, subject_id: str) -> list[Region] | str | None:
        try:
            self.selector.subject(subject_id)  # no contract or no verified realization: nothing to choose
        except SelectError:
            return None
        if self.evidence is None:
            return []
        try:
            return rules(self.catalog, subject_id, selector=self.selector)
        except Exception as exc:  # noqa: BLE001 - a selection bug must not take the whole site down
            return f"{type(exc).__name__}: {exc}"


def bench_rows(evidence: "pd.DataFrame | None") -> "pd.DataFrame":
    """The realizations' bench rows of the site's evidence, in the columns and plain types selection
    reads (as ``load_evidence(run_kind="bench", kind="realization")`` gives them); an empty frame when
    there is no evidence, so that selection never reads the files itself."""
    import pandas as pd

    if evidence is None:
        return pd.DataFrame({c: pd.Series([], dtype=bool if c == "stale" else object) for c in SELECT_COLUMNS})
    rows = evidence[evidence["kind"] == "realization"]
    if "run_kind" in rows:
        rows = rows[rows["run_kind"] == "bench"]
    rows = rows[[c for c in SELECT_COLUMNS if c in rows]]
    # The site holds its text columns as categories; selection groups and compares plain values.
    plain = {c: object for c in rows.columns if isinstance(rows[c].dtype, pd.CategoricalDtype)}
    return rows.astype(plain).reset_index(drop=True)


__all__ = ["SELECT_COLUMNS", "Decisions", "bench_rows"]
