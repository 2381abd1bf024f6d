"""Execution Primitive Lab: the catalog of GPU execution primitives, their realizations and evidence.

    import epldb
    cat = epldb.load()                 # this repository's catalog, validated
    cat.realizations_of("block-reduce")
"""

from __future__ import annotations

from epldb.catalog import Catalog, CatalogInvalid, load
from epldb.problems import Location, Problem

__all__ = ["Catalog", "CatalogInvalid", "Location", "Problem", "load"]
