#!/bin/sh
# Command-line manners of the HPROF converters and heapdb-analyze: --help with an example,
# --version, exit codes, '-' for stdin/stdout, quiet when piped, no output
# left behind on failure or when stopped by a signal, an existing database kept without
# --force.
# Usage: test_cli.sh TOOLS_DIR SAMPLE.hprof.gz
set -u
tools=$1
sample=$2
if [ ! -f "$sample" ]; then echo "SKIP: $sample missing"; exit 77; fi
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fails=0
check() { # check DESCRIPTION COMMAND...
	d=$1; shift
	if "$@"; then :; else echo "FAIL: $d"; fails=$((fails + 1)); fi
}
expect_rc() { # expect_rc CODE COMMAND...
	want=$1; shift
	"$@" >"$t/out" 2>"$t/err"
	got=$?
	[ "$got" = "$want" ] || { echo "  exit $got, expected $want: $*"; cat "$t/err"; return 1; }
}
for p in hprof2ndjson hprof2heapdb ndjson2heapdb heapdb2ndjson; do
	check "$p --help" expect_rc 0 "$tools/$p" --help
	check "$p --help shows usage and an example" grep -q "Examples:" "$t/out"
	check "$p --version" expect_rc 0 "$tools/$p" --version
	check "$p --version names heapfmt" grep -q "heapfmt" "$t/out"
	check "$p unknown option is a usage error" expect_rc 2 "$tools/$p" --bogus
	check "$p missing input is an I/O error" expect_rc 3 "$tools/$p" "$t/nope.hprof" "$t/x.db"
	check "$p: the error is one line" test "$(wc -l <"$t/err")" -le 2
done
check "short options given together (-qf)" expect_rc 0 "$tools/hprof2heapdb" -qf "$sample" "$t/group.db"
check "are each taken (-f: an existing database replaced)" expect_rc 0 "$tools/hprof2heapdb" -fq "$sample" "$t/group.db"
check "a group with an unknown letter is a usage error" expect_rc 2 "$tools/hprof2heapdb" -qx "$sample" "$t/group2.db"
check "naming the group" grep -q "unknown option '-qx'" "$t/err"
check "-f is not an option of an NDJSON writer, in a group either" expect_rc 2 "$tools/hprof2ndjson" -qf "$sample" "$t/group.ndjson"
check "a value at the end of a group (-qj1, -qo DIR)" expect_rc 0 "$tools/hprof2ndjson" -qj1 -qo "$t/groupdir" "$sample"
check "goes to its option" test -s "$t/groupdir/sample.ndjson"
check "-Vh: the first one wins" expect_rc 0 "$tools/heapdb-analyze" -Vh
check "(the version)" grep -q "heapfmt" "$t/out"
check "hprof2heapdb needs two arguments" expect_rc 2 "$tools/hprof2heapdb" "$sample"
check "an empty output name is a usage error, before any work" expect_rc 2 "$tools/hprof2ndjson" "$sample" ""
check "also for heapdb-analyze" expect_rc 2 "$tools/heapdb-analyze" ""
check "a number past the range is a usage error" expect_rc 2 "$tools/hprof2ndjson" --dump=99999999999999999999 "$sample" "$t/x.ndjson"
check "-o makes the directories above DIR too" expect_rc 0 "$tools/hprof2ndjson" -o "$t/nest/a/b" "$sample"
check "and writes there" test -s "$t/nest/a/b/sample.ndjson"
check "-o OUT.db (a file's name, not yet there) is a usage error" expect_rc 2 "$tools/hprof2heapdb" "$sample" -o "$t/want.db"
check "that says how to name the output" grep -q "give it after the input (hprof2heapdb IN $t/want.db)" "$t/err"
check "and makes no directory of that name" test ! -e "$t/want.db"
check "an existing directory named so is used" sh -c "mkdir '$t/dir.ndjson' && '$tools/hprof2ndjson' -o '$t/dir.ndjson' '$sample' && test -s '$t/dir.ndjson/sample.ndjson'"

# An hprof agent's profile (no heap dump) converts, and says so on stderr;
# heapdiff has nothing to compare in it; a file cut before its heap dump
# is refused.
gen=$(dirname "$tools")/testdata/hprofgen
if [ -x "$gen" ] && "$gen" agent-cpu-samples "$t/profile.hprof" && "$gen" no-heap-dump "$t/cut-early.hprof"; then
	check "a profile without a heap dump converts" expect_rc 0 "$tools/hprof2heapdb" "$t/profile.hprof" "$t/profile.db"
	check "with a warning on stderr" grep -q "^hprof2heapdb: $t/profile.hprof: warning: offset [0-9]*: no HEAP DUMP record: a profile of the hprof agent (its CPU SAMPLES, ALLOC SITES or HEAP SUMMARY), converted without objects\$" "$t/err"
	check "in one line" test "$(wc -l <"$t/err")" = 1
	check "its CPU samples" test "$(sqlite3 "$t/profile.db" 'SELECT sum(count) FROM hprof_cpu_sample' 2>/dev/null || echo 12)" = 12
	check "and no dump_analysis row" test "$(sqlite3 "$t/profile.db" 'SELECT count(*) FROM dump_analysis' 2>/dev/null || echo 0)" = 0
	check "through a pipe to NDJSON" expect_rc 0 sh -c "'$tools/hprof2ndjson' - - <'$t/profile.hprof' | grep -c '\"record\":\"hprof.cpu_sample\"'"
	check "(its two traces)" test "$(cat "$t/out")" = 2
	check "heapdiff of a profile has nothing to compare" expect_rc 1 "$tools/heapdiff" "$t/profile.hprof" "$t/profile.hprof"
	check "and says so" grep -q "no heap dump (a profile of the hprof agent)" "$t/err"
	check "a file cut before its heap dump is refused" expect_rc 1 "$tools/hprof2ndjson" "$t/cut-early.hprof" "$t/cut-early.ndjson"
	check "naming the end of the file" grep -q "offset 242 (end of file): no HEAP DUMP or HEAP DUMP SEGMENT record" "$t/err"
	check "leaving no output" test ! -e "$t/cut-early.ndjson"
	# The reader's warnings go to stderr too, after a run that did not fail:
	# the first three, then how many in all and where the output has them.
	"$gen" unfinished-chain "$t/unfinished.hprof"
	check "a dump whose 20,000 instances are not decoded converts" expect_rc 0 "$tools/hprof2ndjson" "$t/unfinished.hprof" "$t/unfinished.ndjson"
	check "and says so on stderr: three warnings and their count" test "$(grep -c '^hprof2ndjson: .*/unfinished.hprof: warning: offset [0-9]*: class 0x10000 not laid out: .*; fields not decoded$' "$t/err")" = 3
	check "(the count, last)" test "$(tail -1 "$t/err")" = "hprof2ndjson: $t/unfinished.hprof: warning: 20000 warnings in all, 3 shown; the output holds the first 20 (metadata hprof.warning) and their count (hprof.warnings)"
	check "(in four lines)" test "$(wc -l <"$t/err")" = 4
	check "which the output holds as said" test "$(grep -c '"key":"hprof.warning"' "$t/unfinished.ndjson") $(grep -c '"key":"hprof.warnings","value":"20000"' "$t/unfinished.ndjson")" = "20 1"
	head -c 193650 "$t/unfinished.hprof" >"$t/unfinished-cut.hprof"
	check "the same dump cut short fails" expect_rc 1 "$tools/hprof2ndjson" "$t/unfinished-cut.hprof" "$t/unfinished-cut.ndjson"
	check "with its error alone: a failed run's warnings are not told" test "$(wc -l <"$t/err")" = 1
	check "salvaged, the warnings come before the salvage's line" expect_rc 5 "$tools/hprof2ndjson" --salvage "$t/unfinished-cut.hprof" "$t/unfinished-cut.ndjson"
	check "(three, their count, the salvage)" test "$(grep -c ': warning: ' "$t/err") $(tail -1 "$t/err" | grep -c 'salvaged what came before')" = "4 1"
	check "heapdiff of that dump and itself" expect_rc 0 "$tools/heapdiff" "$t/unfinished.hprof" "$t/unfinished.hprof"
	check "tells each input's warnings" test "$(grep -c "^heapdiff: $t/unfinished.hprof: warning: offset [0-9]*: class 0x10000 not laid out" "$t/err") $(grep -c "^heapdiff: $t/unfinished.hprof: warning: 20000 warnings in all, 3 shown\$" "$t/err")" = "6 2"
else
	echo "note: $gen missing: the profile cases skipped"
fi

# --progress to a file or pipe (a CI log): whole lines, no terminal codes.
check "--progress to a log" expect_rc 0 sh -c \
	"'$tools/hprof2ndjson' '$sample' | '$tools/ndjson2heapdb' --progress - '$t/prog.db'"
check "writes whole lines" grep -qx "ndjson2heapdb: [0-9]* [kM]B read" "$t/err"
check "the end's once" test "$(wc -l <"$t/err")" = 1
check "with no carriage return or escape" sh -c "test \$(tr -d '\r\033' <'$t/err' | wc -c) = \$(wc -c <'$t/err')"
check "a file too small for any other line still gets the end's" expect_rc 0 "$tools/hprof2ndjson" --progress "$sample" "$t/prog.ndjson"
check "(its size in kB, not 0 MB)" grep -qx "hprof2ndjson: 100% ([1-9][0-9]* of [1-9][0-9]* kB)" "$t/err"
head -c 300000 "$sample" >"$t/cut.gz"
check "a run that fails" expect_rc 1 "$tools/hprof2ndjson" --progress "$t/cut.gz" "$t/cut.ndjson"
check "does not end with 100%" sh -c "! grep -q '100%' '$t/err'"
check "heapdb2heapsnapshot --progress" expect_rc 0 "$tools/heapdb2heapsnapshot" --progress "$t/prog.db" "$t/prog.heapsnapshot"
check "counts nodes and edges, not bytes" sh -c "grep -q '^heapdb2heapsnapshot: ' '$t/err' && ! grep -q 'B)\$' '$t/err'"

# SOURCE_DATE_EPOCH that is not a number of seconds: a usage error, not "now".
check "a malformed SOURCE_DATE_EPOCH is a usage error" expect_rc 2 env SOURCE_DATE_EPOCH=abc "$tools/hprof2ndjson" "$sample" "$t/sde.ndjson"
check "saying so" grep -q "SOURCE_DATE_EPOCH must be a number" "$t/err"
check "a valid one is the crtime" sh -c "SOURCE_DATE_EPOCH=0 '$tools/hprof2ndjson' '$sample' | grep -q '\"crtime\",\"value\":\"1970-01-01T00:00:00Z\"'"

# stdin and stdout, quiet when piped.
check "gzip through stdin to stdout" expect_rc 0 sh -c "'$tools/hprof2ndjson' - < '$sample' > '$t/a.ndjson'"
check "nothing on stderr when piped" test ! -s "$t/err"
check "first line is version_major metadata" sh -c "head -1 '$t/a.ndjson' | grep -q '\"key\":\"version_major\"'"
check "file argument gives the same number of lines" sh -c "'$tools/hprof2ndjson' '$sample' '$t/b.ndjson' && test \$(wc -l < '$t/a.ndjson') = \$(wc -l < '$t/b.ndjson')"
# Both pipes are widened (hf_pipe_widen): the same bytes as file to file,
# but for the input's name, and exit status 0 (kept past the last pipe).
check "through pipes in and out, the bytes of file to file" sh -c \
	"SOURCE_DATE_EPOCH=0 '$tools/hprof2ndjson' '$sample' '$t/f.ndjson' &&
	 { gzip -dc '$sample' | SOURCE_DATE_EPOCH=0 '$tools/hprof2ndjson' - -; echo \$? > '$t/p.rc'; } | cat > '$t/p.ndjson' &&
	 test \"\$(cat '$t/p.rc')\" = 0 &&
	 grep -v '\"target_file\"' '$t/f.ndjson' > '$t/f2.ndjson' && grep -v '\"target_file\"' '$t/p.ndjson' > '$t/p2.ndjson' &&
	 test \$(wc -l < '$t/p.ndjson') -gt 10000 && cmp -s '$t/f2.ndjson' '$t/p2.ndjson'"
check "a named pipe as the input (widened too), the same bytes" sh -c \
	"mkfifo '$t/fifo' && { gzip -dc '$sample' > '$t/fifo' & } &&
	 SOURCE_DATE_EPOCH=0 '$tools/hprof2ndjson' '$t/fifo' '$t/q.ndjson' && wait &&
	 grep -v '\"target_file\"' '$t/q.ndjson' > '$t/q2.ndjson' && cmp -s '$t/f2.ndjson' '$t/q2.ndjson'"

# A file name that is not UTF-8 (a path is bytes): the output stays UTF-8
# JSON, each bad byte U+FFFD, in the records and in batch summaries.
bad="$t/bad$(printf '\377\376')name.hprof.gz"
cp "$sample" "$bad"
utf8_json='import json, sys
lines = sys.stdin.buffer.read().decode("utf-8").splitlines()
names = [v for v in map(json.loads, lines) for v in (v.get("value"), v.get("input")) if v]
sys.exit(0 if any("\ufffd\ufffdname.hprof.gz" in v for v in names) else 1)'
check "a file name that is not UTF-8" expect_rc 0 "$tools/hprof2ndjson" "$bad" "$t/badname.ndjson"
check "gives UTF-8 NDJSON naming it with U+FFFD" python3 -c "$utf8_json" <"$t/badname.ndjson"
mkdir "$t/bo"
check "and a UTF-8 JSON summary in batch mode" sh -c \
	"'$tools/hprof2ndjson' --stats=json -o '$t/bo' '$bad' | python3 -c '$utf8_json'"

# --dump=N past the last dump: a usage error once the file is read, no output.
check "--dump past the last dump is a usage error" expect_rc 2 "$tools/hprof2heapdb" --dump=1 "$sample" "$t/d1.db"
check "saying how many dumps the file holds" grep -q "holds 1 " "$t/err"
check "and writing no database" test ! -e "$t/d1.db"
check "--dump=0 of a one-dump file" expect_rc 0 "$tools/hprof2ndjson" --dump=0 "$sample" "$t/d0.ndjson"

