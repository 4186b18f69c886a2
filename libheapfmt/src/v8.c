/*
 * V8 heap snapshots (.heapsnapshot) into the extensible heap-dump format.
 *
 * A snapshot is one JSON object: {"snapshot":{"meta":{...},"node_count",...},
 * "nodes":[flat integers], "edges":[flat integers], "trace_function_infos",
 * "trace_tree", "samples", "locations", "strings":[...]}.  It is read in one
 * pass through the streaming tokenizer of v8_model.c; nothing but the header
 * object is ever held as a tree.
 *
 * The mapping (schema/README.md, "V8 heap snapshots"):
 *  - node subtype 32+i for meta.node_types[type][i], named "v8_" + the type
 *    name as an identifier ("concatenated string" -> v8_concatenated_string);
 *    edge subtype 32+i for meta.edge_types[type][i], label "index" for
 *    element and hidden edges, "string" for the others;
 *  - node identifier = the snapshot's node id, size = self_size, class = 0;
 *    every other node field of meta.node_fields but type and edge_count is a
 *    field of the subtype ("name" a string_ref, the others int);
 *  - string record id = index in "strings" + 1 (0 means "no string" in the
 *    format, and V8's index 0 is a real string);
 *  - trace_function_infos, trace_tree, samples and locations become the
 *    records v8.trace_function_info, v8.trace_node, v8.sample, v8.location.
 *
 * "strings" comes last, after the nodes and edges that name them: names are
 * written as string ids at once and checked against the number of strings
 * at the end.  Edges name their target by its index in "nodes" and their
 * source by position (the edges of node 0, then of node 1, per edge_count),
 * so the reader keeps a table node index -> (id, edge count): 8 bytes a node,
 * 12 once an id needs more than 32 bits.
 */
#include "v8_model.h"
#include "heapfmt/v8.h"
#include <inttypes.h>
#include <stdio.h>

#define HEADER_BUDGET ((size_t)1 << 20)
#define MAX_REC_FIELDS 32

void hf_v8_options_init(hf_v8_options *opt)
{
	memset(opt, 0, sizeof *opt);
}

/* A record type built from a meta field list (owned). */
typedef struct rtype {
	hf_type t;
	hf_field f[MAX_REC_FIELDS + 1];
	char names[MAX_REC_FIELDS + 1][48];
	int nsrc;                 /* fields in the snapshot's list */
	int map[MAX_REC_FIELDS];  /* snapshot field -> model field (-1: not kept) */
	int strref[MAX_REC_FIELDS];
	int objidx[MAX_REC_FIELDS];
	int declared;
} rtype;

typedef struct v8r {
	hf_jlex lx;
	hf_sink *sink;
	hf_error *err;
	hf_v8_stats *st;
	const hf_v8_options *opt;
	const char *target;
	hf_jval header;
	/* node fields */
	size_t nf;
	int f_type, f_name, f_id, f_size, f_ecount;
	int node_field_slot[64];     /* snapshot node field -> subtype field index (-1 none) */
	hf_type *ntypes;
	hf_field *nfields;
	size_t n_ntypes, n_nfields;
	char (*ntype_names)[72];
	char (*nfield_names)[48];
	/* edge fields */
	size_t ef;
	int e_type, e_name, e_to;
	hf_type *etypes;
	char (*etype_names)[72];
	size_t n_etypes;
	int *etype_is_index;
	/* records */
	rtype tfi, tnode, sample, loc;
	int tnode_children;          /* index of "children" in trace_node_fields */
	int tnode_id;                /* index of "id" there (-1: none) */
	/* the node table */
	uint32_t *ids32;
	uint64_t *ids64;
	uint32_t *ecount;
	size_t nnodes, capnodes;
	uint64_t edge_sum;
	int nodes_done, edges_done;
	uint64_t nstrings;
	int strings_done;
	uint64_t max_str;            /* largest string index named + 1 (0 none) */
	uint64_t max_str_off;
	const char *max_str_ctx;
	hf_value vals[64];
	hf_buf tmp;
} v8r;

static hf_status nomem(v8r *r) { return hf_error_set(r->err, HF_ERR_NOMEM, "out of memory"); }

static hf_status meta(v8r *r, const char *key, const char *value)
{
	return hf_sink_metadata(r->sink, key, value, r->err);
}

static hf_status meta_u(v8r *r, const char *key, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%" PRIu64, v);
	return meta(r, key, buf);
}

static hf_status bad_header(v8r *r, const char *fmt, const char *what)
{
	return hf_error_at(r->err, HF_ERR_FORMAT, r->lx.tok_off, "snapshot", fmt, what);
}

/* A string array of the meta object, or NULL. */
static const hf_jval *str_array(const hf_jval *v)
{
	if (!v || v->type != HF_JV_ARRAY)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (v->items[i].type != HF_JV_STRING)
			return NULL;
	return v;
}

static int find_field(const hf_jval *list, const char *name)
{
	for (size_t i = 0; i < list->n; i++)
		if (!strcmp(list->items[i].s, name))
			return (int)i;
	return -1;
}

