"""What several page kinds share: the cells of evidence tables, fact tables, a record's footer, the
devices measured, the headers a kernel includes, and the nav entry of a primitive or operator."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from epldb.records import Operator, Primitive
from epldb.site import layout
from epldb.site.escape import html as esc
from epldb.site.html import Page, badge, dash, gbps, pct, sci
from epldb.site.pages.site import Site

if TYPE_CHECKING:
    import pandas as pd

NO_EVIDENCE = "No evidence yet"


# --- formatting of evidence rows --------------------------------------------------------------


def fresh_cell(rows: "pd.DataFrame") -> str:
    if rows is None or rows.empty:
        return dash()
    fresh = rows[rows["fresh"]]
    if fresh.empty:  # the machine code changed since: a GPU run has to measure it again
        return badge("stale: re-measure pending", "stale")
    when = str(fresh["utc"].iloc[-1])[:10] or str(fresh["run"].iloc[-1])
    return badge("fresh", "fresh") + f" <small>{esc(when)}</small>"


def det_cell(rows: "pd.DataFrame") -> str:
    if rows is None or rows.empty or "deterministic" not in rows:
        return dash()
    vals = [v for v in rows["deterministic"] if v is not None and str(v) not in ("", "nan", "None")]
    if not vals:
        return dash()
    truthy = [str(v).strip().lower() in ("true", "1", "yes", "bitwise") for v in vals]
    return badge("bitwise", "pass") if all(truthy) else badge("varies", "warn")


def err_cell(rows: "pd.DataFrame") -> str:
    if rows is None or rows.empty:
        return dash()
    return sci(rows["err_max_rel"].max())


def gbps_pct(row: "pd.Series | None") -> str:
    if row is None:
        return dash()
    return f"{gbps(row['gbps'])} <small>{pct(row['frac_ceiling'])}</small>"


def best_by_shape(best: "pd.DataFrame", subject: str) -> dict[str, "pd.Series"]:
    """Shape → the row of ``subject`` with the highest GB/s there (the first of equals)."""
    own = best[best["subject"] == subject]
    top: dict[str, tuple[float, int]] = {}
    for i, (shape, g) in enumerate(zip(own["shape"], own["gbps"])):
        if shape not in top or g > top[shape][0]:
            top[shape] = (g, i)
    return {shape: own.iloc[i] for shape, (_, i) in top.items()}


def shape_labels(rows: "pd.DataFrame") -> dict[str, str]:
    return dict(zip(rows["shape"], rows["shape_label"]))


# --- records ------------------------------------------------------------------------------------


def first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    cut = flat.find(". ")
    if 0 <= cut <= 220:
        return flat[: cut + 1]
    return flat if len(flat) <= 220 else flat[:200].rsplit(" ", 1)[0] + " …"


def record_footer(page: Page, record: Any) -> None:
    page.raw(f'<div class="epl-source"><p>Record: <code>{esc(record.file)}</code> · id '
             f"<code>{esc(record.id)}</code></p></div>")


def facts(pairs: list[tuple[str, str]]) -> str:
    rows = "".join(f"<tr><th>{esc(k)}</th><td>{v}</td></tr>" for k, v in pairs)
    return f'<div class="epl-facts"><table class="epl-facts-table"><tbody>{rows}</tbody></table></div>'


def flatten(d: dict[str, Any], prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in d.items():
        key = k if prefix and k.startswith(prefix) else f"{prefix}{k}"  # 'clocks' → 'clocks.sm', not 'clocks.clocks.sm'

        if isinstance(v, dict):
            out.update(flatten(v, key + "."))
        elif isinstance(v, list):
            out[key] = ", ".join(str(x) for x in v)
        else:
            out[key] = "" if v is None else str(v)
    return out


def record_paths(site: Site, kind: str, records: Mapping[str, Any]) -> dict[str, str]:
    """``"<kind>:<id>"`` → the page of each record (a kind's ``paths``)."""
    return {f"{kind}:{rid}": site.page_of(rec) for rid, rec in records.items()}


def subject_nav(site: Site, subject: Primitive | Operator) -> dict[str, Any]:
    """A primitive's or an operator's nav entry: its page under its id. Its realizations stay out of
    the nav (every page carries the whole nav, and ~100 sentence-long titles would not fit a
    screen); the subject's page lists and links them."""
    return {esc(subject.id): site.page_of(subject)}


def devices(site: Site) -> list[str]:
    names = {i.device for i in site.data.runs.values()}
    if site.ev is not None:
        names |= set(site.ev["device"])
    return sorted(names)


# --- kernel sources -----------------------------------------------------------------------------


def basis_anchor(rel_name: str) -> str:
    """The anchor of a header's source on the basis page."""
    return "src-" + layout.slug(rel_name)


def local_includes(include_dir: Path, source: str, here: Path, seen: set[str] | None = None, *,
                    deep: bool = True) -> list[tuple[str, str]]:
    """Headers under ``include_dir`` reachable from ``source`` by #include (only its own #includes
    unless ``deep``), depth first, each once."""
    import re

    seen = set() if seen is None else seen
    out: list[tuple[str, str]] = []
    for m in re.finditer(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', source, re.M):
        name = m.group(1)
        for candidate in (include_dir / name, here / name):
            try:
                resolved = candidate.resolve()
                rel_name = resolved.relative_to(include_dir.resolve()).as_posix()
            except (ValueError, OSError):
                continue
            if not resolved.is_file():
                continue
            if rel_name in seen:
                break
            seen.add(rel_name)
            text = resolved.read_text(encoding="utf-8", errors="replace")
            out.append((rel_name, text))
            if deep:
                out.extend(local_includes(include_dir, text, resolved.parent, seen))
            break
    return out


__all__ = ["NO_EVIDENCE", "basis_anchor", "best_by_shape", "det_cell", "devices", "err_cell", "facts",
           "first_sentence", "flatten", "fresh_cell", "gbps_pct", "local_includes", "record_footer",
           "record_paths", "shape_labels", "subject_nav"]
