#!/bin/sh
# Command-line manners of alloc2ndjson, alloc2heapdb, hpsg2ndjson and
# hpsg2heapdb: --help with an example, --version, exit codes, '-' for stdin
# and stdout, an existing database kept without --force, option values.
# Usage: cli.sh TOOLS_DIR DDMGEN DESC_DIR
set -u
tools=$1 gen=$2 descs=$3
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fails=0
check() { d=$1; shift; if "$@"; then :; else echo "FAIL: $d"; fails=$((fails + 1)); fi; }
expect_rc() {
	want=$1; shift
	"$@" >"$t/out" 2>"$t/err"
	got=$?
	[ "$got" = "$want" ] || { echo "  exit $got, expected $want: $*"; cat "$t/err"; return 1; }
}
"$gen" "$descs/alloc-art.desc" "$t/a.alloc" || exit 1
"$gen" "$descs/stream-chunks.desc" "$t/s.bin" || exit 1
for p in alloc2ndjson alloc2heapdb hpsg2ndjson hpsg2heapdb; do
	check "$p --help" expect_rc 0 "$tools/$p" --help
	check "$p --help has examples" grep -q "Examples:" "$t/out"
	check "$p --version" expect_rc 0 "$tools/$p" --version
	check "$p --version names heapfmt" grep -q heapfmt "$t/out"
	check "$p unknown option" expect_rc 2 "$tools/$p" --bogus
	check "$p bad --order" expect_rc 2 "$tools/$p" --order=sideways "$t/a.alloc" "$t/x"
	check "$p missing input" expect_rc 3 "$tools/$p" "$t/nope" "$t/x.db"
	check "$p: one error line" test "$(wc -l <"$t/err")" -le 2
done
check "hpsg2ndjson bad --payload" expect_rc 2 "$tools/hpsg2ndjson" --payload=TOOLONG "$t/s.bin"
check "hpsg2ndjson bad --shape" expect_rc 2 "$tools/hpsg2ndjson" --shape=round "$t/s.bin"
# --payload: any case; with --shape=jdwp|chunks a usage error; a value
# option given last without its value says so.
"$gen" "$descs/stream-payload.desc" "$t/p.bin" || exit 1
check "--payload=hpso is HPSO" sh -c "'$tools/hpsg2ndjson' --payload=hpso '$t/p.bin' | grep -c '\"record\":\"ddm.heap_run\"' | grep -qx 3"
check "with object boundaries" sh -c "'$tools/hpsg2ndjson' --payload=hpso '$t/p.bin' | grep '\"record\":\"ddm.heap_run\"' | grep -c '\"object_boundary\":1' | grep -qx 3"
check "--shape=chunks --payload=HPSO conflict" expect_rc 2 "$tools/hpsg2ndjson" --shape=chunks --payload=HPSO "$t/p.bin" "$t/x.nd"
check "the message names both" grep -q -- "--payload.*conflicts with --shape=chunks" "$t/err"
check "--payload=HPSO --shape=jdwp conflict" expect_rc 2 "$tools/hpsg2heapdb" --payload=HPSO --shape=jdwp "$t/p.bin" "$t/x.db"
check "--shape=payload --payload=HPSO agree" expect_rc 0 "$tools/hpsg2ndjson" --shape=payload --payload=HPSO "$t/p.bin" "$t/x.nd"
for p in alloc2ndjson hpsg2ndjson; do
	check "$p --order last without a value" expect_rc 2 "$tools/$p" "$t/a.alloc" --order
	check "$p says it needs a value" grep -q -- "--order needs a value" "$t/err"
