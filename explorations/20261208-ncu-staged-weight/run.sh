#!/usr/bin/env bash
# Exploratory (not evidence): ncu counters of the staged softmax, rmsnorm and layernorm at 128 x
# 262144 (probe.py; device tool, carry [".whl"]; one call, about 2 min). Writes ncu.csv under $OUT
# and prints one block of metrics per launch.
set -u
source "$(dirname "$0")/../env.sh"
ncu_probe explorations/20261208-ncu-staged-weight
