/*
 * SQLite writer ("heap database").  The core tables are fixed (see
 * schema/heapdb.sql); one table per declared node subtype and per extra
 * record type is created from the declaration itself, so any declared type
 * passes through.  The database is built under a temporary name with the
 * journal off (a failed build is deleted, never reused) and renamed on
 * success; indexes are filled after the bulk load ("the core indexes").
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <sqlite3.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>


/* ---- row batches ------------------------------------------------------------
 * Rows of one table gathered and inserted together, BATCH_ROWS at most: one
 * sqlite3_step per row cost a fifth of the load of the 1 GB benchmark
 * dump's 17.9 M edges, and the load without indexes took 43.8 s with the
 * 10.1 M nodes, 6.5 M subtype rows and 2.5 M strings one by one, 36.4 s in
 * batches of 32 bound to "INSERT ... VALUES (?,...),(?,...),...".
 * A batch now goes in with one statement, INSERT INTO t SELECT * FROM
 * temp."hf-rows-N", a virtual table of N columns whose rows are the cells
 * of the batch being flushed (see "the batch as a table"): no variables to
 * bind, no VALUES list to walk.  18 M rows of 6 integers into a table like
 * edge, measured alone: 9.7 s and 8.2 s bound 32 to a statement, 7.7 s and
 * 5.9 s through the virtual table; the load of the 1 GB dump without
 * indexes and analysis, alternated runs: 25.1 s and 22.1 s -> 19.5 s and
 * 19.2 s, the same database table by table.  (The '-' keeps the name apart
 * from every table a declaration can make, which an unqualified name would
 * otherwise find after the temp schema's.)
 * The cells are hf_values whose texts point into the queue block being
 * inserted, so every batch is flushed before the block is let go
 * (run_block), and dropped when the block fails.  A flush counts the rows
 * its statement ignored (key already there).  Whatever the input declares,
 * the tables' batches hold at most BATCH_CELLS cells together: a table met
 * past that inserts a row at a time. */
#define BATCH_ROWS 256
#define BATCH_CELLS 65536

typedef struct row_batch {
	char *head;              /* "INSERT [OR IGNORE] INTO \"t\" SELECT * FROM temp.\"hf-rows-N\"" */
	unsigned ncols, max_rows, n;
	bool or_ignore;
	hf_field_kind *kinds;    /* [ncols] */
	hf_value *cells;         /* [max_rows * ncols], made at the first row */
	sqlite3_stmt *insert;    /* made at the first flush */
	hf_rowsort *keys;        /* set: the index keys of the rows that go in, gathered */
	unsigned char key_col[4];/* the cells of a row that make its key, in order */
} row_batch;

typedef struct db_type {
	const hf_type *type;   /* as declared (pointer identity) */
	char *table;
	char **fields;         /* copies of field names (declarations may be transient) */
	hf_field_kind *kinds;
	int *indexed;
	size_t nfields;
	int id;
	hf_type_class cls;
	sqlite3_stmt *insert;
	row_batch rows;        /* node subtypes: rows of the subtype table */
} db_type;

typedef struct heapdb {
	hf_sink sink;
	sqlite3 *db;
	char *path, *tmp;
	hf_heapdb_options opt;
	hf_dropbehind behind;        /* the database past the dirty limit (dropbehind.c) */
	int analysis_records;        /* heapfmt.node_analysis declared: computed, not copied */
	sqlite3_stmt *ins_meta;
	/* The writer thread (see "two threads" below). */
	hf_queue queue;
	hf_buf qvals;                /* the thread's hf_value scratch */
	db_type *types;
	size_t ntypes, captypes;
	size_t ntables;            /* node and record types declared (HEAPDB_MAX_TABLES) */
	hf_map type_by_ptr;          /* hf_type pointer -> index in types (find_type) */
	hf_map type_by_table;        /* hash of (class, table) -> index in types */
	uint64_t hash_seed;          /* of table_hash */
	uint64_t duplicate_nodes, duplicate_strings;
	uint64_t strings_given;      /* rows given to strings, duplicates included */
	uint64_t edge_seq;
	/* Node rows and strings in batches (see "row batches").  A node whose
	 * (dump, id) is above every one inserted so far (high_dump, high_id) is
	 * new for sure and joins the batch; any other (one in 16 of the 1 GB
	 * benchmark dump, whose ids mostly ascend) is inserted on its own after
	 * the batch, and that insert says whether it is a duplicate, whose
	 * subtype row must not be written: the first object of an id is kept. */
	row_batch node_rows, string_rows, edge_rows;
	size_t batch_cells;          /* cells of all batches (BATCH_CELLS) */
	row_batch *flushing;         /* the batch temp."hf-rows-N" reads, during a flush */
	unsigned flush_rows;
	int have_high;
	uint32_t high_dump;
	uint64_t high_id;
	/* Presorted indexes (see "the core indexes"): node and edge rows go in
	 * through imposters, their index keys are gathered here. */
	bool presorted;              /* keys gathered, the indexes not filled yet */
	bool presorted_made;         /* the core indexes were made with the tables */
	hf_rowsort node_keys, edge_keys;
	/* With the analysis: the graph as it went into the tables (see "the
	 * graph for the analysis"). */
	bool graph;                  /* being gathered */
	bool graph_dump_set;
	uint32_t graph_dump;
	hf_rowsort graph_nodes, graph_edges;
} heapdb;

static const char core_ddl[] =
	"CREATE TABLE metadata (key TEXT NOT NULL, value TEXT NOT NULL);\n"
	"CREATE TABLE node_types (nodetypeid INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
	" table_name TEXT NOT NULL, doc TEXT);\n"
	"CREATE TABLE edge_types (edgetypeid INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
	" label TEXT NOT NULL, doc TEXT);\n"
	"CREATE TABLE record_types (name TEXT PRIMARY KEY, table_name TEXT NOT NULL UNIQUE,"
	" doc TEXT);\n"
	"CREATE TABLE type_fields (type_class TEXT NOT NULL, type_name TEXT NOT NULL,"
	" position INTEGER NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, doc TEXT,"
	" PRIMARY KEY (type_class, type_name, position));\n"
	"CREATE TABLE node (identifier INTEGER NOT NULL, dump INTEGER NOT NULL,"
	" nodetypeid INTEGER NOT NULL, class INTEGER NOT NULL, size INTEGER NOT NULL,"
	" heap INTEGER NOT NULL, PRIMARY KEY (identifier, dump)) WITHOUT ROWID;\n"
	"CREATE TABLE edge (source INTEGER NOT NULL, dump INTEGER NOT NULL, seq INTEGER NOT NULL,"
	" edgetypeid INTEGER NOT NULL, dest INTEGER NOT NULL, label INTEGER NOT NULL,"
	" PRIMARY KEY (source, dump, seq)) WITHOUT ROWID;\n"
	"CREATE TABLE strings (stringid INTEGER PRIMARY KEY, data TEXT NOT NULL);\n";

static const char core_indexes[] =
	"CREATE INDEX edge_by_dest ON edge (dest, dump);\n"
	"CREATE INDEX node_by_class ON node (class, nodetypeid);\n";

/* ---- the core indexes -------------------------------------------------------
 * edge_by_dest and node_by_class are made empty with the tables and filled
 * at the end from sorted keys (presorted.c): the rows of node and edge go
 * in through imposter tables over the tables' own b-trees, which SQLite
 * does not carry into the indexes, and the keys of the rows that went in
 * are sorted beside the load (hf_rowsort) and appended to the indexes by
 * db_finish through imposters over the indexes' b-trees.  Where imposters
 * cannot be made, the indexes are dropped again and created after the load
 * (CREATE INDEX). */
static const struct {
	const char *object, *imposter, *decl;
} core_imposters[] = {
	{ "node", "hf-imp-node", "identifier, dump, nodetypeid, class, size, heap,"
	  " PRIMARY KEY (identifier, dump)" },
	{ "edge", "hf-imp-edge", "source, dump, seq, edgetypeid, dest, label,"
	  " PRIMARY KEY (source, dump, seq)" },
	{ "node_by_class", "hf-imp-node_by_class", "class, nodetypeid, identifier, dump,"
	  " PRIMARY KEY (class, nodetypeid, identifier, dump)" },
	{ "edge_by_dest", "hf-imp-edge_by_dest", "dest, dump, source, seq,"
	  " PRIMARY KEY (dest, dump, source, seq)" },
};

int hf_sqlite_damaged(int code)
{
	return (code & 0xFF) == SQLITE_CORRUPT || (code & 0xFF) == SQLITE_NOTADB;
}

const char *hf_sqlite_hint(sqlite3 *db)
{
	return sqlite3_extended_errcode(db) == SQLITE_READONLY_ROLLBACK
	       ? " (a write to it was cut short and left its rollback journal beside it: open it once for"
	         " writing to roll that back, as heapdb-analyze DB or sqlite3 DB 'PRAGMA quick_check' do)"
	       : "";
}

