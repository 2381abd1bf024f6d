#!/usr/bin/env bash
# Exploratory (not evidence): the staged long-row kernels at 256 Ki columns over a range of row
# counts, beside a copy of the same bytes (probe.py). Device tool, carry [".whl"]; one call, about
# 3 minutes (six builds, cold).
set -u
source "$(dirname "$0")/../env.sh"
timeout 400 python3 explorations/20261207-long-row-tail/probe.py 2>&1 | grep -v Warning
