/*
 * NDJSON writer: one record per line, "record" first as the discriminator,
 * nothing else on the stream.  Lines are assembled in a buffer and written in
 * large blocks.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Two threads.  The caller's thread only copies each node, edge, string and
 * record into a queue block (a few dozen bytes of binary); a second thread
 * formats the previous block into text and writes it, while the next one
 * fills.  Formatting was a third of hprof2ndjson's time on the caller's
 * thread, next to the parsing, while the writing thread idled four fifths
 * of the run.  Metadata and declarations are rare, records of more than a
 * queue block (a huge array's values) gain nothing from a copy: they wait
 * for the queue to empty and are formatted on the caller's thread, so the
 * order of the lines is the order of the calls.  The thread's first failure is returned
 * at the next hand-off or by finish.
 *
 * The queue keeps, of each type, only an index into a copy made at its
 * first use (subtype, field kinds, the field names as JSON keys), found by
 * the type's address (heapfmt.h: a type must not change while the sink is
 * in use) or, at a new address, by its content.
 */
#define QUEUE_BLOCK ((size_t)1 << 20)
#define FLUSH_AT ((size_t)256 << 10)
enum { Q_NODE = 1, Q_EDGE, Q_STRING, Q_RECORD, Q_STRING_ENCODED, Q_EDGES };

typedef struct nd_type {
	const hf_type *type;     /* the caller's type last seen with this content, and */
	const void *name_p, *fields_p; /* its name and fields: identity hints, never read */
	hf_type_class cls;
	char *name;
	int id;
	size_t nfields;
	hf_field_kind *kinds;
	char **fnames;           /* the field names as given */
	size_t hnext;            /* the next copy with the same hash, or SIZE_MAX */
	char **keys;             /* ,"name":, in at least KEY_PAD bytes */
	size_t *keylen;
	char *head;              /* {"record":"name" (records) */
	size_t headlen;
} nd_type;

/* What the formatting writes, in a cache line of its own: the caller's
 * thread reads its own fields of ndjson for every record, and a line shared
 * with a counter the other thread bumps for every record cost a tenth of
 * the time. */
typedef struct nd_out {
	hf_buf line;         /* text not yet written */
	size_t flush_at;     /* written out once it holds this much (hf_writebehind_batch) */
	/* The last edge's line up to its dest, {"record":"edge","subtype":S,
	 * "source":N,"dest": (at most 27 + 20 + 10 + 20 + 8 bytes), for the
	 * next edges of the same type and source: an object's edges come
	 * together. */
	char edge_head[96];
	size_t edge_head_len; /* 0: none yet */
	uint32_t edge_ti;
	uint64_t edge_src;
} nd_out;
#define KEY_PAD 32
#define ND_OUT_SIZE ((sizeof(nd_out) + 63) / 64 * 64)

typedef struct ndjson {
	hf_sink sink;
	FILE *fp;
	int fd;
	int owns_fp;
	char *path, *tmp;    /* atomic output: tmp renamed to path on finish */
	hf_queue queue;      /* records for the formatting thread */
	hf_writebehind wb;   /* written by whichever thread writes */
	nd_out *out;         /* the formatting thread's, or the caller's when it is idle */
	nd_type *types;
	size_t ntypes, types_cap;
	hf_map type_ix;      /* hf_type address -> index in types */
	hf_map type_hash;    /* content hash -> the first copy with it (then hnext) */
	struct {
		const hf_type *type;
		const void *name_p, *fields_p;
		size_t nfields, ix;
		int id;
		hf_type_class cls;
	} recent[16];        /* direct-mapped by address: nodes and edges alternate types */
} ndjson;

/* Hot path: nodes and edges are written straight into the line buffer after
 * one reservation (a node or edge line is at most ~200 bytes). */
#define put_u64 hf_put_u64

static inline char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

#define PUT(p, lit) (memcpy((p), lit, sizeof(lit) - 1), (p) + sizeof(lit) - 1)

static hf_status write_error(ndjson *w, int e, hf_error *err)
{
	return hf_error_set(err, e == ENOMEM ? HF_ERR_NOMEM : HF_ERR_IO, "cannot write %s: %s",
	                    w->path ? w->path : "output", strerror(e));
}

/* Writes out the text in line (by whichever thread owns it now), but for
 * the bytes past its last block when the writes are direct, which stay in
 * line (hf_writebehind_write_buf). */
static hf_status write_line(ndjson *w, nd_out *o, hf_error *err)
{
	int e = hf_writebehind_write_buf(&w->wb, &o->line);
	o->flush_at = hf_writebehind_batch(&w->wb, FLUSH_AT);
	return e ? write_error(w, e, err) : HF_OK;
}

static hf_status end_line(ndjson *w, nd_out *o, hf_error *err)
{
	if (!hf_buf_append(&o->line, "}\n", 2))
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	if (o->line.len >= o->flush_at)
		return write_line(w, o, err);
	return HF_OK;
}

