#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tidy.sh SRC BUILD: clang-tidy (checks in SRC/.clang-tidy) on every C file of src/ and apps/,
# with BUILD/compile_commands.json, four files to a clang-tidy, one clang-tidy per CPU.
# Prints each finding; fails on any, and on any clang-tidy that fails (a file it cannot
# compile, no compile_commands.json, a crash).
# A finding that is wrong gets a NOLINT(check) comment that says why, on its line.
set -eu
src=$(cd "${1:-.}" && pwd)
build=$(cd "${2:-$src/build}" && pwd)
cd "$src"
files=$(git ls-files 'src/*.c' 'apps/*.c' 2>/dev/null || find src apps -name '*.c')
out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0
# shellcheck disable=SC2086
printf '%s\n' $files | xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet >"$out" 2>&1 ||
	rc=$?
if grep -qE '(warning|error):' "$out"; then
	grep -E -A3 '(warning|error):' "$out"
	echo "tidy: $(grep -cE '(warning|error):' "$out") findings (checks: $src/.clang-tidy)"
	exit 1
fi
if [ "$rc" != 0 ]; then
	# less clang's count of the warnings in headers it read ("N warnings generated.")
	grep -vE '^[0-9]+ warnings? generated\.$' "$out" || true
	echo "tidy: clang-tidy failed (xargs exit $rc) with no finding to show: see above"
	exit 1
fi
echo "tidy: $(printf '%s\n' $files | wc -l) files, no findings"
