"""The toolchain is found from pip's layout or a CUDA toolkit; on CI nvdisasm must be there."""

import os

from epldb.compile.toolchain import find_toolchain


def test_toolchain_is_complete_here():
    tc = find_toolchain()
    if not tc.usable:
        assert not os.environ.get("CI"), [p.message for p in tc.problems]
        return
    assert tc.nvrtc_version and tc.nvrtc_version.count(".") == 1
    assert (tc.cuda_include / "cuda_runtime.h").is_file()
    assert tc.cccl_include is not None and (tc.cccl_include / "cuda" / "std" / "version").is_file()
    if os.environ.get("CI"):
        assert tc.nvdisasm is not None, "nvdisasm must be found on CI (pip nvidia-cuda-nvdisasm)"
    if tc.nvdisasm is not None:
        assert tc.nvdisasm_version


def _fake_include(root, version: int, cccl: bool):
    inc = root / "include"
    inc.mkdir(parents=True)
    (inc / "cuda_runtime.h").write_text("")
    (inc / "cuda.h").write_text(f"#define CUDA_VERSION {version}\n")
    if cccl:
        (inc / "cccl" / "cuda" / "std").mkdir(parents=True)
        (inc / "cccl" / "cuda" / "std" / "version").write_text("")
    return inc


def test_headers_are_picked_by_version_then_by_having_cccl(tmp_path, monkeypatch):
    from epldb.compile import toolchain as t

    newer = _fake_include(tmp_path / "pip", 13050, cccl=True)
    bare = _fake_include(tmp_path / "venv", 13000, cccl=False)
    toolkit = _fake_include(tmp_path / "toolkit", 13000, cccl=True)
    monkeypatch.setattr(t, "_cuda_include_candidates", lambda: [newer, bare, toolkit])
    assert t._pick_cuda_include("13.0") == toolkit
    assert t._pick_cuda_include("13.5") == newer
    assert t._pick_cuda_include("13.2") == newer  # same major, has CCCL, first
    assert t._pick_cuda_include("12.8") == newer
    assert t.headers_version(toolkit) == "13.0"
