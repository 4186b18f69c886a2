/* The analysis (libheapfmt/src/analysis.c) against an obviously correct,
 * slow reference written here: an object u dominates v when v, reachable
 * from the GC roots, is no longer reachable once u is removed; u's retained
 * size is its shallow size plus those of the objects it dominates; v's
 * immediate dominator is the dominator of v that dominates the fewest
 * objects (the closest); distances are a breadth-first search.  Checked node
 * by node on generated graphs (diamonds, cycles, many roots, islands,
 * random graphs, Reference.referent edges, class references, two dumps in one
 * file) written through the library's heap-database sink, on the sample
 * dump of testdata/, and on long chains (1 million links: no recursion)
 * against closed formulas.
 *
 * Usage: test_analysis SAMPLE.hprof.gz TMPDIR */
#define _POSIX_C_SOURCE 200809L
#include "../libheapfmt/src/internal.h"
#include "../libheapfmt/src/hprof_model.h"
#include "testlib.h"
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#define NONE UINT32_MAX

/* ---- a graph and its reference analysis --------------------------------- */

typedef struct graph {
	uint32_t n;
	uint64_t *size;
	uint32_t *cls;           /* class of each object (an object of the graph), or NONE */
	uint32_t ne, cape;
	uint32_t *src, *dst;
	uint8_t *weak;           /* a Reference.referent edge */
	uint32_t nr, capr;
	uint32_t *roots;
} graph;

static void g_init(graph *g, uint32_t n)
{
	memset(g, 0, sizeof *g);
	g->n = n;
	g->size = calloc(n ? n : 1, sizeof *g->size);
	g->cls = malloc((n ? n : 1) * sizeof *g->cls);
	for (uint32_t i = 0; i < n; i++) {
		g->size[i] = 16 + 8 * (i % 5);
		g->cls[i] = NONE;
	}
}

static void g_free(graph *g)
{
	free(g->size);
	free(g->cls);
	free(g->src);
	free(g->dst);
	free(g->weak);
	free(g->roots);
}

static void g_edge_w(graph *g, uint32_t s, uint32_t d, int weak)
{
	if (g->ne == g->cape) {
		g->cape = g->cape ? g->cape * 2 : 64;
		g->src = realloc(g->src, g->cape * sizeof *g->src);
		g->dst = realloc(g->dst, g->cape * sizeof *g->dst);
		g->weak = realloc(g->weak, g->cape);
	}
	g->src[g->ne] = s;
	g->dst[g->ne] = d;
	g->weak[g->ne] = (uint8_t)weak;
	g->ne++;
}
static void g_edge(graph *g, uint32_t s, uint32_t d) { g_edge_w(g, s, d, 0); }

static void g_root(graph *g, uint32_t r)
{
	if (g->nr == g->capr) {
		g->capr = g->capr ? g->capr * 2 : 16;
		g->roots = realloc(g->roots, g->capr * sizeof *g->roots);
	}
	g->roots[g->nr++] = r;
}

static uint64_t id_base = 0x10000;   /* test_id_signs moves it */
static uint64_t obj_id(uint32_t i) { return id_base + 16 * (uint64_t)i; }

typedef struct expect {
	int *reachable;          /* 1 strong, 2 only through a referent, 0 none */
	uint32_t *dist;
	uint32_t *idom;          /* NONE: the super-root */
	uint64_t *retained;
} expect;

/* Adjacency (strong, class references included; or every edge) as CSR. */
static void g_csr(const graph *g, int with_weak, uint32_t **off_out, uint32_t **adj_out)
{
	uint32_t *off = calloc(g->n + 1, sizeof *off);
	uint32_t m = 0;
	for (uint32_t e = 0; e < g->ne; e++)
		if (with_weak || !g->weak[e]) {
			off[g->src[e] + 1]++;
			m++;
		}
	for (uint32_t i = 0; i < g->n; i++)
		if (g->cls[i] != NONE) {
			off[i + 1]++;
			m++;
		}
	for (uint32_t i = 0; i < g->n; i++)
		off[i + 1] += off[i];
	uint32_t *pos = malloc((g->n + 1) * sizeof *pos);
	memcpy(pos, off, (g->n + 1) * sizeof *pos);
	uint32_t *adj = malloc((m ? m : 1) * sizeof *adj);
	for (uint32_t i = 0; i < g->n; i++)
		if (g->cls[i] != NONE)
			adj[pos[i]++] = g->cls[i];
	for (uint32_t e = 0; e < g->ne; e++)
		if (with_weak || !g->weak[e])
			adj[pos[g->src[e]]++] = g->dst[e];
	free(pos);
	*off_out = off;
	*adj_out = adj;
}

/* Breadth-first from the roots, never entering `removed`; fills dist
 * (NONE = not reached) and returns how many were reached. */
static uint32_t bfs(const graph *g, const uint32_t *off, const uint32_t *adj, uint32_t removed,
                    uint32_t *dist, uint32_t *queue)
{
	for (uint32_t i = 0; i < g->n; i++)
		dist[i] = NONE;
	uint32_t head = 0, tail = 0;
	for (uint32_t r = 0; r < g->nr; r++)
		if (g->roots[r] != removed && dist[g->roots[r]] == NONE) {
			dist[g->roots[r]] = 0;
			queue[tail++] = g->roots[r];
		}
	while (head < tail) {
		uint32_t u = queue[head++];
		for (uint32_t k = off[u]; k < off[u + 1]; k++) {
			uint32_t v = adj[k];
			if (v != removed && dist[v] == NONE) {
				dist[v] = dist[u] + 1;
				queue[tail++] = v;
			}
		}
	}
	return tail;
}

