"""A record's path is its id: ``features/<id>.yaml``, ``primitives/<family>/<id>.yaml`` (the folder is
the family), ``realizations/<subject>/<name>.yaml`` (the folder is the primitive or operator realized,
whichever the record gives), ``operators/<id>.yaml``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from epldb.problems import Problem, first_non_ascii

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "path-matches-id"


def check(catalog: "Catalog") -> Iterator[Problem]:
    for rf in catalog.files:
        if not rf.valid:
            continue
        data, source = rf.data, rf.source
        assert source is not None
        if data["id"] != rf.expected_id:
            odd = first_non_ascii(rf.expected_id)
            # The two can look the same: then the file name's look-alike is what to say.
            why = (f"the file's name is not ASCII ({odd.replace('; retype it', '')}); rename the file" if odd else
                   "rename the file or change the id")
            yield Problem(source.at(("id",)), f"id '{data['id']}' does not match the file's path, which makes "
                          f"it '{rf.expected_id}'; {why}", RULE, "$.id")
        folder = rf.path.split("/")[2] if rf.kind in ("primitive", "realization") else None
        if rf.kind == "primitive" and data["family"] != folder:
            yield Problem(source.at(("family",)), f"family '{data['family']}' does not match the folder "
                          f"'{folder}' the record lives in; move the file or change the family", RULE, "$.family")
        if rf.kind == "realization":
            # Exactly one subject is realizes-one-subject's to report; here only a lone one is checked.
            given = [k for k in ("primitive", "operator") if k in data]
            if len(given) == 1 and data[given[0]] != folder:
                key = given[0]
                yield Problem(source.at((key,)), f"{key} '{data[key]}' does not match the folder "
                              f"'{folder}' the record lives in; move the file or change the {key}", RULE,
                              f"$.{key}")
