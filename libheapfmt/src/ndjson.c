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
 * Output is formatted into one buffer while a second thread writes the
 * previous one (double buffering): copying into the page cache or a pipe
 * then overlaps with parsing and formatting, which matters on large dumps
 * (about a third of the time went to write(2) before).
 */
typedef struct ndjson {
	hf_sink sink;
	FILE *fp;
	int fd;
	int owns_fp;
	char *path, *tmp;    /* atomic output: tmp renamed to path on finish */
	hf_buf line;         /* being filled */
	hf_buf spare;        /* being written (or empty) */
	hf_worker worker;
	int write_errno;     /* the first write error (the worker's, read after a wait) */
} ndjson;

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t r = write(fd, p, n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* The worker's job: write the spare buffer. */
static void write_spare(void *arg)
{
	ndjson *w = arg;
	int e = w->write_errno ? 0 : write_all(w->fd, w->spare.data, w->spare.len);
	if (e)
		w->write_errno = e;
	w->spare.len = 0;
}

/* Waits until the writer thread is idle; returns its first error. */
static int wait_idle(ndjson *w)
{
	hf_worker_wait(&w->worker);
	return w->write_errno;
}

#define FLUSH_AT ((size_t)256 << 10)

/* Hot path: nodes and edges are written straight into the line buffer after
 * one reservation (a node or edge line is at most ~200 bytes). */
static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline char *put_u64(char *p, uint64_t v)
{
	char tmp[20];
	int i = 20;
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;
		v /= 100;
		tmp[--i] = digit_pairs[d + 1];
		tmp[--i] = digit_pairs[d];
	}
	if (v >= 10) {
		unsigned d = (unsigned)v * 2;
		tmp[--i] = digit_pairs[d + 1];
		tmp[--i] = digit_pairs[d];
	} else {
		tmp[--i] = (char)('0' + v);
	}
	memcpy(p, tmp + i, (size_t)(20 - i));
	return p + (20 - i);
}

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

/* Hands the filled buffer to the writer thread and takes the empty one. */
static hf_status flush_buf(ndjson *w, hf_error *err)
{
	if (!w->line.len)
		return HF_OK;
	if (!hf_worker_start(&w->worker, write_spare, w)) {
		/* No thread: write synchronously. */
		int e = write_all(w->fd, w->line.data, w->line.len);
		w->line.len = 0;
		return e ? write_error(w, e, err) : HF_OK;
	}
	int e = wait_idle(w);
	if (e)
		return write_error(w, e, err);
	hf_buf t = w->spare;
	w->spare = w->line;
	w->line = t;
	w->line.len = 0;
	hf_worker_post(&w->worker);
	if (!hf_buf_reserve(&w->line, FLUSH_AT + 65536))
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	return HF_OK;
}


static hf_status end_line(ndjson *w, hf_error *err)
{
	if (!hf_buf_append(&w->line, "}\n", 2))
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	if (w->line.len >= FLUSH_AT)
		return flush_buf(w, err);
	return HF_OK;
}

#define B(x) do { if (!(x)) return hf_error_set(err, HF_ERR_NOMEM, "out of memory"); } while (0)
#define LIT(s) hf_buf_append(&w->line, s, sizeof(s) - 1)

static bool put_key(ndjson *w, const char *key)
{
	return hf_buf_append(&w->line, ",", 1) &&
	       hf_buf_json_string(&w->line, key, strlen(key)) &&
	       hf_buf_append(&w->line, ":", 1);
}

static bool put_real(hf_buf *b, double d)
{
	if (!isfinite(d))
		return hf_buf_append(b, "null", 4);
	char tmp[40];
	int n = snprintf(tmp, sizeof tmp, "%.17g", d);
	/* Keep it a JSON number that reads back as a real. */
	bool plain = !strpbrk(tmp, ".eEn");
	return hf_buf_append(b, tmp, (size_t)n) && (!plain || hf_buf_append(b, ".0", 2));
}

