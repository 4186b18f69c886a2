#!/usr/bin/env python3
"""Hostile input, driven through the built programs.

  test_hostile.py sweep-corpus|sweep-own TOOLS SRCROOT HPROFGEN DDMGEN
                                                        truncation and bit flips
  test_hostile.py limits TOOLS SRCROOT HPROFGEN DDMGEN   declared sizes, pipes, gzip
  test_hostile.py atomic TOOLS SRCROOT HPROFGEN DDMGEN   SIGKILL, disk full, --force

sweep: every input (../shared/corpus/hprof/* and alloc/*, the hprofgen
scenarios that convert, testdata/hprof/sample.hprof.gz, the ddmgen streams and
reports of tests/ddm) is cut at sampled offsets of every kind of place (inside
the header, a record header, a string record, each kind of heap-dump
sub-record, a gzip stream, a DDM chunk header or payload, a ZLIB chunk) and
has bits flipped at seeded random places.  The rule for every run:

  - no crash, no hang (a time limit), no allocation beyond what the input can
    hold (under ASan no single allocation may pass ALLOC_CAP_MB; otherwise
    RLIMIT_AS), and then
  - exit 1 with exactly one line on stderr naming the input and "offset N"
    (N within the input when it is not compressed), and no file at the
    output path nor a temporary one beside it; or
  - exit 0 with valid output (every line JSON, version_major first,
    heapfmt.complete not false).  A cut HPROF file converts only when the cut
    falls exactly between two top-level records (the format has no end
    marker); a flipped bit may be harmless (a byte of a value, a name).  A
    DDM stream cut between two chunks or packets is a shorter valid stream.

With --salvage a cut HPROF file or DDM stream gives exit 5: the output is valid, its
metadata says heapfmt.complete=false and heapfmt.stopped_at (the offset of
the error line), and its records are the good file's in the good file's
order (a subsequence of the full conversion's lines), except nodes that say
less than the good file's (a String whose text, or an instance whose class,
came after the damage: a subset of the good node's fields) and DDM heap
series the damage cut short (ddm.heap_dump with complete 0).  An allocation
report has no --salvage: its string table comes last, so what precedes a cut
has no class or method names.

Cost: a cut at offset N reads N bytes, so in files over 300 kB the cuts fall
in the first MiB, and whole files over 2 MB get no bit flips (each would read
all of it).  "sweep-corpus" takes ../shared/corpus, "sweep-own" the
project's own inputs; meson runs the two side by side.

The random choices are seeded from the input's name (HEAPFMT_SWEEP_SEED
changes them), so every failure reproduces; the failing command is printed.
HEAPFMT_SWEEP_PER_KIND sets the cuts per kind of place (default 2, 1 in
files over 300 kB) for a longer sweep by hand.
Exits 77 (skip) only when there is nothing to test.
"""
import gzip
import json
import os
import random
import re
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

ALLOC_CAP_MB = 192     # single allocation under ASan: above the readers' own buffers
LIMITS_CAP_MB = 48     # the same for the limits mode: just above the 32 MiB String cache
RUN_TIMEOUT = 60       # seconds for one conversion
SKIP = 77

failures = []
counts = {}


def count(what, n=1):
    counts[what] = counts.get(what, 0) + n


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, flush=True)


# ---- running the programs ---------------------------------------------------

def has_asan(prog):
    with open(prog, "rb") as f:
        return b"__asan_init" in f.read()