# A record type may declare a field named rowid: its records still come back
# in the order they were written.
printf '%s\n' '{"record":"record_type","name":"x.ev","fields":[{"name":"rowid","type":"int"},{"name":"v","type":"text"}]}' \
	'{"record":"x.ev","rowid":3,"v":"first"}' '{"record":"x.ev","rowid":1,"v":"second"}' \
	'{"record":"x.ev","rowid":2,"v":"third"}' >"$t/rowid.ndjson"
check "a record field named rowid" expect_rc 0 "$tools/ndjson2heapdb" "$t/rowid.ndjson" "$t/rowid.db"
check "keeps the records' order" test "$("$tools/heapdb2ndjson" "$t/rowid.db" - |
	sed -n 's/.*"v":"\([a-z]*\)".*/\1/p' | tr '\n' ' ')" = "first second third "

# --values-limit: the nodes whose values text is longer (8 arrays and 3
# classes of the sample) go without it, with a warning each (20 kept at
# most) and their count; the rest as with no limit.
check "--values-limit=0: no limit" expect_rc 0 "$tools/hprof2heapdb" --values --values-limit=0 "$sample" "$t/vall.db"
check "--values-limit=1K" expect_rc 0 "$tools/hprof2heapdb" --values --values-limit=1K "$sample" "$t/v1k.db"
vdiff() { # vdiff TABLE: its rows over 1024 bytes of values with no limit; rows that differ otherwise
	echo "SELECT count(*) FROM a.$1 WHERE length(CAST(\"values\" AS BLOB)) > 1024;
	 SELECT count(*) FROM $1 p JOIN a.$1 q USING (node_identifier, dump)
	  WHERE p.\"values\" IS NOT q.\"values\" AND (p.\"values\" IS NOT NULL OR length(CAST(q.\"values\" AS BLOB)) <= 1024);"
}
check "omits the nodes of more than 1024 bytes of text, and only those" test "$(sqlite3 "$t/v1k.db" \
	"ATTACH '$t/vall.db' AS a; $(vdiff node_primitive_array) $(vdiff node_class) $(vdiff node_instance)
	 SELECT value FROM metadata WHERE key = 'heapfmt.values_omitted';
	 SELECT count(*) FROM metadata WHERE key = 'hprof.warning' AND value LIKE '%values limit of 1024 bytes';" 2>&1 |
	tr '\n' ' ')" = "8 0 3 0 0 0 11 11 "
check "--values-limit takes a size" expect_rc 2 "$tools/hprof2ndjson" --values --values-limit=12Q "$sample" "$t/vbad.ndjson"
check "naming the option" grep -q -- "--values-limit takes a size" "$t/err"
check "--values-limit without --values converts" expect_rc 0 "$tools/hprof2ndjson" --values-limit=1K "$sample" "$t/vnone.ndjson"
check "and says it does nothing" grep -q -- "warning: --values-limit does nothing without --values" "$t/err"
check "--values-limit=1G" expect_rc 0 "$tools/hprof2ndjson" --values --values-limit 1G "$sample" "$t/v1g.ndjson"
check "without omissions" grep -q '"heapfmt.values_omitted","value":"0"' "$t/v1g.ndjson"

# Two string records with one id: the first is kept, and the planner's row
# count of strings (the writer's own, not ANALYZE's) leaves the second out.
printf '%s\n' '{"record":"string","id":7,"data":"a"}' '{"record":"string","id":8,"data":"b"}' \
	'{"record":"string","id":7,"data":"again"}' >"$t/dupstr.ndjson"
check "strings with one id" expect_rc 0 "$tools/ndjson2heapdb" "$t/dupstr.ndjson" "$t/dupstr.db"
check "are counted once in sqlite_stat1" test "$(sqlite3 "$t/dupstr.db" \
	"SELECT stat FROM sqlite_stat1 WHERE tbl = 'strings'; SELECT data FROM strings WHERE stringid = 7;" 2>&1 |
	tr '\n' ' ')" = "2 a "

# Past 64 tables the statistics are one ANALYZE of everything (one a table
# reloads sqlite_stat1 each time: the square of the tables): the same rows.
i=0
while [ $i -lt 70 ]; do
	printf '{"record":"record_type","name":"t%d","fields":[{"name":"x","type":"int"}]}\n{"record":"t%d","x":%d}\n' $i $i $i
	i=$((i + 1))
done >"$t/many.ndjson"
cat "$t/dupstr.ndjson" >>"$t/many.ndjson"
check "70 record types" expect_rc 0 "$tools/ndjson2heapdb" "$t/many.ndjson" "$t/many.db"
check "have their statistics, and strings its count" test "$(sqlite3 "$t/many.db" \
	"SELECT count(*) FROM sqlite_stat1 WHERE tbl LIKE 't%' AND tbl <> 'type_fields'; SELECT stat FROM sqlite_stat1 WHERE tbl = 'strings';" 2>&1 |
	tr '\n' ' ')" = "70 2 "
# heapdb-analyze gathers the statistics of its own tables, and all of them
# for a database that has none.
check "heapdb-analyze of a database without statistics" sh -c \
	"'$tools/hprof2heapdb' -q --no-analysis '$sample' '$t/nostat.db' && sqlite3 '$t/nostat.db' 'DROP TABLE sqlite_stat1' &&
	'$tools/heapdb-analyze' '$t/nostat.db' >/dev/null"
check "gathers them all" test "$(sqlite3 "$t/nostat.db" \
	"SELECT count(DISTINCT tbl) > 5, (SELECT CAST(stat AS INTEGER) FROM sqlite_stat1 WHERE tbl = 'strings') = (SELECT count(*) FROM strings),
	 (SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'node_analysis') > 0 FROM sqlite_stat1" 2>&1)" = "1|1|1"

# A UTF-8 byte order mark before the first line (as Windows tools write) is
# skipped; one anywhere else is not JSON.
{ printf '\357\273\277'; cat "$t/rowid.ndjson"; } >"$t/bom.ndjson"
check "NDJSON after a byte order mark" expect_rc 0 "$tools/ndjson2heapdb" "$t/bom.ndjson" "$t/bom.db"
check "gives the same records" test "$("$tools/heapdb2ndjson" "$t/bom.db" - | grep -c '"record":"x.ev"')" = 3
{ head -1 "$t/rowid.ndjson"; printf '\357\273\277'; tail -n +2 "$t/rowid.ndjson"; } >"$t/bom2.ndjson"
check "one before the second line is an error" expect_rc 1 "$tools/ndjson2heapdb" "$t/bom2.ndjson" "$t/bom2.db"

# A json field of more than 64 KiB is checked without jansson's tree and
# kept as written; an error inside it names the field; a NUL byte is not JSON.
big=$(seq -s ', ' 1 40000)
printf '{"record":"record_type","name":"x.big","table":"x_big","fields":[{"name":"v","type":"json"}]}\n{"record":"x.big","v":[%s, {"k" : [true]}]}\n' \
	"$big" >"$t/bigjson.ndjson"
check "a json field of 300 KB loads" expect_rc 0 "$tools/ndjson2heapdb" "$t/bigjson.ndjson" "$t/bigjson.db"
check "as written" test "$(sqlite3 "$t/bigjson.db" "SELECT length(v), substr(v, -22) FROM x_big")" = \
	"$(( ${#big} + 18 ))|40000, {\"k\" : [true]}]"
sed 's/39999, 40000/39999, 040000/' "$t/bigjson.ndjson" >"$t/bigbad.ndjson"
check "a bad number in it is bad input" expect_rc 1 "$tools/ndjson2heapdb" "$t/bigbad.ndjson" "$t/bigbad.db"
check "naming the field and the line" grep -q '(line 2): not JSON: the value of "v" is invalid at byte 2689' "$t/err"
# Nested past jansson's 2048 levels, in a short line (jansson's words) and in
# one of 64 KiB or more (checked without jansson): the same cause named.
deep=$(printf '%03000d' 0 | tr 0 '[')$(printf '%03000d' 0 | tr 0 ']')
printf '{"record":"x.big","v":%s}\n' "$deep" | cat "$t/bigjson.ndjson" - >"$t/deep.ndjson"
check "a value nested 3000 deep is bad input" expect_rc 1 "$tools/ndjson2heapdb" "$t/deep.ndjson" "$t/deep.db"
check "saying so" grep -q '(line 3): not JSON: maximum parsing depth reached' "$t/err"
printf '{"record":"x.big","v":[%s, %s]}\n' "$big" "$deep" | cat "$t/bigjson.ndjson" - >"$t/deepbig.ndjson"
check "in a line of 300 KB too" expect_rc 1 "$tools/ndjson2heapdb" "$t/deepbig.ndjson" "$t/deepbig.db"
check "saying so, not that it is invalid" grep -q "(line 3): not JSON: the value of \"v\" reaches the maximum parsing depth at byte $(( ${#big} + 25 + 2046 ))" "$t/err"
printf '{"record":"x.big","v":[1\000]}\n' | cat "$t/bigjson.ndjson" - >"$t/nul.ndjson"
check "a NUL byte after a number is bad input" expect_rc 1 "$tools/ndjson2heapdb" "$t/nul.ndjson" "$t/nul.db"
check "naming it" grep -q 'not JSON: a NUL byte at byte 24 of the line' "$t/err"
sed '2s/\]}$/] x}/' "$t/bigjson.ndjson" >"$t/bigx.ndjson"
check "a stray word after it is bad input" expect_rc 1 "$tools/ndjson2heapdb" "$t/bigx.ndjson" "$t/bigx.db"
check "placed in the line" grep -q 'not JSON: invalid at byte 2689[0-9][0-9] of the line' "$t/err"
printf '{"record":"metadata","key":"k","value":"v","c1":0,"a":0,"c2":0,"b":0,"c3":0,"c4":0,"c5":0,"c6":0,"c7":0,"c8":0,"c9":0,"c10":0,"c11":0,"b":1,"a":1}\n' >"$t/dupkeys.ndjson"
check "of seventeen keys or more (sorted), a key twice" expect_rc 1 "$tools/ndjson2heapdb" --ignore-unknown-keys "$t/dupkeys.ndjson" "$t/dupkeys.db"
check "is the one seen twice first" grep -q 'key "b" appears twice' "$t/err"

# A line of 100,000 keys: they are sorted once, not compared in pairs (the
# pairs took 26 s for this 1 MB line; a 64 KiB line of them repeated was a
# hang); a key twice among them is found.
keys=$(seq -f '"a%.0f":0' 1 100000 | paste -sd, -)
printf '{"record":"metadata","key":"k","value":"v",%s}\n' "$keys" >"$t/keys.ndjson"
check "a line of 100,000 unknown keys" expect_rc 0 "$tools/ndjson2heapdb" --ignore-unknown-keys "$t/keys.ndjson" "$t/keys.db"
check "counts them" test "$(sqlite3 "$t/keys.db" "SELECT value FROM metadata WHERE key = 'heapdb.unknown_keys'")" = 100000
printf '{"record":"metadata","key":"k","value":"v",%s,"a77777":1}\n' "$keys" >"$t/keys2.ndjson"
check "one of them twice" expect_rc 1 "$tools/ndjson2heapdb" --ignore-unknown-keys "$t/keys2.ndjson" "$t/keys2.db"
check "is named" grep -q 'key "a77777" appears twice' "$t/err"

