#!/bin/sh
# Long libFuzzer run of one harness, as the README's "Fuzzing" section describes.
#
#   scripts/fuzz-long.sh HARNESS [SECONDS] [WORKDIR]
#
# HARNESS is hprof, alloc, ddm, roundtrip, v8, ndjson or json; SECONDS defaults to 1800. The harnesses must
# be built in build-fuzz (clang, -Dfuzz=true, ASan + UBSan). The corpus is seeded in
# WORKDIR/corpus-HARNESS (default /tmp/heapfmt-fuzz) from testdata/fuzz/, the small dumps the
# generator writes into build-fuzz/testdata/ and the first 16 KiB of each file in
# ../shared/corpus when it is there; crashes go to WORKDIR/crashes-HARNESS/ and libFuzzer's
# last lines (executions, coverage) to WORKDIR/HARNESS.log.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
h=${1:?usage: fuzz-long.sh HARNESS [SECONDS] [WORKDIR]}
secs=${2:-1800}
work=${3:-/tmp/heapfmt-fuzz}
bin="$here/build-fuzz/fuzz/fuzz_$h"
[ -x "$bin" ] || { echo "fuzz-long.sh: $bin not built (see README, Fuzzing)" >&2; exit 2; }
corpus="$work/corpus-$h"
crashes="$work/crashes-$h"
mkdir -p "$corpus" "$crashes"

seed() { # seed FILE...: copy the first 16 KiB of each existing file into the corpus
    for f in "$@"; do
        [ -f "$f" ] || continue
        head -c 16384 "$f" >"$corpus/seed-$(basename "$f")"
    done
}
shared="$here/../shared/corpus"
case $h in
hprof | roundtrip)
    seed "$here"/testdata/fuzz/hprof/* "$here"/build-fuzz/testdata/*.hprof "$shared"/hprof/*
    [ "$h" = roundtrip ] && seed "$here"/testdata/fuzz/ddm/* "$here"/testdata/fuzz/alloc/* "$here"/testdata/fuzz/roundtrip/*
    ;;
alloc) seed "$here"/testdata/fuzz/alloc/* "$shared"/alloc/* ;;
ddm) seed "$here"/testdata/fuzz/ddm/* ;;
v8) seed "$here"/testdata/fuzz/v8/* "$here"/testdata/v8/* ;;
ndjson) seed "$here"/testdata/fuzz/ndjson/* "$here"/testdata/ndjson/* ;;
json) seed "$here"/testdata/fuzz/json/* ;;
*) echo "fuzz-long.sh: unknown harness $h" >&2; exit 2 ;;
esac

status=0
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 nice -n 19 "$bin" \
    -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -max_len=16384 \
    -print_final_stats=1 -artifact_prefix="$crashes/" "$corpus" >"$work/$h.log" 2>&1 || status=$?
tail -n 25 "$work/$h.log"
exit $status
