#!/usr/bin/env python3
"""Checks the schema contract (schema/) against a real conversion.

Converts ../shared/corpus/hprof/hotspot17-g1.live.hprof (a HotSpot 17 dump
made by corpus/gen/CorpusHeap.java, with a jcmd class histogram taken from
the same JVM) and checks:
  - schema/heapdb.sql loads into `sqlite3 :memory:`, has a comment on every
    table and column, and declares exactly the tables, columns, types, keys
    and indexes of the database hprof2heapdb writes;
  - every NDJSON line (plain and --values) validates against
    schema/heapfmt.schema.json (a small validator for the keyword subset of
    tests/jschema.c is below), and the schema rejects broken lines and
    accepts unknown namespaced record types;
  - every metadata key written is documented in schema/README.md;
  - every query of schema/queries/, run through the sqlite3 command line
    with `-cmd ".parameter set @id N"`, gives the right answer: the class
    histogram equals jcmd's, referrers equal the edges, paths from a root are
    chains of real edges as short as a breadth-first search finds, duplicate
    strings and biggest arrays are what CorpusHeap allocated;
  - node_analysis agrees node by node with a dominator computation written
    here (iterative, over a reverse postorder), and the analysis queries
    (top_retained, dominator_path, leak_suspects, retained_by_class) give
    what node_analysis says.

Usage: test_queries.py HPROF2HEAPDB REPO_ROOT
(hprof2ndjson is taken from beside hprof2heapdb.)  Exit 0 pass, 1 fail,
77 skip (corpus or the sqlite3 program absent).

With --own, only what needs none of the corpus: duplicate_strings.sql on
texts that hold U+0000 (the sample dump of testdata/, Strings added to its
NDJSON, loaded by ndjson2heapdb from beside hprof2heapdb).
"""
import collections
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from pycheck import check, done

SKIP = 77
def check_eq(got, want, what):
    return check(got == want, "%s: got %r, want %r" % (what, got, want))


# ---------------------------------------------------------------------------
# A validator for the JSON Schema subset of tests/jschema.c
# ---------------------------------------------------------------------------

KEYWORDS = {"$schema", "$id", "$defs", "$ref", "$comment", "title", "description", "type",
            "properties", "required", "additionalProperties", "enum", "const", "items", "anyOf",
            "oneOf", "allOf", "not", "minimum", "maximum", "pattern", "minLength", "examples",
            "default"}


def schema_keywords_ok(s, where="#"):
    """Every keyword is in the subset (like jschema_load)."""
    if isinstance(s, bool):
        return []
    if not isinstance(s, dict):
        return [where + ": not a schema"]
    bad = []
    for k, v in s.items():
        if k not in KEYWORDS:
            bad.append("%s: keyword %s" % (where, k))
        elif k in ("properties", "$defs"):
            for pk, pv in v.items():
                bad += schema_keywords_ok(pv, "%s/%s/%s" % (where, k, pk))
        elif k in ("anyOf", "oneOf", "allOf"):
            for i, e in enumerate(v):
                bad += schema_keywords_ok(e, "%s/%s/%d" % (where, k, i))
        elif k in ("items", "not") or (k == "additionalProperties" and isinstance(v, dict)):
            bad += schema_keywords_ok(v, "%s/%s" % (where, k))
        if k == "pattern":
            try:
                re.compile(v)
            except re.error as e:
                bad.append("%s: pattern %r: %s" % (where, v, e))
        if k == "$ref" and not v.startswith("#/$defs/"):
            bad.append("%s: non-local $ref %s" % (where, v))
    return bad


_JSON_TYPES = {dict: ("object",), list: ("array",), str: ("string",), bool: ("boolean",),
               int: ("integer", "number"), float: ("number",), type(None): ("null",)}


def json_type_is(v, t):
    return t in _JSON_TYPES.get(type(v), ())