# A long line's keys that no record reads are left out of jansson's parse
# (scan_line): a 21 MB line of 2,000,000 of them took ndjson2heapdb to
# 762 MB under ASan (370 MB without), jansson's tree of them and the
# reader's table of keys; now 196 MB (about 90). Peak resident size at most
# 12 times the line. Keys twice and keys not declared are still found, the
# first in the line named, whether the record reads it or not.
python3 -c "
import sys
w = sys.stdout.write
w('{\"record\":\"metadata\",\"key\":\"k\",\"value\":\"v\"')
w(''.join(',\"%x\":1' % i for i in range(2000000)))
w('}\n')" >"$t/manykeys.ndjson"
peak_rss_kb() { # peak_rss_kb COMMAND...: runs it, prints its peak resident set (KiB)
	python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
check "a 21 MB line of 2,000,000 unknown keys" expect_rc 0 "$tools/ndjson2heapdb" --ignore-unknown-keys "$t/manykeys.ndjson" "$t/manykeys.db"
check "counts them" test "$(sqlite3 "$t/manykeys.db" "SELECT value FROM metadata WHERE key = 'heapdb.unknown_keys'")" = 2000000
rm -f "$t/manykeys.db"
rss=$(peak_rss_kb "$tools/ndjson2heapdb" --ignore-unknown-keys "$t/manykeys.ndjson" "$t/manykeys.db")
check "in at most 12 times the line's size ($rss KiB)" test "$rss" -le $(( $(wc -c <"$t/manykeys.ndjson") * 12 / 1024 ))
sed 's/,"1e847f":1}$/,"1e847f":1,"3a":2}/' "$t/manykeys.ndjson" >"$t/manykeys2.ndjson"
check "one of them twice, at the end" expect_rc 1 "$tools/ndjson2heapdb" --ignore-unknown-keys "$t/manykeys2.ndjson" "$t/manykeys2.db"
check "is named" grep -q 'key "3a" appears twice' "$t/err"
sed 's/,"1e847f":1}$/,"1e847f":1,"key":"k2"}/' "$t/manykeys.ndjson" >"$t/manykeys3.ndjson"
check "a key the record reads, twice, after them" expect_rc 1 "$tools/ndjson2heapdb" --ignore-unknown-keys "$t/manykeys3.ndjson" "$t/manykeys3.db"
check "is named" grep -q 'key "key" appears twice' "$t/err"
sed 's/,"5":1,/,"5":1,"3":1,/; s/,"1e847f":1}$/,"1e847f":1,"key":"k2"}/' "$t/manykeys.ndjson" >"$t/manykeys4.ndjson"
check "of two keys twice, the one seen twice first" expect_rc 1 "$tools/ndjson2heapdb" --ignore-unknown-keys "$t/manykeys4.ndjson" "$t/manykeys4.db"
check "is named" grep -q 'key "3" appears twice' "$t/err"
check "without --ignore-unknown-keys" expect_rc 1 "$tools/ndjson2heapdb" "$t/manykeys.ndjson" "$t/manykeys5.db"
check "the first is named" grep -q 'key "0" is not declared for this record' "$t/err"
sed 's/^{"record":"metadata",/{"record":"metadata","source":1,/' "$t/manykeys.ndjson" >"$t/manykeys6.ndjson"
check "a key of other records first" expect_rc 1 "$tools/ndjson2heapdb" "$t/manykeys6.ndjson" "$t/manykeys6.db"
check "is named first" grep -q 'key "source" is not declared for this record' "$t/err"
# (helper-18's review) A declaration is parsed whole, up to 16 MiB, only when
# a value it reads was left out, not for unknown keys alone; keys twice in a
# line that is not JSON: not JSON, where it stops being so.
python3 -c "
import sys
sys.stdout.write('{\"record\":\"record_type\",\"name\":\"t\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"}],\"zz\":\"' + 'x' * (17 << 20) + '\"}\n')
sys.stdout.write('{\"record\":\"t\",\"a\":1}\n')" >"$t/bigdecl.ndjson"
check "a 17 MiB declaration of an unknown key" expect_rc 0 "$tools/ndjson2heapdb" --ignore-unknown-keys "$t/bigdecl.ndjson" "$t/bigdecl.db"
check "declares its type" test "$(sqlite3 "$t/bigdecl.db" 'SELECT a FROM t')" = 1
pad=$(printf '%*s' 65536 '' | tr ' ' x)
printf '{"record":"metadata","key":tru,"value":"v","a":1,"a":2,"pad":"%s"}\n' "$pad" >"$t/dupbad.ndjson"
check "a long line with keys twice, not JSON before them" expect_rc 1 "$tools/ndjson2heapdb" "$t/dupbad.ndjson" "$t/dupbad.db"
check "is not JSON there" grep -q 'not JSON: invalid at byte 27 of the line' "$t/err"

check "heapdb2heapsnapshot --dump past the last dump is a usage error" \
	expect_rc 2 "$tools/heapdb2heapsnapshot" --dump=3 "$t/rowid.db" "$t/hs.json"
check "and writes no snapshot" test ! -e "$t/hs.json"

# An indexed field whose table and field names take the 64 bytes allowed.
long_t=t$(printf '%063d' 0 | tr 0 a) long_f=f$(printf '%063d' 0 | tr 0 b)
printf '{"record":"record_type","name":"x.l","table":"%s","fields":[{"name":"%s","type":"int","indexed":true}]}\n{"record":"x.l","%s":5}\n' \
	"$long_t" "$long_f" "$long_f" >"$t/longidx.ndjson"
check "an index on 64-byte names" expect_rc 0 "$tools/ndjson2heapdb" "$t/longidx.ndjson" "$t/longidx.db"
check "is built" test "$(sqlite3 "$t/longidx.db" \
	"SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = '${long_t}_$long_f'")" = 1

# Databases: refuse to overwrite, --force replaces, failure leaves nothing.
check "convert" expect_rc 0 "$tools/hprof2heapdb" "$sample" "$t/s.db"
echo keep >"$t/exists.db"
check "an existing output is refused" expect_rc 3 "$tools/hprof2heapdb" "$sample" "$t/exists.db"
check "and left as it was" grep -q keep "$t/exists.db"
check "--force replaces it" expect_rc 0 "$tools/hprof2heapdb" --force "$sample" "$t/exists.db"
check "with a database" sh -c "head -c 15 '$t/exists.db' | grep -q 'SQLite format 3'"
# A database whose write was cut (a killed heapdb-analyze does that) keeps a
# hot rollback journal beside it; one replaced with --force must not get it
# (SQLite would roll the old pages back into it: another dump's, so that its
# indexes no longer match its tables).
"$tools/hprof2heapdb" -q "$(dirname "$sample")/leak-before.hprof.gz" "$t/hot.db"
python3 - "$t/hot.db" <<'PY'
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode=DELETE")
db.execute("PRAGMA cache_size=1")  # spill: pages are written to the file before the commit
db.execute("BEGIN")
db.execute("UPDATE node SET size = size + 1")
os._exit(0)  # no commit, no rollback: the journal stays hot
PY
check "(a database left with a hot journal)" test -s "$t/hot.db-journal"
echo stale >"$t/hot.db-wal"
check "replaced with --force" expect_rc 0 "$tools/hprof2heapdb" --force "$sample" "$t/hot.db"
check "its journal and WAL are gone" sh -c "test ! -e '$t/hot.db-journal' && test ! -e '$t/hot.db-wal'"
check "and the new database reads whole, read-write" test "$(python3 -c "
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(db.execute('PRAGMA integrity_check').fetchone()[0], db.execute('SELECT count(*) FROM node').fetchone()[0])" "$t/hot.db")" = "ok $(python3 -c "
import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM node').fetchone()[0])" "$t/s.db")"
head -c 100000 "$sample" | gzip -dc 2>/dev/null >"$t/cut.hprof"
check "a truncated dump fails with exit 1" expect_rc 1 "$tools/hprof2heapdb" "$t/cut.hprof" "$t/cut.db"
check "the error names an offset" grep -q "offset" "$t/err"
check "and says that --salvage converts what comes before" grep -q "; --salvage converts what comes before\$" "$t/err"
# Cut at a record's boundary: the sample without its last record, the
# HEAP DUMP END (9 bytes) that closes its HEAP DUMP SEGMENTs. Not whole,
# though every record in it is.
gzip -dc "$sample" | head -c -9 >"$t/noend.hprof"
check "a dump whose segments the file does not close fails with exit 1" expect_rc 1 "$tools/hprof2ndjson" "$t/noend.hprof" "$t/noend.ndjson"
check "saying the file is cut short, where" grep -q "noend.hprof: offset $(wc -c <"$t/noend.hprof") (end of file): the file ends without the HEAP DUMP END that closes its HEAP DUMP SEGMENTs" "$t/err"
check "and no output" test ! -e "$t/noend.ndjson"
check "--salvage converts it, exit 5" expect_rc 5 "$tools/hprof2heapdb" --salvage "$t/noend.hprof" "$t/noend.db"
sql1() { # sql1 DB QUERY: the first column of the first row (Python's sqlite3, always there)
	python3 -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$1" "$2" 2>&1
}
check "marked incomplete" test "$(sql1 "$t/noend.db" "SELECT value FROM metadata WHERE key = 'heapfmt.complete'")" = false
check "with every object of the whole dump" test "$(sql1 "$t/noend.db" 'SELECT count(*) FROM node')" = \
	"$(sql1 "$t/s.db" 'SELECT count(*) FROM node')"
check "(12,735 of them: the sample's)" test "$(sql1 "$t/s.db" 'SELECT count(*) FROM node')" = 12735
# A last segment whose length its writer never patched (0), read to the end
# of the file: a dump not finished, as damaged as one cut at a record's end.
if [ -x "$gen" ] && "$gen" length-zero-roots "$t/len0.hprof"; then
	check "a last segment of length 0 read to the end fails with exit 1" expect_rc 1 "$tools/hprof2ndjson" "$t/len0.hprof" "$t/len0.ndjson"
	check "saying its length was never written, where, and that --salvage converts it" grep -q "len0.hprof: offset $(wc -c <"$t/len0.hprof") (end of file): the file ends inside a HEAP DUMP SEGMENT whose length was never written (0): the dump was not finished; --salvage converts what comes before\$" "$t/err"
	check "--salvage converts all of it, exit 5" expect_rc 5 "$tools/hprof2heapdb" --salvage "$t/len0.hprof" "$t/len0.db"
	check "marked incomplete, its three roots kept" test "$(sql1 "$t/len0.db" "SELECT value FROM metadata WHERE key = 'heapfmt.complete'"),$(sql1 "$t/len0.db" 'SELECT count(*) FROM hprof_gc_root')" = false,3
fi
printf 'not a heap dump, but text long enough to be read as one\n' >"$t/junk.in"
check "a file that is not a dump gets no such hint" expect_rc 1 "$tools/hprof2ndjson" "$t/junk.in" "$t/junk.ndjson"
check "(it is not a dump)" sh -c "grep -q 'not an HPROF file' '$t/err' && ! grep -q salvage '$t/err'"
printf 'JAVA PROFILE 1.0.1, created Mon Nov 30 10:00:00 2026\n\nCopyright (c) 2003, 2005.\n' >"$t/ascii.txt"
check "the hprof agent's text output (format=a) is refused" expect_rc 1 "$tools/hprof2ndjson" "$t/ascii.txt" "$t/ascii.ndjson"
check "as such" grep -q "offset 0 (header): a text profile of the hprof agent (format=a), not a binary dump: run the agent with format=b\$" "$t/err"
: >"$t/empty.in"
for p in hprof2ndjson alloc2ndjson hpsg2ndjson heapsnapshot2ndjson; do
	check "$p of an empty file fails with exit 1" expect_rc 1 "$tools/$p" "$t/empty.in" "$t/empty.out"
	check "saying that it is empty" grep -q "^$p: $t/empty.in: offset 0 (input): the input is empty\$" "$t/err"
done
check "no database is left" test ! -e "$t/cut.db"
check "no temporary file is left" sh -c "! ls -a '$t' | grep -q tmp-"
check "truncated NDJSON to a file fails too" expect_rc 1 "$tools/hprof2ndjson" "$t/cut.hprof" "$t/cut.ndjson"
check "and leaves no file" test ! -e "$t/cut.ndjson"
gzip -dc "$sample" | head -c 1500000 >"$t/cut15.hprof"
check "what a failed run wrote to a pipe goes into a database" expect_rc 0 sh -c \
	"'$tools/hprof2ndjson' '$t/cut15.hprof' 2>/dev/null | '$tools/ndjson2heapdb' - '$t/cutpipe.db'"
check "with a warning that the writer stopped early" grep -q "warning: the records end without heapfmt.complete" "$t/err"
check "which a salvaged stream (heapfmt.complete=false) does not get" expect_rc 0 sh -c \
	"'$tools/hprof2ndjson' --salvage '$t/cut15.hprof' 2>/dev/null | '$tools/ndjson2heapdb' - '$t/cutsalv.db'"
check "(nothing on stderr)" test ! -s "$t/err"
check "--progress of a salvaged run" expect_rc 5 "$tools/hprof2ndjson" --progress --salvage "$t/cut15.hprof" "$t/cutsalv.ndjson"
check "does not end with 100% of an input it did not read whole" sh -c "! grep -q '100%' '$t/err'"
# heapdb2ndjson writes heapfmt.complete last too: one that fails halfway
# (a database damaged in the middle) is seen as cut short.
"$tools/hprof2heapdb" "$sample" "$t/mid.db" 2>/dev/null
head -c 12288 /dev/zero | tr '\0' '\377' | dd of="$t/mid.db" bs=1024 seek=1200 conv=notrunc 2>/dev/null
check "heapdb2ndjson's last line is heapfmt.complete" sh -c \
	"'$tools/heapdb2ndjson' '$t/s.db' - | tail -1 | grep -q '\"heapfmt.complete\"'"
check "one that fails halfway, piped into ndjson2heapdb, is warned of" expect_rc 0 sh -c \
	"'$tools/heapdb2ndjson' '$t/mid.db' - 2>/dev/null | '$tools/ndjson2heapdb' - '$t/midcopy.db'"
check "(the warning)" grep -q "warning: the records end without heapfmt.complete" "$t/err"
check "an empty NDJSON stream loads" expect_rc 0 sh -c "'$tools/ndjson2heapdb' - '$t/empty.db' </dev/null"
check "with a warning that it held no records" grep -q "warning: no records" "$t/err"
check "a batch refused as unsound leaves no new directory" expect_rc 2 "$tools/hprof2ndjson" -o "$t/nodir/x" "$sample" "$sample"
check "(none)" test ! -e "$t/nodir"
check "a dump given as a pipe's path to heapdiff" expect_rc 0 sh -c "gzip -dc '$sample' | '$tools/heapdiff' /dev/stdin '$t/s.db'"
# An output path that is the input itself would replace the dump: refused,
# with --force too, through standard input, and through a symbolic link
# (whose target an output replaces, not the link).
gzip -dc "$sample" >"$t/self.hprof"
cp "$t/self.hprof" "$t/self.orig"
check "an output that is the input is a usage error" expect_rc 2 "$tools/hprof2ndjson" "$t/self.hprof" "$t/self.hprof"
check "saying so" grep -q "is the input" "$t/err"
check "also spelled another way, to a database, with --force" expect_rc 2 "$tools/hprof2heapdb" --force "$t/self.hprof" "$t/./self.hprof"
check "also read from standard input" expect_rc 2 sh -c "'$tools/hprof2ndjson' - '$t/self.hprof' <'$t/self.hprof'"
check "and the dump is as it was" cmp -s "$t/self.hprof" "$t/self.orig"
ln -s self.hprof "$t/selflink"
check "a symbolic link to the input as the output" expect_rc 2 "$tools/hprof2ndjson" "$t/self.hprof" "$t/selflink"
check "is refused" sh -c "grep -q 'is the input' '$t/err' && test -L '$t/selflink'"
check "and the dump is still as it was" cmp -s "$t/self.hprof" "$t/self.orig"
ln "$t/self.hprof" "$t/selfhard"
check "a hard link to the input as the output" expect_rc 0 "$tools/hprof2ndjson" "$t/self.hprof" "$t/selfhard"
check "is replaced, and the dump keeps its name" cmp -s "$t/self.hprof" "$t/self.orig"
mkdir "$t/selfb"
cp "$t/self.orig" "$t/selfb/a.hprof"
cp "$t/self.orig" "$t/selfb/a.ndjson"
check "a batch whose output would be one of its inputs is a usage error" \
	expect_rc 2 "$tools/hprof2ndjson" -o "$t/selfb" "$t/selfb/a.hprof" "$t/selfb/a.ndjson"
check "which converts nothing" cmp -s "$t/selfb/a.ndjson" "$t/self.orig"

# --salvage of a gzip file cut short (the stream fails, it does not end)
# keeps what the same bytes give through a pipe, which end instead: before,
# a look ahead past the damage (a class dump's, the size model's, the DDM
# shape's) lost the whole heap dump, or every chunk.
for c in 400000 550000 640000; do
	head -c $c "$sample" >"$t/cutz.gz"
	check "--salvage of a dump's gzip cut at $c exits 5" expect_rc 5 "$tools/hprof2ndjson" --salvage "$t/cutz.gz" "$t/cutz.ndjson"
	gzip -dc "$t/cutz.gz" 2>/dev/null | "$tools/hprof2ndjson" --salvage - "$t/cutp.ndjson" 2>/dev/null
	check "with the records the same bytes give through a pipe" \
		test "$(grep -vc '"heapfmt\.\|"crtime"\|"target_file"' "$t/cutz.ndjson")" = "$(grep -vc '"heapfmt\.\|"crtime"\|"target_file"' "$t/cutp.ndjson")"
done
# hprof2ndjson --analysis takes --analysis-memory, as hprof2heapdb does
# (whether the arrays then live in files is not seen in the records, the
# same either way: test_analysis checks the limit itself).
check "hprof2ndjson --analysis --analysis-memory=1" expect_rc 0 env SOURCE_DATE_EPOCH=0 "$tools/hprof2ndjson" --analysis --analysis-memory=1 "$sample" "$t/am1.ndjson"
check "--analysis-memory=0" expect_rc 0 env SOURCE_DATE_EPOCH=0 "$tools/hprof2ndjson" --analysis --analysis-memory=0 "$sample" "$t/am0.ndjson"
check "give the same records" cmp -s "$t/am1.ndjson" "$t/am0.ndjson"
check "with the analysis in them" grep -q '"record":"heapfmt.node_analysis"' "$t/am1.ndjson"
check "--analysis-memory takes a number" expect_rc 2 "$tools/hprof2ndjson" --analysis --analysis-memory=lots "$sample" "$t/am2.ndjson"

# alloc2ndjson of a DDM stream that starts with a JDWP packet (a capture
# without the handshake): the error says to use hpsg2ndjson.
python3 -c "import struct, sys; c = b'REAL' + struct.pack('>I', 20) + bytes(20); sys.stdout.buffer.write(struct.pack('>IIBH', 11 + len(c), 1, 0x80, 0) + c)" >"$t/packet.bin"
check "alloc2ndjson of a JDWP packet" expect_rc 1 "$tools/alloc2ndjson" "$t/packet.bin" "$t/packet.ndjson"
check "points to hpsg2ndjson" grep -q "JDWP packet of DDM: a DDM stream; use hpsg2ndjson" "$t/err"

# A file compressed other than with gzip: one line that names it once.
printf '\050\265\057\375 some zstd frame' >"$t/dump.zst"
check "a zstd file is refused" expect_rc 1 "$tools/hprof2ndjson" "$t/dump.zst" "$t/zst.ndjson"
check "saying so, naming the file once" sh -c "grep -q 'zstd-compressed; decompress it first (zstd -dc)' '$t/err' && test \$(grep -o 'dump.zst' '$t/err' | wc -l) = 1"

# --salvage of a file that is not of the format at all: nothing to keep,
# the plain error (exit 1) and no output, as without --salvage.
printf 'not a heap dump, not DDM data\n' >"$t/text.txt"
check "hprof2ndjson --salvage of a text file exits 1" expect_rc 1 "$tools/hprof2ndjson" --salvage "$t/text.txt" "$t/text.ndjson"
check "hpsg2ndjson --salvage of a text file exits 1" expect_rc 1 "$tools/hpsg2ndjson" --salvage "$t/text.txt" "$t/text.ndjson"
check "claiming no salvage" sh -c "! grep -q salvaged '$t/err'"
check "nor of a heap dump (whose JAVA reads as a chunk type)" expect_rc 1 "$tools/hpsg2ndjson" --salvage "$sample" "$t/text.ndjson"
check "(no salvage)" sh -c "! grep -q salvaged '$t/err'"
check "and leaving no output" test ! -e "$t/text.ndjson"
chunks="$(dirname "$sample")/../fuzz/ddm/stream-chunks"
if [ -f "$chunks" ]; then
	gzip -c "$chunks" | head -c 3000 >"$t/cutd.gz"
	check "--salvage of a DDM stream's gzip cut short exits 5" expect_rc 5 "$tools/hpsg2ndjson" --salvage "$t/cutd.gz" "$t/cutd.ndjson"
	gzip -dc "$t/cutd.gz" 2>/dev/null | "$tools/hpsg2ndjson" --salvage - "$t/cutdp.ndjson" 2>/dev/null
	check "with the chunks the same bytes give through a pipe" \
		test "$(grep -c '"ddm\.' "$t/cutd.ndjson")" = "$(grep -c '"ddm\.' "$t/cutdp.ndjson")"
fi

# A run stopped by a signal (Ctrl-C, a CI job's timeout) removes its temporary
# output and ends as killed by it. The input is a FIFO fed the dump's first
# 64 KiB and then held open, so that the conversion waits halfway.
feed() { # feed FIFO: in the background; the feeder's pid in $feeder
	[ -p "$1" ] || mkfifo "$1"
	sh -c "gzip -dc '$sample' | head -c 65536; exec sleep 60" >"$1" &
	feeder=$!
}
wait_tmp() { # wait_tmp DIR: until DIR holds a temporary file (10 s at most)
	n=0
	while [ $n -lt 200 ] && ! ls -a "$1" | grep -q tmp-; do sleep 0.05; n=$((n + 1)); done
}
batch_child() { # batch_child DIR BATCH: once DIR holds a temporary file, BATCH's conversion's pid in $child
	wait_tmp "$1"
	sleep 0.3        # past the file's creation, to its name told to the batch
	child=$(grep -l "^PPid:[[:space:]]*$2\$" /proc/[0-9]*/status 2>/dev/null | head -n 1 | cut -d/ -f3)
}
stop_when_tmp() { # stop_when_tmp SIGNAL DIR PID: signals PID once DIR holds a temporary file; its exit status in $rc
	wait_tmp "$2"
	kill -s "$1" "$3"
	wait "$3"
	rc=$?
}
no_tmp_soon() { # no_tmp_soon DIR: no temporary file in DIR within 5 s
	n=0
	while [ $n -lt 100 ] && ls -a "$1" | grep -q tmp-; do sleep 0.05; n=$((n + 1)); done
	! ls -a "$1" | grep -q tmp-
}
if command -v mkfifo >/dev/null; then
	sigs="hprof2heapdb TERM 143|hprof2ndjson HUP 129"
	# A signal ignored when the program starts stays ignored (as nohup
	# wants): a background job of a script ignores SIGINT, a test suite run
	# under nohup SIGHUP. GNU env (coreutils 8.31) gives each case back its
	# signal's default; without it, the SIGINT case is skipped.
	defsig=
	if env --default-signal=INT true 2>/dev/null; then
		defsig=1
		sigs="$sigs|hprof2ndjson INT 130"
	else
		echo "SKIP: SIGINT case (env --default-signal is missing)"
	fi
	oifs=$IFS
	IFS='|'
	set -f
	for c in $sigs; do
		IFS=$oifs
		set -- $c
		mkdir "$t/sig$1$2"
		feed "$t/sig.fifo"
		if [ -n "$defsig" ]; then
			env --default-signal="$2" "$tools/$1" "$t/sig.fifo" "$t/sig$1$2/out" 2>"$t/err" &
		else
			"$tools/$1" "$t/sig.fifo" "$t/sig$1$2/out" 2>"$t/err" &
		fi
		stop_when_tmp "$2" "$t/sig$1$2" $!
		check "$1 stopped by SIG$2 ends as killed by it" test "$rc" = "$3"
		check "and leaves no temporary file" no_tmp_soon "$t/sig$1$2"
		check "nor an output" test ! -e "$t/sig$1$2/out"
		kill "$feeder" 2>/dev/null
	done
	IFS=$oifs
	set +f
	# A batch stopped stops its conversions, which remove their temporary outputs.
	mkdir "$t/sigbatch"
	feed "$t/sig1.fifo"
	f1=$feeder
	feed "$t/sig2.fifo"
	"$tools/hprof2ndjson" -j 2 -o "$t/sigbatch" "$t/sig1.fifo" "$t/sig2.fifo" >/dev/null 2>&1 &
	stop_when_tmp TERM "$t/sigbatch" $!
	check "a batch stopped by SIGTERM ends as killed by it" test "$rc" = 143
	check "once they have ended, leaving no temporary file" sh -c "! ls -a '$t/sigbatch' | grep -q tmp-"
	kill "$f1" "$feeder" 2>/dev/null
	# A conversion that does not end on SIGTERM (here stopped by SIGSTOP) is
	# killed a few seconds later, and the batch removes its temporary output.
	if [ -r /proc/self/status ]; then
		mkdir "$t/stopbatch"
		feed "$t/stop.fifo"
		"$tools/hprof2ndjson" -j 1 -o "$t/stopbatch" "$t/stop.fifo" "$sample" >/dev/null 2>&1 &
		batch=$!
		batch_child "$t/stopbatch" "$batch"
		[ -n "$child" ] && kill -s STOP "$child"
		kill -s TERM "$batch"
		wait "$batch"
		rc=$?
		kill "$feeder" 2>/dev/null
		check "a batch stopped while its conversion is stopped (SIGSTOP) ends as killed by SIGTERM" test "$rc" = 143
		check "having killed that conversion" test -n "$child" -a ! -d "/proc/$child"
		check "and removed its temporary output" sh -c "! ls -a '$t/stopbatch' | grep -q tmp-"
	else
		echo "SKIP: SIGSTOP case (no /proc to find the batch's conversion)"
	fi
	# A conversion of a batch killed by SIGKILL (the OOM killer) cannot
	# remove its temporary output: the batch, told its name, does.
	if [ -r /proc/self/status ]; then
		mkdir "$t/killbatch"
		feed "$t/kill.fifo"
		# Started with SIGCHLD ignored, as some supervisors start programs:
		# the batch must still see how its conversions ended.
		(trap '' CHLD; exec "$tools/hprof2heapdb" -j 1 -o "$t/killbatch" "$t/kill.fifo" "$sample") >"$t/out" 2>"$t/err" &
		batch=$!
		batch_child "$t/killbatch" "$batch"
		[ -n "$child" ] && kill -s KILL "$child"
		wait "$batch"
		rc=$?
		kill "$feeder" 2>/dev/null
		check "a batch whose conversion was killed by SIGKILL fails with exit 3" test "$rc" = 3
		check "saying so" grep -q "killed by signal 9 (SIGKILL); its temporary output removed" "$t/err"
		check "and leaves no temporary file, the next file converted" sh -c "! ls -a '$t/killbatch' | grep -q tmp- && test -s '$t/killbatch/sample.db'"
	else
		echo "SKIP: SIGKILL case (no /proc to find the batch's conversion)"
	fi
fi

# A reader of standard output that goes away (| head): the program ends as
# killed by SIGPIPE, as before, but after removing --analysis's temporary
# database from $TMPDIR (left there before).
mkdir "$t/sigpipe"
(TMPDIR="$t/sigpipe" "$tools/hprof2ndjson" --analysis "$sample" - 2>/dev/null; echo $? >"$t/sigpipe.rc") |
	head -c 1 >/dev/null
check "hprof2ndjson --analysis read by head ends as killed by SIGPIPE" test "$(cat "$t/sigpipe.rc")" = 141
check "and leaves no temporary file in TMPDIR" no_tmp_soon "$t/sigpipe"

# A batch whose reader of the summaries goes away ends the same way, its
# running conversions stopped first (it ran on to the end, exit 0, before).
("$tools/hprof2heapdb" -j1 -o "$t/bpipe" "$sample" "$(dirname "$sample")/leak-before.hprof.gz" 2>/dev/null
	echo $? >"$t/bpipe.rc") | true
check "a batch whose summaries' reader went away ends as killed by SIGPIPE" test "$(cat "$t/bpipe.rc")" = 141
check "and leaves no temporary file in its directory" \
	sh -c "! ls -A '$t/bpipe' | grep -q '[.]tmp-'"

# A database that cannot be written (here a file-size limit; a full disk
# the same): exit 3, naming the output and where SQLite's temporary files go.
check "a database past a file-size limit is an I/O error" \
	expect_rc 3 sh -c "ulimit -f 400; exec '$tools/hprof2heapdb' '$sample' '$t/fsz.db'"
check "which names the database" grep -q "cannot write $t/fsz.db or SQLite's temporary files in " "$t/err"
check "and leaves nothing" sh -c "! ls -a '$t' | grep -q 'fsz.db'"

# A full disk: the formatting thread's write fails; the run says so and exits 3.
if [ -w /dev/full ]; then
	check "NDJSON to a full device is an I/O error" expect_rc 3 "$tools/hprof2ndjson" "$sample" /dev/full
	check "which says what failed" grep -q "cannot write /dev/full: No space left" "$t/err"
	check "also through standard output" expect_rc 3 sh -c "'$tools/hprof2ndjson' '$sample' > /dev/full"
fi
# An output path that is a FIFO or device is written in place, never
# replaced by a renamed file (this once replaced /dev/null).
mkfifo "$t/fifo"
cat "$t/fifo" >"$t/from-fifo" &
check "NDJSON into a FIFO" expect_rc 0 "$tools/hprof2ndjson" "$sample" "$t/fifo"
wait
check "the FIFO is still a FIFO" test -p "$t/fifo"
check "its reader got the records" test "$(wc -l <"$t/from-fifo")" = "$(wc -l <"$t/a.ndjson")"
check "a database is not written over a FIFO, even with --force" expect_rc 3 "$tools/hprof2heapdb" --force "$sample" "$t/fifo"
check "the FIFO survives" test -p "$t/fifo"
# Translators: heapdb2ndjson reads only database files.
check "heapdb2ndjson refuses stdin" expect_rc 2 "$tools/heapdb2ndjson" -
check "a usage error, which says how to get help" grep -q "Try 'heapdb2ndjson --help'" "$t/err"
check "heapdb2ndjson of a non-database is bad input" expect_rc 1 "$tools/heapdb2ndjson" "$t/a.ndjson"
check "ndjson2heapdb of a non-NDJSON is bad input" expect_rc 1 "$tools/ndjson2heapdb" "$t/cut.hprof" "$t/nd.db"
check "and leaves no database" test ! -e "$t/nd.db"
check "NDJSON through stdin into a database" expect_rc 0 sh -c "'$tools/ndjson2heapdb' - '$t/nd.db' < '$t/a.ndjson'"
check "and back: as many lines" sh -c "test \$('$tools/heapdb2ndjson' '$t/nd.db' | wc -l) = \$(wc -l < '$t/a.ndjson')"
# The database writer inserts batches from temp."hf-rows-N" (heapdb.c); a
# declared table with a name like it (here of 3 columns) is still written.
{ cat "$t/a.ndjson"
  echo '{"record":"record_type","name":"acme.rows","table":"hf_rows_3","fields":[{"name":"a","type":"int"},{"name":"b","type":"int"},{"name":"c","type":"text"}]}'
  echo '{"record":"acme.rows","a":1,"b":2,"c":"three"}'; } >"$t/rows.ndjson"
check "a table named like the writer's own is written" expect_rc 0 "$tools/ndjson2heapdb" "$t/rows.ndjson" "$t/rows.db"
check "and read back" sh -c "'$tools/heapdb2ndjson' '$t/rows.db' | grep -q '\"record\":\"acme.rows\",\"a\":1,\"b\":2,\"c\":\"three\"'"
# Declarations the database cannot hold are bad input (exit 1) naming the
# line, refused before SQLite sees them: tables that collide (with the
# database's own, with another type's, also in another case or through the
# name a record type's table is derived from), names that are not
# identifiers, fields named like a line's own keys or a subtype table's
# columns, fields that differ only in case.
decl_fails() { # decl_fails DESCRIPTION MESSAGE LINE...
	dd=$1 msg=$2; shift 2
	printf '%s\n' '{"record":"metadata","key":"version_major","value":"1"}' "$@" >"$t/decl.ndjson"
	n=$(($# + 1))
	check "$dd: exit 1" expect_rc 1 "$tools/ndjson2heapdb" "$t/decl.ndjson" "$t/decl.db"
	check "$dd: names line $n" grep -q "decl.ndjson: offset [0-9]* (line $n, [a-z_]*): .*$msg" "$t/err"
	check "$dd: one error line" test "$(wc -l <"$t/err")" = 1
	check "$dd: no database left" test ! -e "$t/decl.db"
	rm -f "$t/decl.db"
}
rt='{"record":"record_type","name":'
f='"fields":[{"name":"x","type":"int"}]}'
decl_fails "record types whose derived tables collide" 'table name "a_b_c" is taken by the table "a_b_c" of type "a.b_c"' \
	"$rt\"a.b_c\",$f" "$rt\"a_b.c\",$f"
decl_fails "tables that differ only in case" 'table name "T1" is taken by the table "t1"' \
	"$rt\"one\",\"table\":\"t1\",$f" "$rt\"two\",\"table\":\"T1\",$f"
decl_fails "a node type's table taken by a record type" 'table name "node_w" is taken' \
	'{"record":"node_type","subtype":9,"name":"w","table":"node_w","fields":[]}' "$rt\"r\",\"table\":\"node_w\",$f"
for core in node edge strings metadata node_types edge_types record_types type_fields \
	node_analysis dump_analysis edge_by_dest SQLite_x; do
	decl_fails "a table named $core" "table name \"$core\" is one of the database's own" \
		"$rt\"com.example.t\",\"table\":\"$core\",$f"
done
decl_fails "a table named like an index of a known type" 'table name "hprof_gc_root_object" is taken by the index' \
	"$rt\"hprof.gc_root\",\"fields\":[{\"name\":\"object\",\"type\":\"id\"}]}" \
	"$rt\"x\",\"table\":\"hprof_gc_root_object\",$f"
decl_fails "a table name beginning with a digit" 'record type "3d.mesh": table name "3d_mesh" is not valid' "$rt\"3d.mesh\",$f"
decl_fails "a table name of 65 bytes" 'table name "a_\(bcdefghij\)\{7\}" is not valid' \
	"$rt\"a.bcdefghijbcdefghijbcdefghijbcdefghijbcdefghijbcdefghijbcdefghij\",$f"
decl_fails "a field name that is not an identifier" 'field name "a b" is not valid' \
	"$rt\"x\",\"fields\":[{\"name\":\"a b\",\"type\":\"int\"}]}"
decl_fails "fields that differ only in case" 'field "X" is declared twice' \
	"$rt\"x\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"},{\"name\":\"X\",\"type\":\"int\"}]}"
decl_fails "a record field named record" 'record type "x.r": a field cannot be named "record"' \
	"$rt\"x.r\",\"fields\":[{\"name\":\"record\",\"type\":\"text\"}]}"
for key in identifier subtype dump class size heap record node_identifier Dump; do
	decl_fails "a node field named $key" "node type \"weird\": a field cannot be named \"$key\"" \
		"{\"record\":\"node_type\",\"subtype\":9,\"name\":\"weird\",\"table\":\"node_x\",\"fields\":[{\"name\":\"$key\",\"type\":\"int\"}]}"
done
# Every key the schema requires of a core record (heapfmt.schema.json) is
# needed, and null is no value: a node, edge, string, metadata or type line
# without one, or with null for it, is bad input naming the line, the record
# and the key (they were read as 0 before).
nt='{"record":"node_type","subtype":2,"name":"inst","table":"node_inst","fields":[]}'
et='{"record":"edge_type","subtype":1,"name":"f","label":"string"}'
core_fails() { # core_fails RECORD KEY WHAT LINE: LINE, after nt and et, lacks KEY
	decl_fails "$1 $3 \"$2\"" "\"$2\" is $3" "$nt" "$et" "$4"
	check "$1 $3 \"$2\": the record and the key named" \
		grep -q "^ndjson2heapdb: $t/decl.ndjson: offset [0-9]* (line 4, $1): \"$2\" is $3" "$t/err"
}
node='{"record":"node","identifier":5,"subtype":2,"dump":0,"class":7,"size":16,"heap":0}'
edge='{"record":"edge","subtype":1,"source":5,"dest":6,"label":3,"dump":0}'
str='{"record":"string","id":3,"data":"x"}'
meta='{"record":"metadata","key":"k","value":"v"}'
for key in identifier subtype dump class size heap; do
	core_fails node "$key" missing "$(echo "$node" | sed "s/,\"$key\":[0-9]*//")"
done
for key in subtype source dest label dump; do
	core_fails edge "$key" missing "$(echo "$edge" | sed "s/,\"$key\":[0-9]*//")"
done
for key in subtype class heap; do
	core_fails node "$key" 'null (a value is required)' "$(echo "$node" | sed "s/\"$key\":[0-9]*/\"$key\":null/")"