/* Builds a record type from a meta field list; fields in `strrefs` are
 * string indexes, "object_index" becomes "object" (a node id). */
static hf_status build_rtype(v8r *r, rtype *rt, const hf_jval *list, const char *name,
                             const char *table, const char *doc, const char *const *strrefs,
                             const char *skip, const char *extra)
{
	memset(rt, 0, sizeof *rt);
	if (!list)
		return HF_OK;
	if (list->n > MAX_REC_FIELDS)
		return bad_header(r, "meta of %s: too many fields", name);
	rt->nsrc = (int)list->n;
	int nf = 0;
	for (size_t i = 0; i < list->n; i++) {
		const char *fn = list->items[i].s;
		rt->map[i] = -1;
		if (skip && !strcmp(fn, skip))
			continue;
		int is_obj = !strcmp(fn, "object_index");
		rt->objidx[i] = is_obj;
		int is_str = 0;
		for (const char *const *s = strrefs; s && *s; s++)
			if (!strcmp(fn, *s))
				is_str = 1;
		rt->strref[i] = is_str;
		hf_v8_type_ident(is_obj ? "object" : fn, rt->names[nf], sizeof rt->names[nf]);
		for (int j = 0; j < nf; j++)
			if (!strcmp(rt->names[j], rt->names[nf]))
				return bad_header(r, "meta of %s: two fields with the same name", name);
		rt->f[nf].name = rt->names[nf];
		rt->f[nf].kind = is_obj ? HF_FIELD_ID : is_str ? HF_FIELD_STRREF : HF_FIELD_INT;
		rt->f[nf].doc = is_obj ? "the node at object_index: its id" : "as in the snapshot";
		rt->map[i] = nf++;
	}
	if (extra) {
		snprintf(rt->names[nf], sizeof rt->names[nf], "%s", extra);
		rt->f[nf].name = rt->names[nf];
		rt->f[nf].kind = HF_FIELD_INT;
		rt->f[nf].doc = "id of the parent trace node (0 for a top-level node)";
		nf++;
	}
	rt->t = (hf_type){ HF_TYPE_RECORD, 0, name, table, rt->f, (size_t)nf, NULL, doc };
	rt->declared = 1;
	return HF_OK;
}

