"""The bad-input corpus of records: each class of malformed record gives one located message and
exit 1, never a traceback, an internal error, a hang or unbounded memory (issue 33)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from robustness.corpus import REPOSITORY, Case, append, both, check, edit, link, rename, write

FEATURE = "catalog/features/sums.yaml"
PRIMITIVE = "catalog/primitives/reduction/tile-sum.yaml"
REALIZATION = "catalog/realizations/tile-sum/naive.yaml"
KERNEL = "kernels/reduction/tile-sum/naive.cu"
FEATURE_HEAD = "id: sums\ntitle: Sums\nquestion: Can it be summarized?\ndefinition: A fold.\n"  # no properties

# Launch-plan fixture (tests/realization_fixtures.py): without `items`, which only its grid reads, the
# grid is on line 24 `grid: "..."`.
GRID = 'grid: "ceil_div(n, block * items)"'


def own_schemas(root: Path) -> None:
    """Give the fixture its own copy of the repository's schemas (it has none: it reads those)."""
    shutil.copytree(REPOSITORY / "catalog" / "schema", root / "catalog" / "schema")


def grid(name: str, expression: str, says: str) -> Case:
    """A launch-plan case: the grid expression replaced by ``expression``."""
    return Case(f"grid-{name}", both(edit(REALIZATION, "  items: [1, 4]\n", ""),
                                     edit(REALIZATION, GRID, f'grid: "{expression}"')),
                rf"{REALIZATION}:24:13", says, "$.launch.steps[0].grid", fixture="launch")


