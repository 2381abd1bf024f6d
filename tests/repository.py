"""This repository's catalog, loaded and linted once per test run and shared by every module
that reads it (each used to load its own at import: a dozen loads before the first test ran)."""

from __future__ import annotations

from functools import cache

import epldb
from epldb.lab import Lab


@cache
def repository_catalog() -> Lab:
    return epldb.load()
