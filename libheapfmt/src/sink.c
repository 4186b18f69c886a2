/* Sink entry points: count what goes through and dispatch to the writer. */
#include "internal.h"

hf_status hf_sink_metadata(hf_sink *s, const char *key, const char *value, hf_error *err)
{
	s->n_metadata++;
	if (!value)
		value = "";
	/* Text from outside (a file name: a path is bytes) may not be UTF-8:
	 * the lenient decoder gives well-formed UTF-8, each bad byte U+FFFD,
	 * and valid UTF-8 unchanged. */
	size_t len = strlen(value);
	char *clean = malloc(HF_MUTF8_OUT_MAX(len) + 1);
	if (!clean)
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	clean[hf_mutf8_decode((const uint8_t *)value, len, clean)] = 0;
	hf_status st = s->ops->metadata(s, key, clean, err);
	free(clean);
	return st;
}

hf_status hf_sink_declare(hf_sink *s, const hf_type *type, hf_error *err)
{
	s->n_types++;
	return s->ops->declare(s, type, err);
}

hf_status hf_sink_string(hf_sink *s, uint64_t id, const char *utf8, size_t len, hf_error *err)
{
	s->n_strings++;
	return s->ops->string(s, id, utf8, len, err);
}

bool hf_sink_takes_encoded(const hf_sink *s) { return hf_ndjson_sink_is(s); }

hf_status hf_sink_string_encoded(hf_sink *s, uint64_t id, hf_text_encoding enc, const uint8_t *data,
                                 size_t nunits, hf_error *err)
{
	if (nunits > (SIZE_MAX - 4) / 3) /* HF_TEXT_OUT_MAX */
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	if (hf_ndjson_sink_is(s)) {
		s->n_strings++;
		return hf_ndjson_string_encoded(s, id, enc, data, nunits, err);
	}
	char *utf8 = malloc(HF_TEXT_OUT_MAX(nunits));
	if (!utf8)
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	hf_status st = hf_sink_string(s, id, utf8, hf_text_decode(enc, data, nunits, utf8), err);
	free(utf8);
	return st;
}

hf_status hf_sink_node(hf_sink *s, const hf_node *node, hf_error *err)
{
	s->n_nodes++;
	return s->ops->node(s, node, err);
}

hf_status hf_sink_edge(hf_sink *s, const hf_edge *edge, hf_error *err)
{
	s->n_edges++;
	return s->ops->edge(s, edge, err);
}

hf_status hf_sink_edges(hf_sink *s, const hf_type *type, uint64_t source, uint32_t dump, size_t n,
                        const hf_edge_to *to, hf_error *err)
{
	if (hf_ndjson_sink_is(s)) {
		s->n_edges += n;
		return hf_ndjson_edges(s, type, source, dump, n, to, err);
	}
	for (size_t i = 0; i < n; i++) {
		hf_edge e = { type, source, to[i].dest, to[i].label, dump };
		hf_status st = hf_sink_edge(s, &e, err);
		if (st)
			return st;
	}
	return HF_OK;
}

hf_status hf_sink_record(hf_sink *s, const hf_record *rec, hf_error *err)
{
	s->n_records++;
	return s->ops->record(s, rec, err);
}

hf_status hf_sink_finish(hf_sink *s, hf_error *err) { return s->ops->finish(s, err); }

void hf_sink_destroy(hf_sink *s, int success)
{
	if (s)
		s->ops->destroy(s, success);
}

static const char *const kind_names[] = { "int", "id", "string_ref", "text", "real", "json" };

const char *hf_field_kind_name(hf_field_kind kind)
{
	return (unsigned)kind < sizeof kind_names / sizeof *kind_names ? kind_names[kind] : "?";
}

int hf_field_kind_parse(const char *name, hf_field_kind *kind)
{
	for (size_t i = 0; i < sizeof kind_names / sizeof *kind_names; i++)
		if (!strcmp(name, kind_names[i])) {
			*kind = (hf_field_kind)i;
			return 1;
		}
	return 0;
}