static bool put_values(ndjson *w, const hf_field *fields, size_t n, const hf_value *v)
{
	for (size_t i = 0; i < n; i++) {
		if (!v[i].present)
			continue;
		if (!put_key(w, fields[i].name))
			return false;
		bool ok = true;
		switch (fields[i].kind) {
		case HF_FIELD_INT:
			if ((ok = hf_buf_reserve(&w->line, 24)))
				w->line.len = (size_t)(put_i64((char *)w->line.data + w->line.len, v[i].i) -
				                       (char *)w->line.data);
			break;
		case HF_FIELD_ID:
		case HF_FIELD_STRREF:
			if ((ok = hf_buf_reserve(&w->line, 24)))
				w->line.len = (size_t)(put_u64((char *)w->line.data + w->line.len, v[i].u) -
				                       (char *)w->line.data);
			break;
		case HF_FIELD_TEXT: ok = hf_buf_json_string(&w->line, v[i].s ? v[i].s : "", v[i].s ? v[i].n : 0); break;
		case HF_FIELD_REAL: ok = put_real(&w->line, v[i].d); break;
		case HF_FIELD_JSON:
			ok = v[i].s ? hf_buf_append(&w->line, v[i].s, v[i].n) : LIT("null");
			break;
		}
		if (!ok)
			return false;
	}
	return true;
}

static hf_status nd_metadata(hf_sink *s, const char *key, const char *value, hf_error *err)
{
	ndjson *w = s->impl;
	B(LIT("{\"record\":\"metadata\",\"key\":"));
	B(hf_buf_json_string(&w->line, key, strlen(key)));
	B(LIT(",\"value\":"));
	B(hf_buf_json_string(&w->line, value, strlen(value)));
	return end_line(w, err);
}

static hf_status nd_declare(hf_sink *s, const hf_type *t, hf_error *err)
{
	ndjson *w = s->impl;
	static const char *const cls[] = { "node_type", "edge_type", "record_type" };
	B(LIT("{\"record\":"));
	B(hf_buf_json_string(&w->line, cls[t->cls], strlen(cls[t->cls])));
	if (t->cls != HF_TYPE_RECORD) {
		B(LIT(",\"subtype\":"));
		B(hf_buf_i64(&w->line, t->id));
	}
	B(LIT(",\"name\":"));
	B(hf_buf_json_string(&w->line, t->name, strlen(t->name)));
	if (t->table) {
		B(LIT(",\"table\":"));
		B(hf_buf_json_string(&w->line, t->table, strlen(t->table)));
	}
	if (t->cls == HF_TYPE_EDGE) {
		const char *label = t->label ? t->label : "none";
		B(LIT(",\"label\":"));
		B(hf_buf_json_string(&w->line, label, strlen(label)));
	}
	if (t->cls != HF_TYPE_EDGE) {
		B(LIT(",\"fields\":["));
		for (size_t i = 0; i < t->nfields; i++) {
			const hf_field *f = &t->fields[i];
			const char *k = hf_field_kind_name(f->kind);
			B(LIT("{\"name\":"));
			B(hf_buf_json_string(&w->line, f->name, strlen(f->name)));
			B(LIT(",\"type\":"));
			B(hf_buf_json_string(&w->line, k, strlen(k)));
			if (f->doc) {
				B(LIT(",\"doc\":"));
				B(hf_buf_json_string(&w->line, f->doc, strlen(f->doc)));
			}
			B(LIT("}"));
			if (i + 1 < t->nfields)
				B(LIT(","));
		}
		B(LIT("]"));
	}
	if (t->doc) {
		B(LIT(",\"doc\":"));
		B(hf_buf_json_string(&w->line, t->doc, strlen(t->doc)));
	}
	return end_line(w, err);
}

static hf_status nd_string(hf_sink *s, uint64_t id, const char *utf8, size_t len, hf_error *err)
{
	ndjson *w = s->impl;
	B(LIT("{\"record\":\"string\",\"id\":"));
	B(hf_buf_u64(&w->line, id));
	B(LIT(",\"data\":"));
	B(hf_buf_json_string(&w->line, utf8, len));
	return end_line(w, err);
}

static hf_status nd_node(hf_sink *s, const hf_node *n, hf_error *err)
{
	ndjson *w = s->impl;
	B(hf_buf_reserve(&w->line, 256));
	char *p = (char *)w->line.data + w->line.len;
	p = PUT(p, "{\"record\":\"node\",\"identifier\":");
	p = put_u64(p, n->id);
	p = PUT(p, ",\"subtype\":");
	p = put_i64(p, n->type->id);
	p = PUT(p, ",\"dump\":");
	p = put_u64(p, n->dump);
	p = PUT(p, ",\"class\":");
	p = put_u64(p, n->class_id);
	p = PUT(p, ",\"size\":");
	p = put_u64(p, n->size);
	p = PUT(p, ",\"heap\":");
	p = put_u64(p, n->heap);
	w->line.len = (size_t)(p - (char *)w->line.data);
	B(put_values(w, n->type->fields, n->type->nfields, n->values));
	return end_line(w, err);
}

