"""Execution Primitive Lab: the catalog of GPU execution primitives, their realizations and evidence.

    import epldb
    cat = epldb.load()                 # this repository's catalog, schema-checked and linted
    cat = epldb.validate()             # the same, every launch plan resolved too
    cat.realizations_of("block-reduce")
    cat.evidence()                     # measured rows, stale ones flagged
    epldb.run("block-reduce/warp-shuffle", x, block=256, items=8, op="sum")   # on a GPU
"""

from __future__ import annotations

from epldb.catalog import Catalog, CatalogInvalid
from epldb.lab import Lab, load, validate
from epldb.problems import Location, Problem
from epldb.runner import run

__all__ = ["Catalog", "CatalogInvalid", "Lab", "Location", "Problem", "load", "run", "validate"]
