"""Hostile V8 snapshots (run by test_v8.py hostile): each damaged variant of
testdata/v8/small.heapsnapshot must make heapsnapshot2ndjson and
heapsnapshot2heapdb exit 1 with ONE line on stderr naming the byte offset
and what was wrong or expected, and leave nothing at the output path."""
import json
import os
import re
import sqlite3
import tempfile

from pycheck import check, done, run


def variants(good):
    """(name, bytes, phrase the error line must hold)."""
    v = []
    # Truncated everywhere interesting: in the header, a number, a string,
    # between arrays, before the final brace.
    for cut in sorted(set([0, 1, 15, len(good) // 3, good.index(b'"nodes"') + 12,
                           good.index(b'"edges"') + 9, good.index(b'h\\u00e9') + 3,
                           good.index(b'\\ud83d') + 4, len(good) - 3, len(good) - 2])):
        v.append(("truncated at %d" % cut, good[:cut], "ends" if cut else "the input is empty"))
    rep = lambda a, b, n=1: good.replace(a, b, n)
    v += [
        ("garbled nodes", rep(b"9,0,1,0,2,0,0", b"9,0,1,0,2,0x0"), "expected"),
        ("not JSON", b"HPROF this is not", "expected"),
        ("array at top", b"[1,2,3]", "expected '{'"),
        ("nodes not a multiple", rep(b",5,5,13,32,1,0,0]", b",5,5,13,32,1,0]"), "not a multiple of the 7 node fields"),
        ("to_node not a multiple", rep(b'"edges":[1,1,7', b'"edges":[1,1,8'), "not a multiple of the 7 node fields"),
        ("to_node out of range", rep(b'"edges":[1,1,7', b'"edges":[1,1,49'), "out of range"),
        ("node name string out of range", rep(b",3,2,5,24,2,1,0", b",3,99,5,24,2,1,0"), "string index 99 out of range"),
        ("edge name string out of range", rep(b",0,9,14]", b",0,57,14]"), "string index 57 out of range"),
        ("edge_count sum too small", rep(b"9,0,1,0,2,0,0", b"9,0,1,0,1,0,0"), "more edges than"),
        ("edge_count sum too large", rep(b"9,0,1,0,2,0,0", b"9,0,1,0,3,0,0"), "edge_count add up to 8"),
        ("node type out of range", rep(b",5,5,13,32,1,0,0", b",16,5,13,32,1,0,0"), "node type 16 out of range"),
        ("edge type out of range", rep(b",0,9,14]", b",7,9,14]"), "edge type 7 out of range"),
        ("node_count disagrees", rep(b'"node_count":7', b'"node_count":8'), "node_count says 8"),
        # Counts that are not integers were taken for absent (2^64+7 then
        # went to the metadata as 1.8446744073709552e+19).
        ("node_count past 2^64", rep(b'"node_count":7', b'"node_count":18446744073709551623'),
         "snapshot.node_count is not a count"),
        ("node_count negative", rep(b'"node_count":7', b'"node_count":-1'), "snapshot.node_count is not a count"),
        ("edge_count a string", rep(b'"edge_count":7', b'"edge_count":"7"'), "snapshot.edge_count is not a count"),
        ("node_count a fraction", rep(b'"node_count":7', b'"node_count":6.5'), "snapshot.node_count is not a count"),
        # Cut inside a number of the edges: the truncation, not the part of
        # the number there (to_node 1 of 14 is not a multiple of 7).
        ("truncated inside to_node", good[:good.index(b'"edges":[1,1,7,5,6,14') + len(b'"edges":[1,1,7,5,6,1')],
         "the snapshot ends inside an array of integers"),
        ("negative number", rep(b"9,0,1,0,2,0,0", b"9,0,-1,0,2,0,0"), "non-negative integer"),
        ("fraction", rep(b"9,0,1,0,2,0,0", b"9,0,1.5,0,2,0,0"), "integer"),
        ("nodes before snapshot", b'{"nodes":[]}', "snapshot"),
        ("no strings", good[:good.index(b',\n"strings"')] + b"}", "expected \"strings\""),
        ("meta without node_fields", rep(b'"node_fields"', b'"node_fieldz"'), "expected meta.node_fields"),
        ("trailing garbage", good + b"]", "end of the input"),
        ("bad escape", rep(b'"(GC roots)"', b'"(GC \\q roots)"'), "escape"),
        ("control char in string", rep(b'"(GC roots)"', b'"(GC \x01roots)"'), "control character"),
        ("object_index out of range", rep(b'"locations":[14', b'"locations":[15'), "object_index 15"),
        ("deep nesting", rep(b'"samples":[1000,5,2000,13]', b'"extra":' + b"[" * 70000, 1), "deeper"),
    ]
    return v


