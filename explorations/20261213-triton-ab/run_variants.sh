#!/usr/bin/env bash
# Exploratory (not evidence): the eviction-policy variants of variants.py. Device tool, carry
# [".whl"]; one call, about 3 minutes.
set -u
source "$(dirname "$0")/../env.sh"
timeout 500 python3 explorations/20261213-triton-ab/variants.py 2>&1 | grep -v Warning | tail -60
