#!/usr/bin/env python3
"""heapdiff on two dumps of testdata/java/LeakSample.java, before and after
its deliberate leak (testdata/hprof/leak-{before,after}.hprof.gz, with the
jcmd class histograms taken with each: make-leak-dumps.sh).

Checks, with the jcmd histograms as the independent reference:
  - per class, the change in instances heapdiff reports equals the change
    between the two jcmd histograms, for every class either names (the JVM
    ran without CDS, so every class matches; see ../shared/corpus/MANIFEST.md);
    the change in bytes too for the leak's classes and every array class
    (whose sizes are exact by formula);
  - the leak itself: leak.Session and leak.Token +5000 from none, and the
    largest new object is the leaked long[200000] (1,600,016 bytes);
  - databases and dumps as inputs give the same report;
  - thresholds: --fail-count / --fail-bytes with --class make the exit
    status 6 exactly when the leak crosses them, and say so on stderr;
  - the text report names the leak; bad inputs exit 1 or 3;
  - databases of V8 heap snapshots (heapsnapshot2heapdb): testdata/v8's
    small snapshot, and a copy with 7 objects named Leak and 3 strings
    added: grouped as DevTools groups them, Leak +7 (280 bytes), (string)
    +3, the largest new object a Leak, and --class=Leak --fail-count=5
    exits 6.

Usage: test_heapdiff.py TOOLS_DIR TESTDATA_HPROF_DIR [V8_SNAPSHOT]
"""
import json
import os
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pycheck import check, done, run  # noqa: E402
from test_queries import read_histogram  # noqa: E402  (the jcmd histogram parser)

def records(out):
    by = {}
    for line in out.splitlines():
        r = json.loads(line)
        by.setdefault(r["record"], []).append(r)
    return by


