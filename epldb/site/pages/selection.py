"""The "Selection, measured" page: how good the evidence-driven selection is on shapes it did not see
(``epldb.select.evaluate``, as ``epldb select --evaluate`` prints it): each shape of the bench
evidence left out in turn, the pick made from the rest and scored against the fastest measured at
the hidden shape. Per device and subject, per basis of the pick, the worst picks, every cell as CSV.
Computed once per generation over the decision tables' Selector (``Site.decisions.evaluation``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from epldb.records import point_text
from epldb.select.evaluate import FAR, NEAR, SHARE_NEAR, Cell, Evaluation
from epldb.site import layout
from epldb.site.data import shape_label
from epldb.site.escape import html as esc
from epldb.site.html import Page, dash, table
from epldb.site.pages.common import NO_EVIDENCE
from epldb.site.pages.kind import PageKind
from epldb.site.pages.rules import BASIS_ORDER, SELECTION_TITLE, nowrap, point_cell
from epldb.site.pages.site import Site

TITLE = SELECTION_TITLE
WORST_SHOWN = 15  # rows of the worst picks' table
CELLS_CSV = "selection-cells"  # every cell, beside the page (data/selection-cells.csv)
SCORE_HEADER = ["cells", f"within {NEAR - 1:.0%}", f"within {FAR - 1:.0%}", "worst ratio"]
CSV_HEADER = ["device", "subject", "dtype", "problem", "hidden_shape", "pick", "pick_point", "pick_ms", "best",
              "best_point", "best_ms", "ratio", "basis"]


def write_selection(site: Site) -> Page:
    """The page, from this generation's evaluation."""
    return selection_page(site, site.decisions.evaluation())


def selection_page(site: Site, found: Evaluation | str) -> Page:
    """The page for an evaluation (or the sentence saying why there is none)."""
    page = Page(layout.SELECTION, TITLE)
    page.para(method_html(found if isinstance(found, Evaluation) else None))
    if isinstance(found, str):
        page.para(f"The evaluation could not be computed: {esc(found)}")
    elif not found.cells:
        page.para(f"{NO_EVIDENCE}: a cell needs a realization timed at a shape and at least one other "
                  "(<code>epldb bench</code>).", "epl-empty")
    else:
        _sections(site, page, found.cells)
    page.para("<code>epldb select --evaluate</code> prints the same evaluation (<code>--json</code>: every "
              "cell); <code>epldb bench --sweep</code> times every declared point at each contract's shapes off "
              "the bench line (rows that are not 16-byte aligned, few rows, vocabulary-sized rows), which it "
              "then scores as well.")
    return page


def method_html(found: Evaluation | None) -> str:
    """The method, the bar, and (given an evaluation with cells) whether the bar holds now."""
    near, far, bar = f"{NEAR - 1:.0%}", f"{FAR - 1:.0%}", f"{SHARE_NEAR:.0%}"
    text = ("Each cell is one device, subject, dtype, problem and shape of the committed bench evidence. "
            "The shape's rows are hidden and the selection model is fitted on the rest: per realization, "
            "its best time per byte at each measured row length, interpolated in log time over log2 of the "
            "row length between the measured lengths and held at the nearest one beyond them "
            "(<em>extrapolated</em>); per parameter point, its regret over that envelope where it was measured "
            "on both sides, else its distance from the trend of the best points. The pick is the realization "
            "and point it predicts fastest among those timed at the hidden shape; its measured time there is "
            "set against the fastest measured there (a ratio of 1.00 is the best pick). "
            f"The bar: within {near} of the fastest at {bar} of the cells or more, and within "
            f"{far} at all of them.")
    if found is None or not found.cells:
        return text
    cells = found.cells
    close = sum(c.ratio <= NEAR for c in cells)
    beyond = sum(c.ratio > FAR for c in cells)
    text += (f" Now, over the {len(cells)} cells of {len({c.subject for c in cells})} subjects: {close} picks "
             f"({share(found.share_near, 1)}) within {near}, {len(cells) - beyond} ({share(within(cells, FAR), 1)}) "
             f"within {far}, the worst {found.worst:.2f}&#215; the fastest. ")
    if found.holds:
        return text + "<strong>The bar holds now.</strong>"
    misses = []
    if found.share_near < SHARE_NEAR:  # the counts decide: a share printed as 90.0% may be under the bar
        misses.append(f"{close} of {len(cells)} within {near} is under {bar}")
    if beyond:
        misses.append(f"{beyond} pick{'s' if beyond != 1 else ''} beyond {far}")
    return text + f"<strong>The bar does not hold now</strong>: {'; '.join(misses)}."


