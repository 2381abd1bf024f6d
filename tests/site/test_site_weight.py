"""A light site (issue 32): bounded page sizes, a nav that fits a screen, each run file kept once, the
error page working from file://, and sources shown once. The checks read the session's built sites
(conftest.py): the repository's (built anyway by test_site_build.py) and the synthetic one."""

from __future__ import annotations

import hashlib
import re
import shutil
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest
import yaml
from html_checks import parse

from epldb.site import layout
from epldb.site.mkdocs_hooks import relative_to_root

MAX_PAGE_BYTES = 500 * 1024
MAX_SITE_BYTES = 30 * 1024 * 1024
#: Nav entries (pages and sections) in the generated nav: what every page's sidebar carries.
MAX_NAV_ITEMS = 60
MAX_NAV_TITLE = 40


@pytest.fixture(params=["repo_site", "synthetic_site"])
def built(request: pytest.FixtureRequest):
    return request.getfixturevalue(request.param)


def _nav_config(built) -> dict:
    return yaml.safe_load((built.root / "site_src" / layout.NAV_FILE).read_text(encoding="utf-8"))


def _nav_items(entries) -> list[str]:
    """Every title and page of a nav, sections included (what the theme renders an item for)."""
    if isinstance(entries, str):
        return [entries]
    if isinstance(entries, list):
        return [item for entry in entries for item in _nav_items(entry)]
    return [item for title, entry in entries.items() for item in [title, *_nav_items(entry)]]


def test_no_page_is_heavier_than_500_kib(built) -> None:
    heavy = [(p.stat().st_size, p.relative_to(built.site).as_posix()) for p in built.site.rglob("*.html")
             if p.stat().st_size > MAX_PAGE_BYTES]
    assert not heavy, "pages over 500 KiB: " + ", ".join(f"{name} {size // 1024} KiB" for size, name in sorted(heavy))


def test_the_repository_site_stays_under_30_mib(repo_site) -> None:
    files = [p for p in repo_site.site.rglob("*") if p.is_file()]
    total = sum(p.stat().st_size for p in files)
    largest = sorted((p.stat().st_size, p.relative_to(repo_site.site).as_posix()) for p in files)[-5:]
    assert total <= MAX_SITE_BYTES, (f"site/ holds {total / 2**20:.1f} MiB: largest "
                                     + ", ".join(f"{n} {s / 2**20:.2f} MiB" for s, n in reversed(largest)))


def test_the_nav_fits_a_screen_and_leaves_realizations_to_their_subjects(built) -> None:
    config = _nav_config(built)
    items = _nav_items(config["nav"])
    assert len(items) <= 2 * MAX_NAV_ITEMS, len(items)  # a title and a page for each entry at most
    titles = [t for entry in config["nav"] for t in _titles(entry)]
    assert len(titles) <= MAX_NAV_ITEMS, f"{len(titles)} nav titles"
    long = [t for t in titles if len(t) > MAX_NAV_TITLE]
    assert not long, f"sentence-long nav titles: {long}"
    listed = {i for i in items if i.endswith(".md")}
    left_out = set(config["not_in_nav"].splitlines())
    for key, page in built.pages.items():
        if key.startswith("realization:"):
            assert page not in listed and f"/{page}" in left_out, key
            assert built.html(page).is_file(), key
    # Each realization stays reachable: its subject's page links it.
    cat = built.generated.data.catalog
    for rid, r in cat.realizations.items():
        subject = cat.subject_of(r)
        if subject is None:
            continue
        kind = "operator" if r.subject in cat.operators else "primitive"
        parent = built.html(built.pages[f"{kind}:{subject.id}"])
        target = built.html(built.pages[f"realization:{rid}"]).resolve()
        linked = {(parent.parent / unquote(urlsplit(ref.value).path)).resolve()
                  for ref in parse(parent).refs if ref.tag == "a" and not ref.value.startswith(("#", "http"))}
        assert target in linked, f"{rid} is not linked from {parent.name}"


def _titles(entry) -> list[str]:
    if isinstance(entry, dict):
        return [t for title, sub in entry.items() for t in [title, *_titles(sub)]]
    if isinstance(entry, list):
        return [t for sub in entry for t in _titles(sub)]
    return []