def json_equal(a, b):
    """JSON equality: true is not 1, 1 equals 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _hashable(c):
    """A key under which JSON-equal scalars meet (true is not 1; 1 is 1.0)."""
    if isinstance(c, bool):
        return ("bool", c)
    if isinstance(c, (int, float)):
        return ("num", c)
    if isinstance(c, str):
        return ("str", c)
    if c is None:
        return ("null",)
    return None


class Validator:
    """Compiles each schema object once into a list of checks; validate()
    returns None if the value is valid, else the first reason."""

    def __init__(self, schema):
        self.root = schema
        self.compiled = {}

    def validate(self, v, s=None):
        return self._compile(self.root if s is None else s)(v, 0)

    def _compile(self, s):
        f = self.compiled.get(id(s))
        if f is None:
            f = self.compiled[id(s)] = self._build(s)
            self.compiled[("keep", id(s))] = s   # keep s alive while its id is a key
        return f

    def _build(self, s):
        if s is True:
            return lambda v, d: None
        if s is False:
            return lambda v, d: "nothing is allowed here"
        checks = []
        comp = self._compile

        if "$ref" in s:
            target = self.root["$defs"].get(s["$ref"][len("#/$defs/"):])
            if target is None:
                return lambda v, d, r=s["$ref"]: "unresolvable $ref " + r

            def ref(v, d, target=target):
                return comp(target)(v, d + 1)
            checks.append(ref)
        if "type" in s:
            ts = tuple(s["type"]) if isinstance(s["type"], list) else (s["type"],)

            def typ(v, d, ts=ts):
                if not any(json_type_is(v, t) for t in ts):
                    return "wrong type (want %s)" % "/".join(ts)
            checks.append(typ)
        if "const" in s:
            def const(v, d, c=s["const"]):
                if not json_equal(c, v):
                    return "not %r" % (c,)
            checks.append(const)
        if "enum" in s:
            def enum(v, d, e=s["enum"]):
                if not any(json_equal(x, v) for x in e):
                    return "not one of %r" % (e,)
            checks.append(enum)
        if "minimum" in s or "maximum" in s:
            def bounds(v, d, lo=s.get("minimum"), hi=s.get("maximum")):
                if json_type_is(v, "number"):
                    if lo is not None and v < lo:
                        return "below minimum %r" % lo
                    if hi is not None and v > hi:
                        return "above maximum %r" % hi
            checks.append(bounds)
        if "minLength" in s:
            def minlen(v, d, n=s["minLength"]):
                if isinstance(v, str) and len(v.encode("utf-8")) < n:
                    return "shorter than %d" % n
            checks.append(minlen)
        if "pattern" in s:
            def pattern(v, d, rx=re.compile(s["pattern"]), p=s["pattern"]):
                if isinstance(v, str) and not rx.search(v):
                    return "does not match " + p
            checks.append(pattern)
        if "required" in s or "properties" in s or "additionalProperties" in s:
            req = tuple(s.get("required", ()))
            props = s.get("properties", {})
            addl = s.get("additionalProperties")

            def obj(v, d, req=req, props=props, addl=addl):
                if not isinstance(v, dict):
                    return None
                for k in req:
                    if k not in v:
                        return "missing property " + k
                for k, x in v.items():
                    ps = props.get(k)
                    if ps is not None:
                        why = comp(ps)(x, d + 1)
                        if why:
                            return "property %s: %s" % (k, why)
                    elif addl is not None:
                        why = comp(addl)(x, d + 1)
                        if why:
                            return "property %s not allowed: %s" % (k, why)
            checks.append(obj)
        if "items" in s:
            memo = {}   # scalar items repeat (a byte[] has 256 values at most)

            def items(v, d, it=s["items"], memo=memo):
                if isinstance(v, list):
                    f = comp(it)
                    for i, x in enumerate(v):
                        k = (type(x), x) if isinstance(x, (int, float, str, bool)) else None
                        if k is not None and k in memo:
                            why = memo[k]
                        else:
                            why = f(x, d + 1)
                            if k is not None and len(memo) < 100000:
                                memo[k] = why
                        if why:
                            return "item %d: %s" % (i, why)
            checks.append(items)
        if "allOf" in s:
            def allof(v, d, subs=s["allOf"]):
                for sub in subs:
                    why = comp(sub)(v, d + 1)
                    if why:
                        return why
            checks.append(allof)
        if "anyOf" in s:
            # A branch demanding "key": const (itself or through its $ref)
            # cannot match a value whose key differs.  Branches are looked up
            # by the value of the key most of them constrain, and the others
            # tried as well: the same result as trying them all, sooner.
            table, rest, key = {}, [], None
            per_branch = []
            for b in s["anyOf"]:
                consts = {}
                for sch in (b, self.root["$defs"].get(b.get("$ref", "")[len("#/$defs/"):], {})
                            if isinstance(b, dict) else {}):
                    if isinstance(sch, dict):
                        for k, ps in sch.get("properties", {}).items():
                            if isinstance(ps, dict) and "const" in ps and _hashable(ps["const"]):
                                consts[k] = ps["const"]
                per_branch.append((b, consts))
            counts = collections.Counter(k for _, c in per_branch for k in c)
            if counts and counts.most_common(1)[0][1] >= 2:
                key = counts.most_common(1)[0][0]
            for b, consts in per_branch:
                if key is not None and key in consts:
                    table.setdefault(_hashable(consts[key]), []).append(b)
                else:
                    rest.append(b)

            def anyof(v, d, table=table, rest=rest, key=key, every=s["anyOf"]):
                if key is not None and isinstance(v, dict) and key in v:
                    h = _hashable(v[key])
                    cands = (table.get(h, []) + rest) if h is not None else every
                else:
                    cands = every
                first = None
                for b in cands:
                    why = comp(b)(v, d + 1)
                    if not why:
                        return None
                    first = first or why
                return "matches no anyOf branch (%s)" % (first or "none is for this %s" % key)
            checks.append(anyof)
        elif "oneOf" in s:
            def oneof(v, d, subs=s["oneOf"]):
                n = sum(1 for sub in subs if not comp(sub)(v, d + 1))
                if n != 1:
                    return "matches %d oneOf branches" % n
            checks.append(oneof)
        if "not" in s:
            def not_(v, d, sub=s["not"]):
                if not comp(sub)(v, d + 1):
                    return "matches a 'not' schema"
            checks.append(not_)

        def run(v, d, checks=tuple(checks)):
            if d > 64:
                return "schema recursion too deep"
            for c in checks:
                why = c(v, d)
                if why:
                    return why
            return None
        return run


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def run_query(db, path, params=None):
    """Runs a query file the way users do: sqlite3 -cmd '.parameter set' DB < FILE."""
    cmd = ["sqlite3", "-json", "-bail"]
    for k, v in (params or {}).items():
        cmd += ["-cmd", ".parameter set %s %s" % (k, v)]
    cmd.append(db)
    with open(path, "rb") as f:
        p = subprocess.run(cmd, stdin=f, capture_output=True)
    if not check(p.returncode == 0 and not p.stderr,
                 "%s %r: exit %d: %s" % (os.path.basename(path), params, p.returncode,
                                         p.stderr.decode(errors="replace")[:500])):
        return []
    out = p.stdout.decode("utf-8")
    return json.loads(out) if out.strip() else []


def histo_to_java(h):
    """jcmd histogram class name -> Java source form as heapfmt names it (a
    hidden class's Foo/0x... as in the histogram)."""
    dims = len(h) - len(h.lstrip("["))
    base = h[dims:]
    prim = {"Z": "boolean", "B": "byte", "C": "char", "S": "short", "I": "int", "J": "long",
            "F": "float", "D": "double"}
    if dims and base in prim:
        base = prim[base]
    elif dims and base.startswith("L") and base.endswith(";"):
        base = base[1:-1]
    return base + "[]" * dims


def read_histogram(path):
    rows = {}
    for line in open(path, encoding="utf-8"):
        m = re.match(r"\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)", line)
        if m:
            rows[histo_to_java(m.group(3))] = (int(m.group(1)), int(m.group(2)))
    return rows


class Heap:
    """The NDJSON of one dump, indexed for independent answers."""

    def __init__(self, path, only=None):
        """only: read just the lines of these record types (bytes prefixes)."""
        self.nodes = {}              # id -> record (dump 0)
        self.strings = {}
        self.edges_in = collections.defaultdict(list)
        self.edges_out = collections.defaultdict(list)
        self.roots = collections.defaultdict(set)
        self.edge_types = {}
        self.metadata = []
        self.lines = []
        with open(path, "rb") as f:
            raw = [x for x in f.read().split(b"\n") if x and (not only or x.startswith(only))]
        # One parse of the whole file as an array is much faster than one per
        # line; the count shows that each line held exactly one value.
        self.lines = json.loads(b"[" + b",".join(raw) + b"]")
        check_eq(len(self.lines), len(raw), "%s: one JSON value per line" % os.path.basename(path))
        del raw
        for r in self.lines:
            t = r["record"]
            if t == "node":
                self.nodes[r["identifier"]] = r
            elif t == "edge":
                self.edges_in[r["dest"]].append(r)
                self.edges_out[r["source"]].append(r)
            elif t == "string":
                self.strings[r["id"]] = r["data"]
            elif t == "hprof.gc_root":
                self.roots[r["object"]].add(r["kind"])
            elif t == "edge_type":
                self.edge_types[r["subtype"]] = r
            elif t == "metadata":
                self.metadata.append((r["key"], r["value"]))
        self.class_names = {i: self.strings.get(n.get("java_name"))
                            for i, n in self.nodes.items() if n["subtype"] == 1}

    def class_of(self, node_id):
        n = self.nodes[node_id]
        if n["subtype"] == 1:
            return self.class_names[node_id]
        return self.class_names.get(n["class"])

    def label(self, e):
        et = self.edge_types[e["subtype"]]
        if et["label"] == "string":
            return self.strings.get(e["label"])
        if et["label"] == "index":
            return ("#%d" if et["name"] == "constant_pool" else "[%d]") % e["label"]
        return None

    def instances_of(self, class_name):
        return [i for i, n in self.nodes.items()
                if n["subtype"] == 2 and self.class_names.get(n["class"]) == class_name]

    def field(self, obj, name):
        """Destination of obj's reference field `name` (None if null)."""
        for e in self.edges_out[obj]:
            if e["subtype"] in (1, 2) and self.strings.get(e["label"]) == name:
                return e["dest"]
        return None

    def shortest_root_distance(self, target, limit):
        """Breadth-first search backwards from target; distance to the nearest root."""
        seen = {target}
        level = [target]
        for d in range(limit + 1):
            if any(x in self.roots for x in level):
                return d
            nxt = []
            for x in level:
                for e in self.edges_in[x]:
                    if e["source"] not in seen:
                        seen.add(e["source"])
                        nxt.append(e["source"])
            if not nxt:
                return None
            level = nxt
        return None


# ---------------------------------------------------------------------------
# the checks
# ---------------------------------------------------------------------------

def check_ddl_comments(ddl_path):
    """The file loads into an empty database, and has a comment on every
    table and on every column definition."""
    with open(ddl_path, "rb") as f:
        p = subprocess.run(["sqlite3", ":memory:"], stdin=f, capture_output=True)
    name = os.path.basename(ddl_path)
    check(p.returncode == 0 and not p.stderr,
          "sqlite3 :memory: < schema/%s: exit %d: %s" % (name, p.returncode, p.stderr.decode()))
    text = open(ddl_path, encoding="utf-8").read()
    lines = text.split("\n")
    in_table = None
    for i, line in enumerate(lines):
        m = re.match(r'CREATE TABLE "?(\w+)"? \(', line)
        if m:
            in_table = m.group(1)
            check(lines[i - 1].startswith("--") or lines[i - 2].startswith("--"),
                  "%s: table %s has a comment before it" % (name, in_table))
            continue
        if in_table:
            if line.startswith(")"):
                in_table = None
            elif re.match(r'\s+"?\w+"? (INTEGER|TEXT|REAL)', line):
                check("--" in line, "%s: %s column line has a comment: %s" % (name, in_table, line.strip()))
    return text


def db_shape(con):
    """Every table (columns, WITHOUT ROWID) and index (columns) of a database."""
    out = {}
    wr = {}
    try:
        for r in con.execute("PRAGMA table_list"):
            wr[r[1]] = r[4]
    except sqlite3.DatabaseError:
        pass
    for name, typ in con.execute(
            "SELECT name, type FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name"):
        if typ == "table":
            cols = [tuple(r) for r in con.execute('PRAGMA table_xinfo("%s")' % name)]
            out[name] = ("table", cols, wr.get(name))
        elif typ == "index":
            cols = [tuple(r) for r in con.execute('PRAGMA index_xinfo("%s")' % name)]
            tbl = con.execute("SELECT tbl_name FROM sqlite_master WHERE name = ?", (name,)).fetchone()
            out[name] = ("index", tbl[0], cols)
    out["page_size"] = con.execute("PRAGMA page_size").fetchone()[0]
    return out


def check_ddl(root, db_path):
    text = check_ddl_comments(os.path.join(root, "schema", "heapdb.sql"))
    real = sqlite3.connect("file:%s?mode=ro" % db_path, uri=True)
    mem = sqlite3.connect(":memory:")
    mem.executescript(text)
    a, b = db_shape(real), db_shape(mem)
    for name in sorted(set(a) | set(b)):
        check_eq(b.get(name), a.get(name), "heapdb.sql vs the written database: " + name)
    real.close()
    mem.close()


def check_schema(root, heap, values_heap):
    schema_path = os.path.join(root, "schema", "heapfmt.schema.json")
    schema = json.load(open(schema_path, encoding="utf-8"))
    bad = schema_keywords_ok(schema)
    check(not bad, "schema keywords outside the validator's subset: %s" % bad[:5])
    v = Validator(schema)
    # The --values output differs from the plain one in its node and
    # metadata lines only, and only those were read.
    for name, h in (("NDJSON", heap), ("NDJSON --values (nodes, metadata)", values_heap)):
        invalid = 0
        kinds = collections.Counter()
        for i, r in enumerate(h.lines):
            kinds[r["record"]] += 1
            why = v.validate(r)
            if why:
                invalid += 1
                if invalid <= 3:
                    print("  %s line %d: %s: %s" % (name, i + 1, why, json.dumps(r)[:300]))
        check_eq(invalid, 0, "%s lines that do not validate (of %d)" % (name, len(h.lines)))
        if h is heap:
            check(kinds["node"] > 80000 and kinds["edge"] > 100000, "the dump has nodes and edges: %r" % kinds)

    # The schema is not so loose that it accepts anything.
    def first(pred):
        return next(r for r in heap.lines if pred(r))
    node_cls = first(lambda r: r["record"] == "node" and r["subtype"] == 1)
    node_str = first(lambda r: r["record"] == "node" and r["subtype"] == 2 and "text" in r)
    node_pa = first(lambda r: r["record"] == "node" and r["subtype"] == 4)
    edge = first(lambda r: r["record"] == "edge" and r["subtype"] == 1)
    frame_root = first(lambda r: r["record"] == "hprof.gc_root" and r["kind"] == "JAVA_FRAME")
    meta = first(lambda r: r["record"] == "metadata")

    def mod(r, **kw):
        r = dict(r)
        for k, x in kw.items():
            if x is None:
                r.pop(k, None)
            else:
                r[k] = x
        return r
    rejects = [
        ("instance field on a class node", mod(node_cls, text=5)),
        ("class node without super", mod(node_cls, **{"super": None})),
        ("negative identifier", mod(node_str, identifier=-1)),
        ("identifier as text", mod(node_str, identifier=str(node_str["identifier"]))),
        ("size as a real", mod(node_str, size=24.5)),
        ("text id 0", mod(node_str, text=0)),
        ("unknown node field", mod(node_str, colour="red")),
        ("bad element type", mod(node_pa, element_type="bit")),
        ("nodata 0", mod(node_pa, nodata=0)),
        ("edge to 0", mod(edge, dest=0)),
        ("edge without dump", mod(edge, dump=None)),
        ("superclass edge with a label", mod(edge, subtype=4, label=7)),
        ("JAVA_FRAME root without frame", mod(frame_root, frame=None)),
        ("STICKY_CLASS root with a thread", mod(frame_root, kind="STICKY_CLASS")),
        ("unknown root kind", mod(frame_root, kind="SOMETHING")),
        ("extra gc_root field", mod(frame_root, note="x")),
        ("version_major 2", mod(meta, value="2")),
        ("metadata value not text", mod(meta, key="hprof.dumps", value=1)),
        ("hprof.dumps not a number", mod(meta, key="hprof.dumps", value="one")),
        ("un-namespaced record", {"record": "thing", "x": 1}),
        ("hprof record without its fields", {"record": "hprof.heap"}),
        ("string id 0", {"record": "string", "id": 0, "data": "x"}),
        ("node type 1 renamed", {"record": "node_type", "subtype": 1, "name": "klass", "table": "node_class",
                                 "fields": []}),
        ("field of an unknown kind", {"record": "record_type", "name": "acme.x",
                                      "fields": [{"name": "a", "type": "blob"}]}),
        ("--values with a non-primitive", mod(node_str, values={"x": [1]})),
    ]
    for what, r in rejects:
        check(v.validate(r) is not None, "the schema rejects: " + what)
    accepts = [
        ("a record of another namespace", {"record": "acme.timer", "delay_ms": 5, "anything": [1, {"x": 2}]}),
        ("a record type of another namespace", {"record": "record_type", "name": "acme.timer",
                                                "table": "acme_timer",
                                                "fields": [{"name": "delay_ms", "type": "int", "doc": ""}]}),
        ("an unknown metadata key", {"record": "metadata", "key": "target_pid", "value": "1234"}),
        ("a node of another subtype", dict(node_str, subtype=9, closure=3)),
        ("an edge of another subtype", dict(edge, subtype=12)),
        ("NaN in --values", mod(node_str, values={"f": "NaN", "d": -1.5e300, "z": True, "c": 65})),
        ("a primitive array with values", mod(node_pa, values=[1, 2.5, "Infinity", False])),
    ]
    for what, r in accepts:
        why = v.validate(r)
        check(why is None, "the schema accepts %s: %s" % (what, why))


def check_metadata_documented(root, heap, db_path):
    readme = open(os.path.join(root, "schema", "README.md"), encoding="utf-8").read()
    keys = {k for k, _ in heap.metadata}
    con = sqlite3.connect("file:%s?mode=ro" % db_path, uri=True)
    keys |= {k for (k,) in con.execute("SELECT DISTINCT key FROM metadata")}
    con.close()
    for k in sorted(keys):
        check("`%s`" % k in readme, "metadata key %s is documented in schema/README.md" % k)
    check_eq(heap.metadata[0], ("version_major", "1"), "first record")
    check_eq(heap.metadata[-1], ("heapfmt.complete", "true"), "last metadata record")
    check_eq(heap.lines[-1], {"record": "metadata", "key": "heapfmt.complete", "value": "true"}, "last line")
    # README "String ids": a node's text names a string record written before it.
    seen, late = set(), 0
    for r in heap.lines:
        if r["record"] == "string":
            seen.add(r["id"])
        elif r["record"] == "node" and "text" in r and r["text"] not in seen:
            late += 1
    check_eq(late, 0, "String nodes whose text record comes after them")
    check_eq(len(heap.instances_of("java.lang.String")),
             sum(1 for n in heap.nodes.values() if "text" in n), "every String has its text")


def independent_dominators(heap):
    """The analysis recomputed here, another way: the iterative algorithm of
    Cooper, Harvey and Kennedy over a reverse postorder, on the NDJSON graph
    (schema/README.md "Analysis": strong edges, each object's class,
    Reference.referent left out).  Returns (distance, dominator, retained)
    dicts over the strongly reachable objects; dominator 0 is the super-root."""
    nodes = heap.nodes
    by_name = {n: i for i, n in heap.class_names.items()}
    ref_root = by_name.get("java.lang.ref.Reference")
    ref_classes = set()
    for c in heap.class_names:
        x, seen = c, set()
        while x and x in nodes and x not in seen:
            if x == ref_root:
                ref_classes.add(c)
                break
            seen.add(x)
            x = nodes[x].get("super")
    succ = {}
    for i, n in nodes.items():
        out = []
        if n["class"] in nodes:
            out.append(n["class"])
        for e in heap.edges_out.get(i, ()):
            if e["dest"] not in nodes:
                continue
            if (e["subtype"] == 1 and n["class"] in ref_classes
                    and heap.strings.get(e["label"]) == "referent"):
                continue
            out.append(e["dest"])
        succ[i] = out
    roots = [r for r in heap.roots if r in nodes]
    # distances
    dist = {r: 0 for r in roots}
    level = list(roots)
    while level:
        nxt = []
        for u in level:
            for v in succ[u]:
                if v not in dist:
                    dist[v] = dist[u] + 1
                    nxt.append(v)
        level = nxt
    # reverse postorder from the super-root (0)
    SUPER = 0
    order, seen = [], {SUPER}
    stack = [(SUPER, iter(roots))]
    while stack:
        u, it = stack[-1]
        v = next(it, None)
        if v is None:
            order.append(u)
            stack.pop()
        elif v not in seen:
            seen.add(v)
            stack.append((v, iter(succ[v])))
    order.reverse()
    rpo = {v: k for k, v in enumerate(order)}
    preds = collections.defaultdict(list)
    for r in roots:
        preds[r].append(SUPER)
    for u in order[1:]:
        for v in succ[u]:
            preds[v].append(u)
    for v in preds:
        preds[v].sort(key=rpo.get, reverse=True)
    idom = {SUPER: SUPER}

    def intersect(a, b):
        while a != b:
            while rpo[a] > rpo[b]:
                a = idom[a]
            while rpo[b] > rpo[a]:
                b = idom[b]
        return a
    changed = True
    while changed:
        changed = False
        for v in order[1:]:
            new = None
            for p in preds[v]:
                if p in idom:
                    new = p if new is None else intersect(p, new)
            if idom.get(v) != new:
                idom[v] = new
                changed = True
    retained = {v: nodes[v]["size"] for v in order[1:]}
    for v in reversed(order[1:]):
        if idom[v] != SUPER:
            retained[idom[v]] += retained[v]
    return dist, {v: idom[v] for v in order[1:]}, retained


def check_analysis(qdir, db, heap):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    rows = {r[0]: r[1:] for r in con.execute(
        "SELECT identifier, reachable, distance, dominator, retained_size FROM node_analysis WHERE dump = 0")}
    (reachable_bytes,) = con.execute("SELECT reachable_bytes FROM dump_analysis WHERE dump = 0").fetchone()
    sizes = {r[0]: r[1] for r in con.execute("SELECT identifier, size FROM node WHERE dump = 0")}
    con.close()
    check_eq(len(rows), len(heap.nodes), "node_analysis has a row per node")
    # The analysis against an independent computation, node by node.
    dist, idom, retained = independent_dominators(heap)
    bad = []
    for i in heap.nodes:
        r = rows.get(i)
        want = (1, dist[i], idom[i], retained[i]) if i in idom else None
        got = r if r and r[0] == 1 else None
        if want != got and not (want is None and r and r[0] in (0, 2) and r[1:] == (None, None, None)):
            bad.append((i, got, want))
    check_eq(bad[:5], [], "node_analysis agrees with an iterative dominator computation (%d differ)" % len(bad))
    check(sum(1 for r in rows.values() if r[0] == 1) > 80000, "most objects are strongly reachable")
    check_eq(reachable_bytes, sum(sizes[i] for i, r in rows.items() if r[0] == 1),
             "dump_analysis.reachable_bytes")

    def name(i):
        return heap.class_of(i) if heap.nodes[i]["subtype"] != 4 or heap.class_of(i) else None

    # top_retained
    q = os.path.join(qdir, "top_retained.sql")
    top = run_query(db, q)
    check(top and set(top[0]) == {"object", "kind", "class", "shallow_bytes", "retained_bytes", "percent",
                                  "distance", "dominator", "dump"}, "top_retained.sql columns")
    want = sorted((i for i, r in rows.items() if r[0] == 1), key=lambda i: (-rows[i][3], i))[:20]
    check_eq([t["object"] for t in top], want, "top_retained: the 20 largest retained sizes")
    for t in top:
        r = rows[t["object"]]
        check_eq((t["retained_bytes"], t["distance"], t["dominator"], t["shallow_bytes"], t["class"]),
                 (r[3], r[1], r[2], sizes[t["object"]], name(t["object"])), "top_retained row %d" % t["object"])
        check_eq(t["percent"], round(100.0 * r[3] / reachable_bytes, 2), "top_retained percent")
    check_eq(len(run_query(db, q, {"@limit": 3, "@dump": 0})), 3, "top_retained @limit 3")
    check_eq(run_query(db, q, {"@dump": 1}), [], "top_retained @dump 1 (no such dump)")
    # The 1 MiB byte[] CorpusHeap allocated is among them, retaining itself.
    big = run_query(db, q, {"@limit": 10000})
    check(any(t["class"] == "byte[]" and t["retained_bytes"] == 1048592 for t in big),
          "top_retained lists the 1 MiB byte[]")

    # dominator_path: the list node 3000 of CorpusHeap's linked list
    q = os.path.join(qdir, "dominator_path.sql")
    deep = max((i for i, r in rows.items() if r[0] == 1), key=lambda i: (rows[i][1], i))
    for obj in (deep, top[3]["object"]):
        path = run_query(db, q, {"@id": obj})
        check(path and path[-1]["object"] == obj, "dominator_path ends at the object")
        check_eq([p["depth"] for p in path], list(range(len(path))), "dominator_path depths")
        if path:
            check_eq(rows[path[0]["object"]][2], 0, "dominator_path starts under the super-root")
        for a, b in zip(path, path[1:]):
            check_eq(rows[b["object"]][2], a["object"], "dominator_path: each row dominates the next")
        chain, x = [], obj
        while x:
            chain.append(x)
            x = idom[x]
        check_eq([p["object"] for p in path], chain[::-1], "dominator_path is the dominator chain")
        for p in path:
            check_eq((p["retained_bytes"], p["distance"], p["class"], p["reachable"]),
                     (rows[p["object"]][3], rows[p["object"]][1], name(p["object"]), 1), "dominator_path row")
            check_eq(p["root_kind"], ",".join(sorted(heap.roots[p["object"]])) or None
                     if p["object"] in heap.roots else None, "dominator_path root kinds")
    check(len(run_query(db, q, {"@id": deep})) > 3000, "the linked list's last node is thousands deep")
    unreachable = [i for i, r in rows.items() if r[0] != 1]
    if unreachable:
        path = run_query(db, q, {"@id": unreachable[0]})
        check_eq([(p["object"], p["retained_bytes"]) for p in path], [(unreachable[0], None)],
                 "dominator_path of an object not strongly reachable")
    check_eq(run_query(db, q, {"@id": 12345}), [], "dominator_path of an id that is not there")

    # leak_suspects
    q = os.path.join(qdir, "leak_suspects.sql")
    for share in (0.05, 0.01, 0.002):
        got = run_query(db, q, {"@share": share})
        big = {i for i, r in rows.items() if r[0] == 1 and r[3] >= share * reachable_bytes}
        holders = {rows[j][2] for j in big}
        want = sorted((i for i in big if i not in holders), key=lambda i: (-rows[i][3], i))
        check_eq([g["object"] for g in got], want, "leak_suspects @share %g" % share)
        for g in got:
            chain, x = [], g["object"]
            while x:
                chain.append("%s@0x%x (%d)" % (name(x), x, rows[x][3]))
                x = idom[x]
            check_eq(g["path"], " > ".join(reversed(chain)), "leak_suspects path of %d" % g["object"])
            check_eq((g["retained_bytes"], g["class"]), (rows[g["object"]][3], name(g["object"])),
                     "leak_suspects row")
    check(run_query(db, q, {"@share": 0.01}), "leak suspects at 1 %")
    # CorpusHeap's 50,000-node linked list: its head is an accumulation point.
    got = run_query(db, q, {"@share": 0.05})
    check(any(g["class"] == "corpusgen.CorpusHeap$Node" for g in got),
          "the linked list of CorpusHeap$Node is a suspect at 5 %%: %r" % [(g["class"], g["percent"]) for g in got])

    # retained_by_class
    q = os.path.join(qdir, "retained_by_class.sql")
    got = run_query(db, q, {"@limit": -1})
    check(got and set(got[0]) == {"class", "instances", "shallow_bytes", "retained_bytes", "percent", "dump"},
          "retained_by_class.sql columns")
    per = collections.defaultdict(lambda: [0, 0, 0])
    for i, n in heap.nodes.items():
        key = heap.class_names.get(n["class"]) or ("java.lang.Class" if n["subtype"] == 1 else None)
        if key is None:
            continue
        per[key][0] += 1
        per[key][1] += n["size"]
        r = rows[i]
        d = r[2]
        same = d and d in heap.nodes and heap.nodes[d]["class"] == n["class"] and \
            heap.nodes[d]["subtype"] == n["subtype"]
        if r[0] == 1 and not same:
            per[key][2] += r[3]
    mine = {g["class"]: [g["instances"], g["shallow_bytes"], g["retained_bytes"]] for g in got}
    diff = [(k, mine.get(k), v) for k, v in per.items() if mine.get(k) != v]
    check_eq(diff[:5], [], "retained_by_class agrees with node_analysis grouped here")
    check(all(got[i]["retained_bytes"] >= got[i + 1]["retained_bytes"] for i in range(len(got) - 1)),
          "retained_by_class is ordered by retained bytes")
    check_eq(len(run_query(db, q)), min(50, len(got)), "retained_by_class default @limit 50")
    node_row = mine.get("corpusgen.CorpusHeap$Node")
    check(node_row and node_row[2] >= node_row[1], "the list nodes retain at least their own bytes: %r" % node_row)


def check_ndjson_analysis(root, tool, dump, db, tmp):
    """hprof2ndjson --analysis: declared heapfmt.node_analysis records, valid
    against the schema, equal to node_analysis; the other lines unchanged."""
    out = os.path.join(tmp, "analysis.ndjson")
    p = subprocess.run([tool, "--analysis", dump, out], capture_output=True)
    if not check(p.returncode == 0, "hprof2ndjson --analysis: exit %d: %s" % (p.returncode, p.stderr.decode())):
        return
    check(not [f for f in os.listdir(tmp) if "tmp-" in f], "no temporary database left beside the output")
    lines = [json.loads(x) for x in open(out, "rb").read().split(b"\n") if x]
    kinds = [r["record"] for r in lines]
    check_eq(kinds[-1], "metadata", "the last line is still metadata")
    check_eq(lines[-1]["key"], "heapfmt.complete", "heapfmt.complete last")
    decl = [i for i, r in enumerate(lines) if r["record"] == "record_type" and r["name"] == "heapfmt.node_analysis"]
    recs = [i for i, r in enumerate(lines) if r["record"] == "heapfmt.node_analysis"]
    body = [i for i, r in enumerate(lines) if r["record"] in ("node", "edge", "string")]
    check(len(decl) == 1 and recs and decl[0] < body[0] and body[-1] < recs[0],
          "heapfmt.node_analysis declared with the others, its records after the body")
    schema = json.load(open(os.path.join(root, "schema", "heapfmt.schema.json"), encoding="utf-8"))
    v = Validator(schema)
    invalid = [(r, v.validate(r)) for r in lines if r["record"] in ("heapfmt.node_analysis", "record_type")
               and v.validate(r)]
    check_eq(invalid[:3], [], "heapfmt.node_analysis lines validate against the schema")
    check(v.validate({"record": "heapfmt.node_analysis", "identifier": 1, "dump": 0, "reachable": 3}),
          "the schema rejects reachable 3")
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    want = [r for r in con.execute("SELECT identifier, dump, reachable, distance, dominator, retained_size"
                                   " FROM node_analysis ORDER BY identifier, dump")]
    con.close()
    got = [(r["identifier"], r["dump"], r["reachable"], r.get("distance"), r.get("dominator"),
            r.get("retained_size")) for r in (lines[i] for i in recs)]
    check_eq(len(got), len(want), "one heapfmt.node_analysis record per node")
    check(got == want, "heapfmt.node_analysis records equal node_analysis")
    plain = sum(1 for r in lines if r["record"] not in ("heapfmt.node_analysis",))
    check_eq(plain, sum(1 for _ in open(os.path.join(tmp, "out.ndjson"), "rb")) + 1,
             "--analysis adds its records and one declaration, nothing else")


def check_histogram(qdir, db, heap, refs):
    rows = run_query(db, os.path.join(qdir, "class_histogram.sql"))
    check(rows and set(rows[0]) == {"class", "instances", "bytes", "dump"},
          "class_histogram.sql columns: %r" % (rows[0].keys() if rows else None))
    ours = {r["class"]: (r["instances"], r["bytes"]) for r in rows}
    check_eq(len(ours), len(rows), "one row per class name")
    check(all(rows[i]["bytes"] >= rows[i + 1]["bytes"] for i in range(len(rows) - 1)),
          "class_histogram is ordered by bytes, largest first")
    check_eq(sum(r["instances"] for r in rows), len(heap.nodes), "histogram counts every node")
    check_eq(sum(r["bytes"] for r in rows), sum(n["size"] for n in heap.nodes.values()),
             "histogram bytes are the sum of node sizes")
    # The numbers jcmd GC.class_histogram printed for the same heap.
    for cls, want in (("corpusgen.CorpusHeap$Node", (50000, 1200000)), ("byte[]", (8957, 1442376)),
                      ("java.lang.String", (8865, 212760))):
        check_eq(ours.get(cls), want, "class_histogram row for " + cls)
    check_eq(rows[0]["class"], "byte[]", "the class with the most bytes")
    histo = read_histogram(os.path.join(refs, "hotspot17-g1.histo.txt"))
    check(len(histo) > 300, "jcmd histogram read (%d classes)" % len(histo))
    count_bad, array_bad = [], []
    for cls, (n, b) in histo.items():
        if cls == "java.lang.Class":
            continue
        got = ours.get(cls, (0, 0))
        if got[0] != n:
            count_bad.append((cls, n, got[0]))
        if cls.endswith("[]") and got[1] != b:
            array_bad.append((cls, b, got[1]))
    check_eq(count_bad, [], "classes whose instance count differs from jcmd")
    check_eq(array_bad, [], "array classes whose bytes differ from jcmd")
    # java.lang.Class: class objects plus the primitive mirrors (int.class ...)
    # that HotSpot dumps as instances; jcmd also counts CDS mirrors the dump skips.
    classes = sum(1 for n in heap.nodes.values() if n["subtype"] == 1)
    mirrors = len(heap.instances_of("java.lang.Class"))
    check_eq(ours.get("java.lang.Class", (0, 0))[0], classes + mirrors,
             "java.lang.Class = class objects + primitive mirrors")
    check_eq(ours.get("java.lang.Class", (0, 0))[0], 735, "java.lang.Class in this dump (refs/*histogram-check.json)")
    # Parameters: @dump 0 is the same, @dump 1 is nothing.
    check_eq(run_query(db, os.path.join(qdir, "class_histogram.sql"), {"@dump": 0}), rows,
             "class_histogram with @dump 0")
    check_eq(run_query(db, os.path.join(qdir, "class_histogram.sql"), {"@dump": 1}), [],
             "class_histogram with @dump 1 (no such dump)")


def check_referrers(qdir, db, heap):
    q = os.path.join(qdir, "referrers.sql")
    md = heap.instances_of("corpusgen.CorpusHeap$MoreDerived")
    check_eq(len(md), 1, "one MoreDerived instance")
    chars = heap.field(md[0], "chars")
    statics = [i for i, n in heap.class_names.items() if n == "corpusgen.CorpusHeap$Statics"]
    marker = heap.field(statics[0], "sRef") if statics else None
    check(chars and marker, "objects to look up found (MoreDerived.chars, Statics.sRef)")
    for obj in (chars, marker):
        rows = run_query(db, q, {"@id": obj})
        want = sorted((e["source"], e["dump"], heap.edge_types[e["subtype"]]["name"], heap.label(e),
                       heap.nodes[e["source"]]["subtype"], heap.class_of(e["source"]))
                      for e in heap.edges_in[obj])
        kinds = {1: "class", 2: "instance", 3: "object_array", 4: "primitive_array"}
        got = sorted((r["referrer"], r["dump"], r["edge_type"], r["label"],
                      [k for k, n in kinds.items() if n == r["referrer_kind"]][0], r["referrer_class"])
                     for r in rows)
        check_eq(got, want, "referrers of %d equal the edges into it" % obj)
    # md.chars is held twice by md itself (chars, and derivedRef = md.chars).
    rows = run_query(db, q, {"@id": chars})
    check_eq(sorted((r["referrer_class"], r["edge_type"], r["label"]) for r in rows),
             [("corpusgen.CorpusHeap$MoreDerived", "instance_field", "chars"),
              ("corpusgen.CorpusHeap$MoreDerived", "instance_field", "derivedRef")],
             "referrers of MoreDerived.chars")
    rows = run_query(db, q, {"@id": marker})
    check(("class", "corpusgen.CorpusHeap$Statics", "static_field", "sRef") in
          [(r["referrer_kind"], r["referrer_class"], r["edge_type"], r["label"]) for r in rows],
          "Statics.sRef is a static field of the class Statics: %r" % rows)
    # Hex ids are accepted; an array element is labelled [index].
    rows = run_query(db, q, {"@id": hex(chars)})
    check_eq(len(rows), 2, "referrers with @id in hex")
    in_array = [i for i in heap.instances_of("corpusgen.CorpusHeap$Marker")
                if heap.strings.get(heap.nodes[heap.field(i, "label")].get("text")) == "in-array"]
    rows = run_query(db, q, {"@id": in_array[0]}) if in_array else []
    check(any(r["edge_type"] == "array_element" and r["label"] == "[3]" and
              r["referrer_class"] == "java.lang.Object[]" for r in rows),
          "the in-array Marker is element [3] of an Object[]: %r" % rows)
    check_eq(run_query(db, q, {"@id": 12345}), [], "referrers of an id that is not there")


def check_path(qdir, db, heap, values_heap):
    q = os.path.join(qdir, "path_from_root.sql")
    statics = [i for i, n in heap.class_names.items() if n == "corpusgen.CorpusHeap$Statics"][0]
    node_cls = [i for i, n in heap.class_names.items() if n == "corpusgen.CorpusHeap$Node"][0]

    def list_node(index):
        for i, n in values_heap.nodes.items():
            if n["subtype"] == 2 and n["class"] == node_cls and n.get("values", {}).get("index") == index:
                return i
        return None
    markers = {heap.strings.get(heap.nodes[heap.field(i, "label")].get("text")): i
               for i in heap.instances_of("corpusgen.CorpusHeap$Marker") if heap.field(i, "label")}
    cases = [
        ("Statics.sRef", heap.field(statics, "sRef"), {}),
        ("a parked thread's local", markers.get("local-of-parked-thread"), {}),
        ("a string in a HashMap", [i for i in heap.instances_of("java.lang.String")
                                   if heap.strings.get(heap.nodes[i].get("text")) == "key-500"][0], {}),
        ("list node 30", list_node(30), {}),
        ("list node 3000, deeper than the default", list_node(3000), {"@max_depth": 4000}),
    ]
    for what, obj, params in cases:
        check(obj is not None, "object for the path test found: " + what)
        if obj is None:
            continue
        p = dict(params)
        p["@id"] = obj
        rows = run_query(db, q, p)
        want = heap.shortest_root_distance(obj, p.get("@max_depth", 40))
        check(rows and want is not None, "%s: a path is found (%d rows)" % (what, len(rows)))
        if not rows:
            continue
        check_eq(len(rows) - 1, want, "%s: the path is as short as a breadth-first search finds" % what)
        check_eq([r["step"] for r in rows], list(range(len(rows))), what + ": steps")
        check(rows[0]["object"] in heap.roots, what + ": the path starts at a GC root")
        check_eq(rows[0]["root_kind"], ",".join(sorted(heap.roots[rows[0]["object"]])), what + ": root kinds")
        check_eq(rows[-1]["object"], obj, what + ": the path ends at the object")
        check(rows[-1]["edge_type"] is None and rows[-1]["label"] is None, what + ": nothing after the object")
        for a, b in zip(rows, rows[1:]):
            hops = [(heap.edge_types[e["subtype"]]["name"], heap.label(e))
                    for e in heap.edges_out[a["object"]] if e["dest"] == b["object"]]
            check((a["edge_type"], a["label"]) in hops,
                  "%s: step %d -> %d is an edge %r (edges: %r)" % (what, a["step"], b["step"],
                                                                   (a["edge_type"], a["label"]), hops))
        for r in rows:
            check_eq(r["class"], heap.class_of(r["object"]), "%s: class at step %d" % (what, r["step"]))
    rows = run_query(db, q, {"@id": markers.get("local-of-parked-thread")})
    check_eq([(r["step"], r["root_kind"]) for r in rows], [(0, "JAVA_FRAME")],
             "an object held by a stack frame is its own root")
    rows = run_query(db, q, {"@id": heap.field(statics, "sRef")})
    check_eq([(r["class"], r["edge_type"], r["label"]) for r in rows[-2:]],
             [("corpusgen.CorpusHeap$Statics", "static_field", "sRef"),
              ("corpusgen.CorpusHeap$Marker", None, None)], "the path to Statics.sRef ends through the static")
    check_eq(run_query(db, q, {"@id": list_node(3000)}), [], "list node 3000 is beyond the default depth")
    check_eq(run_query(db, q, {"@id": 12345}), [], "no path to an id that is not there")


def check_duplicates(qdir, db, heap):
    q = os.path.join(qdir, "duplicate_strings.sql")
    rows = run_query(db, q, {"@limit": -1})
    check(rows and set(rows[0]) == {"text", "chars", "instances", "arrays", "wasted_bytes", "dump"},
          "duplicate_strings.sql columns")
    # Independently: String objects by text, their value arrays.
    by_text = collections.defaultdict(list)
    for i, n in heap.nodes.items():
        if n["subtype"] == 2 and "text" in n and n["text"] in heap.strings:
            by_text[heap.strings[n["text"]]].append(i)
    want = {}
    for text, objs in by_text.items():
        if len(objs) < 2:
            continue
        arrays = {heap.field(o, "value") for o in objs} - {None}
        sizes = [heap.nodes[o]["size"] for o in objs]
        asizes = [heap.nodes[a]["size"] for a in arrays]
        want[text] = (len(objs), len(arrays), sum(sizes) - max(sizes) + (sum(asizes) - max(asizes) if asizes else 0))
    got = {r["text"]: (r["instances"], r["arrays"], r["wasted_bytes"]) for r in rows}
    check_eq(got, want, "duplicate strings equal the String objects grouped by text")
    # CorpusHeap: the literal plus two new String("duplicate contents"),
    # which share the literal's byte[].
    check_eq(got.get("duplicate contents"), (3, 1, 2 * 24), "duplicate contents: 3 Strings, 1 array")
    check(all(r["instances"] > 1 for r in rows), "only texts held more than once")
    check(all(rows[i]["wasted_bytes"] >= rows[i + 1]["wasted_bytes"] for i in range(len(rows) - 1)),
          "ordered by wasted bytes")
    check_eq(len(run_query(db, q)), min(50, len(rows)), "default @limit 50")


def check_nul_texts(tools_dir, root, tmp):
    """duplicate_strings.sql on texts that hold U+0000, where SQLite's
    length() and the sqlite3 shell stop: the sample dump of testdata/ with
    pairs of String objects added, each pair holding one such text."""
    sample = os.path.join(root, "testdata", "hprof", "sample.hprof.gz")
    p = subprocess.run([os.path.join(tools_dir, "hprof2ndjson"), sample, "-"], capture_output=True)
    if not check(p.returncode == 0, "hprof2ndjson of the sample: exit %d" % p.returncode):
        return
    recs = [json.loads(line) for line in p.stdout.splitlines()]
    inst = next(r["subtype"] for r in recs if r["record"] == "node_type" and r["name"] == "instance")
    string_class = next(r["class"] for r in recs if r["record"] == "node" and r["subtype"] == inst
                        and "text" in r)
    sid = max(r["id"] for r in recs if r["record"] == "string")
    oid = max(r["identifier"] for r in recs if r["record"] == "node")
    # text -> its code points (Python counts them), as the shell prints it
    texts = {"n\0u\0l": 5, "\0\0": 2, "\u00e9\0x\U0001F600": 4, "\0": 1}
    extra = []
    for text in texts:
        sid += 1
        extra.append({"record": "string", "id": sid, "data": text})
        for _ in range(2):
            oid += 16
            extra.append({"record": "node", "identifier": oid, "subtype": inst, "dump": 0,
                          "class": string_class, "size": 24, "heap": 0, "text": sid})
    nd = os.path.join(tmp, "nul.ndjson")
    db = os.path.join(tmp, "nul.db")
    with open(nd, "wb") as f:
        f.write(p.stdout)
        for r in extra:
            f.write(json.dumps(r).encode() + b"\n")
    p = subprocess.run([os.path.join(tools_dir, "ndjson2heapdb"), nd, db], capture_output=True)
    if not check(p.returncode == 0, "ndjson2heapdb of the sample with U+0000 texts: exit %d: %s"
                 % (p.returncode, p.stderr.decode(errors="replace"))):
        return
    rows = run_query(db, os.path.join(root, "schema", "queries", "duplicate_strings.sql"), {"@limit": -1})
    got = {(r["text"], r["chars"], r["instances"], r["arrays"], r["wasted_bytes"]) for r in rows}
    for text, chars in texts.items():
        shown = text.split("\0")[0]
        check((shown, chars, 2, 0, 24) in got,
              "duplicate_strings.sql: %r, %d code points held by 2 Strings (rows %r)"
              % (text, chars, sorted(r for r in got if r[0] == shown)))
    # Without U+0000 chars is length(): every other text of the sample.
    for r in rows:
        if r["text"] not in (t.split("\0")[0] for t in texts):
            check_eq(r["chars"], len(r["text"]), "chars of %r" % r["text"])


def check_arrays(qdir, db, heap):
    q = os.path.join(qdir, "biggest_arrays.sql")
    rows = run_query(db, q)
    check(rows and set(rows[0]) == {"object", "class", "length", "bytes", "dump"}, "biggest_arrays.sql columns")
    check_eq(len(rows), 20, "default @limit 20")
    if rows:
        check_eq((rows[0]["class"], rows[0]["length"], rows[0]["bytes"]), ("byte[]", 1048576, 1048592),
                 "the biggest array is CorpusHeap's 1 MiB byte[]")
    arrays = sorted((n["size"] for n in heap.nodes.values() if n["subtype"] in (3, 4)), reverse=True)
    check_eq([r["bytes"] for r in rows], arrays[:20], "the 20 largest array sizes")
    for r in rows:
        n = heap.nodes[r["object"]]
        check(n["subtype"] in (3, 4) and n["size"] == r["bytes"] and n["length"] == r["length"]
              and heap.class_of(r["object"]) == r["class"], "biggest_arrays row %r matches its node" % r)
    check_eq(len(run_query(db, q, {"@limit": 3})), 3, "@limit 3")


def check_query_headers(qdir):
    for name in ("class_histogram.sql", "referrers.sql", "path_from_root.sql", "duplicate_strings.sql",
                 "biggest_arrays.sql", "top_retained.sql", "retained_by_class.sql", "dominator_path.sql",
                 "leak_suspects.sql"):
        text = open(os.path.join(qdir, name), encoding="utf-8").read()
        check(text.startswith("-- " + name + ":"), name + " starts with a comment saying what it answers")
        check("sqlite3 " in text and "schema/queries/" + name in text, name + " says how to run it")


def main():
    own = len(sys.argv) == 4 and sys.argv[1] == "--own"
    if own:
        del sys.argv[1]
    if len(sys.argv) != 3:
        print("usage: test_queries.py [--own] HPROF2HEAPDB REPO_ROOT", file=sys.stderr)
        return 2
    heapdb_tool, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if own:
        if not shutil.which("sqlite3"):
            print("SKIP: the sqlite3 program is not installed (apt-get install sqlite3)")
            return SKIP
        tmp = tempfile.mkdtemp(prefix="heapfmt-queries-own-")
        try:
            check_nul_texts(os.path.dirname(heapdb_tool), root, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return done("test_queries --own")
    ndjson_tool = os.path.join(os.path.dirname(heapdb_tool), "hprof2ndjson")
    corpus = os.path.join(root, "..", "shared", "corpus")
    dump = os.path.join(corpus, "hprof", "hotspot17-g1.live.hprof")
    refs = os.path.join(corpus, "refs")
    qdir = os.path.join(root, "schema", "queries")
    if not os.path.exists(dump) or not os.path.exists(os.path.join(refs, "hotspot17-g1.histo.txt")):
        print("SKIP: %s or its histogram not found (the corpus is in ../shared/corpus beside the repository)" % dump)
        return SKIP
    if not shutil.which("sqlite3"):
        print("SKIP: the sqlite3 program is not installed (apt-get install sqlite3)")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="heapfmt-queries-")
    try:
        db = os.path.join(tmp, "out.db")
        nd = os.path.join(tmp, "out.ndjson")
        ndv = os.path.join(tmp, "values.ndjson")
        for cmd in ([heapdb_tool, "--force", dump, db], [ndjson_tool, dump, nd], [ndjson_tool, "--values", dump, ndv]):
            p = subprocess.run(cmd, capture_output=True)
            if not check(p.returncode == 0, "%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.decode())):
                return 1
        heap = Heap(nd)
        values_heap = Heap(ndv, only=(b'{"record":"node"', b'{"record":"metadata"'))
        check_query_headers(qdir)
        check_ddl(root, db)
        check_schema(root, heap, values_heap)
        check_metadata_documented(root, heap, db)
        check_histogram(qdir, db, heap, refs)
        check_referrers(qdir, db, heap)
        check_path(qdir, db, heap, values_heap)
        check_duplicates(qdir, db, heap)
        check_arrays(qdir, db, heap)
        check_analysis(qdir, db, heap)
        check_ndjson_analysis(root, ndjson_tool, dump, db, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done("test_queries")


if __name__ == "__main__":
    sys.exit(main())
