"""A record's path is its id: ``features/<id>.yaml``, ``primitives/<family>/<id>.yaml`` (the folder is
the family), ``realizations/<primitive>/<name>.yaml`` (the folder is the primitive), ``operators/<id>.yaml``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from epldb.problems import Problem

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
            yield Problem(source.at(("id",)), f"id '{data['id']}' does not match the file's path, which makes "
                          f"it '{rf.expected_id}'; rename the file or change the id", RULE, "$.id")
        folder = rf.path.split("/")[2] if rf.kind in ("primitive", "realization") else None
        if rf.kind == "primitive" and data["family"] != folder:
            yield Problem(source.at(("family",)), f"family '{data['family']}' does not match the folder "
                          f"'{folder}' the record lives in; move the file or change the family", RULE, "$.family")
        if rf.kind == "realization" and data["primitive"] != folder:
            yield Problem(source.at(("primitive",)), f"primitive '{data['primitive']}' does not match the folder "
                          f"'{folder}' the record lives in; move the file or change the primitive", RULE,
                          "$.primitive")