static void reference(const graph *g, expect *x)
{
	uint32_t n = g->n, *off, *adj, *woff, *wadj;
	g_csr(g, 0, &off, &adj);
	g_csr(g, 1, &woff, &wadj);
	x->reachable = calloc(n ? n : 1, sizeof *x->reachable);
	x->dist = malloc((n ? n : 1) * sizeof *x->dist);
	x->idom = malloc((n ? n : 1) * sizeof *x->idom);
	x->retained = calloc(n ? n : 1, sizeof *x->retained);
	uint32_t *d2 = malloc((n ? n : 1) * sizeof *d2), *queue = malloc((n ? n : 1) * sizeof *queue);
	uint32_t *count = calloc(n ? n : 1, sizeof *count);
	bfs(g, off, adj, NONE, x->dist, queue);
	bfs(g, woff, wadj, NONE, d2, queue);
	for (uint32_t i = 0; i < n; i++) {
		x->reachable[i] = x->dist[i] != NONE ? 1 : d2[i] != NONE ? 2 : 0;
		x->idom[i] = NONE;
	}
	/* Pass 1: how many objects each u dominates, and its retained size. */
	for (uint32_t u = 0; u < n; u++) {
		if (x->reachable[u] != 1)
			continue;
		bfs(g, off, adj, u, d2, queue);
		x->retained[u] = g->size[u];
		for (uint32_t v = 0; v < n; v++)
			if (v != u && x->reachable[v] == 1 && d2[v] == NONE) {
				count[u]++;
				x->retained[u] += g->size[v];
			}
	}
	/* Pass 2: the immediate dominator is the closest, which dominates the
	 * fewest. */
	for (uint32_t u = 0; u < n; u++) {
		if (x->reachable[u] != 1 || !count[u])
			continue;
		bfs(g, off, adj, u, d2, queue);
		for (uint32_t v = 0; v < n; v++)
			if (v != u && x->reachable[v] == 1 && d2[v] == NONE &&
			    (x->idom[v] == NONE || count[u] < count[x->idom[v]]))
				x->idom[v] = u;
	}
	free(off);
	free(adj);
	free(woff);
	free(wadj);
	free(d2);
	free(queue);
	free(count);
}

static void x_free(expect *x)
{
	free(x->reachable);
	free(x->dist);
	free(x->idom);
	free(x->retained);
}

/* ---- writing a graph as a heap database --------------------------------- */

static hf_value absent[16];

/* An hprof.gc_root record of kind for obj. */
static void put_root(hf_sink *s, uint32_t dump, const char *kind, uint64_t obj, hf_error *err)
{
	hf_value v[8];
	memset(v, 0, sizeof v);
	v[0].i = dump;
	v[0].present = 1;
	v[1].s = kind;
	v[1].n = strlen(kind);
	v[1].present = 1;
	v[2].u = obj;
	v[2].present = 1;
	v[7].present = 1;
	hf_record rec = { &hprof_rec_root, v };
	CHECK(hf_sink_record(s, &rec, err) == HF_OK, "root %s: %s", kind, err->message);
}

/* Writes g as dump `dump` into sink (declarations once, by the caller). */
static void g_write(hf_sink *s, const graph *g, uint32_t dump, hf_error *err)
{
	for (uint32_t i = 0; i < g->n; i++) {
		hf_node nd = { &hprof_node_instance, obj_id(i), dump,
		               g->cls[i] == NONE ? 0 : obj_id(g->cls[i]), g->size[i], 0, absent };
		CHECK(hf_sink_node(s, &nd, err) == HF_OK, "node: %s", err->message);
	}
	for (uint32_t e = 0; e < g->ne; e++) {
		/* label 7 is the string "referent" in test_referent, 8 another field */
		hf_edge ed = { &hprof_edge_field, obj_id(g->src[e]), obj_id(g->dst[e]),
		               g->weak[e] ? 7 : 8, dump };
		CHECK(hf_sink_edge(s, &ed, err) == HF_OK, "edge: %s", err->message);
	}
	for (uint32_t r = 0; r < g->nr; r++)
		put_root(s, dump, "JNI_GLOBAL", obj_id(g->roots[r]), err);
	/* Dalvik's UNREACHABLE sub-record, written here for every object (of a
	 * graph that is not huge), marks garbage: it holds nothing alive, and the
	 * reference analysis ignores it. */
	for (uint32_t i = 0; g->n <= 100000 && i < g->n; i++)
		put_root(s, dump, "UNREACHABLE", obj_id(i), err);
}

/* hf_heapdb_options.analysis_memory of the databases open_db opens. */
static size_t db_analysis_memory;

static hf_sink *open_db(const char *path, int analysis)
{
	hf_error err;
	hf_sink *s = NULL;
	hf_heapdb_options o = { 1, 0, analysis, db_analysis_memory };
	unlink(path);
	if (hf_heapdb_sink_open(&s, path, &o, &err)) {
		CHECK(0, "open %s: %s", path, err.message);
		return NULL;
	}
	for (const hf_type *const *t = hprof_types; *t; t++)
		CHECK(hf_sink_declare(s, *t, &err) == HF_OK, "declare: %s", err.message);
	return s;
}

static int close_db(hf_sink *s)
{
	hf_error err;
	hf_status st = hf_sink_finish(s, &err);
	CHECK(st == HF_OK, "finish: %s", err.message);
	hf_sink_destroy(s, st == HF_OK);
	return st == HF_OK;
}

/* node_analysis_by_dominator is filled from sorted keys (presorted.c):
 * SQLite's own check of the database, and the index's order against the
 * table's rows sorted without it. */
static void check_index(sqlite3 *db, const char *what)
{
	sqlite3_stmt *st;
	const char *sql[3] = {
		"PRAGMA integrity_check",
		"SELECT count(*), group_concat(coalesce(dominator, 'n') || ':' || dump || ':' || identifier, ' ')"
		" FROM (SELECT dominator, dump, identifier FROM node_analysis INDEXED BY node_analysis_by_dominator"
		" ORDER BY dominator, dump)",
		"SELECT count(*), group_concat(coalesce(dominator, 'n') || ':' || dump || ':' || identifier, ' ')"
		" FROM (SELECT dominator, dump, identifier FROM node_analysis NOT INDEXED"
		" ORDER BY dominator, dump, identifier)",
	};
	char *got[3] = { NULL, NULL, NULL };
	for (int i = 0; i < 3; i++) {
		if (sqlite3_prepare_v2(db, sql[i], -1, &st, NULL) != SQLITE_OK) {
			CHECK(0, "%s: %s: %s", what, sql[i], sqlite3_errmsg(db));
			continue;
		}
		if (sqlite3_step(st) == SQLITE_ROW) {
			const char *a = (const char *)sqlite3_column_text(st, 0);
			const char *b = (const char *)sqlite3_column_text(st, 1);
			size_t n = strlen(a ? a : "") + strlen(b ? b : "") + 2;
			got[i] = malloc(n);
			if (got[i])
				snprintf(got[i], n, "%s %s", a ? a : "", b ? b : "");
		}
		sqlite3_finalize(st);
	}
	CHECK(got[0] && !strncmp(got[0], "ok", 2), "%s: integrity_check: %s", what, got[0] ? got[0] : "?");
	CHECK(got[1] && got[2] && !strcmp(got[1], got[2]), "%s: node_analysis_by_dominator in order",
	      what);
	for (int i = 0; i < 3; i++)
		free(got[i]);
}