def main():
    tools, hdir = sys.argv[1], sys.argv[2]
    # heapdiff's temporary directories go into a $TMPDIR of this test's own,
    # so that the check that none is left sees no other test's heapdiff
    # (test_cli's, run beside this one) still at work.
    private_tmp = tempfile.mkdtemp(prefix="test_heapdiff-")
    os.environ["TMPDIR"] = private_tmp
    tempfile.tempdir = private_tmp
    heapdiff = os.path.join(tools, "heapdiff")
    before, after = (os.path.join(hdir, "leak-%s.hprof.gz" % w) for w in ("before", "after"))
    hb, ha = (read_histogram(os.path.join(hdir, "leak-%s.histo.txt" % w)) for w in ("before", "after"))

    rc, out, err = run([heapdiff, "--format=ndjson", "--objects=5", before, after])
    if not check(rc == 0, "heapdiff exit %d: %s" % (rc, err)):
        return 1
    rec = records(out)
    check(list(rec)[0] == "heapdiff.summary", "the summary comes first")
    classes = {c["class"]: c for c in rec.get("heapdiff.class", [])}

    # Every class's change against jcmd's.
    names = set(hb) | set(ha)
    mismatched = []
    for name in sorted(names):
        jc = ha.get(name, (0, 0))[0] - hb.get(name, (0, 0))[0]
        jb = ha.get(name, (0, 0))[1] - hb.get(name, (0, 0))[1]
        c = classes.get(name)
        ours_c = c["count_change"] if c else 0
        ours_b = c["bytes_change"] if c else 0
        if ours_c != jc:
            mismatched.append("%s: instances %+d, jcmd %+d" % (name, ours_c, jc))
        if (name.endswith("[]") or name.startswith("leak.")) and ours_b != jb:
            mismatched.append("%s: bytes %+d, jcmd %+d" % (name, ours_b, jb))
    check(not mismatched, "per-class changes equal jcmd's (%d of %d classes differ: %s)"
          % (len(mismatched), len(names), "; ".join(mismatched[:8])))
    changed_jcmd = sum(1 for n in names if ha.get(n, (0,))[0] != hb.get(n, (0,))[0])
    print("heapdiff: %d classes changed, jcmd: %d changed in instances" % (len(classes), changed_jcmd))

    s = classes.get("leak.Session", {})
    check(s.get("count_before") == 0 and s.get("count_after") == 5000,
          "leak.Session: 0 -> 5000 (%r)" % s)
    check(s.get("bytes_change") == ha["leak.Session"][1], "leak.Session bytes as jcmd")
    check(classes.get("leak.Token", {}).get("count_change") == 5000, "leak.Token +5000")
    # Retained (the dumps are analysed): each Session keeps its Token and its
    # byte[64] (align8(16 + 64) = 80 bytes) alive, nothing else.
    want = ha["leak.Session"][1] + ha["leak.Token"][1] + 5000 * 80
    check(rec["heapdiff.summary"][0]["retained"] and s.get("retained_before") == 0
          and s.get("retained_change") == want,
          "leak.Session retains %d more bytes (%r)" % (want, s.get("retained_change")))
    new = rec.get("heapdiff.new_object", [])
    check(len(new) == 5 and new[0]["class"] == "long[]" and new[0]["size"] == 1600016,
          "the largest new object is the leaked long[200000] (%r)" % new[:1])
    summary = rec["heapdiff.summary"][0]
    check(summary["objects_after"] - summary["objects_before"] >= 10001 and summary["exceeded"] == 0,
          "summary: at least the 10001 leaked objects more (%r)" % summary)
    roots = rec.get("heapdiff.root_kind", [])
    check(any(r["kind"] == "JAVA_FRAME" for r in roots), "root kinds are listed (%r)" % roots)

    with tempfile.TemporaryDirectory() as t:
        dbs = [os.path.join(t, "b.db"), os.path.join(t, "a.db")]
        for src, db in zip((before, after), dbs):
            r = run([os.path.join(tools, "hprof2heapdb"), src, db])
            check(r[0] == 0, "hprof2heapdb %s: %s" % (src, r[2]))
        rc, out2, _ = run([heapdiff, "--format=ndjson", "--objects=5"] + dbs)
        strip = lambda o: [l for l in o.splitlines() if '"heapdiff.summary"' not in l]
        check(rc == 0 and strip(out2) == strip(out), "databases give the same report as dumps")

        # Thresholds.
        rc, _, err = run([heapdiff, "--class=leak.*", "--fail-count=4999", dbs[0], dbs[1]])
        check(rc == 6 and "leak.Session grew by 5000 instances (limit 4999)" in err,
              "--fail-count=4999 fails with exit 6 (%d: %s)" % (rc, err.strip()))
        rc, _, err = run([heapdiff, "--class=leak.*", "--fail-count=5000", dbs[0], dbs[1]])
        check(rc == 0 and not err, "--fail-count=5000 passes (%d: %s)" % (rc, err.strip()))
        sb = ha["leak.Session"][1]
        rc, out3, _ = run([heapdiff, "--format=ndjson", "--class=leak.Session",
                           "--fail-bytes=%d" % (sb - 1), dbs[0], dbs[1]])
        ex = records(out3).get("heapdiff.exceeded", [])
        check(rc == 6 and len(ex) == 1 and ex[0]["class"] == "leak.Session" and ex[0]["what"] == "bytes"
              and ex[0]["change"] == sb, "--fail-bytes: one exceeded record (%d, %r)" % (rc, ex))
        check(records(out3)["heapdiff.summary"][0]["exceeded"] == 1, "the summary counts it")
        rc, _, _ = run([heapdiff, "--class=java.lang.*", "--fail-count=4999", dbs[0], dbs[1]])
        check(rc == 0, "--class limits the thresholds to the matching classes (%d)" % rc)

        # The text report.
        rc, text, _ = run([heapdiff, "--top=5", dbs[0], dbs[1]])
        line = [l for l in text.splitlines() if l.endswith(" leak.Session")]
        check(rc == 0 and line and "+5000" in line[0] and "+%d" % sb in line[0],
              "the text report has leak.Session +5000 (%r)" % line)
        check("Classes that grew:" in text and "GC roots by kind:" in text
              and "Largest new objects" in text, "the text report's sections")

        # Bad inputs.
        junk = os.path.join(t, "junk")
        with open(junk, "w") as f:
            f.write("not a heap\n" * 10)
        check(run([heapdiff, junk, dbs[1]])[0] == 1, "a file that is neither: exit 1")
        # A profile of the hprof agent (a HEAP SUMMARY, no heap dump), as the
        # first input or the second: the error names that one, where it
        # ended (64 bytes), and not the other.
        prof = os.path.join(t, "agent.hprof")
        with open(prof, "wb") as f:
            f.write(b"JAVA PROFILE 1.0.2\0" + struct.pack(">IQ", 8, 0))
            f.write(struct.pack(">BII", 0x07, 0, 24) + struct.pack(">IIQQ", 4096, 10, 8192, 20))
        for args in ([prof, before], [before, prof], [prof, dbs[1]]):
            rc, _, err = run([heapdiff] + args)
            check(rc == 1 and err == "heapdiff: %s: offset 64 (end of file): this file holds no heap "
                  "dump (a profile of the hprof agent): nothing to compare\n" % prof,
                  "heapdiff %s: exit 1 naming the profile (%d: %r)" % (" ".join(args), rc, err))
        rc, _, err = run([heapdiff, dbs[0], junk])
        check(rc == 1 and err.startswith("heapdiff: %s: " % junk) and err.count("\n") == 1,
              "a junk second input is named (%d: %r)" % (rc, err))
        # An input whose name is a word of its error ("after" in "the file
        # ends after 0", "empty" in "the input is empty") is named all the
        # same: the name was dropped, as if the message named the file.
        with open(os.path.join(t, "after"), "wb") as f:
            f.write(b"JAVA PROFILE 1.0.2\0" + struct.pack(">IQ", 4, 0) + struct.pack(">BII", 0x01, 0, 42))
        open(os.path.join(t, "empty"), "wb").close()
        for args, what in ((["b.db", "after"], "after: offset 31 (UTF8): declares 42 bytes but the "
                            "file ends after 0"), (["empty", "b.db"], "empty: offset 0 (input): the "
                            "input is empty")):
            rc, _, err = run(["sh", "-c", 'cd "$0" && exec "$@"', t, heapdiff] + args)
            check(rc == 1 and err == "heapdiff: %s\n" % what,
                  "heapdiff %s: exit 1 naming the input (%d: %r)" % (" ".join(args), rc, err))
        # A damaged database: SQLite's reason and the file, not the SQL
        # statement (several hundred bytes, which cut the reason off).
        damaged = os.path.join(t, "damaged.db")
        with open(dbs[1], "rb") as f:
            data = bytearray(f.read())
        for off in range(4096 * 3, len(data), 4096 * 7):
            data[off:off + 300] = b"\xff" * 300
        with open(damaged, "wb") as f:
            f.write(data)
        for args in ([dbs[0], damaged], [damaged, dbs[0]]):
            rc, _, err = run([heapdiff] + args)
            check(rc == 1 and err == "heapdiff: SQLite: %s: cannot count the nodes by class: database disk "
                  "image is malformed\n" % damaged,
                  "heapdiff %s: a damaged database named, with SQLite's reason (%d: %r)"
                  % (" ".join(args), rc, err))
        check(run([heapdiff, os.path.join(t, "absent"), dbs[1]])[0] == 3, "a missing file: exit 3")
        check(run([heapdiff, dbs[0]])[0] == 2, "one argument: exit 2")
        check(run([heapdiff, "--fail-count=x", dbs[0], dbs[1]])[0] == 2, "a bad number: exit 2")
        check(not [n for n in os.listdir(tempfile.gettempdir()) if n.startswith("heapdiff-")
                   and os.path.getmtime(os.path.join(tempfile.gettempdir(), n)) > os.path.getmtime(junk) - 1],
              "no temporary directory is left behind")

        if len(sys.argv) > 3:
            v8_leak(tools, heapdiff, sys.argv[3], t)

    shutil.rmtree(private_tmp, ignore_errors=True)
    return done("test_heapdiff")


