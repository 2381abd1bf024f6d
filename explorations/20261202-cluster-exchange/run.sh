#!/usr/bin/env bash
# Exploratory (not evidence): RowCluster's all-reduce through remote stores that complete on the
# receiver's mbarrier (row_cluster.part, applied by patch.py) against the committed cluster.sync()
# exchange (device tool, carry [".whl"]). Two trees: 'lazy' waits the start barrier before the
# first store, 'early' at construction.
#   bash run.sh verify   # both trees, five realizations, under a time limit (a lost arrival hangs); ~3 min
#   bash run.sh bench    # committed, lazy, early one after the other, no peers; ~5 min
set -u
cd "$(dirname "$0")/../.."
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH="$PWD:/tmp/site" PYTHONUNBUFFERED=1
OUT="${OUT:-/tmp/out}"
HERE=explorations/20261202-cluster-exchange
for when in lazy early; do
  T=/tmp/cx-$when; rm -rf $T; mkdir -p $T; cp -r catalog kernels $T/
  python3 $HERE/patch.py $T $when
  sed -i 's/^status: verified/status: draft/' $T/catalog/realizations/*/*.yaml  # the copy's evidence is elsewhere
done
case "${1:-verify}" in
  verify)
    # staged (one exchange a block), two-pass-cluster (two a block), pipelined-cluster (one a row,
    # many rows a cluster: both slot sets and the phase parity), cluster-reread, online-cluster.
    IDS="rmsnorm/staged layernorm/two-pass-cluster log-softmax/pipelined-cluster rmsnorm/cluster-reread softmax/online-cluster"
    for when in lazy early; do
      echo "=== verify $when"
      timeout 150 python3 -m epldb --root /tmp/cx-$when verify $IDS --out $OUT/verify-$when 2>&1 | tail -12
    done ;;
  bench)
    IDS="rmsnorm/staged softmax/online-staged rmsnorm/cluster-reread softmax/online-cluster log-softmax/pipelined-cluster"
    for tree in committed lazy early; do
      root=/tmp/cx-$tree; [ $tree = committed ] && root=$PWD
      echo "=== bench $tree"
      timeout 110 python3 -m epldb --root $root bench $IDS --no-peers --out $OUT/bench-$tree 2>&1 | grep -v "^bench \[" | grep -E "cols=(65536|262144)|ceiling" | sort -k2,2 -k3
    done ;;
esac
