#!/bin/sh
# Regenerates testdata/hprof/sample.hprof.gz and sample.histo.txt from
# HeapSample.java.  Needs a JDK 17 (javac, java, jcmd).
#
#   testdata/java/make-dump.sh [OUTDIR [VARIANT]]   (default: testdata/hprof)
#
# VARIANT noccp takes the dump from a VM without compressed oops and without
# compressed class pointers (16-byte object headers, 8-byte references, as
# every JDK 14 or older without compressed oops), into sample-noccp.hprof.gz
# and sample-noccp.histo.txt: the size model heapfmt finds from the objects'
# addresses is checked against that VM's histogram.  VARIANT alignN (align16
# ... align256) takes it from a VM with -XX:ObjectAlignmentInBytes=N, into
# sample-alignN.hprof.gz and sample-alignN.histo.txt (align32 is kept).
# VARIANT zgc takes it from a VM with ZGC instead of the serial collector
# (8-byte references, objects written in the order of the object graph, not
# of their addresses), into sample-zgc.hprof.gz and sample-zgc.histo.txt.
#
# It compiles HeapSample, runs it in a small serial-GC JVM without CDS
# (-Xshare:off: no archived heap objects, a dump a third smaller), waits until
# the heap is built, runs two throw-away full GCs (the first collection after
# System.gc() still frees a few int[] of the JDK), then back to back in that
# same quiescent JVM takes
#   sample.histo.txt   jcmd GC.class_histogram        (live objects, full GC)
#   sample.hprof.gz    jcmd GC.heap_dump -gz=1        (live objects, full GC)
# and takes the histogram once more to check that nothing moved in between.
# The dump differs from run to run (addresses, timestamp, JDK internals); the
# histogram taken with it is its reference.  sample.expected.json holds what
# the program itself put in the heap and does not change.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-"$here/../hprof"}
variant=${2:-}
gc=-XX:+UseSerialGC
case $variant in
'') name=sample; flags= ;;
noccp) name=sample-noccp; flags="-XX:-UseCompressedOops -XX:-UseCompressedClassPointers" ;;
align*) name=sample-$variant; flags="-XX:ObjectAlignmentInBytes=${variant#align}" ;;
zgc) name=sample-zgc; flags= gc=-XX:+UseZGC ;;
*) echo "make-dump: unknown variant '$variant' (noccp, align16 ... align256, zgc)" >&2; exit 2 ;;
esac
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
jpid=
cleanup() {
	if [ -n "$jpid" ]; then kill "$jpid" 2>/dev/null || :; wait "$jpid" 2>/dev/null || :; fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

javac -encoding UTF-8 --release 17 -d "$work/classes" "$here/HeapSample.java"

ready="$work/ready"
# shellcheck disable=SC2086 # $flags is a list
java -Xmx64m -Xms64m -Xshare:off $gc $flags -XX:-UsePerfData -XX:+StartAttachListener \
	-cp "$work/classes" sample.HeapSample "$ready" >"$work/stdout" 2>&1 &
jpid=$!
i=0
while [ ! -s "$ready" ]; do
	kill -0 "$jpid" 2>/dev/null || { cat "$work/stdout" >&2; echo "make-dump: the JVM exited" >&2; exit 1; }
	i=$((i + 1))
	[ "$i" -le 600 ] || { echo "make-dump: the JVM never became ready" >&2; exit 1; }
	sleep 0.1
done
# Let start-up threads (Reference Handler, Cleaner, JIT) settle.
sleep 1
jcmd "$jpid" GC.run >/dev/null
sleep 1
jcmd "$jpid" GC.class_histogram >/dev/null

rm -f "$out/$name.hprof.gz" "$out/$name.histo.txt"
jcmd "$jpid" GC.class_histogram >"$work/histo.txt"
jcmd "$jpid" GC.heap_dump -gz=1 "$work/sample.hprof.gz" >"$work/dump.log"
jcmd "$jpid" GC.class_histogram >"$work/histo-after.txt"
kill "$jpid"
wait "$jpid" 2>/dev/null || :
jpid=

grep -q "Heap dump file created" "$work/dump.log" || { cat "$work/dump.log" >&2; exit 1; }
# jcmd starts with a line naming the pid: drop it, keep the table as printed.
sed 1d "$work/histo.txt" >"$out/$name.histo.txt"
counts() { sed 1d "$1" | awk '$1 ~ /^[0-9]+:$/ { print $4, $2 }' | sort; }
if [ "$(counts "$work/histo.txt")" != "$(counts "$work/histo-after.txt")" ]; then
	echo "make-dump: the heap changed while it was dumped; run again" >&2
	exit 1
fi
chmod 644 "$work/sample.hprof.gz"
mv "$work/sample.hprof.gz" "$out/$name.hprof.gz"
ls -l "$out/$name.hprof.gz" "$out/$name.histo.txt"
