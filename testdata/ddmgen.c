/*
 * ddmgen: writes Android allocation-tracker reports (.alloc, REAL payloads)
 * and recorded DDM streams from a description, and a JSON file of every
 * value it put in, for the tests to compare with what the converters read.
 *
 *   ddmgen DESCRIPTION OUT [EXPECTED.json]
 *
 * The description is read line by line; '#' starts a comment; each line is
 * a directive and key=value arguments (a value may be "quoted", UTF-8).
 *
 * Output kind (first directive):
 *   alloc                          OUT is one report (what the report directives say)
 *   stream shape=jdwp|chunks|payload handshake=0|1|2 args="CONVERTER OPTIONS"
 *
 * Allocation report (in a stream it becomes a REAL chunk at 'endreport'):
 *   report order=newest-first|oldest-first hdr=15 ehdr=9 flen=8 wrap=0|1
 *          trailing=N soff=+N count=+N strunits=+N classidx=N
 *          (soff, count, strunits, classidx break the report on purpose)
 *   allocation size=N thread=N class=DESCRIPTOR  one allocation, newer than the last
 *   frame class=D method=M file=F line=N         a frame of the last allocation,
 *                                                innermost first
 *   random count=N seed=S depth=MAX threads=N tidbase=T unicode=0|1
 *                                                N allocations with made-up stacks
 *   endreport
 *
 * Stream chunks (each written as a JDWP packet, a bare chunk, or, for shape
 * payload, only the first chunk's payload):
 *   helo pid=N vm=TEXT app=TEXT [user=N abi=TEXT package=TEXT]   (VM's reply)
 *   apnm name=TEXT [user=N package=TEXT]
 *   thcr id=N name=TEXT | thnm id=N name=TEXT | thde id=N
 *   thst id=N state=N tid=N utime=N stime=N daemon=N
 *   hpif heap=N ts=N reason=N max=N size=N bytes=N objects=N
 *   hpst heap=N | hpen heap=N | nhst heap=N | nhen heap=N   [count=K: heaps N .. N+K-1]
 *   segment type=HPSG|HPSO|NHSG heap=N unit=N address=N offset=N units=+N
 *   run solidity=N kind=N units=N               a region (split into partial pairs
 *                                                past 256 units); 'zerorun' adds the
 *                                                producers' bogus (0x00, 0xFF) pair
 *   endsegment
 *   request type=TYPE [byte=N]                  a host request (and an empty reply)
 *   debugger                                    a debugger's command and its reply
 *   commands count=N                            N debugger commands whose replies
 *                                                the capture does not hold
 *   reply bytes=N error=N                       a reply to a command the capture
 *                                                missed (a debugger's): N bytes of data
 *   raw type=TYPE bytes=N                        an unknown chunk of N bytes
 *   compress on|off [declared=+N]               ZLIB-wrap the following chunks
 *   packet begin|end                            put the chunks between in one packet
 *   cut bytes=N                                  end the output N bytes early
 *   lenfix +N                                    add N to the next chunk's length field
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---- growable bytes ----------------------------------------------------- */
typedef struct bytes {
	uint8_t *d;
	size_t n, cap;
} bytes;

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("ddmgen: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void put(bytes *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		size_t nc = b->cap ? b->cap : 256;
		while (nc < b->n + n)
			nc *= 2;
		b->d = realloc(b->d, nc);
		if (!b->d)
			die("out of memory");
		b->cap = nc;
	}
	if (n)
		memcpy(b->d + b->n, p, n);
	b->n += n;
}
static void u1(bytes *b, unsigned v) { uint8_t x = (uint8_t)v; put(b, &x, 1); }
static void u2(bytes *b, unsigned v) { u1(b, v >> 8); u1(b, v); }
static void u4(bytes *b, uint32_t v) { u2(b, v >> 16); u2(b, v & 0xFFFF); }
static void u8(bytes *b, uint64_t v) { u4(b, (uint32_t)(v >> 32)); u4(b, (uint32_t)v); }
static void set4(bytes *b, size_t at, uint32_t v)
{
	b->d[at] = (uint8_t)(v >> 24);
	b->d[at + 1] = (uint8_t)(v >> 16);
	b->d[at + 2] = (uint8_t)(v >> 8);
	b->d[at + 3] = (uint8_t)v;
}

