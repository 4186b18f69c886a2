#!/bin/sh
# Static analysis: the clang static analyzer (scan-build, Debian package
# clang-tools) over the library, the programs, the tests and the fuzz
# harnesses, in a build of its own.  Fails on any finding; the reports (HTML,
# with the path the analyzer took) stay in DIR/reports.  Exits 77 (skipped)
# when scan-build or clang is not installed.
# Usage: scripts/analyze.sh [DIR]   (default: a temporary directory, removed
#                                    when nothing was found)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v scan-build >/dev/null 2>&1 || ! command -v clang >/dev/null 2>&1; then
	echo "SKIP: scan-build or clang is not installed (Debian: apt-get install clang-tools)"
	exit 77
fi
if [ $# -ge 1 ]; then
	dir=$1
	keep=1
else
	dir=$(mktemp -d)
	keep=0
fi
rm -rf "$dir/build" "$dir/reports"
mkdir -p "$dir" || exit 2
# scan-build puts its compiler wrapper in CC for meson to record, then runs
# the analyzer beside each compilation of the build.
if ! scan-build meson setup "$dir/build" "$top" --buildtype=debug >"$dir/setup.log" 2>&1; then
	cat "$dir/setup.log"
	exit 1
fi
scan-build -o "$dir/reports" --status-bugs ninja -C "$dir/build" >"$dir/build.log" 2>&1
rc=$?
grep -E 'warning: |scan-build: ' "$dir/build.log"
if [ "$rc" = 0 ]; then
	[ "$keep" = 1 ] || rm -rf "$dir"
	echo "static analysis: no findings"
	exit 0
fi
echo "static analysis: findings above (reports in $dir/reports; 'scan-view' shows them)"
exit 1
