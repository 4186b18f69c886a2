/*
 * NDJSON reader: lines of the extensible heap-dump format back into a sink.
 *
 * Each line is parsed by jansson (which also checks that it is JSON and
 * UTF-8); besides that, a small scanner finds the raw text of every top-level
 * value, because two things must come through byte for byte and jansson's
 * tree would change them: integers up to 2^64-1 (jansson stops at 2^63-1) and
 * json fields ("values"), whose numbers, spacing and key order are kept as
 * written.  Declared types are rebuilt from their node_type, edge_type and
 * record_type lines into types the reader owns, so any declared record type,
 * known to this version or not, passes through.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "heapfmt/translate.h"
#include "ddm_model.h"
#include "hprof_model.h"
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

/* ---- owned types (shared with heapdb_reader.c) --------------------------- */

hf_type *hf_tr_type_clone(const hf_type *src);
void hf_tr_type_free(hf_type *t);
void hf_tr_known_indexes(hf_type *t);

static char *dup_opt(const char *s, bool *ok)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*ok = false;
	return d;
}

void hf_tr_type_free(hf_type *t)
{
	if (!t)
		return;
	hf_field *f = (hf_field *)t->fields;
	for (size_t i = 0; f && i < t->nfields; i++) {
		free((void *)f[i].name);
		free((void *)f[i].doc);
	}
	free(f);
	free((void *)t->name);
	free((void *)t->table);
	free((void *)t->label);
	free((void *)t->doc);
	free(t);
}

/* A deep copy: every string and the field array belong to the copy. */
hf_type *hf_tr_type_clone(const hf_type *src)
{
	hf_type *t = calloc(1, sizeof *t);
	hf_field *f = calloc(src->nfields + 1, sizeof *f);
	if (!t || !f) {
		free(t);
		free(f);
		return NULL;
	}
	bool ok = true;
	t->cls = src->cls;
	t->id = src->id;
	t->fields = f;
	t->nfields = src->nfields;
	t->name = dup_opt(src->name, &ok);
	t->table = dup_opt(src->table, &ok);
	t->label = dup_opt(src->label, &ok);
	t->doc = dup_opt(src->doc, &ok);
	for (size_t i = 0; i < src->nfields; i++) {
		f[i].name = dup_opt(src->fields[i].name, &ok);
		f[i].kind = src->fields[i].kind;
		f[i].doc = dup_opt(src->fields[i].doc, &ok);
		f[i].indexed = src->fields[i].indexed;
	}
	if (!ok) {
		hf_tr_type_free(t);
		return NULL;
	}
	return t;
}

/* Neither form says which fields are indexed; the types heapfmt itself
 * writes keep their indexes (hprof.gc_root object, ...) through a round trip. */
void hf_tr_known_indexes(hf_type *t)
{
	const hf_type *const *lists[] = { hprof_types, ddm_types };
	for (size_t l = 0; l < sizeof lists / sizeof *lists; l++)
		for (const hf_type *const *k = lists[l]; *k; k++) {
			if ((*k)->cls != t->cls || strcmp((*k)->name, t->name) != 0)
				continue;
			hf_field *f = (hf_field *)t->fields;
			for (size_t i = 0; i < t->nfields; i++)
				for (size_t j = 0; j < (*k)->nfields; j++)
					if ((*k)->fields[j].indexed && !strcmp(f[i].name, (*k)->fields[j].name))
						f[i].indexed = 1;
		}
}

/* ---- the reader ------------------------------------------------------------ */

typedef struct kv {
	const char *k;       /* key, decoded */
	size_t kl;
	const char *v;       /* raw value text */
	size_t vl;
	int used;
} kv;

typedef struct reader {
	hf_input *in;
	hf_sink *sink;
	hf_error *err;
	hf_read_stats *st;
	hf_ndjson_read_options opt;
	hf_type **types;
	size_t ntypes, captypes;
	/* Lookups of the types and names by key (a line of data looks its type
	 * up, a declaration checks its names against all earlier ones): a
	 * search through them took time in the product of the lines and the
	 * types.  The name keys are hashes, checked against the real names
	 * (see name_hash). */
	uint64_t hash_seed;  /* of name_hash: random, so that no input can make its names collide */
	hf_map type_by_id;   /* type_key (class, subtype) -> index in types */
	hf_map type_by_name; /* name_hash of (class, name) -> index in types */
	hf_map name_by_key;  /* name_hash of the lower-cased name -> index in names */
	hf_buf longline;     /* a line longer than the input layer's window */
	hf_buf small;        /* a line with its large arrays and objects left out (load_line) */
	size_t consume;      /* bytes of input to drop after the current line */
	uint64_t line_off;
	char tag[48];
	json_t *root;
	kv *kvs;
	size_t nkv, capkv;
	kv **byname;         /* the kvs by key (index_keys), for a line of many keys */
	size_t capbyname;
	/* A long line's keys that no record reads (see scan_line): not in kvs
	 * nor in jansson's parse, 16 bytes each. */
	hf_map known;        /* key_hash of every key a record reads: fixed_keys, declared fields */
	struct unk_key {
		uint64_t hash;   /* key_hash */
		size_t at;       /* the key's opening quote, in the line */
	} *unk;
	size_t nunk, capunk;
	size_t unk_first;    /* unk's first key as the line has it (unk is sorted by index_keys) */
	const char *cur, *cur_end; /* the line scan_line read */
	bool big_left_out;   /* scan_line's copy has a value of the record's as 0 */
	hf_buf keytext[2];   /* keys decoded: to hash, compare or name them, to keep (add_key) */
	char **keys;         /* keys that needed unescaping, freed per line */
	size_t nkeys, capkeys;
	hf_value *vals;
	size_t capvals;
	struct db_name {     /* the tables and indexes the declarations make */
		char *name;
		const char *kind;   /* "table", "index" */
		const char *owner;  /* the type's name */
	} *names;
	size_t nnames, capnames;
	/* A heapfmt writer's stream runs from its heapfmt.schema to its last
	 * line, heapfmt.complete; streams may be joined (cat a b).  Open: a
	 * heapfmt.schema since the last heapfmt.complete (stats->unfinished, and
	 * stats->cut_line when another stream's heapfmt.schema comes first). */
	int stream_open;
	int schema_seen;
	uint64_t schema_again;  /* the line of the second heapfmt.schema, or 0 */
	uint64_t complete_line; /* the line of the first heapfmt.complete, or 0 */
} reader;

