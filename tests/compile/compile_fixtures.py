"""A tiny repository in a tmp dir and realization records built by hand, for the compile tests.

Tests never touch the real kernels/ or catalog/ (other people own them); each builds its own
kernel and a realization whose source map gives every claim a distinct, known line.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from epldb.problems import Location
from epldb.records import Realization, SourceMap, realization_from

RECORD_FILE = "catalog/realizations/block-reduce/tiny-shuffle.yaml"

OPS_HEADER = """\
#pragma once
namespace epl {
struct Sum { template <class T> __device__ T operator()(T a, T b) const { return a + b; } };
}  // namespace epl
"""

WARP_HEADER = """\
#pragma once
#include <epl/ops.cuh>
namespace epl {
template <class T, class Op>
__device__ T warp_reduce(T v, Op op) {
  #pragma unroll
  for (int d = 16; d > 0; d /= 2) v = op(v, __shfl_down_sync(0xffffffffu, v, d));
  return v;
}
}  // namespace epl
"""

# A block reduction through warp shuffles and one shared-memory exchange.
KERNEL = """\
// block-reduce/tiny-shuffle: a test kernel
#include <epl/warp.cuh>
#include <cuda_bf16.h>

template <int Block, class T, class Op>
__global__ void tiny_shuffle(const T* __restrict__ x, float* __restrict__ out, int n) {
  __shared__ float warp_sums[Block / 32];
  int i = blockIdx.x * Block + threadIdx.x;
  float v = i < n ? float(x[i]) : 0.0f;
  v = epl::warp_reduce(v, Op{});
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();  // every warp's partial is in shared memory
  if (threadIdx.x < 32) {
    v = threadIdx.x < Block / 32 ? warp_sums[threadIdx.x] : 0.0f;
    v = epl::warp_reduce(v, Op{});
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
}
"""

KERNEL_REL = "reduction/block-reduce/tiny-shuffle.cu"


def write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text))
    return p


# Lines in the pretend YAML record, so tests can assert where a problem points.
LINES: dict[tuple[str | int, ...], int] = {
    ("kernel", "source"): 9,
    ("kernel", "entries", 0, "expression"): 12,
    ("targets", 0): 17,
    ("targets", 1): 18,
    ("targets", 2): 19,
    ("claims", "sass"): 21,
    ("claims", "sass", "require", 0): 22,
    ("claims", "sass", "forbid", 0): 23,
    ("claims", "sass", "forbid", 1): 24,
    ("claims", "max_registers"): 25,
    ("claims", "no_spills"): 26,
}


def make_realization(
    kernel: str = KERNEL_REL,
    expression: str = "tiny_shuffle<{block}, {dtype}, {op}>",
    params: dict[str, list[Any]] | None = None,
    targets: tuple[str, ...] = ("sm_80", "sm_90", "sm_90a"),
    claims: dict[str, Any] | None = None,
) -> Realization:
    data: dict[str, Any] = {
        "id": "block-reduce/tiny-shuffle",
        "primitive": "block-reduce",
        "title": "Tiny shuffle",
        "summary": "A test realization.",
        "status": "draft",
        "strategy": [{"name": "reduce", "text": "Shuffle, then exchange through shared memory."}],
        "kernel": {"source": kernel, "entries": [{"name": "reduce", "expression": expression}]},
        "params": params if params is not None else {"block": [128, 256], "dtype": ["float32", "bfloat16"], "op": ["sum"]},
        "targets": list(targets),
        "determinism": "bitwise",
    }
    if claims is not None:
        data["claims"] = claims
    values = {path: Location(RECORD_FILE, line, 3) for path, line in LINES.items()}
    return realization_from(data, RECORD_FILE, SourceMap(RECORD_FILE, values))


def make_repo(root: Path) -> Path:
    """kernels/include/epl/{ops,warp}.cuh and one block-reduce kernel under ``root``."""
    write(root, "kernels/include/epl/ops.cuh", OPS_HEADER)
    write(root, "kernels/include/epl/warp.cuh", WARP_HEADER)
    write(root, f"kernels/{KERNEL_REL}", KERNEL)
    return root
