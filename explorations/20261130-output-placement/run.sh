#!/usr/bin/env bash
# Exploratory (not evidence): output placement against the fp32 rmsnorm gap to torch.compile
# (probe.py; device tool, carry [".whl"]; one call, ~2 min).
set -u
source "$(dirname "$0")/../env.sh"
sed -i 's/^status: verified/status: draft/' catalog/realizations/*/*.yaml  # the device copy only
python3 explorations/20261130-output-placement/probe.py