/* UTF-8 to UTF-16 code units (big-endian bytes appended to out); returns units. */
static uint32_t utf16(const char *s, bytes *out)
{
	uint32_t units = 0;
	const uint8_t *p = (const uint8_t *)s;
	while (*p) {
		uint32_t cp;
		int n;
		if (*p < 0x80) { cp = *p; n = 1; }
		else if ((*p & 0xE0) == 0xC0) { cp = *p & 0x1F; n = 2; }
		else if ((*p & 0xF0) == 0xE0) { cp = *p & 0x0F; n = 3; }
		else { cp = *p & 0x07; n = 4; }
		for (int i = 1; i < n; i++)
			cp = (cp << 6) | (p[i] & 0x3F);
		p += n;
		if (cp >= 0x10000) {
			cp -= 0x10000;
			u2(out, 0xD800 | (cp >> 10));
			u2(out, 0xDC00 | (cp & 0x3FF));
			units += 2;
		} else {
			u2(out, cp);
			units++;
		}
	}
	return units;
}

/* "u4 units + UTF-16BE" */
static void jstring(bytes *b, const char *s)
{
	bytes t = { 0 };
	uint32_t n = utf16(s, &t);
	u4(b, n);
	put(b, t.d, t.n);
	free(t.d);
}

/* ---- expected JSON ------------------------------------------------------ */
static FILE *ex;
static int ex_first;

static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void ex_item(const char *fmt, ...)
{
	if (!ex)
		return;
	if (!ex_first)
		fputs(",\n", ex);
	ex_first = 0;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(ex, fmt, ap);
	va_end(ap);
}

/* Items are written as one JSON array of objects with a "what" member. */

/* ---- description parsing ------------------------------------------------ */
#define MAXARGS 16
typedef struct line {
	char *cmd;
	char *key[MAXARGS], *val[MAXARGS];
	int n;
	int lineno;
} line;

static const char *arg(const line *l, const char *k, const char *def)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->key[i], k))
			return l->val[i];
	return def;
}

static long long num(const line *l, const char *k, long long def)
{
	const char *v = arg(l, k, NULL);
	if (!v)
		return def;
	char *end;
	long long x = strtoll(v, &end, 0);
	if (*end)
		die("line %d: %s=%s is not a number", l->lineno, k, v);
	return x;
}

static int parse_line(char *s, line *l)
{
	memset(l->key, 0, sizeof l->key);
	l->n = 0;
	l->cmd = NULL;
	char *p = s;
	while (*p) {
		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			break;
		char *tok = p, *w = p;
		int quoted = 0;
		while (*p && (quoted || !isspace((unsigned char)*p))) {
			if (*p == '"') {
				quoted = !quoted;
				p++;
				continue;
			}
			if (*p == '\\' && quoted && p[1]) {
				p++;
			}
			*w++ = *p++;
		}
		if (*p)
			p++;
		*w = 0;
		if (!l->cmd) {
			l->cmd = tok;
			continue;
		}
		if (l->n == MAXARGS)
			die("line %d: too many arguments", l->lineno);
		char *eq = strchr(tok, '=');
		l->key[l->n] = tok;
		l->val[l->n] = eq ? (*eq = 0, eq + 1) : "";
		l->n++;
	}
	return l->cmd != NULL;
}

/* ---- allocation reports ------------------------------------------------- */
typedef struct frame {
	char *cls, *method, *file;
	int line;
} frame;

typedef struct alloc {
	uint32_t size;
	unsigned thread;
	char *cls;
	frame *frames;
	unsigned depth;
} alloc;

typedef struct report {
	int active;
	int newest_first;
	unsigned hdr, ehdr, flen;
	int wrap;
	long long trailing, soff_delta, count_delta, strunits_delta, classidx;
	alloc *a;
	size_t n, cap;
} report;

static report rep;
static int n_reports;

typedef struct table {
	char **s;
	size_t n, cap;
} table;

static unsigned table_ix(table *t, const char *s)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->s[i], s))
			return (unsigned)i;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->s = realloc(t->s, t->cap * sizeof *t->s);
	}
	t->s[t->n] = (char *)s;
	if (t->n >= 65535)
		die("more than 65535 distinct strings in a table");
	return (unsigned)t->n++;
}

static uint64_t rng_state;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static char *sdup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		die("out of memory");
	return d;
}

static alloc *new_alloc(void)
{
	if (rep.n == rep.cap) {
		rep.cap = rep.cap ? rep.cap * 2 : 256;
		rep.a = realloc(rep.a, rep.cap * sizeof *rep.a);
		if (!rep.a)
			die("out of memory");
	}
	alloc *a = &rep.a[rep.n++];
	memset(a, 0, sizeof *a);
	return a;
}

static void add_frame(alloc *a, const char *cls, const char *method, const char *file, int line)
{
	if (a->depth == 255)
		die("more than 255 frames");
	a->frames = realloc(a->frames, (a->depth + 1) * sizeof *a->frames);
	frame *f = &a->frames[a->depth++];
	f->cls = sdup(cls);
	f->method = sdup(method);
	f->file = sdup(file);
	f->line = line;
}