done
# A type that is not decoded would give an output with nothing of the
# input in it: a usage error that names the type.
check "--payload=ABCD is not decoded" expect_rc 2 "$tools/hpsg2ndjson" --payload=ABCD "$t/p.bin" "$t/never.nd"
check "the message names it" grep -q -- "--payload=ABCD: heapfmt does not decode ABCD chunks" "$t/err"
check "no output left" test ! -e "$t/never.nd"
check "--payload=hpgc (known, skipped) too" expect_rc 2 "$tools/hpsg2heapdb" --payload=hpgc "$t/p.bin" "$t/x.db"
check "--payload=zlib is read" expect_rc 1 "$tools/hpsg2ndjson" --payload=zlib "$t/p.bin" "$t/x.nd"
check "--payload last without a value" expect_rc 2 "$tools/hpsg2ndjson" "$t/p.bin" --payload
check "says it needs a value" grep -q -- "--payload needs a value" "$t/err"
check "alloc2heapdb needs two arguments" expect_rc 2 "$tools/alloc2heapdb" "$t/a.alloc"
check "alloc2heapdb refuses stdout" expect_rc 2 "$tools/alloc2heapdb" "$t/a.alloc" -
check "stdin to stdout" expect_rc 0 sh -c "'$tools/alloc2ndjson' - < '$t/a.alloc' > '$t/a.nd'"
check "quiet when piped" test ! -s "$t/err"
check "first line is version_major" sh -c "head -1 '$t/a.nd' | grep -q '\"key\":\"version_major\"'"
check "--order=oldest-first is taken" sh -c "'$tools/alloc2ndjson' --order oldest-first '$t/a.alloc' | grep -q '\"order\":\"oldest-first\",\"order_basis\":\"option\"'"
check "a stream given to alloc2ndjson is refused with a hint" expect_rc 1 "$tools/alloc2ndjson" "$t/s.bin"
check "the hint names hpsg2ndjson" grep -q hpsg2ndjson "$t/err"
check "hpsg2ndjson reads a bare report" sh -c "'$tools/hpsg2ndjson' '$t/a.alloc' | grep -q '\"record\":\"ddm.allocation\"'"
# A report whose header lengths are 0x41.. starts with letters, like a chunk:
# still a report to both programs (ddm-alloc.md 5).
"$gen" "$descs/alloc-letters.desc" "$t/letters.alloc" || exit 1
check "alloc2ndjson reads a report that starts with letters" sh -c "'$tools/alloc2ndjson' '$t/letters.alloc' | grep -c '\"record\":\"ddm.allocation\"' | grep -qx 16640"
check "hpsg2ndjson takes it for a report" sh -c "'$tools/hpsg2ndjson' '$t/letters.alloc' > '$t/letters.nd' && grep -c '\"record\":\"ddm.allocation\"' '$t/letters.nd' | grep -qx 16640"
check "as a payload, not chunks" grep -q '"key":"ddm.shape","value":"payload"' "$t/letters.nd"
check "with no chunk but the REAL" sh -c "grep -c '\"record\":\"ddm.chunk\"' '$t/letters.nd' | grep -qx 1"
# One that starts with a known chunk type ("HPIF") whose length ends inside
# the first 64 KiB, with no chunk after it: a report too.
"$gen" "$descs/alloc-hpif.desc" "$t/hpif.alloc" || exit 1
check "hpsg2ndjson takes a report starting with HPIF for a report" sh -c "'$tools/hpsg2ndjson' '$t/hpif.alloc' > '$t/hpif.nd' && grep -c '\"record\":\"ddm.allocation\"' '$t/hpif.nd' | grep -qx 17920"
check "as a payload" grep -q '"key":"ddm.shape","value":"payload"' "$t/hpif.nd"
# The same kind of report whose bytes right after that would-be HPIF read
# as a chunk header too ("ABCD" and a length past the end of the file): only
# a chunk type heapfmt knows chains when it runs past the end.
python3 - "$t/hpif2.alloc" <<'PY' || exit 1
import struct, sys
H, EH, FL, N = 72, 80, 73, 0x4600   # "HPI", "F\0": 17920 entries
# The last entries carry F frames in all; choose F so that the would-be
# HPIF's length (the string offset's top three bytes, 8 + L) ends at the
# start of an entry k, whose size field is then "ABCD".
for F in range(255 * 50):
    soff = H + N * EH + F * FL
    L = soff >> 8
    if (L - 64) % EH == 0 and (L - 64) // EH < N - 50 and soff >> 24 == 0:
        break
k = (L - 64) // EH
out = bytearray([H, EH, FL]) + struct.pack('>HIHHH', N, soff, 1, 1, 1)
out += bytes(H - len(out))
left = F
for i in range(N):
    size, tid = (0x41424344, 0xFF) if i == k else (16, 5)
    d = min(255, left) if i >= N - 50 else 0
    left -= d
    out += struct.pack('>IHHB', size, tid, 0, d) + bytes(EH - 9)
    for j in range(d):
        out += struct.pack('>HHHh', 0, 0, 0, 1) + bytes(FL - 8)
assert left == 0 and len(out) == soff
for s in ['Ljava/lang/Object;', 'run', 'A.java']:
    out += struct.pack('>I', len(s)) + s.encode('utf-16-be')