class Runner:
    def __init__(self, tools, cap_mb=ALLOC_CAP_MB):
        self.tools = tools
        self.asan = has_asan(os.path.join(tools, "hprof2ndjson"))
        env = dict(os.environ)
        if self.asan:
            env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") +
                                   ":allocator_may_return_null=1:max_allocation_size_mb=%d"
                                   % cap_mb).lstrip(":")
        self.env = env

    def limits(self):
        resource.setrlimit(resource.RLIMIT_CPU, (RUN_TIMEOUT, RUN_TIMEOUT + 5))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if not self.asan:   # ASan reserves terabytes of address space
            resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    def run(self, prog, args, pipe_in=None, stdout=None, extra_limits=None,
            timeout=RUN_TIMEOUT):
        """(exit status or -signal, stderr text, seconds); None on a hang.
        pipe_in: bytes written to the program's standard input, a pipe."""
        def pre():
            self.limits()
            if extra_limits:
                extra_limits()
        cmd = [os.path.join(self.tools, prog)] + args
        t0 = time.monotonic()
        try:
            p = subprocess.run(cmd, input=pipe_in,
                               stdin=subprocess.DEVNULL if pipe_in is None else None,
                               stdout=stdout or subprocess.DEVNULL,
                               stderr=subprocess.PIPE, env=self.env, preexec_fn=pre,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, "", time.monotonic() - t0
        return p.returncode, p.stderr.decode("utf-8", "replace"), time.monotonic() - t0


def shown(prog, args):
    return " ".join([prog] + ["'%s'" % a if " " in a else a for a in args])


# ---- checking what came out -------------------------------------------------

def read_ndjson(path):
    """(lines, metadata dict) or raises ValueError naming the bad line."""
    lines = []
    meta = {}
    with open(path, "rb") as f:
        for n, raw in enumerate(f, 1):
            try:
                rec = json.loads(raw)
            except ValueError as e:
                raise ValueError("line %d is not JSON: %s" % (n, e))
            if not isinstance(rec, dict) or "record" not in rec:
                raise ValueError("line %d is not a record" % n)
            if rec["record"] == "metadata":
                meta[rec["key"]] = rec["value"]
            lines.append(raw.decode("utf-8"))
    if not lines or '"key":"version_major"' not in lines[0]:
        raise ValueError("the first line is not version_major")
    return lines, meta


ERR_LINE = re.compile(r"^(\S+): (.*?)offset (\d+)(?: \((.*?)\))?: (.+)$")


WARN_LINE = re.compile(r"^(\S+): (.+?): warning: (offset \d+ .*|offset \d+: .*|\d+ warnings in all, \d+ shown; .*)$")


def drop_warnings(what, prog, err, input_name):
    """The lines of err that are not the reader's warnings, which a run that
    did not fail tells first (cli_warnings_tell): each names the program, the
    input and an offset, or is their count."""
    rest = []
    for l in err.split("\n"):
        m = WARN_LINE.match(l)
        if not m:
            rest.append(l)
        elif m.group(1) != prog or input_name not in m.group(2):
            fail("%s: a warning line does not name the program and input: %s" % (what, l))
    return "\n".join(rest)


def check_error(what, prog, err, input_name, size):
    """The one-line error: program, input, offset within the input, the
    record tag (when there is one: not for a whole-file verdict such as
    bzip2), message."""
    lines = [l for l in err.split("\n") if l]
    if len(lines) != 1:
        fail("%s: %d lines on stderr, expected one: %r" % (what, len(lines), err[:600]))
        return None
    m = ERR_LINE.match(lines[0])
    if not m or m.group(1) != prog or input_name not in m.group(2):
        fail("%s: the error line does not name the program, input and offset: %s"
             % (what, lines[0]))
        return None
    off = int(m.group(3))
    if size is not None and off > size:
        fail("%s: offset %d is past the end of the %d-byte input: %s" % (what, off, size, lines[0]))
    if len(m.group(5)) < 8:
        fail("%s: the message says too little: %s" % (what, lines[0]))
    return off


def no_output(what, out):
    d = os.path.dirname(out)
    if os.path.exists(out):
        fail("%s: a failed run left %s" % (what, out))
    left = [n for n in os.listdir(d) if ".tmp-" in n]
    if left:
        fail("%s: temporary files left: %s" % (what, left))
        for n in left:
            os.unlink(os.path.join(d, n))


# ---- where to cut: the structure of the inputs ------------------------------

HPROF_TYPE_SIZE = {4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}
SUB_NAMES = {0x20: "CLASS DUMP", 0x21: "INSTANCE DUMP", 0x22: "OBJECT ARRAY DUMP",
             0x23: "PRIMITIVE ARRAY DUMP", 0xC3: "PRIMITIVE ARRAY NODATA",
             0xFE: "HEAP DUMP INFO"}
# GC roots: bytes after the tag, in identifiers and u4s.
ROOTS = {0xFF: (1, 0), 0x01: (2, 0), 0x02: (1, 2), 0x03: (1, 2), 0x04: (1, 1), 0x05: (1, 0),
         0x06: (1, 1), 0x07: (1, 0), 0x08: (1, 2), 0x89: (1, 0), 0x8A: (1, 0), 0x8B: (1, 0),
         0x8C: (1, 0), 0x8D: (1, 0), 0x8E: (1, 2), 0x90: (1, 0)}


def hprof_spans(data, limit):
    """[(kind, start, end)]: the header, each top-level record's header and
    body (UTF8 bodies are "string table"), each heap-dump sub-record, up to
    limit bytes; and the offsets between top-level records."""
    spans, bounds = [], []
    z = data.find(b"\0")
    if z < 0 or z + 13 > len(data) or not data.startswith(b"JAVA PROFILE"):
        return spans, bounds
    I = struct.unpack(">I", data[z + 1:z + 5])[0]
    if I not in (4, 8):
        return spans, bounds
    spans.append(("header", 0, z + 13))
    pos = z + 13
    bounds.append(pos)
    idfmt = ">I" if I == 4 else ">Q"

    def rid(p):
        return struct.unpack(idfmt, data[p:p + I])[0]

    while pos + 9 <= len(data) and pos < limit:
        tag = data[pos]
        length = struct.unpack(">I", data[pos + 5:pos + 9])[0]
        spans.append(("record header", pos, pos + 9))
        body, end = pos + 9, min(pos + 9 + length, len(data))
        if tag == 0x01:
            spans.append(("string table", body, end))
        elif tag in (0x0C, 0x1C):
            q = body
            while q < end and q < limit:
                st = data[q]
                try:
                    if st in ROOTS:
                        ids, u4s = ROOTS[st]
                        n = 1 + ids * I + 4 * u4s
                        kind = "gc root"
                    elif st == 0x20:
                        r = q + 1 + 7 * I + 8
                        for _ in range(struct.unpack(">H", data[r:r + 2])[0]):
                            t = data[r + 4]
                            r += 3 + (I if t == 2 else HPROF_TYPE_SIZE[t])
                        r += 2
                        for _ in range(struct.unpack(">H", data[r - 2:r])[0]):
                            t = data[r + I]
                            r += I + 1 + (I if t == 2 else HPROF_TYPE_SIZE[t])
                        r += 2
                        r += struct.unpack(">H", data[r - 2:r])[0] * (I + 1)
                        n = r - q
                        kind = "class dump"
                    elif st == 0x21:
                        n = 1 + 2 * I + 8 + struct.unpack(">I", data[q + 1 + 2 * I + 4:q + 1 + 2 * I + 8])[0]
                        kind = "instance dump"
                    elif st == 0x22:
                        cnt = struct.unpack(">I", data[q + 1 + I + 4:q + 1 + I + 8])[0]
                        n = 1 + 2 * I + 8 + cnt * I
                        kind = "object array"
                    elif st in (0x23, 0xC3):
                        cnt = struct.unpack(">I", data[q + 1 + I + 4:q + 1 + I + 8])[0]
                        t = data[q + 1 + I + 8]
                        n = 1 + I + 9 + (0 if st == 0xC3 else cnt * HPROF_TYPE_SIZE[t])
                        kind = "primitive array"
                    elif st == 0xFE:
                        n, kind = 1 + 4 + I, "heap dump info"
                    else:
                        break
                except (IndexError, KeyError, struct.error):
                    break
                spans.append((kind, q, min(q + n, end)))
                q += n
        elif length:
            spans.append(("record body", body, end))
        pos += 9 + length
        if pos <= len(data):
            bounds.append(pos)
    return spans, bounds


def ddm_spans(data, kind):
    """DDM: chunk headers and payloads (and ZLIB chunks) of a bare-chunk or
    JDWP stream, packet headers of JDWP; the boundaries between them."""
    spans, bounds = [], []

    def chunks(p, end):
        while p + 8 <= end:
            ctype = data[p:p + 4]
            n = struct.unpack(">I", data[p + 4:p + 8])[0]
            spans.append(("chunk header", p, p + 8))
            name = "ZLIB chunk" if ctype == b"ZLIB" else "chunk payload"
            if n:
                spans.append((name, p + 8, min(p + 8 + n, end)))
            p += 8 + n
            bounds.append(p)

    if kind == "alloc":
        spans.append(("report", 0, len(data)))
        return spans, bounds
    p = 0
    if data.startswith(b"JDWP-Handshake"):
        while data.startswith(b"JDWP-Handshake", p):   # once, or once per direction
            p += 14
            bounds.append(p)
        while p + 11 <= len(data):
            n = struct.unpack(">I", data[p:p + 4])[0]
            if n < 11:
                break
            spans.append(("packet header", p, p + 11))
            chunks(p + 11, min(p + n, len(data)))
            p += n
            bounds.append(p)
    elif len(data) >= 8 and all(0x20 <= c < 0x7F for c in data[:4]):
        chunks(0, len(data))
    else:
        spans.append(("payload", 0, len(data)))
    return spans, bounds


# ---- the inputs ---------------------------------------------------------------

class Input:
    def __init__(self, name, path, kind, data=None, small=False):
        self.name, self.path, self.kind = name, path, kind
        self.small = small   # converted in full for --salvage comparisons
        self.args = []       # options the program needs for it
        self._data = data

    @property
    def data(self):
        if self._data is None:
            with open(self.path, "rb") as f:
                self._data = f.read()
        return self._data


VALID_SCENARIOS = ["android4", "instances-first", "unknown-tag", "two-dumps", "segments",
                   "id8", "jdk6-strings", "superclass-cycle", "all-records"]
DDM_DESCS = [("alloc-art", "alloc"), ("alloc-dalvik", "alloc"), ("alloc-overflow", "alloc"),
             ("alloc-many", "alloc"), ("stream-jdwp", "ddm"), ("stream-chunks", "ddm"),
             ("stream-payload", "ddm")]


def gather_corpus(srcroot):
    inputs = []
    corpus = os.path.join(srcroot, "..", "shared", "corpus")
    for sub, kind in (("hprof", None), ("alloc", "alloc")):
        d = os.path.join(corpus, sub)
        if not os.path.isdir(d):
            continue
        for n in sorted(os.listdir(d)):
            p = os.path.join(d, n)
            k = kind or ("gzip" if n.endswith(".gz") else "bzip2" if n.endswith(".bz2")
                         else "hprof")
            inputs.append(Input("corpus/" + n, p, k, small=os.path.getsize(p) < 800000))
    return inputs


def gather_own(srcroot, hprofgen, ddmgen, work):
    inputs = []
    gen = os.path.join(work, "gen")
    os.makedirs(gen, exist_ok=True)
    for s in VALID_SCENARIOS:
        p = os.path.join(gen, s + ".hprof")
        subprocess.run([hprofgen, s, p], check=True)
        inputs.append(Input("hprofgen/" + s, p, "hprof", small=True))
    sample = os.path.join(srcroot, "testdata", "hprof", "sample.hprof.gz")
    if os.path.exists(sample):
        inputs.append(Input("testdata/sample.hprof.gz", sample, "gzip"))
        plain = os.path.join(gen, "sample.hprof")
        with gzip.open(sample) as f, open(plain, "wb") as o:
            shutil.copyfileobj(f, o)
        inputs.append(Input("testdata/sample.hprof", plain, "hprof"))
    for d, kind in DDM_DESCS:
        p = os.path.join(gen, d + ".bin")
        subprocess.run([ddmgen, os.path.join(srcroot, "tests", "ddm", d + ".desc"), p],
                       check=True, stdout=subprocess.DEVNULL)
        inp = Input("ddmgen/" + d, p, kind, small=(kind == "ddm"))
        with open(os.path.join(srcroot, "tests", "ddm", d + ".desc")) as f:
            inp.args = re.findall(r"\bargs=(\S+)", f.read())
        inputs.append(inp)
    return inputs


PROGRAM = {"hprof": "hprof2ndjson", "gzip": "hprof2ndjson", "bzip2": "hprof2ndjson",
           "alloc": "alloc2ndjson", "ddm": "hpsg2ndjson"}


# ---- sweep ----------------------------------------------------------------

def cut_offsets(inp, rng, per_kind, limit):
    """[(offset, where)]: per kind of place, per_kind offsets strictly inside
    places of that kind (within the first `limit` bytes), plus two
    boundaries between records."""
    data = inp.data
    if inp.kind in ("gzip", "bzip2"):
        top = min(len(data), limit // 4)
        return [(rng.randrange(1, top), inp.kind + " stream") for _ in range(per_kind + 1)]
    if inp.kind == "hprof":
        spans, bounds = hprof_spans(data, limit)
    else:
        spans, bounds = ddm_spans(data, inp.kind)
    by_kind = {}
    for k, a, b in spans:
        if b - a >= 2:
            by_kind.setdefault(k, []).append((a, b))
    out = []
    for k in sorted(by_kind):
        places = by_kind[k]
        for _ in range(per_kind):
            a, b = places[rng.randrange(len(places))]
            out.append((rng.randrange(a + 1, b), "inside " + k))
    inner = [b for b in bounds if 0 < b < len(data)]
    for b in rng.sample(inner, min(2, len(inner))):
        out.append((b, "between records"))
    return out


def flip(data, rng, nbits, limit):
    d = bytearray(data)
    places = []
    for _ in range(nbits):
        at = rng.randrange(min(len(d), limit))
        d[at] ^= 1 << rng.randrange(8)
        places.append(at)
    return bytes(d), places


class Sweep:
    def __init__(self, runner, work):
        self.r, self.work = runner, work
        self.out = os.path.join(work, "out")
        os.makedirs(self.out, exist_ok=True)

    def convert(self, inp, data, what, boundary_ok, salvage=False):
        """Runs the program on data; checks the rule; returns (rc, output lines, meta)."""
        prog = PROGRAM[inp.kind]
        src = os.path.join(self.work, "in" + (".gz" if inp.kind == "gzip" else ""))
        with open(src, "wb") as f:
            f.write(data)
        out = os.path.join(self.out, "out.ndjson")
        args = inp.args + (["--salvage"] if salvage else []) + [src, out]
        rc, err, secs = self.r.run(prog, args)
        what = "%s [%s]" % (what, shown(prog, args))
        count("runs")
        if rc is None:
            fail("%s: no answer within %d s" % (what, RUN_TIMEOUT))
            return None, None, None
        if secs > 30:
            fail("%s: took %.1f s" % (what, secs))
        size = None if inp.kind in ("gzip", "bzip2") else len(data)
        result = (rc, None, None)
        if rc == 0 or (salvage and rc == 5):
            try:
                lines, meta = read_ndjson(out)
            except (OSError, ValueError) as e:
                fail("%s: exit %d but the output is not valid: %s" % (what, rc, e))
                return rc, None, None
            complete = meta.get("heapfmt.complete")
            if rc == 0:
                count("exit 0")
                if complete == "false":
                    fail("%s: exit 0 with heapfmt.complete=false" % what)
                if not boundary_ok:
                    fail("%s: a damaged input converted without an error" % what)
                err = drop_warnings(what, prog, err, src)
                if err.strip():
                    fail("%s: exit 0 but stderr says: %s" % (what, err.strip()[:300]))
            else:
                count("salvaged")
                err = drop_warnings(what, prog, err, src)
                off = check_error(what, prog, err, src, size)
                if "salvaged" not in err:
                    fail("%s: exit 5 but the line does not say it salvaged: %s" % (what, err))
                if complete != "false":
                    fail("%s: salvaged output says heapfmt.complete=%s" % (what, complete))
                if off is not None and meta.get("heapfmt.stopped_at") != str(off):
                    fail("%s: heapfmt.stopped_at %s, the error said offset %s"
                         % (what, meta.get("heapfmt.stopped_at"), off))
            result = (rc, lines, meta)
            os.unlink(out)
        elif rc == 1:
            count("rejected cleanly")
            check_error(what, prog, err, src, size)
            no_output(what, out)
        else:
            fail("%s: exit %d (%s)" % (what, rc, "signal %d" % -rc if rc < 0 else
                 "out of memory: an allocation beyond what the input holds" if rc == 4 else
                 "unexpected") + ": " + err.strip()[:400])
            no_output(what, out)
        return result

    def salvage_matches(self, what, good, lines, meta):
        """The salvaged records are the good ones in the good order, bar
        Strings whose text came after the damage."""
        index = {}
        for i, l in enumerate(good):
            if '"record":"metadata"' not in l:
                index.setdefault(l, []).append(i)
        good_nodes = {}
        for l in good:
            if l.startswith('{"record":"node"'):
                rec = json.loads(l)
                good_nodes[(rec["identifier"], rec.get("dump"))] = rec
        last, strays = -1, 0
        for l in lines:
            if '"record":"metadata"' in l:
                continue
            later = [i for i in index.get(l, []) if i > last]
            if later:
                last = later[0]
                continue
            if l in index:
                fail("%s: salvaged record out of the good order: %s" % (what, l.strip()[:200]))
                return
            rec = json.loads(l)
            g = good_nodes.get((rec.get("identifier"), rec.get("dump")))
            if rec["record"] == "node" and g and all(g.get(k) == v for k, v in rec.items()):
                strays += 1   # a String without its text
                continue
            if rec["record"] == "ddm.heap_dump" and rec.get("complete") == 0:
                strays += 1   # a heap series the damage cut short
                continue
            if rec["record"] == "ddm.chunk" and meta.get("ddm.shape") == "payload":
                strays += 1   # the one chunk of a bare payload is the input, cut
                continue
            fail("%s: salvaged a record the good file does not have: %s" % (what, l.strip()[:200]))
            return
        count("salvage compared")

    def sweep(self, inp, seed):
        rng = random.Random("%s/%s" % (seed, inp.name))
        small = len(inp.data) < 300000
        per_kind = 2 if small else 1
        # A longer sweep by hand: HEAPFMT_SWEEP_PER_KIND=20 (cuts per kind of place).
        per_kind = int(os.environ.get("HEAPFMT_SWEEP_PER_KIND", per_kind))
        limit = len(inp.data) if small else 1 << 20
        good = None
        if inp.kind in ("hprof", "ddm") and inp.small:
            rc, good, _ = self.convert(inp, inp.data, inp.name + " (whole)", True)
            if rc != 0:
                good = None
        for off, where in cut_offsets(inp, rng, per_kind, limit):
            what = "%s cut at %d (%s)" % (inp.name, off, where)
            count("cut " + where)
            boundary = where == "between records"
            cut = inp.data[:off]
            # A bare HPSG/HPSO payload is a list of runs: a cut may end a run.
            self.convert(inp, cut, what, boundary or where == "inside payload")
            if good is not None and not boundary and (inp.kind == "ddm" or off > 40):
                rc, lines, meta = self.convert(inp, cut, what + " --salvage", False, salvage=True)
                if rc == 5:
                    self.salvage_matches(what, good, lines, meta)
        nflips = 6 if small else 1 if len(inp.data) < 2000000 else 0
        for k in range(nflips):
            d, places = flip(inp.data, rng, 1 + k % 3, limit)
            self.convert(inp, d, "%s with bits flipped at %s" % (inp.name, places), True)
        count("inputs")


def do_sweep(runner, srcroot, hprofgen, ddmgen, work, which):
    if which == "corpus":
        inputs = gather_corpus(srcroot)
        if not inputs:
            print("SKIP: ../shared/corpus is absent (sweep-own still runs)")
            return SKIP
    else:
        inputs = gather_own(srcroot, hprofgen, ddmgen, work)
    seed = os.environ.get("HEAPFMT_SWEEP_SEED", "heapfmt")
    s = Sweep(runner, work)
    t0 = time.monotonic()
    for inp in inputs:
        before = dict(counts)
        s.sweep(inp, seed)
        print("%-60s %4d runs  %4.1f s" % (inp.name, counts.get("runs", 0) - before.get("runs", 0),
                                            time.monotonic() - t0), flush=True)
    print("sweep: %d inputs, %d runs: %d rejected cleanly, %d salvaged (%d compared with the "
          "good file), %d exit 0; %d failures; %.0f s"
          % (counts.get("inputs", 0), counts.get("runs", 0), counts.get("rejected cleanly", 0),
             counts.get("salvaged", 0), counts.get("salvage compared", 0),
             counts.get("exit 0", 0), len(failures), time.monotonic() - t0))
    print("cuts: " + ", ".join("%s %d" % (k[4:], v) for k, v in sorted(counts.items())
                               if k.startswith("cut ")))
    return 1 if failures else 0


# ---- limits ---------------------------------------------------------------

HUGE_HPROF = ["huge-string-array", "huge-object-array", "huge-record"]
HUGE_DDM = ["bad-zlib-huge", "bad-zlib-bomb"]


def expect_clean_failure(runner, what, prog, args, pipe_in=None, input_name=None, size=None,
                         max_secs=10):
    rc, err, secs = runner.run(prog, args, pipe_in=pipe_in)
    count("runs")
    what = "%s [%s]" % (what, shown(prog, args))
    if rc is None:
        fail("%s: no answer within %d s" % (what, RUN_TIMEOUT))
        return
    if rc != 1:
        fail("%s: exit %d, expected 1 (4 is out of memory: a declared size was taken at its "
             "word): %s" % (what, rc, err.strip()[:400]))
        return
    if secs > max_secs:
        fail("%s: took %.1f s" % (what, secs))
    check_error(what, prog, err, input_name or args[-2], size)
    count("rejected cleanly")


def long_names_hprof(name_len, n):
    """An HPROF file whose class C (0x100) has n boolean statics and n boolean
    instance fields, all named by one UTF8 record of name_len bytes, and one
    instance of it (0x200): --values text of n * (name_len + 8) bytes each."""
    def rec(tag, body):
        return struct.pack(">BII", tag, 0, len(body)) + body
    b = b"JAVA PROFILE 1.0.2\0" + struct.pack(">IQ", 4, 0)
    b += rec(0x01, struct.pack(">I", 1) + b"x" * name_len)
    b += rec(0x01, struct.pack(">I", 2) + b"C")
    b += rec(0x02, struct.pack(">IIII", 1, 0x100, 0, 2))
    cd = struct.pack(">IIIIIIII", 0x100, 0, 0, 0, 0, 0, 0, 0) + struct.pack(">IH", n, 0)
    cd += struct.pack(">H", n) + struct.pack(">IBB", 1, 4, 1) * n
    cd += struct.pack(">H", n) + struct.pack(">IB", 1, 4) * n
    inst = struct.pack(">IIII", 0x200, 0, 0x100, n) + b"\1" * n
    return b + rec(0x1C, b"\x20" + cd + b"\x21" + inst) + rec(0x2C, b"")


def do_limits(runner, srcroot, hprofgen, ddmgen, work):
    """Files of a few hundred bytes that declare gigabytes, read from a file,
    from a pipe (where the reader cannot know the size) and gzip-compressed
    from a pipe: each fails at once with one error line, never with out of
    memory (ASan caps a single allocation at LIMITS_CAP_MB; without ASan,
    RLIMIT_AS is 1 GiB)."""
    out = os.path.join(work, "out.ndjson")
    for s in HUGE_HPROF:
        path = os.path.join(work, s + ".hprof")
        subprocess.run([hprofgen, s, path], check=True)
        with open(path, "rb") as f:
            data = f.read()
        expect_clean_failure(runner, s, "hprof2ndjson", [path, out], size=len(data))
        expect_clean_failure(runner, s + " on a pipe", "hprof2ndjson", ["-", out],
                             pipe_in=data, input_name="<stdin>", size=len(data))
        expect_clean_failure(runner, s + " gzip on a pipe", "hprof2ndjson", ["-", out],
                             pipe_in=gzip.compress(data), input_name="<stdin>")
        expect_clean_failure(runner, s, "hprof2heapdb", [path, out + ".db"], size=len(data))
        no_output(s, out)
    # --values: a text made of field names, one long name repeated (helper-8's
    # finding): 65,535 statics and instance fields named by one UTF8 record
    # of 16,000 bytes make 1 GB of text from 0.8 MB; it went to 3.3 GB of
    # memory (and SQLite refused the row). Now the class goes without values,
    # with a warning, the rest converts (the instance's fields, of one name,
    # are one key in its values). Under ASan one
    # allocation is capped at LIMITS_CAP_MB, which a 64 MiB text's buffer
    # passes when it doubles: there the limit is 16 MiB.
    path = os.path.join(work, "long-names.hprof")
    with open(path, "wb") as f:
        f.write(long_names_hprof(16000, 65535))
    limit = ["--values-limit=16M"] if runner.asan else []
    for prog, o in (("hprof2ndjson", out), ("hprof2heapdb", out + ".db")):
        args = ["--values"] + limit + [path, o]
        rc, err, secs = runner.run(prog, args)
        count("runs")
        what = "long names, --values [%s]" % shown(prog, args)
        if rc != 0:
            fail("%s: exit %s: %s" % (what, rc, err.strip()[:400]))
        elif prog == "hprof2ndjson":
            with open(o, encoding="utf-8") as f:
                text = f.read()
            for want in ('"heapfmt.values_omitted","value":"1"', "class 0x100 written without its values",
                         '"identifier":512,"subtype":2,'):
                if want not in text:
                    fail("%s: no %s in the output" % (what, want))
        if os.path.exists(o):
            os.unlink(o)
    for d in HUGE_DDM:
        path = os.path.join(work, d + ".bin")
        subprocess.run([ddmgen, os.path.join(srcroot, "tests", "ddm", d + ".desc"), path],
                       check=True, stdout=subprocess.DEVNULL)
        with open(path, "rb") as f:
            data = f.read()
        expect_clean_failure(runner, d, "hpsg2ndjson", [path, out], size=len(data))
        expect_clean_failure(runner, d + " on a pipe", "hpsg2ndjson", ["-", out],
                             pipe_in=data, input_name="<stdin>", size=len(data))
        no_output(d, out)
    print("limits: %d runs, %d rejected cleanly; %d failures"
          % (counts.get("runs", 0), counts.get("rejected cleanly", 0), len(failures)))
    return 1 if failures else 0


# ---- atomic output -------------------------------------------------------------

def db_complete(path):
    """None when path is a complete heap database, else what is wrong."""
    import sqlite3
    try:
        con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        try:
            if con.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                return "fails PRAGMA quick_check"
            v = con.execute("SELECT value FROM metadata WHERE key = 'heapfmt.complete'").fetchone()
            if not v or v[0] != "true":
                return "heapfmt.complete is %r" % (v and v[0])
            return None
        finally:
            con.close()
    except sqlite3.Error as e:
        return str(e)


def ndjson_complete(path):
    try:
        lines, meta = read_ndjson(path)
    except (OSError, ValueError) as e:
        return str(e)
    return None if meta.get("heapfmt.complete") == "true" else "no heapfmt.complete=true"


def temp_files(d):
    return sorted(n for n in os.listdir(d) if ".tmp-" in n)


def kill_runs(runner, what, prog, args, out, check, n, span, rng, keep=None):
    """Starts prog n times and kills it with SIGKILL after a random part of
    span seconds.  The output path then holds nothing (or keep's bytes, the
    file that was there before) or a complete output, never a partial one.
    Returns how many runs were killed before they finished."""
    killed = 0
    d = os.path.dirname(out)
    for i in range(n):
        if keep is not None:
            with open(out, "wb") as f:
                f.write(keep)
        elif os.path.exists(out):
            os.unlink(out)
        p = subprocess.Popen([os.path.join(runner.tools, prog)] + args, env=runner.env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             preexec_fn=runner.limits)
        time.sleep(rng.uniform(0.02, span))
        p.kill()
        rc = p.wait()
        count("runs")
        if rc == -signal.SIGKILL:
            killed += 1
        elif rc != 0:
            fail("%s run %d: exit %d" % (what, i, rc))
        if os.path.exists(out):
            with open(out, "rb") as f:
                now = f.read()
            if keep is not None and now == keep:
                continue
            bad = check(out)
            if bad:
                fail("%s: killed after some time, the output at %s is partial: %s"
                     % (what, out, bad))
        elif keep is not None:
            fail("%s: a killed --force run removed the file that was there" % what)
    # What a kill leaves: hidden temporary files beside the output, named
    # .NAME.tmp-XXXXXX; nothing removes them (a later run makes its own).
    for t in temp_files(d):
        if not t.startswith("." + os.path.basename(out) + ".tmp-"):
            fail("%s: an unexpected file is left: %s" % (what, t))
        os.unlink(os.path.join(d, t))
    return killed


def fsize_limit(nbytes):
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, nbytes))