done
for key in label dump; do
	core_fails edge "$key" 'null (a value is required)' "$(echo "$edge" | sed "s/\"$key\":[0-9]*/\"$key\":null/")"
done
core_fails string id missing '{"record":"string","data":"x"}'
core_fails string data 'null (a value is required)' '{"record":"string","id":3,"data":null}'
core_fails metadata value missing '{"record":"metadata","key":"k"}'
core_fails metadata key 'null (a value is required)' '{"record":"metadata","key":null,"value":"v"}'
core_fails node_type table missing '{"record":"node_type","subtype":3,"name":"arr","fields":[]}'
core_fails node_type fields missing '{"record":"node_type","subtype":3,"name":"arr","table":"node_arr"}'
core_fails node_type subtype 'null (a value is required)' '{"record":"node_type","subtype":null,"name":"arr","table":"node_arr","fields":[]}'
core_fails edge_type label missing '{"record":"edge_type","subtype":2,"name":"g"}'
core_fails edge_type name 'null (a value is required)' '{"record":"edge_type","subtype":2,"name":null,"label":"none"}'
core_fails record_type fields 'null (a value is required)' '{"record":"record_type","name":"x.r","fields":null}'
# version_major is "1" in this version of the extensible heap-dump format; a
# later major version may change what any record means, so a stream or a
# database of another is refused (exit 1), naming it, by every reader.
printf '%s\n' '{"record":"metadata","key":"version_major","value":"2"}' "$nt" >"$t/v2.ndjson"
check "ndjson2heapdb refuses version_major 2" expect_rc 1 "$tools/ndjson2heapdb" "$t/v2.ndjson" "$t/v2.db"
check "saying so, at line 1" grep -qx "ndjson2heapdb: $t/v2.ndjson: offset 0 (line 1, metadata): version_major is \"2\": this reader knows version 1 of the extensible heap-dump format only" "$t/err"
check "and leaves no database" test ! -e "$t/v2.db"
if "$tools/hprof2heapdb" -q "$sample" "$t/v3.db" && sqlite3 "$t/v3.db" "UPDATE metadata SET value = '3' WHERE key = 'version_major'"; then
	for p in heapdb2ndjson heapdb2heapsnapshot; do
		check "$p refuses a database of version_major 3" expect_rc 1 "$tools/$p" "$t/v3.db" "$t/v3.out"
		check "$p: saying so" grep -qx "$p: $t/v3.db: version_major is \"3\": this reader knows version 1 of the extensible heap-dump format only" "$t/err"
		check "$p: no output left" test ! -e "$t/v3.out"
	done
	check "heapdb-analyze refuses it" expect_rc 1 "$tools/heapdb-analyze" "$t/v3.db"
	check "heapdb-analyze: saying so" grep -q "^heapdb-analyze: $t/v3.db: version_major is \"3\"" "$t/err"
	check "heapdiff refuses it" expect_rc 1 "$tools/heapdiff" "$sample" "$t/v3.db"
	check "heapdiff: saying so" grep -q "^heapdiff: $t/v3.db: version_major is \"3\"" "$t/err"
