/*
 * Analysis of a heap database: reachability and distance from the GC roots
 * (breadth-first search), the dominator tree (Lengauer-Tarjan) and retained
 * sizes, written to node_analysis and dump_analysis (schema/heapdb.sql).
 *
 * Memory.  Objects are numbered densely in key order (the node table is
 * clustered by identifier, so a scan gives the ids sorted and an id maps to
 * its number by a search); everything is an array of uint32 indexed by
 * object number or by depth-first number, allocated whole and freed as soon
 * as the next phase no longer needs it.  N objects, E references
 * (class references included), n reachable objects + 1 (the super-root);
 * the arrays held at once, phase by phase:
 *
 *   load     ids 8N, class ids 8N, successor offsets 4N, successors 4E (up to
 *            8E while the array doubles), the id directory (at most 2N)
 *   search   successor CSR 4N + 4E, distance 4N, queue 4N
 *   (the distances then wait in a temporary file until the output)
 *   DFS      successor CSR, DFS number 4N, parent 4n, cursor 4n
 *   preds    the above less the cursor, predecessor CSR 4n + 4E
 *   dominators  DFS number, link-eval records (ancestor, label, the
 *            label's semidominator) 12n, idom 4n (the parents' array
 *            again), predecessor CSR 4n + 4E
 *   output   ids 8N, retained 8N, distance 4N, dominator 4N, order 4n
 *
 * A reachable object other than a root has a strong reference into it, so
 * E >= n - roots and each phase stays within 24N + 8E bytes.
 *
 * Those arrays come from hf_bigmem (bigmem.c): each one of a MiB or more is
 * a temporary file, mapped, whose pages are released whenever the process's
 * resident size passes the memory limit (hf_analysis_options.memory_limit,
 * 512 MiB by default), so that a dump of any size is analysed in about that
 * much memory.  Released pages come back from the page cache when touched
 * (or from the disk, when the kernel needed the memory meanwhile).  On the
 * 5 GB benchmark dump (49 M objects, 1.5 GB of arrays at the peak) the
 * peak resident size of hprof2heapdb fell from 1,698 to 627 MiB, its time
 * did not move (146.4 s against 146.8 s with the arrays in malloc'd
 * memory, one run each); heapdb-analyze alone, whose computation nothing
 * hides, took 66 s instead of 57 s.  Below the limit nothing is released
 * (the 1 GB dump's analysis, 355 MB of arrays, took as long as in plain
 * memory), though the kernel writes the files' pages to the disk in the
 * background as it does any file's.
 *
 * Lengauer-Tarjan, as implemented here: vertices are depth-first numbers,
 * 0 the super-root above every GC root.  The steps go from the last vertex w
 * down to 1; the vertices > w form the link-eval forest, so a link is
 * implicit (parent and ancestor share one array, and "linked" is "number
 * > w").  The bucket of a vertex s (the vertices whose semidominator is s)
 * is emptied at step s itself, before s joins the forest: at that moment the
 * forest holds exactly the tree path below s, which is what eval needs.  The
 * bucket is a linked list whose head sits in idom[s] (unused until step s)
 * and whose links sit in idom[] of its vertices (unused until the bucket is
 * emptied).  eval compresses paths with pointer reversal instead of
 * recursion or a stack.  Everything eval reads or writes of a vertex is in
 * one 12-byte record, together with the semidominator of its label: one
 * page per vertex visited instead of three (ancestor, label, then the
 * label's semi), which is what counts once the arrays no longer fit in the
 * memory limit.  No array of semidominators is kept: a vertex's own is
 * needed only while its label is itself (in the record) and when its
 * bucket is emptied (it is then w).  On the 5 GB benchmark dump (49 M objects; heapdb-analyze, limit
 * 512 MiB) the dominators took 10.9 s with four arrays, 5.05 s with the
 * records; in memory, the 1 GB dump's 0.45-0.49 s either way.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include <sqlite3.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NONE UINT32_MAX
#define WEAK_BIT 0x80000000u        /* a successor that is a Reference.referent */
#define MAX_NODES 0x7FFFFFFEu
#define DIST_WEAK (UINT32_MAX - 1)  /* distance[] of an object reachable only weakly */
#define DIST_NONE UINT32_MAX        /* distance[] of an unreachable object */

static const char analysis_ddl[] =
	"DROP INDEX IF EXISTS node_analysis_by_dominator;"
	"DROP INDEX IF EXISTS node_analysis_by_retained;"
	"DROP TABLE IF EXISTS node_analysis;"
	"DROP TABLE IF EXISTS dump_analysis;"
	"CREATE TABLE node_analysis (identifier INTEGER NOT NULL, dump INTEGER NOT NULL,"
	" reachable INTEGER NOT NULL, distance INTEGER, dominator INTEGER, retained_size INTEGER,"
	" PRIMARY KEY (identifier, dump)) WITHOUT ROWID;"
	"CREATE TABLE dump_analysis (dump INTEGER PRIMARY KEY, nodes INTEGER NOT NULL,"
	" roots INTEGER NOT NULL, missing_roots INTEGER NOT NULL, edges INTEGER NOT NULL,"
	" class_edges INTEGER NOT NULL, referent_edges INTEGER NOT NULL,"
	" dangling_edges INTEGER NOT NULL, reachable INTEGER NOT NULL,"
	" reachable_bytes INTEGER NOT NULL, weakly_reachable INTEGER NOT NULL,"
	" weakly_reachable_bytes INTEGER NOT NULL, unreachable INTEGER NOT NULL,"
	" unreachable_bytes INTEGER NOT NULL, max_distance INTEGER);";

static const char analysis_indexes[] =
	"CREATE INDEX node_analysis_by_dominator ON node_analysis (dominator, dump);";

/* node_analysis_by_dominator is made empty with the table and filled from
 * sorted keys (presorted.c): the rows go into node_analysis through an
 * imposter over its b-tree, and the index's entries, sorted by a counting
 * sort over the objects (the dominators are objects, numbered in id order),
 * through an imposter over the index's.  CREATE INDEX took 5.0-5.2 s for
 * the 10.1 M objects of the 1 GB benchmark dump. */
static const char imp_table[] = "hf-imp-node_analysis";
static const char imp_index[] = "hf-imp-node_analysis_by_dominator";

/* (Again after hf_analysis_run_beside's work, which may forget them.) */
static bool open_imposters(sqlite3 *db)
{
	return hf_imposter_open(db, "node_analysis", imp_table,
	                        "identifier, dump, reachable, distance, dominator, retained_size,"
	                        " PRIMARY KEY (identifier, dump)") &&
	       hf_imposter_open(db, "node_analysis_by_dominator", imp_index,
	                        "dominator, dump, identifier, PRIMARY KEY (dominator, dump, identifier)");
}

/* Statements kept from one dump to the next (an_prepare, an_done): each
 * dump's analysis prepared its statements anew, which was three quarters of
 * hprof2heapdb's time on a file of 20,000 one-array dumps.  Found by their
 * SQL's address (the texts are literals); one in use is not handed out
 * twice. */
#define AN_STMTS 16
typedef struct an_stmts {
	struct {
		const char *sql;
		sqlite3_stmt *st;
		bool busy;
	} e[AN_STMTS];
} an_stmts;

static void an_stmts_free(an_stmts *c)
{
	for (int i = 0; i < AN_STMTS; i++)
		sqlite3_finalize(c->e[i].st);
	memset(c, 0, sizeof *c);
}

/* One dump's analysis: the arrays of the phases above and its counts. */
typedef struct an {
	sqlite3 *db;
	hf_error *err;
	int64_t dump;
	size_t mem, peak;        /* bytes held in the arrays, now and at most */

	uint32_t n;              /* objects of the dump */
	int64_t *ids;            /* [n] sorted (as SQLite orders integers) */
	hf_id_index by_id;       /* lookups in ids */
	uint32_t *succ_off;      /* [n+1] */
	uint32_t *succ;          /* successors; WEAK_BIT marks a referent */
	uint64_t nsucc;
	uint32_t *roots;         /* distinct root objects */
	uint32_t nroots;

	uint32_t *dist;          /* [n] */
	uint32_t *dfn;           /* [n] depth-first number, 0 = not reached */
	uint32_t nv;             /* reachable objects + 1 */
	uint32_t *idom;          /* [nv] by depth-first number */

	/* counts for dump_analysis */
	uint64_t class_edges, referent_edges, dangling_edges, missing_roots, edges;
	uint64_t reachable_bytes, weak_bytes, unreachable_bytes, weak, unreachable;
	uint32_t max_distance;
	const hf_analysis_graph *graph;  /* the graph from the writer; NULL: the tables */
	hf_bigmem *bm;           /* where the arrays come from */
	FILE *park;              /* with the graph: (id, size) of the objects in order */
	bool presorted;          /* node_analysis and its index filled through imposters */
	bool by_dump;            /* the tables read through the indexes by dump (dump_indexes) */
	hf_analysis_beside beside;   /* see hf_analysis_run_beside; NULL once called */
	void *beside_ctx;
	an_stmts *stmts;         /* the run's statements; NULL: none kept */
} an;

/* ---- memory ------------------------------------------------------------- */

static void *an_alloc(an *a, size_t count, size_t size)
{
	if (count && size > SIZE_MAX / count)
		return NULL;
	void *p = hf_bigmem_alloc(a->bm, count * size);
	if (p) {
		a->mem += count * size;
		if (a->mem > a->peak)
			a->peak = a->mem;
	}
	return p;
}

static void an_free(an *a, void *pp, size_t count, size_t size)
{
	void **p = pp;
	if (*p) {
		hf_bigmem_release(a->bm, *p);
		a->mem -= count * size;
	}
	*p = NULL;
}

/* Long loops over the arrays call an_pace every step: every PACE_STEPS
 * steps it hands over to hf_bigmem_pace, which reads the clock and, when no
 * look was taken for a while, looks at the resident size itself (bigmem.c
 * says why).  A step may fault 2 MiB back, so they are
 * few; the count stays in a register of the loop's function. */
#define PACE_STEPS 128u
static inline void an_pace(const an *a, unsigned *left)
{
	if (!--*left) {
		*left = PACE_STEPS;
		hf_bigmem_pace(a->bm);
	}
}

