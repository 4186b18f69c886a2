/*
 * Heap database reader: a database written by the SQLite writer (heapdb.c)
 * back into any sink, in the canonical order (see heapfmt/translate.h).
 *
 * Types are rebuilt from node_types, edge_types, record_types and
 * type_fields, so types this version does not know come through.  Every
 * table is read in the order of its own key: nodes in (identifier, dump)
 * order while one cursor per node subtype walks that subtype's table in the
 * same order (a merge join: no lookups, no sort, memory bounded), edges in
 * (source, dump, seq) order, record tables in rowid (file) order.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "heapfmt/translate.h"
#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <sys/stat.h>

hf_type *hf_tr_type_clone(const hf_type *src);
void hf_tr_type_free(hf_type *t);
void hf_tr_known_indexes(hf_type *t);

typedef struct rtype {
	hf_type *t;
	sqlite3_stmt *cur;   /* node subtypes: the subtype's rows in key order */
	int has_row;
	int64_t id, dump;    /* key of the current row of cur */
} rtype;

typedef struct dbr {
	sqlite3 *db;
	const char *path;
	hf_sink *sink;
	hf_error *err;
	hf_read_stats *st;
	rtype *types;
	size_t ntypes, captypes;
	hf_map byid;     /* (class, subtype) -> index in types: find_id */
	hf_value *vals;
	size_t capvals;
	char tag[48];
	char *complete;  /* heapfmt.complete's value, written last */
} dbr;

static hf_status db_error(dbr *r, const char *what)
{
	int code = sqlite3_errcode(r->db) & 0xff;
	hf_status st = code == SQLITE_NOMEM ? HF_ERR_NOMEM
	             : (code == SQLITE_NOTADB || code == SQLITE_CORRUPT || code == SQLITE_ERROR ||
	                code == SQLITE_MISMATCH) ? HF_ERR_FORMAT : HF_ERR_IO;
	if (code == SQLITE_NOTADB) {
		const char *kind = hf_kind_of_path(r->path);
		return hf_error_set(r->err, st, "%s: not a SQLite database%s%s", r->path, HF_KIND_HINT(kind));
	}
	return hf_error_set(r->err, st, "%s: %s%s%s: %s%s", r->path, r->tag[0] ? r->tag : "",
	                    r->tag[0] ? ": " : "", what, sqlite3_errmsg(r->db), hf_sqlite_hint(r->db));
}

static hf_status prep(dbr *r, sqlite3_stmt **q, const char *sql)
{
	if (sqlite3_prepare_v2(r->db, sql, -1, q, NULL) != SQLITE_OK) {
		*q = NULL;
		return db_error(r, "cannot read");
	}
	return HF_OK;
}

static hf_status nomem(dbr *r) { return hf_error_set(r->err, HF_ERR_NOMEM, "out of memory"); }

/* A text column, never NULL (empty instead). */
static const char *col_text(sqlite3_stmt *q, int c)
{
	const unsigned char *s = sqlite3_column_text(q, c);
	return s ? (const char *)s : "";
}

static const char *col_text_or_null(sqlite3_stmt *q, int c)
{
	return sqlite3_column_type(q, c) == SQLITE_NULL ? NULL : col_text(q, c);
}

static void col_value(sqlite3_stmt *q, int c, hf_field_kind k, hf_value *v)
{
	memset(v, 0, sizeof *v);
	if (sqlite3_column_type(q, c) == SQLITE_NULL)
		return;
	v->present = 1;
	switch (k) {
	case HF_FIELD_INT: v->i = sqlite3_column_int64(q, c); break;
	case HF_FIELD_ID:
	case HF_FIELD_STRREF: v->u = (uint64_t)sqlite3_column_int64(q, c); break;
	case HF_FIELD_REAL: v->d = sqlite3_column_double(q, c); break;
	case HF_FIELD_TEXT:
	case HF_FIELD_JSON:
		v->s = col_text(q, c);
		v->n = (size_t)sqlite3_column_bytes(q, c);
		break;
	}
}

static hf_status ensure_vals(dbr *r, size_t n)
{
	if (n <= r->capvals)
		return HF_OK;
	hf_value *v = realloc(r->vals, n * sizeof *v);
	if (!v)
		return nomem(r);
	r->vals = v;
	r->capvals = n;
	return HF_OK;
}

