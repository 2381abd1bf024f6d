"""Resource usage per function from ptxas's verbose log (``--ptxas-options=-v``).

The log NVRTC returns looks like this (sm_80 adds cmem and cumulative stack to the "Used" line):

    ptxas info    : 3275 bytes gmem
    ptxas info    : Compiling entry function '_Z1kILi256EfEvPKT0_Pfi' for 'sm_90a'
    ptxas info    : Function properties for _Z1kILi256EfEvPKT0_Pfi
    ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 22 registers, used 1 barriers, 1024 bytes smem
    ptxas info    : Function properties for _Z6helperPfi
    ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

Non-entry functions (called, not inlined) get "Function properties" but no "Used" line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers(.*)$")
_GMEM = re.compile(r"ptxas info\s*: (\d+) bytes gmem(.*)$")
_CMEM = re.compile(r"(\d+) bytes cmem\[(\d+)\]")


@dataclass
class FunctionResources:
    """What ptxas reports for one function; an entry has ``registers`` set, a callee does not."""

    name: str  # the mangled name
    entry: bool = False
    arch: str | None = None
    registers: int | None = None
    barriers: int = 0
    static_shared_bytes: int = 0
    stack_bytes: int = 0
    spill_store_bytes: int = 0
    spill_load_bytes: int = 0
    cumulative_stack_bytes: int | None = None
    cmem: dict[int, int] = field(default_factory=dict)  # constant bank → bytes

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "entry": self.entry,
            "arch": self.arch,
            "registers": self.registers,
            "barriers": self.barriers,
            "static_shared_bytes": self.static_shared_bytes,
            "stack_bytes": self.stack_bytes,
            "spill_store_bytes": self.spill_store_bytes,
            "spill_load_bytes": self.spill_load_bytes,
            "cumulative_stack_bytes": self.cumulative_stack_bytes,
            "cmem": {str(k): v for k, v in self.cmem.items()},
        }

    @staticmethod
    def from_dict(d: dict) -> "FunctionResources":
        return FunctionResources(
            name=d["name"],
            entry=d["entry"],
            arch=d.get("arch"),
            registers=d.get("registers"),
            barriers=d.get("barriers", 0),
            static_shared_bytes=d.get("static_shared_bytes", 0),
            stack_bytes=d.get("stack_bytes", 0),
            spill_store_bytes=d.get("spill_store_bytes", 0),
            spill_load_bytes=d.get("spill_load_bytes", 0),
            cumulative_stack_bytes=d.get("cumulative_stack_bytes"),
            cmem={int(k): v for k, v in d.get("cmem", {}).items()},
        )


@dataclass
class PtxasReport:
    functions: dict[str, FunctionResources] = field(default_factory=dict)  # by mangled name
    gmem_bytes: int = 0
    module_cmem: dict[int, int] = field(default_factory=dict)  # e.g. __constant__ data in cmem[3]

    @property
    def entries(self) -> dict[str, FunctionResources]:
        return {n: f for n, f in self.functions.items() if f.entry}


def _parse_used(rest: str, fn: FunctionResources) -> None:
    # The items after "Used N registers" vary by architecture and release; read each one by name.
    for item in rest.split(","):
        item = item.strip()
        if m := re.fullmatch(r"used (\d+) barriers", item):
            fn.barriers = int(m.group(1))
        elif m := re.fullmatch(r"(\d+) bytes smem", item):
            fn.static_shared_bytes = int(m.group(1))
        elif m := re.fullmatch(r"(\d+) bytes cumulative stack size", item):
            fn.cumulative_stack_bytes = int(m.group(1))
        elif m := _CMEM.fullmatch(item):
            fn.cmem[int(m.group(2))] = int(m.group(1))


def parse_ptxas_log(log: str) -> PtxasReport:
    """Resources of every function the log mentions; lines it does not know are ignored."""
    report = PtxasReport()
    current: FunctionResources | None = None  # the function the next stack-frame line is about
    entry: FunctionResources | None = None  # the entry the next "Used" line is about

    def get(name: str) -> FunctionResources:
        return report.functions.setdefault(name, FunctionResources(name))

    for line in log.splitlines():
        if m := _ENTRY.search(line):
            current = entry = get(m.group(1))
            entry.entry = True
            entry.arch = m.group(2)
        elif m := _PROPS.search(line):
            current = get(m.group(1))
        elif (m := _FRAME.search(line)) and current is not None:
            current.stack_bytes, current.spill_store_bytes, current.spill_load_bytes = map(int, m.groups())
        elif (m := _USED.search(line)) and entry is not None:
            # "Used" follows its entry's properties even when a callee's properties come between.
            entry.registers = int(m.group(1))
            _parse_used(m.group(2), entry)
        elif m := _GMEM.search(line):
            report.gmem_bytes = int(m.group(1))
            for cm in _CMEM.finditer(m.group(2)):
                report.module_cmem[int(cm.group(2))] = int(cm.group(1))
    return report