static const char *const ascii_classes[] = {
	"Ljava/lang/String;", "[I", "[[Landroid/view/View;", "Lcom/example/app/MainActivity;",
	"[B", "Ljava/util/HashMap$Node;", "[Ljava/lang/Object;", "Lcom/example/a/b/c/Deep;",
	"null", "[[[J", "Landroid/graphics/Bitmap;", "Lcom/example/Outer$Inner$1;",
};
static const char *const unicode_classes[] = {
	"Lcom/пример/Класс;", "Lcom/例子/类名;", "Lemoji/😀Smile;", "[Lgreek/Αλφα;", "Larabic/عربي;",
	"Lmixed/Ünïcödé$ß;",
};
static const char *const methods[] = {
	"<init>", "run", "onCreate", "toString", "lambda$main$0", "access$000", "doFrame",
	"<clinit>", "inflate", "métier", "方法", "дело", "go😀",
};
static const char *const files[] = {
	"MainActivity.java", "String.java", "", "View.java", "Класс.java", "类名.kt",
	"SourceFile", "😀.java",
};

static void random_allocs(const line *l)
{
	long long count = num(l, "count", 100);
	rng_state = (uint64_t)num(l, "seed", 1) * 0x9E3779B97F4A7C15ULL + 1;
	int maxdepth = (int)num(l, "depth", 16);
	int threads = (int)num(l, "threads", 8);
	long long tidbase = num(l, "tidbase", 1);
	int uni = (int)num(l, "unicode", 0);
	size_t nac = sizeof ascii_classes / sizeof *ascii_classes;
	size_t nuc = sizeof unicode_classes / sizeof *unicode_classes;
	size_t ncl = nac + (uni ? nuc : 0);
	size_t nm = uni ? sizeof methods / sizeof *methods : 9;
	size_t nf = uni ? sizeof files / sizeof *files : 4;
	for (long long i = 0; i < count; i++) {
		alloc *a = new_alloc();
		size_t c = rnd() % ncl;
		a->cls = sdup(c < nac ? ascii_classes[c] : unicode_classes[c - nac]);
		a->size = (uint32_t)(rnd() % 4096) + 8;
		if (rnd() % 50 == 0)
			a->size = 0xFFFFFFF0u; /* above 2^31: ddmlib shows it negative */
		a->thread = (unsigned)((tidbase + (long long)(rnd() % (uint64_t)threads)) & 0xFFFF);
		int depth = maxdepth ? (int)(rnd() % (uint64_t)(maxdepth + 1)) : 0;
		if (i == 0)
			depth = maxdepth;
		for (int d = 0; d < depth; d++) {
			size_t fc = rnd() % ncl;
			int line;
			switch (rnd() % 6) {
			case 0: line = -1; break;
			case 1: line = -2; break;
			case 2: line = (int)(rnd() % 20000) + 32768 - 65536; break; /* ART: > 32767 */
			default: line = (int)(rnd() % 2000);
			}
			add_frame(a, fc < nac ? ascii_classes[fc] : unicode_classes[fc - nac],
			          methods[rnd() % nm], files[rnd() % nf], line);
		}
	}
}