/* ---- types ------------------------------------------------------------------- */

/* Builds one type from its row and its type_fields rows, and marks the
 * fields that have a single-column index of their own. */
static hf_status load_type(dbr *r, hf_type_class cls, int id, const char *name,
                           const char *table, const char *label, const char *doc)
{
	static const char *const cls_name[] = { "node", "edge", "record" };
	hf_type t;
	memset(&t, 0, sizeof t);
	t.cls = cls;
	t.id = id;
	t.name = name;
	t.table = table;
	t.label = label;
	t.doc = doc;
	snprintf(r->tag, sizeof r->tag, "type %.40s", name);
	sqlite3_stmt *q;
	hf_status s = prep(r, &q, "SELECT name, kind, doc FROM type_fields"
	                          " WHERE type_class = ?1 AND type_name = ?2 ORDER BY position");
	if (s)
		return s;
	sqlite3_bind_text(q, 1, cls_name[cls], -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, name, -1, SQLITE_TRANSIENT);
	hf_field *f = NULL;
	char **strs = NULL;
	size_t n = 0, cap = 0;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			hf_field *nf = realloc(f, cap * sizeof *nf);
			char **ns = nf ? realloc(strs, 2 * cap * sizeof *ns) : NULL;
			if (nf)
				f = nf;
			if (ns)
				strs = ns;
			if (!nf || !ns) {
				s = nomem(r);
				break;
			}
		}
		memset(&f[n], 0, sizeof f[n]);
		const char *kind = col_text(q, 1);
		if (!hf_field_kind_parse(kind, &f[n].kind)) {
			s = hf_error_set(r->err, HF_ERR_UNSUPPORTED, "%s: type %s: field %s has kind \"%s\", not known to this version",
			                 r->path, name, col_text(q, 0), kind);
			break;
		}
		strs[2 * n] = strdup(col_text(q, 0));
		strs[2 * n + 1] = col_text_or_null(q, 2) ? strdup(col_text(q, 2)) : NULL;
		f[n].name = strs[2 * n];
		f[n].doc = strs[2 * n + 1];
		n++;
		if (!strs[2 * n - 2] || (col_text_or_null(q, 2) && !strs[2 * n - 1])) {
			s = nomem(r);
			break;
		}
	}
	if (!s && rc != SQLITE_DONE)
		s = db_error(r, "cannot read type_fields");
	sqlite3_finalize(q);
	if (!s && cls != HF_TYPE_EDGE && n) {
		/* Single-column indexes on the type's table. */
		s = prep(r, &q, "SELECT ii.name FROM pragma_index_list(?1) AS il,"
		                " pragma_index_info(il.name) AS ii"
		                " WHERE il.origin = 'c' AND (SELECT count(*) FROM pragma_index_info(il.name)) = 1");
		if (!s) {
			sqlite3_bind_text(q, 1, table, -1, SQLITE_TRANSIENT);
			while (sqlite3_step(q) == SQLITE_ROW)
				for (size_t i = 0; i < n; i++)
					if (!strcmp(f[i].name, col_text(q, 0)))
						f[i].indexed = 1;
			sqlite3_finalize(q);
		}
	}
	hf_type *own = NULL;
	if (!s) {
		t.fields = f;
		t.nfields = n;
		if (!(own = hf_tr_type_clone(&t)))
			s = nomem(r);
	}
	for (size_t i = 0; i < 2 * n; i++)
		free(strs[i]);
	free(strs);
	free(f);
	if (s)
		return s;
	hf_tr_known_indexes(own);
	if (r->ntypes == r->captypes) {
		size_t nc = r->captypes ? r->captypes * 2 : 32;
		rtype *nt = realloc(r->types, nc * sizeof *nt);
		if (!nt) {
			hf_tr_type_free(own);
			return nomem(r);
		}
		r->types = nt;
		r->captypes = nc;
	}
	/* The first type of a (class, subtype) is the one find_id gives, as
	 * the search in order did. */
	uint64_t key = hf_type_key(cls, id);
	if (!hf_map_get(&r->byid, key) && !hf_map_put(&r->byid, key, r->ntypes)) {
		hf_tr_type_free(own);
		return nomem(r);
	}
	memset(&r->types[r->ntypes], 0, sizeof r->types[r->ntypes]);
	r->types[r->ntypes++].t = own;
	r->tag[0] = 0;
	return HF_OK;
}

