/*
 * The analysis in a record stream (hprof2ndjson --analysis): a sink that
 * passes every record on to another one (the NDJSON writer) and also builds
 * a temporary heap database of them; when the records are complete it
 * analyses that database and hands the results on as heapfmt.node_analysis
 * records, one per node, before the metadata that came after the first
 * record of the body (the trailing metadata, heapfmt.complete last).
 *
 * The declaration of heapfmt.node_analysis goes out with the others: right
 * before the first record of the body.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <unistd.h>


static const hf_field node_analysis_fields[] = {
	{ "identifier", HF_FIELD_ID, "the node's identifier", 0 },
	{ "dump", HF_FIELD_INT, "the node's heap dump", 0 },
	{ "reachable", HF_FIELD_INT,
	  "1 reachable from a GC root through strong references, 2 only through a "
	  "Reference.referent, 0 unreachable", 0 },
	{ "distance", HF_FIELD_INT,
	  "references on a shortest strong path from a GC root (0: a root); absent unless reachable is 1", 0 },
	{ "dominator", HF_FIELD_ID,
	  "id of the immediate dominator (0: the virtual super-root above the GC roots); absent unless "
	  "reachable is 1", 0 },
	{ "retained_size", HF_FIELD_INT,
	  "shallow size of the node and of every node it dominates, in bytes; absent unless reachable is 1", 0 },
};

const hf_type hf_node_analysis_type = { HF_TYPE_RECORD, 0, "heapfmt.node_analysis", "node_analysis",
	node_analysis_fields, sizeof node_analysis_fields / sizeof *node_analysis_fields, NULL,
	"analysis of a node: reachability, distance from the GC roots, immediate dominator, retained "
	"size (schema/README.md \"Analysis\")" };

typedef struct meta_kv {
	char *key, *value;
} meta_kv;

typedef struct tee {
	hf_sink sink;
	hf_sink *out;            /* the caller's sink (owned: destroyed with this one) */
	hf_sink *db;             /* the temporary database */
	char *db_path;           /* its name (reserved by an empty file) */
	int declared, body;
	meta_kv *held;           /* metadata after the body began */
	size_t nheld, capheld;
} tee;

static hf_status tee_body(tee *t, hf_error *err)
{
	if (t->body)
		return HF_OK;
	t->body = 1;
	if (t->declared)
		return HF_OK;
	t->declared = 1;
	return hf_sink_declare(t->out, &hf_node_analysis_type, err);
}

static hf_status tee_metadata(hf_sink *s, const char *key, const char *value, hf_error *err)
{
	tee *t = s->impl;
	hf_status st = hf_sink_metadata(t->db, key, value, err);
	if (st)
		return st;
	if (!t->body)
		return hf_sink_metadata(t->out, key, value, err);
	if (t->nheld == t->capheld) {
		size_t nc = t->capheld ? t->capheld * 2 : 16;
		meta_kv *n = realloc(t->held, nc * sizeof *n);
		if (!n)
			return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
		t->held = n;
		t->capheld = nc;
	}
	meta_kv *m = &t->held[t->nheld];
	m->key = strdup(key);
	m->value = strdup(value);
	if (!m->key || !m->value) {
		free(m->key);
		free(m->value);
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	}
	t->nheld++;
	return HF_OK;
}

static hf_status tee_declare(hf_sink *s, const hf_type *type, hf_error *err)
{
	tee *t = s->impl;
	hf_status st = hf_sink_declare(t->db, type, err);
	return st ? st : hf_sink_declare(t->out, type, err);
}

static hf_status tee_string(hf_sink *s, uint64_t id, const char *utf8, size_t len, hf_error *err)
{
	tee *t = s->impl;
	hf_status st = tee_body(t, err);
	if (!st)
		st = hf_sink_string(t->db, id, utf8, len, err);
	return st ? st : hf_sink_string(t->out, id, utf8, len, err);
}

static hf_status tee_node(hf_sink *s, const hf_node *node, hf_error *err)
{
	tee *t = s->impl;
	hf_status st = tee_body(t, err);
	if (!st)
		st = hf_sink_node(t->db, node, err);
	return st ? st : hf_sink_node(t->out, node, err);
}

