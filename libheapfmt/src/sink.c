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