/* Encodes the report and writes its expectation. */
static void encode_report(bytes *out)
{
	table t[3] = { { 0 }, { 0 }, { 0 } };
	size_t E = rep.n;
	/* File order. */
	size_t *order = malloc((E + 1) * sizeof *order);
	for (size_t i = 0; i < E; i++)
		order[i] = rep.newest_first ? E - 1 - i : i;
	for (size_t i = 0; i < E; i++) {
		alloc *a = &rep.a[order[i]];
		table_ix(&t[0], a->cls);
		for (unsigned f = 0; f < a->depth; f++) {
			table_ix(&t[0], a->frames[f].cls);
			table_ix(&t[1], a->frames[f].method);
			table_ix(&t[2], a->frames[f].file);
		}
	}
	size_t start = out->n;
	u1(out, rep.hdr);
	u1(out, rep.ehdr);
	u1(out, rep.flen);
	u2(out, (unsigned)(E + (size_t)rep.count_delta) & 0xFFFF); /* wraps like Dalvik */
	size_t soff_at = out->n;
	u4(out, 0);
	for (int k = 0; k < 3; k++)
		u2(out, (unsigned)t[k].n);
	for (unsigned i = 15; i < rep.hdr; i++)
		u1(out, 0xEE);
	if (!rep.wrap && E > 65535)
		die("%zu entries need wrap=1", E);
	for (size_t i = 0; i < E; i++) {
		alloc *a = &rep.a[order[i]];
		u4(out, a->size);
		u2(out, a->thread);
		unsigned ci = table_ix(&t[0], a->cls);
		if (i == 0 && rep.classidx >= 0)
			ci = (unsigned)rep.classidx;
		u2(out, ci);
		u1(out, a->depth);
		for (unsigned k = 9; k < rep.ehdr; k++)
			u1(out, 0xEE);
		for (unsigned f = 0; f < a->depth; f++) {
			u2(out, table_ix(&t[0], a->frames[f].cls));
			u2(out, table_ix(&t[1], a->frames[f].method));
			u2(out, table_ix(&t[2], a->frames[f].file));
			u2(out, (unsigned)(a->frames[f].line & 0xFFFF));
			for (unsigned k = 8; k < rep.flen; k++)
				u1(out, 0xEE);
		}
	}
	set4(out, soff_at, (uint32_t)(out->n - start + (size_t)rep.soff_delta));
	for (int k = 0; k < 3; k++)
		for (size_t i = 0; i < t[k].n; i++) {
			bytes tmp = { 0 };
			uint32_t units = utf16(t[k].s[i], &tmp);
			if (k == 0 && i == 0)
				units += (uint32_t)rep.strunits_delta;
			u4(out, units);
			put(out, tmp.d, tmp.n);
			free(tmp.d);
		}
	for (long long i = 0; i < rep.trailing; i++)
		u1(out, 0);
	/* Expectation: entries in file order. */
	if (ex) {
		ex_item("{\"what\":\"report\",\"report\":%d,\"order\":\"%s\",\"entries\":%zu,"
		        "\"header_entries\":%zu,\"trailing\":%lld,\"list\":[",
		        n_reports, rep.newest_first ? "newest-first" : "oldest-first", E, E & 0xFFFF,
		        rep.trailing);
		for (size_t i = 0; i < E; i++) {
			alloc *a = &rep.a[order[i]];
			fprintf(ex, "%s\n{\"index\":%zu,\"sequence\":%zu,\"class\":", i ? "," : "", i,
			        order[i] + 1);
			jstr(ex, a->cls);
			fprintf(ex, ",\"size\":%u,\"thread\":%u,\"frames\":[", a->size, a->thread);
			for (unsigned f = 0; f < a->depth; f++) {
				fprintf(ex, "%s{\"class\":", f ? "," : "");
				jstr(ex, a->frames[f].cls);
				fputs(",\"method\":", ex);
				jstr(ex, a->frames[f].method);
				fputs(",\"file\":", ex);
				jstr(ex, a->frames[f].file);
				fprintf(ex, ",\"line\":%d}", (int)(int16_t)(a->frames[f].line & 0xFFFF));
			}
			fputs("]}", ex);
		}
		fputs("]}", ex);
	}
	n_reports++;
	for (size_t i = 0; i < rep.n; i++) {
		for (unsigned f = 0; f < rep.a[i].depth; f++) {
			free(rep.a[i].frames[f].cls);
			free(rep.a[i].frames[f].method);
			free(rep.a[i].frames[f].file);
		}
		free(rep.a[i].frames);
		free(rep.a[i].cls);
	}
	free(rep.a);
	free(order);
	for (int k = 0; k < 3; k++)
		free(t[k].s);
	memset(&rep, 0, sizeof rep);
}

static void begin_report(const line *l)
{
	memset(&rep, 0, sizeof rep);
	rep.active = 1;
	const char *o = arg(l, "order", "newest-first");
	rep.newest_first = !strcmp(o, "newest-first");
	if (!rep.newest_first && strcmp(o, "oldest-first"))
		die("line %d: order=newest-first|oldest-first", l->lineno);
	rep.hdr = (unsigned)num(l, "hdr", 15);
	rep.ehdr = (unsigned)num(l, "ehdr", 9);
	rep.flen = (unsigned)num(l, "flen", 8);
	rep.wrap = (int)num(l, "wrap", 0);
	rep.trailing = num(l, "trailing", 0);
	rep.soff_delta = num(l, "soff", 0);
	rep.count_delta = num(l, "count", 0);
	rep.strunits_delta = num(l, "strunits", 0);
	rep.classidx = num(l, "classidx", -1);
}

/* ---- streams ------------------------------------------------------------ */
enum { SH_NONE, SH_JDWP, SH_CHUNKS, SH_PAYLOAD };
static int shape;
static bytes out;
static int compress_on;
static long long compress_declared;
static long long lenfix;
static int in_packet;
static size_t packet_at;
static uint32_t vm_id = 0x10000000, host_id = 0x40000000, dbg_id = 0x00000100;
static int payload_written;
static int zlib_chunks, other_packets;
static size_t last_chunk_at; /* offset of the last chunk header written */

