"""The static-compile room: NVRTC builds of realizations, their ptxas and SASS facts, claims.

    build = compile_realization(root, realization, "sm_90a")
    build.entries[0].registers, build.entries[0].sass["SHFL"], build.problems

Nothing here needs a GPU; nothing raises for a bad kernel or record (problems are values).
"""

from epldb.compile.build import EntryBuild, RealizationBuild, compile_realization
from epldb.compile.claims import check_claims
from epldb.compile.hashing import source_files, source_hash
from epldb.compile.nvrtc import CompileProblem, CompileResult, compile_program, default_options
from epldb.compile.ptxas import FunctionResources, PtxasReport, parse_ptxas_log
from epldb.compile.report import build_as_dict, builds_as_dicts, format_table
from epldb.compile.sass import histograms, split_functions
from epldb.compile.toolchain import Toolchain, find_toolchain

__all__ = [
    "CompileProblem",
    "CompileResult",
    "EntryBuild",
    "FunctionResources",
    "PtxasReport",
    "RealizationBuild",
    "Toolchain",
    "build_as_dict",
    "builds_as_dicts",
    "check_claims",
    "compile_program",
    "compile_realization",
    "default_options",
    "find_toolchain",
    "format_table",
    "histograms",
    "parse_ptxas_log",
    "source_files",
    "source_hash",
    "split_functions",
]