#define B(x) do { if (!(x)) return hf_error_set(err, HF_ERR_NOMEM, "out of memory"); } while (0)
#define LIT(s) hf_buf_append(&o->line, s, sizeof(s) - 1)

/* ---- the queue ------------------------------------------------------------ */

static void nd_type_free(nd_type *t)
{
	for (size_t i = 0; t->keys && i < t->nfields; i++)
		free(t->keys[i]);
	for (size_t i = 0; t->fnames && i < t->nfields; i++)
		free(t->fnames[i]);
	free(t->fnames);
	free(t->keys);
	free(t->keylen);
	free(t->kinds);
	free(t->head);
	free(t->name);
}

static uint64_t type_hash(const hf_type *t)
{
	uint64_t h = hf_fnv1a_u64(HF_FNV_BASIS, (uint64_t)t->cls);
	h = hf_fnv1a_u64(h, (uint64_t)(int64_t)t->id);
	h = hf_fnv1a_u64(h, t->nfields);
	h = hf_fnv1a(h, t->name, strlen(t->name) + 1);
	for (size_t i = 0; i < t->nfields; i++) {
		h = hf_fnv1a_u64(h, (uint64_t)t->fields[i].kind);
		h = hf_fnv1a(h, t->fields[i].name, strlen(t->fields[i].name) + 1);
	}
	return h;
}

/* Whether the copy d was made of t, or of a type with t's content. */
static bool same_type(const nd_type *d, const hf_type *t)
{
	if (d->cls != t->cls || d->id != t->id || d->nfields != t->nfields || strcmp(d->name, t->name))
		return false;
	for (size_t i = 0; i < t->nfields; i++)
		if (d->kinds[i] != t->fields[i].kind || strcmp(d->fnames[i], t->fields[i].name))
			return false;
	return true;
}

/* The same caller's type as when the copy was made (the usual case: types
 * are static or live as long as the run). */
static inline bool seen_as(const nd_type *d, const hf_type *t)
{
	return d->type == t && d->name_p == t->name && d->fields_p == t->fields &&
	       d->nfields == t->nfields && d->id == t->id && d->cls == t->cls;
}

/* *ti: the index of the copy of t, made at its first use.  A type at a new
 * address with the content of a known one (a caller that rebuilds its types)
 * shares that one's copy, so the copies are as many as the distinct types.
 * A copy is added only while the formatting thread is idle: it reads the
 * array. */
static hf_status type_index_slow(ndjson *w, const hf_type *t, size_t slot, uint32_t *ti, hf_error *err);

/* Static types sit sizeof(hf_type) apart: a multiplicative hash. */
static inline size_t recent_slot(const hf_type *t)
{
	return (size_t)(((uint64_t)(uintptr_t)t * 0x9E3779B97F4A7C15u) >> 60);
}

/* The recent types inline, the rest in a function of its own: with the
 * whole search in one function, its entry (six registers saved for the
 * rare path) was 4 % of hprof2ndjson's samples, for 28 M nodes and edges
 * that all hit. */
static inline hf_status type_index(ndjson *w, const hf_type *t, uint32_t *ti, hf_error *err)
{
	size_t slot = recent_slot(t);
	if (w->recent[slot].type == t && w->recent[slot].name_p == t->name &&
	    w->recent[slot].fields_p == t->fields && w->recent[slot].nfields == t->nfields &&
	    w->recent[slot].id == t->id && w->recent[slot].cls == t->cls) {
		*ti = (uint32_t)w->recent[slot].ix;
		return HF_OK;
	}
	return type_index_slow(w, t, slot, ti, err);
}

