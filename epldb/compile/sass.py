"""SASS of a cubin through nvdisasm: split per function, counted per opcode.

``nvdisasm -c`` prints one ``.text.<mangled>`` section per kernel; device functions that were not
inlined are placed inside their caller's section, so a kernel's histogram covers what it runs.
Instruction lines look like

    /*00b0*/               @P0 SHFL.DOWN PT, R5, R2, 0x10, 0x1f ;
    /*01a0*/                   STL [R1+0x148], R0      (*"SpillRefill"*);

The opcode is the mnemonic up to its first '.', with the predicate (``@P0``, ``@!PT``) stripped:
``SHFL.DOWN`` counts as ``SHFL``. The full mnemonic (``LDG.E.128.CONSTANT``) is kept as a variant.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

_SECTION = re.compile(r"^\s*\.section\s+\.text\.([^,\s]+)")
_INSTR = re.compile(r"^\s*/\*[0-9a-fA-F]+\*/\s*(?:\{\s*)?(?:@!?U?P[0-9T]+\s+)?([A-Z][A-Z0-9_.]*)")


@dataclass(frozen=True)
class FunctionSass:
    name: str  # mangled
    opcodes: dict[str, int] = field(default_factory=dict)  # SHFL → 15
    variants: dict[str, int] = field(default_factory=dict)  # SHFL.DOWN → 10, SHFL.BFLY → 5


def opcode(mnemonic: str) -> str:
    return mnemonic.split(".", 1)[0]


def _per_function(text: str, take: Callable[[str, re.Match[str]], str]) -> dict[str, list[str]]:
    """take(line, instruction match) for every instruction of nvdisasm's text, per function, in
    program order (a function without instructions maps to [])."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if m := _SECTION.match(line):
            current = out.setdefault(m.group(1), [])
        elif current is not None and (m := _INSTR.match(line)):
            current.append(take(line, m))
    return out


def split_functions(text: str) -> dict[str, list[str]]:
    """Full mnemonics (predicate stripped) per function, in program order."""
    return _per_function(text, lambda _, m: m.group(1).rstrip("."))


def listings(text: str) -> dict[str, list[str]]:
    """Each function's instructions as nvdisasm prints them (operands included, addresses and
    encodings dropped), in program order: what `epldb compile --sass` shows."""
    # after the address comment, before the encoding comment
    return _per_function(text, lambda line, _: line.split("*/", 1)[1].split("/*", 1)[0].strip())


_LABEL = re.compile(r"\.L_x_[0-9]+")


def code_listing(lines: list[str]) -> list[str]:
    """A function's listing (listings) with its branch labels renumbered in order of appearance:
    nvdisasm numbers them over the whole module, so the same instructions print other labels once
    another kernel joins the program; renumbered, equal listings mean equal machine code."""
    names: dict[str, str] = {}
    return [_LABEL.sub(lambda m: names.setdefault(m.group(0), f".L_{len(names)}"), line) for line in lines]


def histograms(text: str) -> dict[str, FunctionSass]:
    """Per-function opcode and variant histograms of nvdisasm's text."""
    out: dict[str, FunctionSass] = {}
    for name, mnemonics in split_functions(text).items():
        variants = Counter(mnemonics)
        opcodes = Counter(opcode(m) for m in mnemonics)
        out[name] = FunctionSass(name, dict(sorted(opcodes.items())), dict(sorted(variants.items())))
    return out


def disassemble(cubin: bytes, nvdisasm: Path, timeout_s: float = 300) -> tuple[str | None, str | None]:
    """nvdisasm's code listing of a cubin, or None and the reason it failed."""
    with tempfile.TemporaryDirectory(prefix="epldb-sass-") as tmp:
        path = Path(tmp) / "program.cubin"
        path.write_bytes(cubin)
        try:
            proc = subprocess.run(
                [str(nvdisasm), "-c", str(path)], capture_output=True, text=True, timeout=timeout_s, check=False
            )
        except (OSError, subprocess.SubprocessError) as exc:
            return None, f"nvdisasm could not run: {exc}"
    if proc.returncode != 0:
        return None, f"nvdisasm failed ({proc.returncode}): {proc.stderr.strip()[:500]}"
    return proc.stdout, None


def memory_width(variant: str) -> int:
    """Access width in bits of a load/store variant: LDG.E → 32, LDG.E.128 → 128, LDG.E.U8 → 8."""
    bits = 32
    for mod in variant.split(".")[1:]:
        if mod in ("64", "128", "256"):
            bits = int(mod)
        elif mod in ("U8", "S8"):
            bits = 8
        elif mod in ("U16", "S16"):
            bits = 16
    return bits


def widths(variants: dict[str, int], op: str) -> dict[int, int]:
    """Instruction counts of one memory opcode by access width, e.g. LDG → {32: 1, 128: 4}."""
    out: Counter[int] = Counter()
    for v, n in variants.items():
        if opcode(v) == op:
            out[memory_width(v)] += n
    return dict(sorted(out.items()))
