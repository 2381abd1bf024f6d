#!/usr/bin/env bash
# Exploratory (not evidence): RowCluster's all-reduce through remote stores that complete on the
# receiver's mbarrier (row_cluster.part, applied by patch.py) against the committed cluster.sync()
# exchange (device tool, carry [".whl"]). Two trees: 'lazy' waits the start barrier before the
# first store, 'early' at construction.
#   bash run.sh verify   # lazy on five realizations, early on all 17 on RowCluster, under a time limit (a lost arrival hangs); ~4 min
#   bash run.sh bench    # committed, lazy, early one after the other, fp32, no peers; ~3 min
#   bash run.sh both     # verify, then bench: one device call
set -u
source "$(dirname "$0")/../env.sh"
HERE=explorations/20261202-cluster-exchange
for when in lazy early; do
  tree_copy cx-$when
  python3 $HERE/patch.py /tmp/cx-$when $when
done
case "${1:-verify}" in
  verify|both)
    # All 17 realizations on RowCluster, among them staged (one exchange a block), two-pass-cluster
    # (two a block), pipelined-cluster (one a row, many rows a cluster: both slot sets and the
    # phase parity), cluster-reread and online-cluster.
    IDS="rmsnorm/staged softmax/online-staged log-softmax/online-staged layernorm/welford-staged
         layernorm/two-pass-cluster rmsnorm/cluster logsumexp/online-cluster cross-entropy/online-cluster
         softmax/online-cluster log-softmax/online-cluster
         log-softmax/pipelined-cluster softmax/pipelined-cluster rmsnorm/pipelined-cluster layernorm/pipelined-cluster
         rmsnorm/cluster-reread log-softmax/online-cluster-reread layernorm/welford-cluster-reread"
    FIVE="rmsnorm/staged layernorm/two-pass-cluster log-softmax/pipelined-cluster rmsnorm/cluster-reread softmax/online-cluster"
    echo "=== verify lazy (five)"
    timeout 90 python3 -m epldb --root /tmp/cx-lazy verify $FIVE --out $OUT/verify-lazy 2>&1 | tail -8
    echo "=== verify early (all 17)"
    timeout 200 python3 -m epldb --root /tmp/cx-early verify $IDS --out $OUT/verify-early 2>&1 | tail -20
    ;;&
  bench|both)
    IDS="rmsnorm/staged softmax/online-staged rmsnorm/cluster-reread softmax/online-cluster log-softmax/pipelined-cluster"
    for tree in committed lazy early; do
      root=/tmp/cx-$tree; [ $tree = committed ] && root=$PWD
      echo "=== bench $tree"
      timeout 80 python3 -m epldb --root $root bench $IDS --no-peers --where dtype=float32 --out $OUT/bench-$tree 2>&1 | grep -v "^bench \[" | grep -E "cols=(65536|262144)|ceiling" | sort -k2,2 -k3
    done ;;
esac