/* Compares node_analysis of `dump` with x, node by node. */
static void compare(const char *path, const graph *g, const expect *x, uint32_t dump,
                    const char *what)
{
	sqlite3 *db;
	CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK, "%s: open", what);
	sqlite3_stmt *st;
	CHECK(sqlite3_prepare_v2(db, "SELECT identifier, reachable, distance, dominator, retained_size"
	                             " FROM node_analysis WHERE dump = ?1 ORDER BY identifier", -1,
	                         &st, NULL) == SQLITE_OK, "%s: prepare: %s", what, sqlite3_errmsg(db));
	sqlite3_bind_int(st, 1, (int)dump);
	uint32_t i = 0, bad = 0;
	while (sqlite3_step(st) == SQLITE_ROW && i < g->n) {
		uint64_t id = (uint64_t)sqlite3_column_int64(st, 0);
		int reach = sqlite3_column_int(st, 1);
		int null_dist = sqlite3_column_type(st, 2) == SQLITE_NULL;
		uint64_t dist = (uint64_t)sqlite3_column_int64(st, 2);
		uint64_t dom = (uint64_t)sqlite3_column_int64(st, 3);
		int null_dom = sqlite3_column_type(st, 3) == SQLITE_NULL;
		uint64_t ret = (uint64_t)sqlite3_column_int64(st, 4);
		int ok = id == obj_id(i) && reach == x->reachable[i];
		if (x->reachable[i] == 1)
			ok = ok && !null_dist && dist == x->dist[i] && !null_dom &&
			     dom == (x->idom[i] == NONE ? 0 : obj_id(x->idom[i])) && ret == x->retained[i];
		else
			ok = ok && null_dist && null_dom && sqlite3_column_type(st, 4) == SQLITE_NULL;
		if (!ok && ++bad <= 5)
			CHECK(0, "%s: object %u (id %llu): got reachable %d distance %llu dominator %llu"
			      " retained %llu; want %d %u %llu %llu", what, i, (unsigned long long)id, reach,
			      (unsigned long long)dist, (unsigned long long)dom, (unsigned long long)ret,
			      x->reachable[i], x->dist[i],
			      (unsigned long long)(x->idom[i] == NONE ? 0 : obj_id(x->idom[i])),
			      (unsigned long long)x->retained[i]);
		i++;
	}
	sqlite3_finalize(st);
	CHECK_EQ_U(i, g->n, what);
	CHECK_EQ_U(bad, 0, what);
	check_index(db, what);
	sqlite3_close(db);
}

/* Writes g, analyses it (through the sink, or afterwards with
 * hf_heapdb_analyze) and compares with the reference. */
static void check_graph(const char *tmp, const graph *g, const char *what, int through_sink)
{
	char path[512];
	snprintf(path, sizeof path, "%s/analysis-test.db", tmp);
	hf_sink *s = open_db(path, through_sink);
	if (!s)
		return;
	hf_error err;
	g_write(s, g, 0, &err);
	if (!close_db(s))
		return;
	if (!through_sink) {
		hf_analysis_stats st;
		CHECK(hf_heapdb_analyze(path, NULL, &st, &err) == HF_OK, "%s: analyse: %s", what, err.message);
	}
	expect x;
	reference(g, &x);
	compare(path, g, &x, 0, what);
	x_free(&x);
	unlink(path);
}

/* ---- generated graphs --------------------------------------------------- */

static uint64_t rng_state = 88172645463325252ull;
static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % n);
}

static void test_small_graphs(const char *tmp)
{
	graph g;
	/* A diamond below a root, and a second diamond sharing its bottom. */
	g_init(&g, 7);
	g_root(&g, 0);
	g_edge(&g, 0, 1); g_edge(&g, 0, 2); g_edge(&g, 1, 3); g_edge(&g, 2, 3);
	g_edge(&g, 3, 4); g_edge(&g, 4, 5); g_edge(&g, 4, 6); g_edge(&g, 6, 5);
	check_graph(tmp, &g, "diamond", 1);
	g_free(&g);

	/* A cycle entered at two points, a self loop, an unreachable island
	 * (a cycle of its own) and an object no one references. */
	g_init(&g, 10);
	g_root(&g, 0);
	g_edge(&g, 0, 1); g_edge(&g, 1, 2); g_edge(&g, 2, 3); g_edge(&g, 3, 1);
	g_edge(&g, 0, 3); g_edge(&g, 3, 3); g_edge(&g, 2, 4);
	g_edge(&g, 5, 6); g_edge(&g, 6, 7); g_edge(&g, 7, 5); g_edge(&g, 7, 2);
	check_graph(tmp, &g, "cycles and islands", 0);
	g_free(&g);

	/* Many roots: every root also reachable from another one; one object
	 * held by all of them; repeated root records. */
	g_init(&g, 60);
	for (uint32_t i = 0; i < 50; i++) {
		g_root(&g, i);
		g_root(&g, i);
		g_edge(&g, i, (i + 1) % 50);
		g_edge(&g, i, 50);
		g_edge(&g, i, 51 + i % 9);
	}
	g_edge(&g, 50, 59);
	check_graph(tmp, &g, "many roots", 1);
	g_free(&g);

	/* No roots at all: everything unreachable. */
	g_init(&g, 5);
	g_edge(&g, 0, 1);
	g_edge(&g, 1, 2);
	check_graph(tmp, &g, "no roots", 0);
	g_free(&g);

	/* Class references: instances keep their class alive; a class that is a
	 * root and one that is not. */
	g_init(&g, 8);
	g_root(&g, 0);
	g_root(&g, 6);
	g_edge(&g, 0, 1); g_edge(&g, 0, 2);
	g.cls[1] = 5; g.cls[2] = 5; g.cls[3] = 5; g.cls[4] = 6; g.cls[1] = 5;
	g_edge(&g, 2, 4); g_edge(&g, 5, 7);
	check_graph(tmp, &g, "class references", 1);
	g_free(&g);

	/* Random graphs: sparse and dense, few and many roots. */
	for (int round = 0; round < 24; round++) {
		uint32_t n = 50 + rnd(400), m = n * (1 + rnd(4)), nr = 1 + rnd(round % 3 ? 3 : 40);
		g_init(&g, n);
		for (uint32_t r = 0; r < nr; r++)
			g_root(&g, rnd(n));
		for (uint32_t e = 0; e < m; e++) {
			/* mostly forward and local, like a heap: long chains and
			 * diamonds; some back edges make cycles */
			uint32_t s = rnd(n), d = rnd(8) ? (s + 1 + rnd(6)) % n : rnd(n);
			g_edge(&g, s, d);
		}
		for (uint32_t i = 0; i < n / 10; i++)
			g.cls[rnd(n)] = rnd(n);
		char what[64];
		snprintf(what, sizeof what, "random graph %d (%u objects, %u edges)", round, n, m);
		check_graph(tmp, &g, what, round & 1);
		g_free(&g);
	}
}