/* Reads meta and declares the types. */
static hf_status use_header(v8r *r)
{
	const hf_jval *h = &r->header;
	if (h->type != HF_JV_OBJECT)
		return bad_header(r, "expected %s", "the \"snapshot\" value to be an object");
	const hf_jval *m = hf_jval_get(h, "meta");
	if (!m || m->type != HF_JV_OBJECT)
		return bad_header(r, "expected %s", "\"meta\" (an object) in the \"snapshot\" header");
	const hf_jval *nfl = str_array(hf_jval_get(m, "node_fields"));
	const hf_jval *ntl = hf_jval_get(m, "node_types");
	const hf_jval *efl = str_array(hf_jval_get(m, "edge_fields"));
	const hf_jval *etl = hf_jval_get(m, "edge_types");
	if (!nfl || !efl || !ntl || ntl->type != HF_JV_ARRAY || !etl || etl->type != HF_JV_ARRAY)
		return bad_header(r, "expected %s", "meta.node_fields, node_types, edge_fields and "
		                  "edge_types (arrays)");
	/* The counts, when given, are what the arrays are checked against, and
	 * the metadata that says them is an integer (heapfmt.schema.json). */
	static const char *const counts[] = { "node_count", "edge_count", "trace_function_count" };
	for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
		const hf_jval *c = hf_jval_get(h, counts[i]);
		if (c && (c->type != HF_JV_INT || c->i < 0))
			return bad_header(r, "snapshot.%s is not a count (an integer from 0 to 2^63-1)", counts[i]);
	}
	r->nf = nfl->n;
	r->ef = efl->n;
	if (r->nf > 64)
		return bad_header(r, "meta.node_fields: %s", "more than 64 fields");
	r->f_type = find_field(nfl, "type");
	r->f_name = find_field(nfl, "name");
	r->f_id = find_field(nfl, "id");
	r->f_size = find_field(nfl, "self_size");
	r->f_ecount = find_field(nfl, "edge_count");
	if (r->f_type < 0 || r->f_id < 0 || r->f_size < 0 || r->f_ecount < 0)
		return bad_header(r, "expected %s", "meta.node_fields to name type, id, self_size and edge_count");
	r->e_type = find_field(efl, "type");
	r->e_name = find_field(efl, "name_or_index");
	r->e_to = find_field(efl, "to_node");
	if (r->e_type < 0 || r->e_name < 0 || r->e_to < 0)
		return bad_header(r, "expected %s", "meta.edge_fields to name type, name_or_index and to_node");
	const hf_jval *nt = str_array(ntl->n > (size_t)r->f_type ? &ntl->items[r->f_type] : NULL);
	const hf_jval *et = str_array(etl->n > (size_t)r->e_type ? &etl->items[r->e_type] : NULL);
	if (!nt || !et || !nt->n || !et->n)
		return bad_header(r, "expected %s", "meta.node_types[type] and edge_types[type] to list type names");
	if (nt->n > 4096 || et->n > 4096)
		return bad_header(r, "meta: %s", "more than 4096 node or edge types");

	/* node subtype fields */
	r->nfields = calloc(r->nf + 1, sizeof *r->nfields);
	r->nfield_names = calloc(r->nf + 1, sizeof *r->nfield_names);
	r->n_nfields = 0;
	if (!r->nfields || !r->nfield_names)
		return nomem(r);
	for (size_t i = 0; i < r->nf; i++) {
		r->node_field_slot[i] = -1;
		if ((int)i == r->f_type || (int)i == r->f_id || (int)i == r->f_size || (int)i == r->f_ecount)
			continue;
		char *nm = r->nfield_names[r->n_nfields];
		hf_v8_type_ident(nfl->items[i].s, nm, sizeof r->nfield_names[0]);
		for (size_t j = 0; j < r->n_nfields; j++)
			if (!strcmp(r->nfield_names[j], nm))
				return bad_header(r, "meta.node_fields: %s", "two fields with the same name");
		hf_field *f = &r->nfields[r->n_nfields];
		f->name = nm;
		f->kind = (int)i == r->f_name ? HF_FIELD_STRREF : HF_FIELD_INT;
		f->doc = (int)i == r->f_name ? "the node's name (constructor, function, string text): a string id"
		                             : "as in the snapshot";
		r->node_field_slot[i] = (int)r->n_nfields++;
	}
	r->n_ntypes = nt->n;
	r->ntypes = calloc(nt->n, sizeof *r->ntypes);
	r->ntype_names = calloc(nt->n, sizeof *r->ntype_names);
	r->n_etypes = et->n;
	r->etypes = calloc(et->n, sizeof *r->etypes);
	r->etype_names = calloc(et->n, sizeof *r->etype_names);
	r->etype_is_index = calloc(et->n, sizeof *r->etype_is_index);
	if (!r->ntypes || !r->ntype_names || !r->etypes || !r->etype_names || !r->etype_is_index)
		return nomem(r);
	for (size_t i = 0; i < nt->n; i++) {
		char id[27];
		hf_v8_type_ident(nt->items[i].s, id, sizeof id);
		char *nm = r->ntype_names[i];
		snprintf(nm, 36, "v8_%s", id);
		snprintf(nm + 36, 36, "node_v8_%s", id);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(r->ntype_names[j], nm))
				return bad_header(r, "meta.node_types: %s", "two types with the same name");
		r->ntypes[i] = (hf_type){ HF_TYPE_NODE, HF_V8_NODE_BASE + (int)i, nm, nm + 36, r->nfields,
		                          r->n_nfields, NULL, "a V8 heap node of this type" };
	}
	for (size_t i = 0; i < et->n; i++) {
		char id[48];
		hf_v8_type_ident(et->items[i].s, id, sizeof id);
		char *nm = r->etype_names[i];
		snprintf(nm, 72, "v8_%s", id);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(r->etype_names[j], nm))
				return bad_header(r, "meta.edge_types: %s", "two types with the same name");
		r->etype_is_index[i] = !strcmp(et->items[i].s, "element") || !strcmp(et->items[i].s, "hidden");
		r->etypes[i] = (hf_type){ HF_TYPE_EDGE, HF_V8_EDGE_BASE + (int)i, nm, NULL, NULL, 0,
		                          r->etype_is_index[i] ? "index" : "string",
		                          r->etype_is_index[i] ? "a V8 edge labelled by an index"
		                                               : "a V8 edge labelled by a name (string id)" };
	}
	static const char *const tfi_str[] = { "name", "script_name", NULL };
	hf_status st;
	if ((st = build_rtype(r, &r->tfi, str_array(hf_jval_get(m, "trace_function_info_fields")),
	                      "v8.trace_function_info", "v8_trace_function_info",
	                      "a function of allocation traces (trace_function_infos)", tfi_str, NULL, NULL)))
		return st;
	const hf_jval *tnf = str_array(hf_jval_get(m, "trace_node_fields"));
	r->tnode_children = tnf ? find_field(tnf, "children") : -1;
	r->tnode_id = tnf ? find_field(tnf, "id") : -1;
	if (tnf && r->tnode_children != (int)tnf->n - 1)
		tnf = NULL; /* children must come last; else the tree is skipped */
	if ((st = build_rtype(r, &r->tnode, tnf, "v8.trace_node", "v8_trace_node",
	                      "a node of the allocation trace tree (trace_tree)", NULL, "children",
	                      "parent")))
		return st;
	if ((st = build_rtype(r, &r->sample, str_array(hf_jval_get(m, "sample_fields")), "v8.sample",
	                      "v8_sample", "a heap sample (samples)", NULL, NULL, NULL)))
		return st;
	if ((st = build_rtype(r, &r->loc, str_array(hf_jval_get(m, "location_fields")), "v8.location",
	                      "v8_location", "where a node was allocated (locations)", NULL, NULL, NULL)))
		return st;

	/* leading metadata, then the declarations */
	char now[40], gen[96];
	const char *crtime = r->opt->crtime;
	if (!crtime) {
		hf_crtime_now(now, sizeof now);
		crtime = now;
	}
	snprintf(gen, sizeof gen, "%s (heapfmt %s)", r->opt->generator ? r->opt->generator : "libheapfmt",
	         HEAPFMT_VERSION);
	const char *lead[][2] = {
		{ "version_major", HEAPFMT_FORMAT_MAJOR }, { "generator", gen }, { "crtime", crtime },
		{ "target_source", "v8" }, { "target_file", r->target }, { "heapfmt.schema", HEAPFMT_SCHEMA_VERSION },
	};
	for (size_t i = 0; i < sizeof lead / sizeof *lead; i++)
		if ((st = meta(r, lead[i][0], lead[i][1])))
			return st;
	hf_buf_reset(&r->tmp);
	if (!hf_jval_dump(m, &r->tmp) || !hf_buf_append(&r->tmp, "", 1))
		return nomem(r);
	if ((st = meta(r, "v8.meta", (const char *)r->tmp.data)))
		return st;
	for (size_t i = 0; i < h->n; i++) {
		if (!strcmp(h->keys[i], "meta"))
			continue;
		char key[96];
		snprintf(key, sizeof key, "v8.%s%.60s",
		         strcmp(h->keys[i], "node_count") && strcmp(h->keys[i], "edge_count") &&
		         strcmp(h->keys[i], "trace_function_count") ? "snapshot." : "", h->keys[i]);
		hf_buf_reset(&r->tmp);
		if (!hf_jval_dump(&h->items[i], &r->tmp) || !hf_buf_append(&r->tmp, "", 1))
			return nomem(r);
		if ((st = meta(r, key, (const char *)r->tmp.data)))
			return st;
	}
	for (size_t i = 0; i < r->n_ntypes; i++)
		if ((st = hf_sink_declare(r->sink, &r->ntypes[i], r->err)))
			return st;
	for (size_t i = 0; i < r->n_etypes; i++)
		if ((st = hf_sink_declare(r->sink, &r->etypes[i], r->err)))
			return st;
	rtype *rts[] = { &r->tfi, &r->tnode, &r->sample, &r->loc };
	for (size_t i = 0; i < 4; i++)
		if (rts[i]->declared && (st = hf_sink_declare(r->sink, &rts[i]->t, r->err)))
			return st;
	return HF_OK;
}