def _sections(site: Site, page: Page, cells: Sequence[Cell]) -> None:
    page.heading(2, "By subject")
    by_device: dict[str, list[Cell]] = {}
    for c in cells:
        by_device.setdefault(c.device, []).append(c)
    for device, mine in sorted(by_device.items()):
        page.raw(subject_table(site, page, mine, caption_html=(
            f"Left out one shape at a time on {site.device_link(page, device)}: {len(mine)} cells.")))
    page.heading(2, "By basis of the pick")
    page.para("Without the hidden shape, a pick's time is <em>interpolated</em> where its realization was "
              "measured at row lengths on both sides of it, else <em>extrapolated</em> from the nearest one: "
              "a shape at the shortest or the longest row length measured is always an extrapolation, since "
              "hiding it takes away that end of the measured range.")
    page.raw(basis_table(site, page, cells))
    page.heading(2, "Worst picks")
    worst = worst_cells(cells)
    if not worst:
        page.para("Every pick was the fastest measured at its hidden shape.", "epl-empty")
    else:
        page.para(f"The {len(worst)} picks furthest from the fastest measured at their hidden shape (ratio: "
                  "the pick's measured time over the fastest's), the pick's point and the fastest's without "
                  "the dtype and the problem. Every cell: "
                  + site.data_file(page, CELLS_CSV, CSV_HEADER, [_csv_row(c) for c in cells]) + ".")
        page.raw(worst_table(site, page, worst, devices=len({c.device for c in cells}) > 1))


def subject_table(site: Site, page: Page, cells: Sequence[Cell], *, caption_html: str | None = None) -> str:
    """One device's cells by subject: how many, the shares within NEAR and FAR, the worst ratio."""
    by_subject: dict[str, list[Cell]] = {}
    for c in cells:
        by_subject.setdefault(c.subject, []).append(c)
    rows = [[site.subject_link(page, sid), *_scores(mine)] for sid, mine in sorted(by_subject.items())]
    return table(["subject", *SCORE_HEADER], rows, numeric=[1, 2, 3, 4], caption_html=caption_html)


def basis_table(site: Site, page: Page, cells: Sequence[Cell]) -> str:
    """The cells by device and by the basis of the pick's prediction."""
    groups: dict[tuple[str, str], list[Cell]] = {}
    for c in cells:
        groups.setdefault((c.device, c.basis), []).append(c)

    def order(k: tuple[str, str]) -> tuple[str, int, str]:
        return k[0], BASIS_ORDER.index(k[1]) if k[1] in BASIS_ORDER else len(BASIS_ORDER), k[1]

    rows = [[site.device_link(page, device), esc(basis), *_scores(groups[(device, basis)])]
            for device, basis in sorted(groups, key=order)]
    return table(["device", "basis", *SCORE_HEADER], rows, numeric=[2, 3, 4, 5])


def worst_cells(cells: Sequence[Cell], shown: int = WORST_SHOWN) -> list[Cell]:
    """The picks slower than the fastest, worst first (the evaluation's order among equals)."""
    return sorted((c for c in cells if c.ratio > 1), key=lambda c: -c.ratio)[:shown]


def worst_table(site: Site, page: Page, cells: Sequence[Cell], *, devices: bool = False) -> str:
    """The worst picks: where, what was picked and at which point, the fastest, the ratio, the basis."""
    def pick(rid: str, point: dict[str, object], c: Cell) -> str:
        return f"{site.link_id(page, 'realization', rid)}<br><small>{point_cell(site, rid, point, c.problem)}</small>"

    with_problem = any(c.problem for c in cells)  # a column of dashes where no contract has one: left out
    rows = [([site.device_link(page, c.device)] if devices else [])
            + [site.subject_link(page, c.subject), esc(c.dtype)]
            + ([esc(point_text(c.problem)) or dash()] if with_problem else [])
            + [nowrap(shape_label(c.shape)), pick(c.pick, c.pick_point, c), pick(c.best, c.best_point, c),
               f"{c.ratio:.2f}", esc(c.basis)]
            for c in cells]
    header = ["subject", "dtype", *(["problem"] if with_problem else []), "hidden shape", "pick", "fastest measured",
              "ratio", "basis"]
    return table((["device"] if devices else []) + header, rows, numeric=[len(header) - 2 + int(devices)])


def _scores(cells: Sequence[Cell]) -> list[str]:
    return [str(len(cells)), share(within(cells, NEAR)), share(within(cells, FAR)),
            f"{max(c.ratio for c in cells):.2f}"]


def _csv_row(c: Cell) -> list[object]:
    return [c.device, c.subject, c.dtype, point_text(c.problem), c.shape, c.pick, point_text(c.pick_point),
            c.pick_ms, c.best, point_text(c.best_point), c.best_ms, round(c.ratio, 4), c.basis]


def within(cells: Sequence[Cell], bound: float) -> float:
    """The share of the cells whose pick is within ``bound`` (a ratio) of the fastest."""
    return sum(c.ratio <= bound for c in cells) / len(cells) if cells else 0.0


def share(value: float, places: int = 0) -> str:
    """A share as a percentage, rounded as ``epldb select --evaluate`` rounds it."""
    return f"{value:.{places}%}"


def _pages(site: Site) -> Iterator[Page]:
    site.say("selection, measured (each bench shape left out in turn)")
    yield write_selection(site)


KIND = PageKind("selection", _pages, nav_title="Selection", nav=lambda site: layout.SELECTION)


__all__ = ["CELLS_CSV", "KIND", "TITLE", "WORST_SHOWN", "method_html", "selection_page", "share",
           "subject_table", "within", "worst_cells", "worst_table", "write_selection"]