/* Sets n uint32s to v, pacing (a new array's pages are made as it goes). */
static void an_fill32(const an *a, uint32_t *p, uint32_t v, size_t n)
{
	unsigned pace = PACE_STEPS;
	for (size_t i = 0; i < n; i += 4096) {
		size_t m = n - i < 4096 ? n - i : 4096;
		for (size_t k = 0; k < m; k++)
			p[i + k] = v;
		an_pace(a, &pace);
	}
}

/* Grows *p (count elements) to hold at least need; doubles. */
static bool an_grow(an *a, void *pp, size_t *cap, size_t need, size_t size)
{
	void **p = pp;
	if (need <= *cap)
		return true;
	size_t nc = *cap ? *cap : 1024;
	while (nc < need)
		nc *= 2;
	void *np = hf_bigmem_realloc(a->bm, *p, *cap * size, nc * size);
	if (!np)
		return false;
	a->mem += (nc - *cap) * size;
	if (a->mem > a->peak)
		a->peak = a->mem;
	*p = np;
	*cap = nc;
	return true;
}

static hf_status an_nomem(an *a)
{
	return hf_error_set(a->err, HF_ERR_NOMEM, "analysis: out of memory");
}

static hf_status an_sqlfail(an *a, const char *what)
{
	int code = sqlite3_errcode(a->db);
	if (code == SQLITE_FULL || code == SQLITE_IOERR) {
		int sys = sqlite3_system_errno(a->db);
		return hf_error_set(a->err, HF_ERR_IO,
		                    "analysis: cannot write the database or SQLite's temporary files in %s: %s",
		                    hf_sqlite_tmpdir(), sys ? strerror(sys) : sqlite3_errmsg(a->db));
	}
	return hf_error_set(a->err, code == SQLITE_NOMEM ? HF_ERR_NOMEM
	                            : hf_sqlite_damaged(code) ? HF_ERR_FORMAT : HF_ERR_IO,
	                    "analysis: SQLite: %s: %s", what, sqlite3_errmsg(a->db));
}

static hf_status an_prepare(an *a, const char *sql, sqlite3_stmt **st)
{
	an_stmts *c = a->stmts;
	int free_slot = -1;
	for (int i = 0; c && i < AN_STMTS; i++) {
		if (c->e[i].sql == sql && !c->e[i].busy) {
			c->e[i].busy = true;
			*st = c->e[i].st;
			return HF_OK;
		}
		if (!c->e[i].sql && free_slot < 0)
			free_slot = i;
	}
	if (sqlite3_prepare_v2(a->db, sql, -1, st, NULL) != SQLITE_OK)
		return an_sqlfail(a, "prepare");
	if (free_slot >= 0) {
		c->e[free_slot].sql = sql;
		c->e[free_slot].st = *st;
		c->e[free_slot].busy = true;
	}
	return HF_OK;
}

/* Done with a statement of an_prepare: kept for the next dump, or
 * finalized. */
static void an_done(an *a, sqlite3_stmt *st)
{
	an_stmts *c = a->stmts;
	for (int i = 0; st && c && i < AN_STMTS; i++)
		if (c->e[i].st == st) {
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			c->e[i].busy = false;
			return;
		}
	sqlite3_finalize(st);
}

static bool table_exists(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st;
	bool found = false;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
	                       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		found = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	return found;
}

/* ---- id -> object number ----------------------------------------------- */

static uint32_t an_find(const an *a, int64_t id)
{
	size_t i = hf_id_index_find(&a->by_id, id);
	return i < a->n ? (uint32_t)i : NONE;
}

/* ---- loading ------------------------------------------------------------ */

/*
 * The dumps after the first are read by dump: the node, edge and root
 * tables, keyed by object id, have no order by dump, so each was a scan of
 * the whole table, and a file of many small dumps took dumps times objects
 * (16,000 dumps of an array each, 432 KB, 12.6 s).  Past AN_SCAN_DUMPS
 * other dumps, indexes by dump that hold what the analysis reads are made
 * for the time of the run (dump_indexes) and the reads go through them.
 * A file of a few dumps is read by scans, as before: an index costs a sort
 * of the table and its writing, several scans' worth.
 */
#define AN_SCAN_DUMPS 16
#define AN_NODE_BY_DUMP "heapfmt_analysis_node_by_dump"
#define AN_EDGE_BY_DUMP "heapfmt_analysis_edge_by_dump"
#define AN_ROOT_BY_DUMP "heapfmt_analysis_root_by_dump"
#define AN_CLASS_BY_DUMP "heapfmt_analysis_class_by_dump"

static const char dump_indexes_ddl[] =
	"CREATE INDEX " AN_NODE_BY_DUMP " ON node (dump, identifier, class, size);"
	"CREATE INDEX " AN_EDGE_BY_DUMP " ON edge (dump, source, dest, label, edgetypeid);"
	"CREATE INDEX " AN_ROOT_BY_DUMP " ON hprof_gc_root (dump, kind, object);";
static const char dump_indexes_drop[] =
	"DROP INDEX IF EXISTS " AN_NODE_BY_DUMP ";"
	"DROP INDEX IF EXISTS " AN_EDGE_BY_DUMP ";"
	"DROP INDEX IF EXISTS " AN_ROOT_BY_DUMP ";"
	"DROP INDEX IF EXISTS " AN_CLASS_BY_DUMP ";";

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

/* Reads the ids and class ids of the dump's objects.  With *dump < 0 the
 * dump is the first one met, and every other dump number is added to
 * others (sorted, without repeats). */
static hf_status load_nodes(an *a, int64_t **class_ids, int64_t **others, size_t *nothers,
                            size_t *cap_others, bool discover)
{
	sqlite3_stmt *st;
	hf_status rc = an_prepare(a, discover
		? "SELECT identifier, dump, class FROM node NOT INDEXED ORDER BY identifier, dump"
		: a->by_dump
		? "SELECT identifier, dump, class FROM node INDEXED BY " AN_NODE_BY_DUMP " WHERE dump = ?1"
		  " ORDER BY identifier"
		: "SELECT identifier, dump, class FROM node NOT INDEXED WHERE dump = ?1"
		  " ORDER BY identifier, dump", &st);
	if (rc)
		return rc;
	if (!discover)
		sqlite3_bind_int64(st, 1, a->dump);
	size_t cap = 0, ccap = 0;
	/* The other dumps met, once each (sorted at the end). */
	hf_map seen;
	hf_map_init(&seen);
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0), dump = sqlite3_column_int64(st, 1);
		if (discover && a->dump < 0)
			a->dump = dump;
		if (dump != a->dump) {
			if (hf_map_get(&seen, (uint64_t)dump))
				continue;
			if (!hf_map_put(&seen, (uint64_t)dump, 1) ||
			    !an_grow(a, others, cap_others, *nothers + 1, sizeof **others)) {
				hf_map_free(&seen);
				an_done(a, st);
				return an_nomem(a);
			}
			(*others)[(*nothers)++] = dump;
			continue;
		}
		if (a->n >= MAX_NODES) {
			hf_map_free(&seen);
			an_done(a, st);
			return hf_error_set(a->err, HF_ERR_LIMIT, "analysis: more than %u objects in dump %lld",
			                    MAX_NODES, (long long)a->dump);
		}
		if (a->n && id <= a->ids[a->n - 1]) {
			hf_map_free(&seen);
			an_done(a, st);
			return hf_error_set(a->err, HF_ERR_FORMAT,
			                    "analysis: the node table is not in key order");
		}
		if (!an_grow(a, &a->ids, &cap, (size_t)a->n + 1, sizeof *a->ids) ||
		    !an_grow(a, class_ids, &ccap, (size_t)a->n + 1, sizeof **class_ids)) {
			hf_map_free(&seen);
			an_done(a, st);
			return an_nomem(a);
		}
		a->ids[a->n] = id;
		(*class_ids)[a->n] = sqlite3_column_int64(st, 2);
		a->n++;
	}
	hf_map_free(&seen);
	an_done(a, st);
	if (step != SQLITE_DONE)
		return an_sqlfail(a, "reading node");
	if (discover && *nothers)
		qsort(*others, *nothers, sizeof **others, cmp_i64);
	/* Keep exactly n of each (the growth left room). */
	a->mem -= (cap - a->n) * sizeof *a->ids + (ccap - a->n) * sizeof **class_ids;
	if (a->n) {
		void *p = hf_bigmem_realloc(a->bm, a->ids, cap * sizeof *a->ids, a->n * sizeof *a->ids);
		if (p)
			a->ids = p;
		p = hf_bigmem_realloc(a->bm, *class_ids, ccap * sizeof **class_ids,
		                      a->n * sizeof **class_ids);
		if (p)
			*class_ids = p;
	}
	return HF_OK;
}

/* The ids and class ids of the objects from the writer's graph (sorted by
 * id); their ids and shallow sizes wait for the output in a->park (without a
 * temporary file, the output reads them from the table). */
#define PARK_RECORDS 4096

static hf_status graph_nodes(an *a, int64_t **class_ids)
{
	hf_rowsort *s = a->graph->nodes;
	if (s->written > MAX_NODES)
		return hf_error_set(a->err, HF_ERR_LIMIT, "analysis: more than %u objects in dump %lld",
		                    MAX_NODES, (long long)a->dump);
	uint32_t n = (uint32_t)s->written;
	a->ids = an_alloc(a, n ? n : 1, sizeof *a->ids);
	*class_ids = an_alloc(a, n ? n : 1, sizeof **class_ids);
	int64_t *park = malloc(2 * PARK_RECORDS * sizeof *park);
	if (!a->ids || !*class_ids || !park) {
		free(park);
		return an_nomem(a);
	}
	a->park = hf_tmpfile();
	bool parked = a->park != NULL;
	size_t len = 0;
	hf_row4 r;
	int got;
	uint32_t i = 0;
	hf_status rc = HF_OK;
	unsigned pace = PACE_STEPS;
	while ((got = hf_rowsort_next(s, &r)) == 1) {
		an_pace(a, &pace);
		if (i == n || (i && r.k[0] <= a->ids[i - 1])) {
			rc = hf_error_set(a->err, HF_ERR_FORMAT, "analysis: the graph's nodes are not in key order");
			break;
		}
		a->ids[i] = r.k[0];
		(*class_ids)[i] = r.k[1];
		i++;
		park[2 * len] = r.k[0];
		park[2 * len + 1] = r.k[2];
		if (++len == PARK_RECORDS) {
			parked = parked && fwrite(park, 2 * sizeof *park, len, a->park) == len;
			len = 0;
		}
	}
	parked = parked && fwrite(park, 2 * sizeof *park, len, a->park) == len && fflush(a->park) == 0;
	free(park);
	if (!parked && a->park) {
		fclose(a->park);
		a->park = NULL;
	}
	if (!rc && got < 0)
		rc = hf_error_set(a->err, HF_ERR_IO, "analysis: cannot read the temporary file of the nodes");
	if (!rc && i != n)
		rc = hf_error_set(a->err, HF_ERR_IO, "analysis: %u of %u nodes read back", i, n);
	a->n = n;
	return rc;
}