static void packet_header(uint32_t id, unsigned flags, unsigned a, unsigned b)
{
	packet_at = out.n;
	u4(&out, 0);
	u4(&out, id);
	u1(&out, flags);
	u1(&out, a);
	u1(&out, b);
}
static void packet_close(void) { set4(&out, packet_at, (uint32_t)(out.n - packet_at)); }

/* Writes one chunk in the stream's shape.  reply_to: 0 = VM command packet,
 * else the id of the request this answers (a reply packet). */
static void chunk(const char *type, const bytes *payload, uint32_t reply_to)
{
	bytes c = { 0 };
	const bytes *pl = payload;
	bytes z = { 0 };
	const char *t = type;
	if (compress_on) {
		uLongf zn = compressBound(payload->n);
		uint8_t *zd = malloc(zn + 1);
		if (compress2(zd, &zn, payload->d ? payload->d : (const uint8_t *)"", payload->n, 9) != Z_OK)
			die("compress failed");
		put(&z, type, 4);
		u4(&z, (uint32_t)(payload->n + (size_t)compress_declared));
		put(&z, zd, zn);
		free(zd);
		pl = &z;
		t = "ZLIB";
		zlib_chunks++;
	}
	if (shape == SH_PAYLOAD) {
		if (!payload_written)
			put(&out, pl->d, pl->n);
		payload_written = 1;
		free(z.d);
		return;
	}
	last_chunk_at = out.n + (shape == SH_JDWP && !in_packet ? 11 : 0);
	put(&c, t, 4);
	u4(&c, (uint32_t)(pl->n + (size_t)lenfix));
	lenfix = 0;
	put(&c, pl->d, pl->n);
	if (shape == SH_JDWP && !in_packet) {
		if (reply_to)
			packet_header(reply_to, 0x80, 0, 0);
		else
			packet_header(vm_id++, 0, 0xC7, 0x01);
		put(&out, c.d, c.n);
		packet_close();
	} else {
		put(&out, c.d, c.n);
	}
	free(c.d);
	free(z.d);
}

/* A host request chunk (JDWP only) and the id it used. */
static uint32_t request(const char *type, const bytes *payload)
{
	if (shape != SH_JDWP)
		return 0;
	uint32_t id = host_id++;
	packet_header(id, 0, 0xC7, 0x01);
	put(&out, type, 4);
	u4(&out, (uint32_t)payload->n);
	put(&out, payload->d, payload->n);
	packet_close();
	return id;
}

/* Segment under construction. */
static bytes seg_runs;
static uint64_t seg_units, seg_at;
static int seg_active, seg_native, seg_hpso;
static char seg_type[5];
static unsigned seg_unit;
static uint32_t seg_heap, seg_addr, seg_offset;
static long long seg_units_delta;
static int dump_no = -1;
static int zero_runs;

