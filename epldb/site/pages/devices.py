"""Device pages: the index of devices that evidence was measured on, and a page per device with its
environment, measured ceilings and runs (their files copied beside it, the one copy the site keeps). Listed in the nav under
Evidence."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from epldb.evidence.boards import board_of, board_spread
from epldb.site import layout
from epldb.site.escape import html as esc
from epldb.site.html import Page, badge, dash, gbps, human_bytes, size_field, table
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
        key = [(k, human_bytes(v) if k.endswith("_bytes") else v) for k, v in key]
        page.raw(facts([(k, esc(v)) for k, v in key]) if key else
                 '<div><p class="epl-empty">No environment record for its newest run.</p></div>')
        if flat:
            page.raw(f'<details class="epl-details"><summary>Full environment of the newest run, '
                     f"<code>{esc(newest.run)}</code></summary>"
                     + facts([(k, esc(size_field(k, v))) for k, v in flat.items()])
                     + "</details>")
    page.heading(2, "Measured ceilings")
    _ceilings(site, page, device, runs)
    page.heading(2, "Boards")
    _boards(site, page, device, runs)
    page.heading(2, "Runs")
    _runs(site, page, device, runs)
    return page


def _ceilings(site: Site, page: Page, device: str, runs: list[Any]) -> None:
    """The ceilings each run recorded and the ceiling rows measured, one line per ceiling (a run
    records every ceiling again, so the full lists, hundreds of rows, go to CSV files beside the page)."""
    recorded: dict[str, list[tuple[str, str, str]]] = {}
    for i in runs:
        c = i.env.get("ceilings")
        if isinstance(c, dict):
            for name, v in flatten(c).items():
                recorded.setdefault(name, []).append((v, i.run, i.utc[:19]))
    if recorded:
        link = site.data_file(page, f"{device}-recorded-ceilings", ["ceiling", "value", "run", "utc"],
                              [[name, *entry] for name, entries in recorded.items() for entry in entries])
        page.raw(table(["ceiling", "newest value", "newest run", "runs recording it", "range over runs"],
                       [[esc(name), esc(entries[-1][0]), esc(entries[-1][1]), str(len(entries)), _range(entries)]
                        for name, entries in recorded.items()], numeric=[3],
                       caption_html=f"From each run's environment record; every run's value: {link}."))
    ev = site.ev
    measured = ev[(ev["device"] == device) & (ev["kind"] == "ceiling")] if ev is not None else None
    if measured is not None and not measured.empty:
        cols = ["subject", "dtype", "shape_label", "gbps", "time_ms_median", "run", "stale"]
        link = site.data_file(page, f"{device}-ceiling-rows", ["subject", "dtype", "shape", "gbps", "median_ms",
                                                                "run", "stale"],
                              [list(row) for row in measured[cols].itertuples(index=False)])
        body = []
        for (subject, dtype), rows in measured.groupby(["subject", "dtype"], sort=True):
            fresh = rows[~rows["stale"].astype(bool)]
            body.append([esc(subject), esc(dtype), str(rows["shape_label"].nunique()), str(len(rows)),
                         str(len(fresh)), gbps(rows["gbps"].max()), esc(max(rows["run"]))])
        page.raw(table(["ceiling", "dtype", "shapes", "rows", "fresh rows", "best GB/s", "newest run"], body,
                       numeric=[2, 3, 4, 5],
                       caption_html="Rows of kind <code>ceiling</code>, measured in the same runs as the "
                                    f"realizations; every row (shape, GB/s, median ms, run, freshness): {link}."))
    if not recorded and (measured is None or measured.empty):
        page.para("No ceilings recorded for this device.", "epl-empty")


def _boards(site: Site, page: Page, device: str, runs: list[Any]) -> None:
    """The spread between the boards this device's runs measured (epldb.evidence.boards): the site
    and ``select`` treat them as one device, so say how far apart they are."""
    ev = site.ev
    boards = {i.run: board_of(i.env) for i in runs}
    named = {b for b in boards.values() if b}
    spread = board_spread(ev[ev["device"] == device], boards) if ev is not None and len(named) > 1 else None
    if spread is None:
        page.para(f"{len(named)} board{'s' if len(named) != 1 else ''} recorded"
                  + ("; no measurement was timed on two of them." if len(named) > 1 else
                     ": nothing to compare (runs before boards were recorded name none)."), "epl-empty")
        return
    page.para(f"Runs on {len(named)} boards of this model are one device to the catalog and to <code>select</code>. "
              f"{spread.measurements} measurements (one kind, subject, parameter point, dtype, shape and kernel "
              "source; fresh passing bench rows) were timed on two boards or more: the slowest board over the "
              f"fastest is {spread.median:.3f} at the median, {spread.p90:.3f} at the 90th percentile and "
              f"{spread.worst:.3f} at worst (<code>{esc(spread.worst_measurement)}</code>). Per board, its time "
              "against each measurement's median over boards (above 1: slower).")
    page.raw(table(["board", "runs", "measurements shared", "median ratio", "10th percentile", "90th percentile"],
                   [[f"<code>{esc(b.board)}</code>", str(b.runs), str(b.measurements), f"{b.median_ratio:.3f}",
                     f"{b.low:.3f}", f"{b.high:.3f}"] for b in spread.boards], numeric=[1, 2, 3, 4, 5]))


def _range(entries: list[tuple[str, str, str]]) -> str:
    try:
        values = [float(v) for v, _, _ in entries]
    except ValueError:
        return dash()
    low, high = min(values), max(values)
    return f"{low:g}" if low == high else f"{low:g}–{high:g}"


def _runs(site: Site, page: Page, device: str, runs: list[Any]) -> None:
    """Every run with its files (the one copy the site keeps, which experiment pages link too),
    grouped by the day it ran, newest first; the newest day open."""
    ev = site.ev
    provenance = _provenance(site)
    days: dict[str, list[list[str]]] = {}
    for i in runs:
        links = site.run_links(page, device, i.run, i.path, i.path.with_name(f"{i.run}.env.json"))
        n = int((ev["run"] == i.run).sum()) if ev is not None else 0
        subjects = sorted(set(ev[(ev["run"] == i.run) & (ev["kind"] == "realization")]["subject"])) if ev is not None else []
        holes = provenance.get(i.run)
        prov = badge("complete", "fresh") if holes == [] else (
            badge("incomplete", "stale") + " " + esc("; ".join(holes)) if holes else dash())
        days.setdefault(i.utc[:10] or "undated", []).append(
            [f"<code>{esc(i.run)}</code>", esc(i.utc[11:19]), esc(_board(i.env)) or dash(), str(n),
             _measured(site, page, subjects), prov, links])
    page.para(f"{len(runs)} runs on {len(days)} days, newest first. Board: the GPU's UUID (its first eight "
              "digits) and, where the run recorded it, how many clusters of 16 blocks its GPCs place at once (a "
              "persistent cluster grid's SMs are 16 times that). Provenance: whether the run recorded its "
              "environment and a full commit of the history (or the hash of an uncommitted tree); the holes of "
              "older runs are shown as they are, not filled in.")
    for n, day in enumerate(sorted(days, reverse=True)):
        rows = days[day]
        page.raw(f'<details class="epl-details"{" open" if n == 0 else ""}><summary>{esc(day)}: '
                 f"{len(rows)} run{'s' if len(rows) != 1 else ''}</summary>"
                 + table(["run", "UTC", "board", "rows", "realizations measured", "provenance", "files"], rows,
                         numeric=[3]) + "</details>")


def _measured(site: Site, page: Page, subjects: list[str]) -> str:
    """The realizations a run measured, by subject: ``softmax: a, b`` (each name a link)."""
    by_subject: dict[str, list[str]] = {}
    for rid in subjects:
        subject, _, name = rid.partition("/")
        record = site.cat.realizations.get(rid)
        label = f"<code>{esc(name or rid)}</code>"
        by_subject.setdefault(subject, []).append(
            f'<a href="{esc(page.href(site.page_of(record)))}">{label}</a>' if record is not None else
            f'<span class="epl-missing" title="not in the catalog">{esc(rid)}</span>')
    return "; ".join(f"{esc(s)}: {', '.join(names)}" for s, names in by_subject.items()) or dash()


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
    short = board_of(env)
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
