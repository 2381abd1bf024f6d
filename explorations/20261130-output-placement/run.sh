#!/usr/bin/env bash
# Exploratory (not evidence): output placement against the fp32 rmsnorm gap to torch.compile
# (probe.py; device tool, carry [".whl"]; one call, ~2 min).
set -u
cd "$(dirname "$0")/../.."
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH="$PWD:/tmp/site" PYTHONUNBUFFERED=1
sed -i 's/^status: verified/status: draft/' catalog/realizations/*/*.yaml  # the device copy only
python3 explorations/20261130-output-placement/probe.py
