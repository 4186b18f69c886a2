/* Heap diff of two heap databases: see heapfmt/diff.h.  The two files are
 * attached to one read-only connection ("a" before, "b" after) and compared
 * with SQL; only per-class and per-root-kind totals and a top-N list come
 * back into memory. */
#define _POSIX_C_SOURCE 200809L
#include "heapfmt/diff.h"
#include "internal.h"
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

typedef struct differ {
	sqlite3 *db;
	hf_error *err;
	const char *before, *after; /* the paths of schemas "a" and "b" */
} differ;

/* Names the database that failed (schema s, or both for NULL: a statement
 * that reads the two cannot tell which) and what was being read, not the
 * statement: SQLite's reason (a damaged file) came after several hundred
 * bytes of SQL, past the end of the message, and no file was named. */
static hf_status sql_error(differ *d, const char *s, const char *what)
{
	int code = sqlite3_errcode(d->db) & 0xFF;
	char files[2 * 512 + 8];
	if (s)
		snprintf(files, sizeof files, "%s", !strcmp(s, "a") ? d->before : d->after);
	else
		snprintf(files, sizeof files, "%s and %s", d->before, d->after);
	return hf_error_set(d->err, code == SQLITE_NOMEM ? HF_ERR_NOMEM
	                            : hf_sqlite_damaged(code) ? HF_ERR_FORMAT : HF_ERR_IO,
	                    "SQLite: %s: %s: %s%s", files, what, sqlite3_errmsg(d->db), hf_sqlite_hint(d->db));
}