static hf_status load_types(dbr *r)
{
	static const char *const sql[] = {
		"SELECT nodetypeid, name, table_name, NULL, doc FROM node_types ORDER BY nodetypeid",
		"SELECT edgetypeid, name, NULL, label, doc FROM edge_types ORDER BY edgetypeid",
		"SELECT 0, name, table_name, NULL, doc FROM record_types ORDER BY rowid",
	};
	for (int c = 0; c < 3; c++) {
		sqlite3_stmt *q;
		hf_status s = prep(r, &q, sql[c]);
		if (s)
			return s;
		int rc;
		while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
			int64_t id = sqlite3_column_int64(q, 0);
			if (id < INT32_MIN || id > INT32_MAX) {
				sqlite3_finalize(q);
				return hf_error_set(r->err, HF_ERR_FORMAT, "%s: subtype %lld out of range",
				                    r->path, (long long)id);
			}
			s = load_type(r, (hf_type_class)c, (int)id, col_text(q, 1), col_text_or_null(q, 2),
			              col_text_or_null(q, 3), col_text_or_null(q, 4));
			if (s) {
				sqlite3_finalize(q);
				return s;
			}
		}
		sqlite3_finalize(q);
		if (rc != SQLITE_DONE)
			return db_error(r, "cannot read the type tables");
	}
	return HF_OK;
}

hf_status hf_heapdb_check_major(sqlite3 *db, const char *schema, const char *path, hf_error *err)
{
	char *sql = sqlite3_mprintf("SELECT value FROM \"%w\".metadata WHERE key = 'version_major'"
	                            " AND value IS NOT '" HEAPFMT_FORMAT_MAJOR "' LIMIT 1", schema);
	sqlite3_stmt *q = NULL;
	if (!sql)
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	int rc = sqlite3_prepare_v2(db, sql, -1, &q, NULL);
	sqlite3_free(sql);
	hf_status st = HF_OK;
	if (rc == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW) {
		const unsigned char *v = sqlite3_column_text(q, 0);
		st = hf_error_set(err, HF_ERR_FORMAT,
		                  "%s: " HF_MAJOR_REFUSED, path, v ? (const char *)v : "(null)");
	}
	sqlite3_finalize(q);
	return st;
}

/* ---- the record classes, in canonical order -------------------------------- */

static hf_status read_metadata(dbr *r)
{
	sqlite3_stmt *q;
	hf_status s = prep(r, &q, "SELECT key, value FROM metadata ORDER BY rowid");
	if (s)
		return s;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		r->st->metadata++;
		/* A writer's last line (schema/README.md): the stream it reads
		 * as complete only when it ends with it, so it goes last here too. */
		if (!strcmp(col_text(q, 0), "heapfmt.complete")) {
			free(r->complete);
			if (!(r->complete = strdup(col_text(q, 1)))) {
				s = hf_error_set(r->err, HF_ERR_NOMEM, "out of memory");
				break;
			}
			continue;
		}
		if ((s = hf_sink_metadata(r->sink, col_text(q, 0), col_text(q, 1), r->err)))
			break;
	}
	if (!s && rc != SQLITE_DONE)
		s = db_error(r, "cannot read metadata");
	sqlite3_finalize(q);
	return s;
}

/* Keys are unsigned 64-bit numbers, which SQLite holds as signed ones (one
 * of 2^63 or more as that minus 2^64, negative: schema/README.md,
 * "Identifiers"): each table is read in two halves, the non-negative keys
 * (half 0) and then the negative ones (half 1), each in key order, which
 * gives the rows in the order of their keys as unsigned numbers, each half
 * from the key's index. */
static const char *const half_where[2] = { ">= 0", "< 0" };

/* read(r, 0), then read(r, 1): a table in the order of its keys as
 * unsigned numbers. */
static hf_status in_halves(dbr *r, hf_status (*read)(dbr *, int))
{
	hf_status s = read(r, 0);
	return s ? s : read(r, 1);
}

