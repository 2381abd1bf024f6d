#!/usr/bin/env bash
# Run epldb on a lent GPU machine (the device tool's `run`, with carry: [".whl"]) and send the new
# evidence back through $OUT. The GPU image lacks jsonschema and its dependencies: they travel as
# wheels in .whl/ (see /work/.library/device/README.md for the pip download line).
#
#   EPL_GIT_COMMIT=<sha> EPL_GIT_DIRTY=<0|1> bash tools/gpu-run.sh verify block-reduce -- bench block-reduce --quick -- pytest -m gpu
#
# Pass the local tree's commit (`git rev-parse HEAD`) and whether kernels/, epldb/ or catalog/ differ
# from it, written into the command: the copy there sits on git metadata of the lending tool's
# (HEAD from when the session began), so git on that machine names the wrong commit.
#
# Each '--'-separated group is one step: 'verify ARGS', 'bench ARGS' or 'pytest ARGS' (pytest gets -q
# here already: a second -q hides its count line). Steps run in order; a failing step does not stop
# the next. A step may start with '@SECONDS' (e.g. '@120 verify gemm/new'): it is killed past that, so
# a kernel that hangs (an mbarrier never completing) costs its step, not the whole call.
#
# What comes back: the device tool returns at most 8 files from $OUT, so verify, bench and sanitize
# write their runs into a scratch folder, packed into ONE file, $OUT/evidence.tgz, after every step
# and every 20 s while a step runs (written beside and renamed, so a call cut short still returns the
# last whole pack); the log goes to $OUT/log.txt as it runs. Bring it home with
#   tar -xzf <files_at>/evidence.tgz -C /tmp/x && epldb evidence seal /tmp/x/evidence \
#     && epldb evidence merge /tmp/x/evidence
# (a <run>.csv journal is a run cut short: seal makes it a run; `--resume RUN` continues it).
set -uo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
  || { echo "wheel install failed"; exit 1; }
export PYTHONPATH="$PWD:/tmp/site" PYTHONUNBUFFERED=1
# Package trees too large for one call, brought in parts over several calls (tools/carry-parts.sh):
# each whose parts are all here goes on the path; one still missing parts leaves its peers skipped.
for sums in .carry/*.sha256; do
  [ -e "$sums" ] || continue
  name=$(basename "$sums" .sha256)
  if bash tools/carry-parts.sh unpack "$name" "/tmp/carry-$name"; then
    PYTHONPATH="$PYTHONPATH:$(bash tools/carry-parts.sh path "/tmp/carry-$name")"
    echo "carry-parts: $name on the path"
  else
    echo "carry-parts: $name is not whole here; its peers are skipped"
  fi
done
# Strict provenance (epldb.evidence.provenance): a run names a full commit of the history and says
# whether the tree differed from it; the environment adds the hash of the tree measured.
if ! [[ "${EPL_GIT_COMMIT:-}" =~ ^[0-9a-f]{40}$ ]] || ! [[ "${EPL_GIT_DIRTY:-}" =~ ^[01]$ ]]; then
  echo "give EPL_GIT_COMMIT=\$(git rev-parse HEAD) (a full sha) and EPL_GIT_DIRTY=0 or 1 (whether kernels/, epldb/ or catalog/ differ from it)"
  exit 2
fi
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
SCRATCH="$(mktemp -d)"; EV="$SCRATCH/evidence"; mkdir -p "$EV"
# EPL_EVIDENCE_SEED: a folder laid out as evidence/ (<device>/<run>.csv ...) whose journals a step
# continues with --resume RUN (the journals an earlier call brought back).
[ -n "${EPL_EVIDENCE_SEED:-}" ] && cp -r "$EPL_EVIDENCE_SEED"/. "$EV"/
pack() {  # the evidence so far as one file, replaced whole
  local part="$OUT/.evidence.tgz.$BASHPID"  # one part file a writer: the packer loop and the steps never share one
  tar -czf "$part" -C "$SCRATCH" evidence 2>/dev/null && mv -f "$part" "$OUT/evidence.tgz"
}
( while sleep 20; do pack; done ) &
PACKER=$!
trap 'kill $PACKER 2>/dev/null; pack' EXIT
step=(); status=0
run_step() {
  [ ${#step[@]} -eq 0 ] && return
  local cap=()
  if [[ "${step[0]}" =~ ^@([0-9]+)$ ]]; then cap=(timeout -k 10 "${BASH_REMATCH[1]}"); step=("${step[@]:1}"); fi
  echo "=== ${step[*]}"
  case "${step[0]}" in
    pytest) "${cap[@]}" python3 -m pytest -q -p no:cacheprovider "${step[@]:1}" 2>&1 | tee -a "$OUT/log.txt" | tail -40 ;;
    verify|bench|sanitize) "${cap[@]}" python3 -m epldb "${step[@]}" --out "$EV" 2>&1 | tee -a "$OUT/log.txt" | tail -60 ;;
    *) "${cap[@]}" python3 -m epldb "${step[@]}" 2>&1 | tee -a "$OUT/log.txt" | tail -60 ;;
  esac
  local rc=${PIPESTATUS[0]}
  [ "$rc" -eq 124 ] && echo "=== step cut at its ${cap[3]} s: ${step[*]}" | tee -a "$OUT/log.txt"
  [ "$rc" -ne 0 ] && status=1
  step=()
  pack
}
for arg in "$@"; do
  if [ "$arg" = "--" ]; then run_step; else step+=("$arg"); fi
done
run_step
echo "evidence files written: $(find "$EV" -type f | wc -l), packed in \$OUT/evidence.tgz (sealed runs <run>.parquet;" \
  "a <run>.csv journal is a run cut short: 'epldb evidence seal' it)"
exit $status