/* A chain R -> N1 -> ... -> Nk, each link Ni holding an item Ii, and an
 * object X, reached from R after the whole chain, that holds every item too
 * (a linked list whose items are also in an array found later): each Ii's
 * parent in the depth-first tree is Ni, its dominator R.  Semi-NCA's walk up
 * the dominator tree takes the square of the chain's length on it (tried:
 * see bench/HISTORY.md); the analysis must stay right and quick. */
static void test_deep_walk(const char *tmp)
{
	const uint32_t k = 3000;
	graph g;
	g_init(&g, 2 * k + 2);
	/* 0 R, 1..k the links, k+1..2k the items, 2k+1 X; successors in id
	 * order: the next link before the item, the chain before X. */
	g_root(&g, 0);
	g_edge(&g, 0, 1);
	g_edge(&g, 0, 2 * k + 1);
	for (uint32_t i = 1; i <= k; i++) {
		if (i < k)
			g_edge(&g, i, i + 1);
		g_edge(&g, i, k + i);
		g_edge(&g, 2 * k + 1, k + i);
	}
	check_graph(tmp, &g, "chain whose items are also held from after it", 0);
	g_free(&g);
}

/* Ids as SQLite orders them (signed): all above 2^63 (negative), one of 0
 * (whose dominated objects share the super-root's dominator value 0), and
 * ids on both sides of 2^63 (objects not in id order any more, so only the
 * index is checked): the index by dominator places 0 among the ids. */
static void test_id_signs(const char *tmp)
{
	static const uint64_t bases[] = { 0xFFFFFFFFFFF00000u, 0, 0x7FFFFFFFFFFFF000u };
	for (int b = 0; b < 3; b++) {
		id_base = bases[b];
		graph g;
		uint32_t n = 300;
		g_init(&g, n);
		for (uint32_t r = 0; r < 5; r++)
			g_root(&g, rnd(n));
		g_root(&g, 0);
		g_root(&g, n - 1);
		for (uint32_t e = 0; e < 3 * n; e++) {
			uint32_t src = rnd(n), d = rnd(8) ? (src + 1 + rnd(6)) % n : rnd(n);
			g_edge(&g, src, d);
		}
		char what[64];
		snprintf(what, sizeof what, "ids from %#llx", (unsigned long long)id_base);
		if (b < 2) {
			check_graph(tmp, &g, what, 1);
			check_graph(tmp, &g, what, 0);
		} else {
			char path[512];
			snprintf(path, sizeof path, "%s/analysis-signs.db", tmp);
			hf_sink *s = open_db(path, 1);
			hf_error err;
			if (s) {
				g_write(s, &g, 0, &err);
				if (close_db(s)) {
					sqlite3 *db;
					sqlite3_open(path, &db);
					check_index(db, what);
					sqlite3_close(db);
				}
			}
			unlink(path);
		}
		g_free(&g);
	}
	id_base = 0x10000;
}

/* java.lang.ref.Reference's referent is not a strong reference; its other
 * fields are.  The classes and the field name come from node_class,
 * strings and hprof_class_field as hprof2heapdb writes them. */
/* pad: plain objects added (a chain from root 4), so that the one Reference
 * instance is few enough among the objects for the analysis to read its
 * edges by key rather than the kinds and names of every edge (REF_BY_KEY in
 * analysis.c): both ways are checked. */
