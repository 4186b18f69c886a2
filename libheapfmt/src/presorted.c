/*
 * Indexes filled from sorted input (internal.h, "presorted indexes").
 *
 * CREATE INDEX reads the whole table back, sorts its keys with SQLite's
 * sorter and appends them to the new b-tree.  The writers already have the
 * keys in hand: the database writer sees every node and edge row it
 * inserts, the analysis holds the dominator of every object.  So the big
 * indexes (edge_by_dest, node_by_class, node_analysis_by_dominator) are
 * created empty before their table is filled, the table's rows go in
 * through an imposter table over the table's own b-tree (which SQLite does
 * not know to carry into the index), and the index's entries are appended
 * at the end, in order, through an imposter table over the index's b-tree.
 * This is how SQLite's own RBU extension builds indexes; the imposter
 * tables are made with sqlite3_test_control(SQLITE_TESTCTRL_IMPOSTER) and
 * live only in this connection's copy of the schema (nothing is written to
 * sqlite_schema).  A library built without test controls makes a real
 * table instead: hf_imposter_open notices, drops it, and the writer goes
 * back to CREATE INDEX after the load.  An imposter names its b-tree by
 * root page, and root pages move only when a table is dropped in an
 * auto-vacuum database: imposters are made after the last DROP and
 * forgotten (hf_imposters_close) before the next.  tests/test_unit.c checks the
 * indexes made this way against SQLite's own (PRAGMA integrity_check, and
 * the entries compared with those of CREATE INDEX).
 *
 * Measured on the 1 GB benchmark database (2026-11-23, sqlite3 shell, the
 * writer's pragmas): CREATE INDEX edge_by_dest (17.9 M entries) 6.3 s,
 * node_by_class (10.1 M) 6.3 s, node_analysis_by_dominator (10.1 M) 5.2 s;
 * the same entries appended in order through an imposter 3.1 s, 1.4 s and
 * 1.4 s.
 *
 * hf_rowsort sorts the keys of a table too big for memory: rows of four
 * integers are gathered in a buffer; a full buffer is sorted on a thread of
 * its own (the writer's SQLite thread goes on) and written to a temporary
 * file as a sorted run (packed, see below); at the end the runs are merged.
 * Memory: three buffers of HF_ROWSORT_ROWS rows and 64 KiB for packing
 * while the rows come; in the merge, 16 KiB for each run, and 1 MiB more
 * when it runs ahead (hf_rowsort_prefetch).
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <unistd.h>

/* ---- imposter tables ------------------------------------------------------ */

/* Whether sqlite_schema names it: 1 yes, 0 no, -1 cannot tell. */
static int in_schema(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st = NULL;
	int in = -1;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM main.sqlite_schema WHERE name = ?1", -1, &st,
	                       NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			in = sqlite3_column_int(st, 0) != 0;
	}
	sqlite3_finalize(st);
	return in;
}

