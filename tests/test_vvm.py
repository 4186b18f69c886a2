#!/usr/bin/env python3
"""heapfmt's analysis against VisualVM's heap library, on corpus dumps.

For each dump: hprof2heapdb (with the analysis), and tests/vvm/VvmRetained.java
run on VisualVM's library (Debian package visualvm), which prints every
object's shallow and retained size as VisualVM computes them.  The two use
different shallow-size models (VisualVM's class objects, for one), so the
comparison puts VisualVM's shallow sizes on heapfmt's dominator tree: an
object agrees when the sum of VisualVM's shallow sizes over the objects
heapfmt says it dominates equals VisualVM's retained size.  Every object
that disagrees is put in one category of a known difference of definition:

  not-strong   heapfmt: not strongly reachable (garbage, or held only through
               a Reference.referent): no retained size.  VisualVM gives such
               objects a retained size over the unreachable graph (or 0).
  class        a class object: VisualVM sizes a class's retained set with
               its own rules (it follows only static fields and the class
               loader out of a class, and links an instance to its class for
               one instance per class only).
  has-class    the object dominates, for heapfmt, a class object: heapfmt
               follows every object's reference to its class (so a class
               reached only through its instances, e.g. a lambda's hidden
               class or an array class, is dominated by them); VisualVM does
               not.
  referent     the object dominates, for heapfmt, an object that a live
               java.lang.ref.Reference also holds through its referent:
               VisualVM leaves the referent out when it searches paths from
               the roots, but counts it among the referrers when it computes
               dominators, so the object is retained by no one below their
               common dominator.  heapfmt leaves the referent out everywhere.
  class-edge   the object dominates, for heapfmt, the target of a superclass,
               signers, protection-domain or constant-pool reference, which
               VisualVM does not follow.
  garbage-ref  the object dominates, for heapfmt, an object that an object
               not strongly reachable (garbage, or weakly held) also
               references: VisualVM counts such referrers when it computes
               dominators, and their presence lifts the object to the root
               of its dominator tree.
  vvm-larger   VisualVM's retained size is the larger: its tree attributes
               more objects below this one, because it follows fewer
               references (an instance's class from one instance per class
               only, no superclass, signers, protection-domain or
               constant-pool references), so some objects that heapfmt finds
               reachable along several paths have a single one for VisualVM.
  vvm-unreached  VisualVM's retained size is 0: its search from the roots
               never reached the object (it follows fewer kinds of
               references; seen in the 2006 hprof-agent dump, whose arrays
               are reached through references VisualVM does not follow).
  unexplained  none of these: heapfmt attributes more to the object and none
               of the reasons above applies.

The test fails if an object is unexplained among VisualVM's 50 largest
retained sizes of a dump, or if more than 1 % of a dump's objects are.

Usage: test_vvm.py HPROF2HEAPDB REPO_ROOT [DUMP...]
Exit 0 pass, 1 fail, 77 skip (no java, javac, VisualVM's jar or corpus).
"""
import collections
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

JAR = "/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar"
DUMPS = ["hotspot17-g1.live.hprof", "ahat_RI.hprof", "mat_oracle_jdk8_05_x64.hprof",
         "mat_sun_jdk6_30_x64_compressedOops.hprof", "hprofslurp_hprof-32.bin",
         "leakcanary_leak_service_binder.hprof"]
CATEGORIES = ["equal", "not-strong", "class", "has-class", "referent", "class-edge", "garbage-ref",
              "vvm-larger", "vvm-unreached", "unexplained"]