static void test_referent(const char *tmp, uint32_t pad)
{
	char path[512];
	snprintf(path, sizeof path, "%s/analysis-referent.db", tmp);
	/* objects 0-3: the classes Reference, WeakReference (extends it),
	 * MyRef (extends WeakReference), Object; then instances. */
	graph g;
	g_init(&g, 12 + pad);
	for (uint32_t i = 12; i < 12 + pad; i++) {
		g.cls[i] = 3;
		g_edge(&g, i == 12 ? 4 : i - 1, i);
	}
	for (uint32_t c = 0; c < 4; c++)
		g_root(&g, c);
	g_root(&g, 4);
	g.cls[5] = 2;            /* 5: a MyRef held by root 4 */
	g_edge(&g, 4, 5);
	g_edge_w(&g, 5, 6, 1);   /* 5.referent -> 6: only weakly reachable */
	g_edge(&g, 5, 7);        /* 5.queue -> 7: strong */
	g_edge(&g, 6, 8);        /* 8: reachable through 6 only, so weakly */
	g_edge_w(&g, 5, 9, 1);   /* 9: weakly, and strongly through 7 */
	g_edge(&g, 7, 9);
	g.cls[10] = 3;           /* 10: an Object with a field named referent */
	g_edge(&g, 4, 10);
	g_edge(&g, 10, 11);      /* ... which is strong */
	hf_sink *s = open_db(path, 1);
	if (!s)
		return;
	hf_error err;
	static const char *const names[] = { "", "java/lang/ref/Reference", "java.lang.ref.Reference",
		"java/lang/ref/WeakReference", "java.lang.ref.WeakReference", "MyRef", "java.lang.Object",
		"referent", "queue" };
	for (uint64_t i = 1; i < sizeof names / sizeof *names; i++)
		CHECK(hf_sink_string(s, i, names[i], strlen(names[i]), &err) == HF_OK, "string");
	for (uint32_t c = 0; c < 4; c++) {
		hf_value v[9];
		memset(v, 0, sizeof v);
		static const uint64_t name[] = { 1, 3, 5, 6 }, jname[] = { 2, 4, 5, 6 };
		v[0].u = name[c]; v[0].present = 1;
		v[1].u = jname[c]; v[1].present = 1;
		v[2].u = c == 1 ? obj_id(0) : c == 2 ? obj_id(1) : c == 0 ? obj_id(3) : 0;
		v[2].present = 1;
		hf_node nd = { &hprof_node_class, obj_id(c), 0, 0, g.size[c], 0, v };
		CHECK(hf_sink_node(s, &nd, &err) == HF_OK, "class node: %s", err.message);
	}
	/* Reference declares referent (string 7) and queue (8). */
	for (int f = 0; f < 2; f++) {
		hf_value v[5];
		memset(v, 0, sizeof v);
		v[0].u = obj_id(0); v[0].present = 1;
		v[1].i = f; v[1].present = 1;
		v[2].i = 0; v[2].present = 1;
		v[3].u = 7 + (uint64_t)f; v[3].present = 1;
		v[4].s = "object"; v[4].n = 6; v[4].present = 1;
		hf_record rec = { &hprof_rec_class_field, v };
		CHECK(hf_sink_record(s, &rec, &err) == HF_OK, "class field: %s", err.message);
	}
	graph inst = g;          /* the instances: objects 4.. (the classes are written above) */
	for (uint32_t i = 4; i < g.n; i++) {
		hf_node nd = { &hprof_node_instance, obj_id(i), 0,
		               g.cls[i] == NONE ? 0 : obj_id(g.cls[i]), g.size[i], 0, absent };
		CHECK(hf_sink_node(s, &nd, &err) == HF_OK, "node: %s", err.message);
	}
	inst.n = 0;              /* edges and roots only */
	g_write(s, &inst, 0, &err);
	/* 10's field is also labelled "referent" (7), but 10 is no Reference */
	if (!close_db(s))
		return;
	/* The writer's own analysis (from the graph it gathered). */
	expect x;
	reference(&g, &x);
	compare(path, &g, &x, 0, "Reference.referent, as written");
	/* The edge 10 -> 11 was written with label 8 by g_write; rewrite it as
	 * "referent" to show that the label alone does not make it weak. */
	sqlite3 *db;
	sqlite3_open(path, &db);
	char sql[256];
	snprintf(sql, sizeof sql, "UPDATE edge SET label = 7 WHERE source = %llu",
	         (unsigned long long)obj_id(10));
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK, "update");
	sqlite3_close(db);
	hf_analysis_stats st;
	CHECK(hf_heapdb_analyze(path, NULL, &st, &err) == HF_OK, "analyse: %s", err.message);
	CHECK_EQ_U(st.referent_edges, 2, "referent edges");
	CHECK_EQ_U(st.weakly_reachable, 2, "weakly reachable objects (6, 8)");
	CHECK(x.reachable[6] == 2 && x.reachable[8] == 2 && x.reachable[9] == 1 && x.reachable[11] == 1,
	      "the reference itself sees 6 and 8 weakly reachable");
	compare(path, &g, &x, 0, "Reference.referent");
	x_free(&x);
	g_free(&g);
	unlink(path);
}

/* Two heap dumps in one database are analysed apart. */
static void test_two_dumps(const char *tmp)
{
	char path[512];
	snprintf(path, sizeof path, "%s/analysis-dumps.db", tmp);
	graph a, b;
	g_init(&a, 30);
	g_init(&b, 40);
	g_root(&a, 0);
	g_root(&b, 39);
	for (uint32_t i = 0; i + 1 < 30; i++)
		g_edge(&a, i, i + 1 + (i % 3 == 0));
	for (uint32_t i = 39; i > 0; i--)
		g_edge(&b, i, i - 1);
	hf_sink *s = open_db(path, 1);
	if (!s)
		return;
	hf_error err;
	g_write(s, &a, 0, &err);
	g_write(s, &b, 1, &err);
	if (!close_db(s))
		return;
	expect xa, xb;
	reference(&a, &xa);
	reference(&b, &xb);
	compare(path, &a, &xa, 0, "two dumps: dump 0");
	compare(path, &b, &xb, 1, "two dumps: dump 1");
	sqlite3 *db;
	sqlite3_open(path, &db);
	sqlite3_stmt *st;
	sqlite3_prepare_v2(db, "SELECT group_concat(dump || ':' || nodes || ':' || reachable, ' ')"
	                       " FROM (SELECT * FROM dump_analysis ORDER BY dump)", -1, &st, NULL);
	sqlite3_step(st);
	uint32_t ra = 0;
	for (uint32_t i = 0; i < a.n; i++)
		ra += xa.reachable[i] == 1;
	char want[64];
	snprintf(want, sizeof want, "0:30:%u 1:40:40", ra);
	CHECK(ra < 30, "dump 0 has unreachable objects");
	CHECK_STR((const char *)sqlite3_column_text(st, 0), want, "dump_analysis rows");
	sqlite3_finalize(st);
	sqlite3_close(db);
	x_free(&xa);
	x_free(&xb);
	g_free(&a);
	g_free(&b);
	unlink(path);
}

/* More dumps than the analysis reads by scans (analysis.c, AN_SCAN_DUMPS):
 * 40 dumps of random graphs with class references, each analysed apart,
 * through the indexes by dump made for the run and dropped after it. */
static void test_many_dumps(const char *tmp)
{
	enum { DUMPS = 40 };
	char path[512];
	snprintf(path, sizeof path, "%s/analysis-many-dumps.db", tmp);
	graph g[DUMPS];
	for (uint32_t d = 0; d < DUMPS; d++) {
		uint32_t n = 20 + rnd(80), m = n * (1 + rnd(3));
		g_init(&g[d], n);
		for (uint32_t r = 0, nr = 1 + rnd(4); r < nr; r++)
			g_root(&g[d], rnd(n));
		for (uint32_t e = 0; e < m; e++) {
			uint32_t a = rnd(n), b = rnd(6) ? (a + 1 + rnd(4)) % n : rnd(n);
			g_edge(&g[d], a, b);
		}
		for (uint32_t i = 0; i < n / 8; i++)
			g[d].cls[rnd(n)] = rnd(n);
	}
	hf_sink *s = open_db(path, 1);
	if (!s)
		return;
	hf_error err;
	for (uint32_t d = 0; d < DUMPS; d++)
		g_write(s, &g[d], d, &err);
	if (!close_db(s))
		return;
	for (uint32_t d = 0; d < DUMPS; d++) {
		expect x;
		reference(&g[d], &x);
		char what[64];
		snprintf(what, sizeof what, "many dumps: dump %u", d);
		compare(path, &g[d], &x, d, what);
		x_free(&x);
		g_free(&g[d]);
	}
	sqlite3 *db;
	sqlite3_open(path, &db);
	sqlite3_stmt *st;
	sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM dump_analysis),"
	                       " (SELECT count(*) FROM sqlite_master WHERE name LIKE 'heapfmt_analysis%')",
	                   -1, &st, NULL);
	sqlite3_step(st);
	CHECK_EQ_U(sqlite3_column_int64(st, 0), DUMPS, "many dumps: dump_analysis rows");
	CHECK_EQ_U(sqlite3_column_int64(st, 1), 0, "many dumps: the indexes by dump dropped");
	sqlite3_finalize(st);
	sqlite3_close(db);
	unlink(path);
}

