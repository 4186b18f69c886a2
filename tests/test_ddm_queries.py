#!/usr/bin/env python3
"""The DDM side of the schema contract, on inputs testdata/ddmgen writes.

For each description: ddmgen writes the input and a JSON list of every value
it put in; hpsg2heapdb (streams) or alloc2heapdb (reports) converts it, and:
  - schema/heapdb-ddm.sql loads, has a comment on every table and column, and
    together with schema/heapdb.sql declares exactly the tables, columns and
    indexes of the written database;
  - every query of schema/queries/ about DDM data gives, row for row, what is
    computed here from the generator's own values (not from the database):
    alloc_sites (by allocating frame and by whole stack, with the ranks and
    the top-25 cut), alloc_by_class, alloc_by_thread (without the names),
    heap_usage (per heap picture, per kind and solidity, HPIF figures) and
    heap_fragmentation.

Usage: test_ddm_queries.py TOOLS_DIR DDMGEN REPO_ROOT DESC...
"""
import collections
import json
import os
import sqlite3
import sys
import tempfile
import time

from pycheck import check, done, run
from test_queries import check_ddl_comments, db_shape

PRIM = {"C": "char", "B": "byte", "Z": "boolean", "S": "short", "I": "int", "J": "long",
        "F": "float", "D": "double"}


def display(desc):
    """ddmlib's display form of a descriptor: Ljava/lang/String; -> java.lang.String, [I -> int[]."""
    dims = len(desc) - len(desc.lstrip("["))
    base = desc[dims:]
    if len(base) >= 2 and base[0] == "L" and base[-1] == ";":
        base = base[1:-1].replace("/", ".")
    elif base in PRIM:
        base = PRIM[base]
    return base + "[]" * dims


def frame_text(f, with_unknown_line):
    """A frame as the queries print it (ddmlib's StackTraceElement form)."""
    line = f["line"]
    src = f["file"] or "Unknown Source"
    if line == -2:
        where = "Native Method"
    elif line == -1:
        where = src
    else:
        where = "%s:%d" % (src, line if line >= 0 else line + 65536)
    del with_unknown_line
    return "%s.%s(%s)" % (display(f["class"]), f["method"], where)


def queries(root, name):
    """The statements of one query file, in order."""
    text = open(os.path.join(root, "schema", "queries", name), encoding="utf-8").read()
    text = "\n".join(l for l in text.split("\n") if not l.lstrip().startswith("--"))
    return [q.strip() for q in text.split(";") if q.strip()]