/* A write that failed (a full disk, a file-size limit, an I/O error): the
 * database or SQLite's temporary files, which it keeps in TMPDIR (sorting,
 * CREATE INDEX), with the system's reason when SQLite has it. */
static hf_status db_write_fail(heapdb *w, hf_error *err, int code)
{
	int sys = sqlite3_system_errno(w->db);
	/* SQLite reads back what it wrote (its pages, its sort files). */
	int reading = code == SQLITE_IOERR_READ || code == SQLITE_IOERR_SHORT_READ;
	return hf_error_set(err, HF_ERR_IO, "cannot %s %s or SQLite's temporary files in %s: %s",
	                    reading ? "read back" : "write", w->path ? w->path : w->tmp, hf_sqlite_tmpdir(),
	                    sys ? strerror(sys) : sqlite3_errstr(code));
}

/* A failed call that returned rc (0: the connection's last error). */
static hf_status db_fail_rc(heapdb *w, hf_error *err, const char *what, int rc)
{
	int code = sqlite3_errcode(w->db);
	/* sqlite3_db_cacheflush returns its error without making it the
	 * connection's ("not an error"). */
	if (rc && (code == SQLITE_OK || code == SQLITE_DONE || code == SQLITE_ROW))
		code = rc;
	if ((code & 0xFF) == SQLITE_FULL || (code & 0xFF) == SQLITE_IOERR)
		return db_write_fail(w, err, code);
	hf_status st = (code & 0xFF) == SQLITE_NOMEM ? HF_ERR_NOMEM : HF_ERR_IO;
	return hf_error_set(err, st, "SQLite: %s: %s", what,
	                    code == sqlite3_errcode(w->db) ? sqlite3_errmsg(w->db) : sqlite3_errstr(code));
}

static hf_status db_fail(heapdb *w, hf_error *err, const char *what)
{
	return db_fail_rc(w, err, what, 0);
}

static hf_status exec(heapdb *w, const char *sql, hf_error *err)
{
	char *msg = NULL;
	int rc = sqlite3_exec(w->db, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		hf_status st = (rc & 0xFF) == SQLITE_FULL || (rc & 0xFF) == SQLITE_IOERR
		                       ? db_write_fail(w, err, rc)
		                       : hf_error_set(err, (rc & 0xFF) == SQLITE_NOMEM ? HF_ERR_NOMEM : HF_ERR_IO,
		                                      "SQLite: %s", msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return st;
	}
	return HF_OK;
}

static hf_status prepare(heapdb *w, const char *sql, sqlite3_stmt **st, hf_error *err)
{
	if (sqlite3_prepare_v3(w->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
		return db_fail(w, err, "prepare");
	return HF_OK;
}

static hf_status step(heapdb *w, sqlite3_stmt *st, hf_error *err)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_fail(w, err, "insert");
	return HF_OK;
}

/* or_ignore: a row whose key is there already is skipped (and counted),
 * else it is an error. */
static bool batch_init(row_batch *b, const char *table, unsigned ncols, const hf_field_kind *kinds,
                       bool or_ignore)
{
	memset(b, 0, sizeof *b);
	b->ncols = ncols ? ncols : 1;
	b->max_rows = BATCH_ROWS;
	b->or_ignore = or_ignore;
	size_t hl = strlen(table) + 80;
	b->head = malloc(hl);
	b->kinds = calloc(b->ncols, sizeof *b->kinds);
	if (!b->head || !b->kinds)
		return false;
	snprintf(b->head, hl, "INSERT%s INTO \"%s\" SELECT * FROM temp.\"hf-rows-%u\"",
	         or_ignore ? " OR IGNORE" : "", table, b->ncols);
	if (kinds)
		memcpy(b->kinds, kinds, ncols * sizeof *kinds);
	return true;
}

static void batch_free(row_batch *b)
{
	sqlite3_finalize(b->insert);
	free(b->head);
	free(b->kinds);
	free(b->cells);
	memset(b, 0, sizeof *b);
}

/* The index keys of the rows of a batch that went in (b->keys): all of
 * them, or none (a node inserted on its own that was a duplicate; a batch
 * of several nodes is made only of nodes new for sure, see sync_node). */
static hf_status gather_keys(const row_batch *b, unsigned k, unsigned done, hf_error *err)
{
	if (done != k)
		return hf_error_set(err, HF_ERR_IO, "SQLite: %u of %u rows went into a table", done, k);
	hf_status st = HF_OK;
	const unsigned char *kc = b->key_col;
	const hf_value *c = b->cells;
	for (unsigned r = 0; r < k && !st; r++, c += b->ncols)
		st = hf_rowsort_add(b->keys, c[kc[0]].i, c[kc[1]].i, c[kc[2]].i, c[kc[3]].i, err);
	return st;
}

/* Inserts the gathered rows; adds to *ignored the rows the statement
 * ignored. */
static hf_status batch_flush(heapdb *w, row_batch *b, uint64_t *ignored, hf_error *err)
{
	unsigned k = b->n;
	b->n = 0;
	if (!k)
		return HF_OK;
	if (!b->insert) {
		char sql[96];
		snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE IF NOT EXISTS temp.\"hf-rows-%u\" USING hf_rows(%u)",
		         b->ncols, b->ncols);
		hf_status st = exec(w, sql, err);
		if (!st)
			st = prepare(w, b->head, &b->insert, err);
		if (st)
			return st;
	}
	w->flushing = b;
	w->flush_rows = k;
	hf_status rc = step(w, b->insert, err);
	w->flushing = NULL;
	if (rc)
		return rc;
	int done = sqlite3_changes(w->db);
	if (!b->or_ignore && (done < 0 || (unsigned)done != k))
		return hf_error_set(err, HF_ERR_IO, "SQLite: %d of %u rows went into a table", done, k);
	if (ignored && done >= 0 && (unsigned)done < k)
		*ignored += k - (unsigned)done;
	if (b->keys && done > 0)
		return gather_keys(b, k, (unsigned)done, err);
	return HF_OK;
}

/* Room for a row (flushing first when the batch is full): its cells, which
 * the caller fills. */
static hf_status batch_row(heapdb *w, row_batch *b, uint64_t *ignored, hf_value **cells,
                           hf_error *err)
{
	if (!b->cells) {
		if (w->batch_cells + (size_t)b->max_rows * b->ncols > BATCH_CELLS)
			b->max_rows = 1;
		b->cells = calloc((size_t)b->max_rows * b->ncols, sizeof *b->cells);
		if (!b->cells)
			return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
		w->batch_cells += (size_t)b->max_rows * b->ncols;
	}
	if (b->n == b->max_rows) {
		hf_status st = batch_flush(w, b, ignored, err);
		if (st)
			return st;
	}
	*cells = &b->cells[(size_t)b->n++ * b->ncols];
	return HF_OK;
}

static inline hf_value int_cell(int64_t i)
{
	hf_value v;
	memset(&v, 0, sizeof v);
	v.i = i;
	v.present = 1;
	return v;
}

/* After a failure: the cells point into a block that is let go. */
static void drop_batches(heapdb *w)
{
	w->node_rows.n = w->string_rows.n = w->edge_rows.n = 0;
	for (size_t i = 0; i < w->ntypes; i++)
		w->types[i].rows.n = 0;
}

/* Everything gathered into the database: before the queue block the cells
 * point into is let go. */
static hf_status flush_batches(heapdb *w, hf_error *err)
{
	hf_status st = batch_flush(w, &w->node_rows, &w->duplicate_nodes, err);
	if (!st)
		st = batch_flush(w, &w->string_rows, &w->duplicate_strings, err);
	if (!st)
		st = batch_flush(w, &w->edge_rows, NULL, err);
	for (size_t i = 0; i < w->ntypes && !st; i++)
		if (w->types[i].rows.n)
			st = batch_flush(w, &w->types[i].rows, NULL, err);
	return st;
}

/* Identifiers from declarations may come from untrusted files (NDJSON). */
static bool valid_ident(const char *s)
{
	if (!s || !*s || strlen(s) > 64)
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
		      (p != s && *p >= '0' && *p <= '9')))
			return false;
	return true;
}

static void table_for_record(const char *name, char *out, size_t size)
{
	size_t o = 0;
	for (const char *p = name; *p && o + 1 < size; p++)
		out[o++] = (*p == '.' || *p == '-') ? '_' : *p;
	out[o] = 0;
}

static bool find_table(heapdb *w, const char *table)
{
	for (size_t i = 0; i < w->ntypes; i++)
		if (w->types[i].cls == HF_TYPE_RECORD && !strcmp(w->types[i].table, table))
			return true;
	return false;
}

