"""Where a primitive is used: the realizations whose ``composes`` names it, or one of its
realizations, as a building block (an operator's kernels compose primitives they do not realize);
and the kernels of an operator that has none of its own, realized through its stages."""

from __future__ import annotations

from dataclasses import dataclass

from epldb.catalog import Catalog
from epldb.records import Operator, Realization


@dataclass(frozen=True)
class Use:
    realization: Realization  # the realization that composes the block
    block: str  # the block as its composes names it: the primitive, or one of its realizations


def used_inside(cat: Catalog, primitive_id: str) -> list[Use]:
    """The realizations that compose ``primitive_id`` or a realization of it, in catalog order;
    a realization naming it twice counts once (at its first block)."""
    uses: list[Use] = []
    for r in cat.realizations.values():
        block = next((b for b in r.composes if b.split("/", 1)[0] == primitive_id), None)
        if block is not None:
            uses.append(Use(r, block))
    return uses


def stage_kernels(cat: Catalog, o: Operator) -> list[Realization]:
    """An operator's kernels when it has no realization of its own: the realizations of its stages'
    primitives that are measured under the operator's own contract (so each one computes the whole
    operator as the contract defines it, as split-KV decoding does attention row statistics).
    Empty when the operator has realizations, or no contract."""
    if o.contract is None or cat.realizations_of(o.id):
        return []
    measured = [pid for pid in o.primitives if (p := cat.primitives.get(pid)) is not None and p.contract == o.contract]
    return [r for pid in measured for r in cat.realizations_of(pid)]


__all__ = ["Use", "stage_kernels", "used_inside"]