/* The ids of the GC roots of the dump, as hprof_gc_root lists them. */
static hf_status read_roots(an *a, int64_t **ids, size_t *n, size_t *cap)
{
	sqlite3_stmt *st;
	/* Dalvik's UNREACHABLE (0x90) marks an object its collector found
	 * unreachable (it is dumped with the roots' sub-records, but holds
	 * nothing alive): not a root. */
	hf_status rc = an_prepare(a, a->by_dump
		? "SELECT object FROM hprof_gc_root INDEXED BY " AN_ROOT_BY_DUMP " WHERE dump = ?1"
		  " AND kind IS NOT 'UNREACHABLE'"
		: "SELECT object FROM hprof_gc_root WHERE dump = ?1 AND kind IS NOT 'UNREACHABLE'", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, a->dump);
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (!an_grow(a, ids, cap, *n + 1, sizeof **ids)) {
			an_done(a, st);
			return an_nomem(a);
		}
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	an_done(a, st);
	if (step != SQLITE_DONE)
		return an_sqlfail(a, "reading hprof_gc_root");
	return HF_OK;
}

/* The roots as distinct object numbers (a->roots); root_bits marks them. */
static hf_status map_roots(an *a, const int64_t *ids, size_t n, uint8_t *root_bits)
{
	size_t cap = 0;
	for (size_t r = 0; r < n; r++) {
		uint32_t i = an_find(a, ids[r]);
		if (i == NONE) {
			a->missing_roots++;
			continue;
		}
		if (root_bits[i >> 3] & (1u << (i & 7)))
			continue;
		root_bits[i >> 3] |= (uint8_t)(1u << (i & 7));
		if (!an_grow(a, &a->roots, &cap, (size_t)a->nroots + 1, sizeof *a->roots))
			return an_nomem(a);
		a->roots[a->nroots++] = i;
	}
	return HF_OK;
}

/* The classes of the dump that are java.lang.ref.Reference or extend it
 * (sorted ids), and the string ids naming Reference's field "referent". */
static hf_status load_reference_classes(an *a, int64_t **refs, size_t *nrefs, int64_t **labels,
                                        size_t *nlabels)
{
	*nrefs = *nlabels = 0;
	if (!table_exists(a->db, "node_class"))
		return HF_OK;
	sqlite3_stmt *st;
	hf_status rc = an_prepare(a, a->by_dump
		? "SELECT c.node_identifier, c.super, s.data = 'java.lang.ref.Reference'"
		  " FROM node_class AS c INDEXED BY " AN_CLASS_BY_DUMP
		  " LEFT JOIN strings AS s ON s.stringid = c.java_name"
		  " WHERE c.dump = ?1 ORDER BY c.node_identifier"
		: "SELECT c.node_identifier, c.super, s.data = 'java.lang.ref.Reference'"
		  " FROM node_class AS c LEFT JOIN strings AS s ON s.stringid = c.java_name"
		  " WHERE c.dump = ?1 ORDER BY c.node_identifier", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, a->dump);
	/* id, super, state (0 unknown, 1 a Reference class, 2 not one) */
	int64_t *cls = NULL;
	size_t n = 0, cap = 0;
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (!an_grow(a, &cls, &cap, 3 * (n + 1), sizeof *cls)) {
			an_done(a, st);
			an_free(a, &cls, cap, sizeof *cls);
			return an_nomem(a);
		}
		cls[3 * n] = sqlite3_column_int64(st, 0);
		cls[3 * n + 1] = sqlite3_column_int64(st, 1);
		cls[3 * n + 2] = sqlite3_column_int(st, 2) == 1 ? 1 : 0;
		n++;
	}
	an_done(a, st);
	if (step != SQLITE_DONE) {
		an_free(a, &cls, cap, sizeof *cls);
		return an_sqlfail(a, "reading node_class");
	}
	int64_t reference = 0;
	for (size_t i = 0; i < n; i++)
		if (cls[3 * i + 2] == 1)
			reference = cls[3 * i];
	size_t rcap = 0;
	for (size_t i = 0; i < n && reference; i++) {
		/* Walk up the superclass chain (at most n steps: a loop ends it). */
		int64_t c = cls[3 * i];
		int state = 2;
		for (size_t steps = 0; c && steps <= n; steps++) {
			int64_t key[3] = { c, 0, 0 };
			int64_t *hit = bsearch(key, cls, n, 3 * sizeof *cls, cmp_i64);
			if (!hit)
				break;
			if (hit[2] == 1) {
				state = 1;
				break;
			}
			c = hit[1];
		}
		if (state == 1) {
			if (!an_grow(a, refs, &rcap, *nrefs + 1, sizeof **refs)) {
				an_free(a, &cls, cap, sizeof *cls);
				return an_nomem(a);
			}
			(*refs)[(*nrefs)++] = cls[3 * i];
		}
	}
	an_free(a, &cls, cap, sizeof *cls);
	if (!reference)
		return HF_OK;
	/* The field's name as Reference's CLASS DUMP declares it; without the
	 * hprof_class_field table, every string "referent". */
	bool fields = table_exists(a->db, "hprof_class_field");
	rc = an_prepare(a, fields
		? "SELECT f.name FROM hprof_class_field AS f JOIN strings AS s ON s.stringid = f.name"
		  " WHERE f.class = ?1 AND f.static = 0 AND s.data = 'referent'"
		: "SELECT stringid FROM strings WHERE data = 'referent'", &st);
	if (rc)
		return rc;
	if (fields)
		sqlite3_bind_int64(st, 1, reference);
	size_t lcap = 0;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (!an_grow(a, labels, &lcap, *nlabels + 1, sizeof **labels)) {
			an_done(a, st);
			return an_nomem(a);
		}
		(*labels)[(*nlabels)++] = sqlite3_column_int64(st, 0);
	}
	an_done(a, st);
	if (step != SQLITE_DONE)
		return an_sqlfail(a, "reading the referent field");
	return HF_OK;
}

/* Builds the successor lists: for object i, first its class (unless the
 * class is a GC root, which no reference can change), then its edges in
 * key order.  A referent edge gets WEAK_BIT.
 *
 * Two threads: this one steps SQLite through the edge table and copies each
 * row into a queue block (hf_queue, internal.h); the other finds each
 * destination among the ids and appends to the lists.  With the narrower
 * scan below, measured on the 18 M references of the 1 GB benchmark dump
 * (heapdb-analyze): 4.0 s -> 2.9 s, of which the second thread is busy
 * 1.3 s; the scan is the rest. */
typedef struct edge_row {
	int64_t source, dest, label;
	int64_t type;            /* edgetypeid */
} edge_row;

typedef struct edge_lists {
	an *a;
	const uint32_t *class_of;
	const uint8_t *ref_bits;
	const int64_t *labels;
	size_t nlabels;
	size_t cap;              /* of a->succ */
	uint64_t k;              /* successors so far */
	uint32_t next;           /* the lists of the objects before next are open or closed */
} edge_lists;

static hf_status push_succ(edge_lists *l, uint32_t v, hf_error *err)
{
	an *a = l->a;
	if (l->k >= UINT32_MAX)
		return hf_error_set(err, HF_ERR_LIMIT, "analysis: more than 2^32 references in dump %lld",
		                    (long long)a->dump);
	if (!an_grow(a, &a->succ, &l->cap, l->k + 1, sizeof *a->succ))
		return hf_error_set(err, HF_ERR_NOMEM, "analysis: out of memory");
	a->succ[l->k++] = v;
	return HF_OK;
}

/* Opens the list of object next: its class first. */
static hf_status open_next(edge_lists *l, hf_error *err)
{
	an *a = l->a;
	uint32_t i = l->next++;
	a->succ_off[i] = (uint32_t)l->k;
	if (l->class_of[i] == NONE)
		return HF_OK;
	a->class_edges++;
	return push_succ(l, l->class_of[i], err);
}

static hf_status add_edges(void *ctx, const uint8_t *p, const uint8_t *end, hf_error *err)
{
	edge_lists *l = ctx;
	an *a = l->a;
	hf_status rc = HF_OK;
	unsigned pace = PACE_STEPS;
	for (; p < end && !rc; p += sizeof(edge_row)) {
		edge_row r;
		memcpy(&r, p, sizeof r);
		an_pace(a, &pace);
		while (l->next < a->n && a->ids[l->next] <= r.source && !rc)
			rc = open_next(l, err);
		if (rc)
			break;
		uint32_t dest = an_find(a, r.dest);
		if (l->next == 0 || a->ids[l->next - 1] != r.source || dest == NONE) {
			a->dangling_edges++;     /* from or to an object not in the dump */
			continue;
		}
		uint32_t src = l->next - 1;
		if (l->nlabels && r.type == 1 && (l->ref_bits[src >> 3] & (1u << (src & 7)))) {
			bool referent = false;
			for (size_t i = 0; i < l->nlabels && !referent; i++)
				referent = l->labels[i] == r.label;
			if (referent) {
				a->referent_edges++;
				rc = push_succ(l, dest | WEAK_BIT, err);
				continue;
			}
		}
		rc = push_succ(l, dest, err);
	}
	return rc;
}

/* The lists of the objects after the last source opened; the offsets ended. */
static hf_status close_lists(edge_lists *l)
{
	an *a = l->a;
	hf_status rc = HF_OK;
	while (!rc && l->next < a->n)
		rc = open_next(l, a->err);
	if (rc)
		return rc;
	a->succ_off[a->n] = (uint32_t)l->k;
	a->nsucc = l->k;
	a->edges = l->k - a->referent_edges;
	/* Give back the room the doubling left. */
	if (l->cap > l->k) {
		void *p = hf_bigmem_realloc(a->bm, a->succ, l->cap * sizeof *a->succ,
		                            (l->k ? l->k : 1) * sizeof *a->succ);
		if (p)
			a->succ = p;
		a->mem -= (l->cap - l->k) * sizeof *a->succ;
	}
	return HF_OK;
}