static uint64_t header_count(v8r *r, const char *key, int *has)
{
	const hf_jval *v = hf_jval_get(&r->header, key);
	*has = v && v->type == HF_JV_INT && v->i >= 0;
	return *has ? (uint64_t)v->i : 0;
}

static void note_string(v8r *r, uint64_t idx)
{
	if (idx + 1 > r->max_str) {
		r->max_str = idx + 1;
		r->max_str_off = r->lx.tok_off;
		r->max_str_ctx = r->lx.ctx;
	}
}

static inline uint64_t node_id(const v8r *r, size_t i)
{
	return r->ids64 ? r->ids64[i] : r->ids32[i];
}

static hf_status table_reserve(v8r *r, size_t nc)
{
	if (nc > r->capnodes) {
		uint32_t *ne = realloc(r->ecount, nc * sizeof *ne);
		if (!ne)
			return nomem(r);
		r->ecount = ne;
		if (r->ids64) {
			uint64_t *n = realloc(r->ids64, nc * sizeof *n);
			if (!n)
				return nomem(r);
			r->ids64 = n;
		} else {
			uint32_t *n = realloc(r->ids32, nc * sizeof *n);
			if (!n)
				return nomem(r);
			r->ids32 = n;
		}
		r->capnodes = nc;
	}
	return HF_OK;
}

static hf_status table_add(v8r *r, uint64_t id, uint64_t ecount)
{
	hf_status st;
	if (r->nnodes == r->capnodes && (st = table_reserve(r, r->capnodes ? r->capnodes * 2 : 4096)))
		return st;
	if (id > UINT32_MAX && !r->ids64) {
		r->ids64 = malloc(r->capnodes * sizeof *r->ids64);
		if (!r->ids64)
			return nomem(r);
		for (size_t i = 0; i < r->nnodes; i++)
			r->ids64[i] = r->ids32[i];
		free(r->ids32);
		r->ids32 = NULL;
	}
	if (r->ids64)
		r->ids64[r->nnodes] = id;
	else
		r->ids32[r->nnodes] = (uint32_t)id;
	r->ecount[r->nnodes++] = (uint32_t)ecount;
	return HF_OK;
}

/* The next integer of a flat array, or *more = 0 at its end. */
static hf_status next_uint(hf_jlex *lx, int *first, int *more, uint64_t *v)
{
	hf_status st = hf_jlex_array_more(lx, first, more);
	if (st || !*more)
		return st;
	return hf_jlex_uint(lx, v);
}

