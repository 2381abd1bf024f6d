# Sourced by explorations/*/run.sh on the device (the device tool's `run`, carry [".whl"]): moves to
# the repository root, installs the wheels epldb needs there (tools/gpu-run.sh says why), puts this
# tree's epldb on PYTHONPATH and sets OUT, the folder whose files the device tool brings back.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH="$PWD:/tmp/site" PYTHONUNBUFFERED=1
OUT="${OUT:-/tmp/out}"
mkdir -p "$OUT"

# tree_copy NAME: /tmp/NAME holds a copy of catalog/ and kernels/ for a patch.py to change. Its
# records are drafts: the copy's evidence is the exploration's, not the catalog's.
tree_copy() {
  rm -rf "/tmp/$1" && mkdir -p "/tmp/$1" && cp -r catalog kernels "/tmp/$1/"
  sed -i 's/^status: verified/status: draft/' "/tmp/$1"/catalog/realizations/*/*.yaml
}

# ncu_probe DIR [EXTRA]: ncu counters (clock not fixed) of the launches DIR/probe.py makes inside
# the NVTX range 'prof' (explorations/ncu.py): time, DRAM, L2 and L1 bytes and rates, issue,
# occupancy limits and the main stall reasons, plus EXTRA (comma-separated metric names). Writes
# $OUT/ncu.csv and $OUT/ncu.err and prints one block of metrics per launch.
ncu_probe() {
  local m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
  m=$m,lts__t_bytes.sum,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed
  m=$m,l1tex__t_bytes.sum,l1tex__t_sector_hit_rate.pct,sm__inst_executed.sum
  m=$m,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
  m=$m,launch__registers_per_thread,launch__occupancy_limit_shared_mem,sm__ctas_launched.sum
  local s=smsp__warp_issue_stalled
  m=$m,${s}_long_scoreboard_per_warp_active.pct,${s}_barrier_per_warp_active.pct
  m=$m,${s}_short_scoreboard_per_warp_active.pct,${s}_lg_throttle_per_warp_active.pct
  m=$m,${s}_wait_per_warp_active.pct,${s}_drain_per_warp_active.pct
  m=$m,${s}_sleeping_per_warp_active.pct,${s}_membar_per_warp_active.pct
  [ -n "${2:-}" ] && m=$m,$2
  timeout 400 ncu --clock-control none --nvtx --nvtx-include prof/ --metrics "$m" --csv \
    python3 "$1/probe.py" > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
  tail -3 "$OUT/ncu.err"
  python3 explorations/ncu.py "$OUT/ncu.csv"
}
