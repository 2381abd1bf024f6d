"""The kernel content hash follows includes and depends only on contents and relative paths."""

import shutil

from compile_fixtures import KERNEL_REL, write
from epldb.compile.hashing import source_files, source_hash


def test_follows_angle_and_quote_includes_transitively(repo):
    write(repo, "kernels/reduction/block-reduce/local.cuh", "#pragma once\n#include <epl/extra.cuh>\n")
    write(repo, "kernels/include/epl/extra.cuh", "#pragma once\n")
    write(repo, "kernels/include/epl/unused.cuh", "#pragma once\n")
    kernel = repo / "kernels" / KERNEL_REL
    kernel.write_text('#include "local.cuh"\n' + kernel.read_text())
    paths = [f.path for f in source_files(repo, KERNEL_REL)]
    assert paths == [
        "kernels/include/epl/extra.cuh",
        "kernels/include/epl/ops.cuh",  # through warp.cuh
        "kernels/include/epl/warp.cuh",
        "kernels/reduction/block-reduce/local.cuh",
        f"kernels/{KERNEL_REL}",
    ]  # system headers (cuda_bf16.h) and unrelated headers are not part of it


def test_changes_when_an_included_header_changes(repo):
    before = source_hash(repo, KERNEL_REL)
    assert before == source_hash(repo, KERNEL_REL)
    write(repo, "kernels/include/epl/unrelated.cuh", "#pragma once // not included\n")
    assert source_hash(repo, KERNEL_REL) == before
    ops = repo / "kernels/include/epl/ops.cuh"
    ops.write_text(ops.read_text() + "// a comment is a change\n")
    assert source_hash(repo, KERNEL_REL) != before


def test_same_contents_elsewhere_hash_the_same(repo, tmp_path):
    copy = tmp_path / "elsewhere" / "checkout"
    shutil.copytree(repo, copy)
    assert source_hash(copy, KERNEL_REL) == source_hash(repo, KERNEL_REL)
    assert len(source_hash(repo, KERNEL_REL)) == 64


def test_missing_kernel_still_hashes(tmp_path):
    assert source_hash(tmp_path, "no/such.cu") == source_hash(tmp_path, "no/such.cu")
    assert source_hash(tmp_path, "no/such.cu") != source_hash(tmp_path, "no/other.cu")
