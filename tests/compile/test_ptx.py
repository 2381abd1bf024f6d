"""A function's PTX hash (epldb.compile.ptx) is its identity whatever else its program holds: block
labels and the program-dependent tail of internal names do not count; its code and what it
references do."""

from __future__ import annotations

from epldb.compile.ptx import function_hashes

HEADER = ".version 9.0\n.target sm_90a\n.address_size 64\n"


def _module(tail: str, label: int, load: str = "ld.global.u32", other: str = "") -> str:
    chunk = f"_ZN54_INTERNAL_00000000_17_chan_registers_cu_d58b7fad_{tail}epl16kSplitDummyChunkE"
    return (HEADER + other + f".global .align 16 .b8 {chunk}[16];\n"
            f".visible .entry kern(\n\t.param .u64 p\n)\n{{\n"
            f"\tmov.u64 %rd1, {chunk};\n\t{load} %r1, [%rd1];\n$L__BB{label}_1:\n\tret;\n}}\n")


def test_the_program_dependent_tail_of_an_internal_name_and_block_labels_do_not_count() -> None:
    (a,) = function_hashes(_module("222743", 0), {"kern"}).values()
    (b,) = function_hashes(_module("225013", 3, other=".global .align 4 .b8 unrelated[4];\n"), {"kern"}).values()
    assert a == b


def test_the_code_and_what_it_references_count() -> None:
    (a,) = function_hashes(_module("222743", 0), {"kern"}).values()
    (b,) = function_hashes(_module("222743", 0, load="ld.global.nc.u32"), {"kern"}).values()
    assert a != b
    moved = _module("222743", 0).replace("[16];", "[32];", 1)
    (c,) = function_hashes(moved, {"kern"}).values()
    assert a != c, "the referenced variable's declaration is part of the identity"