def v8_leak(tools, heapdiff, snapshot, t):
    with open(snapshot) as f:
        snap = json.load(f)
    meta = snap["snapshot"]["meta"]
    fields, types = meta["node_fields"], meta["node_types"][0]
    width = len(fields)
    ids = snap["nodes"][fields.index("id")::width]
    strings = snap["strings"]
    strings.append("Leak")
    leak_name, text = len(strings) - 1, len(strings)
    strings.append("a leaked string")
    added = [("object", leak_name, 40)] * 7 + [("string", text, 32)] * 3
    for i, (ty, name, size) in enumerate(added):
        node = dict(type=types.index(ty), name=name, id=max(ids) + 2 * (i + 1), self_size=size,
                    edge_count=0)
        snap["nodes"] += [node.get(k, 0) for k in fields]
    snap["snapshot"]["node_count"] += len(added)
    paths = [snapshot, os.path.join(t, "after.heapsnapshot")]
    with open(paths[1], "w") as f:
        json.dump(snap, f)
    dbs = [os.path.join(t, "v8-%d.db" % i) for i in range(2)]
    for p, db in zip(paths, dbs):
        rc, _, err = run([os.path.join(tools, "heapsnapshot2heapdb"), "-q", p, db])
        check(rc == 0, "heapsnapshot2heapdb %s: %s" % (p, err))
    rc, out, err = run([heapdiff, "--format=ndjson", "--objects=1", dbs[0], dbs[1]])
    if not check(rc == 0, "heapdiff of V8 databases: %s" % err):
        return
    rec = records(out)
    classes = {c["class"]: c for c in rec.get("heapdiff.class", [])}
    leak = classes.get("Leak", {})
    check((leak.get("count_change"), leak.get("bytes_change")) == (7, 280),
          "V8: Leak +7 objects, +280 bytes: %s" % leak)
    string = classes.get("(string)", {})
    check(string.get("count_change") == 3 and string.get("bytes_change") == 96,
          "V8: (string) +3, +96 bytes: %s" % string)
    check(not [c for c in classes if c.startswith("<class")], "V8: no node left without a name")
    check(sum(c["count_change"] for c in classes.values()) == 10, "V8: 10 objects more in all")
    new = rec.get("heapdiff.new_object", [])
    check(len(new) == 1 and new[0].get("class") == "Leak", "V8: the largest new object is a Leak: %s" % new)
    rc, _, err = run([heapdiff, "--class=Leak", "--fail-count=5", dbs[0], dbs[1]])
    check(rc == 6 and "Leak" in err, "V8: --class=Leak --fail-count=5: exit %d, %s" % (rc, err.strip()))
    check(err.count("warning") == 0, "two V8 databases: no warning (%r)" % err)
    # A V8 database against a Java heap's (the dump heapdiff converts): told,
    # whichever comes first, as their classes are named apart.
    dump = os.path.join(os.path.dirname(os.path.dirname(snapshot)), "hprof", "leak-before.hprof.gz")
    for args, v8, java in (([dbs[0], dump], dbs[0], dump), ([dump, dbs[1]], dbs[1], dump)):
        rc, _, err = run([heapdiff] + args)
        check(rc == 0 and err == "heapdiff: warning: %s is of a V8 heap snapshot and %s of a Java heap: their"
              " classes are named apart, so every one reads as new or gone\n" % (v8, java),
              "heapdiff %s: exit 0, the warning (%d: %r)" % (" ".join(args), rc, err))


if __name__ == "__main__":
    sys.exit(main())
