"""ptxas -v logs, captured from NVRTC 13.5, parsed per function."""

from epldb.compile.ptxas import parse_ptxas_log

SM90A_LOG = """\
ptxas info    : 3275 bytes gmem
ptxas info    : Compiling entry function '_Z1kILi256E13__nv_bfloat16EvPKT0_Pfi' for 'sm_90a'
ptxas info    : Function properties for _Z1kILi256E13__nv_bfloat16EvPKT0_Pfi
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 22 registers, used 1 barriers, 1024 bytes smem
ptxas info    : Compile time = 34.246 ms
ptxas info    : Compiling entry function '_Z1kILi128EfEvPKT0_Pfi' for 'sm_90a'
ptxas info    : Function properties for _Z1kILi128EfEvPKT0_Pfi
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 14 registers, used 1 barriers, 512 bytes smem
ptxas info    : Compile time = 12.057 ms
"""

# sm_80 with --maxrregcount=24: spills, a cumulative stack, cmem banks, and a called function
# whose properties come after the entry's "Used" line.
SM80_SPILL_LOG = """\
ptxas info    : Overriding maximum register limit 256 for '_Z3bigILi64EEvPKfPf' with  24 of maxrregcount option
ptxas info    : 0 bytes gmem, 256 bytes cmem[3]
ptxas info    : Compiling entry function '_Z3bigILi64EEvPKfPf' for 'sm_80'
ptxas info    : Function properties for _Z3bigILi64EEvPKfPf
ptxas         .     5376 bytes stack frame, 5316 bytes spill stores, 16312 bytes spill loads
ptxas info    : Used 24 registers, used 0 barriers, 5376 bytes cumulative stack size, 368 bytes cmem[0]
ptxas info    : Compile time = 668.432 ms
ptxas info    : Function properties for _Z6helperPfi
ptxas         .     16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
"""


def test_entries_of_a_two_instantiation_log():
    r = parse_ptxas_log(SM90A_LOG)
    assert set(r.entries) == {"_Z1kILi256E13__nv_bfloat16EvPKT0_Pfi", "_Z1kILi128EfEvPKT0_Pfi"}
    big = r.functions["_Z1kILi256E13__nv_bfloat16EvPKT0_Pfi"]
    assert (big.registers, big.barriers, big.static_shared_bytes, big.stack_bytes) == (22, 1, 1024, 0)
    assert big.arch == "sm_90a"
    small = r.functions["_Z1kILi128EfEvPKT0_Pfi"]
    assert (small.registers, small.static_shared_bytes) == (14, 512)
    assert r.gmem_bytes == 3275


def test_spills_cmem_and_a_callee():
    r = parse_ptxas_log(SM80_SPILL_LOG)
    big = r.functions["_Z3bigILi64EEvPKfPf"]
    assert (big.stack_bytes, big.spill_store_bytes, big.spill_load_bytes) == (5376, 5316, 16312)
    assert (big.registers, big.barriers, big.static_shared_bytes) == (24, 0, 0)
    assert big.cumulative_stack_bytes == 5376
    assert big.cmem == {0: 368}
    assert r.module_cmem == {3: 256}
    helper = r.functions["_Z6helperPfi"]
    assert not helper.entry and helper.registers is None and helper.stack_bytes == 16
    assert list(r.entries) == ["_Z3bigILi64EEvPKfPf"]


def test_round_trip_through_the_cache_format():
    from epldb.compile.ptxas import FunctionResources

    f = parse_ptxas_log(SM80_SPILL_LOG).functions["_Z3bigILi64EEvPKfPf"]
    assert FunctionResources.from_dict(f.as_dict()) == f


def test_unknown_lines_are_ignored():
    assert parse_ptxas_log("nvrtc: something new\nptxas info    : Compile time = 1 ms\n").functions == {}