static hf_status read_strings_half(dbr *r, int half)
{
	sqlite3_stmt *q;
	char sql[96];
	snprintf(sql, sizeof sql, "SELECT stringid, data FROM strings WHERE stringid %s ORDER BY stringid",
	         half_where[half]);
	hf_status s = prep(r, &q, sql);
	if (s)
		return s;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *d = col_text(q, 1);
		r->st->strings++;
		if ((s = hf_sink_string(r->sink, (uint64_t)sqlite3_column_int64(q, 0), d,
		                        (size_t)sqlite3_column_bytes(q, 1), r->err)))
			break;
	}
	if (!s && rc != SQLITE_DONE)
		s = db_error(r, "cannot read strings");
	sqlite3_finalize(q);
	return s;
}

static hf_status cursor_step(dbr *r, rtype *t)
{
	int rc = sqlite3_step(t->cur);
	if (rc == SQLITE_ROW) {
		t->has_row = 1;
		t->id = sqlite3_column_int64(t->cur, 0);
		t->dump = sqlite3_column_int64(t->cur, 1);
		return HF_OK;
	}
	t->has_row = 0;
	if (rc != SQLITE_DONE)
		return db_error(r, "cannot read a node subtype table");
	return HF_OK;
}

/* The type of a node's or edge's subtype column: looked up in a map, not
 * searched, since a row per node or edge with thousands of declared types
 * would take their product (edges whose subtypes alternate defeated the
 * one-entry cache this had). */
static rtype *find_id(dbr *r, hf_type_class cls, int64_t id)
{
	if (id < INT_MIN || id > INT_MAX)
		return NULL; /* no declared type has it (subtypes are ints) */
	uint64_t *i = hf_map_get(&r->byid, hf_type_key(cls, (int)id));
	return i ? &r->types[*i] : NULL;
}

static hf_status read_nodes_half(dbr *r, int half)
{
	hf_status s = HF_OK;
	/* One cursor per node subtype with fields. */
	for (size_t i = 0; i < r->ntypes && !s; i++) {
		rtype *t = &r->types[i];
		if (t->t->cls != HF_TYPE_NODE || !t->t->nfields)
			continue;
		if ((s = ensure_vals(r, t->t->nfields)))
			return s;
		hf_buf sql;
		hf_buf_init(&sql);
		bool ok = hf_buf_printf(&sql, "SELECT node_identifier, dump");
		for (size_t f = 0; f < t->t->nfields; f++) {
			char *c = sqlite3_mprintf(", \"%w\"", t->t->fields[f].name);
			ok = ok && c && hf_buf_append(&sql, c, strlen(c));
			sqlite3_free(c);
		}
		char *from = sqlite3_mprintf(" FROM \"%w\" WHERE node_identifier %s ORDER BY node_identifier, dump",
		                             t->t->table, half_where[half]);
		ok = ok && from && hf_buf_append(&sql, from, strlen(from) + 1);
		sqlite3_free(from);
		snprintf(r->tag, sizeof r->tag, "table %.40s", t->t->table);
		s = ok ? prep(r, &t->cur, (const char *)sql.data) : nomem(r);
		hf_buf_free(&sql);
		if (!s)
			s = cursor_step(r, t);
	}
	if (s)
		return s;
	snprintf(r->tag, sizeof r->tag, "table node");
	sqlite3_stmt *q;
	char sql[128];
	snprintf(sql, sizeof sql, "SELECT identifier, dump, nodetypeid, class, size, heap FROM node"
	         " WHERE identifier %s ORDER BY identifier, dump", half_where[half]);
	if ((s = prep(r, &q, sql)))
		return s;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		hf_node n;
		int64_t id = sqlite3_column_int64(q, 0), dump = sqlite3_column_int64(q, 1);
		rtype *t = find_id(r, HF_TYPE_NODE, sqlite3_column_int64(q, 2));
		if (!t) {
			s = hf_error_set(r->err, HF_ERR_FORMAT, "%s: node %llu has subtype %lld, which is not declared",
			                 r->path, (unsigned long long)id, (long long)sqlite3_column_int64(q, 2));
			break;
		}
		n.type = t->t;
		n.id = (uint64_t)id;
		n.dump = (uint32_t)dump;
		n.class_id = (uint64_t)sqlite3_column_int64(q, 3);
		n.size = (uint64_t)sqlite3_column_int64(q, 4);
		n.heap = (uint32_t)sqlite3_column_int64(q, 5);
		n.values = r->vals;
		int matched = 0;
		if (t->cur) {
			while (!s && t->has_row && (t->id < id || (t->id == id && t->dump < dump))) {
				r->st->orphan_rows++;
				s = cursor_step(r, t);
			}
			if (s)
				break;
			matched = t->has_row && t->id == id && t->dump == dump;
		}
		for (size_t f = 0; f < t->t->nfields; f++) {
			if (matched)
				col_value(t->cur, (int)f + 2, t->t->fields[f].kind, &r->vals[f]);
			else
				memset(&r->vals[f], 0, sizeof r->vals[f]);
		}
		r->st->nodes++;
		if ((s = hf_sink_node(r->sink, &n, r->err)))
			break;
		if (matched && (s = cursor_step(r, t)))
			break;
	}
	if (!s && rc != SQLITE_DONE)
		s = db_error(r, "cannot read");
	sqlite3_finalize(q);
	for (size_t i = 0; r->types && i < r->ntypes; i++) {
		if (r->types[i].cur) {
			while (!s && r->types[i].has_row) {
				r->st->orphan_rows++;
				s = cursor_step(r, &r->types[i]);
			}
			sqlite3_finalize(r->types[i].cur);
			r->types[i].cur = NULL;
		}
	}
	return s;
}