static hf_status exec(differ *d, const char *s, const char *what, const char *sql)
{
	if (sqlite3_exec(d->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return sql_error(d, s, what);
	return HF_OK;
}

static int has_table(differ *d, const char *schema, const char *table)
{
	char sql[160];
	snprintf(sql, sizeof sql, "SELECT 1 FROM \"%s\".sqlite_schema WHERE type='table' AND name=?", schema);
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(d->db, sql, -1, &q, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
	int found = sqlite3_step(q) == SQLITE_ROW;
	sqlite3_finalize(q);
	return found;
}

static hf_status attach(differ *d, const char *path, const char *schema)
{
	/* Read-only, through a URI: '?', '#' and '%' in the path are escaped. */
	sqlite3_str *u = sqlite3_str_new(d->db);
	sqlite3_str_appendall(u, "file:");
	for (const char *p = path; *p; p++)
		if (*p == '?' || *p == '#' || *p == '%')
			sqlite3_str_appendf(u, "%%%02X", (unsigned char)*p);
		else
			sqlite3_str_appendchar(u, 1, *p);
	sqlite3_str_appendall(u, "?mode=ro");
	char *uri = sqlite3_str_finish(u);
	char *sql = uri ? sqlite3_mprintf("ATTACH %Q AS %s", uri, schema) : NULL;
	sqlite3_free(uri);
	if (!sql)
		return hf_error_set(d->err, HF_ERR_NOMEM, "out of memory");
	int rc = sqlite3_exec(d->db, sql, NULL, NULL, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return hf_error_set(d->err, hf_sqlite_damaged(rc) ? HF_ERR_FORMAT : HF_ERR_IO,
		                    "%s: cannot open: %s%s", path, sqlite3_errmsg(d->db), hf_sqlite_hint(d->db));
	/* Reading the schema is what tells a database from another file. */
	char q[96];
	snprintf(q, sizeof q, "SELECT count(*) FROM %s.sqlite_schema", schema);
	if (sqlite3_exec(d->db, q, NULL, NULL, NULL) != SQLITE_OK) {
		const char *kind = hf_kind_of_path(path);
		return hf_error_set(d->err, HF_ERR_FORMAT, "%s: not a SQLite database%s%s", path, HF_KIND_HINT(kind));
	}
	if (!has_table(d, schema, "node") || !has_table(d, schema, "metadata"))
		return hf_error_set(d->err, HF_ERR_FORMAT, "%s: not a heap database (no node table)", path);
	return hf_heapdb_check_major(d->db, schema, path, d->err);
}

/* A database of a V8 heap snapshot (heapsnapshot2heapdb): no class objects,
 * a table per node type. */
static int is_v8(differ *d, const char *s)
{
	return !has_table(d, s, "node_class") && has_table(d, s, "node_v8_object") &&
	       has_table(d, s, "node_types") && has_table(d, s, "strings");
}

/* temp.vn_<s>(identifier, dump, name): each node of the V8 database s named
 * as Chrome DevTools' summary groups them (className): objects and native
 * nodes by their name (the constructor, "Detached HTMLDivElement"), the
 * others by type: (string), (array), (closure), (compiled code), (system),
 * (concatenated string), (synthetic) ...  A node is in one type table: each
 * is joined on its primary key. */
static hf_status v8_names(differ *d, const char *s)
{
	static const char *const named[] = { "node_v8_object", "node_v8_native" };
	sqlite3_str *u = sqlite3_str_new(d->db);
	sqlite3_str_appendf(u,
		"CREATE TEMP TABLE vn_%s (identifier INTEGER, dump INTEGER, name TEXT,"
		" PRIMARY KEY (identifier, dump)) WITHOUT ROWID;"
		"INSERT OR IGNORE INTO temp.vn_%s SELECT n.identifier, n.dump,"
		" CASE WHEN t.name IN ('v8_object', 'v8_native') AND st.data IS NOT NULL THEN st.data"
		"      WHEN t.name = 'v8_code' THEN '(compiled code)'"
		"      WHEN t.name = 'v8_hidden' THEN '(system)'"
		"      WHEN substr(t.name, 1, 3) = 'v8_' THEN '(' || replace(substr(t.name, 4), '_', ' ') || ')'"
		"      ELSE printf('<class 0x%%x>', n.class) END"
		" FROM %s.node AS n JOIN %s.node_types AS t ON t.nodetypeid = n.nodetypeid", s, s, s, s);
	const char *alias[] = { "x0", "x1" };
	int have[2];
	for (size_t i = 0; i < 2; i++)
		if ((have[i] = has_table(d, s, named[i])))
			sqlite3_str_appendf(u, " LEFT JOIN %s.%s AS %s ON %s.node_identifier = n.identifier AND %s.dump = n.dump",
			                    s, named[i], alias[i], alias[i], alias[i]);
	sqlite3_str_appendf(u, " LEFT JOIN %s.strings AS st ON st.stringid = coalesce(%s, %s)", s,
	                    have[0] ? "x0.name" : "NULL", have[1] ? "x1.name" : "NULL");
	char *sql = sqlite3_str_finish(u);
	if (!sql)
		return hf_error_set(d->err, HF_ERR_NOMEM, "out of memory");
	hf_status st = exec(d, s, "cannot name the V8 nodes", sql);
	sqlite3_free(sql);
	return st;
}

/* temp.h_<s>(name, n, bytes, retained): the class histogram of schema s by
 * class name, named as schema/queries/class_histogram.sql names classes,
 * with retained bytes as schema/queries/retained_by_class.sql adds them up
 * (NULL without the analysis).  Spelled out per case: a join on a table
 * that does not exist (a DDM database has no node_class) does not prepare. */
static hf_status histogram(differ *d, const char *s, int analysed)
{
	if (is_v8(d, s)) {
		/* Grouped by v8_names's name; no retained bytes (heapdb-analyze
		 * reads the databases of HPROF dumps only). */
		hf_status st = v8_names(d, s);
		if (st)
			return st;
		char *sql = sqlite3_mprintf("CREATE TEMP TABLE h_%s AS SELECT v.name AS name, count(*) AS n,"
		                            " sum(n.size) AS bytes, NULL AS retained FROM %s.node AS n"
		                            " JOIN temp.vn_%s AS v ON v.identifier = n.identifier AND v.dump = n.dump"
		                            " GROUP BY v.name",
		                            s, s, s);
		if (!sql)
			return hf_error_set(d->err, HF_ERR_NOMEM, "out of memory");
		st = exec(d, s, "cannot count the nodes by name", sql);
		sqlite3_free(sql);
		return st;
	}
	char load[256] = "";
	if (has_table(d, s, "hprof_load_class"))
		snprintf(load, sizeof load,
		         "(SELECT ln.data FROM %s.hprof_load_class AS l JOIN %s.strings AS ln"
		         " ON ln.stringid = l.java_name WHERE l.class = h.class AND h.class <> 0 LIMIT 1),",
		         s, s);
	/* An object whose immediate dominator is of its own class is inside
	 * that one's retained size already: counted once, from the top. */
	char *retained = analysed
		? sqlite3_mprintf("sum(CASE WHEN a.reachable = 1 AND NOT coalesce(dn.class = n.class AND"
		                  " dn.nodetypeid = n.nodetypeid, 0) THEN a.retained_size ELSE 0 END)"
		                  " AS retained FROM %s.node AS n"
		                  " JOIN %s.node_analysis AS a ON a.identifier = n.identifier AND a.dump = n.dump"
		                  " LEFT JOIN %s.node AS dn ON dn.identifier = a.dominator AND dn.dump = a.dump",
		                  s, s, s)
		: sqlite3_mprintf("NULL AS retained FROM %s.node AS n", s);
	if (!retained)
		return hf_error_set(d->err, HF_ERR_NOMEM, "out of memory");
	char *sql;
	if (has_table(d, s, "node_class") && has_table(d, s, "strings"))
		sql = sqlite3_mprintf(
			"CREATE TEMP TABLE h_%s AS "
			"SELECT coalesce(cn.data, %s CASE h.kind WHEN 1 THEN 'java.lang.Class' END,"
			"                printf('<class 0x%%x>', h.class)) AS name,"
			"       sum(h.n) AS n, sum(h.bytes) AS bytes, sum(h.retained) AS retained "
			"FROM (SELECT n.dump AS dump, n.class AS class,"
			"             CASE WHEN n.class = 0 THEN n.nodetypeid ELSE 0 END AS kind,"
			"             count(*) AS n, sum(n.size) AS bytes, %s"
			"      GROUP BY n.dump, n.class, kind) AS h "
			"LEFT JOIN %s.node_class AS c ON c.node_identifier = h.class AND c.dump = h.dump "
			"LEFT JOIN %s.strings AS cn ON cn.stringid = c.java_name "
			"GROUP BY name",
			s, load, retained, s, s);
	else
		sql = sqlite3_mprintf("CREATE TEMP TABLE h_%s AS "
		                      "SELECT printf('<class 0x%%x>', n.class) AS name, count(*) AS n,"
		                      " sum(n.size) AS bytes, %s GROUP BY name",
		                      s, retained);
	sqlite3_free(retained);
	if (!sql)
		return hf_error_set(d->err, HF_ERR_NOMEM, "out of memory");
	hf_status st = exec(d, s, "cannot count the nodes by class", sql);
	sqlite3_free(sql);
	return st;
}

/* Runs a query of both databases and hands each row to fn; stops at the
 * first error. */
static hf_status each_row(differ *d, const char *sql, hf_status (*fn)(sqlite3_stmt *, void *),
                          void *ctx)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(d->db, sql, -1, &q, NULL) != SQLITE_OK)
		return sql_error(d, NULL, "cannot compare them");
	int rc;
	hf_status st = HF_OK;
	while (!st && (rc = sqlite3_step(q)) == SQLITE_ROW)
		st = fn(q, ctx);
	if (!st && rc != SQLITE_DONE)
		st = sql_error(d, NULL, "cannot compare them");
	sqlite3_finalize(q);
	if (st == HF_ERR_NOMEM)
		hf_error_set(d->err, HF_ERR_NOMEM, "out of memory");
	return st;
}

/* Room for element n of an array whose capacity is 16, then doubles: only
 * reaching the capacity (16, 32, ...) reallocates. */
static void *grow(void *p, size_t n, size_t sz)
{
	if (n != 0 && (n < 16 || (n & (n - 1))))
		return p;
	return realloc(p, (n ? n * 2 : 16) * sz);
}

static char *text_dup(sqlite3_stmt *q, int col)
{
	const unsigned char *t = sqlite3_column_text(q, col);
	return strdup(t ? (const char *)t : "");
}

static hf_status class_row(sqlite3_stmt *q, void *ctx)
{
	hf_diff *r = ctx;
	hf_diff_class *c = grow(r->classes, r->nclasses, sizeof *c);
	if (!c)
		return HF_ERR_NOMEM;
	r->classes = c;
	c += r->nclasses;
	if (!(c->name = text_dup(q, 0)))
		return HF_ERR_NOMEM;
	r->nclasses++;
	c->count_before = sqlite3_column_int64(q, 1);
	c->bytes_before = sqlite3_column_int64(q, 2);
	c->count_after = sqlite3_column_int64(q, 3);
	c->bytes_after = sqlite3_column_int64(q, 4);
	c->retained_before = r->retained ? sqlite3_column_int64(q, 5) : -1;
	c->retained_after = r->retained ? sqlite3_column_int64(q, 6) : -1;
	return HF_OK;
}

static hf_status root_row(sqlite3_stmt *q, void *ctx)
{
	hf_diff *r = ctx;
	hf_diff_root *k = grow(r->roots, r->nroots, sizeof *k);
	if (!k)
		return HF_ERR_NOMEM;
	r->roots = k;
	k += r->nroots;
	if (!(k->kind = text_dup(q, 0)))
		return HF_ERR_NOMEM;
	r->nroots++;
	k->before = sqlite3_column_int64(q, 1);
	k->after = sqlite3_column_int64(q, 2);
	return HF_OK;
}

static hf_status object_row(sqlite3_stmt *q, void *ctx)
{
	hf_diff *r = ctx;
	hf_diff_object *o = grow(r->new_objects, r->nnew, sizeof *o);
	if (!o)
		return HF_ERR_NOMEM;
	r->new_objects = o;
	o += r->nnew;
	if (!(o->class_name = text_dup(q, 3)))
		return HF_ERR_NOMEM;
	r->nnew++;
	o->identifier = (uint64_t)sqlite3_column_int64(q, 0);
	o->dump = sqlite3_column_int64(q, 1);
	o->size = sqlite3_column_int64(q, 2);
	return HF_OK;
}

static hf_status totals_row(sqlite3_stmt *q, void *ctx)
{
	hf_diff *r = ctx;
	r->objects_before = sqlite3_column_int64(q, 0);
	r->bytes_before = sqlite3_column_int64(q, 1);
	r->objects_after = sqlite3_column_int64(q, 2);
	r->bytes_after = sqlite3_column_int64(q, 3);
	return HF_OK;
}

/* Root kinds of schema s, or none when it has no hprof_gc_root table. */
static const char *roots_of(differ *d, const char *s, char *buf, size_t size)
{
	if (has_table(d, s, "hprof_gc_root"))
		snprintf(buf, size, "SELECT kind, count(*) AS n FROM %s.hprof_gc_root GROUP BY kind", s);
	else
		snprintf(buf, size, "SELECT NULL AS kind, 0 AS n WHERE 0");
	return buf;
}

static hf_status compute(differ *d, const char *before, const char *after, size_t top, hf_diff *r)
{
	hf_status st;
	if ((st = attach(d, before, "a")) || (st = attach(d, after, "b")))
		return st;
	int v8a = is_v8(d, "a"), v8b = is_v8(d, "b");
	r->mixed = v8a == v8b ? 0 : v8a ? 1 : 2;
	/* Retained bytes only when both hold the analysis. */
	r->retained = has_table(d, "a", "node_analysis") && has_table(d, "b", "node_analysis");
	if ((st = histogram(d, "a", r->retained)) || (st = histogram(d, "b", r->retained)))
		return st;
	st = each_row(d,
		"SELECT name, sum(nb), sum(bb), sum(na), sum(ba), sum(rb), sum(ra) FROM ("
		"  SELECT name, n AS nb, bytes AS bb, 0 AS na, 0 AS ba, retained AS rb, 0 AS ra FROM temp.h_a"
		"  UNION ALL SELECT name, 0, 0, n, bytes, 0, retained FROM temp.h_b)"
		" GROUP BY name ORDER BY sum(ba) - sum(bb) DESC, sum(na) - sum(nb) DESC, name",
		class_row, r);
	if (st)
		return st;
	st = each_row(d,
		"SELECT (SELECT count(*) FROM a.node), (SELECT coalesce(sum(size), 0) FROM a.node),"
		"       (SELECT count(*) FROM b.node), (SELECT coalesce(sum(size), 0) FROM b.node)",
		totals_row, r);
	if (st)
		return st;
	char ra[128], rb[128];
	roots_of(d, "a", ra, sizeof ra);
	roots_of(d, "b", rb, sizeof rb);
	char *sql = sqlite3_mprintf("SELECT kind, sum(nb), sum(na) FROM ("
	                            "  SELECT kind, n AS nb, 0 AS na FROM (%s)"
	                            "  UNION ALL SELECT kind, 0, n FROM (%s))"
	                            " GROUP BY kind ORDER BY kind", ra, rb);
	if (!sql)
		return hf_error_set(d->err, HF_ERR_NOMEM, "out of memory");
	st = each_row(d, sql, root_row, r);
	sqlite3_free(sql);
	if (st || top == 0)
		return st;
	/* The largest objects of b that a does not hold: a bounded sort (LIMIT)
	 * over b, a key lookup in a per object. */
	char names[512] = "NULL";
	if (is_v8(d, "b"))
		snprintf(names, sizeof names,
		         "(SELECT v.name FROM temp.vn_b AS v WHERE v.identifier = n.identifier AND v.dump = n.dump)");
	else if (has_table(d, "b", "node_class") && has_table(d, "b", "strings"))
		snprintf(names, sizeof names,
		         "(SELECT s.data FROM b.node_class AS c JOIN b.strings AS s ON s.stringid = c.java_name"
		         " WHERE c.node_identifier = n.class AND c.dump = n.dump)");
	sql = sqlite3_mprintf(
		"SELECT n.identifier, n.dump, n.size, coalesce(%s, printf('<class 0x%%x>', n.class))"
		" FROM (SELECT * FROM b.node AS n"
		"       WHERE NOT EXISTS (SELECT 1 FROM a.node AS o"
		"                         WHERE o.identifier = n.identifier AND o.dump = n.dump)"
		"       ORDER BY n.size DESC, n.identifier LIMIT %lld) AS n"
		" ORDER BY n.size DESC, n.identifier",
		names, (long long)top);
	if (!sql)
		return hf_error_set(d->err, HF_ERR_NOMEM, "out of memory");
	st = each_row(d, sql, object_row, r);
	sqlite3_free(sql);
	return st;
}

hf_status hf_diff_compute(const char *before, const char *after, size_t new_objects, hf_diff *out,
                          hf_error *err)
{
	memset(out, 0, sizeof *out);
	differ d = { NULL, err, before, after };
	if (sqlite3_open_v2(":memory:", &d.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
		sqlite3_close(d.db);
		return hf_error_set(err, HF_ERR_NOMEM, "SQLite: cannot open a connection");
	}
	hf_status st = compute(&d, before, after, new_objects, out);
	sqlite3_close(d.db);
	if (st)
		hf_diff_free(out);
	return st;
}

void hf_diff_free(hf_diff *d)
{
	for (size_t i = 0; i < d->nclasses; i++)
		free((char *)d->classes[i].name);
	for (size_t i = 0; i < d->nroots; i++)
		free((char *)d->roots[i].kind);
	for (size_t i = 0; i < d->nnew; i++)
		free((char *)d->new_objects[i].class_name);
	free(d->classes);
	free(d->roots);
	free(d->new_objects);
	memset(d, 0, sizeof *d);
}