static hf_status fail(reader *r, hf_status status, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
static hf_status fail(reader *r, hf_status status, const char *fmt, ...)
{
	char msg[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return hf_error_at(r->err, status, r->line_off, r->tag, "%s", msg);
}
#ifdef __clang_analyzer__
/* fail returns its status, which the analyzer cannot see through a
 * variadic call (internal.h). */
#define fail(r, status, ...) (fail((r), (status), __VA_ARGS__), (status))
#endif

static hf_status nomem(reader *r) { return fail(r, HF_ERR_NOMEM, "out of memory"); }

/* A text longer than the sink stores (a heap database: SQLite's limit of
 * 10^9 bytes) fails here, with the line, not in the writer. */
static hf_status check_text(reader *r, const char *key, size_t n)
{
	size_t max = r->sink->max_text;
	if (max && n > max)
		return fail(r, HF_ERR_LIMIT, "\"%.60s\" holds %zu bytes of text, more than the output stores (%zu)",
		            key, n, max);
	return HF_OK;
}

/* Finds the next line; *line is NULL at the end of the input.  The line
 * stays valid until the next call. */
static hf_status next_line(reader *r, const char **line, size_t *len)
{
	hf_input_consume(r->in, r->consume);
	r->consume = 0;
	hf_buf_reset(&r->longline);
	r->line_off = hf_input_offset(r->in);
	if (r->line_off == 0) {
		/* A UTF-8 byte order mark before the first line (Windows editors
		 * and PowerShell write one): skipped, as RFC 8259 lets a parser. */
		const uint8_t *p;
		size_t avail;
		hf_status s = hf_input_peek(r->in, 3, &p, &avail, r->err);
		if (s)
			return s;
		if (avail >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) {
			hf_input_consume(r->in, 3);
			r->line_off = 3;
		}
	}
	size_t want = 1 << 16;
	size_t scanned = 0;
	for (;;) {
		const uint8_t *p;
		size_t avail;
		hf_status s = hf_input_peek(r->in, want, &p, &avail, r->err);
		if (s)
			return s;
		if (r->longline.len) {
			const uint8_t *nl = avail ? memchr(p, '\n', avail) : NULL;
			size_t take = nl ? (size_t)(nl - p) : avail;
			if (r->longline.len + take > r->opt.max_line)
				return fail(r, HF_ERR_LIMIT, "a line longer than %zu bytes", r->opt.max_line);
			if (!hf_buf_append(&r->longline, p, take))
				return nomem(r);
			hf_input_consume(r->in, nl ? take + 1 : take);
			if (nl || !avail) {
				*line = (const char *)r->longline.data;
				*len = r->longline.len;
				return HF_OK;
			}
			continue;
		}
		if (!avail) {
			*line = NULL;
			*len = 0;
			return HF_OK;
		}
		const uint8_t *nl = memchr(p + scanned, '\n', avail - scanned);
		if (nl) {
			*line = (const char *)p;
			*len = (size_t)(nl - p);
			r->consume = *len + 1;
		} else if (avail < want) { /* the input ends without a newline */
			*line = (const char *)p;
			*len = avail;
			r->consume = avail;
		} else {
			scanned = avail;
			if (avail > r->opt.max_line)
				return fail(r, HF_ERR_LIMIT, "a line longer than %zu bytes", r->opt.max_line);
			if (avail < HF_INPUT_MAX_PEEK / 2) {
				want = avail * 2;
				continue;
			}
			/* Longer than the window: gather it in a buffer of its own. */
			if (!hf_buf_append(&r->longline, p, avail))
				return nomem(r);
			hf_input_consume(r->in, avail);
			continue;
		}
		if (*len > r->opt.max_line)
			return fail(r, HF_ERR_LIMIT, "a line longer than %zu bytes", r->opt.max_line);
		return HF_OK;
	}
}

/* ---- raw scanner over a line jansson has accepted -------------------------- */

static const char *skip_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static const char *skip_string(const char *p, const char *e)
{
	for (p++; p < e; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

static const char *skip_value(const char *p, const char *e)
{
	if (p >= e)
		return NULL;
	if (*p == '"')
		return skip_string(p, e);
	if (*p == '{' || *p == '[') {
		size_t depth = 0;
		while (p < e) {
			char c = *p;
			if (c == '"') {
				if (!(p = skip_string(p, e)))
					return NULL;
				continue;
			}
			if (c == '{' || c == '[')
				depth++;
			else if ((c == '}' || c == ']') && --depth == 0)
				return p + 1;
			p++;
		}
		return NULL;
	}
	while (p < e && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' &&
	       *p != '\n' && *p != '\r')
		p++;
	return p;
}

/* An array of *cap elements of size bytes, doubled (or of first), or
 * NULL when out of memory (p is then unchanged). */
static void *grow(void *p, size_t *cap, size_t size, size_t first)
{
	size_t nc = *cap ? *cap * 2 : first;
	if (nc > SIZE_MAX / size)
		return NULL;
	void *n = realloc(p, nc * size);
	if (n)
		*cap = nc;
	return n;
}

/* The keys records read besides their declared fields (do_line, declare,
 * parse_fields' "fields"): with the declared fields' names, the keys of
 * r->known.  A key of a long line that is none of them is no record's. */
static const char *const fixed_keys[] = { "record", "subtype", "identifier", "dump", "class", "size",
	"heap", "source", "dest", "label", "id", "data", "key", "value", "name", "table", "doc",
	"fields", NULL };

static uint64_t key_hash(const reader *r, const char *k, size_t n)
{
	/* FNV-1a from a random start, as name_hash: no input can choose keys
	 * that collide. */
	return hf_fnv1a(HF_FNV_BASIS ^ r->hash_seed ^ 0x6b6579ULL, k, n);
}

static bool know_key(reader *r, const char *k)
{
	return hf_map_put(&r->known, key_hash(r, k, strlen(k)), 1);
}

/* The key p[0..q) (quotes included) as text, decoded into b when escaped:
 * 0, or -1 when jansson would refuse it as a key (not a JSON string, or
 * U+0000 in it: -3) with *bad its first bad byte's place from p, or -2
 * when out of memory. */
static int decode_key(const char *p, const char *q, hf_buf *b, const char **k, size_t *kl, size_t *bad)
{
	*bad = 0;
	if (!memchr(p + 1, '\\', (size_t)(q - p - 1))) {
		if (!hf_json_check(p, (size_t)(q - p), 1, bad))
			return -1;
		*k = p + 1;
		*kl = (size_t)(q - p - 2);
		return 0;
	}
	json_error_t je;
	json_t *s = json_loadb(p, (size_t)(q - p), JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
	if (!json_is_string(s)) {
		json_decref(s);
		if (hf_json_check(p, (size_t)(q - p), 1, bad))
			*bad = 0;
		return -1;
	}
	size_t n = json_string_length(s);
	hf_buf_reset(b);
	bool ok = hf_buf_append(b, json_string_value(s), n);
	json_decref(s);
	if (!ok)
		return -2;
	*k = (const char *)b->data;
	*kl = n;
	return memchr(*k, 0, n) ? -3 : 0;
}

static hf_status add_key(reader *r, const char *raw, size_t rawlen, const char **k, size_t *kl)
{
	if (!memchr(raw, '\\', rawlen)) {
		*k = raw;
		*kl = rawlen;
		return HF_OK;
	}
	/* An escaped key: decoded (decode_key), and kept to the line's end. */
	const char *d;
	size_t n, bad;
	int rc = decode_key(raw - 1, raw + rawlen + 1, &r->keytext[1], &d, &n, &bad);
	if (rc == -2)
		return nomem(r);
	if (rc)
		return fail(r, HF_ERR_FORMAT, "cannot decode a key");
	char **keys = r->nkeys < r->capkeys ? r->keys : grow(r->keys, &r->capkeys, sizeof *keys, 8);
	if (keys)
		r->keys = keys;
	char *c = keys ? malloc(n + 1) : NULL;
	if (!c)
		return nomem(r);
	memcpy(c, d, n);
	c[n] = 0;
	r->keys[r->nkeys++] = c;
	*k = c;
	*kl = n;
	return HF_OK;
}

/* The key of r->cur (the line) whose opening quote is at at, decoded into
 * keytext[which]; it was checked when read. */
static void key_of(reader *r, size_t at, int which, const char **k, size_t *kl)
{
	const char *p = r->cur + at, *q = skip_string(p, r->cur_end);
	size_t bad;
	if (!q || decode_key(p, q, &r->keytext[which], k, kl, &bad)) {
		*k = "?";
		*kl = 1;
	}
}

static int unk_cmp(const void *a, const void *b)
{
	const struct unk_key *x = a, *y = b;
	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

/* Of the keys in unk, the place of the one whose second appearance comes
 * first in the line, or SIZE_MAX.  Sorted by hash and place, a key's
 * appearances are a run, or part of one (keys of one hash): the first of a
 * run's entries equal to an earlier one of it.  Only keys of one hash that
 * differ are compared in pairs, and no input can choose those. */
static size_t unk_twice(reader *r)
{
	size_t best = SIZE_MAX;
	if (r->nunk < 2)
		return best;
	qsort(r->unk, r->nunk, sizeof *r->unk, unk_cmp);
	for (size_t i = 0, j; i < r->nunk; i = j) {
		for (j = i + 1; j < r->nunk && r->unk[j].hash == r->unk[i].hash; j++)
			;
		bool found = false;
		for (size_t a = i + 1; a < j && !found; a++)
			for (size_t b = i; b < a && !found; b++) {
				const char *ka, *kb;
				size_t la, lb;
				key_of(r, r->unk[a].at, 0, &ka, &la);
				key_of(r, r->unk[b].at, 1, &kb, &lb);
				if (la == lb && !memcmp(ka, kb, la)) {
					found = true;
					if (r->unk[a].at < best)
						best = r->unk[a].at;
				}
			}
	}
	return best;
}

/* Up to this many keys a line's keys are compared and found one by one:
 * a node line has 7 keys and its type's fields, and sorting them took a
 * qsort a line. */
#define FEW_KEYS 16

static int key_order(const kv *a, const kv *b)
{
	if (a->kl != b->kl)
		return a->kl < b->kl ? -1 : 1;
	return memcmp(a->k, b->k, a->kl);
}

/* By key, then by place in the line. */
static int byname_cmp(const void *a, const void *b)
{
	const kv *x = *(kv *const *)a, *y = *(kv *const *)b;
	int c = key_order(x, y);
	return c ? c : (x > y) - (x < y);
}

/* A key twice is an error; a line of many keys gets them sorted (byname,
 * and unk by unk_twice), so that neither this check nor find() takes time
 * in the square of the keys (a line of 64 KiB holds 8,000 of them, one of
 * 1 GiB a hundred million).  Named is the key whose second appearance comes
 * first in the line, as comparing each key with those before it would. */
static hf_status index_keys(reader *r)
{
	const kv *dup = NULL;
	if (r->nkv <= FEW_KEYS) {
		for (size_t i = 0; i < r->nkv && !dup; i++)
			for (size_t j = 0; j < i && !dup; j++)
				if (!key_order(&r->kvs[i], &r->kvs[j]))
					dup = &r->kvs[i];
	} else {
		if (r->nkv > r->capbyname) {
			size_t nc = r->nkv * 2;
			kv **n = realloc(r->byname, nc * sizeof *n);
			if (!n)
				return nomem(r);
			r->byname = n;
			r->capbyname = nc;
		}
		for (size_t i = 0; i < r->nkv; i++)
			r->byname[i] = &r->kvs[i];
		qsort(r->byname, r->nkv, sizeof *r->byname, byname_cmp);
		/* Named as the pairwise check named it: the key whose second
		 * appearance comes first in the line (the second of a run). */
		for (size_t i = 1; i < r->nkv; i++)
			if (!key_order(r->byname[i - 1], r->byname[i]) &&
			    (i < 2 || key_order(r->byname[i - 2], r->byname[i])) && (!dup || r->byname[i] < dup))
				dup = r->byname[i];
	}
	size_t u = unk_twice(r);
	if (u != SIZE_MAX && (!dup || u < (size_t)(dup->v - r->cur))) {
		const char *k;
		size_t kl;
		key_of(r, u, 0, &k, &kl);
		return fail(r, HF_ERR_FORMAT, "key \"%.*s\" appears twice", (int)(kl > 60 ? 60 : kl), k);
	}
	if (dup)
		return fail(r, HF_ERR_FORMAT, "key \"%.*s\" appears twice", (int)(dup->kl > 60 ? 60 : dup->kl), dup->k);
	return HF_OK;
}

/* jansson's words for a value nested past JSON_PARSER_MAX_DEPTH. */
#define MAX_DEPTH_WORDS "maximum parsing depth"

/* The error s of the line scan_line reads, found at its byte at: if the
 * line stops being JSON before that (anywhere, for at SIZE_MAX), that is
 * named instead, as jansson's parse of the whole line would have. */
static hf_status first_error(reader *r, hf_status s, size_t at)
{
	size_t bad = 0;
	bool deep;
	if (s == HF_ERR_FORMAT && !hf_json_check_why(r->cur, (size_t)(r->cur_end - r->cur), 1, &bad, &deep) &&
	    bad < at)
		return fail(r, HF_ERR_FORMAT, "not JSON: %s at byte %zu of the line",
		            deep ? MAX_DEPTH_WORDS " reached" : "invalid", bad);
	return s;
}

/* A line the scanner cannot follow: where it stops being JSON, if it does. */
static hf_status malformed(reader *r, const char *what)
{
	return first_error(r, fail(r, HF_ERR_FORMAT, "%s", what), SIZE_MAX);
}

/*
 * Finds the raw text of each top-level value of the line (kvs).
 *
 * copy, for a line of big bytes or more (load_line), gets the text jansson
 * parses instead of the line, with two kinds of values left out of it,
 * each checked as JSON by hf_json_check here (jansson's verdict, see
 * json_check.c): an array or object of big bytes or more, as 0 in its place
 * (no tree of it is needed, a json field keeping its raw text), and every
 * pair whose key no record reads, neither one of fixed_keys nor a declared
 * field's name (r->known; a line of one record reads only its own).  Such
 * a key goes to unk, 16 bytes with its place, for the checks of keys twice
 * (index_keys) and of keys not declared (check_unused), and a run of such
 * pairs becomes one "":0 (no field can be named ""), which jansson reads as
 * nothing that is looked for.  jansson's tree costs some 150 bytes a key, and
 * kvs another 56: a 131 MB line of 12 M keys (--ignore-unknown-keys) took
 * ndjson2heapdb to 2.3 GB and 21 s before.  The keys read are at most the
 * known ones: past that number in kvs, one of them is there twice.
 */
static hf_status scan_line(reader *r, const char *line, size_t len, hf_buf *copy, size_t big)
{
	const char *e = line + len;
	const char *p = skip_ws(line, e);
	const char *from = line; /* copy: the line's text not yet in it */
	bool in_run = false;     /* copy: it ends with the "":0 of a run of unread pairs */
	size_t bound = r->known.count;
	r->nkv = 0;
	r->nunk = 0;
	r->cur = line;
	r->cur_end = e;
	r->big_left_out = false;
	if (copy)
		hf_buf_reset(copy);
	if (p >= e || *p != '{')
		return malformed(r, "a line is not a JSON object");
	p = skip_ws(p + 1, e);
	if (p < e && *p == '}')
		return HF_OK;
	for (;;) {
		if (p >= e || *p != '"')
			return malformed(r, "malformed object");
		const char *kp = p, *q = skip_string(p, e);
		if (!q)
			return malformed(r, "malformed object");
		const char *kq = q;
		uint64_t h = 0;
		bool unread = false;
		if (copy) {
			const char *k;
			size_t kl, bad;
			int d = decode_key(kp, kq, &r->keytext[0], &k, &kl, &bad);
			if (d == -2)
				return nomem(r);
			if (d == -3)
				return first_error(r, fail(r, HF_ERR_FORMAT, "not JSON: a key holds U+0000 "
				                           "(at byte %zu of the line)", (size_t)(kp - line)),
				                   (size_t)(kp - line));
			if (d)
				return first_error(r, fail(r, HF_ERR_FORMAT, "not JSON: a key is invalid at byte %zu "
				                           "of the line", (size_t)(kp - line) + bad),
				                   (size_t)(kp - line) + bad);
			h = key_hash(r, k, kl);
			unread = !hf_map_get(&r->known, h);
		}
		p = skip_ws(q, e);
		if (p >= e || *p != ':')
			return malformed(r, "malformed object");
		p = skip_ws(p + 1, e);
		const char *v = p;
		if (!(q = skip_value(p, e)))
			return malformed(r, "malformed value");
		size_t vl = (size_t)(q - v), at = 0;
		bool deep;
		if (copy && (unread || (vl >= big && (*v == '[' || *v == '{'))) &&
		    !hf_json_check_why(v, vl, 2, &at, &deep)) {
			const char *k;
			size_t kl, bad;
			if (decode_key(kp, kq, &r->keytext[0], &k, &kl, &bad))
				k = "?", kl = 1;
			return first_error(r, fail(r, HF_ERR_FORMAT, "not JSON: the value of \"%.*s\" %s "
			                           "at byte %zu of the line", (int)(kl > 60 ? 60 : kl), k,
			                           deep ? "reaches the " MAX_DEPTH_WORDS : "is invalid",
			                           (size_t)(v - line) + at),
			                   (size_t)(v - line) + at);
		}
		if (unread) {
			if (r->nunk == r->capunk) {
				struct unk_key *n = grow(r->unk, &r->capunk, sizeof *n, 64);
				if (!n)
					return nomem(r);
				r->unk = n;
			}
			if (!r->nunk)
				r->unk_first = (size_t)(kp - line);
			r->unk[r->nunk++] = (struct unk_key){ h, (size_t)(kp - line) };
			if (!in_run && (!hf_buf_append(copy, from, (size_t)(kp - from)) || !hf_buf_append(copy, "\"\":0", 4)))
				return nomem(r);
			in_run = true;
			from = q;
		} else {
			if (r->nkv == r->capkv) {
				kv *n = grow(r->kvs, &r->capkv, sizeof *n, 16);
				if (!n)
					return nomem(r);
				r->kvs = n;
			}
			kv *x = &r->kvs[r->nkv];
			hf_status s = add_key(r, kp + 1, (size_t)(kq - kp - 2), &x->k, &x->kl);
			if (s)
				return s;
			x->v = v;
			x->vl = vl;
			x->used = 0;
			r->nkv++;
			in_run = false;
			if (copy && vl >= big && (*v == '[' || *v == '{')) {
				if (!hf_buf_append(copy, from, (size_t)(v - from)) || !hf_buf_append(copy, "0", 1))
					return nomem(r);
				from = q;
				r->big_left_out = true;
			}
			if (copy && r->nkv > bound) {
				if ((s = index_keys(r)))
					return first_error(r, s, SIZE_MAX);
				bound = bound * 2 + 16; /* keys of one hash that differ */
			}
		}
		p = skip_ws(q, e);
		if (p < e && *p == ',') {
			p = skip_ws(p + 1, e);
			continue;
		}
		if (p < e && *p == '}') {
			if (copy && copy->len && !hf_buf_append(copy, from, (size_t)(e - from)))
				return nomem(r);
			hf_status s = index_keys(r);
			return copy && s ? first_error(r, s, SIZE_MAX) : s;
		}
		return malformed(r, "malformed object");
	}
}

static kv *find(reader *r, const char *key)
{
	size_t n = strlen(key);
	if (r->nkv <= FEW_KEYS) {
		for (size_t i = 0; i < r->nkv; i++)
			if (r->kvs[i].kl == n && !memcmp(r->kvs[i].k, key, n)) {
				r->kvs[i].used = 1;
				return &r->kvs[i];
			}
		return NULL;
	}
	kv want = { key, n, NULL, 0, 0 };
	size_t lo = 0, hi = r->nkv;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = key_order(r->byname[mid], &want);
		if (!c) {
			r->byname[mid]->used = 1;
			return r->byname[mid];
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int is_null(const kv *x) { return x->vl == 4 && !memcmp(x->v, "null", 4); }

/* A key the schema requires (schema/heapfmt.schema.json) that the line
 * lacks, or gives as null: the format has no null for a required value
 * (schema/README.md), and reading it as 0 made a record of values the
 * line never held. */
static hf_status need(reader *r, const char *key, const kv *x)
{
	if (!x)
		return fail(r, HF_ERR_FORMAT, "\"%s\" is missing", key);
	return fail(r, HF_ERR_FORMAT, "\"%s\" is null (a value is required)", key);
}

static int parse_i64(const char *s, size_t n, int64_t *out)
{
	uint64_t u;
	if (n && s[0] == '-') {
		if (!hf_parse_u64(s + 1, n - 1, &u) || u > (uint64_t)INT64_MAX + 1)
			return 0;
		*out = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
		return 1;
	}
	if (!hf_parse_u64(s, n, &u) || u > (uint64_t)INT64_MAX)
		return 0;
	*out = (int64_t)u;
	return 1;
}

static hf_status get_u64(reader *r, const char *key, int required, uint64_t *out)
{
	kv *x = find(r, key);
	*out = 0;
	if (!x || is_null(x))
		return required ? need(r, key, x) : HF_OK;
	if (!hf_parse_u64(x->v, x->vl, out))
		return fail(r, HF_ERR_FORMAT, "\"%s\" is not an unsigned 64-bit integer", key);
	return HF_OK;
}

static hf_status get_u32(reader *r, const char *key, int required, uint32_t *out)
{
	uint64_t v;
	hf_status s = get_u64(r, key, required, &v);
	if (s)
		return s;
	if (v > UINT32_MAX)
		return fail(r, HF_ERR_FORMAT, "\"%s\" is larger than 2^32-1", key);
	*out = (uint32_t)v;
	return HF_OK;
}

static hf_status get_subtype(reader *r, int *out)
{
	kv *x = find(r, "subtype");
	int64_t v;
	if (!x || is_null(x))
		return need(r, "subtype", x);
	if (!parse_i64(x->v, x->vl, &v) || v < INT_MIN || v > INT_MAX)
		return fail(r, HF_ERR_FORMAT, "\"subtype\" is not a 32-bit integer");
	*out = (int)v;
	return HF_OK;
}

/* A string value; *s NULL when absent (or null). */
static hf_status get_str(reader *r, const char *key, int required, const char **s, size_t *n)
{
	kv *x = find(r, key);
	*s = NULL;
	*n = 0;
	if (!x || is_null(x))
		return required ? need(r, key, x) : HF_OK;
	json_t *v = json_object_getn(r->root, x->k, x->kl);
	if (!json_is_string(v))
		return fail(r, HF_ERR_FORMAT, "\"%s\" is not a string", key);
	*s = json_string_value(v);
	*n = json_string_length(v);
	return check_text(r, key, *n);
}

/* A string that must not hold U+0000 (names, metadata). */
static hf_status get_cstr(reader *r, const char *key, int required, const char **s)
{
	size_t n;
	hf_status st = get_str(r, key, required, s, &n);
	if (!st && *s && strlen(*s) != n)
		return fail(r, HF_ERR_FORMAT, "\"%s\" holds U+0000", key);
	return st;
}

static hf_status get_value(reader *r, const hf_field *f, hf_value *v)
{
	memset(v, 0, sizeof *v);
	kv *x = find(r, f->name);
	if (!x)
		return HF_OK;
	if (is_null(x) && f->kind != HF_FIELD_JSON && f->kind != HF_FIELD_REAL)
		return HF_OK;
	v->present = 1;
	switch (f->kind) {
	case HF_FIELD_INT:
		if (!parse_i64(x->v, x->vl, &v->i))
			return fail(r, HF_ERR_FORMAT, "field \"%s\" is not a 64-bit integer", f->name);
		break;
	case HF_FIELD_ID:
	case HF_FIELD_STRREF:
		if (!hf_parse_u64(x->v, x->vl, &v->u))
			return fail(r, HF_ERR_FORMAT, "field \"%s\" is not an unsigned 64-bit integer", f->name);
		break;
	case HF_FIELD_TEXT: {
		json_t *j = json_object_getn(r->root, x->k, x->kl);
		if (!json_is_string(j))
			return fail(r, HF_ERR_FORMAT, "field \"%s\" is not a string", f->name);
		v->s = json_string_value(j);
		v->n = json_string_length(j);
		return check_text(r, f->name, v->n);
	}
	case HF_FIELD_REAL: {
		if (is_null(x)) {
			v->d = NAN; /* what the writers make of a value that is not finite */
			break;
		}
		char tmp[64];
		json_t *j = json_object_getn(r->root, x->k, x->kl);
		if (!json_is_number(j) || x->vl >= sizeof tmp || !(x->v[0] == '-' || (x->v[0] >= '0' && x->v[0] <= '9')))
			return fail(r, HF_ERR_FORMAT, "field \"%s\" is not a number", f->name);
		memcpy(tmp, x->v, x->vl);
		tmp[x->vl] = 0;
		v->d = strtod(tmp, NULL);
		break;
	}
	case HF_FIELD_JSON:
		v->s = x->v;
		v->n = x->vl;
		return check_text(r, f->name, v->n);
	default:
		return fail(r, HF_ERR_UNSUPPORTED, "field \"%s\" has an unknown kind", f->name);
	}
	return HF_OK;
}

static hf_status get_values(reader *r, const hf_type *t, hf_value **out)
{
	if (t->nfields > r->capvals) {
		hf_value *n = realloc(r->vals, t->nfields * sizeof *n);
		if (!n)
			return nomem(r);
		r->vals = n;
		r->capvals = t->nfields;
	}
	for (size_t i = 0; i < t->nfields; i++) {
		hf_status s = get_value(r, &t->fields[i], &r->vals[i]);
		if (s)
			return s;
	}
	*out = r->vals;
	return HF_OK;
}

static hf_status not_declared(reader *r, const char *k, size_t kl)
{
	return fail(r, HF_ERR_FORMAT, "key \"%.*s\" is not declared for this record (see --ignore-unknown-keys)",
	            (int)(kl > 60 ? 60 : kl), k);
}

/* Every key must be one the record's type names: the first that is not,
 * in the line, unread ones (unk) among them, is named. */
static hf_status check_unused(reader *r)
{
	for (size_t i = 0; i < r->nkv; i++) {
		if (r->kvs[i].used)
			continue;
		if (!r->opt.ignore_unknown_keys) {
			if (r->nunk && r->unk_first < (size_t)(r->kvs[i].v - r->cur))
				break;
			return not_declared(r, r->kvs[i].k, r->kvs[i].kl);
		}
		r->st->unknown_keys++;
	}
	if (r->nunk && !r->opt.ignore_unknown_keys) {
		const char *k;
		size_t kl;
		key_of(r, r->unk_first, 0, &k, &kl);
		return not_declared(r, k, kl);
	}
	r->st->unknown_keys += r->nunk;
	return HF_OK;
}

/* ---- declarations ------------------------------------------------------------ */

/* A key for a name in a map: FNV-1a of its n bytes after seed, ASCII
 * letters lower-cased when fold.  Different names may share a key: the
 * names of one hash take the keys after it in turn, each checked against
 * the real name (find_type_name, claim_name), and nothing is removed, so a
 * search stops at the first key not in the map. */
static uint64_t name_hash(uint64_t seed, const char *p, size_t n, int fold)
{
	uint64_t h = HF_FNV_BASIS ^ seed;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (fold && c >= 'A' && c <= 'Z')
			c = (unsigned char)(c + 32);
		h = hf_fnv1a_byte(h, c);
	}
	return h;
}

static const hf_type *find_type_id(reader *r, hf_type_class cls, int id)
{
	uint64_t *i = hf_map_get(&r->type_by_id, hf_type_key(cls, id));
	return i ? r->types[*i] : NULL;
}

/* The type of class cls named name[0..n), or NULL; *free_key: the key a new
 * one would take in type_by_name. */
static const hf_type *type_name_slot(reader *r, hf_type_class cls, const char *name, size_t n,
                                     uint64_t *free_key)
{
	uint64_t k = name_hash(r->hash_seed ^ (uint64_t)cls, name, n, 0);
	for (uint64_t *i; (i = hf_map_get(&r->type_by_name, k)); k++) {
		const hf_type *t = r->types[*i];
		if (t->cls == cls && strlen(t->name) == n && !memcmp(t->name, name, n))
			return t;
	}
	if (free_key)
		*free_key = k;
	return NULL;
}

static const hf_type *find_type_name(reader *r, hf_type_class cls, const char *name, size_t n)
{
	return type_name_slot(r, cls, name, n, NULL);
}

static const char *const reserved[] = { "metadata", "node_type", "edge_type", "record_type",
	"string", "node", "edge", NULL };

/* SQLite compares table and column names ignoring ASCII case. */
/* Names in the order of their ASCII letters lower-cased (SQLite's names
 * ignore case). */
static int fold_cmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		unsigned char x = (unsigned char)*a, y = (unsigned char)*b;
		if (x >= 'A' && x <= 'Z')
			x = (unsigned char)(x + 32);
		if (y >= 'A' && y <= 'Z')
			y = (unsigned char)(y + 32);
		if (x != y)
			return x < y ? -1 : 1;
		if (!x)
			return 0;
	}
}

static bool same_name(const char *a, const char *b) { return !fold_cmp(a, b); }

/* The database's own tables and indexes (heapdb.c, analysis.c), which no
 * declaration may name; names beginning with sqlite_ are SQLite's. */
static const char *const db_names[] = { "metadata", "node_types", "edge_types", "record_types",
	"type_fields", "node", "edge", "strings", "node_analysis", "dump_analysis", "edge_by_dest",
	"node_by_class", "node_analysis_by_dominator", NULL };

/* Field names a type cannot have: a node line's own keys, and the columns
 * a subtype table has before the fields; "record" in a record line. */
static const char *const node_keys[] = { "record", "identifier", "subtype", "dump", "class",
	"size", "heap", "node_identifier", NULL };
static const char *const record_keys[] = { "record", NULL };

static const char *type_class_name(const hf_type *t)
{
	return t->cls == HF_TYPE_NODE ? "node type" : t->cls == HF_TYPE_EDGE ? "edge type" : "record type";
}

static const char *const valid_name_rule = "letters, digits and _, not a digit first, at most 64 bytes";

/* Checks the names a node or record type gives its table (the one it
 * declares, or the one the database derives from its name) and fields. */
static hf_status check_names(reader *r, const hf_type *t, const char *table)
{
	const char *what = type_class_name(t);
	if (!hf_heapdb_valid_name(table))
		return fail(r, HF_ERR_FORMAT, "%s \"%.60s\": table name \"%.70s\" is not valid (%s)",
		            what, t->name, table, valid_name_rule);
	const char *const *keys = t->cls == HF_TYPE_NODE ? node_keys : record_keys;
	for (size_t i = 0; i < t->nfields; i++) {
		const char *f = t->fields[i].name;
		if (!hf_heapdb_valid_name(f))
			return fail(r, HF_ERR_FORMAT, "%s \"%.60s\": field name \"%.70s\" is not valid (%s)",
			            what, t->name, f, valid_name_rule);
		for (size_t k = 0; keys[k]; k++)
			if (same_name(f, keys[k]))
				return fail(r, HF_ERR_FORMAT,
				            "%s \"%.60s\": a field cannot be named \"%s\" (reserved; names "
				            "are compared ignoring case)",
				            what, t->name, f);
	}
	return HF_OK;
}

/* Takes name (a table or index of type t) for t: it must not be the
 * database's own nor one an earlier declaration took. */
static hf_status claim_name(reader *r, const hf_type *t, const char *name, const char *kind)
{
	char prefix[8];
	snprintf(prefix, sizeof prefix, "%s", name);
	bool own = same_name(prefix, "sqlite_");
	for (size_t i = 0; !own && db_names[i]; i++)
		own = same_name(name, db_names[i]);
	/* hprof2ndjson --analysis declares the analysis as this record type. */
	if (own && t->cls == HF_TYPE_RECORD && !strcmp(t->name, "heapfmt.node_analysis") &&
	    !strcmp(name, "node_analysis"))
		own = false;
	if (own)
		return fail(r, HF_ERR_FORMAT, "%s \"%.60s\": %s name \"%.70s\" is one of the database's own",
		            type_class_name(t), t->name, kind, name);
	/* The names taken are unlike each other ignoring case: at most one
	 * is like this one. */
	uint64_t k = name_hash(r->hash_seed, name, strlen(name), 1);
	for (uint64_t *i; (i = hf_map_get(&r->name_by_key, k)); k++) {
		const struct db_name *x = &r->names[*i];
		if (same_name(name, x->name))
			return fail(r, HF_ERR_FORMAT,
			            "%s \"%.60s\": %s name \"%.70s\" is taken by the %s \"%.70s\" of type "
			            "\"%.60s\" (names are compared ignoring case)", type_class_name(t), t->name,
			            kind, name, x->kind, x->name, x->owner);
	}
	if (r->nnames == r->capnames) {
		struct db_name *n = grow(r->names, &r->capnames, sizeof *n, 32);
		if (!n)
			return nomem(r);
		r->names = n;
	}
	struct db_name *n = &r->names[r->nnames];
	if (!hf_map_put(&r->name_by_key, k, r->nnames))
		return nomem(r);
	if (!(n->name = strdup(name))) {
		hf_map_remove(&r->name_by_key, k);
		return nomem(r);
	}
	n->kind = kind;
	n->owner = t->name;
	r->nnames++;
	return HF_OK;
}

/* Takes the names the database gives type t: its table and the indexes
 * of its indexed fields ("<table>_<field>", heapdb.c). */
static hf_status claim_names(reader *r, const hf_type *t, const char *table)
{
	hf_status s = claim_name(r, t, table, "table");
	for (size_t i = 0; !s && i < t->nfields; i++) {
		if (!t->fields[i].indexed)
			continue;
		char ix[160];
		snprintf(ix, sizeof ix, "%s_%s", table, t->fields[i].name);
		s = claim_name(r, t, ix, "index");
	}
	return s;
}

typedef struct field_at {
	const char *name;
	size_t i;
} field_at;

static int field_at_cmp(const void *a, const void *b)
{
	const field_at *x = a, *y = b;
	int c = fold_cmp(x->name, y->name);
	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

/* The first of the n fields f[0..n) whose name an earlier one has (ignoring
 * case), as comparing each with those before it finds, or n; *ok is false
 * when out of memory.  Sorted by name and then position, that is the second
 * of a run of equal names, the first such: n log n, where the comparing
 * took n^2 / 2 (40,000 fields, 1.2 MB, took 5.3 s). */
static size_t first_twice(const hf_field *f, size_t n, bool *ok)
{
	*ok = true;
	size_t dup = n;
	if (n < 2)
		return n;
	field_at *a = malloc(n * sizeof *a);
	if (!a) {
		*ok = false;
		return n;
	}
	for (size_t i = 0; i < n; i++)
		a[i] = (field_at){ f[i].name, i };
	qsort(a, n, sizeof *a, field_at_cmp);
	for (size_t i = 1; i < n; i++)
		if (a[i].i < dup && !fold_cmp(a[i - 1].name, a[i].name) &&
		    (i < 2 || fold_cmp(a[i - 2].name, a[i].name)))
			dup = a[i].i;
	free(a);
	return dup;
}

/* The error of a field declared twice among f[0..n), if one is; the first
 * as the fields are read. */
static hf_status check_twice(reader *r, const hf_field *f, size_t n)
{
	bool ok;
	size_t d = first_twice(f, n, &ok);
	if (!ok)
		return nomem(r);
	if (d < n)
		return fail(r, HF_ERR_FORMAT, "field \"%.60s\" is declared twice "
		            "(names are compared ignoring case)", f[d].name);
	return HF_OK;
}

static hf_status parse_fields(reader *r, hf_type *t, hf_field **out)
{
	kv *x = find(r, "fields");
	*out = NULL;
	t->nfields = 0;
	if (!x || is_null(x))
		return need(r, "fields", x);
	json_t *a = json_object_getn(r->root, x->k, x->kl);
	if (!json_is_array(a))
		return fail(r, HF_ERR_FORMAT, "\"fields\" is not an array");
	size_t n = json_array_size(a);
	hf_field *f = calloc(n + 1, sizeof *f);
	if (!f)
		return nomem(r);
	/* A field's name is compared with the earlier ones' after the loop
	 * (check_twice), and before an error of a later field, which the
	 * comparing field by field would not have reached (twice). */
#define TWICE_FIRST(i) do { hf_status ts_ = check_twice(r, f, (i)); \
		if (ts_) { free(f); return ts_; } } while (0)
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_array_get(a, i);
		if (!json_is_object(o)) {
			TWICE_FIRST(i);
			free(f);
			return fail(r, HF_ERR_FORMAT, "field %zu is not an object", i);
		}
		const char *key;
		json_t *val;
		json_object_foreach(o, key, val) {
			bool known = !strcmp(key, "name") || !strcmp(key, "type") || !strcmp(key, "doc") ||
			             !strcmp(key, "indexed");
			if (known)
				continue;
			if (!r->opt.ignore_unknown_keys) {
				TWICE_FIRST(i);
				free(f);
				return fail(r, HF_ERR_FORMAT, "field %zu: key \"%.60s\" is not known", i, key);
			}
			r->st->unknown_keys++;
		}
		json_t *name = json_object_get(o, "name"), *kind = json_object_get(o, "type");
		json_t *doc = json_object_get(o, "doc"), *ix = json_object_get(o, "indexed");
		if (!json_is_string(name) || strlen(json_string_value(name)) != json_string_length(name) ||
		    !json_is_string(kind) || (doc && !json_is_string(doc) && !json_is_null(doc)) ||
		    (ix && !json_is_boolean(ix))) {
			TWICE_FIRST(i);
			free(f);
			return fail(r, HF_ERR_FORMAT, "field %zu: needs a string \"name\" and \"type\"", i);
		}
		if (!hf_field_kind_parse(json_string_value(kind), &f[i].kind)) {
			TWICE_FIRST(i);
			hf_status s = fail(r, HF_ERR_UNSUPPORTED, "field \"%.60s\": kind \"%.40s\" is not known",
			                   json_string_value(name), json_string_value(kind));
			free(f);
			return s;
		}
		f[i].name = json_string_value(name);
		f[i].doc = json_is_string(doc) ? json_string_value(doc) : NULL;
		f[i].indexed = json_is_true(ix);
	}
	TWICE_FIRST(n);
#undef TWICE_FIRST
	t->nfields = n;
	*out = f;
	return HF_OK;
}

/* The end of a "declared twice" error in streams joined (cat a.ndjson
 * b.ndjson), whose second declares its types again: each stream is a
 * database of its own (their ids would meet).  "" otherwise. */
static const char *joined_hint(const reader *r, char *buf, size_t size)
{
	if (!r->schema_again)
		return "";
	snprintf(buf, size, " (a second stream began at line %llu, heapfmt.schema: load each stream"
	         " into a database of its own)", (unsigned long long)r->schema_again);
	return buf;
}

static hf_status declare(reader *r, hf_type_class cls)
{
	hf_type t;
	memset(&t, 0, sizeof t);
	t.cls = cls;
	hf_status s;
	if (cls != HF_TYPE_RECORD && (s = get_subtype(r, &t.id)))
		return s;
	/* The keys the schema requires: a node type's table and fields, an
	 * edge type's label, a record type's fields (parse_fields). */
	if ((s = get_cstr(r, "name", 1, &t.name)) ||
	    (s = get_cstr(r, "table", cls == HF_TYPE_NODE, &t.table)) ||
	    (s = get_cstr(r, "doc", 0, &t.doc)))
		return s;
	if (cls == HF_TYPE_EDGE && (s = get_cstr(r, "label", 1, &t.label)))
		return s;
	if (!*t.name)
		return fail(r, HF_ERR_FORMAT, "a type needs a name");
	if (cls == HF_TYPE_RECORD)
		for (size_t i = 0; reserved[i]; i++)
			if (!strcmp(t.name, reserved[i]))
				return fail(r, HF_ERR_FORMAT, "a record type cannot be named \"%s\"", t.name);
	char joined[128];
	if (cls != HF_TYPE_RECORD && find_type_id(r, cls, t.id))
		return fail(r, HF_ERR_FORMAT, "%s subtype %d is declared twice%s",
		            cls == HF_TYPE_NODE ? "node" : "edge", t.id, joined_hint(r, joined, sizeof joined));
	uint64_t name_key;
	if (type_name_slot(r, cls, t.name, strlen(t.name), &name_key))
		return fail(r, HF_ERR_FORMAT, "type \"%.60s\" is declared twice%s", t.name,
		            joined_hint(r, joined, sizeof joined));
	hf_field *fields = NULL;
	if (cls != HF_TYPE_EDGE && (s = parse_fields(r, &t, &fields)))
		return s;
	t.fields = fields;
	char derived[80];
	const char *tname = t.table;
	if (cls == HF_TYPE_RECORD && !tname) {
		hf_heapdb_record_table(t.name, derived, sizeof derived);
		tname = derived;
	}
	if ((s = check_unused(r)) || (cls != HF_TYPE_EDGE && (s = check_names(r, &t, tname)))) {
		free(fields);
		return s;
	}
	hf_type *own = hf_tr_type_clone(&t);
	free(fields);
	if (!own)
		return nomem(r);
	hf_tr_known_indexes(own);
	if (cls != HF_TYPE_EDGE && (s = claim_names(r, own, tname))) {
		hf_tr_type_free(own);
		return s;
	}
	if (r->ntypes == r->captypes) {
		hf_type **n = grow(r->types, &r->captypes, sizeof *n, 32);
		if (!n) {
			hf_tr_type_free(own);
			return nomem(r);
		}
		r->types = n;
	}
	/* claim_names took no key of type_by_name: name_key is still free.
	 * Record types have no subtype and are not in type_by_id. */
	if ((cls != HF_TYPE_RECORD && !hf_map_put(&r->type_by_id, hf_type_key(cls, own->id), r->ntypes)) ||
	    !hf_map_put(&r->type_by_name, name_key, r->ntypes)) {
		hf_map_remove(&r->type_by_id, hf_type_key(cls, own->id));
		hf_tr_type_free(own);
		return nomem(r);
	}
	r->types[r->ntypes++] = own;
	r->st->types++;
	for (size_t i = 0; i < own->nfields; i++)
		if (!know_key(r, own->fields[i].name))
			return nomem(r);
	return hf_sink_declare(r->sink, own, r->err);
}

/* ---- one line ---------------------------------------------------------------- */

size_t hf_ndjson_test_big_value;

/* From this size an array or object in a line is checked by hf_json_check
 * and left out of what jansson parses (load_line). */
#define BIG_VALUE ((size_t)64 << 10)
/* A declaration (node_type, edge_type, record_type) with large values is
 * parsed whole by jansson up to this size, and refused beyond. */
#define DECLARATION_MAX ((size_t)16 << 20)

/* jansson's tree of a line; an integer past 2^63-1 (an id up to 2^64-1),
 * which jansson refuses as such, is read as a real (the scanner reads it
 * from the raw text). */
static json_t *jload(const char *text, size_t len, json_error_t *je)
{
	json_t *root = json_loadb(text, len, JSON_ALLOW_NUL, je);
	if (!root && json_error_code(je) == json_error_numeric_overflow)
		root = json_loadb(text, len, JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, je);
	return root;
}

/*
 * Parses the line into r->root and finds its values' raw text (scan_line).
 * jansson's tree of a large array or object costs some 20 times its text,
 * and the reader never needs it (a json field is kept as the raw text), so
 * a line of BIG_VALUE bytes or more is scanned first, and jansson parses a
 * copy without its arrays and objects of that size and without the pairs
 * no record reads (scan_line): the same verdict, in memory about the
 * line's size (a line of 1.02 GB of one array: 21.9 GB before).  A field
 * of another kind that holds such a value is refused as before ("is not a
 * string"...), from its raw text or the 0.
 */
static hf_status load_line(reader *r, const char *line, size_t len)
{
	const size_t big = hf_ndjson_test_big_value ? hf_ndjson_test_big_value : BIG_VALUE;
	const char *text = line;
	size_t tlen = len;
	int scanned = 0;
	hf_status s;
	json_error_t je;
	/* JSON has no raw NUL byte, but jansson drops one that follows a number
	 * or a word ("[1\0]" reads as [1]), and the raw text of a json field
	 * would keep it. */
	const char *nul = memchr(line, 0, len);
	if (nul)
		return fail(r, HF_ERR_FORMAT, "not JSON: a NUL byte at byte %zu of the line", (size_t)(nul - line));
	if (len >= big) {
		if ((s = scan_line(r, line, len, &r->small, big)))
			return s;
		scanned = 1;
		if (r->small.len) {
			text = (const char *)r->small.data;
			tlen = r->small.len;
		}
	}
	r->root = jload(text, tlen, &je);
	if (!r->root) {
		if (text == line)
			return fail(r, HF_ERR_FORMAT, "not JSON: %s (column %d)", je.text, je.column);
		/* The copy's places are not the line's: find the line's. */
		size_t at = 0;
		bool deep;
		if (!hf_json_check_why(line, len, 1, &at, &deep))
			return fail(r, HF_ERR_FORMAT, "not JSON: %s at byte %zu of the line",
			            deep ? MAX_DEPTH_WORDS " reached" : "invalid", at);
		return fail(r, HF_ERR_FORMAT, "not JSON: %s", je.text);
	}
	if (!json_is_object(r->root))
		return fail(r, HF_ERR_FORMAT, "a line must be a JSON object");
	if (text != line && r->big_left_out) {
		/* A declaration's "fields" are read from jansson's tree: when they
		 * were left out, parse it whole, up to a size no declaration needs
		 * (pairs no record reads alone leave out nothing it reads). */
		const char *rec = json_string_value(json_object_get(r->root, "record"));
		if (rec && (!strcmp(rec, "node_type") || !strcmp(rec, "edge_type") || !strcmp(rec, "record_type"))) {
			if (len > DECLARATION_MAX)
				return fail(r, HF_ERR_LIMIT, "a type declaration longer than %zu bytes", DECLARATION_MAX);
			json_decref(r->root);
			r->root = jload(line, len, &je);
			if (!r->root)
				return fail(r, HF_ERR_FORMAT, "not JSON: %s (column %d)", je.text, je.column);
		}
	}
	return scanned ? HF_OK : scan_line(r, line, len, NULL, 0);
}

static hf_status do_line(reader *r, const char *line, size_t len)
{
	hf_status s = load_line(r, line, len);
	if (s)
		return s;
	const char *rec;
	size_t rl;
	if ((s = get_str(r, "record", 1, &rec, &rl)))
		return s;
	snprintf(r->tag, sizeof r->tag, "line %llu, %.*s", (unsigned long long)r->st->lines,
	         (int)(rl > 24 ? 24 : rl), rec);
	if (rl == 4 && !memcmp(rec, "node", 4)) {
		hf_node n;
		memset(&n, 0, sizeof n);
		int sub;
		hf_value *vals;
		if ((s = get_u64(r, "identifier", 1, &n.id)) || (s = get_subtype(r, &sub)))
			return s;
		if (!(n.type = find_type_id(r, HF_TYPE_NODE, sub)))
			return fail(r, HF_ERR_FORMAT, "node subtype %d was not declared", sub);
		if ((s = get_u32(r, "dump", 1, &n.dump)) || (s = get_u64(r, "class", 1, &n.class_id)) ||
		    (s = get_u64(r, "size", 1, &n.size)) || (s = get_u32(r, "heap", 1, &n.heap)) ||
		    (s = get_values(r, n.type, &vals)) || (s = check_unused(r)))
			return s;
		n.values = vals;
		r->st->nodes++;
		return hf_sink_node(r->sink, &n, r->err);
	}
	if (rl == 4 && !memcmp(rec, "edge", 4)) {
		hf_edge e;
		memset(&e, 0, sizeof e);
		int sub;
		if ((s = get_subtype(r, &sub)))
			return s;
		if (!(e.type = find_type_id(r, HF_TYPE_EDGE, sub)))
			return fail(r, HF_ERR_FORMAT, "edge subtype %d was not declared", sub);
		if ((s = get_u64(r, "source", 1, &e.source)) || (s = get_u64(r, "dest", 1, &e.dest)) ||
		    (s = get_u64(r, "label", 1, &e.label)) || (s = get_u32(r, "dump", 1, &e.dump)) ||
		    (s = check_unused(r)))
			return s;
		r->st->edges++;
		return hf_sink_edge(r->sink, &e, r->err);
	}
	if (rl == 6 && !memcmp(rec, "string", 6)) {
		uint64_t id;
		const char *data;
		size_t n;
		if ((s = get_u64(r, "id", 1, &id)) || (s = get_str(r, "data", 1, &data, &n)) ||
		    (s = check_unused(r)))
			return s;
		r->st->strings++;
		return hf_sink_string(r->sink, id, data, n, r->err);
	}
	if (rl == 8 && !memcmp(rec, "metadata", 8)) {
		const char *k, *v;
		if ((s = get_cstr(r, "key", 1, &k)) || (s = get_cstr(r, "value", 1, &v)) ||
		    (s = check_unused(r)))
			return s;
		r->st->metadata++;
		/* A later major version may change what any record means
		 * (extensible heap-dump format: "1" for this one). */
		if (!strcmp(k, "version_major") && strcmp(v, HEAPFMT_FORMAT_MAJOR))
			return fail(r, HF_ERR_FORMAT, HF_MAJOR_REFUSED, v);
		if (!strcmp(k, "heapfmt.schema")) {
			if (r->stream_open && !r->st->cut_line)
				r->st->cut_line = r->st->lines;
			r->stream_open = 1;
			if (r->schema_seen && !r->schema_again)
				r->schema_again = r->st->lines;
			r->schema_seen = 1;
		} else if (!strcmp(k, "heapfmt.complete")) {
			r->stream_open = 0;
			if (!r->complete_line)
				r->complete_line = r->st->lines;
		}
		return hf_sink_metadata(r->sink, k, v, r->err);
	}
	if (rl == 9 && !memcmp(rec, "node_type", 9))
		return declare(r, HF_TYPE_NODE);
	if (rl == 9 && !memcmp(rec, "edge_type", 9))
		return declare(r, HF_TYPE_EDGE);
	if (rl == 11 && !memcmp(rec, "record_type", 11))
		return declare(r, HF_TYPE_RECORD);
	const hf_type *t = find_type_name(r, HF_TYPE_RECORD, rec, rl);
	if (!t)
		return fail(r, HF_ERR_FORMAT, "record type \"%.*s\" was not declared",
		            (int)(rl > 60 ? 60 : rl), rec);
	hf_record rc;
	hf_value *vals;
	if ((s = get_values(r, t, &vals)) || (s = check_unused(r)))
		return s;
	rc.type = t;
	rc.values = vals;
	r->st->records++;
	return hf_sink_record(r->sink, &rc, r->err);
}

void hf_ndjson_read_options_init(hf_ndjson_read_options *opt)
{
	memset(opt, 0, sizeof *opt);
}

hf_status hf_ndjson_read(hf_input *in, hf_sink *sink, const hf_ndjson_read_options *opt,
                         hf_read_stats *stats, hf_error *err)
{
	hf_read_stats dummy;
	reader r;
	memset(&r, 0, sizeof r);
	if (!stats)
		stats = &dummy;
	memset(stats, 0, sizeof *stats);
	if (opt)
		r.opt = *opt;
	if (!r.opt.max_line)
		r.opt.max_line = (size_t)1 << 30;
	r.in = in;
	r.sink = sink;
	r.err = err;
	r.st = stats;
	hf_buf_init(&r.longline);
	hf_buf_init(&r.small);
	r.hash_seed = hf_random_u64();
	hf_buf_init(&r.keytext[0]);
	hf_buf_init(&r.keytext[1]);
	for (size_t i = 0; fixed_keys[i]; i++)
		if (!know_key(&r, fixed_keys[i]))
			return nomem(&r);
	hf_status s = hf_kind_refuse(in, HF_KIND_BIT(HF_KIND_HPROF) | HF_KIND_BIT(HF_KIND_SQLITE) | HF_KIND_BIT(HF_KIND_V8) |
	                             HF_KIND_BIT(HF_KIND_DDM) | HF_KIND_BIT(HF_KIND_ZIP), "NDJSON of the heap-dump format", err);
	for (; !s;) {
		const char *line = NULL;
		size_t len = 0;
		snprintf(r.tag, sizeof r.tag, "line %llu", (unsigned long long)stats->lines + 1);
		if ((s = next_line(&r, &line, &len)) || !line)
			break;
		stats->lines++;
		const char *e = line + len;
		if (skip_ws(line, e) != e) {
			/* heapfmt.complete is a stream's last line (schema/README.md):
			 * a record after it is told (stats->after_complete). */
			if (r.complete_line && !stats->after_complete)
				stats->after_complete = stats->lines;
			s = do_line(&r, line, len);
			json_decref(r.root);
			r.root = NULL;
			for (size_t i = 0; i < r.nkeys; i++)
				free(r.keys[i]);
			r.nkeys = 0;
			if (s)
				break;
		}
		if (r.opt.progress && (stats->lines & 0xffff) == 0)
			r.opt.progress(r.opt.progress_ctx, hf_input_raw_offset(in), hf_input_raw_size(in));
	}
	if (!s)
		hf_input_consume(in, r.consume);
	stats->unfinished = !s && r.stream_open;
	stats->complete_line = r.complete_line;
	for (size_t i = 0; i < r.ntypes; i++)
		hf_tr_type_free(r.types[i]);
	free(r.types);
	hf_map_free(&r.type_by_id);
	hf_map_free(&r.type_by_name);
	hf_map_free(&r.name_by_key);
	hf_map_free(&r.known);
	free(r.unk);
	hf_buf_free(&r.keytext[0]);
	hf_buf_free(&r.keytext[1]);
	free(r.kvs);
	free(r.byname);
	free(r.keys);
	free(r.vals);
	for (size_t i = 0; i < r.nnames; i++)
		free(r.names[i].name);
	free(r.names);
	hf_buf_free(&r.longline);
	hf_buf_free(&r.small);
	return s;
}