def test_the_built_pages_carry_the_short_nav(built) -> None:
    home = (built.site / "index.html").read_text(encoding="utf-8")
    assert home.count('class="md-nav__item') <= 2 * MAX_NAV_ITEMS


def test_each_run_file_is_kept_once_in_its_device_folder(built) -> None:
    runs = [p for p in built.site.rglob("*.parquet")]
    assert runs, "no run file in the built site"
    names = Counter(p.name for p in runs)
    assert all(n == 1 for n in names.values()), [n for n, c in names.items() if c > 1]
    digests = Counter(hashlib.sha256(p.read_bytes()).hexdigest() for p in runs)
    assert all(n == 1 for n in digests.values()), "the same run file is copied twice"
    devices = built.site / "generated" / "devices"
    assert all(p.parent.parent == devices for p in runs), [str(p) for p in runs if p.parent.parent != devices]
    # Every page that links a run file links that copy.
    for page in built.site.rglob("*.html"):
        for ref in parse(page).refs:
            if ref.value.endswith(".parquet"):
                assert (page.parent / unquote(ref.value)).resolve() in {p.resolve() for p in runs}, (page, ref.value)


def test_the_error_page_works_from_disk(built) -> None:
    page = built.site / "404.html"
    text = page.read_text(encoding="utf-8")
    assert not re.search(r'\s(?:href|src)="/(?!/)', text), "a site-root link is left in 404.html"
    assert '"base": "/"' not in text
    refs = [r.value for r in parse(page).refs if not r.value.startswith(("#", "data:", "mailto:", "http:", "https:"))]
    assert len(refs) > 20  # the nav, the styles and the scripts
    base = page.as_uri()
    broken = []
    for ref in refs:
        url = urlsplit(urljoin(base, ref))
        assert url.scheme == "file", ref
        if not Path(unquote(url.path)).is_file():
            broken.append(ref)
    assert not broken, "links of 404.html that break under file://: " + ", ".join(broken[:20])


def test_rooted_links_are_made_relative_to_the_root() -> None:
    html = ('<link href="/assets/a.css"><a href="/">home</a><a href="//cdn.example/x">x</a>'
            '<script src="/assets/b.js"></script><script id="__config">{"base": "/", "search": "/w.js"}</script>')
    out = relative_to_root(html)
    assert '<link href="assets/a.css">' in out and '<a href="index.html">' in out
    assert 'href="//cdn.example/x"' in out and 'src="assets/b.js"' in out
    assert '"base": "."' in out and '"search": "w.js"' in out


def test_sources_are_plain_text_shown_once_with_a_raw_copy(built) -> None:
    cat = built.generated.data.catalog
    rid = next(iter(cat.realizations))
    page = built.html(built.pages[f"realization:{rid}"])
    text = page.read_text(encoding="utf-8")
    assert 'class="epl-details epl-code"' in text and 'class="highlight' not in text
    raw = built.site / layout.source_copy(str(cat.realizations[rid].kernel_path))
    assert raw.is_file() and raw.read_bytes() == (built.root / cat.realizations[rid].kernel_path).read_bytes()
    assert any((page.parent / ref.value).resolve() == raw.resolve() for ref in parse(page).refs)
    # Every basis link of a realization page lands on a header's source on its room's page.
    for ref in parse(page).refs:
        if "#src-" in ref.value:
            target, anchor = ref.value.split("#", 1)
            assert anchor in parse((page.parent / target).resolve()).ids, ref.value
    # Each header is copied raw once, under its repository path.
    for header in (built.root / "kernels" / "include").rglob("*.cuh"):
        rel = header.relative_to(built.root).as_posix()
        assert (built.site / layout.source_copy(rel)).read_bytes() == header.read_bytes(), rel


def test_indentation_is_squeezed_outside_pre() -> None:
    from epldb.site.mkdocs_hooks import squeeze_indentation

    html = "<div>\n    <p>a\n      b</p>\n<pre><code>x\n    indented\n\n  kept</code></pre>\n  <textarea>\n  t</textarea>"
    assert squeeze_indentation(html) == ("<div>\n<p>a\nb</p>\n<pre><code>x\n    indented\n\n  kept</code></pre>\n"
                                         "<textarea>\n  t</textarea>")