def compare(db, tsv):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    ours = {r[0]: r[1:] for r in con.execute(
        "SELECT a.identifier, a.reachable, a.dominator, a.retained_size, n.nodetypeid"
        " FROM node_analysis AS a JOIN node AS n USING (identifier, dump) WHERE a.dump = 0")}
    # objects a live Reference holds through its referent
    referent_held = {r[0] for r in con.execute(
        "WITH RECURSIVE refclass(id) AS ("
        "  SELECT c.node_identifier FROM node_class AS c JOIN strings AS s ON s.stringid = c.java_name"
        "  WHERE s.data = 'java.lang.ref.Reference' AND c.dump = 0"
        "  UNION SELECT c.node_identifier FROM node_class AS c JOIN refclass AS r ON c.super = r.id"
        "  WHERE c.dump = 0)"
        " SELECT e.dest FROM edge AS e JOIN node AS n ON n.identifier = e.source AND n.dump = e.dump"
        " JOIN node_analysis AS a ON a.identifier = e.source AND a.dump = e.dump AND a.reachable = 1"
        " WHERE e.dump = 0 AND e.edgetypeid = 1 AND n.class IN refclass"
        "   AND (SELECT data FROM strings WHERE stringid = e.label) = 'referent'")}
    class_edge = {r[0] for r in con.execute("SELECT dest FROM edge WHERE dump = 0 AND edgetypeid IN (4, 6, 7, 8)")}
    garbage_ref = {r[0] for r in con.execute(
        "SELECT DISTINCT e.dest FROM edge AS e JOIN node_analysis AS a ON a.identifier = e.source"
        " AND a.dump = e.dump WHERE e.dump = 0 AND a.reachable <> 1")}
    con.close()
    vvm = {}
    for line in open(tsv):
        f = line.split("\t")
        vvm[int(f[0])] = (int(f[1]), int(f[2]))
    kids = collections.defaultdict(list)
    top_level = []
    for i, r in ours.items():
        if r[0] == 1:
            (kids[r[1]] if r[1] else top_level).append(i)
    # bottom-up over heapfmt's dominator tree: VisualVM's sizes summed, and
    # what each subtree holds
    ret, flags = {}, {}
    for t in top_level:
        stack = [(t, False)]
        while stack:
            u, done = stack.pop()
            if not done:
                stack.append((u, True))
                stack.extend((k, False) for k in kids[u])
                continue
            f = (1 if ours[u][3] == 1 else 0) | (2 if u in referent_held else 0) | \
                (4 if u in class_edge else 0) | (8 if u in garbage_ref else 0)
            total = vvm.get(u, (0, 0))[0]
            for k in kids[u]:
                total += ret[k]
                f |= flags[k]
            ret[u], flags[u] = total, f
    cat = {}
    for i, r in ours.items():
        v = vvm.get(i)
        if v is None:
            cat[i] = "unexplained"
        elif r[0] != 1:
            cat[i] = "not-strong"
        elif ret[i] == v[1]:
            cat[i] = "equal"
        elif r[3] == 1:
            cat[i] = "class"
        elif v[1] == 0:
            cat[i] = "vvm-unreached"
        elif v[1] > ret[i]:
            cat[i] = "vvm-larger"
        elif flags[i] & 1:
            cat[i] = "has-class"
        elif flags[i] & 2:
            cat[i] = "referent"
        elif flags[i] & 4:
            cat[i] = "class-edge"
        elif flags[i] & 8:
            cat[i] = "garbage-ref"
        else:
            cat[i] = "unexplained"
    top = sorted(vvm, key=lambda i: (-vvm[i][1], i))[:50]
    return cat, top, ours, vvm, ret


def main():
    if len(sys.argv) < 3:
        print("usage: test_vvm.py HPROF2HEAPDB REPO_ROOT [DUMP...]", file=sys.stderr)
        return 2
    tool, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    dumps = sys.argv[3:] or DUMPS
    corpus = os.path.join(root, "..", "shared", "corpus", "hprof")
    for what, ok in (("java", shutil.which("java")), ("javac", shutil.which("javac")),
                     (JAR + " (Debian package visualvm)", os.path.exists(JAR)),
                     (corpus, os.path.isdir(corpus))):
        if not ok:
            print("SKIP: %s not found: the comparison with VisualVM needs it" % what)
            return 77
    tmp = tempfile.mkdtemp(prefix="heapfmt-vvm-")
    failures = 0
    try:
        p = subprocess.run(["javac", "-nowarn", "-cp", JAR, "-d", tmp,
                            os.path.join(root, "tests", "vvm", "VvmRetained.java")], capture_output=True)
        if p.returncode:
            print("FAIL: javac: %s" % p.stderr.decode())
            return 1
        print("%-42s %s" % ("dump", " ".join("%13s" % c for c in CATEGORIES)))
        for name in dumps:
            src = os.path.join(corpus, name)
            if not os.path.exists(src):
                print("SKIP %s: not in the corpus" % name)
                continue
            # VisualVM writes its index beside the dump: give it a link.
            link = os.path.join(tmp, name + ".hprof")
            os.symlink(src, link)
            db = os.path.join(tmp, name + ".db")
            tsv = os.path.join(tmp, name + ".tsv")
            p = subprocess.run([tool, src, db], capture_output=True)
            if p.returncode:
                print("FAIL: hprof2heapdb %s: %s" % (name, p.stderr.decode()))
                failures += 1
                continue
            p = subprocess.run(["java", "-Xmx1g", "-cp", JAR + os.pathsep + tmp, "VvmRetained", link, tsv],
                               capture_output=True, timeout=600)
            if p.returncode:
                print("SKIP %s: VisualVM could not read it: %s" % (name, p.stderr.decode()[-300:]))
                continue
            cat, top, ours, vvm, ret = compare(db, tsv)
            counts = collections.Counter(cat.values())
            print("%-42s %s" % (name[:42], " ".join("%13d" % counts[c] for c in CATEGORIES)))
            bad_top = [i for i in top if cat[i] == "unexplained"]
            for i in bad_top[:5]:
                print("  unexplained in the top 50: %d heapfmt %r VisualVM %r (VisualVM sizes on heapfmt's tree: %r)"
                      % (i, ours.get(i), vvm.get(i), ret.get(i)))
            if bad_top or counts["unexplained"] > len(cat) // 100:
                print("FAIL: %s: %d unexplained differences (%d in the top 50)" % (name, counts["unexplained"],
                                                                                  len(bad_top)))
                failures += 1
            top_equal = sum(1 for i in top if cat[i] == "equal")
            print("  top 50 by VisualVM's retained size: %d equal, %s" % (
                top_equal, dict(collections.Counter(cat[i] for i in top if cat[i] != "equal"))))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("test_vvm: %d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