static hf_status read_edges_half(dbr *r, int half)
{
	snprintf(r->tag, sizeof r->tag, "table edge");
	sqlite3_stmt *q;
	char sql[128];
	snprintf(sql, sizeof sql, "SELECT source, dump, edgetypeid, dest, label FROM edge"
	         " WHERE source %s ORDER BY source, dump, seq", half_where[half]);
	hf_status s = prep(r, &q, sql);
	if (s)
		return s;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		hf_edge e;
		rtype *t = find_id(r, HF_TYPE_EDGE, sqlite3_column_int64(q, 2));
		if (!t) {
			s = hf_error_set(r->err, HF_ERR_FORMAT, "%s: an edge has subtype %lld, which is not declared",
			                 r->path, (long long)sqlite3_column_int64(q, 2));
			break;
		}
		e.type = t->t;
		e.source = (uint64_t)sqlite3_column_int64(q, 0);
		e.dump = (uint32_t)sqlite3_column_int64(q, 1);
		e.dest = (uint64_t)sqlite3_column_int64(q, 3);
		e.label = (uint64_t)sqlite3_column_int64(q, 4);
		r->st->edges++;
		if ((s = hf_sink_edge(r->sink, &e, r->err)))
			break;
	}
	if (!s && rc != SQLITE_DONE)
		s = db_error(r, "cannot read");
	sqlite3_finalize(q);
	return s;
}

/* A name of the rowid that no field of t takes, or NULL. */
static const char *rowid_alias(const hf_type *t)
{
	static const char *const names[] = { "rowid", "_rowid_", "oid" };
	for (size_t k = 0; k < 3; k++) {
		size_t f = 0;
		while (f < t->nfields && sqlite3_stricmp(t->fields[f].name, names[k]))
			f++;
		if (f == t->nfields)
			return names[k];
	}
	return NULL;
}

