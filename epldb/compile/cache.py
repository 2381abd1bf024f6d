"""The build cache: a cubin and a JSON of its parsed facts per content key, written atomically.

Layout: ``<cache_dir>/<key[:2]>/<key>.cubin`` and ``<key>.json``. The JSON is written last and
names the cubin's sha256, so a reader that finds the JSON and a matching cubin has a whole entry;
anything else is a miss. Concurrent writers of one key write identical bytes, so either wins.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

CACHE_FORMAT = 1  # bump when the JSON's shape or the parsing behind it changes


def default_cache_dir(root: Path) -> Path:
    return Path(root) / ".cache" / "epldb" / "builds"


def build_key(parts: dict[str, Any]) -> str:
    """sha256 of a canonical JSON of everything a build's output depends on."""
    blob = json.dumps({"format": CACHE_FORMAT, **parts}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def _paths(cache_dir: Path, key: str) -> tuple[Path, Path]:
    d = Path(cache_dir) / key[:2]
    return d / f"{key}.cubin", d / f"{key}.json"


def write_atomic(path: Path, data: bytes) -> None:
    """Write via a temp file in the same folder and os.replace, so readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load(cache_dir: Path, key: str) -> tuple[bytes, dict[str, Any]] | None:
    """The cached cubin and facts for a key, or None (missing, partial or corrupt: a miss)."""
    cubin_path, json_path = _paths(cache_dir, key)
    try:
        facts = json.loads(json_path.read_text(encoding="utf-8"))
        cubin = cubin_path.read_bytes()
    except (OSError, ValueError):
        return None
    if facts.get("format") != CACHE_FORMAT or facts.get("cubin_sha256") != hashlib.sha256(cubin).hexdigest():
        return None
    return cubin, facts


def store(cache_dir: Path, key: str, cubin: bytes, facts: dict[str, Any]) -> str | None:
    """Store an entry; returns why it could not be stored (a read-only checkout is not an error)."""
    cubin_path, json_path = _paths(cache_dir, key)
    facts = {**facts, "format": CACHE_FORMAT, "key": key, "cubin_sha256": hashlib.sha256(cubin).hexdigest()}
    try:
        write_atomic(cubin_path, cubin)
        write_atomic(json_path, json.dumps(facts, indent=1, sort_keys=True).encode())
    except OSError as exc:
        return f"build cache not written ({exc})"
    return None
