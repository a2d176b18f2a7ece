#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Check formatting of every C file against .clang-format (prints a diff, fails on any).
set -e
cd "${1:-.}"
fail=0
for f in $(git ls-files '*.c' '*.h' 2>/dev/null || find src apps tests -name '*.[ch]'); do
	if ! clang-format --style=file "$f" | diff -u "$f" - >/dev/null; then
		echo "lint: $f is not clang-formatted (clang-format -i $f)"
		fail=1
	fi
done
exit $fail