static hf_status tee_edge(hf_sink *s, const hf_edge *edge, hf_error *err)
{
	tee *t = s->impl;
	hf_status st = tee_body(t, err);
	if (!st)
		st = hf_sink_edge(t->db, edge, err);
	return st ? st : hf_sink_edge(t->out, edge, err);
}

static hf_status tee_record(hf_sink *s, const hf_record *rec, hf_error *err)
{
	tee *t = s->impl;
	hf_status st = tee_body(t, err);
	if (!st)
		st = hf_sink_record(t->db, rec, err);
	return st ? st : hf_sink_record(t->out, rec, err);
}

/* Reads node_analysis back from the analysed database into out. */
static hf_status emit_analysis(tee *t, hf_error *err)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	hf_status rc = HF_OK;
	if (sqlite3_open_v2(t->db_path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT identifier, dump, reachable, distance, dominator, retained_size"
	                           " FROM node_analysis ORDER BY identifier, dump", -1, &st, NULL) != SQLITE_OK) {
		rc = hf_error_set(err, HF_ERR_IO, "SQLite: %s: %s", t->db_path,
		                  db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	int step;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		hf_value v[6];
		memset(v, 0, sizeof v);
		for (int c = 0; c < 6; c++) {
			v[c].present = sqlite3_column_type(st, c) != SQLITE_NULL;
			v[c].i = sqlite3_column_int64(st, c);
			v[c].u = (uint64_t)v[c].i;
		}
		hf_record r = { &hf_node_analysis_type, v };
		rc = hf_sink_record(t->out, &r, err);
	}
	if (!rc && step != SQLITE_DONE)
		rc = hf_error_set(err, HF_ERR_IO, "SQLite: %s: %s", t->db_path, sqlite3_errmsg(db));
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

static hf_status tee_finish(hf_sink *s, hf_error *err)
{
	tee *t = s->impl;
	hf_status st = tee_body(t, err);
	if (!st)
		st = hf_sink_finish(t->db, err);
	hf_sink_destroy(t->db, st == HF_OK);
	t->db = NULL;
	if (!st)
		st = emit_analysis(t, err);
	for (size_t i = 0; i < t->nheld && !st; i++)
		st = hf_sink_metadata(t->out, t->held[i].key, t->held[i].value, err);
	return st ? st : hf_sink_finish(t->out, err);
}

static void tee_destroy(hf_sink *s, int success)
{
	tee *t = s->impl;
	if (t->db)
		hf_sink_destroy(t->db, 0);
	if (t->out)
		hf_sink_destroy(t->out, success);
	hf_temp_drop(&t->db_path);
	for (size_t i = 0; i < t->nheld; i++) {
		free(t->held[i].key);
		free(t->held[i].value);
	}
	free(t->held);
	free(t);
}

static const hf_sink_ops tee_ops = {
	tee_metadata, tee_declare, tee_string, tee_node, tee_edge, tee_record, tee_finish, tee_destroy
};

hf_status hf_analysis_sink_new(hf_sink **out, hf_sink *next, const char *beside, hf_error *err)
{
	return hf_analysis_sink_open(out, next, beside, NULL, err);
}

hf_status hf_analysis_sink_open(hf_sink **out, hf_sink *next, const char *beside,
                                const hf_analysis_options *opt, hf_error *err)
{
	*out = NULL;
	tee *t = calloc(1, sizeof *t);
	if (!t) {
		hf_sink_destroy(next, 0);
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	}
	t->sink.ops = &tee_ops;
	t->sink.impl = t;
	t->out = next;
	int fd = hf_make_temp_beside(beside, -1, &t->db_path);
	if (fd < 0) {
		hf_status st = hf_error_set(err, HF_ERR_IO, "cannot create the analysis's temporary database beside %s: %s",
		                            beside, strerror(errno));
		tee_destroy(&t->sink, 0);
		return st;
	}
	close(fd);
	hf_heapdb_options o = { 1, 1, 1, opt ? opt->memory_limit : 0 };
	hf_status st = hf_heapdb_sink_open(&t->db, t->db_path, &o, err);
	if (st) {
		t->db = NULL;
		tee_destroy(&t->sink, 0);
		return st;
	}
	t->sink.max_text = t->db->max_text;
	t->sink.key_order = t->db->key_order && next->key_order;
	if (next->max_text && (!t->sink.max_text || next->max_text < t->sink.max_text))
		t->sink.max_text = next->max_text;
	*out = &t->sink;
	return HF_OK;
}