static hf_status read_nodes(v8r *r)
{
	hf_jlex *lx = &r->lx;
	hf_status st;
	uint64_t f[64];
	uint64_t off0 = 0;
	if (r->nodes_done)
		return hf_jlex_fail(lx, HF_ERR_FORMAT, "a second \"nodes\" array");
	if ((st = hf_jlex_expect(lx, HF_JT_LBRACKET, "'[' (the nodes array)")))
		return st;
	/* The table is sized by node_count, so that it holds 8 bytes a node and
	 * not up to twice that after doublings; a node_count the input cannot
	 * hold (2 bytes a number at least) is not believed. */
	int has;
	uint64_t hint = header_count(r, "node_count", &has);
	uint64_t size = hf_input_size(lx->in);
	uint64_t most = size ? size / (2 * r->nf) + 1 : (uint64_t)1 << 24;
	if (has && hint && (st = table_reserve(r, hint < most ? hint : most)))
		return st;
	int first = 1, more;
	size_t k = 0;
	uint64_t numbers = 0;
	for (;;) {
		if ((st = next_uint(lx, &first, &more, &f[k])))
			return st;
		if (!more)
			break;
		if (k == 0)
			off0 = lx->tok_off;
		numbers++;
		if ((int)k == r->f_name)
			note_string(r, f[k]);
		if ((int)k == r->f_type && f[k] >= r->n_ntypes)
			return hf_jlex_fail(lx, HF_ERR_FORMAT, "node type %" PRIu64 " out of range: meta names %zu node types",
			                    f[k], r->n_ntypes);
		if ((int)k == r->f_ecount && f[k] > UINT32_MAX)
			return hf_jlex_fail(lx, HF_ERR_FORMAT, "edge_count %" PRIu64 " beyond 2^32", f[k]);
		if ((int)k == r->f_id && f[k] == 0)
			return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected a node id above 0");
		if (++k < r->nf)
			continue;
		k = 0;
		if ((st = table_add(r, f[r->f_id], f[r->f_ecount])))
			return st;
		r->edge_sum += f[r->f_ecount];
		for (size_t i = 0; i < r->nf; i++) {
			int s = r->node_field_slot[i];
			if (s < 0)
				continue;
			hf_value *v = &r->vals[s];
			memset(v, 0, sizeof *v);
			v->present = 1;
			if ((int)i == r->f_name)
				v->u = f[i] + 1;
			else if (f[i] > INT64_MAX)
				return hf_error_at(r->err, HF_ERR_FORMAT, off0, "nodes", "a node field beyond 2^63");
			else
				v->i = (int64_t)f[i];
		}
		hf_node n = { &r->ntypes[f[r->f_type]], f[r->f_id], 0, 0, f[r->f_size], 0, r->vals };
		if ((st = hf_sink_node(r->sink, &n, r->err)))
			return st;
		if (r->opt->progress && !(r->nnodes & 0xFFFF))
			r->opt->progress(r->opt->progress_ctx, hf_input_raw_offset(lx->in),
			                 hf_input_raw_size(lx->in));
	}
	if (k)
		return hf_jlex_fail(lx, HF_ERR_FORMAT,
		                    "the nodes array holds %" PRIu64 " numbers, not a multiple of the %zu node fields",
		                    numbers, r->nf);
	uint64_t want = header_count(r, "node_count", &has);
	if (has && want != r->nnodes)
		return hf_jlex_fail(lx, HF_ERR_FORMAT, "the nodes array holds %zu nodes, snapshot.node_count says %" PRIu64,
		                    r->nnodes, want);
	r->nodes_done = 1;
	if (r->st) {
		r->st->nodes = r->nnodes;
		r->st->node_table_bytes = r->capnodes * ((r->ids64 ? 8 : 4) + 4);
	}
	return HF_OK;
}

