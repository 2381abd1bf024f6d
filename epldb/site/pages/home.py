"""The home page's generated part: a snippet that the hand-written site_src/index.md includes (the
flow with live counts and the headline results). It writes a file, not a page."""

from __future__ import annotations

from collections.abc import Iterator

from epldb.site import layout
from epldb.site import views as V
from epldb.site.escape import html as esc
from epldb.site.html import Page, dash, gbps, pct, table
from epldb.site.pages.common import NO_EVIDENCE
from epldb.site.pages.kind import PageKind
from epldb.site.pages.site import Site


def write_home_snippet(site: Site) -> str:
    """Markdown included into the hand-written site_src/index.md: the flow with live counts and the
    headline results. Links are relative to index.md."""
    cat = site.cat
    page = _Snippet(layout.HOME)
    n_ver = sum(r.status == "verified" for r in cat.realizations.values())
    n_inc = len(list((cat.root / "kernels" / "include").rglob("*.cuh"))) if (cat.root / "kernels" / "include").is_dir() else 0
    boxes = [
        (layout.OPERATORS_INDEX, "Operators", f"{len(cat.operators)} case studies"),
        (layout.FEATURES_INDEX, "Structural features", f"{len(cat.features)} features"),
        (layout.PRIMITIVES_INDEX, "Execution primitives",
         f"{len(cat.primitives)} in {len({p.family for p in cat.primitives.values()})} families"),
        (layout.EVIDENCE_STATUS, "GPU realizations", f"{len(cat.realizations)} ({n_ver} verified)"),
        (layout.BASIS, "Hardware-aware codegen", f"{n_inc} device building blocks"),
    ]
    arrow = '<div class="epl-arrow" aria-hidden="true">→</div>'
    flow = arrow.join(f'<a class="epl-flow__box" href="{esc(layout.href(page.path, to))}">'
                      f'<span class="epl-flow__title">{esc(t)}</span><span class="epl-flow__count">{esc(c)}</span></a>'
                      for to, t, c in boxes)
    parts = [f'<div class="epl-flow">{flow}</div>', ""]
    parts.append("## Headline results\n")
    ev = site.ev
    heads = [h for p in cat.primitives.values() if ev is not None and (h := V.headline(ev, p.id, site.order(p.id)))]
    if not heads:
        parts.append(f'<div class="epl-empty"><p><strong>{NO_EVIDENCE}.</strong> No realization has been '
                     "measured on a GPU. Static evidence (registers, shared memory, spills, SASS claims) is on "
                     "every realization page; measured bandwidth against peers and the device ceiling appears "
                     f'here after <code>epldb bench</code> runs on a GPU (<a href="{esc(layout.href(page.path, layout.EVIDENCE_STATUS))}">'
                     "evidence status</a>).</p></div>")
    else:
        rows = []
        for h in heads:
            real = cat.realizations.get(str(h.best["subject"]))
            best = (f'<a href="{esc(layout.href(page.path, site.page_of(real)))}">{esc(real.title)}</a>'
                    if real else esc(h.best["subject"]))
            prim = cat.primitives[h.primitive]
            rows.append([
                f'<a href="{esc(layout.href(page.path, site.page_of(prim)))}">{esc(prim.title)}</a>',
                f'<a href="{esc(layout.href(page.path, layout.device(h.device)))}">{esc(h.device)}</a>',
                esc(f"{V.problem_label(h.problem)} · {h.best['shape_label']}"),
                f"{best}<br><small>{esc(h.best['knobs_label'])}</small>",
                f"{gbps(h.best['gbps'])} <small>{pct(h.best['frac_ceiling'])}</small>",
                (f"{esc(h.peer['subject_label'])}: {gbps(h.peer['gbps'])} <small>{pct(h.peer['frac_ceiling'])}</small>"
                 if h.peer is not None else dash()),
                gbps(h.ceiling),
            ])
        parts.append(table(["primitive", "device", "problem", "best realization", "GB/s (% ceiling)",
                            "best peer GB/s (% ceiling)", "ceiling GB/s"], rows, numeric=[4, 6],
                           caption_html="Newest fresh passing rows, at each primitive's largest measured shape."))
    return "\n".join(parts) + "\n"


class _Snippet:
    def __init__(self, path: str) -> None:
        self.path = path


def _pages(site: Site) -> Iterator[Page]:
    site.out.files[layout.HOME_SNIPPET] = write_home_snippet(site).encode("utf-8")
    yield from ()


KIND = PageKind("home", _pages, nav_title="Home", nav=lambda site: layout.HOME)


__all__ = ["KIND", "write_home_snippet"]
