"""Exploration 0048: why split-K (workspace or cluster sum) stays at 0.72-0.74 of cuBLAS at
m = 128 and 512, n = k = 4096 on the H100: one launch each under ncu (tools/ncu.py), with
cuBLAS (torch.matmul) at the same shapes last."""
import sys

sys.path.insert(0, "tools")
import ncu
import torch

B = "bfloat16"
S128 = {"m": 128, "n": 4096, "k": 4096}
S512 = {"m": 512, "n": 4096, "k": 4096}
cases = []
for bn, stages, splits in ((256, 4, 2), (256, 4, 4), (256, 4, 8), (128, 3, 4), (128, 4, 8)):
    cases.append(("gemm/split-k-cluster", S128, {"bn": bn, "stages": stages, "splits": splits, "sms": 132}))
cases.append(("gemm/split-k", S128, {"bn": 128, "stages": 4, "sms": 132}))
cases.append(("gemm/tma-wgmma", S128, {"bn": 128, "stages": 4}))
cases.append(("gemm/split-k-cluster", S512, {"bn": 256, "stages": 4, "splits": 2, "sms": 132}))
cases.append(("gemm/warp-specialized", S512, {"bn": 128, "stages": 4, "cluster": 1, "groups_per_tile": 2}))
import cupy
from epldb.catalog import default_catalog
from epldb.contracts.base import make_rng
from epldb.runner import prepare

catalog = default_catalog()
for rid, shape, point in cases:  # as ncu.profile_cases, with the gemm's dtype outside its points
    launcher = prepare(catalog, rid, shape, point)
    arrays = launcher.contract.make_inputs(shape, B, launcher.point, make_rng(cupy, 0), cupy)
    arrays.update(launcher.allocate_outputs())
    ncu.launch_in_range(launcher.bind(arrays))
    print("done", rid, shape, point, flush=True)
for s in (S128, S512):
    a = torch.randn(s["m"], s["k"], device="cuda", dtype=torch.bfloat16)
    b = torch.randn(s["n"], s["k"], device="cuda", dtype=torch.bfloat16)
    ncu.launch_in_range(lambda: torch.matmul(a, b.t()))
    print("done cublas", s, flush=True)
