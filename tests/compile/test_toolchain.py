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