def expect_disk_full(runner, what, prog, args, out, extra_limits=None, stdout=None):
    rc, err, _ = runner.run(prog, args, extra_limits=extra_limits, stdout=stdout)
    count("runs")
    what = "%s [%s]" % (what, shown(prog, args))
    if rc != 3:
        fail("%s: exit %s, expected 3 (I/O error): %s" % (what, rc, err.strip()[:300]))
    lines = [l for l in err.split("\n") if l]
    if len(lines) != 1 or not lines[0].startswith(prog + ": "):
        fail("%s: expected one error line, got %r" % (what, err[:600]))
    elif not re.search(r"File too large|No space left|too large|disk", lines[0], re.I):
        fail("%s: the error does not say the disk or file limit was hit: %s" % (what, lines[0]))
    if out is not None:
        no_output(what, out)


def do_atomic(runner, srcroot, hprofgen, ddmgen, work):
    """SIGKILL at random moments, an existing output under --force, a file
    size limit (RLIMIT_FSIZE: write fails with EFBIG) and, as root where
    mount works, a full tmpfs."""
    rng = random.Random(os.environ.get("HEAPFMT_SWEEP_SEED", "heapfmt") + "/atomic")
    dump = os.path.join(srcroot, "..", "shared", "corpus", "hprof", "hotspot17-g1.live.hprof")
    if not os.path.exists(dump):
        dump = os.path.join(srcroot, "testdata", "hprof", "sample.hprof.gz")
    outdir = os.path.join(work, "out")
    os.makedirs(outdir)
    db = os.path.join(outdir, "dump.db")
    nd = os.path.join(outdir, "dump.ndjson")

    # How long a whole conversion takes here, then kills spread over it.
    t0 = time.monotonic()
    rc, err, _ = runner.run("hprof2heapdb", [dump, db])
    full = time.monotonic() - t0
    if rc != 0 or db_complete(db):
        fail("hprof2heapdb %s: exit %s %s" % (dump, rc, err))
        return 1
    old = os.umask(0o022)
    os.umask(old)
    mode = os.stat(db).st_mode & 0o777
    if mode != 0o666 & ~old:
        fail("the database has mode %o, not %o (0666 less the umask)" % (mode, 0o666 & ~old))
    os.unlink(db)
    print("hprof2heapdb %s: %.1f s" % (os.path.basename(dump), full), flush=True)
    k = kill_runs(runner, "hprof2heapdb killed", "hprof2heapdb", [dump, db], db, db_complete,
                  8, full, rng)
    k += kill_runs(runner, "hprof2heapdb --force killed", "hprof2heapdb", ["--force", dump, db],
                   db, db_complete, 8, full, rng, keep=b"the old output\n")
    k += kill_runs(runner, "hprof2ndjson killed", "hprof2ndjson", [dump, nd], nd,
                   ndjson_complete, 4, full / 2, rng)
    # The DDM programs finish in a moment: kills soon after the start.
    for prog, desc, check in (("alloc2heapdb", "alloc-many", db_complete),
                              ("hpsg2heapdb", "stream-jdwp", db_complete),
                              ("alloc2ndjson", "alloc-many", ndjson_complete),
                              ("hpsg2ndjson", "stream-jdwp", ndjson_complete)):
        src = os.path.join(work, desc + ".bin")
        if not os.path.exists(src):
            subprocess.run([ddmgen, os.path.join(srcroot, "tests", "ddm", desc + ".desc"), src],
                           check=True, stdout=subprocess.DEVNULL)
        out = db if check is db_complete else nd
        k += kill_runs(runner, prog + " killed", prog, [src, out], out, check, 4, 0.3, rng)
    print("SIGKILL: %d runs killed before the end, none left a partial output" % k, flush=True)
    for p in (db, nd):
        if os.path.exists(p):
            os.unlink(p)

    # An existing output is replaced only by a complete one.
    with open(db, "wb") as f:
        f.write(b"keep")
    cut = os.path.join(work, "cut.hprof")
    subprocess.run([hprofgen, "truncated", cut], check=True)
    rc, err, _ = runner.run("hprof2heapdb", ["--force", cut, db])
    if rc != 1 or open(db, "rb").read() != b"keep":
        fail("a failed --force run touched the existing output (exit %s)" % rc)
    rc, err, _ = runner.run("hprof2heapdb", [dump, db])
    if rc != 3 or open(db, "rb").read() != b"keep":
        fail("an existing output was not refused without --force (exit %s)" % rc)
    os.unlink(db)

    # Disk full: a file size limit (the programs ignore SIGXFSZ).
    for prog, src, out in (("hprof2heapdb", dump, db), ("hprof2ndjson", dump, nd),
                           ("alloc2heapdb", os.path.join(work, "alloc-many.bin"), db),
                           ("hpsg2heapdb", os.path.join(work, "stream-jdwp.bin"), db)):
        expect_disk_full(runner, "RLIMIT_FSIZE 64 KiB", prog, [src, out], out,
                         extra_limits=fsize_limit(64 << 10))
    with open(os.path.join(work, "stdout.ndjson"), "wb") as so:
        expect_disk_full(runner, "RLIMIT_FSIZE 64 KiB, to standard output", "hprof2ndjson",
                         [dump, "-"], None, extra_limits=fsize_limit(64 << 10), stdout=so)

    # Disk full for real: a 256 KiB tmpfs, as root where mount works.
    mnt = os.path.join(work, "tmpfs")
    os.makedirs(mnt)
    mounted = os.geteuid() == 0 and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mnt],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    if mounted:
        try:
            for prog, out in (("hprof2heapdb", "dump.db"), ("hprof2ndjson", "dump.ndjson")):
                expect_disk_full(runner, "a full 256 KiB tmpfs", prog,
                                 [dump, os.path.join(mnt, out)], os.path.join(mnt, out))
        finally:
            subprocess.run(["umount", mnt])
        print("tmpfs: disk full tested")
    else:
        print("tmpfs: skipped (needs root and a working mount)")
    print("atomic: %d runs; %d failures" % (counts.get("runs", 0), len(failures)))
    return 1 if failures else 0


def main():
    modes = {"sweep-corpus": lambda *a: do_sweep(*a, "corpus"),
             "sweep-own": lambda *a: do_sweep(*a, "own"),
             "limits": do_limits, "atomic": do_atomic}
    if len(sys.argv) != 6 or sys.argv[1] not in modes:
        print(__doc__)
        return 2
    mode, tools, srcroot, hprofgen, ddmgen = sys.argv[1:]
    runner = Runner(tools, LIMITS_CAP_MB if mode == "limits" else ALLOC_CAP_MB)
    work = tempfile.mkdtemp(prefix="heapfmt-hostile-")
    try:
        return modes[mode](runner, srcroot, hprofgen, ddmgen, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