/* For the NDJSON reader, which checks a declaration's names before it comes
 * here (internal.h). */
bool hf_heapdb_valid_name(const char *s) { return valid_ident(s); }
void hf_heapdb_record_table(const char *name, char *out, size_t size)
{
	table_for_record(name, out, size);
}

/* type_by_table's key for (cls, table): a hash, so a key may stand for
 * more than one pair; the pairs of one hash take the keys after it in turn
 * (table_slot), each checked against the real table. */
static uint64_t table_hash(const heapdb *w, hf_type_class cls, const char *table)
{
	/* FNV-1a from a random start: no input can make its names collide. */
	return hf_fnv1a(HF_FNV_BASIS ^ w->hash_seed ^ (uint64_t)cls, table, strlen(table));
}

/* The first declared type of (cls, table), or NULL; *free_key: the key a
 * new one would take. */
static db_type *table_slot(heapdb *w, hf_type_class cls, const char *table, uint64_t *free_key)
{
	uint64_t k = table_hash(w, cls, table);
	for (uint64_t *i; (i = hf_map_get(&w->type_by_table, k)); k++) {
		db_type *d = &w->types[*i];
		if (d->cls == cls && !strcmp(d->table, table))
			return d;
	}
	if (free_key)
		*free_key = k;
	return NULL;
}

/* The type of a node or record: looked up, not searched, since there is one
 * lookup per node and record and a stream may declare thousands of types.
 * The first type declared with that hf_type (pointer identity), else the
 * first of its class with its table: a caller may rebuild its hf_type. */
static db_type *find_type(heapdb *w, const hf_type *t)
{
	uint64_t *i = hf_map_get(&w->type_by_ptr, (uint64_t)(uintptr_t)t);
	if (i)
		return &w->types[*i];
	return table_slot(w, t->cls, t->table ? t->table : "", NULL);
}

/* Enters the last declared type in find_type's maps; false when out of
 * memory.  An earlier type of the same pointer or table keeps its entry. */
static bool index_type(heapdb *w)
{
	size_t i = w->ntypes - 1;
	db_type *d = &w->types[i];
	uint64_t k;
	if (!hf_map_get(&w->type_by_ptr, (uint64_t)(uintptr_t)d->type) &&
	    !hf_map_put(&w->type_by_ptr, (uint64_t)(uintptr_t)d->type, i))
		return false;
	if (!table_slot(w, d->cls, d->table, &k) && !hf_map_put(&w->type_by_table, k, i))
		return false;
	return true;
}

static hf_status bind_value(heapdb *w, sqlite3_stmt *st, int col, hf_field_kind kind,
                            const hf_value *v, hf_error *err)
{
	int rc;
	if (!v->present)
		rc = sqlite3_bind_null(st, col);
	else switch (kind) {
	case HF_FIELD_INT: rc = sqlite3_bind_int64(st, col, v->i); break;
	case HF_FIELD_ID:
	case HF_FIELD_STRREF: rc = sqlite3_bind_int64(st, col, (sqlite3_int64)v->u); break;
	case HF_FIELD_REAL: rc = sqlite3_bind_double(st, col, v->d); break;
	case HF_FIELD_TEXT:
	case HF_FIELD_JSON:
		rc = v->s ? sqlite3_bind_text(st, col, v->s, (int)v->n, SQLITE_STATIC)
		          : sqlite3_bind_null(st, col);
		break;
	default: rc = sqlite3_bind_null(st, col);
	}
	if (rc != SQLITE_OK)
		return db_fail(w, err, "bind");
	return HF_OK;
}

/* ---- the batch as a table -----------------------------------------------------
 * Module hf_rows(N): a virtual table of N columns c0 .. cN-1, made once
 * for each width in the temp schema as "hf-rows-N": its rows are those of
 * w->flushing, the batch being flushed, as bind_value would bind them.
 * Only batch_flush reads it, with one full scan. */
typedef struct rows_vtab {
	sqlite3_vtab base;
	heapdb *w;
	unsigned ncols;
} rows_vtab;

typedef struct rows_cursor {
	sqlite3_vtab_cursor base;
	unsigned row;
} rows_cursor;

static int rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **errmsg)
{
	(void)errmsg;
	char *end = NULL;
	unsigned long n = argc == 4 ? strtoul(argv[3], &end, 10) : 0;
	if (n == 0 || n > 2000 || !end || *end)
		return SQLITE_ERROR;
	hf_buf q;
	hf_buf_init(&q);
	bool ok = hf_buf_append(&q, "CREATE TABLE x(", 15);
	for (unsigned long c = 0; c < n && ok; c++)
		ok = hf_buf_printf(&q, "%sc%lu", c ? "," : "", c);
	ok = ok && hf_buf_append(&q, ")", 2);
	int rc = ok ? sqlite3_declare_vtab(db, (const char *)q.data) : SQLITE_NOMEM;
	hf_buf_free(&q);
	if (rc != SQLITE_OK)
		return rc;
	rows_vtab *v = sqlite3_malloc(sizeof *v);
	if (!v)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof *v);
	v->w = aux;
	v->ncols = (unsigned)n;
	*out = &v->base;
	return SQLITE_OK;
}

static int rows_disconnect(sqlite3_vtab *v)
{
	sqlite3_free(v);
	return SQLITE_OK;
}

static int rows_best_index(sqlite3_vtab *v, sqlite3_index_info *info)
{
	(void)v;
	info->estimatedCost = BATCH_ROWS;
	info->estimatedRows = BATCH_ROWS;
	return SQLITE_OK;
}

static int rows_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	(void)v;
	rows_cursor *c = sqlite3_malloc(sizeof *c);
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof *c);
	*out = &c->base;
	return SQLITE_OK;
}

static int rows_close(sqlite3_vtab_cursor *c)
{
	sqlite3_free(c);
	return SQLITE_OK;
}

static int rows_filter(sqlite3_vtab_cursor *c, int idx, const char *idxstr, int argc,
                       sqlite3_value **argv)
{
	(void)idx; (void)idxstr; (void)argc; (void)argv;
	((rows_cursor *)c)->row = 0;
	return SQLITE_OK;
}

static int rows_next(sqlite3_vtab_cursor *c)
{
	((rows_cursor *)c)->row++;
	return SQLITE_OK;
}

static int rows_eof(sqlite3_vtab_cursor *c)
{
	const rows_vtab *v = (const rows_vtab *)c->pVtab;
	const row_batch *b = v->w->flushing;
	return !b || b->ncols != v->ncols || ((rows_cursor *)c)->row >= v->w->flush_rows;
}

static int rows_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col)
{
	const rows_vtab *v = (const rows_vtab *)c->pVtab;
	const row_batch *b = v->w->flushing;
	const hf_value *x = &b->cells[(size_t)((rows_cursor *)c)->row * b->ncols + (unsigned)col];
	if (!x->present) {
		sqlite3_result_null(ctx);
		return SQLITE_OK;
	}
	switch (b->kinds[col]) {
	case HF_FIELD_INT: sqlite3_result_int64(ctx, x->i); break;
	case HF_FIELD_ID:
	case HF_FIELD_STRREF: sqlite3_result_int64(ctx, (sqlite3_int64)x->u); break;
	case HF_FIELD_REAL: sqlite3_result_double(ctx, x->d); break;
	case HF_FIELD_TEXT:
	case HF_FIELD_JSON:
		if (x->s)
			sqlite3_result_text(ctx, x->s, (int)x->n, SQLITE_STATIC);
		else
			sqlite3_result_null(ctx);
		break;
	default: sqlite3_result_null(ctx);
	}
	return SQLITE_OK;
}

static int rows_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *rowid)
{
	*rowid = ((rows_cursor *)c)->row;
	return SQLITE_OK;
}

static const sqlite3_module rows_module = {
	.iVersion = 1,
	.xCreate = rows_connect,
	.xConnect = rows_connect,
	.xBestIndex = rows_best_index,
	.xDisconnect = rows_disconnect,
	.xDestroy = rows_disconnect,
	.xOpen = rows_open,
	.xClose = rows_close,
	.xFilter = rows_filter,
	.xNext = rows_next,
	.xEof = rows_eof,
	.xColumn = rows_column,
	.xRowid = rows_rowid,
};

static const char *sql_type(hf_field_kind k)
{
	switch (k) {
	case HF_FIELD_REAL: return "REAL";
	case HF_FIELD_TEXT:
	case HF_FIELD_JSON: return "TEXT";
	default: return "INTEGER";
	}
}

/* Node and record types (their tables) a database may declare. */
#define HEAPDB_MAX_TABLES 4096