def sql_round(x, digits):
    """SQLite's round(): half away from zero, on the decimal value."""
    from decimal import Decimal, ROUND_HALF_UP
    return float(Decimal(repr(x)).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def frame_key(f):
    """A frame's identity (the database's frame id): what the VM wrote."""
    return (f["class"], f["method"], f["file"], f["line"])


def rows(con, sql):
    return [tuple(r) for r in con.execute(sql)]


def sql_rank(values):
    """rank() OVER (ORDER BY v DESC) for each value: 1 + how many are larger."""
    import bisect
    asc = sorted(values)
    return [1 + len(asc) - bisect.bisect_right(asc, v) for v in values]


def top25(groups):
    """groups: {key: (count, bytes, ...)} -> rows as the alloc_sites queries cut them."""
    keys = list(groups)
    counts = [groups[k][0] for k in keys]
    byts = [groups[k][1] for k in keys]
    rc, rb = sql_rank(counts), sql_rank(byts)
    out = [(k, groups[k], rc[i], rb[i]) for i, k in enumerate(keys) if rc[i] <= 25 or rb[i] <= 25]
    return out


def check_allocations(con, root, allocs, tag):
    # alloc_by_class
    by_class = collections.defaultdict(list)
    for a in allocs:
        by_class[display(a["class"])].append(a)
    want = {}
    for cls, l in by_class.items():
        sizes = [a["size"] for a in l]
        tops = {frame_key(a["frames"][0]) if a["frames"] else None for a in l}
        want[cls] = (len(l), sum(sizes), sql_round(sum(sizes) / len(l), 1), min(sizes), max(sizes),
                     len({a["thread"] for a in l}), len(tops - {None}))
    got = {r[0]: tuple(r[1:]) for r in rows(con, queries(root, "alloc_by_class.sql")[0])}
    check(got == want, "%s: alloc_by_class: %d classes, want %d; first difference %r" % (
        tag, len(got), len(want), next(((k, got.get(k), want.get(k)) for k in set(got) | set(want)
                                        if got.get(k) != want.get(k)), None)))

    # alloc_by_thread (names come from other chunks: checked by count only)
    by_thread = collections.defaultdict(list)
    for a in allocs:
        by_thread[a["thread"]].append(a)
    want = {t: (len(l), sum(a["size"] for a in l), len({a["class"] for a in l}))
            for t, l in by_thread.items()}
    got = {r[0]: (r[3], r[4], r[5]) for r in rows(con, queries(root, "alloc_by_thread.sql")[0])}
    check(got == want, "%s: alloc_by_thread: %r" % (tag, sorted(set(got.items()) ^ set(want.items()))[:4]))

    # alloc_sites: by allocating frame, then by whole stack
    q_top, q_stack = queries(root, "alloc_sites.sql")
    # Grouped by frame and stack identity, as the database does: two frames
    # may read alike (a class named like an array class) and stay apart.
    groups, text = collections.defaultdict(lambda: [0, 0]), {}
    for a in allocs:
        k = frame_key(a["frames"][0]) if a["frames"] else None
        text[k] = frame_text(a["frames"][0], True) if a["frames"] else "(no stack)"
        groups[k][0] += 1
        groups[k][1] += a["size"]
    want = sorted((g[0], g[1], rc, rb, text[k]) for k, g, rc, rb in top25(groups))
    got = sorted(rows(con, q_top))
    check(got == want, "%s: alloc_sites by frame: %d rows, want %d; e.g. %r" % (
        tag, len(got), len(want), sorted(set(got) ^ set(want))[:3]))
    groups, text = collections.defaultdict(lambda: [0, 0, 0]), {}
    for a in allocs:
        k = tuple(frame_key(f) for f in a["frames"])
        text[k] = " <- ".join(frame_text(f, False) for f in a["frames"]) or "(no stack)"
        g = groups[k]
        g[0] += 1
        g[1] += a["size"]
        g[2] = max(g[2], len(a["frames"]))
    want = sorted((g[0], g[1], rc, rb, g[2], text[k]) for k, g, rc, rb in top25(groups))
    got = sorted(rows(con, q_stack))
    check(got == want, "%s: alloc_sites by stack: %d rows, want %d; e.g. %r" % (
        tag, len(got), len(want), sorted(set(got) ^ set(want))[:2]))


def check_heaps(con, root, dumps, runs, infos, tag):
    by_dump = collections.defaultdict(list)
    for r in runs:
        by_dump[r["dump"]].append(r)
    usage, kinds, hpif = queries(root, "heap_usage.sql")
    want = []
    for d in dumps:
        l = by_dump[d["dump"]]
        used = sum(r["length"] for r in l if r["solidity"] != 0)
        free = sum(r["length"] for r in l if r["solidity"] == 0)
        want.append((d["dump"], "native" if d["native"] else "vm", d["heap"], len(l), used, free,
                     used + free, sql_round(100.0 * used / (used + free), 1) if used + free else None, 1))
    got = [r[:3] + r[4:] for r in rows(con, usage)]  # without segments; every picture complete
    check(got == want, "%s: heap_usage per picture: %r, want %r" % (tag, got[:2], want[:2]))

    kind_names = ["object", "class object", "array of 1-byte", "array of 2-byte", "array of 4-byte",
                  "array of 8-byte", "unknown"]
    sol_names = ["free", "hard", "soft", "weak", "phantom", "finalizable"]
    agg = collections.defaultdict(lambda: [0, 0])
    for r in runs:
        k = (r["dump"], kind_names[r["kind"]] if r["kind"] < 7 else "native",
             sol_names[r["solidity"]] if r["solidity"] < 6 else "unreachable")
        agg[k][0] += 1
        agg[k][1] += r["length"]
    want = sorted(k + tuple(v) for k, v in agg.items())
    got = sorted(rows(con, kinds))
    check(got == want, "%s: heap_usage per kind and solidity: %r" % (tag, sorted(set(got) ^ set(want))[:3]))

    iso = lambda ms: time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + \
        (".%03dZ" % (ms % 1000) if ms % 1000 else "Z")
    want = sorted((i["heap"], iso(i["timestamp_ms"]), i["max_bytes"], i["footprint_bytes"],
                   i["allocated_bytes"], i["allocated_objects"]) for i in infos)
    got = sorted(r[1:3] + r[3:7] for r in rows(con, hpif))
    check(got == want, "%s: heap_usage HPIF: %r, want %r" % (tag, got, want))

    want = []
    for d in dumps:
        free = [r["length"] for r in by_dump[d["dump"]] if r["solidity"] == 0]
        total = sum(free)
        want.append((d["dump"], "native" if d["native"] else "vm", d["heap"], total, len(free),
                     max(free, default=0), sql_round(total / len(free), 1) if free else 0.0,
                     sum(1 for x in free if x < 64),
                     sql_round(1.0 - max(free) / total, 4) if total else 0))
    got = rows(con, queries(root, "heap_fragmentation.sql")[0])
    check(got == want, "%s: heap_fragmentation: %r, want %r" % (tag, got[:2], want[:2]))


def check_schema_ddl(root, db_path, tag):
    core = open(os.path.join(root, "schema", "heapdb.sql"), encoding="utf-8").read()
    ddm = check_ddl_comments(os.path.join(root, "schema", "heapdb-ddm.sql"))
    mem = sqlite3.connect(":memory:")
    mem.executescript(core)
    mem.executescript(ddm)
    real = sqlite3.connect("file:%s?mode=ro" % db_path, uri=True)
    a, b = db_shape(real), db_shape(mem)
    for name in sorted(a):
        check(b.get(name) == a[name], "%s: %s in the written database is as the schema declares it: "
              "%r vs %r" % (tag, name, a[name], b.get(name)))
    real.close()
    mem.close()
    return [n for n in b if n.startswith("ddm_")]


def main():
    tools, ddmgen, root = sys.argv[1:4]
    seen_ddm = set()
    declared = []
    for desc in sys.argv[4:]:
        tag = os.path.basename(desc)
        with tempfile.TemporaryDirectory() as t:
            inp, exp, db = (os.path.join(t, n) for n in ("in.bin", "expected.json", "out.db"))
            rc, _, err = run([ddmgen, desc, inp, exp])
            if not check(rc == 0, "%s: ddmgen: %s" % (tag, err)):
                continue
            items = json.load(open(exp, encoding="utf-8"))
            stream = any(i["what"] == "stream" for i in items)
            rc, _, err = run([os.path.join(tools, "hpsg2heapdb" if stream else "alloc2heapdb"), inp, db])
            if not check(rc == 0, "%s: conversion: %s" % (tag, err)):
                continue
            declared = check_schema_ddl(root, db, tag)
            con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
            seen_ddm |= {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE name LIKE 'ddm_%'")}
            allocs = [a for i in items if i["what"] == "report" for a in i["list"]]
            if allocs:
                check_allocations(con, root, allocs, tag)
            dumps = [i for i in items if i["what"] == "heap_dump"]
            if dumps:
                check_heaps(con, root, dumps, [i for i in items if i["what"] == "run"],
                            [i for i in items if i["what"] == "heap_info"], tag)
            con.close()
            print("%s: %d allocations, %d heap pictures checked" % (tag, len(allocs), len(dumps)))
    check(set(declared) <= seen_ddm, "every table and index of heapdb-ddm.sql was written by some "
          "input: never seen %s" % sorted(set(declared) - seen_ddm))
    return done("test_ddm_queries")


if __name__ == "__main__":
    sys.exit(main())