static hf_status read_edges(v8r *r)
{
	hf_jlex *lx = &r->lx;
	hf_status st;
	uint64_t f[16];
	if (r->edges_done)
		return hf_jlex_fail(lx, HF_ERR_FORMAT, "a second \"edges\" array");
	if (!r->nodes_done)
		return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected \"nodes\" before \"edges\"");
	if (r->ef > 16)
		return hf_jlex_fail(lx, HF_ERR_FORMAT, "meta.edge_fields: more than 16 fields");
	if ((st = hf_jlex_expect(lx, HF_JT_LBRACKET, "'[' (the edges array)")))
		return st;
	int first = 1, more;
	size_t k = 0, cur = 0;
	uint64_t left = r->nnodes ? r->ecount[0] : 0, nedges = 0, numbers = 0;
	for (;;) {
		if ((st = next_uint(lx, &first, &more, &f[k])))
			return st;
		if (!more)
			break;
		numbers++;
		if ((int)k == r->e_type && f[k] >= r->n_etypes)
			return hf_jlex_fail(lx, HF_ERR_FORMAT, "edge type %" PRIu64 " out of range: meta names %zu edge types",
			                    f[k], r->n_etypes);
		if ((int)k == r->e_to) {
			if (f[k] % r->nf)
				return hf_jlex_fail(lx, HF_ERR_FORMAT,
				                    "edge to_node %" PRIu64 " is not a multiple of the %zu node fields",
				                    f[k], r->nf);
			if (f[k] / r->nf >= r->nnodes)
				return hf_jlex_fail(lx, HF_ERR_FORMAT,
				                    "edge to_node %" PRIu64 " out of range: there are %zu nodes", f[k],
				                    r->nnodes);
		}
		if (++k < r->ef)
			continue;
		k = 0;
		while (!left && cur < r->nnodes) {
			cur++;
			left = cur < r->nnodes ? r->ecount[cur] : 0;
		}
		if (cur >= r->nnodes)
			return hf_jlex_fail(lx, HF_ERR_FORMAT,
			                    "more edges than the nodes' edge_count add up to (%" PRIu64 ")", r->edge_sum);
		left--;
		uint64_t type = f[r->e_type], label = f[r->e_name];
		if (!r->etype_is_index[type]) {
			note_string(r, label);
			label++;
		}
		hf_edge e = { &r->etypes[type], node_id(r, cur), node_id(r, f[r->e_to] / r->nf), label, 0 };
		if ((st = hf_sink_edge(r->sink, &e, r->err)))
			return st;
		nedges++;
		if (r->opt->progress && !(nedges & 0xFFFF))
			r->opt->progress(r->opt->progress_ctx, hf_input_raw_offset(lx->in),
			                 hf_input_raw_size(lx->in));
	}
	if (k)
		return hf_jlex_fail(lx, HF_ERR_FORMAT,
		                    "the edges array holds %" PRIu64 " numbers, not a multiple of the %zu edge fields",
		                    numbers, r->ef);
	if (nedges != r->edge_sum)
		return hf_jlex_fail(lx, HF_ERR_FORMAT,
		                    "the nodes' edge_count add up to %" PRIu64 ", the edges array holds %" PRIu64 " edges",
		                    r->edge_sum, nedges);
	int has;
	uint64_t want = header_count(r, "edge_count", &has);
	if (has && want != nedges)
		return hf_jlex_fail(lx, HF_ERR_FORMAT, "the edges array holds %" PRIu64 " edges, snapshot.edge_count says %" PRIu64,
		                    nedges, want);
	r->edges_done = 1;
	if (r->st)
		r->st->edges = nedges;
	return HF_OK;
}

static hf_status read_strings(v8r *r)
{
	hf_jlex *lx = &r->lx;
	hf_status st;
	if (r->strings_done)
		return hf_jlex_fail(lx, HF_ERR_FORMAT, "a second \"strings\" array");
	if ((st = hf_jlex_expect(lx, HF_JT_LBRACKET, "'[' (the strings array)")))
		return st;
	int first = 1, more;
	for (;;) {
		if ((st = hf_jlex_array_more(lx, &first, &more)))
			return st;
		if (!more)
			break;
		if ((st = hf_jlex_expect(lx, HF_JT_STRING, "a string")))
			return st;
		r->nstrings++;
		if ((st = hf_sink_string(r->sink, r->nstrings, (const char *)lx->str.data, lx->str.len, r->err)))
			return st;
	}
	r->strings_done = 1;
	if (r->st)
		r->st->strings = r->nstrings;
	return HF_OK;
}

/* Node index (object_index) to id, checked. */
static hf_status object_at(v8r *r, uint64_t idx, uint64_t *id)
{
	if (!r->nodes_done)
		return hf_jlex_fail(&r->lx, HF_ERR_FORMAT, "expected \"nodes\" before a node index");
	if (idx % r->nf || idx / r->nf >= r->nnodes)
		return hf_jlex_fail(&r->lx, HF_ERR_FORMAT,
		                    "object_index %" PRIu64 " is not the index of one of the %zu nodes", idx,
		                    r->nnodes);
	*id = node_id(r, idx / r->nf);
	return HF_OK;
}

/* One group of a flat record array is complete in f: write it. */
static hf_status flat_record(v8r *r, rtype *rt, const int64_t *f, int64_t parent)
{
	hf_value *v = r->vals;
	int nf = 0;
	for (int i = 0; i < rt->nsrc; i++) {
		int s = rt->map[i];
		if (s < 0)
			continue;
		memset(&v[s], 0, sizeof v[s]);
		v[s].present = 1;
		if (rt->strref[i]) {
			if (f[i] < 0)
				return hf_jlex_fail(&r->lx, HF_ERR_FORMAT, "expected a string index, not %" PRId64, f[i]);
			note_string(r, (uint64_t)f[i]);
			v[s].u = (uint64_t)f[i] + 1;
		} else if (rt->objidx[i]) {
			hf_status st;
			if (f[i] < 0)
				return hf_jlex_fail(&r->lx, HF_ERR_FORMAT, "expected a node index, not %" PRId64, f[i]);
			if ((st = object_at(r, (uint64_t)f[i], &v[s].u)))
				return st;
		} else {
			v[s].i = f[i];
		}
		nf++;
	}
	if ((size_t)nf < rt->t.nfields) {
		memset(&v[nf], 0, sizeof v[nf]);
		v[nf].present = 1;
		v[nf].i = parent;
	}
	hf_record rec = { &rt->t, v };
	return hf_sink_record(r->sink, &rec, r->err);
}