else
	check "a database to change the version of (hprof2heapdb, sqlite3)" false
fi
# Ids from 2^63 on, which SQLite holds as negative integers, come back in
# the canonical order of heapdb2ndjson as the unsigned numbers they are:
# after the others (strings, nodes and their subtype rows, edges).
M=9223372036854775808 L=18446744073709551615
{ echo '{"record":"metadata","key":"version_major","value":"1"}'
  echo '{"record":"node_type","subtype":2,"name":"inst","table":"node_inst","fields":[{"name":"text","type":"string_ref"}]}'
  echo '{"record":"node_type","subtype":3,"name":"arr","table":"node_arr","fields":[]}'
  echo '{"record":"edge_type","subtype":1,"name":"f","label":"string"}'
  echo "{\"record\":\"string\",\"id\":$L,\"data\":\"last\"}"
  echo '{"record":"string","id":7,"data":"seven"}'
  echo "{\"record\":\"string\",\"id\":$M,\"data\":\"half\"}"
  echo "{\"record\":\"node\",\"identifier\":$L,\"subtype\":2,\"dump\":0,\"class\":5,\"size\":16,\"heap\":0,\"text\":7}"
  echo "{\"record\":\"node\",\"identifier\":$M,\"subtype\":3,\"dump\":0,\"class\":5,\"size\":16,\"heap\":0}"
  echo "{\"record\":\"node\",\"identifier\":9223372036854775809,\"subtype\":2,\"dump\":0,\"class\":5,\"size\":16,\"heap\":0,\"text\":$L}"
  echo "{\"record\":\"node\",\"identifier\":5,\"subtype\":2,\"dump\":0,\"class\":5,\"size\":24,\"heap\":0,\"text\":$M}"
  echo '{"record":"node","identifier":6,"subtype":3,"dump":0,"class":5,"size":24,"heap":0}'
  echo "{\"record\":\"edge\",\"subtype\":1,\"source\":$L,\"dest\":5,\"label\":7,\"dump\":0}"
  echo "{\"record\":\"edge\",\"subtype\":1,\"source\":5,\"dest\":$L,\"label\":7,\"dump\":0}"
  echo "{\"record\":\"edge\",\"subtype\":1,\"source\":$M,\"dest\":6,\"label\":7,\"dump\":0}"
} >"$t/bigids.ndjson"
check "ids of 2^63 and more load" expect_rc 0 "$tools/ndjson2heapdb" "$t/bigids.ndjson" "$t/bigids.db"
check "and come back after the others, in unsigned order" expect_rc 0 "$tools/heapdb2ndjson" "$t/bigids.db" -
check "(strings, nodes with their fields, edges)" test "$(grep -v '_type"\|"metadata"' "$t/out" | sed 's/.*"\(id\|identifier\|source\)":\([0-9]*\).*"\(data\|text\|dest\|size\)":"*\([0-9a-z]*\).*/\2 \4/' | tr '\n' ' ')" = \
	"7 seven $M half $L last 5 $M 6 24 $M 16 9223372036854775809 $L $L 7 5 $L $M 6 $L 5 "
# The complete lines load (each key there once, none null).
printf '%s\n' "$nt" "$et" "$node" "$edge" "$str" "$meta" >"$t/core.ndjson"
check "the complete core records load" expect_rc 0 "$tools/ndjson2heapdb" "$t/core.ndjson" "$t/core.db"
check "with their values" test "$(sqlite3 "$t/core.db" 'SELECT identifier, class, size FROM node; SELECT label FROM edge')" = "5|7|16
3"
# The finding's own case: a real conversion's declarations, then a node
# without dump/class/size/heap: refused at that line, nothing left.
"$tools/hprof2ndjson" "$sample" | grep -v '"record":"\(node\|edge\|string\)"' >"$t/reald.ndjson"
nd=$(($(wc -l <"$t/reald.ndjson") + 1))
{ cat "$t/reald.ndjson"; echo '{"record":"node","identifier":5,"subtype":2}'; } >"$t/realn.ndjson"
check "a real stream's node without dump, class, size, heap" expect_rc 1 "$tools/ndjson2heapdb" "$t/realn.ndjson" "$t/realn.db"
check "is refused at its line, naming dump" grep -q "^ndjson2heapdb: $t/realn.ndjson: offset [0-9]* (line $nd, node): \"dump\" is missing\$" "$t/err"
check "(no database)" test ! -e "$t/realn.db"
# heapfmt.complete ends a stream (schema/README.md): records after it load,
# with a warning naming the first one's line and heapfmt.complete's, and
# not the warning of a stream cut short.
{ cat "$t/reald.ndjson"; echo; echo "$str"; } >"$t/after.ndjson"
check "records after heapfmt.complete" expect_rc 0 "$tools/ndjson2heapdb" "$t/after.ndjson" "$t/after.db"
check "are warned of, naming the lines" test "$(cat "$t/err")" = "ndjson2heapdb: $t/after.ndjson: warning: records from line $((nd + 1)) on follow heapfmt.complete (line $((nd - 1))), which ends a stream (were streams joined or lines appended?); the database holds them all"
check "and loaded" test "$(sqlite3 "$t/after.db" 'SELECT data FROM strings WHERE stringid = 3')" = x
# Joined streams, one cut short: each is told.  (A second stream's type
# declarations are refused as declared twice, so a stream of metadata only,
# as a writer cut short at its start leaves, stands for the one cut short.)
grep '"record":"metadata"' "$t/reald.ndjson" | grep -v '"heapfmt.complete"' >"$t/realcut.ndjson"
cat "$t/reald.ndjson" "$t/realcut.ndjson" >"$t/join1.ndjson"
check "a whole stream then one cut short" expect_rc 0 "$tools/ndjson2heapdb" "$t/join1.ndjson" "$t/join1.db"
check "are told: records after heapfmt.complete, and the end without it" test "$(cut -d: -f3- "$t/err")" = " warning: records from line $nd on follow heapfmt.complete (line $((nd - 1))), which ends a stream (were streams joined or lines appended?); the database holds them all
 warning: the records end without heapfmt.complete: the program that wrote them stopped early, and the database holds what it wrote"
