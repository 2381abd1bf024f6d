"""How every primitive, realization and operator page ends: its notes, the experiments that concern
it, and the record it came from."""

from __future__ import annotations

from epldb.records import Operator, Primitive, Realization
from epldb.site.escape import prose
from epldb.site.html import Page
from epldb.site.pages import experiments
from epldb.site.pages.common import record_footer
from epldb.site.pages.site import Site


def close_record_page(site: Site, page: Page, record: Primitive | Realization | Operator) -> None:
    """Notes (when the record has some), the experiments concerning it, the record's footer."""
    if record.notes:
        page.heading(2, "Notes")
        page.raw(f'<div class="epl-prose">{prose(record.notes)}</div>')
    experiments.section(site, page, record)
    record_footer(page, record)


__all__ = ["close_record_page"]
