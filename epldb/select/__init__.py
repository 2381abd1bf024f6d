"""Evidence-driven selection: which realization and parameter point to run for a subject at a shape,
dtype and device, and why (``select``); the decision table that implies (``rules``); and how good the
picks are on evidence they did not see (``evaluate``). Importing this package loads nothing heavy:
the evidence is read on the first selection."""

from epldb.select.choose import Choice, Selector, select
from epldb.select.evaluate import Evaluation, evaluate
from epldb.select.observations import SelectError

__all__ = ["Choice", "Evaluation", "SelectError", "Selector", "evaluate", "select"]