static hf_status read_flat(v8r *r, rtype *rt, uint64_t *count)
{
	hf_jlex *lx = &r->lx;
	hf_status st;
	int64_t f[MAX_REC_FIELDS];
	if ((st = hf_jlex_expect(lx, HF_JT_LBRACKET, "'['")))
		return st;
	int first = 1, more, k = 0;
	uint64_t numbers = 0;
	for (;;) {
		if ((st = hf_jlex_array_more(lx, &first, &more)))
			return st;
		if (!more)
			break;
		if (!rt->declared || !rt->nsrc)
			return hf_jlex_fail(lx, HF_ERR_FORMAT, "values in %s, whose fields meta does not name", lx->ctx);
		if ((st = hf_jlex_int(lx, &f[k])))
			return st;
		numbers++;
		if (++k < rt->nsrc)
			continue;
		k = 0;
		if ((st = flat_record(r, rt, f, 0)))
			return st;
		(*count)++;
	}
	if (k)
		return hf_jlex_fail(lx, HF_ERR_FORMAT, "%s holds %" PRIu64 " numbers, not a multiple of its %d fields",
		                    lx->ctx, numbers, rt->nsrc);
	return HF_OK;
}

/* trace_tree: [id, function_info_index, count, size, [children...], ...] */
static hf_status read_trace_tree(v8r *r, uint64_t *count)
{
	hf_jlex *lx = &r->lx;
	hf_status st;
	rtype *rt = &r->tnode;
	typedef struct level {
		int first, k;
		int64_t f[MAX_REC_FIELDS];
	} level;
	level *stack = NULL;
	size_t depth = 0, cap = 0;
	if ((st = hf_jlex_expect(lx, HF_JT_LBRACKET, "'[' (the trace tree)")))
		return st;
	for (;;) {
		if (depth == cap) {
			if (depth >= HF_JLEX_DEPTH_MAX) {
				st = hf_jlex_fail(lx, HF_ERR_LIMIT, "the trace tree is deeper than %d levels", HF_JLEX_DEPTH_MAX);
				break;
			}
			size_t nc = cap ? cap * 2 : 16;
			level *ns = realloc(stack, nc * sizeof *ns);
			if (!ns) {
				st = nomem(r);
				break;
			}
			stack = ns;
			cap = nc;
		}
		level *L = &stack[depth];
		L->first = 1;
		L->k = 0;
		depth++;
	next:
		L = &stack[depth - 1];
		int more;
		if ((st = hf_jlex_array_more(lx, &L->first, &more)))
			break;
		if (!more) {
			if (L->k) {
				st = hf_jlex_fail(lx, HF_ERR_FORMAT, "a trace node cut short: expected %d fields", rt->nsrc);
				break;
			}
			if (--depth == 0)
				break;
			L = &stack[depth - 1];
			L->k = 0; /* the children closed the parent's group */
			goto next;
		}
		if (!rt->declared) {
			st = hf_jlex_fail(lx, HF_ERR_FORMAT, "trace nodes, whose fields meta does not name");
			break;
		}
		if (L->k == r->tnode_children) {
			if ((st = hf_jlex_expect(lx, HF_JT_LBRACKET, "'[' (the children of a trace node)")))
				break;
			int64_t parent = depth > 1 && r->tnode_id >= 0 ? stack[depth - 2].f[r->tnode_id] : 0;
			if ((st = flat_record(r, rt, L->f, parent)))
				break;
			(*count)++;
			continue; /* push the children's level */
		}
		if ((st = hf_jlex_int(lx, &L->f[L->k])))
			break;
		L->k++;
		goto next;
	}
	free(stack);
	return st;
}