static hf_status nd_edge(hf_sink *s, const hf_edge *e, hf_error *err)
{
	ndjson *w = s->impl;
	B(hf_buf_reserve(&w->line, 256));
	char *p = (char *)w->line.data + w->line.len;
	p = PUT(p, "{\"record\":\"edge\",\"subtype\":");
	p = put_i64(p, e->type->id);
	p = PUT(p, ",\"source\":");
	p = put_u64(p, e->source);
	p = PUT(p, ",\"dest\":");
	p = put_u64(p, e->dest);
	p = PUT(p, ",\"label\":");
	p = put_u64(p, e->label);
	p = PUT(p, ",\"dump\":");
	p = put_u64(p, e->dump);
	p = PUT(p, "}\n");
	w->line.len = (size_t)(p - (char *)w->line.data);
	if (w->line.len >= FLUSH_AT)
		return flush_buf(w, err);
	return HF_OK;
}

static hf_status nd_record(hf_sink *s, const hf_record *r, hf_error *err)
{
	ndjson *w = s->impl;
	B(LIT("{\"record\":"));
	B(hf_buf_json_string(&w->line, r->type->name, strlen(r->type->name)));
	B(put_values(w, r->type->fields, r->type->nfields, r->values));
	return end_line(w, err);
}

static hf_status nd_finish(hf_sink *s, hf_error *err)
{
	ndjson *w = s->impl;
	hf_status st = flush_buf(w, err);
	if (st != HF_OK)
		return st;
	int e = wait_idle(w);
	hf_worker_stop(&w->worker);
	if (e)
		return write_error(w, e, err);
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
		free(w->tmp);
		w->tmp = NULL;
	}
	return HF_OK;
}

static void nd_destroy(hf_sink *s, int success)
{
	ndjson *w = s->impl;
	(void)success;
	hf_worker_stop(&w->worker);
	hf_buf_free(&w->spare);
	if (w->owns_fp && w->fp)
		fclose(w->fp);
	if (w->tmp)
		unlink(w->tmp);
	free(w->tmp);
	free(w->path);
	hf_buf_free(&w->line);
	free(w);
}

static const hf_sink_ops ndjson_ops = {
	nd_metadata, nd_declare, nd_string, nd_node, nd_edge, nd_record, nd_finish, nd_destroy
};

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
	if (!hf_buf_reserve(&w->line, FLUSH_AT + 65536)) {
		free(w);
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	}
	*out = &w->sink;
	return HF_OK;
}

/* Creates "<dir>/.<base>.tmp-XXXXXX" beside path; shared with heapdb.c. */
int hf_make_temp_beside(const char *path, char **tmp_out);

hf_status hf_ndjson_sink_open(hf_sink **out, const char *path, hf_error *err)
{
	/* A device, FIFO or socket (/dev/null, /dev/stdout, a named pipe) is
	 * written in place: renaming a file over it would replace it. */
	struct stat sb;
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		if (S_ISDIR(sb.st_mode))
			return hf_error_set(err, HF_ERR_IO, "cannot write %s: it is a directory", path);
		FILE *fp = fopen(path, "wb");
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
	int fd = hf_make_temp_beside(path, &tmp);
	if (fd < 0)
		return hf_error_set(err, HF_ERR_IO, "cannot create a file beside %s: %s", path,
		                    strerror(errno));
	FILE *fp = fdopen(fd, "wb");
	if (!fp) {
		close(fd);
		unlink(tmp);
		free(tmp);
		return hf_error_set(err, HF_ERR_IO, "cannot open %s: %s", path, strerror(errno));
	}
	hf_status st = hf_ndjson_sink_new(out, fp, err);
	if (st != HF_OK) {
		fclose(fp);
		unlink(tmp);
		free(tmp);
		return st;
	}
	ndjson *w = (*out)->impl;
	w->owns_fp = 1;
	w->tmp = tmp;
	w->path = strdup(path);
	if (!w->path) {
		hf_sink_destroy(*out, 0);
		*out = NULL;
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	}
	return HF_OK;
}
