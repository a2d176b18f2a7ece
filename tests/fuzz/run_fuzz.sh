#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# run_fuzz.sh BIN SEED_DIR WORK_DIR SECONDS: run a libFuzzer target (build-fuzz/tests/fuzz/
# fuzz_<name>) for a bounded time, one process. New inputs go to WORK_DIR/corpus (the seeds
# in SEED_DIR stay as they are), a finding to WORK_DIR/crash-*, leak-*, timeout-* or oom-*,
# the whole output to WORK_DIR/fuzz.log. The dictionary tests/fuzz/<name>.dict is used when
# there is one. Prints the final counts; exits 1 when the target crashed, leaked, hung or a
# sanitizer reported, and then prints the report and names the input.
set -u
bin=$1 seeds=$2 work=$3 secs=$4
name=$(basename "$bin")
dict="$(dirname "$0")/${name#fuzz_}.dict"
log="$work/fuzz.log"
mkdir -p "$work/corpus" || exit 1
# libFuzzer exits 77 on a finding by default, which meson reads as a skip
set -- -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 -max_len=9218 \
	-error_exitcode=1 -timeout_exitcode=1 -artifact_prefix="$work/" -print_final_stats=1
[ -f "$dict" ] && set -- "$@" -dict="$dict"
"$bin" "$@" "$work/corpus" "$seeds" >"$log" 2>&1
rc=$?
if [ "$rc" = 0 ]; then
	# the last status line (DONE) and the final counts
	grep -a -E '^#[0-9]+[[:space:]]+(INITED|DONE|pulse|NEW|REDUCE)' "$log" | tail -n 1
	grep -a '^stat::' "$log"
	exit 0
fi
# the report: from libFuzzer's or a sanitizer's first error line (or the target's own message
# just before it), then the counts and the input that did it
awk '/^==[0-9]+==|^[^ ]*: runtime error|^fuzz_[a-z_0-9]+: |ERROR: libFuzzer/ { p = 1 } p' "$log" |
	grep -a -v -E '^stat::|Test unit written to' | head -n 80
grep -a -E '^stat::|Test unit written to' "$log"
echo "$name: exit $rc; whole output in $log"
exit 1