static hf_status read_records(dbr *r)
{
	hf_status s = HF_OK;
	for (size_t i = 0; i < r->ntypes && !s; i++) {
		const hf_type *t = r->types[i].t;
		if (t->cls != HF_TYPE_RECORD)
			continue;
		if ((s = ensure_vals(r, t->nfields)))
			return s;
		snprintf(r->tag, sizeof r->tag, "table %.40s", t->table);
		/* The records' order is the rowid's; a declared field may be named
		 * rowid (it then hides that name of the rowid, not the others). */
		const char *rowid = rowid_alias(t);
		if (!rowid)
			return hf_error_set(r->err, HF_ERR_FORMAT, "%s: fields named rowid, oid and _rowid_ hide the"
			                    " order of the records", r->tag);
		hf_buf sql;
		hf_buf_init(&sql);
		bool ok = hf_buf_printf(&sql, "SELECT %s", rowid);
		for (size_t f = 0; f < t->nfields; f++) {
			char *c = sqlite3_mprintf(", \"%w\"", t->fields[f].name);
			ok = ok && c && hf_buf_append(&sql, c, strlen(c));
			sqlite3_free(c);
		}
		char *from = sqlite3_mprintf(" FROM \"%w\" ORDER BY %s", t->table, rowid);
		ok = ok && from && hf_buf_append(&sql, from, strlen(from) + 1);
		sqlite3_free(from);
		sqlite3_stmt *q = NULL;
		s = ok ? prep(r, &q, (const char *)sql.data) : nomem(r);
		hf_buf_free(&sql);
		if (s)
			return s;
		int rc;
		while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
			for (size_t f = 0; f < t->nfields; f++)
				col_value(q, (int)f + 1, t->fields[f].kind, &r->vals[f]);
			hf_record rec = { t, r->vals };
			r->st->records++;
			if ((s = hf_sink_record(r->sink, &rec, r->err)))
				break;
		}
		if (!s && rc != SQLITE_DONE)
			s = db_error(r, "cannot read");
		sqlite3_finalize(q);
	}
	return s;
}

hf_status hf_heapdb_read(const char *path, hf_sink *sink, hf_read_stats *stats, hf_error *err)
{
	hf_read_stats dummy;
	if (!stats)
		stats = &dummy;
	memset(stats, 0, sizeof *stats);
	struct stat sb;
	if (stat(path, &sb) != 0)
		return hf_error_set(err, HF_ERR_IO, "cannot open %s: %s", path, strerror(errno));
	if (S_ISDIR(sb.st_mode))
		return hf_error_set(err, HF_ERR_IO, "cannot read %s: it is a directory", path);
	dbr r;
	memset(&r, 0, sizeof r);
	r.path = path;
	r.sink = sink;
	r.err = err;
	r.st = stats;
	if (sqlite3_open_v2(path, &r.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		hf_status s = hf_error_set(err, r.db ? HF_ERR_IO : HF_ERR_NOMEM, "cannot open %s: %s", path,
		                           r.db ? sqlite3_errmsg(r.db) : "out of memory");
		sqlite3_close(r.db);
		return s;
	}
	sqlite3_stmt *q;
	hf_status s = prep(&r, &q, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN"
	                           " ('metadata', 'node_types', 'edge_types', 'record_types',"
	                           " 'type_fields', 'node', 'edge', 'strings')");
	if (!s) {
		int rc = sqlite3_step(q);
		if (rc != SQLITE_ROW)
			s = db_error(&r, "cannot read");
		else if (sqlite3_column_int(q, 0) != 8)
			s = hf_error_set(err, HF_ERR_FORMAT, "%s: not a heap database (it lacks the core tables)",
			                 path);
		sqlite3_finalize(q);
	}
	if (!s) s = sqlite3_exec(r.db, "PRAGMA query_only = 1; PRAGMA cache_size = -65536", NULL, NULL,
	                         NULL) == SQLITE_OK ? HF_OK : db_error(&r, "cannot configure");
	if (!s) s = hf_heapdb_check_major(r.db, "main", path, err);
	if (!s) s = load_types(&r);
	if (!s) s = read_metadata(&r);
	for (size_t i = 0; i < r.ntypes && !s; i++) {
		stats->types++;
		s = hf_sink_declare(sink, r.types[i].t, err);
	}
	if (!s) s = in_halves(&r, read_strings_half);
	if (!s) s = in_halves(&r, read_nodes_half);
	if (!s) s = in_halves(&r, read_edges_half);
	if (!s) s = read_records(&r);
	if (!s && r.complete)
		s = hf_sink_metadata(sink, "heapfmt.complete", r.complete, err);
	free(r.complete);
	for (size_t i = 0; i < r.ntypes; i++) {
		sqlite3_finalize(r.types[i].cur);
		hf_tr_type_free(r.types[i].t);
	}
	free(r.types);
	hf_map_free(&r.byid);
	free(r.vals);
	sqlite3_close(r.db);
	return s;
}
