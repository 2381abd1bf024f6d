#!/usr/bin/env bash
# Exploratory (not evidence): torch.compile, hand-written Triton (with and without eviction policies,
# through Triton's launcher and through CuPy) and our best kernels on the same buffers, timed by
# epldb's bench timer. Device tool, carry [".whl"]; one call, about 3 minutes.
set -u
source "$(dirname "$0")/../env.sh"
timeout 500 python3 explorations/20261213-triton-ab/probe.py 2>&1 | grep -v Warning | tail -40
