"""Declarative launch plans: the safe arithmetic language and plan resolution."""

from epldb.launch.env import ITEMSIZE, plan_env
from epldb.launch.expr import FUNCTIONS, Expr, ExprError, evaluate, parse, tokenize
from epldb.launch.plan import (
    ArrayArg,
    Binding,
    LaunchLimits,
    ResolvedPlan,
    ResolvedStep,
    ScalarArg,
    ScratchBuffer,
    check_plan,
    contract_arrays,
    pick_entry,
    plans_in_domain,
    resolve_plan,
)
from epldb.launch.tensor_map import TensorMapArg, TensorMapError, check_tensor_map, encode_tiled

__all__ = [
    "FUNCTIONS",
    "ITEMSIZE",
    "ArrayArg",
    "Binding",
    "Expr",
    "ExprError",
    "LaunchLimits",
    "ResolvedPlan",
    "ResolvedStep",
    "ScalarArg",
    "ScratchBuffer",
    "TensorMapArg",
    "TensorMapError",
    "check_plan",
    "check_tensor_map",
    "contract_arrays",
    "encode_tiled",
    "evaluate",
    "parse",
    "pick_entry",
    "plan_env",
    "plans_in_domain",
    "resolve_plan",
    "tokenize",
]
