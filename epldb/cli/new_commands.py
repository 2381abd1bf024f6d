"""``epldb new realization PRIMITIVE NAME``: a draft record and a kernel stub that validate and
compile at once.

When the primitive already has a realization, the stub starts from that realization's entry points
under new names (same harness, same parameters, same launch plan), so the measurement contract is
met from the first build and the contributor replaces only the algorithm. Otherwise it is a minimal
templated kernel on ``epl/`` with no launch plan. Existing files are never overwritten.
"""

from __future__ import annotations

import argparse
import copy
import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from epldb.catalog import Catalog
from epldb.cli.common import EXIT_INVALID, EXIT_OK, UsageError, load_catalog, print_problems
from epldb.records import Realization

SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
DEFAULT_TARGETS = ["sm_80", "sm_90a"]  # sm_90a builds the same source paths a plain sm_90 build would


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("new", help="scaffold a new record (a realization and its kernel stub)")
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)
    r = kinds.add_parser("realization", help="a draft realization record and a kernel stub that compile at once",
                         description="Write catalog/realizations/PRIMITIVE/NAME.yaml and "
                                     "kernels/<family>/PRIMITIVE/NAME.cu; refuse to overwrite either.")
    r.add_argument("primitive", metavar="PRIMITIVE", help="an existing primitive id, e.g. block-reduce")
    r.add_argument("name", metavar="NAME", help="the new realization's name, lower-case words joined by hyphens")
    r.add_argument("--title", help="the record's title (default: from NAME)")
    r.add_argument("--no-compile", action="store_true", help="do not compile the new realization after writing it")
    r.set_defaults(func=new_realization)


@dataclass(frozen=True)
class Scaffold:
    record_path: Path  # relative to the root
    kernel_path: Path  # relative to the root
    record_text: str
    kernel_text: str
    sibling: str | None  # the realization the stub starts from


def snake(text: str) -> str:
    return text.replace("-", "_")


