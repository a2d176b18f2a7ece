#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# run_fuzz.sh BIN SEED_DIR WORK_DIR SECONDS: run a libFuzzer target (build-fuzz/tests/fuzz/
# fuzz_<name>) for a bounded time, one process. New inputs go to WORK_DIR/corpus (the seeds
# in SEED_DIR stay as they are), crashes to WORK_DIR/crash-*. The dictionary
# tests/fuzz/<name>.dict is used when there is one. Exits non-zero when the target
# crashed, leaked or hung.
set -eu
bin=$1 seeds=$2 work=$3 secs=$4
name=$(basename "$bin")
dict="$(dirname "$0")/${name#fuzz_}.dict"
mkdir -p "$work/corpus"
# libFuzzer exits 77 on a finding by default, which meson reads as a skip
set -- -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 -max_len=9218 \
	-error_exitcode=1 -timeout_exitcode=1 -artifact_prefix="$work/" -print_final_stats=1
[ -f "$dict" ] && set -- "$@" -dict="$dict"
exec "$bin" "$@" "$work/corpus" "$seeds"