cat "$t/realcut.ndjson" "$t/reald.ndjson" >"$t/join2.ndjson"
schema2=$(grep -n '"heapfmt.schema"' "$t/join2.ndjson" | sed -n 2p | cut -d: -f1)
check "a stream cut short then a whole one" expect_rc 0 "$tools/ndjson2heapdb" "$t/join2.ndjson" "$t/join2.db"
check "is told, naming the line where the next begins" test "$(cat "$t/err")" = "ndjson2heapdb: $t/join2.ndjson: warning: a stream ends without heapfmt.complete before line $schema2, where another begins (heapfmt.schema): the program that wrote it stopped early, and the database holds what it wrote"
cat "$t/reald.ndjson" "$t/reald.ndjson" >"$t/join3.ndjson"
check "two whole streams joined" expect_rc 1 "$tools/ndjson2heapdb" "$t/join3.ndjson" "$t/join3.db"
check "are refused at the second's declarations, saying so" grep -q "node subtype 1 is declared twice (a second stream began at line $((nd + 5)), heapfmt.schema: load each stream into a database of its own)\$" "$t/err"
# A table of 64 bytes, fields named like common keys in a record type, and
# the analysis of hprof2ndjson --analysis (table node_analysis) are fine.
{ echo "$rt\"a.bcdefghijbcdefghijbcdefghijbcdefghijbcdefghijbcdefghijbcdefghi\",\"fields\":[{\"name\":\"dump\",\"type\":\"int\"},{\"name\":\"size\",\"type\":\"int\"}]}"
  echo '{"record":"a.bcdefghijbcdefghijbcdefghijbcdefghijbcdefghijbcdefghijbcdefghi","dump":7,"size":8}'; } >"$t/ok.ndjson"
check "a table of 64 bytes, a record's fields named dump and size" expect_rc 0 "$tools/ndjson2heapdb" "$t/ok.ndjson" "$t/ok.db"
check "are written" test "$(sqlite3 "$t/ok.db" 'SELECT dump, size FROM a_bcdefghijbcdefghijbcdefghijbcdefghijbcdefghijbcdefghijbcdefghi')" = "7|8"
check "hprof2ndjson --analysis" expect_rc 0 "$tools/hprof2ndjson" --analysis "$sample" "$t/an.ndjson"
check "into a database" expect_rc 0 "$tools/ndjson2heapdb" "$t/an.ndjson" "$t/an.db"
check "with the analysis in node_analysis" test "$(sqlite3 "$t/an.db" 'SELECT count(*) FROM node_analysis')" = \
	"$(sqlite3 "$t/an.db" 'SELECT count(*) FROM node')"

# --ignore-unknown-keys drops the keys no declaration names and counts them
# in the metadata key heapdb.unknown_keys (none dropped: no key).
printf '%s\n' '{"record":"metadata","key":"version_major","value":"1","extra":1}' \
	'{"record":"record_type","name":"x.r","fields":[{"name":"v","type":"int","color":"red"}]}' \
	'{"record":"x.r","v":1,"w":2,"z":3}' >"$t/uk.ndjson"
check "keys no declaration names are bad input" expect_rc 1 "$tools/ndjson2heapdb" "$t/uk.ndjson" "$t/uk.db"
check "--ignore-unknown-keys drops them" expect_rc 0 "$tools/ndjson2heapdb" --ignore-unknown-keys "$t/uk.ndjson" "$t/uk.db"
check "and counts them in heapdb.unknown_keys" test \
	"$(sqlite3 "$t/uk.db" "SELECT value FROM metadata WHERE key = 'heapdb.unknown_keys'")" = 4
check "the records are kept" test "$(sqlite3 "$t/uk.db" 'SELECT v FROM x_r')" = 1
check "none dropped" expect_rc 0 "$tools/ndjson2heapdb" --ignore-unknown-keys "$t/ok.ndjson" "$t/ok2.db"
check "no heapdb.unknown_keys" test \
	"$(sqlite3 "$t/ok2.db" "SELECT count(*) FROM metadata WHERE key = 'heapdb.unknown_keys'")" = 0

# A real zero loses its sign in the database (SQLite keeps an integral REAL
# as an integer; documented in ndjson2heapdb(1)); other reals come back
# exactly, in the fewest digits that read back (0.1, not %.17g's
# 0.10000000000000001).
printf '%s\n' '{"record":"record_type","name":"x.f","fields":[{"name":"v","type":"real"}]}' \
	'{"record":"x.f","v":-0.0}' '{"record":"x.f","v":-2.25}' '{"record":"x.f","v":0.1}' >"$t/real.ndjson"
check "reals into a database" expect_rc 0 "$tools/ndjson2heapdb" "$t/real.ndjson" "$t/real.db"
check "and back: -0.0 as 0.0, the others as they were" test \
	"$("$tools/heapdb2ndjson" "$t/real.db" | grep '"record":"x.f"' | tr '\n' ' ')" = \
	'{"record":"x.f","v":0.0} {"record":"x.f","v":-2.25} {"record":"x.f","v":0.1} '
check "the man page says so" grep -q "sign of a real zero" "$(dirname "$0")/../man/ndjson2heapdb.1"
# Reals as Python's json.dumps writes them (positional from 1e-4 to below
# 1e16, else an exponent) in NDJSON of the canonical order: byte for byte.
printf '%s\n' '{"record":"metadata","key":"version_major","value":"1"}' \
	'{"record":"node_type","subtype":7,"name":"thing","table":"node_thing","fields":[{"name":"r","type":"real"}]}' >"$t/reals.ndjson"
i=0
for r in 0.1 -1.5e+300 5e-324 2.5 1e+16 100.0 0.0001 1e-05 0.30000000000000004 123456789012345.6 \
	1.7976931348623157e+308 -2.2250738585072014e-308 9999999999999998.0; do
	i=$((i + 1))
	printf '{"record":"node","identifier":%d,"subtype":7,"dump":0,"class":0,"size":1,"heap":0,"r":%s}\n' "$i" "$r" >>"$t/reals.ndjson"
done
check "Python's reals into a database" expect_rc 0 "$tools/ndjson2heapdb" "$t/reals.ndjson" "$t/reals.db"
check "and back, the same bytes" sh -c "'$tools/heapdb2ndjson' '$t/reals.db' - | cmp -s - '$t/reals.ndjson'"

# Reports on standard output that cannot be written (a full disk, a closed
# descriptor) are I/O errors, exit 3: help, version, batch summaries.
for p in hprof2ndjson hprof2heapdb ndjson2heapdb heapdb2ndjson heapdb-analyze heapdiff heapdb2heapsnapshot; do
	for o in --help --version; do
		if [ -w /dev/full ]; then
			check "$p $o to a full disk" expect_rc 3 sh -c "'$tools/$p' $o >/dev/full"
			check "$p $o: says so" grep -q "^$p: cannot write standard output: No space left on device" "$t/err"
		fi
		check "$p $o to a closed standard output" expect_rc 3 sh -c "'$tools/$p' $o >&-"
	done
done
if [ -w /dev/full ]; then
	check "a batch summary to a full disk" expect_rc 3 sh -c "'$tools/ndjson2heapdb' -o '$t/bf' '$t/uk.ndjson' '$t/ok.ndjson' --ignore-unknown-keys >/dev/full"
	check "still converts" test -s "$t/bf/uk.db" -a -s "$t/bf/ok.db"
fi
check "a batch summary to a closed standard output" expect_rc 3 sh -c "'$tools/ndjson2heapdb' -o '$t/bc' '$t/uk.ndjson' --ignore-unknown-keys >&-"
# (A reader of the summaries that went away ends the batch as SIGPIPE ends
# a single conversion, as the README says: it ran on and exited 0 before.)
check "a batch summary to a reader that went away" expect_rc 0 sh -c \
	"{ '$tools/ndjson2heapdb' -o '$t/bp' '$t/uk.ndjson' '$t/ok.ndjson' --ignore-unknown-keys; echo \$? >'$t/rc'; } | true"
check "ends the batch as killed by SIGPIPE" test "$(cat "$t/rc")" = 141

# Batch options without -o, and heapdb2ndjson without a database, are usage errors.
check "-j without -o is a usage error" expect_rc 2 "$tools/ndjson2heapdb" -j 2 "$t/uk.ndjson" "$t/j.db"
check "that says -o is needed" grep -q "^ndjson2heapdb: -j is for batch mode: it needs -o DIR" "$t/err"
check "--stats=json without -o is a usage error" expect_rc 2 "$tools/hprof2ndjson" --stats=json "$sample" "$t/j.ndjson"
check "and writes nothing" test ! -e "$t/j.db" -a ! -e "$t/j.ndjson"
check "heapdb2ndjson without arguments is a usage error" expect_rc 2 "$tools/heapdb2ndjson"
check "that asks for a database" grep -q "^heapdb2ndjson: needs a heap database" "$t/err"

# Batch mode: several inputs and -o DIR, a summary line per file in input
# order, carries on past a bad file, exit status of the first failure.
check "NDJSON needs -o for several inputs" expect_rc 2 "$tools/hprof2ndjson" "$sample" "$sample" "$sample"
cp "$sample" "$t/one.hprof.gz"
check "a batch with a bad file fails" expect_rc 1 "$tools/hprof2heapdb" -j 2 -o "$t/batch" "$t/one.hprof.gz" "$t/cut.hprof" "$t/nope.hprof"
check "a line per file in input order, then a total" sh -c "sed -n 1p '$t/out' | grep -q '^$t/one.hprof.gz: ok, [0-9]* records, .* -> $t/batch/one.db\$' &&
	sed -n 2p '$t/out' | grep -q '^$t/cut.hprof: failed (exit 1)' &&
	sed -n 3p '$t/out' | grep -q '^$t/nope.hprof: failed (exit 3)' &&
	sed -n 4p '$t/out' | grep -q '^3 files: 1 ok, 2 failed, 0 salvaged'"
check "the failures' errors are on stderr" sh -c "grep -q 'cut.hprof: offset' '$t/err' && grep -q nope.hprof '$t/err'"
check "only the good output is there" test "$(ls -a "$t/batch" | grep -v '^\.\.*$' | tr '\n' ' ')" = "one.db "
check "and it is a database" sh -c "head -c 15 '$t/batch/one.db' | grep -q 'SQLite format 3'"
check "an existing output fails that file without --force" expect_rc 3 "$tools/hprof2heapdb" -o "$t/batch" "$t/one.hprof.gz"
check "--stats=json: one JSON object per line" expect_rc 1 "$tools/hprof2ndjson" --stats=json -j1 -o "$t/nd" "$t/one.hprof.gz" "$t/cut.hprof"
check "which parse, with the right fields" python3 -c "
import json, sys
l = [json.loads(x) for x in open(sys.argv[1])]
assert len(l) == 3, l
assert l[0]['status'] == 'ok' and l[0]['exit'] == 0 and l[0]['records'] > 60000 and l[0]['output'].endswith('/one.ndjson')
assert l[1]['status'] == 'failed' and l[1]['exit'] == 1 and 'offset' in l[1]['error']
assert l[2]['total'] and l[2]['files'] == 2 and l[2]['ok'] == 1 and l[2]['failed'] == 1 and l[2]['exit'] == 1
" "$t/out"
check "batch NDJSON equals a single conversion" sh -c "SOURCE_DATE_EPOCH=1 '$tools/hprof2ndjson' '$sample' > '$t/single.ndjson' &&
	SOURCE_DATE_EPOCH=1 '$tools/hprof2ndjson' -o '$t/nd2' '$t/one.hprof.gz' >/dev/null &&
	sed 's|\"value\":\"[^\"]*sample.hprof.gz\"|F|' '$t/single.ndjson' > '$t/s1' &&
	sed 's|\"value\":\"[^\"]*one.hprof.gz\"|F|' '$t/nd2/one.ndjson' > '$t/s2' && cmp -s '$t/s1' '$t/s2'"
check "two inputs for one output is a usage error" expect_rc 2 "$tools/hprof2heapdb" -o "$t/b2" "$t/one.hprof.gz" "$sample/../one.hprof.gz"
check "a batch cannot read stdin" expect_rc 2 "$tools/hprof2heapdb" -o "$t/b3" -
check "-j needs a positive number" expect_rc 2 "$tools/hprof2heapdb" -j 0 -o "$t/b4" "$sample"


# The analysis: by default in hprof2heapdb, --no-analysis skips it,
# heapdb-analyze adds it to an existing database with the same result.
p=heapdb-analyze
check "$p --help" expect_rc 0 "$tools/$p" --help
check "$p --help shows usage and an example" grep -q "Examples:" "$t/out"
check "$p --version" expect_rc 0 "$tools/$p" --version
check "$p --version names heapfmt" grep -q "heapfmt" "$t/out"
check "$p unknown option is a usage error" expect_rc 2 "$tools/$p" --bogus "$t/s.db"
check "$p needs one argument" expect_rc 2 "$tools/$p"
check "$p missing database is an I/O error" expect_rc 3 "$tools/$p" "$t/nope.db"
check "$p: the error is one line" test "$(wc -l <"$t/err")" -le 2
check "$p on a file that is not a database" expect_rc 1 "$tools/$p" "$t/cut.hprof"
check "hprof2heapdb analyses by default" test "$(sqlite3 "$t/s.db" 'SELECT count(*) FROM node_analysis')" = \
	"$(sqlite3 "$t/s.db" 'SELECT count(*) FROM node')"
check "--no-analysis" expect_rc 0 "$tools/hprof2heapdb" --no-analysis "$sample" "$t/n.db"
check "--no-analysis writes no node_analysis" test "$(sqlite3 "$t/n.db" \
	"SELECT count(*) FROM sqlite_master WHERE name LIKE '%analysis%'")" = 0
