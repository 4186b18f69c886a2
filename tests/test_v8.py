#!/usr/bin/env python3
"""V8 heap snapshots: heapsnapshot2ndjson, heapsnapshot2heapdb, heapdb2heapsnapshot.

test_v8.py node TOOLS_DIR SOURCE_ROOT BUILD_DIR
  A real snapshot written by the Node.js of the machine
  (testdata/v8/make-snapshot.js) and the hand-made testdata/v8/small.heapsnapshot,
  against the npm package v8-heapsnapshot (an independent parser, installed
  into BUILD_DIR/v8-npm), run by testdata/v8/v8-summary.js:
    - the NDJSON validates against schema/heapfmt.schema.json; its node and
      edge counts, nodes per type and, per node name, the count and self_size
      total of type "object" equal the npm parser's;
    - the database holds the same counts;
    - round trip (test_translate.py): NDJSON -> ndjson2heapdb -> heapdb2ndjson
      keeps every line, reproducible output;
    - heapdb2heapsnapshot of that database is read by the npm parser with the
      same counts and totals (every node name, every type);
    - heapdb2heapsnapshot of the HPROF sample (hprof2heapdb) is read by the
      npm parser: its nodes are the dump's plus the synthetic ones (the root,
      "(GC roots)" and one per GC-root kind), and per node name the count
      and bytes equal schema/queries/class_histogram.sql.
  Skips (77) without node or npm, or when the package cannot be installed.

test_v8.py hostile TOOLS_DIR SOURCE_ROOT BUILD_DIR
  Damaged snapshots made from small.heapsnapshot: each fails with exit 1 and
  one line on stderr naming the offset and what was expected; nothing is
  left at the output path.  Needs neither node nor npm.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pycheck import check, done, run  # noqa: E402
import pycheck  # noqa: E402
import test_translate  # noqa: E402

NPM_PACKAGE = "v8-heapsnapshot@1.3.1"
SYNTHETIC_ROOT_NODES = 2  # "" (the root) and "(GC roots)"; plus one per GC-root kind


def npm_parser(build):
    """The directory holding node_modules/v8-heapsnapshot, or None with why."""
    if not shutil.which("node"):
        return None, "node is not installed"
    prefix = os.path.join(build, "v8-npm")
    mods = os.path.join(prefix, "node_modules")
    if os.path.exists(os.path.join(mods, "v8-heapsnapshot", "package.json")):
        return mods, None
    if not shutil.which("npm"):
        return None, "npm is not installed"
    os.makedirs(prefix, exist_ok=True)
    p = subprocess.run(["npm", "install", "--prefix", prefix, "--no-save", "--no-audit",
                        "--no-fund", "--loglevel=error", NPM_PACKAGE],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0 or not os.path.exists(os.path.join(mods, "v8-heapsnapshot")):
        lines = p.stdout.decode("utf-8", "replace").strip().splitlines() or ["?"]
        why = next((l for l in lines if " code " in l or "ERR" in l), lines[0])
        return None, "cannot install %s (offline?): %s" % (NPM_PACKAGE, why.strip())
    return mods, None


def summary(src, mods, path):
    rc, out, err = run(["node", os.path.join(src, "testdata", "v8", "v8-summary.js"), mods, path])
    if not check(rc == 0, "v8-heapsnapshot reads %s: %s" % (path, err.strip()[-500:])):
        return None
    return json.loads(out)


def ndjson_summary(path):
    """Counts of heapsnapshot2ndjson output, computed the way v8-summary.js does."""
    strings, types, nodes = {}, {}, []
    edges = 0
    named_types = set()
    for line in open(path, encoding="utf-8"):
        r = json.loads(line)
        rec = r["record"]
        if rec == "node_type":
            types[r["subtype"]] = r["name"]
        elif rec == "edge_type" and r["label"] == "string":
            named_types.add(r["subtype"])
        elif rec == "string":
            strings[r["id"]] = r["data"]
        elif rec == "node":
            nodes.append((types[r["subtype"]], r["name"], r["size"]))
        elif rec == "edge":
            edges += 1
    s = {"nodes": len(nodes), "edges": edges, "types": {}, "objects": {}}
    for t, name, size in nodes:
        t = t[3:].replace("_", " ")
        s["types"][t] = s["types"].get(t, 0) + 1
        if t == "object":
            e = s["objects"].setdefault(strings[name], [0, 0])
            e[0] += 1
            e[1] += size
    return s


def validate(build, src, path):
    rc, out, err = run([os.path.join(build, "validate_ndjson"),
                        os.path.join(src, "schema", "heapfmt.schema.json"), path])
    check(rc == 0, "%s validates against the schema: %s %s" % (path, out.strip(), err.strip()[:600]))


def diff_totals(a, b):
    keys = set(a) | set(b)
    bad = [k for k in sorted(keys) if a.get(k) != b.get(k)]
    return "%d of %d differ, e.g. %s" % (len(bad), len(keys),
                                        "; ".join("%r: %r vs %r" % (k, a.get(k), b.get(k)) for k in bad[:5]))


def one_snapshot(tools, src, build, mods, snap, tmp):
    t = lambda n: os.path.join(tools, n)
    name = os.path.basename(snap)
    ref = summary(src, mods, snap)
    if not ref:
        return
    nd = os.path.join(tmp, "s.ndjson")
    rc, _, err = run([t("heapsnapshot2ndjson"), snap, nd])
    if not check(rc == 0, "%s: heapsnapshot2ndjson exit %d: %s" % (name, rc, err)):
        return
    validate(build, src, nd)
    readme = open(os.path.join(src, "schema", "README.md"), encoding="utf-8").read()
    for line in open(nd, encoding="utf-8"):
        r = json.loads(line)
        if r["record"] == "metadata":
            key = r["key"]
            if key.startswith("v8.snapshot.") or key.startswith("v8.extra."):
                key = key[:key.index(".", 3) + 1] + "KEY"
            check("`%s`" % key in readme, "%s: metadata key %s is documented in schema/README.md" % (name, key))
    ours = ndjson_summary(nd)
    check(ours["nodes"] == ref["nodes"], "%s: nodes %d, npm parser %d" % (name, ours["nodes"], ref["nodes"]))
    check(ours["edges"] == ref["edges"], "%s: edges %d, npm parser %d" % (name, ours["edges"], ref["edges"]))
    check(ours["types"] == ref["types"], "%s: nodes per type equal (%s)" % (name, diff_totals(ours["types"], ref["types"])))
    check(ours["objects"] == ref["objects"], "%s: per-constructor count and self_size of type object equal (%s)"
          % (name, diff_totals(ours["objects"], ref["objects"])))
    print("%s: %d nodes, %d edges, %d constructors as the npm parser reads them"
          % (name, ours["nodes"], ours["edges"], len(ours["objects"])))

    db = os.path.join(tmp, "s.db")
    rc, _, err = run([t("heapsnapshot2heapdb"), snap, db])
    if not check(rc == 0, "%s: heapsnapshot2heapdb exit %d: %s" % (name, rc, err)):
        return
    con = sqlite3.connect(db)
    n, = con.execute("SELECT count(*) FROM node").fetchone()
    e, = con.execute("SELECT count(*) FROM edge").fetchone()
    con.close()
    check((n, e) == (ref["nodes"], ref["edges"]), "%s: database holds %d nodes, %d edges" % (name, n, e))

    back = os.path.join(tmp, "back.heapsnapshot")
    rc, _, err = run([t("heapdb2heapsnapshot"), db, back])
    if check(rc == 0, "%s: heapdb2heapsnapshot exit %d: %s" % (name, rc, err)):
        again = summary(src, mods, back)
        if again:
            for k in ("nodes", "edges", "named_edges", "types", "objects", "all"):
                check(again[k] == ref[k], "%s: exported snapshot, %s as the original (%s)"
                      % (name, k, diff_totals(again[k], ref[k]) if isinstance(ref[k], dict)
                         else "%r vs %r" % (again[k], ref[k])))
            print("%s: exported back, the npm parser reads the same" % name)

    test_translate.one(tools, "heapsnapshot", snap, tmp)


def hprof_export(tools, src, mods, tmp):
    t = lambda n: os.path.join(tools, n)
    sample = os.path.join(src, "testdata", "hprof", "sample.hprof.gz")
    db, out = os.path.join(tmp, "h.db"), os.path.join(tmp, "h.heapsnapshot")
    rc, _, err = run([t("hprof2heapdb"), sample, db])
    if not check(rc == 0, "hprof2heapdb exit %d: %s" % (rc, err)):
        return
    rc, _, err = run([t("heapdb2heapsnapshot"), db, out])
    if not check(rc == 0, "heapdb2heapsnapshot of the HPROF sample exit %d: %s" % (rc, err)):
        return
    s = summary(src, mods, out)
    if not s:
        return
    con = sqlite3.connect(db)
    nodes, = con.execute("SELECT count(*) FROM node WHERE dump = 0").fetchone()
    kinds, = con.execute("SELECT count(DISTINCT r.kind) FROM hprof_gc_root r JOIN node n "
                         "ON n.identifier = r.object AND n.dump = r.dump WHERE r.dump = 0").fetchone()
    edges, = con.execute("SELECT count(*) FROM edge e JOIN node d ON d.identifier = e.dest "
                         "AND d.dump = e.dump WHERE e.dump = 0").fetchone()
    roots, = con.execute("SELECT count(*) FROM hprof_gc_root r JOIN node n "
                         "ON n.identifier = r.object AND n.dump = r.dump WHERE r.dump = 0").fetchone()
    # An object's reference to its class, as the analysis counts it: to a
    # class node that is not a GC root.
    class_edges, = con.execute("SELECT count(*) FROM node n JOIN node c ON c.identifier = n.class "
                               "AND c.dump = n.dump WHERE n.dump = 0 AND n.class NOT IN "
                               "(SELECT object FROM hprof_gc_root WHERE dump = 0)").fetchone()
    unreachable, = con.execute("SELECT count(*) FROM node_analysis WHERE dump = 0 AND reachable = 0").fetchone()
    weakly, = con.execute("SELECT count(*) FROM node_analysis WHERE dump = 0 AND reachable = 2").fetchone()
    sql = open(os.path.join(src, "schema", "queries", "class_histogram.sql")).read()
    histo = {}
    for cls, count, size, dump in con.execute(sql, {"dump": 0}):
        histo[cls] = [count, size]
    con.close()
    synthetic = SYNTHETIC_ROOT_NODES + kinds
    check(s["nodes"] == nodes + synthetic, "HPROF export: %d nodes = %d of the dump + %d synthetic"
          % (s["nodes"], nodes, synthetic))
    check(s["edges"] == edges + 1 + kinds + roots + class_edges,
          "HPROF export: %d edges = %d of the dump + %d to the GC-root groups + %d GC roots + %d to classes"
          % (s["edges"], edges, 1 + kinds, roots, class_edges))
    # What the root reaches is what node_analysis has reachable (48 classes
    # were unreachable without the class edges); over the strong edges
    # (DevTools' distance), what it has strongly reachable: a referent is a
    # weak edge.
    snap = json.load(open(out))
    weak = snap["snapshot"]["meta"]["edge_types"][0].index("weak")
    ids, edges_by_id = graph(snap)
    for strong, want, what in ((False, unreachable, "unreachable"), (True, unreachable + weakly, "not strongly reachable")):
        succ = {}
        for a, typ, _, b in edges_by_id:
            if not strong or typ != weak:
                succ.setdefault(a, []).append(b)
        seen, todo = {ids[0]}, [ids[0]]
        while todo:
            for b in succ.get(todo.pop(), ()):
                if b not in seen:
                    seen.add(b)
                    todo.append(b)
        check(len(ids) - len(seen) == want, "HPROF export: %d nodes %s from the root, node_analysis %d"
              % (len(ids) - len(seen), what, want))
    totals = {k: v for k, v in s["all"].items()}
    synth = {k: v for k, v in totals.items() if k == "" or k.startswith("(")}
    for k in synth:
        del totals[k]
    check(sum(v[0] for v in synth.values()) == synthetic, "HPROF export: the synthetic nodes are named "
          "\"\" and \"(...)\" (%r)" % synth)
    check(totals == histo, "HPROF export: per-class count and bytes equal class_histogram.sql (%s)"
          % diff_totals(totals, histo))
    print("HPROF sample: %d nodes (%d synthetic), %d classes as class_histogram.sql"
          % (s["nodes"], synthetic, len(histo)))


def there_and_back(tools, snap, tmp, name):
    """snap written as NAME.heapsnapshot, through heapsnapshot2heapdb
    (NAME.db) and heapdb2heapsnapshot (NAME-back.heapsnapshot): (db, back),
    or None when a program failed (checked)."""
    t = lambda n: os.path.join(tools, n)
    src_path, db, back = (os.path.join(tmp, name + x) for x in (".heapsnapshot", ".db", "-back.heapsnapshot"))
    with open(src_path, "w") as f:
        json.dump(snap, f)
    what = name.replace("-", " ")
    rc, _, err = run([t("heapsnapshot2heapdb"), "-q", src_path, db])
    if not check(rc == 0, "%s: heapsnapshot2heapdb: %s" % (what, err)):
        return None
    rc, _, err = run([t("heapdb2heapsnapshot"), "-q", db, back])
    if not check(rc == 0, "%s: heapdb2heapsnapshot: %s" % (what, err)):
        return None
    return db, back


def kept_members(tools, src, tmp):
    """Header keys and top-level sections heapfmt does not know come back
    from the database as they went in (the JSON values equal, in ASCII)."""
    t = lambda n: os.path.join(tools, n)
    with open(os.path.join(src, "testdata", "v8", "small.heapsnapshot")) as f:
        snap = json.load(f)
    snap["snapshot"]["extra_native_bytes"] = 123456
    snap["snapshot"]["future_flags"] = {"a": [1, 2.5, "\u00e9\U0001f600"], "b": None}
    snap["future_section"] = [[1, 2], {"x": "y"}]
    # Numbers a double would change (2^64-1, 2^63, 1.0, 0.1 as %.17g): as written.
    numbers = [2 ** 64 - 1, 2 ** 63, 1.0, 0.1, -1.5e300, 5e-324, -0.0, 12345678901234567890]
    snap["snapshot"]["future_uid"] = 2 ** 64 - 1
    snap["snapshot"]["future_ratio"] = 1.0
    snap["future_numbers"] = numbers
    res = there_and_back(tools, snap, tmp, "kept-members")
    if not res:
        return
    db, back = res
    raw = open(back, "rb").read()
    check(all(b < 0x80 for b in raw), "kept members: the export is ASCII")
    literal = lambda text: json.loads(text, parse_int=lambda x: "int " + x, parse_float=lambda x: "real " + x)
    written = literal(json.dumps(snap))
    back_literal = literal(raw)
    for k in ("future_uid", "future_ratio"):
        check(back_literal["snapshot"].get(k) == written["snapshot"][k],
              "kept members: header key %s as written: %r, want %r"
              % (k, back_literal["snapshot"].get(k), written["snapshot"][k]))
    check(back_literal.get("future_numbers") == written["future_numbers"],
          "kept members: the unknown section's numbers as written: %r, want %r"
          % (back_literal.get("future_numbers"), written["future_numbers"]))
    con = sqlite3.connect(db)
    kept = dict(con.execute("SELECT key, value FROM metadata WHERE key IN "
                            "('v8.snapshot.future_uid', 'v8.snapshot.future_ratio', 'v8.extra.future_numbers')"))
    con.close()
    check(kept == {"v8.snapshot.future_uid": "18446744073709551615", "v8.snapshot.future_ratio": "1.0",
                   "v8.extra.future_numbers": json.dumps(numbers, separators=(",", ":"))},
          "kept members: the database keeps each number's text (%r)" % kept)
    out = json.loads(raw)
    for k in ("extra_native_bytes", "future_flags"):
        check(out["snapshot"].get(k) == snap["snapshot"][k], "kept members: header key %s: %r" % (k, out["snapshot"].get(k)))
    check(out.get("future_section") == snap["future_section"], "kept members: the unknown section")
    check(out["nodes"] == snap["nodes"] and out["strings"] == snap["strings"], "kept members: nodes and strings")
    # A kept key the writer writes itself (a trace tree the reader could not
    # map is kept as v8.extra.trace_tree) is left out: no key comes twice.
    con = sqlite3.connect(db)
    con.executemany("INSERT INTO metadata (key, value) VALUES (?, ?)",
                    [("v8.extra.trace_tree", "[0, 1]"), ("v8.extra.nodes", "[1]"),
                     ("v8.snapshot.node_count", "99"), ("v8.extra.broken", "[1,")])
    con.commit()
    con.close()
    os.unlink(back)
    rc, _, err = run([t("heapdb2heapsnapshot"), "-q", db, back])
    dups = []

    def pairs(items):
        keys = [k for k, _ in items]
        dups.extend(k for k in set(keys) if keys.count(k) > 1)
        return dict(items)
    if check(rc == 0, "kept members, own keys: heapdb2heapsnapshot: %s" % err):
        out = json.load(open(back), object_pairs_hook=pairs)
        check(not dups, "kept members: no key twice (%s)" % dups)
        check(out["snapshot"]["node_count"] == len(snap["nodes"]) // len(snap["snapshot"]["meta"]["node_fields"])
              and "broken" not in out, "kept members: the counts are the writer's; a value that is not JSON is left out")


def graph(snap):
    """The nodes' ids in order and the edges as (from id, type, name or
    index, to id), of a parsed snapshot."""
    meta = snap["snapshot"]["meta"]
    nf, ef = meta["node_fields"], meta["edge_fields"]
    n, e = snap["nodes"], snap["edges"]
    idf, ecf = nf.index("id"), nf.index("edge_count")
    ids = [n[i + idf] for i in range(0, len(n), len(nf))]
    edges, k = [], 0
    for j, i in enumerate(range(0, len(n), len(nf))):
        for _ in range(n[i + ecf]):
            f = dict(zip(ef, e[k:k + len(ef)]))
            edges.append((ids[j], f["type"], f["name_or_index"], ids[f["to_node"] // len(nf)]))
            k += len(ef)
    return ids, edges


def graphs_back(tools, snap, tmp, name):
    """there_and_back, and graph() of snap and of the snapshot back: (db,
    back, graph of snap, graph back), or None."""
    res = there_and_back(tools, snap, tmp, name)
    if not res:
        return None
    db, back = res
    return db, back, graph(snap), graph(json.load(open(back)))


def small_snapshot(src):
    """testdata/v8/small.heapsnapshot parsed, its node fields and the index
    of "id" among them."""
    with open(os.path.join(src, "testdata", "v8", "small.heapsnapshot")) as f:
        snap = json.load(f)
    nf = snap["snapshot"]["meta"]["node_fields"]
    return snap, nf, nf.index("id")


def big_ids(tools, src, tmp):
    """Ids from 2^63 on (negative in the database) come back after the
    others, in unsigned order: the root stays the first node (it came first
    until 2026-11-29, when the writer sorted the database's signed values)."""
    snap, nf, idf = small_snapshot(src)
    ids = [snap["nodes"][i + idf] for i in range(0, len(snap["nodes"]), len(nf))]
    # The last node and one in the middle take ids past 2^63.
    snap["nodes"][(len(ids) - 1) * len(nf) + idf] = 2**64 - 3
    snap["nodes"][(len(ids) // 2) * len(nf) + idf] = 2**63 + 5
    res = graphs_back(tools, snap, tmp, "big-ids")
    if not res:
        return
    _, _, (gi, ge), (bi, be) = res
    check(bi[0] == gi[0], "big ids: the root first (%s, not %s)" % (gi[0], bi[0]))
    check(bi == sorted(gi), "big ids: nodes in unsigned id order: %s" % bi)
    check(sorted(be) == sorted(ge), "big ids: the same edges between the same ids")


def named_edges(snap):
    """graph()'s edges with the names of named edges as text (an export
    numbers its strings in the order it uses them)."""
    meta = snap["snapshot"]["meta"]
    types = meta["edge_types"][0]
    _, edges = graph(snap)
    return [(a, t, n if types[t] in ("element", "hidden") else snap["strings"][n], b) for a, t, n, b in edges]


def located(snap):
    """The locations of a parsed snapshot with their node's id in place of
    its index, sorted."""
    meta = snap["snapshot"]["meta"]
    lf, nf = meta.get("location_fields") or [], meta["node_fields"]
    ids, _ = graph(snap)
    if "object_index" not in lf:
        return []
    oi, loc = lf.index("object_index"), snap.get("locations", [])
    rows = [loc[i:i + len(lf)] for i in range(0, len(loc), len(lf))]
    return sorted(tuple(ids[r[oi] // len(nf)] if k == oi else v for k, v in enumerate(r)) for r in rows)


def root_first(tools, src, tmp):
    """A snapshot whose first node (its root: readers walk from node 0) has
    not the smallest id, as another producer may write it, comes back with
    that node first and the others in id order after it, their edges and
    locations on the same ids (the importer keeps the root's id as v8.root):
    a root past every id, one between two ids, one past 2^63 beside another
    id there, one without edges.  A database without v8.root, or whose
    v8.root is not a decimal number below 2^64 or names no node, gives
    identifier order."""
    t = lambda n: os.path.join(tools, n)
    base, nf, idf = small_snapshot(src)
    ids, _ = graph(base)
    ef = len(base["snapshot"]["meta"]["edge_fields"])
    ecf = nf.index("edge_count")
    first_db = None
    for name, root, other, bare in (("past every id", max(ids) + 1000, None, False),
                                    ("between two ids", sorted(ids)[3] + 1, None, False),
                                    ("past 2^63", 2**63 + 1, 2**64 - 3, False),
                                    ("without edges", sorted(ids)[2] + 1, None, True)):
        snap = json.loads(json.dumps(base))
        snap["nodes"][idf] = root
        if other is not None:
            snap["nodes"][(len(ids) - 1) * len(nf) + idf] = other
        if bare:
            snap["edges"] = snap["edges"][snap["nodes"][ecf] * ef:]
            snap["snapshot"]["edge_count"] = len(snap["edges"]) // ef
            snap["nodes"][ecf] = 0
        what = "root first, " + name
        res = graphs_back(tools, snap, tmp, "root-first-" + name.replace(" ", "-").replace("^", ""))
        if not res:
            continue
        db, back, (gi, _), (bi, _) = res
        out = json.load(open(back))
        check(bi[0] == root, "%s: the root first (%s, not %s)" % (what, root, bi[0]))
        check(bi[1:] == sorted(gi[1:]), "%s: the others in id order: %s" % (what, bi))
        check(sorted(named_edges(out)) == sorted(named_edges(snap)), "%s: the same edges between the same ids" % what)
        check(located(out) == located(snap) and located(snap), "%s: the locations on the same ids" % what)
        con = sqlite3.connect(db)
        kept = con.execute("SELECT value FROM metadata WHERE key = 'v8.root'").fetchall()
        con.close()
        check(kept == [(str(root),)], "%s: v8.root kept: %r" % (what, kept))
        if first_db is None:
            first_db, first_back, first_snap, first_root = db, back, snap, root
    if first_db is None:
        return
    gi, _ = graph(first_snap)
    con = sqlite3.connect(first_db)
    for value, why in ((None, "without v8.root"), ("12345678901", "v8.root naming no node"),
                       (str(first_root) + "x", "v8.root not a number"), ("", "v8.root empty"),
                       (str(2**64 + first_root), "v8.root past 2^64")):
        con.execute("DELETE FROM metadata WHERE key = 'v8.root'")
        if value is not None:
            con.execute("INSERT INTO metadata (key, value) VALUES ('v8.root', ?)", (value,))
        con.commit()
        os.unlink(first_back)
        rc, _, err = run([t("heapdb2heapsnapshot"), "-q", first_db, first_back])
        if check(rc == 0, "root first, %s: heapdb2heapsnapshot: %s" % (why, err)):
            out = json.load(open(first_back))
            bi, _ = graph(out)
            check(bi == sorted(gi) and sorted(named_edges(out)) == sorted(named_edges(first_snap)),
                  "root first, %s: identifier order, the same edges: %s" % (why, bi))
    con.close()


def mode_node(tools, src, build):
    with tempfile.TemporaryDirectory() as tmp:
        kept_members(tools, src, tmp)
        big_ids(tools, src, tmp)
        root_first(tools, src, tmp)
    mods, why = npm_parser(build)
    if not mods:
        if pycheck.failures:
            return done("test_v8")
        print("SKIP: %s (the kept members were checked)" % why)
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        snap = os.path.join(tmp, "node.heapsnapshot")
        rc, _, err = run(["node", os.path.join(src, "testdata", "v8", "make-snapshot.js"), snap])
        if not check(rc == 0, "make-snapshot.js exit %d: %s" % (rc, err)):
            return done("test_v8")
        for s in (os.path.join(src, "testdata", "v8", "small.heapsnapshot"), snap):
            with tempfile.TemporaryDirectory() as t2:
                one_snapshot(tools, src, build, mods, s, t2)
        with tempfile.TemporaryDirectory() as t2:
            hprof_export(tools, src, mods, t2)
    return done("test_v8")


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("node", "hostile"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, tools, src, build = sys.argv[1:]
    if mode == "node":
        return mode_node(tools, src, build)
    import test_v8_hostile  # noqa: E402
    return test_v8_hostile.main(tools, src, build)


if __name__ == "__main__":
    sys.exit(main())