static char *analysis_text(const char *path);

/* A chain of a million links from one root (a depth-first search a
 * million deep), closed into a cycle, with the last link also held by a
 * second root: checked against formulas. */
static void test_long_chain(const char *tmp)
{
	const uint32_t n = 1000000;
	char path[512];
	snprintf(path, sizeof path, "%s/analysis-chain.db", tmp);
	graph g;
	g_init(&g, n);
	g_root(&g, 0);
	for (uint32_t i = 0; i + 1 < n; i++)
		g_edge(&g, i, i + 1);
	g_edge(&g, n - 1, 0);
	hf_sink *s = open_db(path, 0);
	if (!s)
		return;
	hf_error err;
	g_write(s, &g, 0, &err);
	if (!close_db(s))
		return;
	hf_analysis_stats st;
	CHECK(hf_heapdb_analyze(path, NULL, &st, &err) == HF_OK, "chain: analyse: %s", err.message);
	CHECK_EQ_U(st.max_distance, n - 1, "chain: longest distance");
	/* 24 bytes per object and 8 per reference, plus the small arrays (the
	 * roots, the Reference classes) */
	CHECK(st.peak_memory <= 24ull * n + 8ull * n + 65536, "chain: peak memory %llu bytes",
	      (unsigned long long)st.peak_memory);
	/* suffix sums of the sizes */
	uint64_t *suffix = malloc((n + 1) * sizeof *suffix);
	suffix[n] = 0;
	for (uint32_t i = n; i-- > 0;)
		suffix[i] = suffix[i + 1] + g.size[i];
	sqlite3 *db;
	sqlite3_open(path, &db);
	sqlite3_stmt *q;
	sqlite3_prepare_v2(db, "SELECT reachable, distance, dominator, retained_size FROM node_analysis"
	                       " ORDER BY identifier", -1, &q, NULL);
	uint32_t i = 0, bad = 0;
	while (sqlite3_step(q) == SQLITE_ROW) {
		int ok = sqlite3_column_int(q, 0) == 1 && sqlite3_column_int64(q, 1) == i &&
		         (uint64_t)sqlite3_column_int64(q, 2) == (i ? obj_id(i - 1) : 0) &&
		         (uint64_t)sqlite3_column_int64(q, 3) == suffix[i];
		if (!ok && ++bad < 5)
			CHECK(0, "chain link %u", i);
		i++;
	}
	sqlite3_finalize(q);
	sqlite3_close(db);
	CHECK_EQ_U(i, n, "chain: rows");
	CHECK_EQ_U(bad, 0, "chain: links that differ from the formulas");
	/* The same cycle with a second root on its last link: the paths from
	 * both roots go through link 0, so only the two roots change: the last
	 * link is dominated by the super-root and retained by no one else. */
	g_root(&g, n - 1);
	s = open_db(path, 1);
	if (!s)
		return;
	g_write(s, &g, 0, &err);
	if (!close_db(s))
		return;
	sqlite3_open(path, &db);
	sqlite3_prepare_v2(db, "SELECT count(*), sum(dominator = 0), max(distance),"
	                       " (SELECT retained_size FROM node_analysis ORDER BY identifier LIMIT 1),"
	                       " (SELECT retained_size FROM node_analysis ORDER BY identifier DESC LIMIT 1)"
	                       " FROM node_analysis", -1, &q, NULL);
	sqlite3_step(q);
	CHECK_EQ_U(sqlite3_column_int64(q, 0), n, "two-root cycle: rows");
	CHECK_EQ_U(sqlite3_column_int64(q, 1), 2, "two-root cycle: the roots are dominated by the super-root");
	CHECK_EQ_U(sqlite3_column_int64(q, 2), n - 2, "two-root cycle: longest distance");
	CHECK_EQ_U(sqlite3_column_int64(q, 3), suffix[0] - g.size[n - 1], "two-root cycle: link 0 retains");
	CHECK_EQ_U(sqlite3_column_int64(q, 4), g.size[n - 1], "two-root cycle: the last link retains");
	sqlite3_finalize(q);
	sqlite3_close(db);
	/* The same analyses with the arrays (4 MB each, large enough) in
	 * temporary files whose pages are released whenever the process holds
	 * more than a byte: the same rows, from the writer's graph and from the
	 * tables. */
	char *plain = analysis_text(path);
	db_analysis_memory = 1;
	s = open_db(path, 1);
	db_analysis_memory = 0;
	if (!s)
		return;
	g_write(s, &g, 0, &err);
	if (!close_db(s))
		return;
	char *mapped = analysis_text(path);
	CHECK(plain && mapped && !strcmp(plain, mapped),
	      "two-root cycle: the same rows with the arrays in files (the writer's graph)");
	free(mapped);
	hf_analysis_options lo;
	hf_analysis_options_init(&lo);
	lo.memory_limit = 1;
	CHECK(hf_heapdb_analyze(path, &lo, &st, &err) == HF_OK, "chain: analyse in files: %s", err.message);
	mapped = analysis_text(path);
	CHECK(plain && mapped && !strcmp(plain, mapped),
	      "two-root cycle: the same rows with the arrays in files (the tables)");
	CHECK_EQ_U(st.max_distance, n - 2, "two-root cycle in files: longest distance");
	free(mapped);
	free(plain);
	free(suffix);
	g_free(&g);
	unlink(path);
}

/* ---- the sample dump ----------------------------------------------------- */

/* Reads the graph of a converted dump back from its database, deciding
 * independently (SQL) which edges are Reference.referent fields. */