CASES = [
    # --- YAML syntax and encoding -------------------------------------------------------------------
    Case("yaml-syntax", edit(FEATURE, "properties: [associativity]", "properties: [associativity: x"),
         rf"{FEATURE}:6:1", "YAML syntax.*expected ',' or ']'", subprocess=True),
    Case("tab-indent", edit(REALIZATION, "  source:", "\tsource:"), rf"{REALIZATION}:10:1", "spaces"),
    Case("duplicate-key", append(FEATURE, "title: Again\n"), rf"{FEATURE}:6:1", "duplicate key 'title'",
         "$.title"),
    Case("alias-bomb", write(FEATURE, FEATURE_HEAD + 'properties: &a ["lol", "lol", "lol", "lol", "lol", "lol"]\n'
                             + "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n"
                                       for p, c in zip("abcdefgh", "bcdefghi"))),
         rf"{FEATURE}:5:13", "anchors", subprocess=True),
    Case("huge-file", write(FEATURE, FEATURE_HEAD + "properties: [" + "x" * (48 << 20) + "]" + "\n"),
         rf"{FEATURE}:1:1", "MiB", subprocess=True),
    Case("non-utf8", write(FEATURE, b"id: sums\ntitle: Sums \xff\xfe\n"), rf"{FEATURE}:2:13", "UTF-8"),
    Case("list-not-mapping", write(FEATURE, "- id: sums\n- title: Sums\n"), rf"{FEATURE}:1:1",
         "mapping.*list"),
    Case("empty-file", write(FEATURE, ""), rf"{FEATURE}:1:1", "empty"),
    Case("comments-only", write(FEATURE, "# nothing yet\n\n"), rf"{FEATURE}:1:1", "empty"),
    Case("nested-thousands-deep", write(FEATURE, FEATURE_HEAD + "properties: " + "[" * 5000 + "]" * 5000 + "\n"),
         rf"{FEATURE}:5:\d+", "deep", subprocess=True),
    Case("integer-thousands-of-digits", edit(REALIZATION, "block: [128, 256]", f"block: [128, {'9' * 5000}]"),
         rf"{REALIZATION}:15:16", "5000 digits", "$.params.block[1]", subprocess=True),
    Case("record-links-to-a-device", link(FEATURE, "/dev/zero"), rf"{FEATURE}:1:1", "link to /dev/zero",
         subprocess=True),
    # --- schema -------------------------------------------------------------------------------------
    Case("schema-not-json", both(own_schemas, write("catalog/schema/feature.schema.json", '{\n  "a": ,\n}\n')),
         "catalog/schema/feature.schema.json:2:8", "not JSON"),
    Case("schema-folder-empty", lambda root: (root / "catalog/schema").mkdir(), "catalog/schema",
         "holds none of the schemas", whole_file=True),
    Case("unknown-field", append(FEATURE, "colour: blue\n"), rf"{FEATURE}:6:1", "unknown field 'colour'",
         "$.colour"),
    Case("wrong-type", edit(PRIMITIVE, "features: [sums]", "features: sums"), rf"{PRIMITIVE}:6:11",
         "expected a list", "$.features"),
    Case("missing-field-top", edit(FEATURE, "title: Sums\n", ""), rf"{FEATURE}:1:1",
         "missing required field 'title'", "$.title"),
    Case("missing-field-nested", edit(REALIZATION, "  entries:\n    - name: main\n"
                                      '      expression: "tile_sum_naive<{block}, {dtype}>"\n', ""),
         rf"{REALIZATION}:10:3", "missing required field 'entries'", "$.kernel.entries"),
    # --- references and ids ---------------------------------------------------------------------------
    Case("dangling-reference", edit(PRIMITIVE, "features: [sums]", "features: [sumz]"), rf"{PRIMITIVE}:6:12",
         "no feature 'sumz'", "$.features[0]"),
    Case("id-not-path", edit(REALIZATION, "id: tile-sum/naive", "id: tile-sum/simple"), rf"{REALIZATION}:1:5",
         "does not match", "$.id"),
    Case("id-confusable", edit(REALIZATION, "id: tile-sum/naive", "id: tile\u2010sum/naive"),
         rf"{REALIZATION}:1:5", "U\\+2010", "$.id"),
    Case("file-name-confusable", rename(REALIZATION, "catalog/realizations/tile-sum/n\u0430ive.yaml"),
         "catalog/realizations/tile-sum/n\u0430ive.yaml:1:5", "U\\+0430", "$.id"),
    Case("composes-itself", edit(REALIZATION, "status: draft\n", "status: draft\ncomposes: [tile-sum/naive]\n"),
         rf"{REALIZATION}:6:12", "itself", "$.composes[0]"),
    Case("param-unused", edit(REALIZATION, "  dtype: [float32]\n", "  dtype: [float32]\n  unroll: [1, 2, 4]\n"),
         rf"{REALIZATION}:17:3", "unroll.*uses it", "$.params.unroll"),
    Case("id-renamed-and-referenced", edit(FEATURE, "id: sums", "id: sum"), rf"{FEATURE}:1:5",
         "does not match the file's path", "$.id"),
    Case("subject-not-folder", edit(REALIZATION, "primitive: tile-sum", "primitive: tile-summ"),
         rf"{REALIZATION}:2:12", "does not match the folder", "$.primitive"),
    Case("operator-typo", edit(PRIMITIVE, "operators: [total]", "operators: [totl]"), rf"{PRIMITIVE}:11:13",
         "no operator 'totl'.*did you mean 'total'", "$.operators[0]"),
    Case("placeholder-undeclared", edit(REALIZATION, "{dtype}>", "{width}>"), rf"{REALIZATION}:13:19",
         "placeholder '{width}'", "$.kernel.entries[0].expression"),
    Case("param-not-integer", edit(REALIZATION, "block: [128, 256]", "block: [128, wide]"),
         rf"{REALIZATION}:\d+:\d+", "\"wide\" is not an integer", "$.params.block[1]", fixture="launch"),
    # --- kernels --------------------------------------------------------------------------------------
    Case("kernel-dotdot", edit(REALIZATION, "source: reduction", "source: ../kernels/reduction"),
         rf"{REALIZATION}:10:11", r"'\.\.'", "$.kernel.source"),
    Case("kernel-absolute", edit(REALIZATION, "source: reduction/tile-sum/naive.cu", "source: /etc/passwd.cu"),
         rf"{REALIZATION}:10:11", "absolute", "$.kernel.source"),
    Case("kernel-missing", edit(REALIZATION, "naive.cu", "missing.cu"), rf"{REALIZATION}:10:11",
         "does not exist", "$.kernel.source"),
    Case("kernel-includes-absolute", edit(KERNEL, "template", '#include "/etc/hostname"\ntemplate'),
         rf"{KERNEL}:2:10", "absolute path", subprocess=True),
    Case("kernel-includes-outside", edit(KERNEL, "template", '#include "../../../../../etc/hostname"\ntemplate'),
         rf"{KERNEL}:2:10", "climbs out of kernels/"),
    Case("kernel-source-missing", edit(REALIZATION, "  source: reduction/tile-sum/naive.cu\n", ""),
         rf"{REALIZATION}:10:3", "missing required field 'source'", "$.kernel.source"),
    Case("yaml-error-and-its-kernel", edit(REALIZATION, "targets: [sm_80, sm_90a]", "targets: [sm_80, sm_90a"),
         rf"{REALIZATION}:\d+:\d+", "YAML syntax"),
    # --- builds: `epldb validate` compiles the one small kernel, at 2 targets x 2 points -----------
    Case("kernel-does-not-compile", edit(KERNEL, "acc += float(x[i]);", "acc += float(x[i]) + undefined_thing;"),
         rf"{KERNEL}:6:\d+", "undefined_thing.*the same at 1 more build", args=("validate",)),
    Case("false-claim", append(REALIZATION, "claims:\n  max_registers: 1\n"), rf"{REALIZATION}:20:18",
         "max_registers 1.*raise the claim.*the same at 3 more build", "$.claims.max_registers", args=("validate",)),
    # --- launch expressions (the launch-plan fixture) --------------------------------------------------
    grid("attribute", "n.__class__", "column 2: unexpected character '.'"),
    grid("dunder-name", "__class__ + n", "unknown name '__class__'"),
    grid("dunder-call", "__import__(n)", "unknown function '__import__'"),
    grid("unknown-function", "eval(n)", "unknown function 'eval'"),
    grid("power-tower", "10**10**10", "column 4: expected a number"),
    grid("huge-shift", "n << 100000", "unexpected character '<'"),
    grid("long-literal", "9" * 100, "100 digits"),
    grid("deep-parentheses", "(" * 100 + "n" + ")" * 100, "nested deeper"),
    grid("deep-signs", "-" * 300 + "n", "nested deeper"),
    grid("long-chain", "*".join(["n"] * 1000), "1999 characters"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_one_defect_gives_one_located_message(case: Case, tmp_path: Path) -> None:
    check(case, tmp_path)


def test_a_symbolic_link_out_of_kernels_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.cu"
    outside.write_text("__global__ void tile_sum_naive() {}\n")

    def link(root: Path) -> None:
        (root / KERNEL).unlink()
        (root / KERNEL).symlink_to(outside)

    check(Case("kernel-link", link, rf"{REALIZATION}:10:11", "link", "$.kernel.source"), tmp_path)