#define EDGE_BLOCK ((size_t)1 << 18)

/* Reading the edges of a Reference instance again by key costs about
 * 0.5 us (300,000 of them in 0.16 s in the sqlite3 shell, on the 1 GB
 * benchmark database), the two columns more in the scan about 0.045 us an
 * edge (0.8 s for 18 M), or 0.08 us an object: with more Reference instances
 * than one object in REF_BY_KEY, every row of the scan carries its kind and
 * name instead. */
#define REF_BY_KEY 16

static hf_status load_edges(an *a, const uint32_t *class_of, const uint8_t *ref_bits,
                            const int64_t *labels, size_t nlabels, uint32_t nrefobjs)
{
	/* Usually only source and dest are read from the scan (each column read
	 * costs, about 0.4 s for the 18 M edges of the 1 GB dump): the edges of
	 * an instance of a Reference class, the only ones whose kind and field
	 * name matter, are read again with them, by key. */
	bool wide = nlabels && nrefobjs > a->n / REF_BY_KEY;
	sqlite3_stmt *st, *own = NULL;
	hf_status rc = an_prepare(a, a->by_dump
		? (wide ? "SELECT source, dest, label, edgetypeid FROM edge INDEXED BY " AN_EDGE_BY_DUMP
		          " WHERE dump = ?1 ORDER BY source"
		        : "SELECT source, dest FROM edge INDEXED BY " AN_EDGE_BY_DUMP
		          " WHERE dump = ?1 ORDER BY source")
		: wide
		? "SELECT source, dest, label, edgetypeid FROM edge NOT INDEXED WHERE dump = ?1"
		  " ORDER BY source"
		: "SELECT source, dest FROM edge NOT INDEXED WHERE dump = ?1"
		  " ORDER BY source", &st); /* the scan order, no sorter: the order of a
		                             * source's references does not change the results */
	if (rc)
		return rc;
	if (nlabels && !wide && (rc = an_prepare(a, "SELECT dest, edgetypeid, label FROM edge"
	                                            " WHERE source = ?1 AND dump = ?2", &own))) {
		an_done(a, st);
		return rc;
	}
	sqlite3_bind_int64(st, 1, a->dump);
	if (own)
		sqlite3_bind_int64(own, 2, a->dump);
	a->succ_off = an_alloc(a, (size_t)a->n + 1, sizeof *a->succ_off);
	if (!a->succ_off) {
		an_done(a, st);
		an_done(a, own);
		return an_nomem(a);
	}
	edge_lists l = { a, class_of, ref_bits, labels, nlabels, 0, 0, 0 };
	hf_queue q;
	hf_queue_init(&q, EDGE_BLOCK, add_edges, &l);
	uint32_t at = 0;         /* the first object whose id is >= the last source */
	int64_t skip = 0;        /* a source whose edges were read by key */
	bool skipping = false;
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		edge_row r = { sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
		               wide ? sqlite3_column_int64(st, 2) : 0, wide ? sqlite3_column_int64(st, 3) : 0 };
		if (skipping && r.source == skip)
			continue;
		skipping = false;
		if (own) {
			while (at < a->n && a->ids[at] < r.source)
				at++;
			if (at < a->n && a->ids[at] == r.source && (ref_bits[at >> 3] & (1u << (at & 7)))) {
				/* An instance of a Reference class: its edges with their kinds and names. */
				skip = r.source;
				skipping = true;
				sqlite3_bind_int64(own, 1, r.source);
				int ostep;
				while ((ostep = sqlite3_step(own)) == SQLITE_ROW) {
					edge_row e = { r.source, sqlite3_column_int64(own, 0),
					               sqlite3_column_int64(own, 2), sqlite3_column_int64(own, 1) };
					if ((rc = hf_queue_room(&q, sizeof e, a->err)))
						break;
					hf_queue_put(&q, &e, sizeof e);
				}
				sqlite3_reset(own);
				if (!rc && ostep != SQLITE_DONE)
					rc = an_sqlfail(a, "reading edge");
				if (rc)
					break;
				continue;
			}
		}
		if ((rc = hf_queue_room(&q, sizeof r, a->err)))
			break;
		hf_queue_put(&q, &r, sizeof r);
	}
	hf_status drained = hf_queue_drain(&q, rc ? NULL : a->err);
	hf_queue_free(&q);
	if (!rc && step != SQLITE_DONE && step != SQLITE_ROW)
		rc = an_sqlfail(a, "reading edge");
	an_done(a, st);
	an_done(a, own);
	if (!rc)
		rc = drained;
	return rc ? rc : close_lists(&l);
}

/* The same lists from the writer's graph (hf_analysis_graph): its edges come
 * sorted by source, each with its kind and field name, so that no edge needs
 * reading again; by destination among the edges of one source, which does
 * not change the results either. */
static hf_status graph_edges(an *a, const uint32_t *class_of, const uint8_t *ref_bits,
                             const int64_t *labels, size_t nlabels)
{
	_Static_assert(sizeof(edge_row) == sizeof(hf_row4), "a graph row is an edge_row");
	a->succ_off = an_alloc(a, (size_t)a->n + 1, sizeof *a->succ_off);
	if (!a->succ_off)
		return an_nomem(a);
	edge_lists l = { a, class_of, ref_bits, labels, nlabels, 0, 0, 0 };
	hf_row4 rows[64];
	hf_status rc = HF_OK;
	int got = 1;
	while (!rc && got == 1) {
		size_t k = 0;
		while (k < sizeof rows / sizeof *rows && (got = hf_rowsort_next(a->graph->edges, &rows[k])) == 1)
			k++;
		rc = add_edges(&l, (const uint8_t *)rows, (const uint8_t *)(rows + k), a->err);
	}
	if (!rc && got < 0)
		rc = hf_error_set(a->err, HF_ERR_IO, "analysis: cannot read the temporary file of the edges");
	return rc ? rc : close_lists(&l);
}

/* ---- reachability and distance ------------------------------------------ */

/* Breadth-first from the roots over strong references: dist[] is the number
 * of references on a shortest path from a root.  Then from everything
 * reached, over referents too: what that reaches in addition is only
 * weakly reachable. */
static hf_status search(an *a, uint32_t *nstrong)
{
	uint32_t n = a->n;
	a->dist = an_alloc(a, n, sizeof *a->dist);
	uint32_t *queue = an_alloc(a, n ? n : 1, sizeof *queue);
	if (!a->dist || !queue) {
		an_free(a, &queue, n ? n : 1, sizeof *queue);
		return an_nomem(a);
	}
	an_fill32(a, a->dist, DIST_NONE, n);
	unsigned pace = PACE_STEPS;
	uint32_t head = 0, tail = 0;
	for (uint32_t r = 0; r < a->nroots; r++) {
		a->dist[a->roots[r]] = 0;
		queue[tail++] = a->roots[r];
	}
	while (head < tail) {
		uint32_t u = queue[head++], du = a->dist[u] + 1;
		for (uint32_t k = a->succ_off[u], end = a->succ_off[u + 1]; k < end; k++) {
			uint32_t v = a->succ[k];
			if (!(v & WEAK_BIT) && a->dist[v] == DIST_NONE) {
				a->dist[v] = du;
				queue[tail++] = v;
			}
			an_pace(a, &pace);
		}
		an_pace(a, &pace);
	}
	*nstrong = tail;
	a->max_distance = tail ? a->dist[queue[tail - 1]] : 0;
	for (head = 0; head < tail; head++) {
		uint32_t u = queue[head];
		for (uint32_t k = a->succ_off[u], end = a->succ_off[u + 1]; k < end; k++) {
			uint32_t v = a->succ[k] & ~WEAK_BIT;
			if (a->dist[v] == DIST_NONE) {
				a->dist[v] = DIST_WEAK;
				queue[tail++] = v;
			}
			an_pace(a, &pace);
		}
		an_pace(a, &pace);
	}
	a->weak = tail - *nstrong;
	a->unreachable = n - tail;
	an_free(a, &queue, n ? n : 1, sizeof *queue);
	return HF_OK;
}

/* ---- depth-first numbering ---------------------------------------------- */

/* Numbers the strongly reachable objects in depth-first preorder from the
 * super-root (0), whose successors are the roots.  The path being explored
 * is the chain of parents, and each vertex keeps its own position in its
 * successor list (cursor), so no stack is needed.  parent[] comes out in
 * depth-first numbers. */
static hf_status number(an *a, uint32_t **parent_out)
{
	uint32_t nv = a->nv;
	a->dfn = an_alloc(a, a->n, sizeof *a->dfn);
	uint32_t *parent = an_alloc(a, nv, sizeof *parent);
	uint32_t *cursor = an_alloc(a, nv, sizeof *cursor);
	if (!a->dfn || !parent || !cursor) {
		an_free(a, &parent, nv, sizeof *parent);
		an_free(a, &cursor, nv, sizeof *cursor);
		return an_nomem(a);
	}
	an_fill32(a, a->dfn, 0, a->n);
	unsigned pace = PACE_STEPS;
	uint32_t next = 1;
	parent[0] = NONE;
	cursor[0] = 0;
	for (uint32_t r = 0; r < a->nroots; r++) {
		uint32_t u = a->roots[r];
		if (a->dfn[u])
			continue;
		a->dfn[u] = next;
		parent[next] = NONE;     /* the super-root, as an object number */
		cursor[next] = a->succ_off[u];
		next++;
		while (u != NONE) {
			uint32_t d = a->dfn[u], end = a->succ_off[u + 1], down = NONE;
			while (cursor[d] < end) {
				uint32_t v = a->succ[cursor[d]++];
				an_pace(a, &pace);
				if (!(v & WEAK_BIT) && !a->dfn[v]) {
					down = v;
					break;
				}
			}
			if (down == NONE) {
				u = parent[d];
				continue;
			}
			a->dfn[down] = next;
			parent[next] = u;
			cursor[next] = a->succ_off[down];
			next++;
			u = down;
		}
	}
	/* The cursors are done with: freed before the predecessor lists, the
	 * largest step, are built. */
	an_free(a, &cursor, nv, sizeof *cursor);
	if (next != nv) {
		an_free(a, &parent, nv, sizeof *parent);
		return hf_error_set(a->err, HF_ERR_FORMAT, "analysis: %u objects numbered, %u reached",
		                    next - 1, nv - 1);
	}
	for (uint32_t d = 1; d < nv; d++) {
		parent[d] = parent[d] == NONE ? 0 : a->dfn[parent[d]];
		an_pace(a, &pace);
	}
	*parent_out = parent;
	return HF_OK;
}

