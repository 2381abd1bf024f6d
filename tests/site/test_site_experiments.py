"""The experiments on the site: an index with every experiment's verdict, a page per experiment with
its fields and its runs' files, and the list on the pages of the records they concern. Generation
only (no MkDocs, no compilation), on a copy of this repository with the experiments' runs but no
other evidence; the built sites' checks (test_site_build.py: every page built, every link resolving,
no markup injected) cover the experiment pages of the synthetic site too."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from site_fixtures import EXPERIMENT, EXPERIMENT_RUN, HOSTILE, REPO, copy_repository, make_synthetic

from epldb.site import layout
from epldb.site.escape import html as esc
from epldb.site.escape import prose


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory):
    from epldb.site import generate

    root = copy_repository(tmp_path_factory.mktemp("experiments"), evidence=False)
    for folder in sorted((REPO / "evidence").glob("*/experiments")):
        shutil.copytree(folder, root / "evidence" / folder.parent.name / "experiments")
    return generate(root, compile=False)


def _md(gen, page: str) -> str:
    return (gen.docs_dir / page).read_text(encoding="utf-8")


def test_the_index_lists_every_experiment_with_its_verdict(generated) -> None:
    cat = generated.data.catalog
    n = len(list((cat.root / "catalog" / "experiments").glob("*.yaml")))
    assert len(cat.experiments) == n >= 42
    index = _md(generated, layout.EXPERIMENTS_INDEX)
    counts = {v: sum(e.verdict == v for e in cat.experiments.values()) for v in ("adopted", "rejected", "open")}
    assert (f"<strong>{n}</strong> experiments: {counts['adopted']} adopted, {counts['rejected']} rejected, "
            f"{counts['open']} open.") in index
    for e in cat.experiments.values():
        assert f'href="{e.id}.html"' in index and esc(e.title) in index, e.id
    assert index.count('class="epl-badge epl-badge--') == n


def test_every_experiment_has_its_page_with_its_fields_and_runs(generated) -> None:
    cat = generated.data.catalog
    files = generated.output.files
    for e in cat.experiments.values():
        page = layout.experiment(e.id)
        assert page in generated.output.pages, e.id
        md = _md(generated, page)
        for text in (e.question, e.expectation, e.change, e.result):
            assert re.sub(r'<a href="[0-9a-z-]+\.html">([0-9a-z-]+)</a>', r"\1", md).count(prose(text)), e.id
        for cited in re.findall(r"experiment ([0-9]{4}-[a-z0-9-]*[a-z0-9])", e.result):
            assert f'experiment <a href="{cited}.html">{cited}</a>' in md, (e.id, cited)
        assert f"epl-badge--{e.verdict}" in md
        for c in e.concerns:
            assert f"<code>{esc(c)}</code></a>" in md, (e.id, c)  # every concerned record resolves to a link
        for run in e.evidence:
            stored = next((REPO / "evidence").glob(f"*/experiments/{run}.parquet"))
            device = stored.parent.parent.name  # the one copy sits in its device's folder, not beside the page
            copy = f"{layout.device_files(device)}/{layout.slug(run)}.parquet"
            assert files[copy] == stored.read_bytes(), run
            assert f'href="{layout.rel(page, copy)}">Parquet</a>' in md
            rows = pq.read_metadata(stored).num_rows
            assert f"<code>{esc(run)}</code>" in md and f">{rows}<" in md, run
    # Every stored experiment run was checked above: the records list exactly the runs on disk.
    stored_runs = list((REPO / "evidence").glob("*/experiments/*.parquet"))
    assert sum(len(e.evidence) for e in cat.experiments.values()) == len(stored_runs)


def test_record_pages_list_the_experiments_that_concern_them(generated) -> None:
    cat = generated.data.catalog
    site_pages = generated.output.pages
    realization = cat.realizations["rmsnorm/staged-pipelined"]
    md = (generated.docs_dir / next(p for p in site_pages if p.endswith("rmsnorm/staged-pipelined.md"))).read_text()
    section = md.split("## Experiments", 1)[1]
    for e in cat.experiments_concerning(realization.id):
        assert f"{e.id}.html" in section and f"epl-badge--{e.verdict}" in section, e.id
    # An operator's page lists those of its realizations too, with the records each concerns.
    operator = _md(generated, layout.operator("rmsnorm")).split("## Experiments", 1)[1]
    for e in cat.experiments_concerning("rmsnorm", realizations=True):
        assert f"{e.id}.html" in operator, e.id
    primitive = _md(generated, layout.primitive("tile-staging", "tma-bulk-copy"))
    assert "## Experiments" in primitive and "0028-l2-keep-input.html" in primitive
    bare = [r for r in cat.realizations.values() if not cat.experiments_concerning(r.id)]
    assert bare
    page = next(p for p in site_pages if p.endswith(f"/{bare[0].subject}/{bare[0].name}.md"))
    assert "## Experiments" not in _md(generated, page)


def test_the_nav_has_the_experiments_index_and_leaves_each_experiment_to_it(generated) -> None:
    import yaml

    config = yaml.safe_load((generated.docs_dir / layout.NAV_FILE).read_text())
    assert {"Experiments": layout.EXPERIMENTS_INDEX} in config["nav"]
    # Each experiment's page is linked from the index, and named in not_in_nav so --strict passes.
    assert f"/{layout.experiment('0042-register-cluster-16')}" in config["not_in_nav"].splitlines()


def test_experiment_text_is_escaped(tmp_path: Path) -> None:
    from epldb.site import generate

    gen = generate(make_synthetic(tmp_path / "s"), compile=False)
    md = _md(gen, layout.experiment(EXPERIMENT))
    assert "<script>" not in md and "<img" not in md and "javascript:x)" not in md.replace("[link](javascript:x)", "")
    assert esc(HOSTILE) in md and "<strong>bold</strong>" in md
    assert any(path.endswith(f"/{layout.slug(EXPERIMENT_RUN)}.parquet") and path.startswith(f"{layout.GENERATED}/devices/")
               for path in gen.output.files)
    realization = _md(gen, layout.realization("reduction", "block-reduce", "warp-shuffle"))
    assert "## Experiments" in realization and f"{EXPERIMENT}.html" in realization
    assert "<script>" not in realization
