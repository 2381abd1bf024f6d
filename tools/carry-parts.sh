#!/usr/bin/env bash
# Bring an installed package tree that is larger than one call to a lent GPU carries (64 MiB with the
# working tree, docs/GPU.md) over several calls to ONE warm machine: a path a call carried that git
# ignores stays there for the next call, so each call carries one part and the last one joins them.
#
#   here:   bash tools/carry-parts.sh pack SITE NAME [PART]   # e.g. pack /tmp/qsite quack 40M
#           → .carry/NAME.part-01, -02, ... (an xz'd tar of SITE cut in PARTs) and .carry/NAME.sha256
#   calls:  1st carry [".carry/NAME.part-01"], ..., last carry [".carry/NAME.part-NN", ".carry/NAME.sha256",
#           ...]: name each part once (a path named but absent here is removed there)
#   there:  bash tools/carry-parts.sh unpack NAME DEST        # checks every part, joins, extracts
#           bash tools/carry-parts.sh path DEST               # DEST and the paths its .pth files add
#
# SITE is a `pip install --target` tree made here for the device's Python (docs/GPU.md gives the
# line); xz on the unpacked files, not on the wheels: a wheel is already deflated (QuACK's DSL wheel:
# 92 MB, 63.6 MB as xz'd files). tools/gpu-run.sh unpacks and puts on PYTHONPATH every NAME whose
# parts are all there.
set -euo pipefail
HERE=$PWD  # folders given relative to where the command was typed
abs() { case "$1" in /*) echo "$1" ;; *) echo "$HERE/$1" ;; esac; }
cd "$(dirname "$0")/.."
CARRY=${EPL_CARRY_DIR:-.carry}  # where the parts are (a test puts them elsewhere)

usage() { sed -n '2,17p' "$0" >&2; exit 2; }

pack() {
  local site name=$2 part=${3:-40M}
  site=$(abs "$1")
  [ -d "$site" ] || { echo "carry-parts: no folder $site" >&2; exit 1; }
  [[ "$name" =~ ^[a-z0-9][a-z0-9_-]*$ ]] || { echo "carry-parts: name '$name': use a-z, 0-9, '-', '_'" >&2; exit 1; }
  mkdir -p "$CARRY"
  rm -f "$CARRY/$name".part-* "$CARRY/$name.sha256"
  tar -cf - -C "$site" . | xz -9 -T0 | split -d -a 2 --numeric-suffixes=1 -b "$part" - "$CARRY/$name.part-"
  (cd "$CARRY" && sha256sum "$name".part-* > "$name.sha256.tmp" && mv "$name.sha256.tmp" "$name.sha256")
  echo "carry-parts: $(wc -l < "$CARRY/$name.sha256") part(s) of $name in $CARRY/:"
  ls -l "$CARRY/$name".part-* | awk '{printf "  %s  %.1f MiB\n", $NF, $5 / 1048576}'
}

complete() {  # whether every part NAME.sha256 lists is here, whole
  local name=$1
  [ -f "$CARRY/$name.sha256" ] && (cd "$CARRY" && sha256sum --quiet -c "$name.sha256" >/dev/null 2>&1)
}

unpack() {
  local name=$1 dest
  dest=$(abs "$2")
  if ! complete "$name"; then
    echo "carry-parts: $name is not complete here:" >&2
    if [ -f "$CARRY/$name.sha256" ]; then (cd "$CARRY" && sha256sum -c "$name.sha256" 2>&1 | grep -v ': OK$' >&2); else
      echo "  no $CARRY/$name.sha256 (carry it with the last part)" >&2; fi
    exit 1
  fi
  local stamp="$dest/.carry-parts.sha256"
  if [ -f "$stamp" ] && cmp -s "$stamp" "$CARRY/$name.sha256"; then return 0; fi  # this call's parts, unpacked
  rm -rf "$dest.tmp" && mkdir -p "$dest.tmp"
  while read -r _ part; do cat "$CARRY/$part"; done < "$CARRY/$name.sha256" | xz -d | tar -xf - -C "$dest.tmp"
  cp "$CARRY/$name.sha256" "$dest.tmp/.carry-parts.sha256"
  rm -rf "$dest" && mv "$dest.tmp" "$dest"
}

path() {  # DEST, then what its .pth files add to sys.path (PYTHONPATH entries do not run .pth files)
  local dest
  dest=$(abs "$1")
  python3 - "$dest" <<'EOF'
import site, sys
before = list(sys.path)
site.addsitedir(sys.argv[1])
print(":".join([sys.argv[1]] + [p for p in sys.path if p not in before and p != sys.argv[1]]))
EOF
}

case "${1:-}" in
  pack) [ $# -ge 3 ] || usage; pack "$2" "$3" "${4:-40M}" ;;
  unpack) [ $# -eq 3 ] || usage; unpack "$2" "$3" ;;
  complete) [ $# -eq 2 ] || usage; complete "$2" ;;
  path) [ $# -eq 2 ] || usage; path "$2" ;;
  *) usage ;;
esac
