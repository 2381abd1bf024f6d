#!/usr/bin/env bash
# Exploratory (not evidence): probe3.py on the device (device tool, carry [".whl"], under a minute).
set -u
source "$(dirname "$0")/../env.sh"
python3 explorations/20261225-tma-stream-sms/probe3.py
