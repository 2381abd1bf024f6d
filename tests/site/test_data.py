"""The columns the pages group and label rows by (epldb/site/data.py)."""

from __future__ import annotations

from epldb.site.data import knobs_label, variant_of


def test_string_parameters_are_the_problem_unless_the_contract_says_otherwise() -> None:
    reduce_point = {"block": 256, "dtype": "float32", "op": "sum"}
    assert variant_of(reduce_point) == "op=sum" and knobs_label(reduce_point) == "block=256"
    # A realization's choice of operator policy is a string but not the problem: the contract's
    # peer_params (here only the dtype) decide, so its rows share the peers' variant.
    softmax_point = {"group": 32, "items": 8, "policy": "SoftmaxRow", "dtype": "bfloat16"}
    problem = {"dtype": "bfloat16"}
    assert variant_of(softmax_point, problem) == ""
    assert knobs_label(softmax_point, problem) == "group=32 items=8 policy=SoftmaxRow"
    # Without the contract's word, every string is the problem (peers' and ceilings' rows).
    assert variant_of(softmax_point) == "policy=SoftmaxRow"
    assert knobs_label(softmax_point) == "group=32 items=8"