/* The predecessors of every reachable vertex, in depth-first numbers (the
 * super-root precedes each root).  Frees the successor lists. */
static hf_status predecessors(an *a, uint32_t **off_out, uint32_t **pred_out, uint32_t *npred_out)
{
	uint32_t nv = a->nv;
	uint32_t *off = an_alloc(a, (size_t)nv + 1, sizeof *off);
	if (!off)
		return an_nomem(a);
	an_fill32(a, off, 0, (size_t)nv + 1);
	unsigned pace = PACE_STEPS;
	uint64_t total = a->nroots;
	for (uint32_t r = 0; r < a->nroots; r++)
		off[a->dfn[a->roots[r]] + 1]++;
	for (uint32_t u = 0; u < a->n; u++) {
		an_pace(a, &pace);
		if (!a->dfn[u])
			continue;
		for (uint32_t k = a->succ_off[u], end = a->succ_off[u + 1]; k < end; k++) {
			uint32_t v = a->succ[k];
			if (!(v & WEAK_BIT)) {
				off[a->dfn[v] + 1]++;
				total++;
			}
			an_pace(a, &pace);
		}
	}
	if (total >= UINT32_MAX) {
		an_free(a, &off, (size_t)nv + 1, sizeof *off);
		return hf_error_set(a->err, HF_ERR_LIMIT, "analysis: more than 2^32 references in dump %lld",
		                    (long long)a->dump);
	}
	for (uint32_t d = 0; d < nv; d++) {
		off[d + 1] += off[d];
		an_pace(a, &pace);
	}
	uint32_t *pred = an_alloc(a, total ? total : 1, sizeof *pred);
	if (!pred) {
		an_free(a, &off, (size_t)nv + 1, sizeof *off);
		return an_nomem(a);
	}
	/* off[d] serves as the fill position of d, then is shifted back. */
	for (uint32_t r = 0; r < a->nroots; r++)
		pred[off[a->dfn[a->roots[r]]]++] = 0;
	for (uint32_t u = 0; u < a->n; u++) {
		uint32_t du = a->dfn[u];
		an_pace(a, &pace);
		if (!du)
			continue;
		for (uint32_t k = a->succ_off[u], end = a->succ_off[u + 1]; k < end; k++) {
			uint32_t v = a->succ[k];
			if (!(v & WEAK_BIT))
				pred[off[a->dfn[v]]++] = du;
			an_pace(a, &pace);
		}
	}
	for (uint32_t d = nv; d > 0; d--) {
		off[d] = off[d - 1];
		an_pace(a, &pace);
	}
	off[0] = 0;
	an_free(a, &a->succ, a->nsucc ? a->nsucc : 1, sizeof *a->succ);
	an_free(a, &a->succ_off, (size_t)a->n + 1, sizeof *a->succ_off);
	*off_out = off;
	*pred_out = pred;
	*npred_out = (uint32_t)total;
	return HF_OK;
}

/* ---- dominators --------------------------------------------------------- */

/* A vertex's link-eval state in one place (nearly always one cache line and
 * one page for each vertex a path compression visits): its ancestor in the forest, its
 * label (the vertex of smallest semidominator on the path compressed into
 * it) and that label's semidominator. */
typedef struct lt_vertex {
	uint32_t anc, label, lsemi;
} lt_vertex;

/* eval(v) of link-eval while the forest holds the vertices > w: the vertex
 * of smallest semidominator on the path from v up to (not including) the
 * first vertex <= w, whose semidominator is then t[v].lsemi.  Compresses
 * that path: walks up reversing the ancestor pointers, then down restoring
 * them to the path's top. */
static uint32_t eval(lt_vertex *t, uint32_t v, uint32_t w)
{
	if (t[v].anc <= w)
		return t[v].label;
	uint32_t x = v, prev = NONE;
	while (t[x].anc > w) {
		uint32_t up = t[x].anc;
		t[x].anc = prev;
		prev = x;
		x = up;
	}
	uint32_t r = t[x].anc, top = x, y = prev;
	while (y != NONE) {
		lt_vertex *ty = &t[y];
		uint32_t below = ty->anc;
		if (t[top].lsemi < ty->lsemi) {
			ty->label = t[top].label;
			ty->lsemi = t[top].lsemi;
		}
		ty->anc = r;
		top = y;
		y = below;
	}
	return t[v].label;
}

/* The immediate dominator of a vertex set at its semidominator's step is
 * final; one with this bit is that of the vertex it names (the last pass). */
#define DEFER_BIT 0x80000000u
_Static_assert(MAX_NODES < DEFER_BIT, "vertex numbers stay below DEFER_BIT");

/* Lengauer-Tarjan on depth-first numbers: a->idom[w] for every vertex w >= 1
 * (0 is the super-root).  parent comes in and is consumed.  A vertex's
 * semidominator is needed only while it is in the forest (t[].lsemi) and
 * when its bucket is emptied (every vertex in bucket(w) has semidominator
 * w); the bucket of s has its head in idom[s] until step s, its links in
 * the idom of its vertices until they get their own. */
static hf_status dominators(an *a, uint32_t **parent, const uint32_t *off, const uint32_t *pred)
{
	uint32_t nv = a->nv;
	lt_vertex *t = an_alloc(a, nv, sizeof *t);
	if (!t)
		return an_nomem(a);
	/* The parents' array becomes idom once copied: 16 bytes a vertex at
	 * once, as with four arrays. */
	uint32_t *idom = *parent;
	unsigned pace = PACE_STEPS;
	for (uint32_t v = 0; v < nv; v++) {
		t[v].anc = idom[v];
		t[v].label = v;
		t[v].lsemi = NONE;
		idom[v] = NONE;          /* until step v: the head of bucket(v) */
		an_pace(a, &pace);
	}
	a->idom = idom;
	*parent = NULL;
	for (uint32_t w = nv - 1; w >= 1; w--) {
		uint32_t bucket = idom[w], s = w;
		for (uint32_t k = off[w]; k < off[w + 1]; k++) {
			uint32_t v = pred[k], c = v;
			if (v > w) {
				eval(t, v, w);
				c = t[v].lsemi;
			}
			if (c < s)
				s = c;
			an_pace(a, &pace);
		}
		t[w].lsemi = s;          /* its label is still w itself */
		while (bucket != NONE) {
			uint32_t v = bucket, u = eval(t, v, w);
			bucket = idom[v];
			idom[v] = t[v].lsemi < w ? (u | DEFER_BIT) : w;
			an_pace(a, &pace);
		}
		if (s == 0) {
			idom[w] = 0;
		} else {
			idom[w] = idom[s];
			idom[s] = w;
		}
	}
	for (uint32_t w = 1; w < nv; w++) {
		if (idom[w] & DEFER_BIT)
			idom[w] = idom[idom[w] & ~DEFER_BIT];
		an_pace(a, &pace);
	}
	an_free(a, &t, nv, sizeof *t);
	return HF_OK;
}

/* ---- results ------------------------------------------------------------ */

/* ---- the results as a table ------------------------------------------------
 * write_results inserts every row of node_analysis with one statement
 * (hf_row_feed_insert, presorted.c), its rows computed from the arrays. */
typedef struct result_feed {
	hf_row_feed f;
	const an *a;
	const uint32_t *dom;
	const uint64_t *ret;
	uint32_t i;
	unsigned pace;
} result_feed;

static int result_next(hf_row_feed *f, int64_t row[HF_ROW_MAX], unsigned *nulls)
{
	result_feed *r = (result_feed *)f;
	const an *a = r->a;
	if (r->i >= a->n)
		return 0;
	an_pace(a, &r->pace);
	uint32_t i = r->i++, dist = a->dist[i];
	bool strong = dist < DIST_WEAK;
	row[0] = a->ids[i];
	row[1] = a->dump;
	row[2] = strong ? 1 : dist == DIST_WEAK ? 2 : 0;
	*nulls = strong ? 0 : 7u << 3;   /* distance, dominator, retained_size */
	if (strong) {
		row[3] = dist;
		row[4] = r->dom[i] == NONE ? 0 : a->ids[r->dom[i]];
		row[5] = (int64_t)r->ret[i];
	}
	return 1;
}

/* ---- the index by dominator ----------------------------------------------
 * Its entries are (dominator, dump, identifier), in that order: first the
 * objects not strongly reachable (dominator NULL), by id; then by
 * dominator, the super-root's 0 among the ids where SQLite orders it, and
 * by id among the objects of one dominator. */
typedef struct dom_feed {
	hf_row_feed f;
	const an *a;
	const uint32_t *dom, *order;
	uint32_t i, pos, nstrong;
	unsigned pace;
} dom_feed;

static int dom_next(hf_row_feed *f, int64_t row[HF_ROW_MAX], unsigned *nulls)
{
	dom_feed *d = (dom_feed *)f;
	const an *a = d->a;
	an_pace(a, &d->pace);
	while (d->i < a->n && a->dist[d->i] < DIST_WEAK) {
		d->i++;
		an_pace(a, &d->pace);
	}
	if (d->i < a->n) {
		row[0] = 0;
		row[1] = a->dump;
		row[2] = a->ids[d->i++];
		*nulls = 1;
		return 1;
	}
	if (d->pos == d->nstrong)
		return 0;
	/* order[] is a permutation of the objects: fetch an id ahead. */
	if (d->pos + 16 < d->nstrong) {
		uint32_t ahead = d->order[d->pos + 16];
		__builtin_prefetch(&a->ids[ahead]);
		__builtin_prefetch(&d->dom[ahead]);
		uint32_t near = d->dom[d->order[d->pos + 8]];
		if (near != NONE)
			__builtin_prefetch(&a->ids[near]);
	}
	uint32_t i = d->order[d->pos++], dm = d->dom[i];
	row[0] = dm == NONE ? 0 : a->ids[dm];
	row[1] = a->dump;
	row[2] = a->ids[i];
	*nulls = 0;
	return 1;
}