static int load_graph(sqlite3 *db, graph *g, uint64_t **ids_out)
{
	sqlite3_stmt *st;
	sqlite3_prepare_v2(db, "SELECT count(*) FROM node WHERE dump = 0", -1, &st, NULL);
	sqlite3_step(st);
	uint32_t n = (uint32_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	g_init(g, n);
	uint64_t *ids = calloc(n ? n : 1, sizeof *ids);
	sqlite3_prepare_v2(db, "SELECT identifier, size FROM node WHERE dump = 0 ORDER BY identifier",
	                   -1, &st, NULL);
	for (uint32_t i = 0; sqlite3_step(st) == SQLITE_ROW; i++) {
		ids[i] = (uint64_t)sqlite3_column_int64(st, 0);
		g->size[i] = (uint64_t)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
#define FIND(id, out) do { uint64_t _k = (id); uint32_t _lo = 0, _hi = n; \
		while (_lo < _hi) { uint32_t _m = (_lo + _hi) / 2; if (ids[_m] < _k) _lo = _m + 1; else _hi = _m; } \
		out = (_lo < n && ids[_lo] == _k) ? _lo : NONE; } while (0)
	sqlite3_prepare_v2(db, "SELECT identifier, class FROM node WHERE dump = 0", -1, &st, NULL);
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint32_t i, c;
		FIND((uint64_t)sqlite3_column_int64(st, 0), i);
		FIND((uint64_t)sqlite3_column_int64(st, 1), c);
		g->cls[i] = c;
	}
	sqlite3_finalize(st);
	sqlite3_prepare_v2(db,
		"WITH RECURSIVE refclass(id) AS ("
		"  SELECT c.node_identifier FROM node_class AS c JOIN strings AS s ON s.stringid = c.java_name"
		"  WHERE s.data = 'java.lang.ref.Reference' AND c.dump = 0"
		"  UNION SELECT c.node_identifier FROM node_class AS c JOIN refclass AS r ON c.super = r.id"
		"  WHERE c.dump = 0)"
		" SELECT e.source, e.dest, e.edgetypeid = 1 AND n.class IN refclass"
		"   AND (SELECT data FROM strings WHERE stringid = e.label) = 'referent'"
		" FROM edge AS e JOIN node AS n ON n.identifier = e.source AND n.dump = e.dump"
		" WHERE e.dump = 0", -1, &st, NULL);
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint32_t s, d;
		FIND((uint64_t)sqlite3_column_int64(st, 0), s);
		FIND((uint64_t)sqlite3_column_int64(st, 1), d);
		if (s != NONE && d != NONE)
			g_edge_w(g, s, d, sqlite3_column_int(st, 2));
	}
	sqlite3_finalize(st);
	sqlite3_prepare_v2(db, "SELECT object FROM hprof_gc_root WHERE dump = 0", -1, &st, NULL);
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint32_t r;
		FIND((uint64_t)sqlite3_column_int64(st, 0), r);
		if (r != NONE)
			g_root(g, r);
	}
	sqlite3_finalize(st);
#undef FIND
	*ids_out = ids;
	return 1;
}

static void test_sample(const char *sample, const char *tmp)
{
	char path[512];
	snprintf(path, sizeof path, "%s/analysis-sample.db", tmp);
	hf_error err;
	hf_input *in;
	if (hf_input_open(&in, sample, &err)) {
		CHECK(0, "%s: %s", sample, err.message);
		return;
	}
	hf_sink *s;
	hf_heapdb_options o = { 1, 0, 1, 0 };
	unlink(path);
	/* The database dropped from the page cache behind SQLite's writes from
	 * its first 64 KiB on (dropbehind.c; past the kernel's dirty limit
	 * otherwise): what SQLite reads again comes from the disk, and every
	 * row below is checked. */
	hf_dropbehind_test_start = 1;
	CHECK(hf_heapdb_sink_open(&s, path, &o, &err) == HF_OK, "open: %s", err.message);
	hf_dropbehind_test_start = 0;
	hf_hprof_options opt;
	hf_hprof_options_init(&opt);
	opt.crtime = "2026-01-01T00:00:00Z";
	hf_hprof_stats hs;
	hf_status st = hf_hprof_read(in, s, &opt, &hs, &err);
	if (!st)
		st = hf_sink_finish(s, &err);
	CHECK(st == HF_OK, "convert the sample: %s", err.message);
	hf_sink_destroy(s, st == HF_OK);
	hf_input_close(in);
	if (st)
		return;
	sqlite3 *db;
	sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	graph g;
	uint64_t *ids;
	load_graph(db, &g, &ids);
	sqlite3_close(db);
	CHECK(g.n > 10000 && g.ne > 20000 && g.nr > 100, "the sample has a graph: %u objects, %u edges, %u roots",
	      g.n, g.ne, g.nr);
	uint32_t weak = 0;
	for (uint32_t e = 0; e < g.ne; e++)
		weak += g.weak[e];
	CHECK(weak > 0, "the sample has Reference.referent edges (%u)", weak);
	expect x;
	reference(&g, &x);
	/* compare() names objects by obj_id(i): map through the real ids. */
	sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	sqlite3_stmt *q;
	sqlite3_prepare_v2(db, "SELECT identifier, reachable, distance, dominator, retained_size"
	                       " FROM node_analysis WHERE dump = 0 ORDER BY identifier", -1, &q, NULL);
	uint32_t i = 0, bad = 0, weakly = 0;
	while (sqlite3_step(q) == SQLITE_ROW && i < g.n) {
		int ok = (uint64_t)sqlite3_column_int64(q, 0) == ids[i] &&
		         sqlite3_column_int(q, 1) == x.reachable[i];
		if (x.reachable[i] == 1)
			ok = ok && sqlite3_column_int64(q, 2) == x.dist[i] &&
			     (uint64_t)sqlite3_column_int64(q, 3) == (x.idom[i] == NONE ? 0 : ids[x.idom[i]]) &&
			     (uint64_t)sqlite3_column_int64(q, 4) == x.retained[i];
		weakly += x.reachable[i] == 2;
		if (!ok && ++bad <= 5)
			CHECK(0, "sample object %llu: got %d %lld %lld %lld, want %d %u %llu %llu",
			      (unsigned long long)ids[i], sqlite3_column_int(q, 1),
			      (long long)sqlite3_column_int64(q, 2), (long long)sqlite3_column_int64(q, 3),
			      (long long)sqlite3_column_int64(q, 4), x.reachable[i], x.dist[i],
			      (unsigned long long)(x.idom[i] == NONE ? 0 : ids[x.idom[i]]),
			      (unsigned long long)x.retained[i]);
		i++;
	}
	sqlite3_finalize(q);
	sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &q, NULL);
	const unsigned char *verdict = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_text(q, 0) : NULL;
	CHECK(verdict && !strcmp((const char *)verdict, "ok"), "sample: integrity_check: %s",
	      verdict ? (const char *)verdict : "no answer");
	sqlite3_finalize(q);
	sqlite3_close(db);
	CHECK_EQ_U(i, g.n, "sample: rows");
	CHECK_EQ_U(bad, 0, "sample: objects that differ from the reference");
	fprintf(stderr, "sample: %u objects, %u edges, %u roots, %u weakly reachable, checked one by one\n",
	        g.n, g.ne, g.nr, weakly);
	x_free(&x);
	free(ids);
	g_free(&g);
	unlink(path);
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