open(sys.argv[1], 'wb').write(out)
PY
check "hpsg2ndjson: an unknown chunk-like header past the end does not chain" sh -c "'$tools/hpsg2ndjson' '$t/hpif2.alloc' | grep -c '\"record\":\"ddm.allocation\"' | grep -qx 17920"
# An HPIF timestamp past 2^63 ms: left out with a warning, not negative.
"$gen" "$descs/hpif-time-range.desc" "$t/ht.bin" || exit 1
check "a timestamp out of range" expect_rc 0 "$tools/hpsg2ndjson" "$t/ht.bin" "$t/ht.nd"
check "is left out" sh -c "grep '\"record\":\"ddm.heap_info\"' '$t/ht.nd' | grep -v -q timestamp_ms"
check "with a warning" grep -q '"offset 16 (HPIF): heap 1.s timestamp 18446744073709551615 ms is out of range' "$t/ht.nd"
check "convert" expect_rc 0 "$tools/hpsg2heapdb" "$t/s.bin" "$t/s.db"
echo keep >"$t/exists.db"
check "an existing database is refused" expect_rc 3 "$tools/alloc2heapdb" "$t/a.alloc" "$t/exists.db"
check "and kept" grep -q keep "$t/exists.db"
check "--force replaces it" expect_rc 0 "$tools/alloc2heapdb" -f "$t/a.alloc" "$t/exists.db"
check "empty input fails" expect_rc 1 "$tools/hpsg2ndjson" /dev/null
check "saying so" test "$(cat "$t/err")" = "hpsg2ndjson: /dev/null: offset 0 (input): the input is empty"
# The JDWP handshake and nothing after it (once, or twice as some captures
# have it) holds no more: refused as an empty input is, --salvage too, by
# both programs, with no output left.
printf 'JDWP-Handshake' >"$t/hs.bin"
printf 'JDWP-HandshakeJDWP-Handshake' >"$t/hs2.bin"
for c in "hpsg2ndjson hs.bin 14" "hpsg2ndjson hs2.bin 28 --salvage" "hpsg2heapdb hs.bin 14"; do
	set -- $c
	check "$1 ${4:-} of the handshake alone ($2)" expect_rc 1 "$tools/$1" ${4:-} "$t/$2" "$t/hs.out"
	check "(the message)" test "$(cat "$t/err")" = "$1: $t/$2: offset $3 (input): the input holds only the JDWP handshake, no packet after it"
	check "(no output)" test ! -e "$t/hs.out"
done
# A packet after it (a debugger's VirtualMachine.Version, no DDM chunk) is
# a capture, converted as before.
printf 'JDWP-Handshake\000\000\000\013\000\000\000\001\000\001\001' >"$t/hsp.bin"
check "the handshake and a packet convert" expect_rc 0 "$tools/hpsg2ndjson" "$t/hsp.bin" "$t/hsp.nd"
check "(one packet, no chunk)" sh -c "grep -q '\"key\":\"ddm.jdwp_packets\",\"value\":\"1\"' '$t/hsp.nd' && grep -q '\"key\":\"ddm.chunks\",\"value\":\"0\"' '$t/hsp.nd'"
check "with a warning that nothing of the heap was there" test "$(cat "$t/err")" = "hpsg2ndjson: $t/hsp.bin: warning: offset 25 (input): the capture holds JDWP packets (1) but no DDM chunk: nothing of the heap to convert"
# A capture that converts with warnings says so on stderr at the end, a line
# each naming the input, the offset and the chunk (the output has them as
# ddm.warning metadata); a report whose count had wrapped, as well.
"$gen" "$descs/unpaired-hpst.desc" "$t/open.bin" || exit 1
for p in hpsg2ndjson hpsg2heapdb; do
	check "$p of a series the capture leaves open" expect_rc 0 "$tools/$p" "$t/open.bin" "$t/open.$p"
	check "$p tells it on stderr" test "$(cat "$t/err")" = "$p: $t/open.bin: warning: offset 61 (HPST): heap 1 started but the input ends before its HPEN"