static hf_status fill_dominator_index(an *a, const uint32_t *dom)
{
	uint32_t n = a->n;
	/* Buckets 0 .. n: object j's (j < z) before 0's (z), then the others'
	 * (j + 1); z = the first object whose id is not negative. */
	uint32_t z = 0;
	while (z < n && a->ids[z] < 0)
		z++;
	uint32_t *count = an_alloc(a, (size_t)n + 2, sizeof *count);
	uint32_t *order = an_alloc(a, n ? n : 1, sizeof *order);
	if (!count || !order) {
		an_free(a, &count, (size_t)n + 2, sizeof *count);
		an_free(a, &order, n ? n : 1, sizeof *order);
		return an_nomem(a);
	}
	an_fill32(a, count, 0, (size_t)n + 2);
	unsigned pace = PACE_STEPS;
#define BUCKET(i) (dom[i] == NONE ? z : dom[i] < z ? dom[i] : a->ids[dom[i]] == 0 ? z : dom[i] + 1)
	uint32_t nstrong = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (a->dist[i] < DIST_WEAK) {
			count[BUCKET(i) + 1]++;
			nstrong++;
		}
		an_pace(a, &pace);
	}
	for (uint32_t b = 1; b <= n + 1; b++) {
		count[b] += count[b - 1];
		an_pace(a, &pace);
	}
	for (uint32_t i = 0; i < n; i++) {
		if (a->dist[i] < DIST_WEAK)
			order[count[BUCKET(i)]++] = i;
		an_pace(a, &pace);
	}
#undef BUCKET
	an_free(a, &count, (size_t)n + 2, sizeof *count);
	dom_feed d = { { dom_next, NULL, HF_OK }, a, dom, order, 0, 0, nstrong, PACE_STEPS };
	uint64_t rows = 0;
	hf_status rc = hf_row_feed_insert(a->db, imp_index, 3, &d.f, &rows, a->err);
	if (!rc && rows != n)
		rc = hf_error_set(a->err, HF_ERR_IO, "analysis: %llu of %u entries went into"
		                  " node_analysis_by_dominator", (unsigned long long)rows, n);
	an_free(a, &order, n ? n : 1, sizeof *order);
	return rc;
}

static uint64_t shallow(int64_t size)
{
	return size > 0 ? (uint64_t)size : 0;
}

/* The ids and shallow sizes graph_nodes parked. */
static hf_status unpark(an *a, uint64_t *ret)
{
	int64_t buf[2 * PARK_RECORDS];
	uint32_t i = 0;
	rewind(a->park);
	while (i < a->n) {
		size_t want = a->n - i < PARK_RECORDS ? a->n - i : PARK_RECORDS;
		if (fread(buf, 2 * sizeof *buf, want, a->park) != want)
			return hf_error_set(a->err, HF_ERR_IO, "analysis: cannot read its temporary file back");
		for (size_t k = 0; k < want; k++, i++) {
			a->ids[i] = buf[2 * k];
			ret[i] = shallow(buf[2 * k + 1]);
		}
		hf_bigmem_pace(a->bm);
	}
	fclose(a->park);
	a->park = NULL;
	return HF_OK;
}

static hf_status write_results(an *a)
{
	uint32_t n = a->n, nv = a->nv;
	/* Object number of each vertex; the dominator of each object by object
	 * number (NONE: the super-root, or not strongly reachable). */
	uint32_t *vertex = an_alloc(a, nv, sizeof *vertex);
	uint32_t *dom = an_alloc(a, n ? n : 1, sizeof *dom);
	if (!vertex || !dom) {
		an_free(a, &vertex, nv, sizeof *vertex);
		an_free(a, &dom, n ? n : 1, sizeof *dom);
		return an_nomem(a);
	}
	unsigned pace = PACE_STEPS;
	vertex[0] = NONE;
	for (uint32_t i = 0; i < n; i++) {
		if (a->dfn[i])
			vertex[a->dfn[i]] = i;
		an_pace(a, &pace);
	}
	for (uint32_t i = 0; i < n; i++) {
		dom[i] = a->dfn[i] ? vertex[a->idom[a->dfn[i]]] : NONE;
		an_pace(a, &pace);
	}
	an_free(a, &a->idom, nv, sizeof *a->idom);
	an_free(a, &a->dfn, n, sizeof *a->dfn);

	/* Ids and shallow sizes again, in the same order. */
	hf_status rc;
	uint64_t *ret = an_alloc(a, n ? n : 1, sizeof *ret);
	a->ids = an_alloc(a, n ? n : 1, sizeof *a->ids);
	sqlite3_stmt *st = NULL;
	if (!ret || !a->ids) {
		rc = an_nomem(a);
		goto out;
	}
	if (a->park) {
		if ((rc = unpark(a, ret)))
			goto out;
	} else {
		if ((rc = an_prepare(a, a->by_dump
			? "SELECT identifier, size FROM node INDEXED BY " AN_NODE_BY_DUMP " WHERE dump = ?1"
			  " ORDER BY identifier"
			: "SELECT identifier, size FROM node NOT INDEXED WHERE dump = ?1"
			  " ORDER BY identifier, dump", &st)))
			goto out;
		sqlite3_bind_int64(st, 1, a->dump);
		uint32_t i = 0;
		int step;
		while ((step = sqlite3_step(st)) == SQLITE_ROW && i < n) {
			a->ids[i] = sqlite3_column_int64(st, 0);
			ret[i] = shallow(sqlite3_column_int64(st, 1));
			i++;
		}
		if (step != SQLITE_DONE && step != SQLITE_ROW) {
			rc = an_sqlfail(a, "reading node");
			goto out;
		}
		if (step == SQLITE_ROW || i != n) {
			rc = hf_error_set(a->err, HF_ERR_FORMAT, "analysis: the node table changed while reading it");
			goto out;
		}
		an_done(a, st);
		st = NULL;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (a->dist[i] < DIST_WEAK)
			a->reachable_bytes += ret[i];
		else if (a->dist[i] == DIST_WEAK)
			a->weak_bytes += ret[i];
		else
			a->unreachable_bytes += ret[i];
		an_pace(a, &pace);
	}
	/* Children before their dominator: reverse depth-first order. */
	for (uint32_t d = nv - 1; d >= 1; d--) {
		uint32_t v = vertex[d];
		if (dom[v] != NONE)
			ret[dom[v]] += ret[v];
		an_pace(a, &pace);
	}
	an_free(a, &vertex, nv, sizeof *vertex);

	/* Every row with one statement (above, "the results as a table"). */
	result_feed rows = { { result_next, NULL, HF_OK }, a, dom, ret, 0, PACE_STEPS };
	uint64_t put = 0;
	if ((rc = hf_row_feed_insert(a->db, a->presorted ? imp_table : "node_analysis", 6, &rows.f, &put,
	                             a->err)))
		goto out;
	if (put != n) {
		rc = hf_error_set(a->err, HF_ERR_IO, "analysis: %llu of %u rows went into node_analysis",
		                  (unsigned long long)put, n);
		goto out;
	}
	if (a->presorted && (rc = fill_dominator_index(a, dom)))
		goto out;
	if ((rc = an_prepare(a, "INSERT INTO dump_analysis VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
	                        " ?9, ?10, ?11, ?12, ?13, ?14, ?15)", &st)))
		goto out;
	sqlite3_int64 row[15] = { a->dump, n, a->nroots, (sqlite3_int64)a->missing_roots,
		(sqlite3_int64)a->edges, (sqlite3_int64)a->class_edges,
		(sqlite3_int64)a->referent_edges, (sqlite3_int64)a->dangling_edges, nv - 1,
		(sqlite3_int64)a->reachable_bytes, (sqlite3_int64)a->weak, (sqlite3_int64)a->weak_bytes,
		(sqlite3_int64)a->unreachable, (sqlite3_int64)a->unreachable_bytes, a->max_distance };
	for (int c = 0; c < 15; c++)
		sqlite3_bind_int64(st, c + 1, row[c]);
	if (nv == 1)
		sqlite3_bind_null(st, 15);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = an_sqlfail(a, "insert into dump_analysis");
out:
	an_done(a, st);
	an_free(a, &vertex, nv, sizeof *vertex);
	an_free(a, &dom, n ? n : 1, sizeof *dom);
	an_free(a, &ret, n ? n : 1, sizeof *ret);
	return rc;
}

/* ---- one dump ------------------------------------------------------------ */

static void an_release(an *a)
{
	hf_id_index_free(&a->by_id);
	void *arrays[] = { a->ids, a->succ_off, a->succ, a->roots, a->dist, a->dfn, a->idom };
	for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
		hf_bigmem_release(a->bm, arrays[i]);
	a->ids = NULL;
	a->succ_off = a->succ = a->roots = a->dist = a->dfn = a->idom = NULL;
	if (a->park)
		fclose(a->park);
	a->park = NULL;
}

/* The distances are needed again only by the output: they wait in a
 * temporary file through the depth-first numbering, the predecessor lists
 * and the dominators (4 bytes an object off the peak, which comes when the
 * predecessor lists are built beside the successor lists).  Without a
 * temporary file they stay in memory, and so do those of a dump of fewer
 * than DIST_PARK_MIN objects: a file for each dump of a few objects took
 * a quarter of the time of a file of 20,000 one-array dumps (2.03 -> 1.49 s
 * for hprof2heapdb, medians of five alternated runs). */
#define DIST_PARK_MIN ((uint32_t)1 << 16)
static void dist_park(an *a, FILE **f)
{
	*f = NULL;
	if (a->n < DIST_PARK_MIN)
		return;
	*f = hf_tmpfile();
	if (!*f)
		return;
	/* A MiB at a time, pacing: written whole, the kernel's copy faulted
	 * every released page of the array back within one call. */
	size_t step = ((size_t)1 << 20) / sizeof *a->dist;
	bool ok = true;
	for (size_t done = 0; ok && done < a->n; done += step) {
		size_t want = a->n - done < step ? a->n - done : step;
		ok = fwrite(a->dist + done, sizeof *a->dist, want, *f) == want;
		hf_bigmem_pace(a->bm);
	}
	if (!ok || fflush(*f)) {
		fclose(*f);
		*f = NULL;
		return;
	}
	an_free(a, &a->dist, a->n, sizeof *a->dist);
}

static hf_status dist_unpark(an *a, FILE **f)
{
	if (!*f)
		return HF_OK;
	a->dist = an_alloc(a, a->n, sizeof *a->dist);
	size_t got = 0;
	if (a->dist) {
		/* A MiB at a time, pacing: read whole, the copy into new pages
		 * outran the watching thread. */
		rewind(*f);
		size_t step = ((size_t)1 << 20) / sizeof *a->dist, r;
		do {
			size_t want = a->n - got < step ? a->n - got : step;
			r = fread(a->dist + got, sizeof *a->dist, want, *f);
			got += r;
			hf_bigmem_pace(a->bm);
		} while (r && got < a->n);
	}
	fclose(*f);
	*f = NULL;
	if (!a->dist)
		return an_nomem(a);
	if (got != a->n)
		return hf_error_set(a->err, HF_ERR_IO, "cannot read the analysis's temporary file back");
	return HF_OK;
}

