"""Every value of a dispatcher enum (BlockReduceAlgorithm, WarpReduceAlgorithm: what generated code
writes to pick an algorithm) instantiates the class it names and compiles in a kernel that reduces
through it. The values are read from the headers, so a new algorithm is tested once it is listed."""

from __future__ import annotations

import re

import pytest

from epldb.compile.nvrtc import compile_program
from repository import repository_catalog

INCLUDE = repository_catalog().root / "kernels" / "include"
_ENUM = re.compile(r"enum class (\w+)\s*\{([^}]*)\}")


def enum_values(header: str, name: str) -> list[str]:
    text = (INCLUDE / header).read_text(encoding="utf-8")
    for m in _ENUM.finditer(text):
        if m.group(1) == name:
            body = re.sub(r"//[^\n]*", "", m.group(2))
            return [v.strip() for v in body.split(",") if v.strip()]
    raise AssertionError(f"{header} declares no enum class {name}")


BLOCK = enum_values("epl/block/reduce.cuh", "BlockReduceAlgorithm")
WARP = enum_values("epl/warp/reduce_classes.cuh", "WarpReduceAlgorithm")


def _compile(source: str, name: str, toolchain) -> None:
    options = ["--gpu-architecture=compute_90a", "-std=c++17", f"-I{INCLUDE}",
               *(f"-I{d}" for d in toolchain.include_dirs)]
    result = compile_program(source, name, [], options)
    assert result.ok, f"{name} does not compile:\n{result.log}"
    assert "warning" not in result.log, f"{name} compiles with warnings:\n{result.log}"


@pytest.mark.parametrize("algorithm", BLOCK)
def test_block_reduce_dispatch_compiles(algorithm: str, toolchain) -> None:
    source = f"""#include <epl/block/reduce.cuh>
using R = epl::BlockReduce<256, epl::Sum, epl::BlockReduceAlgorithm::{algorithm}>;
extern "C" __global__ void __launch_bounds__(256) probe(const float* x, float* out) {{
  __shared__ typename R::TempStorage temp;
  const float r = R(temp).reduce(x[blockIdx.x * 256 + threadIdx.x]);
  if (threadIdx.x == 0) out[blockIdx.x] = r;
}}
"""
    _compile(source, f"block-reduce-{algorithm}.cu", toolchain)


@pytest.mark.parametrize("algorithm", WARP)
def test_warp_reduce_dispatch_compiles(algorithm: str, toolchain) -> None:
    value = "int" if algorithm == "redux" else "float"  # redux.sync is int32 only
    source = f"""#include <epl/warp/reduce_classes.cuh>
using R = epl::WarpReduce<epl::Sum, epl::WarpReduceAlgorithm::{algorithm}>;
extern "C" __global__ void __launch_bounds__(128) probe(const {value}* x, {value}* out) {{
  __shared__ typename R::TempStorage temp[4];
  const typename R::value_type r = R(temp[threadIdx.x / 32]).reduce(x[blockIdx.x * 128 + threadIdx.x]);
  if (threadIdx.x % 32 == 0) out[blockIdx.x * 4 + threadIdx.x / 32] = r;
}}
"""
    _compile(source, f"warp-reduce-{algorithm}.cu", toolchain)


def test_the_dispatchers_have_values() -> None:
    assert len(BLOCK) >= 4 and len(WARP) >= 4