def test_the_built_pages_keep_their_sources_verbatim(synthetic_site) -> None:
    cat = synthetic_site.generated.data.catalog
    r = next(iter(cat.realizations.values()))
    source = (synthetic_site.root / r.kernel_path).read_text(encoding="utf-8")
    import html as std_html

    page = synthetic_site.html(synthetic_site.pages[f"realization:{r.id}"]).read_text(encoding="utf-8")
    shown = re.search(r'class="epl-details epl-code"><summary>.*?</summary><pre><code>(.*?)</code></pre>', page, re.S)
    assert shown is not None and std_html.unescape(shown.group(1)).strip() == source.strip()


def test_the_device_page_writes_sizes_for_people_and_groups_its_runs(synthetic_site) -> None:
    device = next(k for k in synthetic_site.pages if k.startswith("device:"))
    html = synthetic_site.html(synthetic_site.pages[device]).read_text(encoding="utf-8")
    key_facts = html.split("Full environment of the newest run", 1)[0]
    assert "140 GiB" in key_facts and "150113804288" not in key_facts
    assert "140 GiB (150113804288 B)" in html  # the exact count stays in the full environment
    days = re.findall(r"<summary>(\d{4}-\d\d-\d\d): (\d+) runs?</summary>", html)
    assert days and days == sorted(days, reverse=True), days


def test_a_realization_page_outside_the_nav_has_its_own_contents(synthetic_site) -> None:
    page = synthetic_site.html(synthetic_site.pages["realization:block-reduce/warp-shuffle"])
    html = page.read_text(encoding="utf-8")
    contents = re.search(r'<nav class="epl-contents" aria-label="contents">(.*?)</nav>', html, re.S)
    assert contents is not None
    anchors = re.findall(r'href="#([^"]+)"', contents.group(1))
    assert {"strategy", "kernel-source", "evidence"} <= set(anchors)
    ids = parse(page).ids
    assert all(a in ids for a in anchors), [a for a in anchors if a not in ids]


def test_unread_theme_assets_are_dropped(tmp_path: Path) -> None:
    """Source maps always go; the other languages' search files only from an English-only site."""
    from epldb.site.mkdocs_hooks import drop_unread_assets

    scripts = tmp_path / "assets" / "javascripts"
    for name in ("bundle.min.js", "bundle.min.js.map", "workers/search.min.js", "workers/search.min.js.map",
                 "lunr/wordcut.js", "lunr/min/lunr.ja.min.js"):
        (scripts / name).parent.mkdir(parents=True, exist_ok=True)
        (scripts / name).write_text("x")
    kept = tmp_path / "kept"
    shutil.copytree(tmp_path / "assets", kept / "assets")
    drop_unread_assets(kept, ["en", "ja"])
    assert (kept / "assets/javascripts/lunr/min/lunr.ja.min.js").is_file()
    drop_unread_assets(tmp_path, ["en"])
    left = sorted(p.relative_to(scripts).as_posix() for p in scripts.rglob("*") if p.is_file())
    assert left == ["bundle.min.js", "workers/search.min.js"]


def test_the_site_carries_the_runs_its_pages_draw_and_names_the_rest(repo_site) -> None:
    """Each run is on its device's page: linked where the site carries its file (a run some table
    or chart draws, or an experiment's), else named by its path in the repository, which exists."""
    from epldb.evidence import run_files
    from epldb.evidence.store import device_of

    runs = {p.stem: p for p in run_files(repo_site.root)}
    carried = {p.name[: -len(".parquet")] for p in repo_site.site.rglob("*.parquet")}
    assert carried and carried < {layout.slug(r) for r in runs}, "some runs carried, not all"
    pages = {}
    for run, path in sorted(runs.items()):
        device = device_of(path)
        if device not in pages:
            pages[device] = (repo_site.site / layout.device(device)).with_suffix(".html").read_text(encoding="utf-8")
        if path.parent.name == "experiments":
            assert layout.slug(run) in carried, f"experiment run {run} is not carried"
            continue
        named = f"in the repository: <code>{path.relative_to(repo_site.root).as_posix()}</code>"
        assert (layout.slug(run) in carried) != (named in pages[device]), f"{run}: linked or named, one of the two"