/* From the successor lists to the dominators: arrays only, no SQLite. */
static hf_status compute(an *a)
{
	uint32_t *parent = NULL, *off = NULL, *pred = NULL;
	uint32_t nstrong = 0, npred = 0;
	FILE *dist_file = NULL;
	hf_status rc;
	if ((rc = search(a, &nstrong)))
		goto out;
	dist_park(a, &dist_file);
	a->nv = nstrong + 1;
	if ((rc = number(a, &parent)))
		goto out;
	if ((rc = predecessors(a, &off, &pred, &npred)))
		goto out;
	if ((rc = dominators(a, &parent, off, pred)))
		goto out;
	an_free(a, &parent, a->nv, sizeof *parent);
	an_free(a, &off, (size_t)a->nv + 1, sizeof *off);
	an_free(a, &pred, npred ? npred : 1, sizeof *pred);
	rc = dist_unpark(a, &dist_file);
out:
	if (dist_file)
		fclose(dist_file);
	hf_bigmem_release(a->bm, parent);
	hf_bigmem_release(a->bm, off);
	hf_bigmem_release(a->bm, pred);
	return rc;
}

/* What the successor lists are made of besides the nodes: the roots' ids,
 * the Reference classes and the string ids of "referent". */
typedef struct lists_input {
	int64_t *roots, *refs, *labels;
	size_t nroots, cap_roots, nrefs, nlabels;
} lists_input;

/* From the nodes (a->ids, class ids) to the successor lists; frees what
 * only they needed, the ids too (the output reads them again). */
static hf_status build_lists(an *a, int64_t **class_ids, lists_input *in)
{
	hf_status rc;
	uint8_t *root_bits = NULL, *ref_bits = NULL;
	uint32_t nrefobjs = 0;
	hf_id_index_build(&a->by_id, a->ids, a->n);
	a->mem += hf_id_index_bytes(&a->by_id);
	if (a->mem > a->peak)
		a->peak = a->mem;
	size_t nbits = ((size_t)a->n + 8) / 8;
	root_bits = an_alloc(a, nbits, 1);
	ref_bits = an_alloc(a, nbits, 1);
	if (!root_bits || !ref_bits) {
		rc = an_nomem(a);
		goto out;
	}
	memset(root_bits, 0, nbits);
	memset(ref_bits, 0, nbits);
	rc = map_roots(a, in->roots, in->nroots, root_bits);
	an_free(a, &in->roots, in->cap_roots, sizeof *in->roots);
	in->nroots = in->cap_roots = 0;
	if (rc)
		goto out;
	/* Class ids become object numbers, in place (a uint32 slot i never
	 * overlaps an int64 slot > i). */
	uint32_t *class_of = (uint32_t *)*class_ids;
	const int64_t *cid = *class_ids; /* (NULL only with no node: load_nodes) */
	for (uint32_t i = 0, n = cid ? a->n : 0; i < n; i++) {
		int64_t c = cid[i];
		uint32_t ci = c ? an_find(a, c) : NONE;
		if (in->nrefs && bsearch(&c, in->refs, in->nrefs, sizeof *in->refs, cmp_i64)) {
			ref_bits[i >> 3] |= (uint8_t)(1u << (i & 7));
			nrefobjs++;
		}
		if (ci != NONE && (root_bits[ci >> 3] & (1u << (ci & 7))))
			ci = NONE;
		class_of[i] = ci;
	}
	rc = a->graph ? graph_edges(a, class_of, ref_bits, in->labels, in->nlabels)
	              : load_edges(a, class_of, ref_bits, in->labels, in->nlabels, nrefobjs);
out:
	an_free(a, class_ids, a->n, sizeof **class_ids);
	an_free(a, &root_bits, nbits, 1);
	an_free(a, &ref_bits, nbits, 1);
	a->mem -= hf_id_index_bytes(&a->by_id);
	hf_id_index_free(&a->by_id);
	an_free(a, &a->ids, a->n, sizeof *a->ids);
	return rc;
}

/* The computing thread's work: with the writer's graph, the nodes and the
 * successor lists first (the connection is the caller's meanwhile), then
 * compute(). */
typedef struct compute_job {
	an *a;
	lists_input *in;         /* with the graph */
	hf_status rc;
} compute_job;

static hf_status job_run(compute_job *j)
{
	an *a = j->a;
	hf_status rc = HF_OK;
	if (j->in) {
		int64_t *class_ids = NULL;
		rc = graph_nodes(a, &class_ids);
		if (!rc)
			rc = build_lists(a, &class_ids, j->in);
		hf_bigmem_release(a->bm, class_ids);
	}
	return rc ? rc : compute(a);
}

static void *compute_main(void *arg)
{
	compute_job *j = arg;
	j->rc = job_run(j);
	return NULL;
}

/* The job on a thread of its own while this one does the caller's work
 * beside it (hf_analysis_run_beside), once; the job alone otherwise. */
static hf_status compute_beside(an *a, lists_input *in)
{
	compute_job job = { a, in, HF_OK };
	hf_analysis_beside beside = a->beside;
	a->beside = NULL;
	if (!beside)
		return job_run(&job);
	/* The thread has an error of its own: this one's goes to the caller. */
	hf_error terr, *err = a->err;
	memset(&terr, 0, sizeof terr);
	a->err = &terr;
	pthread_t t;
	bool threaded = pthread_create(&t, NULL, compute_main, &job) == 0;
	if (!threaded)
		job.rc = job_run(&job);
	hf_status brc = beside(a->beside_ctx, err);
	if (threaded)
		pthread_join(t, NULL);
	a->err = err;
	if (brc)
		return brc;
	/* Without them, the rows go into node_analysis itself, which carries
	 * them into its index (slower, the same index). */
	if (a->presorted && !open_imposters(a->db))
		a->presorted = false;
	if (job.rc)
		*err = terr;
	return job.rc;
}

static hf_status analyse_dump(an *a, int64_t **others, size_t *nothers, size_t *cap_others,
                              bool discover)
{
	hf_status rc;
	int64_t *class_ids = NULL;
	lists_input in;
	memset(&in, 0, sizeof in);

	if (a->graph)
		a->dump = a->graph->dump;
	else if ((rc = load_nodes(a, &class_ids, others, nothers, cap_others, discover)))
		goto out;
	if ((rc = read_roots(a, &in.roots, &in.nroots, &in.cap_roots)) ||
	    (rc = load_reference_classes(a, &in.refs, &in.nrefs, &in.labels, &in.nlabels)))
		goto out;
	/* From the tables, the lists are made here, with the connection; from
	 * the graph, on the computing thread. */
	if (!a->graph && (rc = build_lists(a, &class_ids, &in)))
		goto out;
	if ((rc = compute_beside(a, a->graph ? &in : NULL)))
		goto out;
	/* A database without objects (an hprof agent's profile) has no dump
	 * to summarise: no dump_analysis row. */
	rc = a->n ? write_results(a) : HF_OK;
out:
	hf_bigmem_release(a->bm, class_ids);
	hf_bigmem_release(a->bm, in.roots);
	hf_bigmem_release(a->bm, in.refs);
	hf_bigmem_release(a->bm, in.labels);
	an_release(a);
	return rc;
}

/* ---- entry points -------------------------------------------------------- */

void hf_analysis_options_init(hf_analysis_options *opt)
{
	memset(opt, 0, sizeof *opt);
}

/* The indexes by dump (see AN_SCAN_DUMPS), node_class's where there is one. */
static hf_status dump_indexes(sqlite3 *db, hf_error *err)
{
	char *msg = NULL;
	/* (Left by a run that was killed, the same indexes are made again.) */
	if (sqlite3_exec(db, dump_indexes_drop, NULL, NULL, &msg) != SQLITE_OK ||
	    sqlite3_exec(db, dump_indexes_ddl, NULL, NULL, &msg) != SQLITE_OK ||
	    (table_exists(db, "node_class") &&
	     sqlite3_exec(db, "CREATE INDEX " AN_CLASS_BY_DUMP " ON node_class (dump, node_identifier, super, java_name)",
	                  NULL, NULL, &msg) != SQLITE_OK)) {
		hf_status st = hf_error_set(err, HF_ERR_IO, "analysis: SQLite: %s", msg ? msg : "error");
		sqlite3_free(msg);
		return st;
	}
	return HF_OK;
}

static void add_stats(hf_analysis_stats *s, const an *a)
{
	s->dumps++;
	s->nodes += a->n;
	s->roots += a->nroots;
	s->missing_roots += a->missing_roots;
	s->edges += a->edges;
	s->class_edges += a->class_edges;
	s->referent_edges += a->referent_edges;
	s->dangling_edges += a->dangling_edges;
	s->reachable += a->nv ? a->nv - 1 : 0;
	s->weakly_reachable += a->weak;
	s->unreachable += a->unreachable;
	s->reachable_bytes += a->reachable_bytes;
	if (a->max_distance > s->max_distance)
		s->max_distance = a->max_distance;
	if (a->peak > s->peak_memory)
		s->peak_memory = a->peak;
}

hf_status hf_analysis_run(sqlite3 *db, const hf_analysis_options *opt, hf_analysis_stats *stats,
                          hf_error *err)
{
	return hf_analysis_run_beside(db, opt, stats, NULL, NULL, NULL, err);
}