static void stream_directive(const line *l)
{
	bytes p = { 0 };
	const char *c = l->cmd;
	if (!strcmp(c, "helo")) {
		bytes q = { 0 };
		u4(&q, 1);
		uint32_t id = request("HELO", &q);
		free(q.d);
		bytes a = { 0 }, b = { 0 };
		const char *vm = arg(l, "vm", "Dalvik v1.6.0"), *app = arg(l, "app", "com.example");
		uint32_t na = utf16(vm, &a), nb = utf16(app, &b);
		u4(&p, 1);
		u4(&p, (uint32_t)num(l, "pid", 1234));
		u4(&p, na);
		u4(&p, nb);
		put(&p, a.d, a.n);
		put(&p, b.d, b.n);
		free(a.d);
		free(b.d);
		if (arg(l, "user", NULL)) {
			u4(&p, (uint32_t)num(l, "user", 0));
			jstring(&p, arg(l, "abi", "arm64-v8a"));
			jstring(&p, arg(l, "flags", ""));
			u1(&p, 0);
			jstring(&p, arg(l, "package", "com.example"));
		}
		chunk("HELO", &p, id);
		ex_item("{\"what\":\"meta\",\"key\":\"target_pid\",\"value\":\"%lld\"}", num(l, "pid", 1234));
		ex_item("{\"what\":\"meta\",\"key\":\"ddm.vm_ident\",\"value\":");
		if (ex) jstr(ex, vm), fputc('}', ex);
		ex_item("{\"what\":\"meta\",\"key\":\"ddm.app_name\",\"value\":");
		if (ex) jstr(ex, app), fputc('}', ex);
	} else if (!strcmp(c, "apnm")) {
		jstring(&p, arg(l, "name", "app"));
		if (arg(l, "user", NULL)) {
			u4(&p, (uint32_t)num(l, "user", 0));
			jstring(&p, arg(l, "package", "com.example"));
		}
		chunk("APNM", &p, 0);
		ex_item("{\"what\":\"meta\",\"key\":\"ddm.app_name\",\"value\":");
		if (ex) jstr(ex, arg(l, "name", "app")), fputc('}', ex);
	} else if (!strcmp(c, "thcr") || !strcmp(c, "thnm")) {
		u4(&p, (uint32_t)num(l, "id", 1));
		jstring(&p, arg(l, "name", ""));
		chunk(!strcmp(c, "thcr") ? "THCR" : "THNM", &p, 0);
		ex_item("{\"what\":\"thread\",\"event\":\"%s\",\"thread\":%lld,\"name\":",
		        !strcmp(c, "thcr") ? "create" : "rename", num(l, "id", 1));
		if (ex) jstr(ex, arg(l, "name", "")), fputc('}', ex);
	} else if (!strcmp(c, "thde")) {
		u4(&p, (uint32_t)num(l, "id", 1));
		chunk("THDE", &p, 0);
		ex_item("{\"what\":\"thread\",\"event\":\"death\",\"thread\":%lld}", num(l, "id", 1));
	} else if (!strcmp(c, "thst")) {
		u1(&p, 4);
		u1(&p, 18);
		u2(&p, 1);
		u4(&p, (uint32_t)num(l, "id", 1));
		u1(&p, (unsigned)num(l, "state", 1));
		u4(&p, (uint32_t)num(l, "tid", 100));
		u4(&p, (uint32_t)num(l, "utime", 0));
		u4(&p, (uint32_t)num(l, "stime", 0));
		u1(&p, (unsigned)num(l, "daemon", 0));
		chunk("THST", &p, 0);
		ex_item("{\"what\":\"thread\",\"event\":\"status\",\"thread\":%lld,\"tid\":%lld,"
		        "\"state\":%lld}", num(l, "id", 1), num(l, "tid", 100), num(l, "state", 1));
	} else if (!strcmp(c, "hpif")) {
		u4(&p, 1);
		u4(&p, (uint32_t)num(l, "heap", 1));
		u8(&p, (uint64_t)num(l, "ts", 1700000000000LL));
		u1(&p, (unsigned)num(l, "reason", 1));
		u4(&p, (uint32_t)num(l, "max", 268435456));
		u4(&p, (uint32_t)num(l, "size", 16777216));
		u4(&p, (uint32_t)num(l, "bytes", 8388608));
		u4(&p, (uint32_t)num(l, "objects", 100000));
		chunk("HPIF", &p, 0);
		ex_item("{\"what\":\"heap_info\",\"heap\":%lld,\"timestamp_ms\":%lld,\"reason\":%lld,"
		        "\"max_bytes\":%lld,\"footprint_bytes\":%lld,\"allocated_bytes\":%lld,"
		        "\"allocated_objects\":%lld}", num(l, "heap", 1), num(l, "ts", 1700000000000LL),
		        num(l, "reason", 1), num(l, "max", 268435456), num(l, "size", 16777216),
		        num(l, "bytes", 8388608), num(l, "objects", 100000));
	} else if (!strcmp(c, "hpst") || !strcmp(c, "hpen") || !strcmp(c, "nhst") ||
	           !strcmp(c, "nhen")) {
		char up[5];
		for (int i = 0; i < 4; i++)
			up[i] = (char)toupper((unsigned char)c[i]);
		up[4] = 0;
		long long heap = num(l, "heap", 1), count = num(l, "count", 1);
		for (long long k = 0; k < count; k++) {
			if (shape != SH_PAYLOAD) {
				p.n = 0;
				u4(&p, (uint32_t)(heap + k));
				chunk(up, &p, 0);
			}
			if (c[2] == 's')
				ex_item("{\"what\":\"heap_dump\",\"dump\":%d,\"heap\":%lld,\"native\":%d}",
				        ++dump_no, heap + k, c[0] == 'n');
		}
	} else if (!strcmp(c, "segment")) {
		seg_active = 1;
		snprintf(seg_type, sizeof seg_type, "%s", arg(l, "type", "HPSG"));
		seg_native = !strcmp(seg_type, "NHSG");
		seg_hpso = !strcmp(seg_type, "HPSO");
		seg_heap = (uint32_t)num(l, "heap", 1);
		seg_unit = (unsigned)num(l, "unit", 8);
		seg_addr = (uint32_t)num(l, "address", 0x12c00000);
		seg_offset = (uint32_t)num(l, "offset", 0);
		seg_units_delta = num(l, "units", 0);
		seg_units = 0;
		seg_at = (uint64_t)seg_addr + (uint64_t)seg_offset * seg_unit;
		seg_runs.n = 0;
	} else if (!strcmp(c, "run")) {
		if (!seg_active)
			die("line %d: run outside a segment", l->lineno);
		unsigned sol = (unsigned)num(l, "solidity", 1), kind = (unsigned)num(l, "kind", 0);
		long long units = num(l, "units", 1);
		unsigned state = (sol & 7) | ((kind & 7) << 3);
		long long left = units;
		while (left > 256) {
			u1(&seg_runs, state | 0x80);
			u1(&seg_runs, 255);
			left -= 256;
		}
		u1(&seg_runs, state);
		u1(&seg_runs, (unsigned)(left - 1));
		ex_item("{\"what\":\"run\",\"dump\":%d,\"address\":%llu,\"length\":%llu,\"solidity\":%u,"
		        "\"kind\":%u,\"object_boundary\":%d}", dump_no, (unsigned long long)seg_at,
		        (unsigned long long)units * seg_unit, sol, kind, seg_hpso);
		seg_at += (uint64_t)units * seg_unit;
		seg_units += (uint64_t)units;
	} else if (!strcmp(c, "zerorun")) {
		u1(&seg_runs, 0);
		u1(&seg_runs, 0xFF);
		zero_runs++;
	} else if (!strcmp(c, "endsegment")) {
		u4(&p, seg_heap);
		u1(&p, seg_unit);
		u4(&p, seg_addr);
		u4(&p, seg_offset);
		u4(&p, (uint32_t)(seg_units + (uint64_t)seg_units_delta));
		put(&p, seg_runs.d, seg_runs.n);
		chunk(seg_type, &p, 0);
		seg_active = 0;
		(void)seg_native;
	} else if (!strcmp(c, "request")) {
		const char *t = arg(l, "type", "HPIF");
		if (arg(l, "byte", NULL))
			u1(&p, (unsigned)num(l, "byte", 1));
		if (!strcmp(t, "HPSG") || !strcmp(t, "NHSG"))
			u1(&p, 0);
		uint32_t id = request(t, &p);
		if (id) {
			packet_header(id, 0x80, 0, 0); /* empty reply */
			packet_close();
		}
	} else if (!strcmp(c, "debugger")) {
		if (shape == SH_JDWP) {
			uint32_t id = dbg_id++;
			packet_header(id, 0, 1, 1); /* VirtualMachine.Version */
			packet_close();
			packet_header(id, 0x80, 0, 0);
			/* Reply data that looks like a chunk, to be skipped by its id. */
			put(&out, "HPSG", 4);
			u4(&out, 4);
			u4(&out, 0xDEADBEEF);
			jstring(&out, "OpenJDK-like VM");
			packet_close();
			packet_header(0x7000 + id, 0, 64, 100); /* an event from the VM */
			u4(&out, 0);
			packet_close();
			other_packets += 3;
		}
	} else if (!strcmp(c, "commands")) {
		if (shape == SH_JDWP)
			for (long long i = num(l, "count", 1); i > 0; i--) {
				packet_header(dbg_id++, 0, 1, 1); /* VirtualMachine.Version */
				packet_close();
				other_packets++;
			}
	} else if (!strcmp(c, "reply")) {
		if (shape == SH_JDWP) {
			/* Data like IDSizes' (u4 8 ...): nothing that reads as a chunk. */
			unsigned err = (unsigned)num(l, "error", 0);
			packet_header(dbg_id++, 0x80, err >> 8, err & 0xFF);
			for (long long i = num(l, "bytes", 0); i > 0; i--)
				u1(&out, i % 4 == 1 ? 8 : 0);
			packet_close();
			other_packets++;
		}
	} else if (!strcmp(c, "raw")) {
		long long n = num(l, "bytes", 4);
		for (long long i = 0; i < n; i++)
			u1(&p, (unsigned)(i * 7));
		chunk(arg(l, "type", "XYZW"), &p, 0);
	} else if (!strcmp(c, "compress")) {
		compress_on = l->n && !strcmp(l->key[0], "on");
		compress_declared = num(l, "declared", 0);
	} else if (!strcmp(c, "packet")) {
		if (l->n && !strcmp(l->key[0], "begin")) {
			in_packet = 1;
			if (shape == SH_JDWP)
				packet_header(vm_id++, 0, 0xC7, 0x01);
		} else {
			in_packet = 0;
			if (shape == SH_JDWP)
				packet_close();
		}
	} else if (!strcmp(c, "lenfix")) {
		lenfix = l->n ? strtoll(l->key[0], NULL, 0) : 0;
	} else {
		die("line %d: unknown directive '%s'", l->lineno, c);
	}
	free(p.d);
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: ddmgen DESCRIPTION OUT [EXPECTED.json]\n");
		return 2;
	}
	FILE *in = fopen(argv[1], "r");
	if (!in)
		die("cannot open %s", argv[1]);
	if (argc == 4) {
		ex = fopen(argv[3], "w");
		if (!ex)
			die("cannot write %s", argv[3]);
		fputs("[\n", ex);
		ex_first = 1;
	}
	char *buf = NULL;
	size_t cap = 0;
	int lineno = 0, kind = 0; /* 1 alloc, 2 stream */
	long long cut = 0;
	while (getline(&buf, &cap, in) > 0) {
		lineno++;
		line l;
		l.lineno = lineno;
		if (!parse_line(buf, &l))
			continue;
		if (!strcmp(l.cmd, "alloc")) {
			kind = 1;
		} else if (!strcmp(l.cmd, "stream")) {
			kind = 2;
			const char *s = arg(&l, "shape", "jdwp");
			shape = !strcmp(s, "jdwp") ? SH_JDWP : !strcmp(s, "chunks") ? SH_CHUNKS :
			        !strcmp(s, "payload") ? SH_PAYLOAD : (die("bad shape %s", s), 0);
			long long hs = num(&l, "handshake", 0);
			for (long long i = 0; i < hs && shape == SH_JDWP; i++)
				put(&out, "JDWP-Handshake", 14);
			ex_item("{\"what\":\"stream\",\"shape\":\"%s\",\"handshakes\":%lld,\"args\":", s, hs);
			if (ex) jstr(ex, arg(&l, "args", "")), fputc('}', ex);
		} else if (!kind) {
			die("line %d: the description starts with 'alloc' or 'stream'", lineno);
		} else if (!strcmp(l.cmd, "report")) {
			begin_report(&l);
		} else if (!strcmp(l.cmd, "allocation")) {
			alloc *a = new_alloc();
			a->size = (uint32_t)num(&l, "size", 16);
			a->thread = (unsigned)num(&l, "thread", 1);
			a->cls = sdup(arg(&l, "class", "Ljava/lang/Object;"));
		} else if (!strcmp(l.cmd, "frame")) {
			if (!rep.n)
				die("line %d: frame before any allocation", lineno);
			add_frame(&rep.a[rep.n - 1], arg(&l, "class", "LFoo;"), arg(&l, "method", "m"),
			          arg(&l, "file", "Foo.java"), (int)num(&l, "line", 1));
		} else if (!strcmp(l.cmd, "random")) {
			random_allocs(&l);
		} else if (!strcmp(l.cmd, "endreport")) {
			bytes r = { 0 };
			int report = n_reports, zlib = kind != 1 && compress_on;
			long long trailing = rep.trailing; /* encode_report() clears rep */
			encode_report(&r);
			size_t at = 0;
			if (kind == 1)
				put(&out, r.d, r.n);
			else {
				uint32_t id = 0;
				if (shape == SH_JDWP) {
					bytes q = { 0 };
					id = request("REAL", &q);
				}
				chunk("REAL", &r, id);
				/* The report's offset: its payload's, or the ZLIB chunk's. */
				at = shape == SH_PAYLOAD ? 0 : zlib ? last_chunk_at : last_chunk_at + 8;
			}
			/* Where the reader must say the trailing bytes are. */
			char where[96] = "";
			size_t tables_end = r.n - (size_t)trailing;
			if (zlib)
				snprintf(where, sizeof where, "offset %zu (ZLIB/REAL/string tables): byte %zu of "
				         "the inflated payload: ", at, tables_end);
			else
				snprintf(where, sizeof where, "offset %zu (REAL/string tables): ", at + tables_end);
			ex_item("{\"what\":\"report_at\",\"report\":%d,\"offset\":%zu,\"warning\":\"%s%lld "
			        "bytes after the third string table ignored\"}", report, at,
			        trailing ? where : "", trailing);
			free(r.d);
		} else if (!strcmp(l.cmd, "cut")) {
			cut = num(&l, "bytes", 1);
		} else if (kind == 2) {
			stream_directive(&l);
		} else {
			die("line %d: unknown directive '%s'", lineno, l.cmd);
		}
	}
	free(buf);
	fclose(in);
	if (ex) {
		ex_item("{\"what\":\"counts\",\"other_packets\":%d,\"zlib_chunks\":%d,\"zero_unit_runs\":%d}",
		        other_packets, zlib_chunks, zero_runs);
		fputs("\n]\n", ex);
		fclose(ex);
	}
	size_t n = out.n > (size_t)cut ? out.n - (size_t)cut : 0;
	FILE *o = fopen(argv[2], "wb");
	if (!o || fwrite(out.d ? out.d : (const uint8_t *)"", 1, n, o) != n || fclose(o))
		die("cannot write %s", argv[2]);
	free(out.d);
	free(seg_runs.d);
	return 0;
}
