"""A broken kernel, header, name expression or target comes back as located problems, never raised."""

from compile_fixtures import KERNEL_REL, LINES, RECORD_FILE, make_realization, write
from epldb.compile import CompileProblem, compile_realization
from epldb.problems import Location

ONE_POINT = {"block": [128], "dtype": ["float32"], "op": ["sum"]}


def _errors(build):
    return [p for p in build.problems if p.severity == "error"]


def test_syntax_error_points_at_the_kernel_line_and_the_record(repo, toolchain):
    kernel = repo / "kernels" / KERNEL_REL
    lines = kernel.read_text().splitlines()
    lines[8] = "  float v = i < n ? float(x[i]) : 0.0f  // missing semicolon"  # line 9
    kernel.write_text("\n".join(lines) + "\n")
    b = compile_realization(repo, make_realization(params=ONE_POINT), "sm_90")
    assert b.cubin is None and b.entries == () and not b.ok
    (p, *_) = _errors(b)
    assert isinstance(p, CompileProblem)
    assert (p.location.file, p.location.line) == (f"kernels/{KERNEL_REL}", 10)  # reported at the next token
    assert p.location.col > 0
    assert 'expected a ";"' in p.message and "sm_90" in p.message
    assert p.rule == "compile-error"
    assert p.record == Location(RECORD_FILE, LINES[("kernel", "source")], 3)
    assert f"{RECORD_FILE}:9:3" in p.message
    assert p.as_dict()["record"]["json_path"] == "$.kernel.source"


def test_error_in_an_included_header_points_at_the_header(repo, toolchain):
    write(repo, "kernels/include/epl/ops.cuh", """\
        #pragma once
        namespace epl {
        struct Sum { template <class T> __device__ T operator()(T a, T b) const { return a + b + no_such_name; } };
        }
        """)
    b = compile_realization(repo, make_realization(params=ONE_POINT), "sm_80")
    (p, *_) = _errors(b)
    assert (p.location.file, p.location.line) == ("kernels/include/epl/ops.cuh", 3)
    assert 'identifier "no_such_name" is undefined' in p.message
    assert "tiny_shuffle" in p.message  # the instantiation that hit it


def test_bad_name_expression_points_at_the_record_expression(repo, toolchain):
    r = make_realization(params={"block": [128], "dtype": ["no_such_type"], "op": ["sum"]})
    b = compile_realization(repo, r, "sm_90a")
    assert b.cubin is None
    locs = {p.location for p in _errors(b)}
    assert locs == {Location(RECORD_FILE, LINES[("kernel", "entries", 0, "expression")], 3)}
    assert any('identifier "no_such_type" is undefined' in p.message for p in _errors(b))
    assert all(p.json_path == "$.kernel.entries[0].expression" for p in _errors(b))


def test_missing_placeholder_value_is_a_record_problem(repo, toolchain):
    r = make_realization(params={"block": [128], "dtype": ["float32"]})  # no {op}
    b = compile_realization(repo, r, "sm_90a")
    (p,) = b.problems
    assert p.rule == "compile-expression" and "'op'" in p.message
    assert p.location.line == LINES[("kernel", "entries", 0, "expression")]


def test_unknown_target_points_at_the_target(repo, toolchain):
    r = make_realization(params=ONE_POINT, targets=("sm_80", "sm_90", "sm_77"))
    b = compile_realization(repo, r, "sm_77")
    (p,) = _errors(b)
    assert p.location.line == LINES[("targets", 2)]
    assert "--gpu-architecture" in p.message and p.json_path == "$.targets[2]"


def test_missing_kernel_file(repo, toolchain):
    b = compile_realization(repo, make_realization(kernel="reduction/block-reduce/gone.cu"), "sm_90")
    (p,) = b.problems
    assert p.rule == "kernel-missing" and "kernels/reduction/block-reduce/gone.cu" in p.message
    assert p.location.line == LINES[("kernel", "source")]


def test_missing_quoted_include(repo, toolchain):
    kernel = repo / "kernels" / KERNEL_REL
    kernel.write_text('#include "not_there.cuh"\n' + kernel.read_text())
    b = compile_realization(repo, make_realization(params=ONE_POINT), "sm_90")
    (p,) = _errors(b)
    assert (p.location.file, p.location.line) == (f"kernels/{KERNEL_REL}", 1)
    assert "cannot open source file" in p.message


def test_quoted_include_beside_the_kernel_resolves_from_any_cwd(repo, toolchain, monkeypatch, tmp_path):
    write(repo, "kernels/reduction/block-reduce/local.cuh", "#pragma once\n#define LOCAL_ZERO 0.0f\n")
    kernel = repo / "kernels" / KERNEL_REL
    kernel.write_text('#include "local.cuh"\n' + kernel.read_text().replace(": 0.0f;", ": LOCAL_ZERO;", 1))
    monkeypatch.chdir(tmp_path)  # NVRTC looks for a main file's quoted includes from the cwd
    b = compile_realization(repo, make_realization(params=ONE_POINT), "sm_90")
    assert b.ok, [p.format() for p in b.problems]


def test_warnings_are_reported_once(repo, toolchain):
    kernel = repo / "kernels" / KERNEL_REL
    kernel.write_text(kernel.read_text().replace("  __shared__", "  int unused_variable;\n  __shared__"))
    b = compile_realization(repo, make_realization(), "sm_90")  # four instantiations
    assert b.ok
    warnings = [p for p in b.problems if p.rule == "compile-warning"]
    assert len(warnings) == 1 and "unused_variable" in warnings[0].message
    assert warnings[0].severity == "warning" and warnings[0].location.line == 7
