"""Device pages: the index of devices that evidence was measured on, and a page per device with its
environment, measured ceilings and runs (their files copied beside it). Listed in the nav under
Evidence."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from epldb.site import layout
from epldb.site.escape import html as esc
from epldb.site.html import Page, badge, dash, gbps, ms, table
from epldb.site.pages.common import NO_EVIDENCE, devices, facts, flatten
from epldb.site.pages.kind import PageKind
from epldb.site.pages.site import Site


#: Environment fields shown first on a device page, when a run records them.
_DEVICE_KEYS = ("gpu", "gpu_name", "compute_capability", "sm_count", "memory_bytes", "l2_bytes", "driver",
                "driver_cuda_version", "cuda_runtime_version", "cuda_headers", "nvrtc", "cupy", "torch", "python",
                "clocks.max.sm", "clocks.max.mem", "clocks.sm", "clocks.mem", "power.limit", "persistence_mode")


def write_devices_index(site: Site) -> Page:
    page = Page(layout.DEVICES_INDEX, "Devices", crumbs=[(layout.EVIDENCE_STATUS, "Evidence"), (None, "Devices")])
    names = devices(site)
    if not names:
        page.para(f"{NO_EVIDENCE}: no run has been recorded under <code>evidence/</code>.", "epl-empty")
        return page
    rows = []
    for d in names:
        runs = [i for i in site.data.runs.values() if i.device == d]
        gpu = next((str(i.env.get(k)) for i in runs for k in ("gpu", "gpu_name", "name", "device") if i.env.get(k)), "")
        rows.append([page.a(layout.device(d), d), esc(gpu), str(len(runs))])
    page.raw(table(["device", "GPU", "runs"], rows, numeric=[2]))
    return page


def write_device(site: Site, device: str) -> Page:
    page = Page(layout.device(device), f"Device: {device}",
                crumbs=[(layout.EVIDENCE_STATUS, "Evidence"), (layout.DEVICES_INDEX, "Devices"), (None, device)],
                search_sections=())  # found by its name; its environment and runs are logs
    runs = sorted((i for i in site.data.runs.values() if i.device == device), key=lambda i: (i.utc, i.run))
    if runs:
        newest = runs[-1]
        flat = flatten({k: v for k, v in newest.env.items() if k != "ceilings"})
        page.heading(2, "The device")
        key = [(k, flat[k]) for k in _DEVICE_KEYS if flat.get(k)]
        places = _cluster_places_text(newest.env)
        if places:
            key.append(("clusters placed at once (blocks a cluster: clusters), one block an SM", places))
        ceilings = newest.env.get("ceilings")
        if isinstance(ceilings, dict) and ceilings:
            key.append(("ceilings (GB/s)", ", ".join(f"{n} {v}" for n, v in flatten(ceilings).items())))
        page.raw(facts([(k, esc(v)) for k, v in key]) if key else
                 '<div><p class="epl-empty">No environment record for its newest run.</p></div>')
        if flat:
            page.raw(f'<details class="epl-details"><summary>Full environment of the newest run, '
                     f"<code>{esc(newest.run)}</code></summary>" + facts([(k, esc(v)) for k, v in flat.items()])
                     + "</details>")
    page.heading(2, "Measured ceilings")
    ceil_rows = []
    for i in runs:
        c = i.env.get("ceilings")
        if isinstance(c, dict):
            for name, v in flatten(c).items():
                ceil_rows.append([esc(name), esc(v), esc(i.run), esc(i.utc[:19])])
    ev = site.ev
    measured = ev[(ev["device"] == device) & (ev["kind"] == "ceiling")] if ev is not None else None
    if ceil_rows:
        page.raw(table(["ceiling", "value", "run", "UTC"], ceil_rows, caption_html="From each run's environment record."))
    if measured is not None and not measured.empty:
        page.raw(table(["ceiling", "dtype", "shape", "GB/s", "median ms", "run", "freshness"],
                       [[esc(s), esc(d), esc(sl), gbps(g), ms(m), esc(run), badge("stale", "stale") if st else badge("fresh", "fresh")]
                        for s, d, sl, g, m, run, st in zip(measured["subject"], measured["dtype"], measured["shape_label"],
                                                           measured["gbps"], measured["time_ms_median"], measured["run"],
                                                           measured["stale"])],
                       numeric=[3, 4], caption_html="Rows of kind <code>ceiling</code>, measured in the same runs as the realizations."))
    if not ceil_rows and (measured is None or measured.empty):
        page.para("No ceilings recorded for this device.", "epl-empty")
    page.heading(2, "Runs")
    rows = []
    provenance = _provenance(site)
    for i in runs:
        dest = f"{layout.device_files(device)}/{layout.slug(i.run)}.parquet"
        site.out.files[dest] = i.path.read_bytes()
        env_link = ""
        env_path = i.path.with_name(f"{i.run}.env.json")
        if env_path.is_file():
            env_dest = f"{layout.device_files(device)}/{layout.slug(i.run)}.env.json"
            site.out.files[env_dest] = env_path.read_bytes()
            env_link = f' · <a href="{esc(layout.rel(page.path, env_dest))}">environment</a>'
        n = int((ev["run"] == i.run).sum()) if ev is not None else 0
        subjects = sorted(set(ev[(ev["run"] == i.run) & (ev["kind"] == "realization")]["subject"])) if ev is not None else []
        holes = provenance.get(i.run)
        prov = badge("complete", "fresh") if holes == [] else (
            badge("incomplete", "stale") + " " + esc("; ".join(holes)) if holes else dash())
        rows.append([f"<code>{esc(i.run)}</code>", esc(i.utc[:19]), esc(_board(i.env)) or dash(), str(n),
                     ", ".join(site.link_id(page, "realization", s) for s in subjects) or dash(), prov,
                     f'<a href="{esc(layout.rel(page.path, dest))}">Parquet</a>{env_link}'])
    page.raw(table(["run", "UTC", "board", "rows", "realizations measured", "provenance", "files"], rows, numeric=[3],
                   caption_html="Board: the GPU's UUID (its first eight digits) and, where the run recorded it, "
                                "how many clusters of 16 blocks its GPCs place at once (a persistent cluster "
                                "grid's SMs are 16 times that). Provenance: whether the run recorded its "
                                "environment and a full commit of the history (or the hash of an uncommitted "
                                "tree); the holes of older runs are shown as they are, not filled in."))
    return page


def _provenance(site: Any) -> dict[str, list[str]]:
    """Run id → the holes in its provenance (epldb.evidence.provenance); {} when it cannot be read."""
    try:
        from epldb.evidence.provenance import run_provenance

        return {r.run: r.holes for r in run_provenance(site.data.catalog.root)}
    except Exception:  # noqa: BLE001 (a provenance bug must not take the device page down)
        return {}


def _cluster_places_text(env: dict[str, Any]) -> str:
    """A run's recorded cluster placement as "2: 66 · 4: 33 · ..."; the note it left if the
    driver refused; "" if it recorded none."""
    places = env.get("cluster_places")
    if isinstance(places, dict):
        return " · ".join(f"{k}: {v}" for k, v in sorted(places.items(), key=lambda kv: int(kv[0])))
    return str(places) if places else ""


def _board(env: dict[str, Any]) -> str:
    """Which board a run measured: its UUID's first eight digits, and its clusters of 16."""
    uuid = str(env.get("gpu_uuid") or "")
    short = uuid.removeprefix("GPU-")[:8]
    places = env.get("cluster_places")
    sixteen = places.get("16") if isinstance(places, dict) else None
    return " · ".join(x for x in (short, f"{sixteen} clusters of 16" if sixteen is not None else "") if x)


def _pages(site: Site) -> Iterator[Page]:
    yield write_devices_index(site)
    for d in devices(site):
        yield write_device(site, d)


def _nav(site: Site) -> list[Any]:
    return [{"Devices": [layout.DEVICES_INDEX] + [{esc(d): layout.device(d)} for d in devices(site)]}]


KIND = PageKind("device", _pages, paths=lambda site: {f"device:{d}": layout.device(d) for d in devices(site)},
                nav_title="Evidence", nav=_nav)


__all__ = ["KIND", "write_device", "write_devices_index"]