bool hf_imposter_open(sqlite3 *db, const char *object, const char *name, const char *decl)
{
	sqlite3_stmt *st = NULL;
	int tnum = 0;
	/* Made already (and not forgotten since): a table of that name that is
	 * not in sqlite_schema. */
	char *sql = sqlite3_mprintf("SELECT 1 FROM main.\"%w\"", name);
	if (!sql)
		return false;
	int exists = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK;
	sqlite3_finalize(st);
	sqlite3_free(sql);
	if (exists)
		return in_schema(db, name) == 0;
	if (sqlite3_prepare_v2(db, "SELECT rootpage FROM main.sqlite_schema WHERE name = ?1"
	                           " AND type IN ('table', 'index')", -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, object, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		tnum = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (tnum <= 1)
		return false;
	/* Unqualified: "main." makes the imposter mode fail with SQLITE_CORRUPT. */
	sql = sqlite3_mprintf("CREATE TABLE \"%w\" (%s) WITHOUT ROWID", name, decl);
	if (!sql)
		return false;
	sqlite3_test_control(SQLITE_TESTCTRL_IMPOSTER, db, "main", 1, tnum);
	int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_test_control(SQLITE_TESTCTRL_IMPOSTER, db, "main", 0, 0);
	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return false;
	/* An imposter is not in sqlite_schema; a real table (test controls
	 * compiled out) is, and has b-tree pages of its own.  Dropping an
	 * imposter would free the pages of the b-tree it stands over, so a name
	 * is dropped only when sqlite_schema lists it once the imposters are
	 * forgotten (the caller's others too: it goes back to CREATE INDEX). */
	if (in_schema(db, name) == 0)
		return true;
	hf_imposters_close(db);
	if (in_schema(db, name) == 1) {
		sql = sqlite3_mprintf("DROP TABLE main.\"%w\"", name);
		if (sql)
			sqlite3_exec(db, sql, NULL, NULL, NULL);
		sqlite3_free(sql);
	}
	return false;
}

void hf_imposters_close(sqlite3 *db)
{
	/* Turning the imposter mode off with a page number reloads every
	 * schema from the file: the imposters (never written there) are gone.
	 * Statements that name them must be finalized first. */
	sqlite3_test_control(SQLITE_TESTCTRL_IMPOSTER, db, "main", 0, 1);
}

/* ---- rows as a table ---------------------------------------------------------
 * hf_row_source(?1): an eponymous virtual table of columns c0 .. c5 whose
 * rows come from the hf_row_feed bound to ?1 (sqlite3_bind_pointer): a
 * table is filled with one INSERT ... SELECT, no variables to bind, no
 * VALUES list to walk.  (The 10.1 M rows of node_analysis of the 1 GB
 * benchmark dump, heapdb-analyze, alternated runs: 6.5, 5.7, 6.7 and 5.7 s
 * bound 32 rows to a statement; 4.2, 3.1, 3.5 and 3.9 s this way.) */
typedef struct feed_cursor {
	sqlite3_vtab_cursor base;
	hf_row_feed *f;
	int64_t row[HF_ROW_MAX];
	unsigned nulls;
	int eof;
	sqlite3_int64 n;
} feed_cursor;

static int feed_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **errmsg)
{
	(void)aux; (void)argc; (void)argv; (void)errmsg;
	int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(c0, c1, c2, c3, c4, c5, src HIDDEN)");
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_vtab *v = sqlite3_malloc(sizeof *v);
	if (!v)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof *v);
	*out = v;
	return SQLITE_OK;
}

static int feed_disconnect(sqlite3_vtab *v)
{
	sqlite3_free(v);
	return SQLITE_OK;
}

static int feed_best_index(sqlite3_vtab *v, sqlite3_index_info *info)
{
	(void)v;
	for (int i = 0; i < info->nConstraint; i++)
		if (info->aConstraint[i].iColumn == HF_ROW_MAX && info->aConstraint[i].op == SQLITE_INDEX_CONSTRAINT_EQ &&
		    info->aConstraint[i].usable) {
			info->aConstraintUsage[i].argvIndex = 1;
			info->aConstraintUsage[i].omit = 1;
			info->estimatedCost = 1;
			return SQLITE_OK;
		}
	return SQLITE_CONSTRAINT;
}

static int feed_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	(void)v;
	feed_cursor *c = sqlite3_malloc(sizeof *c);
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof *c);
	*out = &c->base;
	return SQLITE_OK;
}

static int feed_close(sqlite3_vtab_cursor *c)
{
	sqlite3_free(c);
	return SQLITE_OK;
}

static int feed_next(sqlite3_vtab_cursor *cur)
{
	feed_cursor *c = (feed_cursor *)cur;
	int r = c->f ? c->f->next(c->f, c->row, &c->nulls) : 0;
	if (r < 0)
		return SQLITE_IOERR;
	c->eof = r == 0;
	c->n++;
	return SQLITE_OK;
}

static int feed_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc,
                       sqlite3_value **argv)
{
	(void)idx; (void)idxstr;
	feed_cursor *c = (feed_cursor *)cur;
	c->f = argc == 1 ? sqlite3_value_pointer(argv[0], HF_ROW_FEED_POINTER) : NULL;
	c->n = -1;
	return feed_next(cur);
}

static int feed_eof(sqlite3_vtab_cursor *cur)
{
	return ((feed_cursor *)cur)->eof;
}

static int feed_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	const feed_cursor *c = (const feed_cursor *)cur;
	if (col < 0 || col >= HF_ROW_MAX || (c->nulls >> col & 1))
		sqlite3_result_null(ctx);
	else
		sqlite3_result_int64(ctx, c->row[col]);
	return SQLITE_OK;
}

