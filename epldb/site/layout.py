"""Where every page lives under ``site_src/``, and relative links between them.

Paths mirror the catalog: a realization's page sits beside its subject's page, a primitive
realization's under the primitive's family, as its kernel does under ``kernels/``; an operator
realization's beside its operator's page (its kernel is under ``kernels/operators/<operator>/``):

    generated/features/<feature>.md
    generated/primitives/<family>/index.md
    generated/primitives/<family>/<primitive>/index.md
    generated/primitives/<family>/<primitive>/<realization>.md
    generated/operators/<operator>.md
    generated/operators/<operator>/<realization>.md
    generated/devices/<device>.md
    generated/experiments/index.md           every experiment, with its verdict
    generated/experiments/<NNNN-slug>.md     one experiment (its runs' files are its device's, under devices/)
    generated/selection.md                   the selection scored on shapes it did not see
    generated/evidence.md                    the evidence status
    generated/basis.md                       the device building blocks (kernels/include/epl/)
    generated/basis/<room>.md                a room's header sources (epl/block/ → epl-block.md)
    generated/kernels/...                    one raw copy of each kernel and header, linked from pages

Links are relative so the built site works from ``file://``. Markdown links name the ``.md`` file
(MkDocs checks and rewrites them); links inside raw HTML must name the built ``.html`` file, which
is why ``href`` exists (the site is built with ``use_directory_urls: false``).
"""

from __future__ import annotations

import posixpath
import re

GENERATED = "generated"
#: Files MkDocs must not render as pages: the nav and the snippets included into hand-written pages.
BUILD_DIR = f"{GENERATED}/_build"
HOME_SNIPPET = f"{BUILD_DIR}/home.md"
NAV_FILE = f"{BUILD_DIR}/nav.yml"

FEATURES_INDEX = f"{GENERATED}/features/index.md"
PRIMITIVES_INDEX = f"{GENERATED}/primitives/index.md"
OPERATORS_INDEX = f"{GENERATED}/operators/index.md"
DEVICES_INDEX = f"{GENERATED}/devices/index.md"
EVIDENCE_STATUS = f"{GENERATED}/evidence.md"
SELECTION = f"{GENERATED}/selection.md"
BASIS = f"{GENERATED}/basis.md"
EXPERIMENTS_INDEX = f"{GENERATED}/experiments/index.md"
HOME = "index.md"
CONTRIBUTING = "contributing.md"
ARCHITECTURE = f"{GENERATED}/architecture.md"  # docs/ARCHITECTURE.md, copied as it is
ARCHITECTURE_SOURCE = "docs/ARCHITECTURE.md"

UNFILED = "unfiled"  # family folder for a realization whose primitive is missing


def slug(text: str) -> str:
    """A safe file-name part: lower-case letters, digits and hyphens."""
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-") or "x"


def feature(feature_id: str) -> str:
    return f"{GENERATED}/features/{slug(feature_id)}.md"


def family(name: str) -> str:
    return f"{GENERATED}/primitives/{slug(name)}/index.md"


def primitive(family_name: str, primitive_id: str) -> str:
    return f"{GENERATED}/primitives/{slug(family_name)}/{slug(primitive_id)}/index.md"


def realization(family_name: str, primitive_id: str, name: str) -> str:
    return f"{GENERATED}/primitives/{slug(family_name)}/{slug(primitive_id)}/{slug(name)}.md"


def operator(operator_id: str) -> str:
    return f"{GENERATED}/operators/{slug(operator_id)}.md"


def operator_realization(operator_id: str, name: str) -> str:
    return f"{GENERATED}/operators/{slug(operator_id)}/{slug(name)}.md"


def device(device_name: str) -> str:
    return f"{GENERATED}/devices/{slug(device_name)}.md"


def device_files(device_name: str) -> str:
    """Folder holding copies of a device's evidence files."""
    return f"{GENERATED}/devices/{slug(device_name)}"


def experiment(experiment_id: str) -> str:
    return f"{GENERATED}/experiments/{slug(experiment_id)}.md"


def source_copy(repo_path: str) -> str:
    """Where the site keeps its one copy of a repository file (a kernel, a header): under
    ``generated/`` at its repository path, so pages link the raw file instead of each embedding it."""
    return f"{GENERATED}/{repo_path}"


def basis_room(rel_name: str) -> str:
    """The basis page holding the source of ``kernels/include/<rel_name>``: one page per room
    (``epl/block/x.cuh`` → ``generated/basis/epl-block.md``), the aggregators on the basis index."""
    folder = posixpath.dirname(rel_name)
    if "/" not in folder:
        return BASIS
    return f"{GENERATED}/basis/{slug(folder)}.md"


def rel(from_page: str, to_path: str) -> str:
    """Relative path from the page ``from_page`` to ``to_path`` (both relative to site_src)."""
    start = posixpath.dirname(from_page) or "."
    return posixpath.relpath(to_path, start)


def href(from_page: str, to_page: str) -> str:
    """Relative URL of a page in the built site, for raw HTML (``x.md`` → ``x.html``)."""
    target = rel(from_page, to_page)
    return target[: -len(".md")] + ".html" if target.endswith(".md") else target