check "heapdb-analyze" expect_rc 0 "$tools/$p" --stats "$t/n.db"
check "--stats prints the counts" grep -q "^reachable=[1-9]" "$t/out"
v8snap="$(dirname "$sample")/../v8/small.heapsnapshot"
if [ -f "$v8snap" ]; then
	check "a V8 snapshot's database" expect_rc 0 "$tools/heapsnapshot2heapdb" "$v8snap" "$t/v8.db"
	check "is not analysed (exit 1)" expect_rc 1 "$tools/$p" "$t/v8.db"
	check "saying what it is" grep -q "^$p: $t/v8.db: a database of a V8 heap snapshot, not of an HPROF dump: the analysis needs the dump's GC roots" "$t/err"
fi
if [ -w /dev/full ]; then
	check "--stats to a full disk is an I/O error" expect_rc 3 sh -c "'$tools/$p' --stats '$t/n.db' >/dev/full"
	check "which says so" grep -q "^$p: cannot write standard output: No space left" "$t/err"
fi
check "--stats to a closed standard output is an I/O error" expect_rc 3 sh -c "'$tools/$p' --stats '$t/n.db' >&-"
check "heapdb-analyze gives what hprof2heapdb gave" test \
	"$(sqlite3 "$t/s.db" 'SELECT * FROM node_analysis; SELECT * FROM dump_analysis' | md5sum)" = \
	"$(sqlite3 "$t/n.db" 'SELECT * FROM node_analysis; SELECT * FROM dump_analysis' | md5sum)"
check "--analysis-memory takes MiB" expect_rc 2 "$tools/$p" --analysis-memory=lots "$t/n.db"
check "--analysis-memory=0 (all in memory)" expect_rc 0 "$tools/$p" --analysis-memory=0 "$t/n.db"
check "gives the same rows" test \
	"$(sqlite3 "$t/s.db" 'SELECT * FROM node_analysis; SELECT * FROM dump_analysis' | md5sum)" = \
	"$(sqlite3 "$t/n.db" 'SELECT * FROM node_analysis; SELECT * FROM dump_analysis' | md5sum)"
check "hprof2heapdb --analysis-memory=1" expect_rc 0 "$tools/hprof2heapdb" --analysis-memory=1 \
	"$sample" "$t/m1.db"
check "gives the same rows" test \
	"$(sqlite3 "$t/s.db" 'SELECT * FROM node_analysis; SELECT * FROM dump_analysis' | md5sum)" = \
	"$(sqlite3 "$t/m1.db" 'SELECT * FROM node_analysis; SELECT * FROM dump_analysis' | md5sum)"
check "heapdb-analyze again replaces the analysis" expect_rc 0 "$tools/$p" "$t/n.db"
check "with the same rows" test "$(sqlite3 "$t/n.db" 'SELECT count(*) FROM node_analysis')" = \
	"$(sqlite3 "$t/s.db" 'SELECT count(*) FROM node')"
check "hprof2ndjson --analysis into ndjson2heapdb" sh -c \
	"'$tools/hprof2ndjson' --analysis '$sample' - | '$tools/ndjson2heapdb' - '$t/na.db'"
check "gives hprof2heapdb's node_analysis and dump_analysis" test \
	"$(sqlite3 "$t/s.db" 'SELECT * FROM node_analysis; SELECT * FROM dump_analysis' | md5sum)" = \
	"$(sqlite3 "$t/na.db" 'SELECT * FROM node_analysis; SELECT * FROM dump_analysis' | md5sum)"
check "not a record table" test "$(sqlite3 "$t/na.db" \
	"SELECT count(*) FROM record_types WHERE table_name = 'node_analysis'")" = 0
check "a DDM database has no GC roots" sh -c "sqlite3 '$t/d.db' 'CREATE TABLE node(x); CREATE TABLE edge(y)'"
check "heapdb-analyze refuses it (exit 1)" expect_rc 1 "$tools/$p" "$t/d.db"
check "the error names what is missing" grep -q "hprof_gc_root" "$t/err"
check "and the database" grep -q "$t/d.db" "$t/err"
check "standard input is a usage error" expect_rc 2 "$tools/$p" -
check "a database that is not there is named with the cause" expect_rc 3 "$tools/$p" "$t/absent.db"
check "(as other programs say it)" grep -q "cannot open $t/absent.db: No such file or directory" "$t/err"

# heapdb-analyze stopped in the middle of its write: the database is as it
# was, readable by the programs that open it read-only (the killed writer's
# hot journal made them fail, "attempt to write a readonly database"). A
# chain of 400,000 objects, whose analysis writes more pages than SQLite's
# cache holds, so that the file itself is written before the commit.
python3 - "$t/chain.hprof" 400000 <<'PY'
import struct, sys
n = int(sys.argv[2])
out = bytearray(b"JAVA PROFILE 1.0.2\0" + struct.pack(">IQ", 4, 0))
def rec(tag, body):
    out.extend(struct.pack(">BII", tag, 0, len(body)) + body)
for i, name in ((1, b"java/lang/Object"), (2, b"Node"), (3, b"next")):
    rec(0x01, struct.pack(">I", i) + name)
rec(0x02, struct.pack(">IIII", 1, 0x100, 0, 1))
rec(0x02, struct.pack(">IIII", 2, 0x200, 0, 2))
seg = bytearray()
for cid, sup, size, fields in ((0x100, 0, 0, []), (0x200, 0x100, 4, [(3, 2)])):
    seg.extend(struct.pack(">BIIIIIIIIIHHH", 0x20, cid, 0, sup, 0, 0, 0, 0, 0, size, 0, 0, len(fields)))
    for name, ty in fields:
        seg.extend(struct.pack(">IB", name, ty))
seg.extend(struct.pack(">BII", 0x01, 0x1000, 1))  # ROOT JNI GLOBAL: the chain's head
for i in range(n):
    seg.extend(struct.pack(">BIIIII", 0x21, 0x1000 + 8 * i, 0, 0x200, 4, 0x1000 + 8 * (i + 1) if i + 1 < n else 0))
rec(0x1C, bytes(seg))
rec(0x2C, b"")
open(sys.argv[1], "wb").write(out)
PY
"$tools/hprof2heapdb" -q --no-analysis "$t/chain.hprof" "$t/chain0.db"
# stop_mid_write DB SIGNAL WHOM: once DB's file has been written to, stops
# the process heapdb-analyze analyses in (SIGSTOP), checks that its journal
# is there (the write is in its transaction: the commit deletes it), signals
# heapdb-analyze (WHOM=parent) or that process (child), and lets it go on.
# Its exit status; 99 when the moment was missed (the test then proves
# nothing, and fails).
stop_mid_write() {
	python3 - "$tools/heapdb-analyze" "$@" <<'PY'
import os, signal, subprocess, sys, time
prog, db, sig, whom = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
m0 = os.stat(db).st_mtime_ns
p = subprocess.Popen([prog, db], stderr=open(os.path.dirname(db) + "/err", "w"),
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
child = None
while child is None and p.poll() is None:
    for d in os.listdir("/proc"):
        try:
            if d.isdigit() and open("/proc/%s/stat" % d).read().rsplit(")", 1)[1].split()[1] == str(p.pid):
                child = int(d)
        except OSError:
            pass
while p.poll() is None and os.stat(db).st_mtime_ns == m0:
    time.sleep(0.0005)
if child is None or p.poll() is not None:
    sys.exit(99)
os.kill(child, signal.SIGSTOP)
j = db + "-journal"
if not (os.path.exists(j) and os.path.getsize(j) > 0):
    os.kill(child, signal.SIGCONT)
    p.wait()
    sys.exit(99)
os.kill(p.pid if whom == "parent" else child, sig)
time.sleep(0.05)
try:
    os.kill(child, signal.SIGCONT)
except ProcessLookupError:
    pass
rc = p.wait()
sys.exit(128 - rc if rc < 0 else rc)
PY
}
for sig in 15 2; do
	cp "$t/chain0.db" "$t/chain.db"
	check "heapdb-analyze stopped by signal $sig in its write ends as killed by it" test "$(stop_mid_write "$t/chain.db" $sig parent; echo $?)" = $((128 + sig))
	check "leaves no journal" test ! -e "$t/chain.db-journal"
	check "and the database as it was, byte for byte" cmp -s "$t/chain.db" "$t/chain0.db"
	check "which heapdb2ndjson reads" expect_rc 0 "$tools/heapdb2ndjson" "$t/chain.db" /dev/null
done
# Stopped as soon as its journal is there: SQLite writes the journal's
# header (its magic number) only when it syncs it, before the first change to
# the database, so a write cut earlier leaves a journal that SQLite neither
# plays back nor deletes (left beside the database before; helper 50).
cp "$t/chain0.db" "$t/chain.db"
check "heapdb-analyze stopped by SIGTERM when its journal appears: exit 143" test "$(python3 - "$tools/heapdb-analyze" "$t/chain.db" <<'PY'
import os, signal, subprocess, sys, time
prog, db = sys.argv[1], sys.argv[2]
p = subprocess.Popen([prog, db], stderr=subprocess.DEVNULL)
while p.poll() is None and not os.path.exists(db + "-journal"):
    time.sleep(0.0002)
p.send_signal(signal.SIGTERM)
rc = p.wait()
print(128 - rc if rc < 0 else rc)
PY
)" = 143
check "leaves no journal" test ! -e "$t/chain.db-journal"
check "and the database as it was" cmp -s "$t/chain.db" "$t/chain0.db"
cp "$t/chain0.db" "$t/chain.db"
check "its analysing process killed (SIGKILL, as the OOM killer does): exit 3" test "$(stop_mid_write "$t/chain.db" 9 child; echo $?)" = 3
check "saying so" grep -q "the analysis was killed by signal 9 (SIGKILL); what it had not committed was rolled back" "$t/err"
check "the database as it was" cmp -s "$t/chain.db" "$t/chain0.db"
check "and analysed when run again" expect_rc 0 "$tools/heapdb-analyze" --stats "$t/chain.db"
check "(the chain's 400,000 objects and its two classes reachable, the last 399,999 from the root)" sh -c \
	"grep -qx 'reachable=400002' '$t/out' && grep -qx 'max_distance=399999' '$t/out'"
check "heapdb-analyze started with SIGCHLD ignored (as some supervisors do) still waits for its analysis" \
	expect_rc 0 python3 -c "import os, signal, sys; signal.signal(signal.SIGCHLD, signal.SIG_IGN); os.execv(sys.argv[1], sys.argv[1:])" \
	"$tools/heapdb-analyze" --stats "$t/chain0.db"
check "(and prints what it found)" grep -qx 'reachable=400002' "$t/out"

# A write cut by SIGKILL (of heapdb-analyze itself, or of any SQLite writer)
# leaves a hot journal that only an opening for writing rolls back: the
# read-only programs say so and how, and heapdb-analyze's opening does it.
cp "$t/chain0.db" "$t/hot2.db"
python3 - "$t/hot2.db" <<'PY'
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA cache_size=1")
db.execute("BEGIN")
db.execute("UPDATE node SET size = size + 1")
os._exit(0)
PY
for c in "heapdb2ndjson - /dev/null" "heapdb2heapsnapshot - /dev/null" "heapdiff - $t/chain0.db"; do
	set -- $c
	prog=$1; shift
	args=$(echo "$*" | sed "s|^-|$t/hot2.db|")
	check "$prog of a database with a hot journal: exit 3" expect_rc 3 "$tools/$prog" $args
	check "saying why and what to do" grep -q "a write to it was cut short and left its rollback journal beside it: open it once for writing" "$t/err"
done
check "heapdb-analyze rolls it back and analyses" expect_rc 0 "$tools/heapdb-analyze" "$t/hot2.db"
check "after which it reads, every size as it was" test "$("$tools/heapdb2ndjson" "$t/hot2.db" | grep -c '"subtype":2,"dump":0,"class":512,"size":16,')" = 400000

# A damaged database (cut short) is bad input, exit 1, for every reader of one.
head -c 65536 "$t/s.db" >"$t/cutdb.db"
for c in "heapdb-analyze" "heapdb2ndjson - -" "heapdb2heapsnapshot - /dev/null" "heapdiff - $t/s.db"; do
	set -- $c
	prog=$1; shift
	cp "$t/cutdb.db" "$t/cutdb2.db"
	args=$(echo "$*" | sed "s|^-|$t/cutdb2.db|")
	check "$prog of a damaged database exits 1" expect_rc 1 "$tools/$prog" ${args:-"$t/cutdb2.db"}
done
# heapdiff takes a dump from standard input too.
check "heapdiff - (a dump on standard input)" expect_rc 0 sh -c "gzip -dc '$sample' | '$tools/heapdiff' - '$t/s.db'"
check "finds no difference" grep -q "(+0)" "$t/out"
# A database on standard input is a usage error, as for the other readers of
# databases (it read as a dump that would not parse, exit 1, before).
check "heapdiff of a database on standard input: a usage error" expect_rc 2 sh -c "'$tools/heapdiff' - '$t/s.db' < '$t/s.db'"
check "that says to name the file" grep -q "^heapdiff: -: a heap database cannot be read from standard input or a pipe; name the file" "$t/err"
check "through a pipe as well" expect_rc 2 sh -c "cat '$t/s.db' | '$tools/heapdiff' '$t/s.db' -"

# Inputs of many heap series or types: each is found by its key, not by a
# search through all of them, which took time in the square of their count
# (80,000 HPST chunks, 960 KB, took 13 s; 40,000 edge types 13 s). The
# counts here take seconds that way under the sanitizers, a fraction of one
# now; what is checked is the records, in the order the list gave them.
python3 -c "
import struct, sys
n = 60000
out = bytearray()
def ch(t, p): out.extend(t + struct.pack('>I', len(p)) + p)
for i in range(n): ch(b'HPST', struct.pack('>I', i))
ch(b'HPSG', struct.pack('>IBIII', 5, 8, 0x1000, 0, 1) + bytes([1, 0]))
ch(b'HPSG', struct.pack('>IBIII', n + 7, 8, 0x2000, 0, 1) + bytes([1, 0]))
for i in range(0, n, 2): ch(b'HPEN', struct.pack('>I', i))
ch(b'HPST', struct.pack('>I', 1))
ch(b'NHST', struct.pack('>I', 3))
sys.stdout.buffer.write(out)" >"$t/series.bin"
check "hpsg2ndjson of 60,000 heap series" expect_rc 0 "$tools/hpsg2ndjson" "$t/series.bin" "$t/series.ndjson"
check "writes each series once, in the order the list kept" python3 -c "
import json, sys
n = 60000
got = [(r['dump'], r['heap'], r['native'], r['complete'], r.get('segments'))
       for r in map(json.loads, open(sys.argv[1])) if r['record'] == 'ddm.heap_dump']