static int feed_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = ((const feed_cursor *)cur)->n;
	return SQLITE_OK;
}

static const sqlite3_module feed_module = {
	.iVersion = 1,
	.xConnect = feed_connect,
	.xBestIndex = feed_best_index,
	.xDisconnect = feed_disconnect,
	.xDestroy = feed_disconnect,
	.xOpen = feed_open,
	.xClose = feed_close,
	.xFilter = feed_filter,
	.xNext = feed_next,
	.xEof = feed_eof,
	.xColumn = feed_column,
	.xRowid = feed_rowid,
};

hf_status hf_row_feed_insert(sqlite3 *db, const char *table, unsigned ncols, hf_row_feed *f,
                             uint64_t *rows, hf_error *err)
{
	static const char *const cols[] = { "c0", "c0, c1", "c0, c1, c2", "c0, c1, c2, c3",
		"c0, c1, c2, c3, c4", "c0, c1, c2, c3, c4, c5" };
	if (ncols < 1 || ncols > HF_ROW_MAX)
		return hf_error_set(err, HF_ERR_USAGE, "hf_row_feed_insert: %u columns", ncols);
	char *sql = sqlite3_mprintf("INSERT INTO main.\"%w\" SELECT %s FROM hf_row_source(?1)",
	                            table, cols[ncols - 1]);
	if (!sql)
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	/* The module is registered on the connection's first use: registered
	 * again, it dropped its table, declared anew by the next statement (a
	 * sixth of hprof2heapdb's time on a file of 20,000 tiny dumps, which
	 * comes here three times a dump). */
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc == SQLITE_ERROR) {
		if (sqlite3_create_module(db, "hf_row_source", &feed_module, NULL) != SQLITE_OK) {
			sqlite3_free(sql);
			return hf_error_set(err, HF_ERR_IO, "SQLite: hf_row_source: %s", sqlite3_errmsg(db));
		}
		rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	}
	sqlite3_free(sql);
	if (rc == SQLITE_OK) {
		sqlite3_bind_pointer(st, 1, f, HF_ROW_FEED_POINTER, NULL);
		rc = sqlite3_step(st);
	}
	hf_status s = HF_OK;
	if (rc != SQLITE_DONE)
		s = f->failed ? hf_error_set(err, f->failed, "cannot read back the sorted keys of an index")
		              : hf_error_set(err, HF_ERR_IO, "SQLite: filling an index: %s", sqlite3_errmsg(db));
	else if (rows)
		*rows = (uint64_t)sqlite3_changes64(db);
	sqlite3_finalize(st);
	return s;
}

/* ---- hf_rowsort ------------------------------------------------------------ */

static inline bool row_lt(const hf_row4 *a, const hf_row4 *b)
{
	if (a->k[0] != b->k[0])
		return a->k[0] < b->k[0];
	if (a->k[1] != b->k[1])
		return a->k[1] < b->k[1];
	if (a->k[2] != b->k[2])
		return a->k[2] < b->k[2];
	return a->k[3] < b->k[3];
}

/* Sorts r[0..n) with tmp[0..n) as scratch; returns where the result is
 * (r or tmp).  Insertion sort of blocks of 16, then merges (a merge is a
 * copy where the halves are in order already).  A run of 512 Ki keys of the
 * 1 GB benchmark dump, edges or nodes in the order they were inserted:
 * 24 ms (an 11-bit least-significant-digit radix sort that skipped the
 * constant digits took 56 ms). */
static hf_row4 *sort_rows(hf_row4 *r, hf_row4 *tmp, size_t n)
{
	const size_t block = 16;
	for (size_t b = 0; b < n; b += block) {
		size_t e = b + block < n ? b + block : n;
		for (size_t i = b + 1; i < e; i++) {
			hf_row4 x = r[i];
			size_t j = i;
			while (j > b && row_lt(&x, &r[j - 1])) {
				r[j] = r[j - 1];
				j--;
			}
			r[j] = x;
		}
	}
	hf_row4 *src = r, *dst = tmp;
	for (size_t w = block; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			if (mid == hi || !row_lt(&src[mid], &src[mid - 1])) {
				memcpy(dst + lo, src + lo, (hi - lo) * sizeof *src);   /* already in order */
				continue;
			}
			while (i < mid && j < hi)
				dst[k++] = row_lt(&src[j], &src[i]) ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		hf_row4 *t = src;
		src = dst;
		dst = t;
	}
	return src;
}

