#!/bin/sh
# Set-up on a fresh Debian 12 machine: installs the build dependencies,
# builds heapfmt (release), converts the sample dump in testdata/ and prints
# its class histogram.  Run it from anywhere; it needs sudo unless root.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
	build-essential meson ninja-build pkg-config python3 \
	libsqlite3-dev libjansson-dev zlib1g-dev sqlite3 jq
[ -f build/build.ninja ] || meson setup build --buildtype=release
ninja -C build
build/cmd/hprof2heapdb --force testdata/hprof/sample.hprof.gz build/sample.db
echo "Class histogram of testdata/hprof/sample.hprof.gz (top 15 by bytes):"
sqlite3 -header -column build/sample.db < schema/queries/class_histogram.sql | head -17
