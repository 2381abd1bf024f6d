#!/usr/bin/env bash
# Exploratory (not evidence): Inductor's SASS for the three fp32 norm cases (device tool, carry
# [".whl"]; under a minute). Ours comes from the local build cache (epldb compile).
set -u
cd "$(dirname "$0")/../.."
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH="$PWD:/tmp/site" PYTHONUNBUFFERED=1
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export TRITON_CACHE_DIR=/tmp/triton-cache; rm -rf $TRITON_CACHE_DIR
python3 explorations/20261130-ncu-fp32-norms/probe.py torch >/dev/null 2>&1
n=0
for cubin in $(find $TRITON_CACHE_DIR -name "*.cubin"); do
  name=$(basename "$cubin" .cubin); n=$((n+1))
  cuobjdump -sass "$cubin" > "$OUT/triton-$n-$name.sass" 2>&1
  grep -h "num_warps\|\"shared\"" "$(dirname "$cubin")"/*.json 2>/dev/null | head -c 400 > "$OUT/triton-$n-$name.meta"
done
ls -la "$OUT"; wc -l "$OUT"/*.sass