static hf_status read_body(v8r *r, const char *target)
{
	hf_jlex *lx = &r->lx;
	hf_status st;
	r->target = target;
	if ((st = hf_jlex_expect(lx, HF_JT_LBRACE, "'{' (a V8 heap snapshot is a JSON object)")))
		return st;
	int first = 1, more, have_header = 0;
	uint64_t tfi = 0, tn = 0, samples = 0, locs = 0, ignored = 0;
	for (;;) {
		lx->ctx = "snapshot";
		if ((st = hf_jlex_object_more(lx, &first, &more)))
			return st;
		if (!more)
			break;
		const char *key = (const char *)lx->str.data;
		static const char *const known[] = { "snapshot", "nodes", "edges", "strings",
			"trace_function_infos", "trace_tree", "samples", "locations" };
		size_t which = sizeof known / sizeof *known;
		for (size_t i = 0; i < sizeof known / sizeof *known; i++)
			if (!strcmp(key, known[i]))
				which = i;
		if (which == 0 && have_header)
			return hf_jlex_fail(lx, HF_ERR_FORMAT, "a second \"snapshot\" header");
		if (which != 0 && !have_header)
			return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected the \"snapshot\" header object first, not \"%.40s\"", key);
		if (which < sizeof known / sizeof *known)
			lx->ctx = known[which];
		hf_jtok t;
		switch (which) {
		case 0: {
			size_t budget = HEADER_BUDGET;
			if ((st = hf_jlex_next(lx, &t)) || (st = hf_jval_parse(lx, t, &r->header, &budget)))
				return st;
			if ((st = use_header(r)))
				return st;
			have_header = 1;
			break;
		}
		case 1: st = read_nodes(r); break;
		case 2: st = read_edges(r); break;
		case 3: st = read_strings(r); break;
		case 4: st = read_flat(r, &r->tfi, &tfi); break;
		case 5:
			if (r->tnode.declared) {
				st = read_trace_tree(r, &tn);
				break;
			}
			/* a tree whose fields heapfmt cannot map is skipped like an unknown key */
			goto unknown;
		default:
		unknown: {
			char mkey[96];
			snprintf(mkey, sizeof mkey, "v8.extra.%.60s", key);
			ignored++;
			hf_buf_reset(&r->tmp);
			int capped = 0;
			if ((st = hf_jlex_next(lx, &t)) ||
			    (st = hf_jlex_skip(lx, t, &r->tmp, (size_t)1 << 20, &capped)))
				return st;
			if (!hf_buf_append(&r->tmp, "", 1))
				return nomem(r);
			st = meta(r, mkey, capped ? "(larger than 1 MiB: not kept)" : (const char *)r->tmp.data);
			break;
		}
		case 6: st = read_flat(r, &r->sample, &samples); break;
		case 7: st = read_flat(r, &r->loc, &locs); break;
		}
		if (st)
			return st;
	}
	lx->ctx = "snapshot";
	if ((st = hf_jlex_end(lx)))
		return st;
	if (!have_header)
		return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected a \"snapshot\" header object");
	if (!r->nodes_done || !r->edges_done || !r->strings_done)
		return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected \"%s\" in the snapshot",
		                    !r->nodes_done ? "nodes" : !r->edges_done ? "edges" : "strings");
	if (r->max_str > r->nstrings)
		return hf_error_at(r->err, HF_ERR_FORMAT, r->max_str_off, r->max_str_ctx,
		                   "string index %" PRIu64 " out of range: the snapshot has %" PRIu64 " strings",
		                   r->max_str - 1, r->nstrings);
	if (r->st) {
		r->st->trace_function_infos = tfi;
		r->st->trace_nodes = tn;
		r->st->samples = samples;
		r->st->locations = locs;
		r->st->ignored_keys = ignored;
	}
	if ((st = meta_u(r, "v8.strings", r->nstrings)) ||
	    (st = meta_u(r, "v8.lone_surrogates", lx->lone_surrogates)))
		return st;
	/* The root is the first node, whatever its id: heapdb2heapsnapshot
	 * writes it first again (v8_export.c, load_root). */
	if (r->nnodes && (st = meta_u(r, "v8.root", node_id(r, 0))))
		return st;
	return meta(r, "heapfmt.complete", "true");
}

hf_status hf_v8_read(hf_input *in, hf_sink *sink, const hf_v8_options *opt_in, hf_v8_stats *stats,
                     hf_error *err)
{
	hf_v8_options defaults;
	if (!opt_in) {
		hf_v8_options_init(&defaults);
		opt_in = &defaults;
	}
	if (stats)
		memset(stats, 0, sizeof *stats);
	memset(err, 0, sizeof *err);
	v8r *r = calloc(1, sizeof *r);
	if (!r)
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	r->sink = sink;
	r->err = err;
	r->st = stats;
	r->opt = opt_in;
	hf_buf_init(&r->tmp);
	hf_jlex_init(&r->lx, in, opt_in->window, opt_in->max_string, err);
	hf_status st = hf_refuse_empty(in, err);
	if (!st)
		st = hf_kind_refuse(in, HF_KIND_BIT(HF_KIND_HPROF) | HF_KIND_BIT(HF_KIND_SQLITE) | HF_KIND_BIT(HF_KIND_NDJSON) |
	                              HF_KIND_BIT(HF_KIND_DDM) | HF_KIND_BIT(HF_KIND_ZIP), "a V8 heap snapshot", err);
	if (!st)
		st = read_body(r, opt_in->source_name ? opt_in->source_name : hf_input_name(in));
	hf_jlex_free(&r->lx);
	hf_jval_free(&r->header);
	hf_buf_free(&r->tmp);
	free(r->nfields);
	free(r->nfield_names);
	free(r->ntypes);
	free(r->ntype_names);
	free(r->etypes);
	free(r->etype_names);
	free(r->etype_is_index);
	free(r->ids32);
	free(r->ids64);
	free(r->ecount);
	free(r);
	return st;
}
