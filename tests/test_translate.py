#!/usr/bin/env python3
"""Round trips between the two physical forms, and reproducible output.

For one input (KIND:PATH, KIND = hprof | alloc | hpsg | heapsnapshot | ndjson) converted by
the KIND's two converters (ndjson: the file itself and ndjson2heapdb):
  1. NDJSON -> ndjson2heapdb -> heapdb2ndjson holds exactly the same lines as
     the first NDJSON (as a multiset: the canonical order may differ);
  2. the database the KIND2heapdb converter writes directly and the one made
     from its NDJSON give byte-identical canonical NDJSON, but for the
     metadata line naming the generator;
  3. the canonical NDJSON is a fixed point: translated to a database and
     back it comes out byte for byte the same;
  4. with SOURCE_DATE_EPOCH set, two runs give byte-identical NDJSON and
     byte-identical databases.
An input the converter rejects must be rejected by both converters with
exit status 1, and nothing is left at the output paths.

Usage: test_translate.py TOOLS_DIR KIND:PATH...
Exit 0 pass, 1 fail, 77 skip (every input absent).
"""
import collections
import os
import sys
import tempfile

from pycheck import check, done, run

def read(path):
    with open(path, "rb") as f:
        return f.read()


def without_generator(data):
    return b"\n".join(l for l in data.split(b"\n")
                      if not l.startswith(b'{"record":"metadata","key":"generator"'))


def one(tools, kind, path, tmp):
    tool = lambda name: os.path.join(tools, name)
    env = dict(os.environ, SOURCE_DATE_EPOCH="1700000000")
    name = os.path.basename(path)
    nd, db_direct, db_from_nd = (os.path.join(tmp, n) for n in ("a.ndjson", "direct.db", "fromnd.db"))
    canon_direct, canon_nd = os.path.join(tmp, "direct.ndjson"), os.path.join(tmp, "fromnd.ndjson")
    if kind == "ndjson":
        nd = path
        to_db = [tool("ndjson2heapdb"), path, db_direct]
    else:
        rc, _, err = run([tool(kind + "2ndjson"), path, nd], env)
        rc2, _, err2 = run([tool(kind + "2heapdb"), path, db_direct], env)
        check(rc == rc2, "%s: both converters give the same exit status (%d, %d)" % (name, rc, rc2))
        if rc != 0:
            check(rc == 1, "%s: rejected with exit status 1, not %d" % (name, rc))
            check(not os.path.exists(nd) and not os.path.exists(db_direct),
                  "%s: nothing left at the output paths" % name)
            print("%s: rejected (%s)" % (name, err.strip().splitlines()[-1] if err.strip() else "?"))
            return
        to_db = None
    if to_db:
        rc, _, err = run(to_db, env)
        if not check(rc == 0, "%s: ndjson2heapdb exit %d: %s" % (name, rc, err)):
            return

    rc, _, err = run([tool("ndjson2heapdb"), nd, db_from_nd], env)
    if not check(rc == 0, "%s: ndjson2heapdb of the NDJSON: exit %d: %s" % (name, rc, err)):
        return
    for db, out in ((db_direct, canon_direct), (db_from_nd, canon_nd)):
        rc, _, err = run([tool("heapdb2ndjson"), db, out], env)
        if not check(rc == 0, "%s: heapdb2ndjson %s: exit %d: %s" % (name, db, rc, err)):
            return

    first, back = read(nd), read(canon_nd)
    a = collections.Counter(first.splitlines())
    b = collections.Counter(back.splitlines())
    check(a == b, "%s: NDJSON -> database -> NDJSON keeps every line (%d lines; %d only before, "
          "%d only after, e.g. %r)" % (name, sum(a.values()), sum((a - b).values()),
                                       sum((b - a).values()), next(iter((a - b) or (b - a)), b"")[:200]))
    check(without_generator(read(canon_direct)) == without_generator(back),
          "%s: the direct database and the one made from NDJSON read back the same" % name)

    again_db, again = os.path.join(tmp, "again.db"), os.path.join(tmp, "again.ndjson")
    rc, _, _ = run([tool("ndjson2heapdb"), canon_nd, again_db], env)
    rc2, _, _ = run([tool("heapdb2ndjson"), again_db, again], env)
    check(rc == 0 and rc2 == 0 and read(again) == back,
          "%s: the canonical NDJSON is a fixed point of the round trip" % name)

    if kind != "ndjson":
        nd2, db2 = os.path.join(tmp, "b.ndjson"), os.path.join(tmp, "direct2.db")
        run([tool(kind + "2ndjson"), path, nd2], env)
        run([tool(kind + "2heapdb"), path, db2], env)
        check(read(nd2) == first, "%s: NDJSON is reproducible (SOURCE_DATE_EPOCH)" % name)
        check(read(db2) == read(db_direct), "%s: the database is reproducible byte for byte" % name)
    print("%s: %d lines round-trip" % (name, sum(a.values())))


def main():
    if len(sys.argv) < 3:
        print("usage: test_translate.py TOOLS_DIR KIND:PATH...", file=sys.stderr)
        return 2
    tools = sys.argv[1]
    inputs = [a.split(":", 1) for a in sys.argv[2:]]
    present = [(k, p) for k, p in inputs if os.path.exists(p)]
    if not present:
        print("SKIP: none of the inputs exists (../shared/corpus absent?)")
        return 77
    for kind, path in present:
        with tempfile.TemporaryDirectory() as tmp:
            one(tools, kind, path, tmp)
    return done("test_translate")


if __name__ == "__main__":
    sys.exit(main())