/* The runs are written packed: each column as the difference from the same
 * column of the row before (0 before the first row of a run), modulo 2^64,
 * in 7-bit groups (a varint); the first column ascends within a run, the
 * others are zigzag-encoded so that a small step down is small too.  The
 * 1 GB benchmark dump's four sorts wrote 1.8 GB of 32-byte rows during the
 * load, and copying them into the page cache took 2.9 s of the core the
 * parser needs (perf, 2026-11-23); packed, they write 330 MB (4.9 to 6.5
 * bytes a row), for about 1.5 s more of packing and unpacking. */
#define ROW_MAX_BYTES 40             /* four varints of 10 bytes */
#define PACK_BYTES ((size_t)1 << 16) /* written at a time */

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint64_t zigzag(uint64_t d)
{
	return (d << 1) ^ (0 - (d >> 63));
}

static inline uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

static inline int64_t as_signed(uint64_t u)
{
	int64_t i;
	memcpy(&i, &u, sizeof i);
	return i;
}

/* Appends rows[0..n), sorted, to the run file as one packed run. */
static bool write_run(hf_rowsort *s, const hf_row4 *rows, size_t n)
{
	int fd = fileno(s->file);
	uint8_t *p = s->pack, *lim = s->pack + PACK_BYTES;
	uint64_t prev[4] = { 0, 0, 0, 0 };
	for (size_t i = 0; i < n; i++) {
		if (p >= lim) {
			if (hf_pwrite_full(fd, s->pack, (size_t)(p - s->pack), s->bytes))
				return false;
			s->bytes += (uint64_t)(p - s->pack);
			p = s->pack;
		}
		const hf_row4 *r = &rows[i];
		uint64_t k = (uint64_t)r->k[0];
		p = put_varint(p, k - prev[0]);
		prev[0] = k;
		for (int c = 1; c < 4; c++) {
			k = (uint64_t)r->k[c];
			p = put_varint(p, zigzag(k - prev[c]));
			prev[c] = k;
		}
	}
	if (p > s->pack && hf_pwrite_full(fd, s->pack, (size_t)(p - s->pack), s->bytes))
		return false;
	s->bytes += (uint64_t)(p - s->pack);
	return true;
}

/* Sorts s->work and appends it to the run file as one run (on the worker
 * thread, or on the caller's when there is none). */
static void sort_run(void *arg)
{
	hf_rowsort *s = arg;
	if (!s->nwork || s->werr)
		return;
	hf_row4 *out = sort_rows(s->work, s->tmp, s->nwork);
	if (!s->file && !(s->file = hf_tmpfile())) {
		s->werr = errno ? errno : EIO;
		return;
	}
	if (!write_run(s, out, s->nwork)) {
		s->werr = errno ? errno : EIO;
		return;
	}
	s->run_end[s->nruns] = s->written += s->nwork;
	s->run_bytes[s->nruns++] = s->bytes;
	s->nwork = 0;
}

bool hf_rowsort_init(hf_rowsort *s, size_t rows_per_run)
{
	memset(s, 0, sizeof *s);
	s->cap = rows_per_run ? rows_per_run : HF_ROWSORT_ROWS;
	s->fill = malloc(s->cap * sizeof *s->fill);
	s->work = malloc(s->cap * sizeof *s->work);
	s->tmp = malloc(s->cap * sizeof *s->tmp);
	s->pack = malloc(PACK_BYTES + ROW_MAX_BYTES);
	s->caprun = 64;
	s->run_end = malloc(s->caprun * sizeof *s->run_end);
	s->run_bytes = malloc(s->caprun * sizeof *s->run_bytes);
	if (!s->fill || !s->work || !s->tmp || !s->pack || !s->run_end || !s->run_bytes) {
		hf_rowsort_free(s);
		return false;
	}
	s->threaded = hf_worker_start(&s->worker, sort_run, s);
	return true;
}

static bool grow_runs(hf_rowsort *s)
{
	uint64_t *e = realloc(s->run_end, 2 * s->caprun * sizeof *e);
	if (!e)
		return false;
	s->run_end = e;
	uint64_t *b = realloc(s->run_bytes, 2 * s->caprun * sizeof *b);
	if (!b)
		return false;
	s->run_bytes = b;
	s->caprun *= 2;
	return true;
}