done
"$gen" "$descs/alloc-overflow.desc" "$t/wrap.alloc" || exit 1
check "alloc2ndjson of a report whose count wrapped" expect_rc 0 "$tools/alloc2ndjson" "$t/wrap.alloc" "$t/wrap.ndjson"
check "tells it on stderr" test "$(cat "$t/err")" = "alloc2ndjson: $t/wrap.alloc: warning: offset 3 (REAL/header): entry count 0 had wrapped: 65536 entries fill the report up to the string tables"
check "as the output's metadata does" grep -q '"key":"ddm.warning","value":"offset 3 (REAL/header): entry count 0 had wrapped' "$t/wrap.ndjson"
# Chunks and packets broken in one field each, written byte by byte (ddmgen
# writes only well-formed runs and packets): exit 1 and one line naming the
# offset and the chunk, or, for bit 6 of a state byte, a warning.
# bad NAME WANT-EXIT FIRST-STDERR-LINE BYTES (printf's octal escapes)
bad() {
	printf "$4" >"$t/$1.bin"
	check "$1: exit $2" expect_rc "$2" "$tools/hpsg2ndjson" "$t/$1.bin" "$t/$1.nd"
	check "$1: says so" test "$(head -1 "$t/err")" = "hpsg2ndjson: $t/$1.bin: $3"
	[ "$2" = 0 ] || check "$1: one line" test "$(wc -l <"$t/err")" = 1
}
# An HPSG header, as printf's escapes: heap 1, unit size $1 (octal), address
# 0x40000000, offset 0, units: two zero bytes and $2.
hdr() { printf '%s' "\\000\\000\\000\\001\\$1\\100\\000\\000\\000\\000\\000\\000\\000\\000\\000$2"; }
bad unit0 1 "offset 12 (HPSG): allocation unit size 0; --salvage converts what comes before" "HPSG\000\000\000\023$(hdr 000 '\000\001')\001\000"
bad oddruns 1 "offset 25 (HPSG): 3 bytes of runs: not a whole number of (state, length) pairs; --salvage converts what comes before" "HPSG\000\000\000\024$(hdr 010 '\001\001')\001\000\001"
bad partial-state 1 "offset 27 (HPSG): a partial run of state 0x01 is continued by state 0x02; --salvage converts what comes before" "HPSG\000\000\000\025$(hdr 010 '\001\001')\201\377\002\000"
bad partial-last 1 "offset 25 (HPSG): the last pair is partial: the run continues past the end of the chunk; --salvage converts what comes before" "HPSG\000\000\000\023$(hdr 010 '\000\001')\201\000"
bad hpst-len 1 "offset 8 (HPST): payload of 3 bytes, expected 4; --salvage converts what comes before" "HPST\000\000\000\003\000\000\001"
bad hpif-len 1 "offset 8 (HPIF): a heap count of 1 needs 33 bytes (4 + 29 a heap), the chunk has 8; --salvage converts what comes before" "HPIF\000\000\000\010\000\000\000\001\000\000\000\000"
bad bit6 0 "warning: offset 25 (HPSG): state byte 0x41 has the unused bit 6 set" "HPSG\000\000\000\023$(hdr 010 '\000\001')\101\000"
bad jdwp-short 1 "offset 14 (JDWP header): packet length 10 is below the 11-byte header; --salvage converts what comes before" 'JDWP-Handshake\000\000\000\012\000\000\000\001\000\001\001'
bad jdwp-flags 1 "offset 22 (JDWP header): flags 0x01: neither a command (0x00) nor a reply (0x80); --salvage converts what comes before" 'JDWP-Handshake\000\000\000\013\000\000\000\001\001\001\001'
# An error reply to a DDM command carries no chunk, whatever its data looks
# like: its HPEN is skipped (counted with the other packets), so the heap the
# command started stays open.
bad error-reply 0 "warning: offset 60 (HPST): heap 1 started but the input ends before its HPEN" 'JDWP-Handshake\000\000\000\027\000\000\000\007\000\307\001HPST\000\000\000\004\000\000\000\001\000\000\000\027\000\000\000\007\200\000\001HPEN\000\000\000\004\000\000\000\001'
check "error-reply: counted as another packet" grep -q '"key":"ddm.jdwp_other_packets","value":"1"' "$t/error-reply.nd"
check "error-reply: its HPEN not read" grep -q '"record":"ddm.heap_dump","dump":0,"heap":1,"native":0,"start_chunk":0,"segments":0,.*"complete":0' "$t/error-reply.nd"
# A capture that starts with a long reply (ddm gen stream-long-reply-first
# reads it with --shape=jdwp): left to auto-detection it is refused, and the
# error names that option as well as --payload.
"$gen" "$descs/stream-long-reply-first.desc" "$t/lr.bin" || exit 1
check "a long first reply, shape guessed: refused" expect_rc 1 "$tools/hpsg2ndjson" "$t/lr.bin" "$t/lr.nd"
check "the error names --shape=jdwp" grep -q -- "name the chunk type (--payload=TYPE), or the shape (--shape=jdwp for a capture that starts with a long packet)" "$t/err"
check "in one line" test "$(wc -l <"$t/err")" = 1
check "--shape=payload named: the error does not offer another shape" expect_rc 1 "$tools/hpsg2ndjson" --shape=payload "$t/lr.bin" "$t/lr.nd"
check "(it names --payload only)" sh -c "grep -q -- '(--payload=TYPE)\$' '$t/err'"
check "--shape=jdwp converts it" expect_rc 0 "$tools/hpsg2ndjson" --shape=jdwp "$t/lr.bin" "$t/lr.nd"
echo "ddm cli: $fails failed"
[ "$fails" = 0 ]