static __attribute__((noinline)) hf_status type_index_slow(ndjson *w, const hf_type *t, size_t slot,
                                                           uint32_t *ti, hf_error *err)
{
	uint64_t *ix = hf_map_get(&w->type_ix, (uint64_t)(uintptr_t)t);
	size_t found = ix && seen_as(&w->types[*ix], t) ? (size_t)*ix : SIZE_MAX;
	if (found != SIZE_MAX)
		goto hit;
	/* By content, through its hash: a hostile input's many types cost
	 * no more than their size. */
	uint64_t h = type_hash(t);
	uint64_t *first = hf_map_get(&w->type_hash, h);
	for (size_t i = first ? (size_t)*first : SIZE_MAX; i != SIZE_MAX; i = w->types[i].hnext)
		if (same_type(&w->types[i], t)) {
			found = i;
			break;
		}
	if (found == SIZE_MAX) {
		hf_status st = hf_queue_drain(&w->queue, err);
		if (st)
			return st;
		if (w->ntypes == UINT32_MAX)
			return hf_error_set(err, HF_ERR_LIMIT, "more than 2^32 types");
		if (w->ntypes == w->types_cap) {
			size_t cap = w->types_cap ? 2 * w->types_cap : 16;
			nd_type *p = realloc(w->types, cap * sizeof *p);
			if (!p)
				return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
			w->types = p;
			w->types_cap = cap;
		}
		nd_type *d = &w->types[w->ntypes];
		memset(d, 0, sizeof *d);
		d->cls = t->cls;
		d->id = t->id;
		d->nfields = t->nfields;
		d->hnext = first ? (size_t)*first : SIZE_MAX;
		hf_buf b;
		hf_buf_init(&b);
		bool ok = (d->name = strdup(t->name)) &&
		          (d->kinds = calloc(t->nfields + 1, sizeof *d->kinds)) &&
		          (d->fnames = calloc(t->nfields + 1, sizeof *d->fnames)) &&
		          (d->keys = calloc(t->nfields + 1, sizeof *d->keys)) &&
		          (d->keylen = calloc(t->nfields + 1, sizeof *d->keylen)) &&
		          hf_buf_append(&b, "{\"record\":", 10) &&
		          hf_buf_json_string(&b, t->name, strlen(t->name));
		if (ok) {
			d->head = (char *)b.data;
			d->headlen = b.len;
			hf_buf_init(&b);
		}
		for (size_t i = 0; ok && i < t->nfields; i++) {
			d->kinds[i] = t->fields[i].kind;
			b.len = 0;
			ok = (d->fnames[i] = strdup(t->fields[i].name)) && hf_buf_append(&b, ",", 1) &&
			     hf_buf_json_string(&b, t->fields[i].name, strlen(t->fields[i].name)) &&
			     hf_buf_append(&b, ":", 1) &&
			     (d->keys[i] = calloc(1, b.len < KEY_PAD ? KEY_PAD : b.len));
			if (ok) {
				memcpy(d->keys[i], b.data, b.len);
				d->keylen[i] = b.len;
			}
		}
		hf_buf_free(&b);
		if (!ok || !hf_map_put(&w->type_hash, h, w->ntypes)) {
			nd_type_free(d);
			return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
		}
		found = w->ntypes++;
	}
	if (!hf_map_put(&w->type_ix, (uint64_t)(uintptr_t)t, found))
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	nd_type *d = &w->types[found];
	d->type = t;
	d->name_p = t->name;
	d->fields_p = t->fields;
hit:
	w->recent[slot].type = t;
	w->recent[slot].name_p = t->name;
	w->recent[slot].fields_p = t->fields;
	w->recent[slot].nfields = t->nfields;
	w->recent[slot].id = t->id;
	w->recent[slot].cls = t->cls;
	w->recent[slot].ix = found;
	*ti = (uint32_t)found;
	return HF_OK;
}

/* Bytes values take in the queue: per field a byte (0 absent, 1 present,
 * 2 present without text), and the value (8 bytes, or a length and text;
 * for fmt_big, 3: a length and the text's address). */
static size_t q_values_size(const nd_type *t, const hf_value *v)
{
	size_t n = t->nfields;
	for (size_t i = 0; i < t->nfields; i++)
		if (v[i].present)
			n += 8 + (hf_field_is_text(t->kinds[i]) && v[i].s ? v[i].n : 0);
	return n;
}

static uint8_t *q_put_values(uint8_t *restrict d, const nd_type *t, const hf_value *v, bool by_ref)
{
	const size_t nf = t->nfields;
	const hf_field_kind *kinds = t->kinds;
	for (size_t i = 0; i < nf; i++) {
		if (!v[i].present) {
			*d++ = 0;
			continue;
		}
		switch (kinds[i]) {
		default: *d++ = 0; break; /* no such kind: left out */
		case HF_FIELD_INT: *d++ = 1; memcpy(d, &v[i].i, 8); d += 8; break;
		case HF_FIELD_ID:
		case HF_FIELD_STRREF: *d++ = 1; memcpy(d, &v[i].u, 8); d += 8; break;
		case HF_FIELD_REAL: *d++ = 1; memcpy(d, &v[i].d, 8); d += 8; break;
		case HF_FIELD_TEXT:
		case HF_FIELD_JSON: {
			uint64_t n = v[i].s ? v[i].n : 0;
			*d++ = !v[i].s ? 2 : by_ref ? 3 : 1;
			memcpy(d, &n, 8);
			d += 8;
			if (v[i].s && by_ref) {
				memcpy(d, &v[i].s, sizeof v[i].s);
				d += sizeof v[i].s;
			} else if (v[i].s) {
				memcpy(d, v[i].s, v[i].n);
				d += v[i].n;
			}
		}
		}
	}
	return d;
}

/* d in the fewest significant digits that read back as d (0.1, not %.17g's
 * 0.10000000000000001; 17 always do), written as Python's repr writes a
 * float (and json.dumps after it): positional from 1e-4 to below 1e16, with
 * ".0" when it has no fraction, else as 1.5e+300.  A real that came in that
 * form, as most writers give it, goes back out unchanged. */
