/*
 * libFuzzer harness: the NDJSON reader (ndjson_reader.c) on arbitrary bytes,
 * twice: through jansson alone, and with every array or object of 1 to 8
 * bytes or more checked by hf_json_check and left out of jansson's parse
 * (the path of large values, hf_ndjson_test_big_value), where the pairs no
 * record reads are left out too; --ignore-unknown-keys when the input's
 * size has bit 4 set.  Aborts when
 *  - the two verdicts differ, or the records they pass, or the keys they
 *    ignore, differ in number;
 *  - a json value passed on is not JSON to jansson;
 *  - a failure carries no message or an input error no offset.
 */
#include "../libheapfmt/src/internal.h"
#include "fuzz_sink.h"
#include "heapfmt/translate.h"
#include <jansson.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void need(int cond)
{
	if (!cond)
		abort();
}

static void check_json(const char *s, size_t n)
{
	need(s != NULL && !memchr(s, 0, n));
	json_error_t je;
	json_t *j = json_loadb(s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
	if (!j && json_error_code(&je) == json_error_numeric_overflow)
		j = json_loadb(s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &je);
	need(j != NULL);
	json_decref(j);
}

static void check_values(const hf_type *t, const hf_value *v)
{
	for (size_t i = 0; i < t->nfields; i++) {
		if (!v[i].present)
			continue;
		if (t->fields[i].kind == HF_FIELD_JSON)
			check_json(v[i].s, v[i].n);
		else if (t->fields[i].kind == HF_FIELD_TEXT)
			fuzz_touch(v[i].s, v[i].n);
	}
}

static hf_status s_meta(hf_sink *s, const char *k, const char *v, hf_error *e)
{
	(void)s, (void)e;
	need(k && v);
	return HF_OK;
}
static hf_status s_declare(hf_sink *s, const hf_type *t, hf_error *e)
{
	(void)s, (void)e;
	need(t && t->name);
	return HF_OK;
}
static hf_status s_string(hf_sink *s, uint64_t id, const char *p, size_t n, hf_error *e)
{
	(void)s, (void)e, (void)id;
	fuzz_touch(p, n);
	return HF_OK;
}
static hf_status s_node(hf_sink *s, const hf_node *n, hf_error *e)
{
	(void)s, (void)e;
	check_values(n->type, n->values);
	return HF_OK;
}
static hf_status s_edge(hf_sink *s, const hf_edge *ed, hf_error *e)
{
	(void)s, (void)e, (void)ed;
	return HF_OK;
}
static hf_status s_record(hf_sink *s, const hf_record *r, hf_error *e)
{
	(void)s, (void)e;
	check_values(r->type, r->values);
	return HF_OK;
}
static hf_status s_finish(hf_sink *s, hf_error *e)
{
	(void)s, (void)e;
	return HF_OK;
}
static void s_destroy(hf_sink *s, int ok)
{
	(void)s, (void)ok;
}
static const hf_sink_ops ops = { s_meta, s_declare, s_string, s_node, s_edge, s_record, s_finish, s_destroy };

static hf_status run(const uint8_t *data, size_t size, size_t big, hf_read_stats *st, hf_error *err)
{
	hf_ndjson_read_options opt;
	hf_ndjson_read_options_init(&opt);
	opt.ignore_unknown_keys = (size & 16) != 0;
	hf_ndjson_test_big_value = big;
	hf_sink sink;
	memset(&sink, 0, sizeof sink);
	sink.ops = &ops;
	hf_input *in = NULL;
	memset(st, 0, sizeof *st); /* (an input the input layer refuses: zstd, bzip2, xz) */
	hf_status s = hf_input_open_memory(&in, data, size, err);
	if (!s)
		s = hf_ndjson_read(in, &sink, &opt, st, err);
	hf_input_close(in);
	hf_ndjson_test_big_value = 0;
	if (s) {
		need(err->message[0] != 0);
		need(!(s == HF_ERR_FORMAT || s == HF_ERR_TRUNCATED) || err->has_offset);
	}
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hf_read_stats a, b;
	hf_error ea, eb;
	hf_status sa = run(data, size, 0, &a, &ea);
	hf_status sb = run(data, size, 1 + size % 8, &b, &eb);
	need(sa == sb);
	need(a.lines == b.lines && a.nodes == b.nodes && a.edges == b.edges && a.strings == b.strings &&
	     a.records == b.records && a.types == b.types && a.metadata == b.metadata &&
	     (sa || a.unknown_keys == b.unknown_keys));
	return 0;
}