/* The full buffer goes to the worker; the caller fills the other. */
hf_status hf_rowsort_spill(hf_rowsort *s, hf_error *err)
{
	hf_worker_wait(&s->worker);
	if (s->werr)
		return hf_error_set(err, HF_ERR_IO, "cannot write the temporary file of an index in %s (TMPDIR): %s",
		                    hf_tmpdir(), strerror(s->werr));
	if (!s->nfill)
		return HF_OK;
	if (s->nruns + 1 >= s->caprun && !grow_runs(s))
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	hf_row4 *t = s->work;
	s->work = s->fill;
	s->fill = t;
	s->nwork = s->nfill;
	s->nfill = 0;
	if (s->threaded)
		hf_worker_post(&s->worker);
	else
		sort_run(s);
	return HF_OK;
}

/* ---- the merge ---- */
#define RAW_BYTES ((size_t)1 << 14)   /* read at a time from each run */

typedef struct run_reader {
	uint64_t off, end;     /* bytes of the run still to read from the file */
	uint64_t rows;         /* rows of the run still to decode */
	uint8_t *raw;          /* [RAW_BYTES]: raw[pos..len) read, not decoded */
	size_t pos, len;
	uint64_t prev[4];
	hf_row4 row;           /* the run's current row */
} run_reader;