want = [(i, i, 0, 1, 0) for i in range(0, n, 2)]             # HPEN, in the input's order
want += [(1, 1, 0, 0, 0)]                                    # heap 1 started again
# Open at the end, in the order they opened: a segment outside a series opens one.
want += [(i, i, 0, 0, 1 if i == 5 else 0) for i in range(3, n, 2)]
want += [(n, n + 7, 0, 0, 1), (n + 1, 1, 0, 0, 0), (n + 2, 3, 1, 0, 0)]
sys.exit(got != want)" "$t/series.ndjson"

# 20,000 edge types, edges of the first and the last in turn, 500 record
# types with a record of each: ndjson2heapdb, and heapdb2ndjson back.
python3 -c "
n, e, r = 20000, 100000, 500
print('{\"record\":\"metadata\",\"key\":\"version_major\",\"value\":\"1\"}')
print('{\"record\":\"node_type\",\"subtype\":1,\"name\":\"t\",\"table\":\"node_t\",\"fields\":[]}')
for i in range(n): print('{\"record\":\"edge_type\",\"subtype\":%d,\"name\":\"e%d\",\"label\":\"none\"}' % (i, i))
for i in range(r): print('{\"record\":\"record_type\",\"name\":\"r%d\",\"fields\":[{\"name\":\"v\",\"type\":\"int\",\"indexed\":true}]}' % i)
for i in range(e): print('{\"record\":\"edge\",\"subtype\":%d,\"source\":%d,\"dest\":2,\"label\":0,\"dump\":0}' % (n - 1 if i % 2 else 0, i))
print('{\"record\":\"node\",\"identifier\":1,\"subtype\":1,\"dump\":0,\"class\":0,\"size\":0,\"heap\":0}')
for i in range(r): print('{\"record\":\"r%d\",\"v\":%d}' % (r - 1 - i, i))
" >"$t/types.ndjson"
check "ndjson2heapdb of 20,000 edge types and 500 record types" expect_rc 0 "$tools/ndjson2heapdb" "$t/types.ndjson" "$t/types.db"
check "heapdb2ndjson of it" expect_rc 0 "$tools/heapdb2ndjson" "$t/types.db" "$t/types2.ndjson"
check "gives the edges their types and the records theirs" python3 -c "
import json, sys
from collections import Counter
recs = [json.loads(l) for l in open(sys.argv[1])]
edges = Counter(x['subtype'] for x in recs if x['record'] == 'edge')
vals = {x['record']: x['v'] for x in recs if x['record'].startswith('r') and x['record'][1:].isdigit()}
ok = edges == {0: 50000, 19999: 50000} and vals == {'r%d' % (499 - i): i for i in range(500)}
ok = ok and sum(x['record'] == 'edge_type' for x in recs) == 20000
sys.exit(not ok)" "$t/types2.ndjson"
# The names a declaration takes are compared ignoring case, fields among
# themselves and tables and indexes with all earlier ones'.
python3 -c "
n = 30000
print('{\"record\":\"node_type\",\"subtype\":1,\"name\":\"t\",\"table\":\"node_t\",\"fields\":[%s]}' % ','.join(
    '{\"name\":\"%s\",\"type\":\"int\"}' % ('F7' if i == n - 1 else 'f%d' % i) for i in range(n)))" >"$t/fields.ndjson"
check "a field declared twice among 30,000" expect_rc 1 "$tools/ndjson2heapdb" "$t/fields.ndjson" "$t/fields.db"
check "is named" grep -q 'field "F7" is declared twice (names are compared ignoring case)' "$t/err"
printf '%s\n' '{"record":"node_type","subtype":1,"name":"t","table":"node_t","fields":[{"name":"a","type":"int"},{"name":"b","type":"int"},{"name":"A","type":"int"},{"name":"c","type":"nope"},{"name":"B","type":"int"}]}' >"$t/fields2.ndjson"
check "the first twice before a later field's error" expect_rc 1 "$tools/ndjson2heapdb" "$t/fields2.ndjson" "$t/fields2.db"
check "(A, not the kind of c)" grep -q 'field "A" is declared twice' "$t/err"
printf '%s\n' '{"record":"node_type","subtype":1,"name":"t","table":"node_t","fields":[{"name":"a","type":"int"},{"name":"c","type":"nope"},{"name":"A","type":"int"}]}' >"$t/fields3.ndjson"
check "a field's error before a later field twice" expect_rc 1 "$tools/ndjson2heapdb" "$t/fields3.ndjson" "$t/fields3.db"
check "(the kind of c)" grep -q 'field "c": kind "nope" is not known' "$t/err"
python3 -c "
for i in range(1000): print('{\"record\":\"record_type\",\"name\":\"r%d\",\"table\":\"T%d\",\"fields\":[]}' % (i, i))
print('{\"record\":\"record_type\",\"name\":\"x\",\"table\":\"t999\",\"fields\":[]}')" >"$t/tables.ndjson"
check "a table name taken among 1,000" expect_rc 1 "$tools/ndjson2heapdb" "$t/tables.ndjson" "$t/tables.db"
check "is named with its owner" grep -q 'table name "t999" is taken by the table "T999" of type "r999"' "$t/err"
# 20,000 indexed fields: as many index names taken, each checked against
# the others, then refused at the column limit SQLite allows a table.
python3 -c "
print('{\"record\":\"record_type\",\"name\":\"r\",\"fields\":[%s]}' % ','.join(
    '{\"name\":\"f%d\",\"type\":\"int\",\"indexed\":true}' % i for i in range(20000)))" >"$t/indexes.ndjson"
check "a record type of 20,000 indexed fields" expect_rc 1 "$tools/ndjson2heapdb" "$t/indexes.ndjson" "$t/indexes.db"
check "is refused at SQLite's column limit" grep -q 'type r: 20000 fields, more than a table holds (2000)' "$t/err"
# A 4097th node or record type is refused: SQLite's time to create a table
# grows with the tables there are.
python3 -c "
for i in range(4097): print('{\"record\":\"record_type\",\"name\":\"x.t%d\",\"table\":\"t%d\",\"fields\":[]}' % (i, i))" >"$t/many4097.ndjson"
check "4097 record types" expect_rc 1 "$tools/ndjson2heapdb" "$t/many4097.ndjson" "$t/many4097.db"
check "are one too many" grep -q 'type x.t4096: more than 4096 node and record types, each a table' "$t/err"
# An output path that is a symbolic link: the file it leads to is replaced
# (keeping its permissions), the link stays; a descriptor's name
# (/dev/stdout, /dev/fd/N) is written through the descriptor as the shell
# opened it (appending, with >>), not replaced by a file (as root, a rename
# over /dev/stdout would have replaced the link in /dev).
mkdir "$t/real"
ln -s real/x.ndjson "$t/link.ndjson"
check "an NDJSON output through a dangling link" expect_rc 0 "$tools/hprof2ndjson" "$sample" "$t/link.ndjson"
check "creates the file it names" sh -c "test -L '$t/link.ndjson' && test -s '$t/real/x.ndjson'"
chmod 600 "$t/real/x.ndjson"
check "again, over that file" expect_rc 0 "$tools/hprof2ndjson" "$sample" "$t/link.ndjson"
check "which keeps its link and its permissions" sh -c "test -L '$t/link.ndjson' && test \"\$(stat -c %a '$t/real/x.ndjson')\" = 600"
ln -s real/x.db "$t/link.db"
check "a database through a link" expect_rc 0 "$tools/hprof2heapdb" "$sample" "$t/link.db"
check "is not replaced without --force" expect_rc 3 "$tools/hprof2heapdb" "$sample" "$t/link.db"
chmod 640 "$t/real/x.db"
check "with it" expect_rc 0 "$tools/hprof2heapdb" -f "$sample" "$t/link.db"
check "keeps the link and the permissions" sh -c "test -L '$t/link.db' && test \"\$(stat -c %a '$t/real/x.db')\" = 640"
check "a database to /dev/stdout is refused" expect_rc 3 "$tools/hprof2heapdb" -f "$sample" /dev/stdout
# (stdout a regular file there, $t/out): the reason is the descriptor, which
# has no path for the database to be renamed onto, not the file's kind.
desc_msg='a database cannot be written to %s (it names a descriptor, and a database is built under a temporary name and renamed): name the file'
check "saying a descriptor cannot take a database" test "$(cat "$t/err")" = "hprof2heapdb: $(printf "$desc_msg" /dev/stdout)"
check "and nothing written to standard output" test ! -s "$t/out"
for fdp in /dev/fd/1 /proc/self/fd/1; do # (not $d: check's own)
	check "a database to $fdp" expect_rc 3 "$tools/ndjson2heapdb" -f "$t/core.ndjson" "$fdp"
	check "(the same reason)" test "$(cat "$t/err")" = "ndjson2heapdb: $(printf "$desc_msg" "$fdp")"
done
check "a database to /dev/null" expect_rc 3 "$tools/hprof2heapdb" -f "$sample" /dev/null
check "is not a regular file" test "$(cat "$t/err")" = "hprof2heapdb: /dev/null is not a regular file; a database must be written to one"
grep -v crtime "$t/real/x.ndjson" >"$t/real/x.nocrtime"
echo first >"$t/app.ndjson"
check "NDJSON to /dev/stdout appended by the shell" expect_rc 0 sh -c "'$tools/hprof2ndjson' '$sample' /dev/stdout >>'$t/app.ndjson'"
check "comes after what was there" sh -c "head -1 '$t/app.ndjson' | grep -qx first && test \$(wc -l <'$t/app.ndjson') -gt 1000"
check "and to /dev/fd/1 through a pipe" sh -c "'$tools/hprof2ndjson' '$sample' /dev/fd/1 | grep -v crtime | cmp -s - '$t/real/x.nocrtime'"
check "a descriptor not open" expect_rc 3 "$tools/hprof2ndjson" "$sample" /dev/fd/9
check "is named" grep -q "cannot open /dev/fd/9: Bad file descriptor" "$t/err"
check "a snapshot through a link" expect_rc 0 sh -c "ln -s real/y.heapsnapshot '$t/link.heapsnapshot' && '$tools/heapdb2heapsnapshot' '$t/real/x.db' '$t/link.heapsnapshot' && test -L '$t/link.heapsnapshot' && test -s '$t/real/y.heapsnapshot'"
check "a directory given as the database" expect_rc 3 "$tools/heapdb2heapsnapshot" "$t/real" "$t/dir.heapsnapshot"
check "is named so" grep -q "it is a directory" "$t/err"

# A file of another format is named, with the programs that read it (each
# reader checks the first bytes before it reads them as its own).
gzip -dc "$sample" >"$t/kind.hprof"
"$tools/hprof2ndjson" "$t/kind.hprof" "$t/kind.ndjson" 2>/dev/null
"$tools/hprof2heapdb" "$t/kind.hprof" "$t/kind.db" 2>/dev/null
printf '{"snapshot":{"meta":{}}}' >"$t/kind.heapsnapshot"
for c in "alloc2ndjson kind.hprof an HPROF heap dump" "hpsg2ndjson kind.hprof an HPROF heap dump" \
	"ndjson2heapdb kind.heapsnapshot a V8 heap snapshot" "heapsnapshot2ndjson kind.ndjson NDJSON of the heap-dump format" \
	"hprof2ndjson kind.db an SQLite database" "heapdb2ndjson kind.hprof an HPROF heap dump" \
	"heapdb-analyze kind.ndjson NDJSON of the heap-dump format"; do
	set -- $c
	p=$1 f=$2
	shift 2
	if [ "$p" = heapdb-analyze ]; then
		check "$p given $f" expect_rc 1 "$tools/$p" "$t/$f"
	else
		check "$p given $f" expect_rc 1 "$tools/$p" "$t/$f" "$t/kind-out.x"
	fi
	check "names it: $*" grep -q "it is $*" "$t/err"
	check "in one line" test "$(wc -l <"$t/err")" = 1
done

# Standard input at a terminal (no input named): a usage error at once, not
# a wait for a dump typed in.
if command -v script >/dev/null 2>&1; then
	check "a converter reading a terminal" sh -c "script -qec '$tools/hprof2ndjson' /dev/null </dev/null >'$t/tty.out' 2>&1; test \$? = 2"
	check "says so" grep -q "standard input is a terminal" "$t/tty.out"
	# After the input is read, a database's indexes and analysis are not
	# counted: the indicator says what runs instead of standing at 100%.
	check "hprof2heapdb on a terminal" sh -c "script -qec \"stty cols 200; '$tools/hprof2heapdb' --progress -f '$sample' '$t/tty.db'\" /dev/null </dev/null >'$t/tty.out' 2>&1"
	check "names the indexes and the analysis" grep -q "100% .*; building the indexes, then the analysis" "$t/tty.out"
	# Narrower than the line and its seconds: the line would wrap, and each
	# redraw leave a row behind; what runs now is kept.
	check "on a narrow terminal" sh -c "script -qec \"stty cols 72; '$tools/hprof2heapdb' --progress -f '$sample' '$t/tty.db'\" /dev/null </dev/null >'$t/tty.out' 2>&1"
	check "the line fits" sh -c "tr '\\r' '\\n' <'$t/tty.out' | grep -q '^hprof2heapdb: building the indexes, then the analysis'"
	check "heapdb-analyze on a terminal" sh -c "script -qec \"'$tools/heapdb-analyze' --progress '$t/tty.db'\" /dev/null </dev/null >'$t/tty.out' 2>&1"
	check "says that it analyses" grep -q "heapdb-analyze: analysing" "$t/tty.out"
fi
check "heapdb-analyze -q" expect_rc 0 "$tools/heapdb-analyze" -q "$t/kind.db"
check "heapdb-analyze --progress to a log" expect_rc 0 "$tools/heapdb-analyze" --progress "$t/kind.db"
check "writes the end's line" grep -qx "heapdb-analyze: done" "$t/err"

echo "test_cli: $fails failed"
[ "$fails" = 0 ]