/* node_analysis and dump_analysis as one string, in key order. */
static char *analysis_text(const char *path)
{
	sqlite3 *db;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_stmt *st;
	char *out = NULL;
	if (sqlite3_prepare_v2(db,
	        "SELECT (SELECT count(*) || ' ' || group_concat(identifier || ':' || dump || ':' || reachable"
	        " || ':' || coalesce(distance, 'n') || ':' || coalesce(dominator, 'n') || ':'"
	        " || coalesce(retained_size, 'n'), ' ') FROM (SELECT * FROM node_analysis"
	        " ORDER BY identifier, dump)) || ' | ' || (SELECT group_concat(dump || ':' || nodes || ':'"
	        " || roots || ':' || missing_roots || ':' || edges || ':' || class_edges || ':'"
	        " || referent_edges || ':' || dangling_edges || ':' || reachable || ':' || reachable_bytes"
	        " || ':' || weakly_reachable || ':' || weakly_reachable_bytes || ':' || unreachable || ':'"
	        " || unreachable_bytes || ':' || coalesce(max_distance, 'n'), ' ') FROM dump_analysis)",
	        -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		out = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return out;
}

/* hprof2heapdb's analysis reads the graph its writer gathered during the
 * load (hf_analysis_graph), heapdb-analyze reads the tables: the same rows
 * either way, on a graph written out of id order (ids on both sides of
 * 2^63, so not even in the writer's unsigned order), with second objects
 * of known ids (the first is kept), edges from and to unknown objects,
 * roots of unknown objects, and class references; as dump 3. */
static void test_graph_paths(const char *tmp)
{
	char path[512];
	snprintf(path, sizeof path, "%s/analysis-paths.db", tmp);
	id_base = 0x7FFFFFFFFFFFE000u;
	graph g;
	uint32_t n = 3000;
	g_init(&g, n);
	for (uint32_t r = 0; r < 20; r++)
		g_root(&g, rnd(n));
	for (uint32_t i = 0; i < n; i++)
		g.cls[i] = rnd(4) ? NONE : rnd(40);
	for (uint32_t e = 0; e < 3 * n; e++) {
		uint32_t src = rnd(n), d = rnd(6) ? (src + 1 + rnd(9)) % n : rnd(n);
		g_edge(&g, src, d);
	}
	uint32_t *order = malloc(n * sizeof *order);
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	for (uint32_t i = n - 1; i > 0; i--) {
		uint32_t j = rnd(i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (uint32_t i = 0; i + 40 < n; i += 40)   /* runs in order as well */
		if (rnd(3) == 0)
			qsort(order + i, 40, sizeof *order, cmp_u32);
	hf_sink *s = open_db(path, 1);
	hf_error err;
	if (s) {
		for (uint32_t k = 0; k < n + n / 10; k++) {
			uint32_t i = k < n ? order[k] : order[rnd(n)];   /* then seconds of known ids */
			hf_node nd = { &hprof_node_instance, obj_id(i), 3,
			               g.cls[i] == NONE ? 0 : obj_id(g.cls[i]), k < n ? g.size[i] : 999, 0,
			               absent };
			CHECK(hf_sink_node(s, &nd, &err) == HF_OK, "node: %s", err.message);
		}
		for (uint32_t e = 0; e < g.ne; e++) {
			uint64_t src = obj_id(g.src[e]), dst = obj_id(g.dst[e]);
			if (e % 97 == 0)
				dst = obj_id(n + 5);     /* to no object */
			if (e % 101 == 0)
				src = obj_id(n + 7);     /* from none */
			hf_edge ed = { &hprof_edge_field, src, dst, 8, 3 };
			CHECK(hf_sink_edge(s, &ed, &err) == HF_OK, "edge: %s", err.message);
		}
		for (uint32_t r = 0; r < g.nr; r++)
			put_root(s, 3, "JNI_GLOBAL", obj_id(g.roots[r]), &err);
		put_root(s, 3, "STICKY_CLASS", obj_id(n + 9), &err);
		if (close_db(s)) {
			char *graph_rows = analysis_text(path);
			hf_analysis_stats st;
			CHECK(hf_heapdb_analyze(path, NULL, &st, &err) == HF_OK, "paths: analyse: %s",
			      err.message);
			char *table_rows = analysis_text(path);
			CHECK(graph_rows && table_rows && !strcmp(graph_rows, table_rows),
			      "the writer's graph and the tables give the same analysis");
			CHECK(graph_rows && strstr(graph_rows, "3000 ") == graph_rows, "3000 objects analysed");
			CHECK_EQ_U(st.nodes, n, "paths: objects");
			CHECK_EQ_U(st.missing_roots, 1, "paths: missing roots");
			CHECK(st.dangling_edges > 0 && st.class_edges > 0, "paths: dangling and class edges");
			free(graph_rows);
			free(table_rows);
		}
	}
	unlink(path);
	free(order);
	g_free(&g);
	id_base = 0x10000;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_analysis SAMPLE.hprof.gz TMPDIR\n");
		return 2;
	}
	test_small_graphs(argv[2]);
	test_deep_walk(argv[2]);
	test_referent(argv[2], 0);   /* kinds and names read with every edge */
	test_referent(argv[2], 40);  /* the Reference instance's edges read by key */
	test_two_dumps(argv[2]);
	test_many_dumps(argv[2]);
	test_id_signs(argv[2]);
	test_graph_paths(argv[2]);
	test_long_chain(argv[2]);
	test_sample(argv[1], argv[2]);
	return t_done("test_analysis");
}