def scaffold_realization(cat: Catalog, primitive_id: str, name: str, title: str | None = None) -> Scaffold:
    """The two files for a new realization; UsageError for a bad id or an existing file."""
    if not SLUG.match(name):
        raise UsageError(f"realization name '{name}' must be lower-case words joined by single hyphens, "
                         "e.g. 'raking-tree'")
    prim = cat.primitives.get(primitive_id)
    if prim is None:
        close = difflib.get_close_matches(primitive_id, list(cat.primitives), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else "; `epldb list --kind primitive` shows them"
        raise UsageError(f"no primitive '{primitive_id}'{hint}")
    rid = f"{primitive_id}/{name}"
    record_path = Path("catalog") / "realizations" / primitive_id / f"{name}.yaml"
    kernel_source = f"{prim.family}/{primitive_id}/{name}.cu"
    kernel_path = Path("kernels") / kernel_source
    for path in (record_path, kernel_path):
        if (cat.root / path).exists():
            raise UsageError(f"refusing to overwrite {path.as_posix()}: it already exists; choose another NAME "
                             "or remove the file")
    if rid in cat.realizations:
        raise UsageError(f"realization '{rid}' already exists ({cat.realizations[rid].file})")

    siblings = cat.realizations_of(primitive_id)
    sibling = siblings[0] if siblings else None
    title = title or name.replace("-", " ").capitalize()
    if sibling is not None:
        entries, kernel_text = _from_sibling(cat, sibling, primitive_id, name, rid)
        params = copy.deepcopy(sibling.data["params"])
        launch = copy.deepcopy(sibling.data.get("launch"))
        determinism = sibling.determinism
    else:
        symbol = f"{snake(primitive_id)}_{snake(name)}"
        entries = [{"name": "main", "expression": f"{symbol}<{{block}}>"}]
        params = {"block": [256]}
        launch = None
        determinism = "bitwise"
        kernel_text = _generic_kernel(rid, symbol)
    record: dict[str, Any] = {
        "id": rid,
        "primitive": primitive_id,
        "title": title,
        "summary": f"TODO: the idea of this realization in two or three sentences: how threads cooperate and "
                   f"what it trades against the other realizations of {primitive_id}.",
        "status": "draft",
        "strategy": [{"name": "TODO first phase",
                      "text": "TODO: what happens in this phase and what it costs (bytes moved, barriers, "
                              "registers); add one entry per phase, in execution order."}],
        "kernel": {"source": kernel_source, "entries": entries},
        "params": params,
        "targets": list(DEFAULT_TARGETS),
    }
    if launch:
        record["launch"] = launch
    record["determinism"] = determinism
    origin = f"; kernel and launch plan start from {sibling.id}" if sibling else ""
    header = (f"# Scaffolded by `epldb new realization {primitive_id} {name}`{origin}.\n"
              "# Rewrite the TODOs, then: epldb validate; epldb compile " + rid + "; on a GPU: epldb verify "
              + rid + "; epldb bench.\n")
    text = header + yaml.dump(record, Dumper=_RecordDumper, sort_keys=False, width=100, allow_unicode=True)
    return Scaffold(record_path, kernel_path, text, kernel_text, sibling.id if sibling else None)


class _RecordDumper(yaml.SafeDumper):
    """Block style as the catalog writes records: lists of scalars inline (``[sm_80, sm_90]``),
    long prose folded (``>-``), everything else in block style."""


def _represent_list(dumper: yaml.SafeDumper, data: list[Any]) -> yaml.Node:
    flow = all(not isinstance(x, (list, dict)) for x in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    style = ">" if len(data) > 80 and "\n" not in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_RecordDumper.add_representer(list, _represent_list)
_RecordDumper.add_representer(str, _represent_str)


def _from_sibling(cat: Catalog, sibling: Realization, primitive_id: str, name: str,
                  rid: str) -> tuple[list[dict[str, Any]], str]:
    """Entries renamed after the new realization, and the sibling's entry file with those names."""
    source = (cat.root / sibling.kernel_path).read_text(encoding="utf-8")
    old_part, new_part = snake(sibling.name), snake(name)
    renames: dict[str, str] = {}
    entries: list[dict[str, Any]] = []
    for raw in sibling.data["kernel"]["entries"]:
        entry = copy.deepcopy(raw)
        old_symbol = (entry.get("symbol") or entry["expression"].split("<", 1)[0].strip())
        base = old_symbol.split("::")[-1]
        new_base = base.replace(old_part, new_part) if old_part in base else f"{base}_{new_part}"
        renames[base] = new_base
        entry["expression"] = entry["expression"].replace(base, new_base, 1)
        if "symbol" in entry:
            entry["symbol"] = entry["symbol"].replace(base, new_base)
        entries.append(entry)
    body = _strip_leading_comment(source)
    for old, new in renames.items():
        body = re.sub(rf"(?<![A-Za-z0-9_]){re.escape(old)}(?![A-Za-z0-9_])", new, body)
    head = (f"// Record:       {rid} (catalog/realizations/{rid}.yaml)\n"
            f"// Status:       draft, scaffolded by `epldb new realization {primitive_id} {name}`.\n"
            f"// TODO:         this stub starts as a copy of {sibling.id}'s entry points (same harness,\n"
            "//               parameters and launch plan) so that it validates and compiles at once.\n"
            "//               Replace the building block it calls with this realization's own, written\n"
            "//               in kernels/include/epl/ in the folder of its scope (thread/, warp/, block/).\n"
            "// Phases:       TODO, as in the record's strategy.\n"
            "// Traffic:      TODO: bytes read and written per element.\n"
            "// Determinism:  TODO.\n"
            "// Constraints:  TODO: block sizes, alignment, shapes.\n")
    return entries, head + body


def _strip_leading_comment(source: str) -> str:
    lines = source.splitlines(keepends=True)
    i = 0
    while i < len(lines) and (lines[i].lstrip().startswith("//") or not lines[i].strip()):
        i += 1
    return "".join(lines[i:])


def _generic_kernel(rid: str, symbol: str) -> str:
    return f"""// Record:       {rid} (catalog/realizations/{rid}.yaml)
// Status:       draft, scaffolded by `epldb new realization`; the primitive had no realization
//               to start from, so this is a minimal templated entry point.
// Phases:       TODO, as in the record's strategy.
// Traffic:      TODO: bytes read and written per element (this stub reads 4 and writes 4).
// Determinism:  bitwise (no atomics).
// Constraints:  BLOCK == blockDim.x; 1-D grid of ceil_div(n, BLOCK) blocks.
#include <epl/util.cuh>

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
{symbol}(const float* __restrict__ x,  // n input elements
{" " * len(symbol)} float* __restrict__ y,        // n output elements
{" " * len(symbol)} int n) {{                        // element count
  static_assert(epl::is_pow2(BLOCK), "BLOCK must be a power of two");
  // TODO: the realization. This placeholder copies x to y so the stub compiles and runs.
  const int i = static_cast<int>(blockIdx.x) * BLOCK + static_cast<int>(threadIdx.x);
  if (i < n) y[i] = x[i];
}}
"""


def new_realization(args: argparse.Namespace) -> int:
    cat = load_catalog(args)
    sc = scaffold_realization(cat, args.primitive, args.name, args.title)
    for path, text in ((sc.record_path, sc.record_text), (sc.kernel_path, sc.kernel_text)):
        full = cat.root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        with open(full, "x", encoding="utf-8") as fh:  # 'x': never overwrite, even in a race
            fh.write(text)
        print(f"wrote {path.as_posix()}")
    if sc.sibling:
        print(f"the kernel stub starts from {sc.sibling}'s entry points; replace its building block")

    # The promise: the new files validate and compile as written.
    after = load_catalog(args)
    mine = {sc.record_path.as_posix(), sc.kernel_path.as_posix()}
    own = [p for p in after.problems if p.location.file in mine]
    if own:
        print_problems(own)
        print("the scaffold does not validate: this is a bug in epldb new; the files are kept")
        return EXIT_INVALID
    rid = f"{args.primitive}/{args.name}"
    if args.no_compile:
        print(f"{rid}: validates (not compiled: --no-compile)")
        return EXIT_OK
    try:
        from epldb.compile import compile_realization
    except ImportError:
        print(f"{rid}: validates (not compiled: epldb.compile is unavailable)")
        return EXIT_OK
    r = after.realizations[rid]
    failed = False
    for target in r.targets:
        build = compile_realization(after.root, r, target)
        errors = [p for p in build.problems if p.severity == "error"]
        if errors:
            failed = True
            print_problems(errors)
        else:
            regs = sorted({e.registers for e in build.entries})
            span = f", registers {regs[0]}–{regs[-1]}" if regs else ""
            print(f"{rid}: {target}: compiled {len(build.entries)} entry point(s){span}")
    if failed:
        print("the scaffold does not compile: this is a bug in epldb new; the files are kept")
        return EXIT_INVALID
    print(f"{rid}: validates and compiles for {', '.join(r.targets)}. Next: write the strategy and the kernel, "
          f"then `epldb validate`.")
    return EXIT_OK