static hf_status db_declare(hf_sink *s, const hf_type *t, hf_error *err)
{
	heapdb *w = s->impl;
	hf_status qs = hf_queue_drain(&w->queue, err); /* w->types may move */
	if (qs)
		return qs;
	/* The analysis's records (hprof2ndjson --analysis) have a form of their
	 * own in a database, node_analysis and dump_analysis, as hprof2heapdb
	 * writes them: computed again from the graph at the end (the same
	 * analysis, so the same rows), the records dropped.  Only where the
	 * analysis can run: the GC roots' type came first. */
	if (t->cls == HF_TYPE_RECORD && !strcmp(t->name, hf_node_analysis_type.name) && find_table(w, "hprof_gc_root")) {
		w->analysis_records = 1;
		w->opt.analysis = 1;
		return HF_OK;
	}
	char table[80];
	if (t->cls == HF_TYPE_RECORD && !t->table)
		table_for_record(t->name, table, sizeof table);
	else
		snprintf(table, sizeof table, "%s", t->table ? t->table : "");
	if (t->cls != HF_TYPE_EDGE && !valid_ident(table))
		return hf_error_set(err, HF_ERR_FORMAT, "type %s: invalid table name '%s'", t->name, table);
	/* Each CREATE TABLE costs SQLite time in the size of the schema
	 * (sqlite3FkClearTriggerCache walks every table): 10,000 types of a
	 * 1 MB input took 6.8 s, and the time grows with their square.  No
	 * writer needs more than a few dozen. */
	if (t->cls != HF_TYPE_EDGE && w->ntables >= HEAPDB_MAX_TABLES)
		return hf_error_set(err, HF_ERR_LIMIT, "type %s: more than %d node and record types, each a table",
		                    t->name, HEAPDB_MAX_TABLES);
	/* A node type's table has node_identifier and dump beside its fields. */
	size_t max_fields = (size_t)sqlite3_limit(w->db, SQLITE_LIMIT_COLUMN, -1) - (t->cls == HF_TYPE_NODE ? 2 : 0);
	if (t->cls != HF_TYPE_EDGE && t->nfields > max_fields)
		return hf_error_set(err, HF_ERR_LIMIT, "type %s: %zu fields, more than a table holds (%zu)",
		                    t->name, t->nfields, max_fields);
	if (t->cls != HF_TYPE_EDGE)
		w->ntables++;
	if (t->cls != HF_TYPE_EDGE)
		for (size_t i = 0; i < t->nfields; i++)
			if (!valid_ident(t->fields[i].name))
				return hf_error_set(err, HF_ERR_FORMAT, "type %s: invalid field name '%s'",
				                    t->name, t->fields[i].name);
	if (w->ntypes == w->captypes) {
		size_t nc = w->captypes ? w->captypes * 2 : 32;
		db_type *nt = realloc(w->types, nc * sizeof *nt);
		if (!nt)
			return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
		w->types = nt;
		w->captypes = nc;
	}
	db_type *d = &w->types[w->ntypes];
	memset(d, 0, sizeof *d);
	d->type = t;
	d->cls = t->cls;
	d->id = t->id;
	d->table = strdup(table);
	d->nfields = t->cls == HF_TYPE_EDGE ? 0 : t->nfields;
	d->fields = calloc(d->nfields + 1, sizeof *d->fields);
	d->kinds = calloc(d->nfields + 1, sizeof *d->kinds);
	d->indexed = calloc(d->nfields + 1, sizeof *d->indexed);
	if (!d->table || !d->fields || !d->kinds || !d->indexed)
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < d->nfields; i++) {
		d->fields[i] = strdup(t->fields[i].name);
		if (!d->fields[i])
			return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
		d->kinds[i] = t->fields[i].kind;
		d->indexed[i] = t->fields[i].indexed;
	}
	w->ntypes++;
	if (!index_type(w))
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");

	hf_status st;
	sqlite3_stmt *ins = NULL;
	static const char *const cls_name[] = { "node", "edge", "record" };
	if (t->cls == HF_TYPE_NODE) {
		st = prepare(w, "INSERT INTO node_types VALUES (?,?,?,?)", &ins, err);
		if (st) return st;
		sqlite3_bind_int(ins, 1, t->id);
		sqlite3_bind_text(ins, 2, t->name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ins, 3, table, -1, SQLITE_TRANSIENT);
		if (t->doc) sqlite3_bind_text(ins, 4, t->doc, -1, SQLITE_TRANSIENT);
	} else if (t->cls == HF_TYPE_EDGE) {
		st = prepare(w, "INSERT INTO edge_types VALUES (?,?,?,?)", &ins, err);
		if (st) return st;
		sqlite3_bind_int(ins, 1, t->id);
		sqlite3_bind_text(ins, 2, t->name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ins, 3, t->label ? t->label : "none", -1, SQLITE_TRANSIENT);
		if (t->doc) sqlite3_bind_text(ins, 4, t->doc, -1, SQLITE_TRANSIENT);
	} else {
		st = prepare(w, "INSERT INTO record_types VALUES (?,?,?)", &ins, err);
		if (st) return st;
		sqlite3_bind_text(ins, 1, t->name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ins, 2, table, -1, SQLITE_TRANSIENT);
		if (t->doc) sqlite3_bind_text(ins, 3, t->doc, -1, SQLITE_TRANSIENT);
	}
	st = step(w, ins, err);
	sqlite3_finalize(ins);
	if (st)
		return st;
	if (d->nfields) {
		st = prepare(w, "INSERT INTO type_fields VALUES (?,?,?,?,?,?)", &ins, err);
		if (st) return st;
		for (size_t i = 0; i < d->nfields && !st; i++) {
			sqlite3_bind_text(ins, 1, cls_name[t->cls], -1, SQLITE_STATIC);
			sqlite3_bind_text(ins, 2, t->name, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(ins, 3, (sqlite3_int64)i);
			sqlite3_bind_text(ins, 4, t->fields[i].name, -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(ins, 5, hf_field_kind_name(t->fields[i].kind), -1, SQLITE_STATIC);
			if (t->fields[i].doc)
				sqlite3_bind_text(ins, 6, t->fields[i].doc, -1, SQLITE_TRANSIENT);
			else
				sqlite3_bind_null(ins, 6);
			st = step(w, ins, err);
		}
		sqlite3_finalize(ins);
		if (st)
			return st;
	}
	if (t->cls == HF_TYPE_EDGE)
		return HF_OK;

	/* The table and its insert statement. */
	hf_buf sql, q;
	hf_buf_init(&sql);
	hf_buf_init(&q);
	bool ok = hf_buf_printf(&sql, "CREATE TABLE \"%s\" (", table);
	ok = ok && hf_buf_printf(&q, "INSERT%s INTO \"%s\" VALUES (",
	                         t->cls == HF_TYPE_NODE ? " OR IGNORE" : "", table);
	if (t->cls == HF_TYPE_NODE) {
		ok = ok && hf_buf_printf(&sql, "node_identifier INTEGER NOT NULL, dump INTEGER NOT NULL");
		ok = ok && hf_buf_printf(&q, "?,?");
	}
	for (size_t i = 0; i < d->nfields; i++) {
		bool first = t->cls != HF_TYPE_NODE && i == 0;
		ok = ok && hf_buf_printf(&sql, "%s\"%s\" %s", first ? "" : ", ", d->fields[i],
		                         sql_type(d->kinds[i]));
		ok = ok && hf_buf_printf(&q, "%s?", first ? "" : ",");
	}
	if (t->cls == HF_TYPE_NODE)
		ok = ok && hf_buf_printf(&sql, ", PRIMARY KEY (node_identifier, dump)) WITHOUT ROWID");
	else if (d->nfields == 0) {
		/* SQLite wants a column: a record type without fields gets one that
		 * stays NULL (the reader selects only declared fields). */
		ok = ok && hf_buf_printf(&sql, "dummy INTEGER)");
		ok = ok && hf_buf_printf(&q, "NULL");
	}
	else
		ok = ok && hf_buf_printf(&sql, ")");
	ok = ok && hf_buf_printf(&q, ")") && hf_buf_append(&sql, "", 1) && hf_buf_append(&q, "", 1);
	if (!ok) {
		hf_buf_free(&sql);
		hf_buf_free(&q);
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	}
	st = exec(w, (const char *)sql.data, err);
	if (!st)
		st = prepare(w, (const char *)q.data, &d->insert, err);
	if (!st && t->cls == HF_TYPE_NODE) {
		/* Its rows: node_identifier, dump, then the fields. */
		if (!batch_init(&d->rows, table, (unsigned)d->nfields + 2, NULL, true))
			st = hf_error_set(err, HF_ERR_NOMEM, "out of memory");
		else {
			d->rows.kinds[0] = d->rows.kinds[1] = HF_FIELD_INT;
			memcpy(d->rows.kinds + 2, d->kinds, d->nfields * sizeof *d->kinds);
		}
	}
	hf_buf_free(&sql);
	hf_buf_free(&q);
	return st;
}

static hf_status db_metadata(hf_sink *s, const char *key, const char *value, hf_error *err)
{
	heapdb *w = s->impl;
	hf_status qs = hf_queue_drain(&w->queue, err);
	if (qs)
		return qs;
	sqlite3_bind_text(w->ins_meta, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(w->ins_meta, 2, value, -1, SQLITE_TRANSIENT);
	return step(w, w->ins_meta, err);
}

static hf_status sync_string(heapdb *w, uint64_t id, const char *utf8, size_t len, hf_error *err)
{
	hf_value *c;
	hf_status st = batch_row(w, &w->string_rows, &w->duplicate_strings, &c, err);
	if (st)
		return st;
	w->strings_given++;
	c[0] = int_cell((int64_t)id);
	c[1] = int_cell(0);
	c[1].s = utf8;
	c[1].n = len;
	return HF_OK;
}

/* ---- the graph for the analysis ---------------------------------------------
 * With the analysis, every node that goes into the table (id, class, size)
 * and every edge (source, dest, label, edgetypeid) is also put in a row sort
 * of its own, sorted beside the load like the index keys.  The analysis
 * reads the graph from there instead of from the tables, on a thread of its
 * own, while this connection fills the indexes (hf_analysis_run_beside):
 * reading node and edge back took 4.6 s of the 1 GB benchmark dump's run.
 * One dump only: at a row of a second dump the graph is dropped and the
 * analysis reads the tables. */
static void graph_drop(heapdb *w)
{
	w->graph = false;
	hf_rowsort_free(&w->graph_nodes);
	hf_rowsort_free(&w->graph_edges);
}

static bool graph_dump(heapdb *w, uint32_t dump)
{
	if (!w->graph_dump_set) {
		w->graph_dump_set = true;
		w->graph_dump = dump;
	} else if (dump != w->graph_dump) {
		graph_drop(w);
	}
	return w->graph;
}

/* A node of type type_id, subtype table d (looked up by the caller: the
 * hf_type may be gone by the time the thread gets here). */
static hf_status sync_node(heapdb *w, const hf_node *n, int type_id, db_type *d, hf_error *err)
{
	hf_status rc;
	bool fresh = !w->have_high || n->dump > w->high_dump ||
	             (n->dump == w->high_dump && n->id > w->high_id);
	if (fresh) {
		/* Above every node so far: new for sure. */
		w->have_high = 1;
		w->high_dump = n->dump;
		w->high_id = n->id;
	} else if ((rc = batch_flush(w, &w->node_rows, &w->duplicate_nodes, err))) {
		return rc;   /* maybe a second object with an id met before: the nodes before it go in first */
	}
	hf_value *c;
	if ((rc = batch_row(w, &w->node_rows, &w->duplicate_nodes, &c, err)))
		return rc;
	c[0] = int_cell((int64_t)n->id);
	c[1] = int_cell(n->dump);
	c[2] = int_cell(type_id);
	c[3] = int_cell((int64_t)n->class_id);
	c[4] = int_cell((int64_t)n->size);
	c[5] = int_cell(n->heap);
	if (!fresh) {
		/* Its own insert tells: ignored, it is a second object with the
		 * same id, and the first one is kept. */
		uint64_t before = w->duplicate_nodes;
		if ((rc = batch_flush(w, &w->node_rows, &w->duplicate_nodes, err)))
			return rc;
		if (w->duplicate_nodes != before)
			return HF_OK;
	}
	if (w->graph && graph_dump(w, n->dump) &&
	    (rc = hf_rowsort_add(&w->graph_nodes, (int64_t)n->id, (int64_t)n->class_id,
	                         (int64_t)n->size, 0, err)))
		return rc;
	/* A subtype table holds a row only for nodes with a value in one of its
	 * fields (most instances have none): see schema/heapdb.sql. */
	size_t present = 0;
	for (size_t i = 0; i < d->nfields; i++)
		present += n->values[i].present != 0;
	if (!present)
		return HF_OK;
	if ((rc = batch_row(w, &d->rows, NULL, &c, err)))
		return rc;
	c[0] = int_cell((int64_t)n->id);
	c[1] = int_cell(n->dump);
	memcpy(c + 2, n->values, d->nfields * sizeof *c);
	return HF_OK;
}

static hf_status sync_edge(heapdb *w, const hf_edge *e, int type_id, hf_error *err)
{
	hf_value *c;
	hf_status st = batch_row(w, &w->edge_rows, NULL, &c, err);
	if (st)
		return st;
	c[0] = int_cell((int64_t)e->source);
	c[1] = int_cell(e->dump);
	c[2] = int_cell((int64_t)w->edge_seq++);
	c[3] = int_cell(type_id);
	c[4] = int_cell((int64_t)e->dest);
	c[5] = int_cell((int64_t)e->label);
	if (w->graph && graph_dump(w, e->dump))
		return hf_rowsort_add(&w->graph_edges, (int64_t)e->source, (int64_t)e->dest,
		                      (int64_t)e->label, type_id, err);
	return HF_OK;
}

static hf_status sync_record(heapdb *w, const hf_record *r, db_type *d, hf_error *err)
{
	for (size_t i = 0; i < d->nfields; i++) {
		hf_status rc = bind_value(w, d->insert, (int)i + 1, d->kinds[i], &r->values[i], err);
		if (rc)
			return rc;
	}
	if (d->nfields == 0)
		sqlite3_bind_null(d->insert, 1);
	return step(w, d->insert, err);
}

/* ---- two threads ----------------------------------------------------------
 * Nodes, edges, strings and records are queued (copied into a 1 MiB block)
 * and inserted by a second thread while the reader goes on: parsing and
 * encoding on one core, SQLite on the other, through an hf_queue
 * (internal.h) as in the NDJSON writer.  Every
 * other call (metadata, declarations, finish, destroy) first waits for the
 * queue to empty and then uses the connection itself, so SQLite is never
 * used by both at once.  The thread's first failure is returned at the
 * next hand-off (the parser at most HF_QUEUE_DEPTH blocks of records
 * ahead) or at the end.  Measured on the 1 GB benchmark dump: the load
 * without indexes and analysis 30.6 s -> 24.4 s; with them 72.6 s -> 55.5 s
 * (the edges' 32-row statements included). */
#define QUEUE_BLOCK ((size_t)1 << 20)
enum { Q_NODE = 1, Q_EDGE, Q_STRING, Q_RECORD };

/* Bytes a value array takes in the queue (the types' field kinds as the
 * declaration gave them, copied in d). */
static size_t q_values_size(const db_type *d, const hf_value *v)
{
	size_t n = d->nfields * sizeof *v;
	for (size_t i = 0; i < d->nfields; i++)
		if (v[i].present && v[i].s && hf_field_is_text(d->kinds[i]))
			n += v[i].n + 1;
	return n;
}

static void q_put_values(hf_queue *b, const db_type *d, const hf_value *v)
{
	for (size_t i = 0; i < d->nfields; i++)
		hf_queue_put(b, &v[i], sizeof v[i]);
	for (size_t i = 0; i < d->nfields; i++)
		if (v[i].present && v[i].s && hf_field_is_text(d->kinds[i])) {
			hf_queue_put(b, v[i].s, v[i].n);
			b->q.data[b->q.len++] = 0;
		}
}

/* The values back, their texts pointing into the block. */
static bool q_get_values(heapdb *w, const uint8_t **p, const db_type *d, hf_value **out)
{
	w->qvals.len = 0;
	if (!hf_buf_reserve(&w->qvals, (d->nfields ? d->nfields : 1) * sizeof(hf_value)))
		return false;
	hf_value *v = (hf_value *)w->qvals.data;
	for (size_t i = 0; i < d->nfields; i++)
		hf_queue_get(p, &v[i], sizeof v[i]);
	for (size_t i = 0; i < d->nfields; i++)
		if (v[i].present && v[i].s && hf_field_is_text(d->kinds[i])) {
			v[i].s = (const char *)*p;
			*p += v[i].n + 1;
		}
	*out = v;
	return true;
}

static hf_status run_block(void *ctx, const uint8_t *p, const uint8_t *end, hf_error *err)
{
	heapdb *w = ctx;
	hf_status st = HF_OK;
	while (p < end && !st) {
		uint8_t tag = *p++;
		uint32_t ti;
		int32_t type_id;
		hf_value *v;
		switch (tag) {
		case Q_NODE: {
			hf_node n;
			hf_queue_get(&p, &ti, sizeof ti);
			hf_queue_get(&p, &type_id, sizeof type_id);
			hf_queue_get(&p, &n, sizeof n);
			n.type = NULL;
			if (!q_get_values(w, &p, &w->types[ti], &v)) {
				st = hf_error_set(err, HF_ERR_NOMEM, "out of memory");
				break;
			}
			n.values = v;
			st = sync_node(w, &n, type_id, &w->types[ti], err);
			break;
		}
		case Q_EDGE: {
			hf_edge e;
			hf_queue_get(&p, &type_id, sizeof type_id);
			hf_queue_get(&p, &e, sizeof e);
			e.type = NULL;
			st = sync_edge(w, &e, type_id, err);
			break;
		}
		case Q_STRING: {
			uint64_t id, len;
			hf_queue_get(&p, &id, sizeof id);
			hf_queue_get(&p, &len, sizeof len);
			st = sync_string(w, id, (const char *)p, (size_t)len, err);
			p += len;
			break;
		}
		default: { /* Q_RECORD */
			hf_record r;
			hf_queue_get(&p, &ti, sizeof ti);
			hf_queue_get(&p, &r, sizeof r);
			r.type = NULL;
			if (!q_get_values(w, &p, &w->types[ti], &v)) {
				st = hf_error_set(err, HF_ERR_NOMEM, "out of memory");
				break;
			}
			r.values = v;
			st = sync_record(w, &r, &w->types[ti], err);
		}
		}
	}
	/* The batches' texts point into this block. */
	if (!st)
		st = flush_batches(w, err);
	if (st)
		drop_batches(w);
	return st;
}

static hf_status db_node(hf_sink *s, const hf_node *n, hf_error *err)
{
	heapdb *w = s->impl;
	db_type *d = find_type(w, n->type);
	if (!d || !d->insert)
		return hf_error_set(err, HF_ERR_USAGE, "node subtype %s was not declared", n->type->name);
	hf_status st = hf_queue_room(&w->queue, 1 + 8 + sizeof *n + q_values_size(d, n->values), err);
	if (st)
		return st;
	uint32_t ti = (uint32_t)(d - w->types);
	int32_t type_id = n->type->id;
	w->queue.q.data[w->queue.q.len++] = Q_NODE;
	hf_queue_put(&w->queue, &ti, sizeof ti);
	hf_queue_put(&w->queue, &type_id, sizeof type_id);
	hf_queue_put(&w->queue, n, sizeof *n);
	q_put_values(&w->queue, d, n->values);
	return HF_OK;
}

static hf_status db_edge(hf_sink *s, const hf_edge *e, hf_error *err)
{
	heapdb *w = s->impl;
	hf_status st = hf_queue_room(&w->queue, 1 + 4 + sizeof *e, err);
	if (st)
		return st;
	int32_t type_id = e->type->id;
	w->queue.q.data[w->queue.q.len++] = Q_EDGE;
	hf_queue_put(&w->queue, &type_id, sizeof type_id);
	hf_queue_put(&w->queue, e, sizeof *e);
	return HF_OK;
}

static hf_status db_string(hf_sink *s, uint64_t id, const char *utf8, size_t len, hf_error *err)
{
	heapdb *w = s->impl;
	hf_status st = hf_queue_room(&w->queue, 1 + 16 + len, err);
	if (st)
		return st;
	uint64_t len64 = len;
	w->queue.q.data[w->queue.q.len++] = Q_STRING;
	hf_queue_put(&w->queue, &id, sizeof id);
	hf_queue_put(&w->queue, &len64, sizeof len64);
	hf_queue_put(&w->queue, utf8, len);
	return HF_OK;
}

static hf_status db_record(hf_sink *s, const hf_record *r, hf_error *err)
{
	heapdb *w = s->impl;
	db_type *d = find_type(w, r->type);
	if (!d && w->analysis_records && !strcmp(r->type->name, hf_node_analysis_type.name))
		return HF_OK;
	if (!d || !d->insert)
		return hf_error_set(err, HF_ERR_USAGE, "record type %s was not declared", r->type->name);
	hf_status st = hf_queue_room(&w->queue, 1 + 4 + sizeof *r + q_values_size(d, r->values), err);
	if (st)
		return st;
	uint32_t ti = (uint32_t)(d - w->types);
	w->queue.q.data[w->queue.q.len++] = Q_RECORD;
	hf_queue_put(&w->queue, &ti, sizeof ti);
	hf_queue_put(&w->queue, r, sizeof *r);
	q_put_values(&w->queue, d, r->values);
	return HF_OK;
}

/* The keys gathered for an index, in order (a row feed). */
static int key_feed(hf_row_feed *f, int64_t row[HF_ROW_MAX], unsigned *nulls)
{
	hf_row4 r;
	int got = hf_rowsort_next(f->ctx, &r);
	if (got == 1) {
		memcpy(row, r.k, sizeof r.k);
		*nulls = 0;
	} else if (got < 0) {
		f->failed = HF_ERR_IO;
	}
	return got;
}

static hf_status fill_index(heapdb *w, hf_rowsort *keys, const char *imposter, hf_error *err)
{
	hf_row_feed f = { key_feed, keys, HF_OK };
	uint64_t rows = 0;
	hf_status st = hf_row_feed_insert(w->db, imposter, 4, &f, &rows, err);
	if (!st && rows != keys->written)
		st = hf_error_set(err, HF_ERR_IO, "SQLite: %llu of %llu keys went into an index",
		                  (unsigned long long)rows, (unsigned long long)keys->written);
	hf_rowsort_free(keys);
	return st;
}

/* The core indexes filled, the imposters forgotten (see "the core indexes"). */
static hf_status fill_core_indexes(heapdb *w, hf_error *err)
{
	sqlite3_finalize(w->node_rows.insert);
	sqlite3_finalize(w->edge_rows.insert);
	w->node_rows.insert = w->edge_rows.insert = NULL;
	w->node_rows.keys = w->edge_rows.keys = NULL;
	/* (Both sorts ended already, in db_finish.)  The imposters over the
	 * indexes again: the analysis forgets every imposter of the connection
	 * when it cannot make its own (hf_imposter_open does nothing when they
	 * are there). */
	hf_status st = HF_OK;
	for (size_t i = 2; i < sizeof core_imposters / sizeof *core_imposters && !st; i++)
		if (!hf_imposter_open(w->db, core_imposters[i].object, core_imposters[i].imposter,
		                      core_imposters[i].decl))
			st = hf_error_set(err, HF_ERR_IO, "SQLite: cannot make the imposter table %s again",
			                  core_imposters[i].imposter);
	if (!st)
		st = hf_rowsort_finish(&w->node_keys, err);
	if (!st)
		st = hf_rowsort_finish(&w->edge_keys, err);
	/* The merges run ahead on threads of their own (the rows the same; on
	 * the caller's thread when they cannot): merging was about a tenth of
	 * this thread's time in the fill, and the other core is idle once the
	 * analysis has computed.  Whole runs, alternated, 2026-11-23: the 1 GB
	 * benchmark dump 27.70 -> 26.87 s (medians of 3), the 5 GB one
	 * 155.2 -> 148.0 s (one run each). */
	if (!st) {
		hf_rowsort_prefetch(&w->node_keys);
		hf_rowsort_prefetch(&w->edge_keys);
	}
	if (!st)
		st = fill_index(w, &w->node_keys, "hf-imp-node_by_class", err);
	if (!st)
		st = fill_index(w, &w->edge_keys, "hf-imp-edge_by_dest", err);
	hf_imposters_close(w->db);
	w->presorted = false;
	return st;
}

/* hf_analysis_run_beside's work: the indexes filled while the analysis
 * computes.  Measured on the 1 GB benchmark dump: the analysis's
 * computation took 2.3 s, filling the two indexes about 8 s. */
static hf_status fill_beside(void *ctx, hf_error *err)
{
	return fill_core_indexes(ctx, err);
}

/* The sorts' buffers (16 MiB each) and the loading cache's pages were
 * freed to the allocator, which keeps them resident: glibc serves blocks
 * of that size from its heap once a block as big has been freed (its mmap
 * threshold grows), and gives back only the top of the heap.  Back to the
 * system before the analysis allocates.  The 1 GB benchmark dump's run
 * with the analysis peaked at 782 MB without this and the cache flush before
 * it, at 552 MB with them. */
static void release_free_memory(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

/* Statistics for the query planner (sqlite_stat1), from a sample: a full
 * ANALYZE would read every row again ("PRAGMA analysis_limit").  The sample
 * needs an index, and strings, a rowid table without one, has its row count
 * counted by a visit to every page: on a database larger than the dirty
 * limit, whose early pages were dropped from the page cache (dropbehind.c),
 * that read them back from the disk, 1.1 GB for the 5 GB benchmark dump
 * (ANALYZE took 2.85 s from a cold cache, 0.01 s without strings).  Its row
 * is the count of rows that went in, which this writer knows: the same row
 * as ANALYZE's (none for an empty table).  The other tables are analysed one
 * by one; but each ANALYZE statement reloads all of sqlite_stat1 when it
 * ends, so past STATS_TABLES tables (an NDJSON input may declare thousands
 * of record types: 6,000 took 52 s one by one, 4 s at once) one ANALYZE of
 * everything, strings included, as before. */
#define STATS_TABLES 64

static hf_status statistics(heapdb *w, hf_error *err)
{
	/* The statements, one a table, and how many (SQLite quotes the names). */
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(w->db, "SELECT group_concat('ANALYZE main.\"' || replace(name, '\"', '\"\"') || '\";', ''),"
	                              " count(*) FROM main.sqlite_schema WHERE type = 'table'"
	                              " AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> 'strings'",
	                       -1, &q, NULL) != SQLITE_OK)
		return db_fail(w, err, "listing the tables");
	int rc = sqlite3_step(q);
	const char *text = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(q, 0) : NULL;
	char *each = text ? sqlite3_mprintf("%s", text) : NULL;
	bool whole = rc == SQLITE_ROW && sqlite3_column_int64(q, 1) > STATS_TABLES;
	sqlite3_finalize(q);
	hf_status st = HF_OK;
	if (rc != SQLITE_ROW)
		st = db_fail_rc(w, err, "listing the tables", rc);
	else if (text && !each)
		st = hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	else if (!(st = exec(w, "PRAGMA analysis_limit=1000", err)) && (whole || each))
		st = exec(w, whole ? "ANALYZE" : each, err);
	sqlite3_free(each);
	uint64_t rows = w->strings_given - w->duplicate_strings;
	if (st || whole || !rows)
		return st;
	char *ins = sqlite3_mprintf("INSERT INTO main.sqlite_stat1 (tbl, idx, stat) VALUES ('strings', NULL, '%llu')",
	                            (unsigned long long)rows);
	st = ins ? exec(w, ins, err) : hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	sqlite3_free(ins);
	return st;
}

/*
 * A rollback journal or WAL left beside the path by the database replaced
 * (a write to it interrupted, the analysis killed) or by one deleted without
 * them: SQLite would take it for the new file's own at its first opening for
 * writing, and "roll it back" into that file, which it corrupts.  It belongs
 * to no database once the new one is in place.  Moved aside under the
 * temporary name before the rename (a temporary name of its own each), and
 * removed after it; put back if the rename fails, for the old database,
 * which may need its journal.
 */
static const char *const sidecar_suffix[] = { "-journal", "-wal", "-shm" };
#define SIDECARS (sizeof sidecar_suffix / sizeof *sidecar_suffix)

static char *joined(const char *a, const char *b)
{
	char *s = malloc(strlen(a) + strlen(b) + 1);
	if (s) {
		strcpy(s, a);
		strcat(s, b);
	}
	return s;
}

/* moved[i]: sidecar i was moved to tmp + its suffix. */
static hf_status sidecars_aside(const char *path, const char *tmp, int moved[SIDECARS], hf_error *err)
{
	for (size_t i = 0; i < SIDECARS; i++)
		moved[i] = 0; /* all of them: a failure stops before the later ones */
	for (size_t i = 0; i < SIDECARS; i++) {
		char *side = joined(path, sidecar_suffix[i]), *aside = joined(tmp, sidecar_suffix[i]);
		int e = 0;
		if (!side || !aside)
			e = ENOMEM;
		else if (rename(side, aside) == 0)
			moved[i] = 1;
		else if (errno != ENOENT)
			e = errno;
		hf_status st = e ? hf_error_set(err, e == ENOMEM ? HF_ERR_NOMEM : HF_ERR_IO,
		                                "cannot move aside %s, which SQLite would roll back into the new"
		                                " database: %s", side ? side : path, strerror(e))
		                 : HF_OK;
		free(side);
		free(aside);
		if (st)
			return st;
	}
	return HF_OK;
}

/* The sidecars moved aside: removed (done), or put back. */
static void sidecars_settle(const char *path, const char *tmp, const int moved[SIDECARS], int done)
{
	for (size_t i = 0; i < SIDECARS; i++) {
		if (!moved[i])
			continue;
		char *side = joined(path, sidecar_suffix[i]), *aside = joined(tmp, sidecar_suffix[i]);
		if (aside && (done || !side || rename(aside, side) != 0))
			unlink(aside);
		free(side);
		free(aside);
	}
}

static hf_status db_finish(hf_sink *s, hf_error *err)
{
	heapdb *w = s->impl;
	hf_status st;
	char num[32];
	if ((st = hf_queue_drain(&w->queue, err)))
		return st;
	hf_queue_stop(&w->queue); /* from here on, one thread */
	/* The last runs sorted: the sorting buffers are given back before the
	 * analysis allocates. */
	if (w->presorted && ((st = hf_rowsort_finish(&w->node_keys, err)) ||
	                     (st = hf_rowsort_finish(&w->edge_keys, err))))
		return st;
	if (w->graph && ((st = hf_rowsort_finish(&w->graph_nodes, err)) ||
	                 (st = hf_rowsort_finish(&w->graph_edges, err))))
		return st;
	if (w->duplicate_nodes) {
		snprintf(num, sizeof num, "%llu", (unsigned long long)w->duplicate_nodes);
		if ((st = db_metadata(s, "heapdb.duplicate_nodes", num, err)))
			return st;
	}
	if (w->duplicate_strings) {
		snprintf(num, sizeof num, "%llu", (unsigned long long)w->duplicate_strings);
		if ((st = db_metadata(s, "heapdb.duplicate_strings", num, err)))
			return st;
	}
	/* With the analysis, the core indexes are filled while it computes the
	 * dominators (it has read the tables by then): below.  Without, now,
	 * with the loading cache.
	 * A small page cache makes SQLite's sorter build the indexes faster
	 * (smaller in-memory runs, merged from the OS page cache): measured on
	 * the 1 GB benchmark dump, edge_by_dest took 12.4 s with the 256 MiB
	 * loading cache, 8.7 s with 4 MiB. */
	if (w->presorted && !w->opt.analysis && (st = fill_core_indexes(w, err)))
		return st;
	/* The loading cache's dirty pages written (they would be, one at a time,
	 * as later work needs pages) so that the smaller cache can free them. */
	int rc = sqlite3_db_cacheflush(w->db);
	if (rc != SQLITE_OK)
		return db_fail_rc(w, err, "writing the page cache", rc);
	if ((st = exec(w, "PRAGMA cache_size=-8192", err)))
		return st;
	release_free_memory();
	if (!w->opt.no_index) {
		if (!w->presorted_made && (st = exec(w, core_indexes, err)))
			return st;
		for (size_t i = 0; i < w->ntypes; i++) {
			db_type *d = &w->types[i];
			for (size_t f = 0; f < d->nfields; f++) {
				if (!d->indexed[f])
					continue;
				/* (Names of up to 64 bytes each: no fixed buffer.) */
				char *sql = sqlite3_mprintf("CREATE INDEX \"%w_%w\" ON \"%w\" (\"%w\")",
				                            d->table, d->fields[f], d->table, d->fields[f]);
				if (!sql)
					return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
				st = exec(w, sql, err);
				sqlite3_free(sql);
				if (st)
					return st;
			}
		}
	}
	if (w->opt.analysis) {
		/* The loading cache was given back above, before the analysis
		 * allocates its arrays. */
		hf_analysis_options ao;
		hf_analysis_options_init(&ao);
		ao.no_index = w->opt.no_index;
		ao.memory_limit = w->opt.analysis_memory;
		hf_analysis_graph g = { &w->graph_nodes, &w->graph_edges, w->graph_dump };
		bool use_graph = w->graph && w->graph_nodes.written > 0;
		st = hf_analysis_run_beside(w->db, &ao, NULL, use_graph ? &g : NULL,
		                            w->presorted ? fill_beside : NULL, w, err);
		graph_drop(w);
		if (st)
			return st;
	}
	if (w->presorted && (st = fill_core_indexes(w, err)))
		return st;   /* the analysis ended before its computation */
	if ((st = exec(w, "COMMIT", err)))
		return st;
	if ((st = statistics(w, err)))
		return st;
	sqlite3_finalize(w->ins_meta);
	w->ins_meta = NULL;
	batch_free(&w->node_rows);
	batch_free(&w->string_rows);
	batch_free(&w->edge_rows);
	for (size_t i = 0; i < w->ntypes; i++) {
		sqlite3_finalize(w->types[i].insert);
		w->types[i].insert = NULL;
		batch_free(&w->types[i].rows);
	}
	if (sqlite3_close(w->db) != SQLITE_OK)
		return hf_error_set(err, HF_ERR_IO, "SQLite: cannot close %s", w->tmp);
	w->db = NULL;
	int e = hf_dropbehind_stop(&w->behind);
	if (e)
		return hf_error_set(err, HF_ERR_IO, "writing %s: %s", w->tmp, strerror(e));
	if (!w->opt.force && access(w->path, F_OK) == 0)
		return hf_error_set(err, HF_ERR_IO, "%s appeared while converting; not replaced (use --force)",
		                    w->path);
	int moved[SIDECARS];
	if ((st = sidecars_aside(w->path, w->tmp, moved, err))) {
		sidecars_settle(w->path, w->tmp, moved, 0);
		return st;
	}
	if (rename(w->tmp, w->path) != 0) {
		int e = errno;
		sidecars_settle(w->path, w->tmp, moved, 0);
		return hf_error_set(err, HF_ERR_IO, "cannot rename %s to %s: %s", w->tmp, w->path, strerror(e));
	}
	sidecars_settle(w->path, w->tmp, moved, 1);
	hf_temp_kept(&w->tmp);
	return HF_OK;
}

static void db_destroy(hf_sink *s, int success)
{
	heapdb *w = s->impl;
	(void)success;
	hf_queue_free(&w->queue);
	hf_buf_free(&w->qvals);
	sqlite3_finalize(w->ins_meta);
	batch_free(&w->node_rows);
	batch_free(&w->string_rows);
	batch_free(&w->edge_rows);
	for (size_t i = 0; i < w->ntypes; i++) {
		db_type *d = &w->types[i];
		sqlite3_finalize(d->insert);
		batch_free(&d->rows);
		for (size_t f = 0; f < d->nfields; f++)
			free(d->fields[f]);
		free(d->fields);
		free(d->kinds);
		free(d->indexed);
		free(d->table);
	}
	free(w->types);
	hf_map_free(&w->type_by_ptr);
	hf_map_free(&w->type_by_table);
	hf_rowsort_free(&w->node_keys);
	hf_rowsort_free(&w->edge_keys);
	graph_drop(w);
	if (w->db)
		sqlite3_close(w->db);
	hf_dropbehind_stop(&w->behind);
	hf_temp_drop(&w->tmp);
	free(w->path);
	free(w);
}

/* The core indexes made empty, with the imposters to fill them (see "the
 * core indexes"); where that cannot be, they are made after the load. */
static void open_presorted(heapdb *w)
{
	if (w->opt.no_index)
		return;
	bool ok = sqlite3_exec(w->db, core_indexes, NULL, NULL, NULL) == SQLITE_OK;
	for (size_t i = 0; ok && i < sizeof core_imposters / sizeof *core_imposters; i++)
		ok = hf_imposter_open(w->db, core_imposters[i].object, core_imposters[i].imposter,
		                      core_imposters[i].decl);
	ok = ok && hf_rowsort_init(&w->node_keys, 0);
	ok = ok && hf_rowsort_init(&w->edge_keys, 0);
	if (!ok) {
		hf_imposters_close(w->db);
		sqlite3_exec(w->db, "DROP INDEX IF EXISTS edge_by_dest; DROP INDEX IF EXISTS node_by_class",
		             NULL, NULL, NULL);
		hf_rowsort_free(&w->node_keys);
		hf_rowsort_free(&w->edge_keys);
		return;
	}
	w->presorted = w->presorted_made = true;
}

static const hf_sink_ops heapdb_ops = {
	db_metadata, db_declare, db_string, db_node, db_edge, db_record, db_finish, db_destroy
};

hf_status hf_heapdb_sink_open(hf_sink **out, const char *path, const hf_heapdb_options *opt,
                              hf_error *err)
{
	*out = NULL;
	hf_heapdb_options o = { 0, 0, 0, 0 };
	if (opt)
		o = *opt;
	/* The file a symbolic link leads to is replaced, not the link. */
	hf_out_target t;
	if (hf_out_resolve(path, &t))
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	if (t.in_place || t.is_dir) {
		free(t.path);
		/* The database is built under a temporary name and renamed onto
		 * its path: a descriptor (stdout redirected to a file, say) has
		 * no path to rename onto, whatever it is open on. */
		if (t.is_fd && !t.is_dir)
			return hf_error_set(err, HF_ERR_IO, "a database cannot be written to %s (it names a descriptor, "
			                    "and a database is built under a temporary name and renamed): name the file",
			                    path);
		return hf_error_set(err, HF_ERR_IO, "%s is not a regular file; a database must be written to one",
		                    path);
	}
	if (!o.force && t.mode >= 0) {
		free(t.path);
		return hf_error_set(err, HF_ERR_IO, "%s exists; use --force to replace it", path);
	}
	heapdb *w = calloc(1, sizeof *w);
	if (!w) {
		free(t.path);
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	}
	w->behind.fd = -1;
	w->hash_seed = hf_random_u64();
	hf_queue_init(&w->queue, QUEUE_BLOCK, run_block, w);
	w->sink.ops = &heapdb_ops;
	w->sink.impl = w;
	w->opt = o;
	w->path = t.path; /* the rename's target */
	int fd = hf_make_temp_beside(w->path, t.mode, &w->tmp);
	if (fd < 0) {
		hf_status st = hf_error_set(err, HF_ERR_IO, "cannot create a file beside %s: %s", path,
		                            strerror(errno));
		free(w->path);
		free(w);
		return st;
	}
	/* The descriptor stays open for dropping the database behind SQLite's
	 * writes once it passes the dirty limit (dropbehind.c); SQLite opens
	 * its own. */
	hf_dropbehind_start(&w->behind, fd);
	if (sqlite3_open_v2(w->tmp, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
	                    NULL) !=
	    SQLITE_OK) {
		hf_status st = hf_error_set(err, HF_ERR_IO, "SQLite: cannot open %s: %s", w->tmp,
		                            w->db ? sqlite3_errmsg(w->db) : "out of memory");
		db_destroy(&w->sink, 0);
		return st;
	}
	/* A row (its text and the other columns) must fit SQLite's length limit
	 * (SQLITE_MAX_LENGTH, 10^9 bytes as built by Debian). */
	int max_len = sqlite3_limit(w->db, SQLITE_LIMIT_LENGTH, -1);
	/* A node below the highest id is a row in the middle of node,
	 * node_instance and strings (hf_sink.key_order). */
	w->sink.key_order = 1;
	w->sink.max_text = max_len > (1 << 17) ? (size_t)max_len - (1 << 16) : (size_t)max_len / 2;
	if (sqlite3_create_module(w->db, "hf_rows", &rows_module, w) != SQLITE_OK) {
		hf_status st = db_fail(w, err, "hf_rows");
		db_destroy(&w->sink, 0);
		return st;
	}
	hf_status st = exec(w,
		"PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
		"PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-262144; PRAGMA temp_store=FILE;"
		"PRAGMA threads=2;", err);
	if (!st) st = exec(w, core_ddl, err);
	if (!st) st = exec(w, "BEGIN", err);
	if (!st) open_presorted(w);
	if (!st && w->opt.analysis) {
		/* Without the sorts' buffers, the analysis reads the tables. */
		w->graph = hf_rowsort_init(&w->graph_nodes, 0) && hf_rowsort_init(&w->graph_edges, 0);
		if (!w->graph)
			graph_drop(w);
	}
	if (!st) st = prepare(w, "INSERT INTO metadata VALUES (?,?)", &w->ins_meta, err);
	static const hf_field_kind ints[6] = { HF_FIELD_INT, HF_FIELD_INT, HF_FIELD_INT,
		HF_FIELD_INT, HF_FIELD_INT, HF_FIELD_INT };
	static const hf_field_kind string_kinds[2] = { HF_FIELD_INT, HF_FIELD_TEXT };
	if (!st && (!batch_init(&w->node_rows, w->presorted ? "hf-imp-node" : "node", 6, ints, true) ||
	            !batch_init(&w->edge_rows, w->presorted ? "hf-imp-edge" : "edge", 6, ints, false) ||
	            !batch_init(&w->string_rows, "strings", 2, string_kinds, true)))
		st = hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	if (!st && w->presorted) {
		/* Keys: node_by_class (class, nodetypeid, identifier, dump) and
		 * edge_by_dest (dest, dump, source, seq), cells as sync_node and
		 * sync_edge fill them. */
		static const unsigned char node_key[4] = { 3, 2, 0, 1 }, edge_key[4] = { 4, 1, 0, 2 };
		w->node_rows.keys = &w->node_keys;
		memcpy(w->node_rows.key_col, node_key, sizeof node_key);
		w->edge_rows.keys = &w->edge_keys;
		memcpy(w->edge_rows.key_col, edge_key, sizeof edge_key);
	}
	if (st) {
		db_destroy(&w->sink, 0);
		return st;
	}
	*out = &w->sink;
	return HF_OK;
}
