"""SASS from nvdisasm, split per function and counted per opcode."""

import os

import pytest

from compile_fixtures import make_realization
from epldb.compile import compile_realization
from epldb.compile.sass import code_listing, disassemble, histograms, listings, memory_width, opcode, split_functions, widths

LISTING = """\
	.target	sm_90a
//--------------------- .text._Z1kILi256EfEvPKT0_Pfi --------------------------
	.section	.text._Z1kILi256EfEvPKT0_Pfi,"ax",@progbits
_Z1kILi256EfEvPKT0_Pfi:
        /*0050*/                   LDG.E R2, desc[UR6][R2.64] ;
.L_x_2:
        /*00b0*/                   SHFL.DOWN PT, R5, R2, 0x10, 0x1f ;
        /*00c0*/               @P0 SHFL.BFLY PT, R5, R2, 0x1, 0x1f ;
        /*00d0*/                   STS [R0], R5 ;
        /*00e0*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*00f0*/               @!PT EXIT ;
        /*0120*/                   LDS.128 R12, [R0+UR4+-0x40] ;
        /*01a0*/                   STL [R1+0x148], R0                                    (*"SpillRefill"*);
        /*0400*/                   NOP;
//--------------------- .text._Z1kILi128EfEvPKT0_Pfi --------------------------
	.section	.text._Z1kILi128EfEvPKT0_Pfi,"ax",@progbits
        /*0000*/                   LDG.E.128.CONSTANT R4, desc[UR6][R2.64] ;
        /*0010*/              @!UP1 LDG.E.U16 R8, desc[UR6][R2.64] ;
"""


def test_split_and_histogram_of_a_listing():
    fns = split_functions(LISTING)
    assert list(fns) == ["_Z1kILi256EfEvPKT0_Pfi", "_Z1kILi128EfEvPKT0_Pfi"]
    h = histograms(LISTING)["_Z1kILi256EfEvPKT0_Pfi"]
    assert h.opcodes == {"BAR": 1, "EXIT": 1, "LDG": 1, "LDS": 1, "NOP": 1, "SHFL": 2, "STL": 1, "STS": 1}
    assert h.variants["SHFL.DOWN"] == 1 and h.variants["SHFL.BFLY"] == 1  # predicate stripped
    other = histograms(LISTING)["_Z1kILi128EfEvPKT0_Pfi"]
    assert widths(other.variants, "LDG") == {16: 1, 128: 1}


def test_listings_keep_operands_and_predicates_and_drop_addresses_and_encodings():
    code = listings(LISTING + "        /*0020*/                   STG.E.128 desc[UR6][R12.64], R4 ;  /* 0x000000040c007986 */\n")
    assert list(code) == ["_Z1kILi256EfEvPKT0_Pfi", "_Z1kILi128EfEvPKT0_Pfi"]
    first = code["_Z1kILi256EfEvPKT0_Pfi"]
    assert first[0] == "LDG.E R2, desc[UR6][R2.64] ;"
    assert "@P0 SHFL.BFLY PT, R5, R2, 0x1, 0x1f ;" in first
    assert len(first) == len(split_functions(LISTING)["_Z1kILi256EfEvPKT0_Pfi"])  # labels are not instructions
    assert code["_Z1kILi128EfEvPKT0_Pfi"][-1] == "STG.E.128 desc[UR6][R12.64], R4 ;"


def test_a_code_listing_numbers_branch_labels_per_function():
    """nvdisasm numbers labels over the module: the same function printed after another kernel
    joined the program gets other numbers, and its code listing does not change."""
    alone = ["BSSY B0, `(.L_x_0) ;", "@P0 BRA `(.L_x_1) ;", "BRA `(.L_x_0) ;"]
    after = ["BSSY B0, `(.L_x_15) ;", "@P0 BRA `(.L_x_16) ;", "BRA `(.L_x_15) ;"]
    assert code_listing(alone) == code_listing(after) == ["BSSY B0, `(.L_0) ;", "@P0 BRA `(.L_1) ;", "BRA `(.L_0) ;"]
    assert code_listing(after) != code_listing(["BSSY B0, `(.L_x_15) ;", "@P0 BRA `(.L_x_15) ;", "BRA `(.L_x_15) ;"])


def test_opcode_and_width():
    assert opcode("BAR.SYNC.DEFER_BLOCKING") == "BAR"
    assert [memory_width(v) for v in ("LDG.E", "LDG.E.64", "LDG.E.128.CONSTANT", "LDG.E.U8", "LDG.E.S16")] == [32, 64, 128, 8, 16]


def test_real_compile_has_one_section_per_instantiation(repo, toolchain):
    if toolchain.nvdisasm is None:
        if os.environ.get("CI"):
            pytest.fail("nvdisasm must be found on CI")
        pytest.skip("nvdisasm unavailable")
    r = make_realization(params={"block": [128, 256], "dtype": ["float32"], "op": ["sum"]})
    b = compile_realization(repo, r, "sm_90a")
    assert b.cubin is not None, [p.format() for p in b.problems]
    text, why = disassemble(b.cubin, toolchain.nvdisasm)
    assert why is None and text is not None
    sections = split_functions(text)
    assert set(sections) == {e.lowered_name for e in b.entries}
    for e in b.entries:
        # Two warp trees of 5 shuffle-down steps each; one barrier; one shared store per warp.
        assert e.sass["SHFL"] >= 10 and e.sass["BAR"] == 1 and e.sass["STS"] == 1
        assert e.sass == histograms(text)[e.lowered_name].opcodes
        assert sum(e.sass.values()) == len(sections[e.lowered_name])