static bool put_real(hf_buf *b, double d)
{
	if (!isfinite(d))
		return hf_buf_append(b, "null", 4);
	char tmp[48];
	int digits = 1;
	for (; digits < 17; digits++) {
		snprintf(tmp, sizeof tmp, "%.*e", digits - 1, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	int n = snprintf(tmp, sizeof tmp, "%.*e", digits - 1, d);
	const char *e = strchr(tmp, 'e');
	int exp = e ? atoi(e + 1) : 0;
	if (exp >= -4 && exp < 16)
		n = snprintf(tmp, sizeof tmp, "%.*f", digits - 1 - exp > 0 ? digits - 1 - exp : 0, d);
	/* Keep it a JSON number that reads back as a real. */
	bool plain = !strpbrk(tmp, ".eE");
	return hf_buf_append(b, tmp, (size_t)n) && (!plain || hf_buf_append(b, ".0", 2));
}

/* The values as queued (q_put_values) at *p, as the line's members; *p
 * past them.  Formatted from the queue's bytes, without hf_value between
 * (its copy and read back were 8 % of hprof2ndjson's instructions). */
static bool put_values(nd_out *o, const nd_type *t, const uint8_t **pp)
{
	const uint8_t *p = *pp;
	bool ok = true;
	for (size_t i = 0; i < t->nfields && ok; i++) {
		uint8_t tag = *p++;
		if (!tag)
			continue;
		size_t kl = t->keylen[i];
		if (!hf_buf_reserve(&o->line, kl + KEY_PAD + 24))
			return false;
		char *c = (char *)o->line.data + o->line.len;
		if (kl <= KEY_PAD)
			memcpy(c, t->keys[i], KEY_PAD); /* a fixed size: no call */
		else
			memcpy(c, t->keys[i], kl);
		c += kl;
		o->line.len += kl;
		uint64_t u;
		memcpy(&u, p, 8);
		p += 8;
		switch (t->kinds[i]) {
		case HF_FIELD_INT: o->line.len = (size_t)(put_i64(c, (int64_t)u) - (char *)o->line.data); break;
		case HF_FIELD_ID:
		case HF_FIELD_STRREF: o->line.len = (size_t)(put_u64(c, u) - (char *)o->line.data); break;
		case HF_FIELD_REAL: {
			double d;
			memcpy(&d, &u, 8);
			ok = put_real(&o->line, d);
			break;
		}
		default: { /* HF_FIELD_TEXT, HF_FIELD_JSON */
			const char *text = (const char *)p;
			if (tag == 3) {
				memcpy(&text, p, sizeof text);
				p += sizeof text;
			} else if (tag == 1) {
				p += u;
			}
			if (t->kinds[i] == HF_FIELD_TEXT)
				ok = hf_buf_json_string(&o->line, text, tag == 2 ? 0 : (size_t)u);
			else
				ok = tag != 2 ? hf_buf_append(&o->line, text, (size_t)u) : LIT("null");
		}
		}
	}
	*pp = p;
	return ok;
}

/* ---- formatting (on the thread) ------------------------------------------- */

static hf_status fmt_node(ndjson *w, nd_out *o, const nd_type *t, const hf_node *n, const uint8_t **v,
                          hf_error *err)
{
	B(hf_buf_reserve(&o->line, 256));
	char *p = (char *)o->line.data + o->line.len;
	p = PUT(p, "{\"record\":\"node\",\"identifier\":");
	p = put_u64(p, n->id);
	p = PUT(p, ",\"subtype\":");
	p = put_i64(p, t->id);
	p = PUT(p, ",\"dump\":");
	p = put_u64(p, n->dump);
	p = PUT(p, ",\"class\":");
	p = put_u64(p, n->class_id);
	p = PUT(p, ",\"size\":");
	p = put_u64(p, n->size);
	p = PUT(p, ",\"heap\":");
	p = put_u64(p, n->heap);
	o->line.len = (size_t)(p - (char *)o->line.data);
	B(put_values(o, t, v));
	return end_line(w, o, err);
}

/* o->edge_head for edges of type ti (t) from source. */
static inline void edge_head(nd_out *o, uint32_t ti, const nd_type *t, uint64_t source)
{
	if (o->edge_head_len && o->edge_ti == ti && o->edge_src == source)
		return;
	char *h = o->edge_head;
	h = PUT(h, "{\"record\":\"edge\",\"subtype\":");
	h = put_i64(h, t->id);
	h = PUT(h, ",\"source\":");
	h = put_u64(h, source);
	h = PUT(h, ",\"dest\":");
	o->edge_head_len = (size_t)(h - o->edge_head);
	o->edge_ti = ti;
	o->edge_src = source;
}

/* An edge line, its head in o->edge_head (edge_head). */
static hf_status fmt_edge(ndjson *w, nd_out *o, const hf_edge *e, hf_error *err)
{
	B(hf_buf_reserve(&o->line, 256));
	char *p = (char *)o->line.data + o->line.len;
	memcpy(p, o->edge_head, sizeof o->edge_head); /* a fixed size: no call */
	p += o->edge_head_len;
	p = put_u64(p, e->dest);
	p = PUT(p, ",\"label\":");
	p = put_u64(p, e->label);
	p = PUT(p, ",\"dump\":");
	p = put_u64(p, e->dump);
	p = PUT(p, "}\n");
	o->line.len = (size_t)(p - (char *)o->line.data);
	if (o->line.len >= o->flush_at)
		return write_line(w, o, err);
	return HF_OK;
}

/* A string line up to its text. */
static bool string_head(nd_out *o, uint64_t id)
{
	return LIT("{\"record\":\"string\",\"id\":") && hf_buf_u64(&o->line, id) && LIT(",\"data\":");
}

static hf_status fmt_string(ndjson *w, nd_out *o, uint64_t id, const char *utf8, size_t len, hf_error *err)
{
	B(string_head(o, id));
	B(hf_buf_json_string(&o->line, utf8, len));
	return end_line(w, o, err);
}

/* A String's text arrives as the dump holds it (UTF-16 or Latin-1) and is
 * decoded here, on the formatting thread: decoding was 8 % of hprof2ndjson's
 * samples, all on the parsing thread, which set the pace (the Android-like
 * benchmark dump to /dev/null 2.06 -> 1.82 s; to a file, where this thread
 * is now as busy as the parser, 2.05 -> 1.97 s: medians of five
 * alternated runs).  Decoded and escaped in one pass (hf_buf_json_text). */
static hf_status fmt_string_encoded(ndjson *w, nd_out *o, uint64_t id, hf_text_encoding enc,
                                    const uint8_t *data, size_t nunits, hf_error *err)
{
	B(string_head(o, id));
	B(hf_buf_json_text(&o->line, enc, data, nunits));
	return end_line(w, o, err);
}

static hf_status fmt_record(ndjson *w, nd_out *o, const nd_type *t, const uint8_t **v, hf_error *err)
{
	B(hf_buf_append(&o->line, t->head, t->headlen));
	B(put_values(o, t, v));
	return end_line(w, o, err);
}

/* Formats (and writes, past FLUSH_AT) the records of a queue block. */
static hf_status run_block(void *ctx, const uint8_t *p, const uint8_t *end, hf_error *err)
{
	ndjson *w = ctx;
	/* Read once: the caller's thread writes beside them for every record. */
	nd_out *o = w->out;
	const nd_type *types = w->types;
	hf_status st = HF_OK;
	while (p < end && !st) {
		uint8_t tag = *p++;
		uint32_t ti;
		switch (tag) {
		case Q_NODE: {
			hf_node n;
			memset(&n, 0, sizeof n);
			hf_queue_get(&p, &ti, 4);
			hf_queue_get(&p, &n.id, 8);
			hf_queue_get(&p, &n.dump, 4);
			hf_queue_get(&p, &n.class_id, 8);
			hf_queue_get(&p, &n.size, 8);
			hf_queue_get(&p, &n.heap, 4);
			st = fmt_node(w, o, &types[ti], &n, &p, err);
			break;
		}
		case Q_EDGE: {
			hf_edge e;
			memset(&e, 0, sizeof e);
			hf_queue_get(&p, &ti, 4);
			hf_queue_get(&p, &e.source, 8);
			hf_queue_get(&p, &e.dest, 8);
			hf_queue_get(&p, &e.label, 8);
			hf_queue_get(&p, &e.dump, 4);
			edge_head(o, ti, &types[ti], e.source);
			st = fmt_edge(w, o, &e, err);
			break;
		}
		case Q_EDGES: {
			hf_edge e;
			uint32_t n;
			memset(&e, 0, sizeof e);
			hf_queue_get(&p, &ti, 4);
			hf_queue_get(&p, &e.source, 8);
			hf_queue_get(&p, &e.dump, 4);
			hf_queue_get(&p, &n, 4);
			edge_head(o, ti, &types[ti], e.source);
			for (uint32_t i = 0; i < n && !st; i++) {
				hf_queue_get(&p, &e.dest, 8);
				hf_queue_get(&p, &e.label, 8);
				st = fmt_edge(w, o, &e, err);
			}
			break;
		}
		case Q_STRING: {
			uint64_t id, len;
			hf_queue_get(&p, &id, 8);
			hf_queue_get(&p, &len, 8);
			st = fmt_string(w, o, id, (const char *)p, (size_t)len, err);
			p += len;
			break;
		}
		case Q_STRING_ENCODED: {
			uint64_t id, n;
			uint8_t enc = *p++;
			hf_queue_get(&p, &id, 8);
			hf_queue_get(&p, &n, 8);
			st = fmt_string_encoded(w, o, id, (hf_text_encoding)enc, p, (size_t)n, err);
			p += enc == HF_TEXT_LATIN1 ? n : 2 * n;
			break;
		}
		default: /* Q_RECORD */
			hf_queue_get(&p, &ti, 4);
			st = fmt_record(w, o, &types[ti], &p, err);
		}
	}
	return st;
}

/* ---- the sink ------------------------------------------------------------- */

static hf_status nd_metadata(hf_sink *s, const char *key, const char *value, hf_error *err)
{
	ndjson *w = s->impl;
	nd_out *o = w->out;
	hf_status st = hf_queue_drain(&w->queue, err);
	if (st)
		return st;
	B(LIT("{\"record\":\"metadata\",\"key\":"));
	B(hf_buf_json_string(&o->line, key, strlen(key)));
	B(LIT(",\"value\":"));
	B(hf_buf_json_string(&o->line, value, strlen(value)));
	return end_line(w, o, err);
}

static hf_status nd_declare(hf_sink *s, const hf_type *t, hf_error *err)
{
	ndjson *w = s->impl;
	nd_out *o = w->out;
	hf_status st = hf_queue_drain(&w->queue, err);
	if (st)
		return st;
	static const char *const cls[] = { "node_type", "edge_type", "record_type" };
	B(LIT("{\"record\":"));
	B(hf_buf_json_string(&o->line, cls[t->cls], strlen(cls[t->cls])));
	if (t->cls != HF_TYPE_RECORD) {
		B(LIT(",\"subtype\":"));
		B(hf_buf_i64(&o->line, t->id));
	}
	B(LIT(",\"name\":"));
	B(hf_buf_json_string(&o->line, t->name, strlen(t->name)));
	if (t->table) {
		B(LIT(",\"table\":"));
		B(hf_buf_json_string(&o->line, t->table, strlen(t->table)));
	}
	if (t->cls == HF_TYPE_EDGE) {
		const char *label = t->label ? t->label : "none";
		B(LIT(",\"label\":"));
		B(hf_buf_json_string(&o->line, label, strlen(label)));
	}
	if (t->cls != HF_TYPE_EDGE) {
		B(LIT(",\"fields\":["));
		for (size_t i = 0; i < t->nfields; i++) {
			const hf_field *f = &t->fields[i];
			const char *k = hf_field_kind_name(f->kind);
			B(LIT("{\"name\":"));
			B(hf_buf_json_string(&o->line, f->name, strlen(f->name)));
			B(LIT(",\"type\":"));
			B(hf_buf_json_string(&o->line, k, strlen(k)));
			if (f->doc) {
				B(LIT(",\"doc\":"));
				B(hf_buf_json_string(&o->line, f->doc, strlen(f->doc)));
			}
			B(LIT("}"));
			if (i + 1 < t->nfields)
				B(LIT(","));
		}
		B(LIT("]"));
	}
	if (t->doc) {
		B(LIT(",\"doc\":"));
		B(hf_buf_json_string(&o->line, t->doc, strlen(t->doc)));
	}
	return end_line(w, o, err);
}

static hf_status nd_string(hf_sink *s, uint64_t id, const char *utf8, size_t len, hf_error *err)
{
	ndjson *w = s->impl;
	hf_status st;
	if (1 + 16 + len > QUEUE_BLOCK)
		return (st = hf_queue_drain(&w->queue, err)) ? st : fmt_string(w, w->out, id, utf8, len, err);
	if ((st = hf_queue_room(&w->queue, 1 + 16 + len, err)))
		return st;
	uint64_t len64 = len;
	w->queue.q.data[w->queue.q.len++] = Q_STRING;
	hf_queue_put(&w->queue, &id, 8);
	hf_queue_put(&w->queue, &len64, 8);
	hf_queue_put(&w->queue, utf8, len);
	return HF_OK;
}

hf_status hf_ndjson_string_encoded(hf_sink *s, uint64_t id, hf_text_encoding enc, const uint8_t *data,
                                   size_t nunits, hf_error *err)
{
	ndjson *w = s->impl;
	hf_status st;
	size_t bytes = enc == HF_TEXT_LATIN1 ? nunits : 2 * nunits;
	if (1 + 1 + 16 + bytes > QUEUE_BLOCK)
		return (st = hf_queue_drain(&w->queue, err))
		           ? st : fmt_string_encoded(w, w->out, id, enc, data, nunits, err);
	if ((st = hf_queue_room(&w->queue, 1 + 1 + 16 + bytes, err)))
		return st;
	uint64_t n64 = nunits;
	w->queue.q.data[w->queue.q.len++] = Q_STRING_ENCODED;
	w->queue.q.data[w->queue.q.len++] = (uint8_t)enc;
	hf_queue_put(&w->queue, &id, 8);
	hf_queue_put(&w->queue, &n64, 8);
	hf_queue_put(&w->queue, data, bytes);
	return HF_OK;
}

/* A node (n) or record (n NULL) too large for a queue block, formatted on
 * the caller's thread with the queue drained: its values put in a block of
 * their own for put_values, their texts by address (no copy of a huge
 * value). */
static hf_status fmt_big(ndjson *w, const nd_type *t, const hf_node *n, const hf_value *v, hf_error *err)
{
	/* zeroed: the static analyser could not tell that put_values reads
	 * only what q_put_values wrote */
	uint8_t *block = calloc(t->nfields, 1 + 8 + sizeof(const char *));
	if (!block && t->nfields)
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	q_put_values(block, t, v, true);
	const uint8_t *p = block;
	hf_status st = n ? fmt_node(w, w->out, t, n, &p, err) : fmt_record(w, w->out, t, &p, err);
	free(block);
	return st;
}

static hf_status nd_node(hf_sink *s, const hf_node *n, hf_error *err)
{
	ndjson *w = s->impl;
	uint32_t ti;
	hf_status st = type_index(w, n->type, &ti, err);
	if (st)
		return st;
	const nd_type *t = &w->types[ti];
	size_t need = 1 + 36 + q_values_size(t, n->values);
	if (need > QUEUE_BLOCK)
		return (st = hf_queue_drain(&w->queue, err)) ? st : fmt_big(w, t, n, n->values, err);
	if ((st = hf_queue_room(&w->queue, need, err)))
		return st;
	/* At fixed offsets through one pointer: through the queue's own
	 * fields, each byte stored made the compiler load them again. */
	uint8_t *d = w->queue.q.data + w->queue.q.len;
	d[0] = Q_NODE;
	memcpy(d + 1, &ti, 4);
	memcpy(d + 5, &n->id, 8);
	memcpy(d + 13, &n->dump, 4);
	memcpy(d + 17, &n->class_id, 8);
	memcpy(d + 25, &n->size, 8);
	memcpy(d + 33, &n->heap, 4);
	w->queue.q.len = (size_t)(q_put_values(d + 37, t, n->values, false) - w->queue.q.data);
	return HF_OK;
}

static hf_status nd_edge(hf_sink *s, const hf_edge *e, hf_error *err)
{
	ndjson *w = s->impl;
	uint32_t ti;
	hf_status st = type_index(w, e->type, &ti, err);
	if (st)
		return st;
	st = hf_queue_room(&w->queue, 1 + 32, err);
	if (st)
		return st;
	uint8_t *p = w->queue.q.data + w->queue.q.len;
	p[0] = Q_EDGE;
	memcpy(p + 1, &ti, 4);
	memcpy(p + 5, &e->source, 8);
	memcpy(p + 13, &e->dest, 8);
	memcpy(p + 21, &e->label, 8);
	memcpy(p + 29, &e->dump, 4);
	w->queue.q.len += 33;
	return HF_OK;
}

/* hf_sink_edges: one type lookup and one room check for the lot, queued
 * as one record (type, source and dump once, then 16 bytes an edge:
 * about half the bytes of single edges) and formatted with one head.  A
 * lot too large for a queue block goes in several. */
#define Q_EDGES_HEAD 21
#define Q_EDGES_MAX ((QUEUE_BLOCK - Q_EDGES_HEAD) / sizeof(hf_edge_to))

hf_status hf_ndjson_edges(hf_sink *s, const hf_type *type, uint64_t source, uint32_t dump, size_t n,
                          const hf_edge_to *to, hf_error *err)
{
	ndjson *w = s->impl;
	uint32_t ti;
	hf_status st = type_index(w, type, &ti, err);
	for (size_t done = 0; done < n && !st;) {
		uint32_t k = (uint32_t)(n - done < Q_EDGES_MAX ? n - done : Q_EDGES_MAX);
		if ((st = hf_queue_room(&w->queue, Q_EDGES_HEAD + k * sizeof *to, err)))
			break;
		uint8_t *p = w->queue.q.data + w->queue.q.len;
		p[0] = Q_EDGES;
		memcpy(p + 1, &ti, 4);
		memcpy(p + 5, &source, 8);
		memcpy(p + 13, &dump, 4);
		memcpy(p + 17, &k, 4);
		memcpy(p + Q_EDGES_HEAD, to + done, k * sizeof *to);
		w->queue.q.len += Q_EDGES_HEAD + k * sizeof *to;
		done += k;
	}
	return st;
}

static hf_status nd_record(hf_sink *s, const hf_record *r, hf_error *err)
{
	ndjson *w = s->impl;
	uint32_t ti;
	hf_status st = type_index(w, r->type, &ti, err);
	if (st)
		return st;
	const nd_type *t = &w->types[ti];
	size_t need = 1 + 4 + q_values_size(t, r->values);
	if (need > QUEUE_BLOCK)
		return (st = hf_queue_drain(&w->queue, err)) ? st : fmt_big(w, t, NULL, r->values, err);
	if ((st = hf_queue_room(&w->queue, need, err)))
		return st;
	uint8_t *d = w->queue.q.data + w->queue.q.len;
	d[0] = Q_RECORD;
	memcpy(d + 1, &ti, 4);
	w->queue.q.len = (size_t)(q_put_values(d + 5, t, r->values, false) - w->queue.q.data);
	return HF_OK;
}

static hf_status nd_finish(hf_sink *s, hf_error *err)
{
	ndjson *w = s->impl;
	hf_status st = hf_queue_drain(&w->queue, err);
	if (!st)
		st = write_line(w, w->out, err);
	if (!st && w->out->line.len) {
		/* What write_line kept, short of a block. */
		int e = hf_writebehind_write(&w->wb, w->out->line.data, w->out->line.len);
		w->out->line.len = 0;
		if (e)
			st = write_error(w, e, err);
	}
	if (!st) {
		int e = hf_writebehind_finish(&w->wb);
		if (e)
			st = write_error(w, e, err);
	}
	if (st)
		return st;
	if (w->owns_fp == 2) {
		int rc = fclose(w->fp);
		w->fp = NULL;
		if (rc != 0)
			return hf_error_set(err, HF_ERR_IO, "cannot write %s: %s", w->path, strerror(errno));
	} else if (w->owns_fp) {
		/* No fsync: the promise is that a failed or killed run leaves no
		 * partial file at the path, not durability across power loss
		 * (the database writer gives the same). */
		int rc = fclose(w->fp);
		w->fp = NULL;
		if (rc != 0)
			return hf_error_set(err, HF_ERR_IO, "cannot write %s: %s", w->path, strerror(errno));
		if (rename(w->tmp, w->path) != 0)
			return hf_error_set(err, HF_ERR_IO, "cannot rename %s to %s: %s", w->tmp,
			                    w->path, strerror(errno));
		hf_temp_kept(&w->tmp);
	}
	return HF_OK;
}

static void nd_destroy(hf_sink *s, int success)
{
	ndjson *w = s->impl;
	(void)success;
	hf_queue_free(&w->queue);
	hf_writebehind_free(&w->wb);
	for (size_t i = 0; i < w->ntypes; i++)
		nd_type_free(&w->types[i]);
	free(w->types);
	hf_map_free(&w->type_ix);
	hf_map_free(&w->type_hash);
	if (w->owns_fp && w->fp)
		fclose(w->fp);
	hf_temp_drop(&w->tmp);
	free(w->path);
	hf_buf_free(&w->out->line);
	free(w->out);
	free(w);
}

static const hf_sink_ops ndjson_ops = {
	nd_metadata, nd_declare, nd_string, nd_node, nd_edge, nd_record, nd_finish, nd_destroy
};

bool hf_ndjson_sink_is(const hf_sink *s) { return s->ops == &ndjson_ops; }

hf_status hf_ndjson_sink_new(hf_sink **out, FILE *fp, hf_error *err)
{
	ndjson *w = calloc(1, sizeof *w);
	if (!w)
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	w->sink.ops = &ndjson_ops;
	w->sink.impl = w;
	w->fp = fp;
	/* Anything the caller wrote through stdio goes first; from here on the
	 * writer owns the descriptor. */
	fflush(fp);
	w->fd = fileno(fp);
	hf_writebehind_init(&w->wb, w->fd);
	hf_queue_init(&w->queue, QUEUE_BLOCK, run_block, w);
	w->out = aligned_alloc(64, ND_OUT_SIZE);
	if (w->out) {
		memset(w->out, 0, ND_OUT_SIZE);
		w->out->flush_at = FLUSH_AT;
	}
	if (!w->out || !hf_buf_reserve(&w->out->line, FLUSH_AT + 65536) ||
	    !hf_buf_reserve(&w->queue.q, QUEUE_BLOCK)) {
		if (w->out)
			hf_buf_free(&w->out->line);
		free(w->out);
		hf_queue_free(&w->queue);
		free(w);
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	}
	*out = &w->sink;
	return HF_OK;
}

hf_status hf_ndjson_sink_open(hf_sink **out, const char *path, hf_error *err)
{
	/* A device, FIFO or socket (/dev/null, /dev/stdout, a named pipe) is
	 * written in place: renaming a file over it would replace it. */
	hf_out_target t;
	if (hf_out_resolve(path, &t))
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	if (t.is_dir) {
		free(t.path);
		return hf_error_set(err, HF_ERR_IO, "cannot write %s: it is a directory", path);
	}
	if (t.in_place) {
		free(t.path);
		FILE *fp = hf_out_open_in_place(path);
		if (!fp)
			return hf_error_set(err, HF_ERR_IO, "cannot open %s: %s", path, strerror(errno));
		hf_status st = hf_ndjson_sink_new(out, fp, err);
		if (st != HF_OK) {
			fclose(fp);
			return st;
		}
		ndjson *w = (*out)->impl;
		w->owns_fp = 2; /* close, but no rename */
		w->path = strdup(path);
		return HF_OK;
	}
	char *tmp = NULL;
	int fd = hf_make_temp_beside(t.path, t.mode, &tmp);
	if (fd < 0) {
		int e = errno;
		free(t.path);
		return hf_error_set(err, HF_ERR_IO, "cannot create a file beside %s: %s", path, strerror(e));
	}
	FILE *fp = fdopen(fd, "wb");
	if (!fp) {
		int e = errno;
		close(fd);
		hf_temp_drop(&tmp);
		free(t.path);
		return hf_error_set(err, HF_ERR_IO, "cannot open %s: %s", path, strerror(e));
	}
	hf_status st = hf_ndjson_sink_new(out, fp, err);
	if (st != HF_OK) {
		fclose(fp);
		hf_temp_drop(&tmp);
		free(t.path);
		return st;
	}
	ndjson *w = (*out)->impl;
	w->owns_fp = 1;
	w->tmp = tmp;
	w->path = t.path; /* the rename's target */
	return HF_OK;
}
