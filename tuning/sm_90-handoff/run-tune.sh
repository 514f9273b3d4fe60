#!/usr/bin/env bash
# On the GPU machine (carry .devc: the xtask binary and tune.tgz, made with
# `tar czf .devc/tune.tgz -C .device/handoff candidates prune.log` after
# `MODE=prune bash tuning/sm_90-handoff/tune.sh .devc/xtask .device/handoff`):
# the full tune's GPU step with this tune's script.
TUNE=tuning/sm_90-handoff/tune.sh exec bash tuning/sm_90-tune/run-tune.sh "$@"
