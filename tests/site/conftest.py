"""Built sites shared by the site tests: this repository's, and a synthetic one with hostile record text
and invented evidence. Each is generated and built once per session, in a tmp dir."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from site_fixtures import REPO, copy_repository, make_synthetic, read_synthetic_evidence  # noqa: E402

pytest.importorskip("mkdocs", reason="the site extras are not installed (pip install -e '.[site]')")
pytest.importorskip("material", reason="the site extras are not installed (pip install -e '.[site]')")


@dataclass
class BuiltSite:
    root: Path
    site: Path  # the built HTML
    generated: object  # epldb.site.Generated
    pages: dict[str, str]  # "kind:id" → page path relative to site_src

    def html(self, page_md: str) -> Path:
        return self.site / (page_md[: -len(".md")] + ".html")


def _build(root: Path, **kwargs) -> BuiltSite:
    from epldb.site import build, generate, record_pages

    gen = generate(root, **kwargs)
    out = root / "site"
    proc = build(root, out=out)
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    return BuiltSite(root, out, gen, record_pages(gen.data))


@pytest.fixture(scope="session")
def repo_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    """This repository's catalog, kernels and evidence, built as `epldb site` builds them."""
    return _build(copy_repository(tmp_path_factory.mktemp("repo")))


@pytest.fixture(scope="session")
def bare_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    """This repository without its evidence: the state of a fresh catalog, before any GPU run."""
    root = copy_repository(tmp_path_factory.mktemp("bare"), evidence=False)
    return _build(root, compile=False)  # static builds are covered by repo_site


@pytest.fixture(scope="session")
def synthetic_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    """A tiny catalog with hostile texts and invented evidence (charts, peers, a stale row)."""
    root = make_synthetic(tmp_path_factory.mktemp("synthetic"))
    return _build(root, evidence_loader=read_synthetic_evidence)


#: The subjects whose evidence ``measured_evidence`` keeps: an operator realized by its own operator
#: realizations, and a primitive.
MEASURED = ("softmax", "online-max-accumulation")


@pytest.fixture(scope="session")
def measured_evidence():
    """This repository's catalog and its evidence, the realizations' rows only those of ``MEASURED``
    (every other subject is left without evidence): what the single-page tests render from."""
    import epldb
    from epldb.evidence import load_evidence

    cat = epldb.load(REPO)
    ev = load_evidence(cat.root, cat)
    keep = (ev["kind"] != "realization") | ev["subject"].str.split("/").str[0].isin(MEASURED)
    return cat, ev[keep].reset_index(drop=True)


@pytest.fixture(scope="module")
def measured_site(measured_evidence):
    """A generation's ``Site`` over ``measured_evidence`` (no compilation, no page written): build
    single pages from it, cheaply; one a module, since a Site writes each chart once."""
    from epldb.site.data import gather
    from epldb.site.pages.site import Site

    cat, ev = measured_evidence
    return Site(gather(cat, compile=False, evidence_loader=lambda root: ev))
