"""PTX read per function: the identity of what NVVM made of one instantiation.

NVVM's output is a pure function of the source, the options and the toolchain, and so is ptxas's
of the PTX: equal PTX on one toolchain means equal machine code. A function's identity is its own
text plus every module-level declaration and callee it names, transitively, plus the module header
(`.version`, `.target`), its static shared arrays counted as declarations wherever NVVM put them,
and the program-dependent tail of internal names dropped, so an instantiation hashes the same
whichever other points share its program.
"""

from __future__ import annotations

import hashlib
import re

#: Bumped whenever what the hash covers changes: a cached build whose PTX hashes another version
#: made is built again (epldb.compile.build).
PTX_HASH_VERSION = 2

_FUNCTION = re.compile(r"\.(?:entry|func)\s*(?:\([^)]*\)\s*)?([\w$]+)")
_VARIABLE = re.compile(r"\.(?:shared|global|const|local)\b[^;=\[]*?([\w$]+)\s*(?:\[|;|=)")
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_DIRECTIVE = re.compile(r"\s*\.(?:version|target|address_size)\b")
_SHARED = re.compile(r"^[ \t]*\.shared\s.*;$\n?", re.M)
_LABEL = re.compile(r"\$L__BB\d+_")  # block labels count the functions before them in the module
# The namespace NVVM gives names of internal linkage (a namespace-scope const, an anonymous
# namespace): <length>_INTERNAL_..._<file>_cu_<hash>_<n>, whose tail counts the program's characters,
# name expressions included, so it moves with the other points a program holds.
_INTERNAL = re.compile(r"(\d+)(_INTERNAL_)")


def _internal_names_normalized(text: str) -> str:
    """``text`` with each internal namespace (its length prefix, then that many characters) as
    ``_INTERNAL_`` alone."""
    out, at = [], 0
    for m in _INTERNAL.finditer(text):
        end = m.start(2) + int(m.group(1))
        if m.start() < at or end > len(text):
            continue
        out += [text[at:m.start()], "_INTERNAL_"]
        at = end
    return "".join(out) + text[at:]


def _statements(ptx: str) -> tuple[list[str], dict[str, list[str]]]:
    """The header lines, and each top-level declaration or definition by the name it declares
    (a prototype and its definition share the name)."""
    header: list[str] = []
    named: dict[str, list[str]] = {}
    chunk: list[str] = []
    depth = 0
    for raw in ptx.splitlines():
        line = raw.split("//", 1)[0].rstrip()
        if not line.strip():
            continue
        if depth == 0 and not chunk and _DIRECTIVE.match(line):
            header.append(line.strip())
            continue
        chunk.append(line)
        depth += line.count("{") - line.count("}")
        if depth > 0 or not (line.endswith(";") or line.endswith("}")):
            continue
        text = "\n".join(chunk)
        chunk = []
        head = text.split("{", 1)[0]
        found = _FUNCTION.search(head) or _VARIABLE.search(head)
        if found:
            named.setdefault(found.group(1), []).append(text)
        else:
            header.append(text)
    return header, named


def function_hashes(ptx: str, names: set[str]) -> dict[str, str]:
    """sha256 of each mangled function in ``names`` with what it references; names absent from
    the PTX are left out."""
    header, named = _statements(ptx)
    out: dict[str, str] = {}
    for name in names:
        if name not in named:
            continue
        seen: set[str] = set()
        todo = [name]
        while todo:
            n = todo.pop()
            if n in seen or n not in named:
                continue
            seen.add(n)
            todo.extend(m for text in named[n] for m in _NAME.findall(text) if m in named and m not in seen)
        # A static shared array of one function sits in its body, of several at module scope
        # (which depends on what else the program holds): both count as a declaration beside it.
        texts = [t for n in sorted(seen) for t in named[n]]
        shared = sorted({d.strip() for t in texts for d in _SHARED.findall(t)})
        code = [_internal_names_normalized(_LABEL.sub("$L__BB_", body)) for t in texts
                if (body := _SHARED.sub("", t).strip())]
        parts = [*header, *code, *shared]
        out[name] = hashlib.sha256("\n".join(parts).encode()).hexdigest()
    return out
