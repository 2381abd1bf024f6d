"""An operator's ``peers`` are peer implementations its ``contract`` has (``epldb.contracts``: the
names its peer rows carry, ``torch-eager``, ``torch-compile``, ``liger-kernel``, ``cupy``), so a page advertises only
peers that a bench can time beside the kernels. Without a contract nothing is timed yet, and the
rule waits for one."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from epldb.contracts import get_contract
from epldb.problems import Problem

if TYPE_CHECKING:
    from epldb.catalog import Catalog

RULE = "peers-measured"


def check(catalog: "Catalog") -> Iterator[Problem]:
    for o in catalog.operators.values():
        contract = get_contract(o.contract)
        if contract is None:  # none named, or an unknown one (contract-known reports that)
            continue
        names = [p.name for p in contract.peers()]
        for i, peer in enumerate(o.peers):
            if peer in names:
                continue
            close = difflib.get_close_matches(peer, names, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"it implements {', '.join(names) or 'none'}"
            yield Problem(o.loc("peers", i), f"contract '{o.contract}' has no peer '{peer}'; {hint}",
                          RULE, f"$.peers[{i}]")
