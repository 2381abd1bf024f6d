"""``epldb site``: generate the catalog's pages, then build them with MkDocs (or serve them)."""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

from epldb.cli.common import EXIT_INVALID, EXIT_OK, EXIT_USAGE, load_catalog


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("site", help="generate the catalog site's pages and build it with MkDocs (or serve it)",
                       description="Write site_src/generated/ from the catalog, static builds and evidence, then "
                                   "run `mkdocs build --strict` (or `mkdocs serve` with --serve). The built site "
                                   "works from file:// with no network.")
    p.add_argument("--serve", action="store_true", help="serve the site locally with live reload instead of building it")
    p.add_argument("--out", default=None, help="where the built site goes (default: site/ in the repository)")
    p.add_argument("--dev-addr", default=None, help="address for --serve (default: MkDocs' 127.0.0.1:8000)")
    p.add_argument("--no-compile", action="store_true",
                   help="skip static builds (NVRTC); resource and claim columns then say 'not compiled'")
    p.add_argument("--generate-only", action="store_true", help="write the Markdown pages but do not run MkDocs")
    p.set_defaults(func=site)


def site(args: argparse.Namespace) -> int:
    from epldb.site import generate, mkdocs_command

    t0 = time.perf_counter()
    cat = load_catalog(args)
    errors = [p for p in cat.problems if p.severity == "error"]
    if errors:
        print(f"epldb site: the catalog has {len(errors)} error(s) (run `epldb validate`); building anyway, "
              "unresolved references are shown as missing", file=sys.stderr)
    if not args.generate_only:
        missing = [m for m in ("mkdocs", "material") if importlib.util.find_spec(m) is None]
        if missing:
            print(f"epldb site: {', '.join(missing)} not installed; install the site extras: "
                  "python3 -m pip install -e '.[site]'", file=sys.stderr)
            return EXIT_USAGE
    def progress(message: str) -> None:
        print(f"epldb site: {message} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)

    progress("loading the evidence and the compile facts")
    gen = generate(catalog=cat, compile=not args.no_compile, progress=progress)
    for note in gen.data.notes:
        print(f"epldb site: note: {note}", file=sys.stderr)
    n_charts = len(gen.output.charts)
    print(f"generated {len(gen.output.pages)} pages and {n_charts} chart(s) in "
          f"{gen.docs_dir.relative_to(cat.root) if gen.docs_dir.is_relative_to(cat.root) else gen.docs_dir}/generated "
          f"({gen.seconds:.1f} s)")
    if args.generate_only:
        return EXIT_OK
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    progress("mkdocs build" if not args.serve else "mkdocs serve")
    if args.serve:
        cmd = mkdocs_command(cat.root, serve=True, dev_addr=args.dev_addr)
        try:
            return subprocess.call(cmd, cwd=cat.root, env=env)
        except KeyboardInterrupt:
            return EXIT_OK
    out = Path(args.out).resolve() if args.out else cat.root / "site"
    cmd = mkdocs_command(cat.root, out=out)
    proc = subprocess.run(cmd, cwd=cat.root, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        print(f"epldb site: mkdocs build --strict failed (exit {proc.returncode})", file=sys.stderr)
        return EXIT_INVALID
    print(f"built the site in {time.perf_counter() - t0:.1f} s: open {out / 'index.html'}")
    return EXIT_OK
