#!/bin/sh
# Regenerates testdata/hprof/leak-before.hprof.gz and leak-after.hprof.gz
# (and the jcmd class histograms taken with each) from LeakSample.java, for
# heapdiff's tests.  Needs a JDK 17 (javac, java, jcmd).
#
#   testdata/java/make-leak-dumps.sh [OUTDIR]      (default: testdata/hprof)
#
# One small serial-GC JVM without CDS: a live dump and a class histogram once
# the steady heap is built, then the program leaks (LeakSample.java says
# what), then a histogram and a live dump again.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-"$here/../hprof"}
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

javac -encoding UTF-8 --release 17 -d "$work/classes" "$here/LeakSample.java"
java -Xmx64m -Xms64m -Xshare:off -XX:+UseSerialGC -XX:-UsePerfData -XX:+StartAttachListener \
	-cp "$work/classes" leak.LeakSample "$work/ready" "$work/go" "$work/done" >"$work/stdout" 2>&1 &
jpid=$!
wait_for() {
	i=0
	while [ ! -s "$1" ]; do
		kill -0 "$jpid" 2>/dev/null || { cat "$work/stdout" >&2; echo "make-leak-dumps: the JVM exited" >&2; exit 1; }
		i=$((i + 1))
		[ "$i" -le 600 ] || { echo "make-leak-dumps: the JVM never got to $1" >&2; exit 1; }
		sleep 0.1
	done
}
snapshot() { # snapshot NAME
	jcmd "$jpid" GC.run >/dev/null
	sleep 1
	jcmd "$jpid" GC.class_histogram | sed 1d >"$work/$1.histo.txt"
	jcmd "$jpid" GC.heap_dump -gz=1 "$work/$1.hprof.gz" >"$work/$1.log"
	grep -q "Heap dump file created" "$work/$1.log" || { cat "$work/$1.log" >&2; exit 1; }
}
wait_for "$work/ready"
sleep 1
snapshot leak-before
touch "$work/go"
wait_for "$work/done"
snapshot leak-after
kill "$jpid"
wait "$jpid" 2>/dev/null || :
jpid=
for n in leak-before leak-after; do
	chmod 644 "$work/$n.hprof.gz"
	mv "$work/$n.hprof.gz" "$out/$n.hprof.gz"
	mv "$work/$n.histo.txt" "$out/$n.histo.txt"
done
ls -l "$out"/leak-*
