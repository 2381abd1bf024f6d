"""Measurement contracts by name (the ``contract:`` field of a primitive record, or of an operator
record for the operator's own realizations)."""

from __future__ import annotations

from epldb.contracts.base import (
    ArraySpec,
    Contract,
    Peer,
    Tolerance,
    make_rng,
    wide_range_values,
)
from epldb.contracts.block_tile_reduce import BlockTileReduce
from epldb.contracts.device_reduce import DeviceReduce
from epldb.contracts.gemm import Gemm
from epldb.contracts.layout_transpose import LayoutTranspose
from epldb.contracts.row_attention_decode import RowAttentionDecode
from epldb.contracts.row_cross_entropy import RowCrossEntropy
from epldb.contracts.row_layernorm import RowLayerNorm
from epldb.contracts.row_log_softmax import RowLogSoftmax
from epldb.contracts.row_logsumexp import RowLogSumExp
from epldb.contracts.row_moments import RowMoments
from epldb.contracts.row_reduce import RowReduce
from epldb.contracts.row_rmsnorm import RowRmsNorm
from epldb.contracts.row_softmax import RowSoftmax
from epldb.contracts.row_softmax_state import RowSoftmaxState
from epldb.contracts.warp_tile_reduce import WarpTileReduce

#: Contract classes by the name primitive records use; instances are made on demand.
REGISTRY: dict[str, type[Contract]] = {
    BlockTileReduce.name: BlockTileReduce,
    DeviceReduce.name: DeviceReduce,
    Gemm.name: Gemm,
    LayoutTranspose.name: LayoutTranspose,
    RowAttentionDecode.name: RowAttentionDecode,
    RowCrossEntropy.name: RowCrossEntropy,
    RowLayerNorm.name: RowLayerNorm,
    RowLogSoftmax.name: RowLogSoftmax,
    RowLogSumExp.name: RowLogSumExp,
    RowMoments.name: RowMoments,
    RowReduce.name: RowReduce,
    RowRmsNorm.name: RowRmsNorm,
    RowSoftmax.name: RowSoftmax,
    RowSoftmaxState.name: RowSoftmaxState,
    WarpTileReduce.name: WarpTileReduce,
}

_INSTANCES: dict[str, Contract] = {}


def get_contract(name: str | None) -> Contract | None:
    """The contract called ``name``, or None if there is none (or ``name`` is None)."""
    if name is None or name not in REGISTRY:
        return None
    if name not in _INSTANCES:
        _INSTANCES[name] = REGISTRY[name]()
    return _INSTANCES[name]


def contract_names() -> list[str]:
    return sorted(REGISTRY)


__all__ = [
    "REGISTRY",
    "ArraySpec",
    "BlockTileReduce",
    "Contract",
    "DeviceReduce",
    "Gemm",
    "LayoutTranspose",
    "Peer",
    "RowAttentionDecode",
    "RowCrossEntropy",
    "RowLayerNorm",
    "RowLogSoftmax",
    "RowLogSumExp",
    "RowMoments",
    "RowReduce",
    "RowRmsNorm",
    "RowSoftmax",
    "RowSoftmaxState",
    "Tolerance",
    "WarpTileReduce",
    "contract_names",
    "get_contract",
    "make_rng",
    "wide_range_values",
]
