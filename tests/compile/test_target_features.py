"""The kernels' feature macros (epl/target.cuh) agree with the target profiles (catalog/targets/):
a probe compiled for each profile fails on any EPL_HAS_<FEATURE> defined where the profile lacks
the feature or missing where it has it. The profiles and the feature vocabulary come from the
catalog and its schema, never from a list written here."""

from __future__ import annotations

import json

import pytest

from repository import repository_catalog
from epldb.compile.nvrtc import compile_program, ptx_options
from epldb.launch import LaunchLimits

CATALOG = repository_catalog()
FEATURES = json.loads((CATALOG.catalog_dir / "schema" / "defs.schema.json").read_text())["$defs"]["target_feature"]["enum"]
TARGET_HEADER = (CATALOG.kernels_dir / "include" / "epl" / "target.cuh").read_text()


def macro(feature: str) -> str:
    return "EPL_HAS_" + feature.upper().replace("-", "_")


def probe(features: tuple[str, ...]) -> str:
    lines = ["#include <epl/target.cuh>"]
    for f in FEATURES:
        want = f in features
        lines += [f"#if {'!' if want else ''}defined({macro(f)})",
                  f'#error "{macro(f)} is {"missing" if want else "defined"}, yet the profile {"has" if want else "lacks"} {f}"',
                  "#endif"]
    return "\n".join(lines) + "\n__global__ void probe() {}\n"


@pytest.mark.parametrize("feature", FEATURES)
def test_every_feature_has_its_macro(feature: str) -> None:
    assert f"#define {macro(feature)} 1" in TARGET_HEADER, f"epl/target.cuh does not define {macro(feature)}"


@pytest.mark.parametrize("target", list(CATALOG.targets), ids=list(CATALOG.targets))
def test_the_macros_are_the_profile(target: str, toolchain) -> None:
    profile = CATALOG.targets[target]
    options = ptx_options([f"--gpu-architecture={target}", "-std=c++17", f"-I{CATALOG.kernels_dir / 'include'}",
                           *(f"-I{d}" for d in toolchain.include_dirs), *profile.nvrtc_options])
    result = compile_program(probe(profile.features), f"probe-{target}.cu", [], options)
    assert result.ok, result.log


def test_launch_limit_defaults_are_the_reference_profile() -> None:
    assert LaunchLimits() == LaunchLimits.of(CATALOG.targets["sm_90a"])


def test_the_tightest_limits_fit_every_target() -> None:
    both = LaunchLimits.tightest(list(CATALOG.targets.values()))
    for t in CATALOG.targets.values():
        one = LaunchLimits.of(t)
        assert both.max_shared_bytes <= one.max_shared_bytes and both.max_cluster_blocks <= one.max_cluster_blocks
    assert both.max_shared_bytes == LaunchLimits.of(CATALOG.targets["sm_80"]).max_shared_bytes