hf_status hf_analysis_run_beside(sqlite3 *db, const hf_analysis_options *opt,
                                 hf_analysis_stats *stats, const hf_analysis_graph *graph,
                                 hf_analysis_beside beside, void *ctx, hf_error *err)
{
	hf_analysis_options o;
	hf_analysis_options_init(&o);
	if (opt)
		o = *opt;
	hf_analysis_stats dummy;
	if (!stats)
		stats = &dummy;
	memset(stats, 0, sizeof *stats);
	static const char *const needed[] = { "node", "edge", "hprof_gc_root" };
	for (size_t t = 0; t < sizeof needed / sizeof *needed; t++) {
		if (table_exists(db, needed[t]))
			continue;
		/* A database of another source: named, with what it does have. */
		char source[32] = "";
		sqlite3_stmt *q = NULL;
		if (table_exists(db, "metadata") &&
		    sqlite3_prepare_v2(db, "SELECT value FROM metadata WHERE key = 'target_source' LIMIT 1",
		                       -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW &&
		    sqlite3_column_text(q, 0))
			snprintf(source, sizeof source, "%s", (const char *)sqlite3_column_text(q, 0));
		sqlite3_finalize(q);
		if (!strcmp(source, "v8"))
			return hf_error_set(err, HF_ERR_FORMAT,
			                    "a database of a V8 heap snapshot, not of an HPROF dump: the analysis"
			                    " needs the dump's GC roots (Chrome DevTools computes a snapshot's"
			                    " retained sizes)");
		if (!strncmp(source, "ddm", 3))
			return hf_error_set(err, HF_ERR_FORMAT,
			                    "a database of a DDM capture (%s), not of an HPROF dump: it holds no"
			                    " object graph to analyse", source);
		return hf_error_set(err, HF_ERR_FORMAT,
		                    "not a heap database of an HPROF dump: no table %s", needed[t]);
	}
	char *msg = NULL;
	/* A database made from NDJSON may hold the analysis's records as a
	 * record table of that name: the analysis replaces it, declaration too. */
	if (table_exists(db, "record_types") && table_exists(db, "type_fields") &&
	    sqlite3_exec(db, "DELETE FROM type_fields WHERE type_class = 'record' AND type_name IN"
	                     " (SELECT name FROM record_types WHERE table_name = 'node_analysis');"
	                     "DELETE FROM record_types WHERE table_name = 'node_analysis';",
	                 NULL, NULL, &msg) != SQLITE_OK) {
		hf_status st = hf_error_set(err, HF_ERR_IO, "analysis: SQLite: %s", msg ? msg : "error");
		sqlite3_free(msg);
		return st;
	}
	if (sqlite3_exec(db, analysis_ddl, NULL, NULL, &msg) != SQLITE_OK) {
		hf_status st = hf_error_set(err, HF_ERR_IO, "analysis: SQLite: %s", msg ? msg : "error");
		sqlite3_free(msg);
		return st;
	}
	/* The arrays live in temporary files beyond the memory limit. */
	size_t limit = o.memory_limit ? o.memory_limit : HF_ANALYSIS_MEMORY_DEFAULT;
	hf_bigmem *bm = hf_bigmem_new(limit == SIZE_MAX ? 0 : limit);
	if (!bm)
		return hf_error_set(err, HF_ERR_NOMEM, "analysis: out of memory");
	/* The index made now, empty, and filled dump by dump (imp_table). */
	bool presorted = false, index_made = false;
	if (!o.no_index && sqlite3_exec(db, analysis_indexes, NULL, NULL, NULL) == SQLITE_OK) {
		presorted = index_made = open_imposters(db);
		if (!presorted) {
			hf_imposters_close(db);
			sqlite3_exec(db, "DROP INDEX IF EXISTS node_analysis_by_dominator", NULL, NULL, NULL);
		}
	}
	int64_t *others = NULL;
	size_t nothers = 0, cap_others = 0, done = 0;
	hf_status rc = HF_OK;
	bool by_dump = false;
	an_stmts stmts;
	memset(&stmts, 0, sizeof stmts);
	for (bool first = true; !rc; first = false) {
		an a;
		memset(&a, 0, sizeof a);
		a.db = db;
		a.err = err;
		a.dump = -1;
		a.presorted = presorted;
		a.bm = bm;
		a.stmts = &stmts;
		if (first) {
			a.beside = beside;
			a.beside_ctx = ctx;
			a.graph = graph;
		} else {
			if (done == nothers)
				break;
			if (!done && nothers > AN_SCAN_DUMPS) {
				by_dump = true; /* (dropped at the end, made or not) */
				if ((rc = dump_indexes(db, err)))
					break;
			}
			a.by_dump = by_dump;
			a.dump = others[done++];
		}
		rc = analyse_dump(&a, &others, &nothers, &cap_others, first);
		presorted = presorted && a.presorted;
		if (!rc && a.n)
			add_stats(stats, &a);
		if (first && !a.n)
			break;           /* no nodes at all */
	}
	an_stmts_free(&stmts); /* before the indexes they read are dropped */
	hf_bigmem_release(bm, others);
	hf_bigmem_free(bm);
	if (by_dump && sqlite3_exec(db, dump_indexes_drop, NULL, NULL, &msg) != SQLITE_OK && !rc) {
		rc = hf_error_set(err, HF_ERR_IO, "analysis: SQLite: %s", msg ? msg : "error");
		sqlite3_free(msg);
	}
	if (index_made)
		hf_imposters_close(db);
	else if (!rc && !o.no_index && sqlite3_exec(db, analysis_indexes, NULL, NULL, &msg) != SQLITE_OK) {
		rc = hf_error_set(err, HF_ERR_IO, "analysis: SQLite: %s", msg ? msg : "error");
		sqlite3_free(msg);
	}
	return rc;
}

/* The database at path, opened for writing; a file that is not there or not
 * a file said so as other programs say it (SQLite's "unable to open database
 * file" names no cause). */
static hf_status open_for_writing(const char *path, sqlite3 **db, hf_error *err)
{
	struct stat sb;
	if (stat(path, &sb) != 0)
		return hf_error_set(err, HF_ERR_IO, "cannot open %s: %s", path, strerror(errno));
	if (S_ISDIR(sb.st_mode))
		return hf_error_set(err, HF_ERR_IO, "cannot read %s: it is a directory", path);
	*db = NULL;
	if (sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		hf_status st = hf_error_set(err, HF_ERR_IO, "SQLite: cannot open %s: %s", path,
		                            *db ? sqlite3_errmsg(*db) : "out of memory");
		sqlite3_close(*db);
		*db = NULL;
		return st;
	}
	return HF_OK;
}

/* Removes path's rollback journal when it is not hot: a write cut before
 * SQLite synced the journal, which is when it writes the header's magic
 * number (until then the header's first bytes are zero, and DB is
 * unchanged), leaves one that SQLite neither plays back nor deletes.  The
 * caller holds the write lock, so no writer of another process owns it. */
static void remove_cold_journal(const char *path)
{
	size_t n = strlen(path);
	char *jp = malloc(n + sizeof "-journal");
	if (!jp)
		return;
	memcpy(jp, path, n);
	memcpy(jp + n, "-journal", sizeof "-journal");
	int fd = open(jp, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		unsigned char magic[8] = {0};
		ssize_t got = read(fd, magic, sizeof magic);
		close(fd);
		bool cold = got >= 0;
		for (size_t i = 0; cold && i < sizeof magic; i++)
			cold = magic[i] == 0;
		if (cold)
			unlink(jp);
	}
	free(jp);
}

hf_status hf_heapdb_recover(const char *path, hf_error *err)
{
	sqlite3 *db = NULL;
	hf_status rc = open_for_writing(path, &db, err);
	if (rc)
		return rc;
	/* The first read takes the shared lock, and with it finds the hot
	 * journal and plays it back (waiting a while for a reader's lock). */
	sqlite3_busy_timeout(db, 10000);
	char *msg = NULL;
	if (sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL, &msg) != SQLITE_OK) {
		rc = hf_error_set(err, HF_ERR_IO, "SQLite: %s: cannot roll back the cut analysis: %s", path,
		                  msg ? msg : "error");
		sqlite3_free(msg);
	}
	/* Under the write lock (a transaction that writes nothing opens no
	 * journal of its own). */
	if (!rc && sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK) {
		remove_cold_journal(path);
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	}
	if (sqlite3_close(db) != SQLITE_OK && !rc)
		rc = hf_error_set(err, HF_ERR_IO, "SQLite: cannot close %s", path);
	return rc;
}

hf_status hf_heapdb_analyze(const char *path, const hf_analysis_options *opt,
                            hf_analysis_stats *stats, hf_error *err)
{
	sqlite3 *db = NULL;
	hf_status rc = open_for_writing(path, &db, err);
	if (rc)
		return rc;
	char *msg = NULL;
	/* A small page cache: the scans are sequential. */
	if (sqlite3_exec(db, "PRAGMA cache_size=-16384; PRAGMA temp_store=FILE; PRAGMA threads=2;"
	                     " BEGIN IMMEDIATE", NULL, NULL, &msg) != SQLITE_OK) {
		int code = sqlite3_errcode(db);
		const char *kind = (code & 0xff) == SQLITE_NOTADB ? hf_kind_of_path(path) : NULL;
		rc = hf_error_set(err, hf_sqlite_damaged(code) ? HF_ERR_FORMAT : HF_ERR_IO,
		                  "SQLite: %s: %s%s%s", path, msg ? msg : "error", HF_KIND_HINT(kind));
		sqlite3_free(msg);
		sqlite3_close(db);
		return rc;
	}
	/* Statistics of the two tables written here, where the writer gathered
	 * the others' (heapfmt's writers all do): a whole ANALYZE would also
	 * count the rows of strings, which has no index to sample, by reading
	 * every page (heapdb.c, statistics()).  A database without any gets them
	 * all. */
	bool some = false;
	sqlite3_stmt *q = NULL;
	if (table_exists(db, "sqlite_stat1") &&
	    sqlite3_prepare_v2(db, "SELECT 1 FROM main.sqlite_stat1 WHERE tbl NOT IN"
	                           " ('node_analysis', 'dump_analysis') LIMIT 1", -1, &q, NULL) == SQLITE_OK)
		some = sqlite3_step(q) == SQLITE_ROW;
	sqlite3_finalize(q);
	rc = hf_heapdb_check_major(db, "main", path, err);
	if (!rc)
		rc = hf_analysis_run(db, opt, stats, err);
	if (!rc && sqlite3_exec(db, some ? "COMMIT; PRAGMA analysis_limit=1000;"
	                                   " ANALYZE main.node_analysis; ANALYZE main.dump_analysis"
	                                 : "COMMIT; PRAGMA analysis_limit=1000; ANALYZE",
	                        NULL, NULL, &msg) != SQLITE_OK) {
		rc = hf_error_set(err, HF_ERR_IO, "SQLite: %s: %s", path, msg ? msg : "error");
		sqlite3_free(msg);
	}
	if (rc)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	if (sqlite3_close(db) != SQLITE_OK && !rc)
		rc = hf_error_set(err, HF_ERR_IO, "SQLite: cannot close %s", path);
	return rc;
}
