"""Experiments are numbered honestly: each sequence number once, in the order the experiments were
begun (a higher number is never dated before a lower one), and each date a real calendar date."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import TYPE_CHECKING

from epldb.problems import Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog
    from epldb.records import Experiment

RULE = "experiment-numbered"


def _date(e: "Experiment") -> datetime.date | None:
    try:
        return datetime.date.fromisoformat(e.date)
    except ValueError:
        return None


def check(catalog: "Catalog") -> Iterator[Problem]:
    first_of: dict[int, "Experiment"] = {}
    latest: tuple[datetime.date, "Experiment"] | None = None  # the latest date among lower numbers
    for e in sorted(catalog.experiments.values(), key=lambda x: (x.number, x.id)):
        if e.number in first_of:
            yield Problem(e.loc("id"), f"number {e.id[:4]} is already used by {first_of[e.number].file}; give this "
                          "experiment the next free number", RULE, "$.id")
        else:
            first_of[e.number] = e
        day = _date(e)
        if day is None:
            yield Problem(e.loc("date"), f"'{e.date}' is not a calendar date (YYYY-MM-DD)", RULE, "$.date")
            continue
        if latest is not None and day < latest[0] and latest[1].number < e.number:
            yield Problem(e.loc("date"), f"dated {e.date}, before experiment {latest[1].id} ({latest[1].date}), which "
                          "has a lower number: numbers follow the order the experiments were begun", RULE, "$.date")
        if latest is None or day > latest[0]:
            latest = (day, e)