def main(tools, src, build):
    good = open(os.path.join(src, "testdata", "v8", "small.heapsnapshot"), "rb").read()
    t = lambda n: os.path.join(tools, n)
    with tempfile.TemporaryDirectory() as tmp:
        for name, data, phrase in variants(good):
            path = os.path.join(tmp, "bad.heapsnapshot")
            with open(path, "wb") as f:
                f.write(data)
            for prog, out in (("heapsnapshot2ndjson", "out.ndjson"), ("heapsnapshot2heapdb", "out.db")):
                outp = os.path.join(tmp, out)
                rc, _, err = run([t(prog), path, outp])
                lines = err.strip().splitlines()
                check(rc == 1, "%s, %s: exit 1, not %d (%s)" % (name, prog, rc, err.strip()))
                check(len(lines) == 1, "%s, %s: one line on stderr, not %d" % (name, prog, len(lines)))
                line = lines[0] if lines else ""
                check(re.search(r": offset [0-9]+ \(", line) is not None,
                      "%s, %s: the line names the offset: %s" % (name, prog, line))
                check(phrase in line, "%s, %s: the line says %r: %s" % (name, prog, phrase, line))
                check(not os.path.exists(outp), "%s, %s: nothing left at the output" % (name, prog))
            print("%s: %s" % (name, line))
        # Damage that is not fatal: lone surrogates and bytes that are not
        # UTF-8 in a string become U+FFFD; the output validates.
        odd = good.replace(b'"run"', b'"r\\ud800u\xffn"')
        path = os.path.join(tmp, "odd.heapsnapshot")
        with open(path, "wb") as f:
            f.write(odd)
        out = os.path.join(tmp, "odd.ndjson")
        rc, _, err = run([t("heapsnapshot2ndjson"), path, out])
        if check(rc == 0, "lone surrogate, invalid UTF-8: converted (%s)" % err.strip()):
            text = open(out, encoding="utf-8").read()
            check('"r\ufffdu\ufffdn"' in text, "lone surrogate and a bad byte became U+FFFD")
            check('"key":"v8.lone_surrogates","value":"1"' in text, "v8.lone_surrogates counts it")
            rc, o, e = run([os.path.join(build, "validate_ndjson"),
                            os.path.join(src, "schema", "heapfmt.schema.json"), out])
            check(rc == 0, "the output validates: %s %s" % (o, e))
        # Exported, the snapshot is what V8 writes: ASCII only, any other
        # character as \uXXXX (a reader that decodes the file by pieces, as
        # the npm parser of test_v8.py node does, split a UTF-8 character
        # across two into two U+FFFD now and then), with the same strings.
        # The meta too (V8's never holds anything but ASCII).
        wide = good.replace(b'"run"', b'"r\xc3\xb5n \xe4\xb8\xad\xf0\x9f\x98\x80"')
        wide = wide.replace(b'"node_fields"', b'"note":"m\xc3\xa9ta \xf0\x9f\x98\x80","node_fields"', 1)
        path, db, back = (os.path.join(tmp, n) for n in ("wide.heapsnapshot", "wide.db", "back.heapsnapshot"))
        with open(path, "wb") as f:
            f.write(wide)
        rc, _, err = run([t("heapsnapshot2heapdb"), path, db])
        rc2, _, err2 = run([t("heapdb2heapsnapshot"), db, back]) if rc == 0 else (rc, "", "")
        if check(rc == 0 and rc2 == 0, "non-ASCII strings: converted and exported (%s %s)" % (err, err2)):
            with open(back, "rb") as f:
                data = f.read()
            check(data.isascii(), "the export is ASCII only (%d other bytes)" % sum(b > 127 for b in data))
            strings = json.loads(data)["strings"]
            check("r\u00f5n \u4e2d\U0001F600" in strings, "the string comes back whole")
            meta = json.loads(data)["snapshot"]["meta"]
            check(meta.get("note") == "m\u00e9ta \U0001F600" and list(meta)[:2] == ["note", "node_fields"],
                  "the meta's string comes back whole, in its place: %r" % meta.get("note"))
            check(sorted(strings) == sorted(json.loads(wide)["strings"]),
                  "the export's strings are the snapshot's")
            # A text that is not UTF-8 in the database (no reader of heapfmt
            # stores one): its bad byte becomes U+FFFD, a NUL stays.
            con = sqlite3.connect(db)
            n = con.execute("UPDATE strings SET data = CAST(X'61FF00C3A9' AS TEXT)"
                            " WHERE data = 'r\u00f5n \u4e2d\U0001F600'").rowcount
            con.commit()
            con.close()
            rc, _, err = run([t("heapdb2heapsnapshot"), db, back])
            if check(n == 1 and rc == 0, "a string not UTF-8: exported (%d rows, %s)" % (n, err)):
                with open(back, "rb") as f:
                    data = f.read()
                check(data.isascii() and b'"a\\uFFFD\\u0000\\u00E9"' in data,
                      "the bad byte as U+FFFD, the NUL as \\u0000, all ASCII")
    return done("test_v8 hostile")