static bool get_varint(run_reader *r, uint64_t *v)
{
	uint64_t x = 0;
	for (unsigned shift = 0; shift < 64 && r->pos < r->len; shift += 7) {
		uint8_t b = r->raw[r->pos++];
		x |= (uint64_t)(b & 0x7F) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

/* The run's next row into r->row: 1, 0 at its end, -1 when the file
 * cannot be read or does not hold what was written. */
static int reader_next(hf_rowsort *s, run_reader *r)
{
	if (!r->rows)
		return 0;
	if (r->len - r->pos < ROW_MAX_BYTES && r->off < r->end) {
		memmove(r->raw, r->raw + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->pos = 0;
		uint64_t left = r->end - r->off;
		size_t want = RAW_BYTES - r->len;
		if (want > left)
			want = (size_t)left;
		size_t got;
		if (hf_pread_full(fileno(s->file), r->raw + r->len, want, r->off, &got) || got < want)
			return -1;
		r->off += want;
		r->len += want;
	}
	uint64_t d;
	if (!get_varint(r, &d))
		return -1;
	r->prev[0] += d;
	for (int c = 1; c < 4; c++) {
		if (!get_varint(r, &d))
			return -1;
		r->prev[c] += unzigzag(d);
	}
	for (int c = 0; c < 4; c++)
		r->row.k[c] = as_signed(r->prev[c]);
	r->rows--;
	return 1;
}

static bool heap_lt(const hf_rowsort *s, uint32_t a, uint32_t b)
{
	return row_lt(&s->readers[a].row, &s->readers[b].row);
}

static void heap_down(hf_rowsort *s, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < s->nheap && heap_lt(s, s->heap[l], s->heap[m]))
			m = l;
		if (l + 1 < s->nheap && heap_lt(s, s->heap[l + 1], s->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		uint32_t t = s->heap[i];
		s->heap[i] = s->heap[m];
		s->heap[m] = t;
		i = m;
	}
}

hf_status hf_rowsort_finish(hf_rowsort *s, hf_error *err)
{
	if (s->merging)
		return HF_OK;
	hf_status st = hf_rowsort_spill(s, err);
	if (st)
		return st;
	hf_worker_wait(&s->worker);
	hf_worker_stop(&s->worker);
	s->threaded = false;
	if (s->werr)
		return hf_error_set(err, HF_ERR_IO, "cannot write the temporary file of an index in %s (TMPDIR): %s",
		                    hf_tmpdir(), strerror(s->werr));
	/* The sorting buffers go; the merge reads RAW_BYTES of each run at a
	 * time. */
	free(s->work);
	free(s->tmp);
	free(s->fill);
	free(s->pack);
	s->work = s->tmp = s->fill = NULL;
	size_t nr = s->nruns ? s->nruns : 1;
	s->pack = malloc(nr * RAW_BYTES);
	s->readers = calloc(nr, sizeof *s->readers);
	s->heap = calloc(nr, sizeof *s->heap);
	if (!s->readers || !s->heap || !s->pack) {
		s->werr = ENOMEM;   /* no second finish, no rows (hf_rowsort_free frees) */
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	}
	for (size_t r = 0; r < s->nruns; r++) {
		run_reader *rd = &s->readers[r];
		rd->off = r ? s->run_bytes[r - 1] : 0;
		rd->end = s->run_bytes[r];
		rd->rows = s->run_end[r] - (r ? s->run_end[r - 1] : 0);
		rd->raw = s->pack + r * RAW_BYTES;
		int got = reader_next(s, rd);
		if (got < 0) {
			s->werr = EIO;
			return hf_error_set(err, HF_ERR_IO, "cannot read the temporary file of an index");
		}
		if (got)
			s->heap[s->nheap++] = (uint32_t)r;
	}
	for (size_t i = s->nheap / 2; i-- > 0;)
		heap_down(s, i);
	s->merging = true;
	return HF_OK;
}

/* The next row of the merge itself. */
static int merge_next(hf_rowsort *s, hf_row4 *out)
{
	if (!s->merging)
		return s->werr ? -1 : 0;   /* a finish that failed, or none */
	if (!s->nheap)
		return 0;
	run_reader *r = &s->readers[s->heap[0]];
	*out = r->row;
	int got = reader_next(s, r);
	if (got < 0)
		return -1;
	if (!got)
		s->heap[0] = s->heap[--s->nheap];
	if (s->nheap)
		heap_down(s, 0);
	return 1;
}

/* The merge ahead of the reader (hf_rowsort_prefetch): the worker fills
 * block s->mfill while the reader takes the rows of the other. */
#define AHEAD_ROWS ((size_t)1 << 14)   /* 512 KiB a block */

static void merge_ahead(void *arg)
{
	hf_rowsort *s = arg;
	hf_row4 *b = s->ahead[s->mfill];
	size_t n = 0;
	int got = 1;
	while (n < AHEAD_ROWS && (got = merge_next(s, &b[n])) == 1)
		n++;
	s->ahead_n[s->mfill] = n;
	if (got < 0)
		s->werr = EIO;
}

bool hf_rowsort_prefetch(hf_rowsort *s)
{
	if (!s->merging || s->prefetch)
		return s->prefetch;
	s->ahead[0] = malloc(2 * AHEAD_ROWS * sizeof *s->ahead[0]);
	if (!s->ahead[0] || !hf_worker_start(&s->worker, merge_ahead, s)) {
		free(s->ahead[0]);
		s->ahead[0] = NULL;
		return false;
	}
	s->ahead[1] = s->ahead[0] + AHEAD_ROWS;
	s->mfill = 0;
	merge_ahead(s);            /* the first block here, the next on the worker */
	s->mcur = 0;
	s->mpos = 0;
	s->ahead_n[1] = 0;
	if (s->ahead_n[0] == AHEAD_ROWS) {
		s->mfill = 1;
		hf_worker_post(&s->worker);
	}
	s->prefetch = true;
	return true;
}

int hf_rowsort_next(hf_rowsort *s, hf_row4 *out)
{
	if (!s->prefetch)
		return merge_next(s, out);
	if (s->mpos == s->ahead_n[s->mcur]) {
		if (s->ahead_n[s->mcur] < AHEAD_ROWS)   /* a short block is the last */
			return s->werr ? -1 : 0;
		hf_worker_wait(&s->worker);
		s->mcur = s->mfill;
		s->mpos = 0;
		if (s->ahead_n[s->mcur] == AHEAD_ROWS) {
			s->mfill = 1 - s->mcur;
			hf_worker_post(&s->worker);
		}
		if (s->mpos == s->ahead_n[s->mcur])
			return s->werr ? -1 : 0;
	}
	*out = s->ahead[s->mcur][s->mpos++];
	return 1;
}

void hf_rowsort_free(hf_rowsort *s)
{
	hf_worker_stop(&s->worker);
	free(s->fill);
	free(s->work);
	free(s->tmp);
	free(s->pack);
	free(s->ahead[0]);
	free(s->run_end);
	free(s->run_bytes);
	free(s->readers);
	free(s->heap);
	if (s->file)
		fclose(s->file);
	memset(s, 0, sizeof *s);
}
