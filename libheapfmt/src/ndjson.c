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
#include <unistd.h>

typedef struct ndjson {
	hf_sink sink;
	FILE *fp;
	int owns_fp;
	char *path, *tmp;    /* atomic output: tmp renamed to path on finish */
	hf_buf line;
} ndjson;

#define FLUSH_AT ((size_t)1 << 20)

static hf_status flush_buf(ndjson *w, hf_error *err)
{
	if (w->line.len && fwrite(w->line.data, 1, w->line.len, w->fp) != w->line.len)
		return hf_error_set(err, HF_ERR_IO, "cannot write %s: %s",
		                    w->path ? w->path : "output", strerror(errno));
	w->line.len = 0;
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
		case HF_FIELD_INT: ok = hf_buf_i64(&w->line, v[i].i); break;
		case HF_FIELD_ID:
		case HF_FIELD_STRREF: ok = hf_buf_u64(&w->line, v[i].u); break;
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
	B(LIT("{\"record\":\"node\",\"identifier\":"));
	B(hf_buf_u64(&w->line, n->id));
	B(LIT(",\"subtype\":"));
	B(hf_buf_i64(&w->line, n->type->id));
	B(LIT(",\"dump\":"));
	B(hf_buf_u64(&w->line, n->dump));
	B(LIT(",\"class\":"));
	B(hf_buf_u64(&w->line, n->class_id));
	B(LIT(",\"size\":"));
	B(hf_buf_u64(&w->line, n->size));
	B(LIT(",\"heap\":"));
	B(hf_buf_u64(&w->line, n->heap));
	B(put_values(w, n->type->fields, n->type->nfields, n->values));
	return end_line(w, err);
}

static hf_status nd_edge(hf_sink *s, const hf_edge *e, hf_error *err)
{
	ndjson *w = s->impl;
	B(LIT("{\"record\":\"edge\",\"subtype\":"));
	B(hf_buf_i64(&w->line, e->type->id));
	B(LIT(",\"source\":"));
	B(hf_buf_u64(&w->line, e->source));
	B(LIT(",\"dest\":"));
	B(hf_buf_u64(&w->line, e->dest));
	B(LIT(",\"label\":"));
	B(hf_buf_u64(&w->line, e->label));
	B(LIT(",\"dump\":"));
	B(hf_buf_u64(&w->line, e->dump));
	return end_line(w, err);
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
	if (fflush(w->fp) != 0 || ferror(w->fp))
		return hf_error_set(err, HF_ERR_IO, "cannot write %s: %s",
		                    w->path ? w->path : "output", strerror(errno));
	if (w->owns_fp) {
		if (fsync(fileno(w->fp)) != 0 && errno != EINVAL)
			return hf_error_set(err, HF_ERR_IO, "cannot write %s: %s", w->path, strerror(errno));
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
