#!/usr/bin/env bash
# Experiment 0044 on a lent GPU (carry the restored explorations/ folder): the probe plain, then under
# synccheck at clusters 8 and 16 apart, and under memcheck at 16.
cd "$(dirname "$0")/../.."
P=explorations/0044-synccheck-cluster-16/cluster_synccheck.cu
nvcc -std=c++17 -arch=sm_90a -I kernels/include -o /tmp/probe $P || exit 1
/tmp/probe
for c in 8 16; do echo "--- synccheck, cluster $c"; timeout 60 compute-sanitizer --tool synccheck /tmp/probe 32768 $c 2>&1 | tail -6; done
echo "--- memcheck, cluster 16"; timeout 45 compute-sanitizer --tool memcheck /tmp/probe 32768 16 2>&1 | tail -4
