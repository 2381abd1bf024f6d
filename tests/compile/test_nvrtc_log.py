"""NVRTC logs, captured from NVRTC 13.5, read as diagnostics with file, line and column."""


from epldb.compile.nvrtc import diagnostics, repo_path

LOG = """\
__nv_name_map(2): error: identifier "nosuch" is undefined
  #pragma nv_mangled_name k<128, nosuch>
                                 ^

kernels/a/bad.cu(7): warning #177-D: variable "unused" was declared but never referenced
    float v = float(x[threadIdx.x]) + bad_helper(1.0f); int unused;
                                                            ^

Remark: The warnings can be suppressed with "-diag-suppress <warning-number>"

/tmp/nv/kernels/include/epl/ops.cuh(3): error: identifier "undefined_in_header" is undefined
  template<class T> __device__ T bad_helper(T x) { return x + undefined_in_header; }
                                                              ^
          detected during instantiation of "void k<B,T>(const T *, float *, int) [with B=256, T=float]" 

kernels/a/bad2.cu(1): catastrophic error: cannot open source file "local.cuh"
  #include "local.cuh"
                      ^

3 errors detected in the compilation of "kernels/a/bad.cu".
"""


def test_diagnostics_of_a_captured_log():
    ds = diagnostics(LOG)
    assert [(d.file, d.line, d.severity) for d in ds] == [
        ("__nv_name_map", 2, "error"),
        ("kernels/a/bad.cu", 7, "warning"),
        ("/tmp/nv/kernels/include/epl/ops.cuh", 3, "error"),
        ("kernels/a/bad2.cu", 1, "error"),
    ]
    assert ds[0].source_line == "#pragma nv_mangled_name k<128, nosuch>"
    assert ds[1].col == 59 and ds[1].message.startswith('variable "unused"')
    header = ds[2]
    assert header.source_line.startswith("template<class T>")
    assert header.col == header.source_line.index("undefined_in_header") + 1
    assert "with B=256, T=float" in header.full_message
    assert ds[3].message == 'cannot open source file "local.cuh"'


def test_option_errors_have_no_file():
    (d,) = diagnostics("nvrtc: error: invalid value for --gpu-architecture (-arch)\n")
    assert (d.file, d.line, d.severity) == ("", 0, "error")


def test_repo_paths(tmp_path):
    assert repo_path(tmp_path, "kernels/a/k.cu") == "kernels/a/k.cu"
    assert repo_path(tmp_path, str(tmp_path / "kernels/include/epl/x.cuh")) == "kernels/include/epl/x.cuh"
    assert repo_path(tmp_path, "/usr/local/cuda/include/cuda_bf16.h") == "/usr/local/cuda/include/cuda_bf16.h"
