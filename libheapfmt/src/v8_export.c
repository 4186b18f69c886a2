/*
 * A heap database as a V8 heap snapshot (.heapsnapshot) that Chrome DevTools
 * and Node.js tools open.
 *
 * A snapshot names nodes by their position: edges point at node indexes
 * (index * number of node fields), and the edges of a node are the next
 * edge_count entries of "edges", in node order.  So the exporter
 *   1. reads the node ids of the dump in identifier order (the table's own
 *      key order): a node's index is its position, found by binary search
 *      (a snapshot's root, when it is not the smallest id, moved first:
 *      load_root);
 *   2. counts each node's edges (those whose destination is a node of the
 *      dump: a reference to an object the dump lacks has no index, it is
 *      left out and counted);
 *   3. writes nodes, then edges in (source, seq) order, which is node order,
 *      then the strings used, which it numbers as it goes.
 * Memory: 12 bytes per node (id, edge count), 16 from HPROF and other dumps
 * (its class), a map entry per distinct
 * string used, one per class name looked up.
 *
 * From a database made from a snapshot (target_source "v8", metadata
 * v8.meta) the snapshot's own meta, types, node fields and records come
 * back.  From anything else (HPROF, DDM) the exporter writes Node.js 20's
 * meta and maps (documented in man/heapdb2heapsnapshot.1):
 *   node name = the class name as schema/queries/class_histogram.sql names
 *     it (arrays under their array class, class objects java.lang.Class);
 *   type "array" for a subtype whose name has "array" in it, else "object";
 *   edges: label "string" -> "property" named by the string, "index" ->
 *     "element", "none" -> "internal" named by the edge subtype's name;
 *   synthetic nodes first: the root "" -> "(GC roots)" -> one "(KIND)" node
 *     per GC-root kind (hprof.gc_root) -> the objects held ("element" edges).
 */
#define _POSIX_C_SOURCE 200809L
#include "v8_model.h"
#include "heapfmt/v8.h"
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>


void hf_v8_export_options_init(hf_v8_export_options *opt)
{
	memset(opt, 0, sizeof *opt);
}

static const char standard_meta[] =
	"{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\",\"trace_node_id\",\"detachedness\"],"
	"\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\",\"code\",\"closure\",\"regexp\",\"number\","
	"\"native\",\"synthetic\",\"concatenated string\",\"sliced string\",\"symbol\",\"bigint\",\"object shape\","
	"\"wasm object\"],\"string\",\"number\",\"number\",\"number\",\"number\",\"number\"],"
	"\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],"
	"\"edge_types\":[[\"context\",\"element\",\"property\",\"internal\",\"hidden\",\"shortcut\",\"weak\"],"
	"\"string_or_number\",\"node\"],"
	"\"trace_function_info_fields\":[\"function_id\",\"name\",\"script_name\",\"script_id\",\"line\",\"column\"],"
	"\"trace_node_fields\":[\"id\",\"function_info_index\",\"count\",\"size\",\"children\"],"
	"\"sample_fields\":[\"timestamp_us\",\"last_assigned_id\"],"
	"\"location_fields\":[\"object_index\",\"script_id\",\"line\",\"column\"]}";
enum { STD_ARRAY = 1, STD_OBJECT = 3, STD_SYNTHETIC = 9, STD_ELEMENT = 1, STD_PROPERTY = 2,
       STD_INTERNAL = 3, STD_WEAK = 6 };

typedef struct ostr {
	int64_t dbid;   /* a string of the database, or 0 */
	char *text;     /* else this text (owned) */
} ostr;

typedef struct subtab {
	int id;
	sqlite3_stmt *q;   /* v8 origin: the subtype's fields of one node */
	int is_array;
	int edge_label;    /* edges: 0 none, 1 string, 2 index */
	int64_t name_out;  /* edges with label none: out index of the type name (-1 not yet) */
	char name[80];
} subtab;

typedef struct exp {
	sqlite3 *db;
	const char *path;
	const char *out_name; /* the output, for its errors */
	hf_error *err;
	hf_v8_export_stats *st;
	const hf_v8_export_options *opt;
	FILE *fp;
	int v8;                 /* the database was made from a snapshot */
	hf_jval meta;
	size_t nf;
	int f_type, f_name, f_id, f_size, f_ecount;
	int e_type, e_name, e_to;
	int *idx_is_label;      /* v8: per edge type, 1 when name_or_index is an index */
	size_t n_etypes, n_ntypes;
	int64_t *ids;           /* node ids in key order (signed) */
	size_t nneg;            /* of them negative (from 2^63 unsigned): written last */
	size_t root_at;         /* v8: the root's place in that order when not the first (0: it is) */
	int64_t root_id;        /* and its id (v8.root): written first (load_root) */
	bool root_given;        /* v8.root is a number */
	hf_id_index by_id;      /* lookups in ids */
	uint32_t *ecount;
	int32_t *class_at;      /* not v8: per node, its class's index, or -1 (none, or a GC root) */
	uint8_t *rooted;        /* not v8: per node, a bit: a GC root (load_roots) */
	int64_t class_edge_name; /* out index of "class", the class edges' name (-1 not yet) */
	uint8_t *weak_src;      /* not v8: per node, a bit: an instance of a Reference class */
	hf_map referent;        /* string ids naming Reference's field "referent" (value unused) */
	size_t n;
	uint64_t edges;
	size_t nsyn;            /* synthetic nodes before the dump's */
	uint64_t syn_base;      /* id of the first synthetic node */
	char **kinds;           /* GC-root kinds, first seen first */
	uint32_t *kind_count;
	size_t nkinds;
	ostr *strs;
	size_t nstrs, capstrs;
	hf_map by_dbid;         /* database string id -> out index */
	hf_map class_name;      /* class id -> out index */
	subtab *nsub, *esub;
	size_t n_nsub, n_esub;
	sqlite3_stmt *q_class, *q_load, *q_string;
	int64_t std_names[4];   /* "", "(GC roots)", "java.lang.Class", "<class 0x0>" */
} exp;

static hf_status nomem(exp *x) { return hf_error_set(x->err, HF_ERR_NOMEM, "out of memory"); }

static hf_status db_fail(exp *x, const char *what)
{
	int code = sqlite3_errcode(x->db) & 0xff;
	hf_status st = code == SQLITE_NOMEM ? HF_ERR_NOMEM
	             : (code == SQLITE_NOTADB || code == SQLITE_CORRUPT || code == SQLITE_ERROR) ? HF_ERR_FORMAT
	             : HF_ERR_IO;
	if (code == SQLITE_NOTADB) {
		const char *kind = hf_kind_of_path(x->path);
		return hf_error_set(x->err, st, "%s: not a SQLite database%s%s", x->path, HF_KIND_HINT(kind));
	}
	return hf_error_set(x->err, st, "%s: %s: %s%s", x->path, what, sqlite3_errmsg(x->db),
	                    hf_sqlite_hint(x->db));
}

static hf_status prep(exp *x, sqlite3_stmt **q, const char *sql)
{
	if (sqlite3_prepare_v2(x->db, sql, -1, q, NULL) != SQLITE_OK) {
		*q = NULL;
		return db_fail(x, "cannot read");
	}
	return HF_OK;
}

/* 1 or 0; -1 when the schema cannot be read (a damaged file: db_fail). */
static int has_table(exp *x, const char *name)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(x->db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", -1, &q,
	                       NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
	int rc = sqlite3_step(q);
	sqlite3_finalize(q);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

static hf_status io_fail(exp *x)
{
	return hf_error_set(x->err, HF_ERR_IO, "cannot write the snapshot to %s: %s", x->out_name,
	                    strerror(errno));
}

/* ---- strings written --------------------------------------------------- */

static hf_status out_string(exp *x, int64_t dbid, const char *text, int64_t *idx)
{
	if (dbid) {
		uint64_t *v = hf_map_get(&x->by_dbid, (uint64_t)dbid);
		if (v) {
			*idx = (int64_t)*v;
			return HF_OK;
		}
	}
	if (x->nstrs == x->capstrs) {
		size_t nc = x->capstrs ? x->capstrs * 2 : 1024;
		ostr *ns = realloc(x->strs, nc * sizeof *ns);
		if (!ns)
			return nomem(x);
		x->strs = ns;
		x->capstrs = nc;
	}
	ostr *o = &x->strs[x->nstrs];
	o->dbid = dbid;
	o->text = NULL;
	if (!dbid && !(o->text = strdup(text)))
		return nomem(x);
	if (dbid && !hf_map_put(&x->by_dbid, (uint64_t)dbid, x->nstrs))
		return nomem(x);
	*idx = (int64_t)x->nstrs++;
	return HF_OK;
}

static hf_status std_name(exp *x, int which, int64_t *idx)
{
	static const char *const texts[] = { "", "(GC roots)", "java.lang.Class", "<class 0x0>" };
	if (x->std_names[which] < 0) {
		hf_status st = out_string(x, 0, texts[which], &x->std_names[which]);
		if (st)
			return st;
	}
	*idx = x->std_names[which];
	return HF_OK;
}

/* ---- the node table ---------------------------------------------------------- */

/* The index of node id in the snapshot's node array, or -1.  The array
 * holds the nodes in the order of their ids as unsigned numbers, as they came
 * (an id from 2^63 on is negative in the database, and x->ids in the
 * database's order has the x->nneg of them first), but for a snapshot's
 * root, which goes first (load_root). */
static ssize_t find_node(const exp *x, int64_t id)
{
	size_t i = hf_id_index_find(&x->by_id, id);
	if (i >= x->n)
		return -1;
	i = i >= x->nneg ? i - x->nneg : i + (x->n - x->nneg);
	if (x->root_at && i <= x->root_at)
		i = i == x->root_at ? 0 : i + 1;   /* the root first (load_root) */
	return (ssize_t)i;
}

/* A snapshot's root is its first node: DevTools and V8's readers walk from
 * node 0.  V8's root has the smallest id (V8's ids grow in creation order),
 * which identifier order puts first; a snapshot of another producer may
 * start with any id.  The importer keeps the first node's id (metadata
 * v8.root, heapsnapshot2heapdb): when that node is not first in identifier
 * order, it is written first and the others keep their order after it
 * (find_node, write_nodes, write_edges).  A database without v8.root (made
 * before it was kept), or whose v8.root is not a decimal number or names no
 * node of the dump, keeps identifier order.  write_all reads it. */
static void load_root(exp *x)
{
	ssize_t i = x->root_given ? find_node(x, x->root_id) : -1;
	if (i > 0)
		x->root_at = (size_t)i;
}

/* A dump without nodes: the database's only dump when it is empty, else a
 * number past its dumps (a usage error, as hprof2ndjson --dump says). */
static hf_status dump_exists(exp *x)
{
	sqlite3_stmt *q;
	hf_status st = prep(x, &q, "SELECT max(dump) FROM node");
	if (st)
		return st;
	int rc = sqlite3_step(q);
	bool empty = rc == SQLITE_ROW && sqlite3_column_type(q, 0) == SQLITE_NULL;
	long long last = rc == SQLITE_ROW ? sqlite3_column_int64(q, 0) : 0;
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW)
		return db_fail(x, "cannot read the nodes");
	if (empty && x->opt->dump == 0)
		return HF_OK;
	if (empty)
		return hf_error_set(x->err, HF_ERR_USAGE, "heap dump %lld was asked for, but the database holds none",
		                    (long long)x->opt->dump);
	return hf_error_set(x->err, HF_ERR_USAGE, "heap dump %lld was asked for, but the database holds no"
	                    " node of it (its dumps are numbered up to %lld)", (long long)x->opt->dump, last);
}

static hf_status load_nodes(exp *x)
{
	sqlite3_stmt *q;
	hf_status st = prep(x, &q, "SELECT identifier FROM node WHERE dump = ?1 ORDER BY identifier");
	if (st)
		return st;
	sqlite3_bind_int64(q, 1, x->opt->dump);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (x->n == cap) {
			size_t nc = cap ? cap * 2 : 4096;
			int64_t *ni = realloc(x->ids, nc * sizeof *ni);
			if (!ni) {
				sqlite3_finalize(q);
				return nomem(x);
			}
			x->ids = ni;
			cap = nc;
		}
		x->ids[x->n++] = sqlite3_column_int64(q, 0);
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return db_fail(x, "cannot read the nodes");
	hf_id_index_build(&x->by_id, x->ids, x->n);
	while (x->nneg < x->n && x->ids[x->nneg] < 0)
		x->nneg++;
	if (x->v8)
		load_root(x);
	x->ecount = calloc(x->n + 1, sizeof *x->ecount);
	if (!x->ecount)
		return nomem(x);
	if ((st = prep(x, &q, "SELECT source, dest FROM edge WHERE dump = ?1 ORDER BY source, seq")))
		return st;
	sqlite3_bind_int64(q, 1, x->opt->dump);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		ssize_t s = find_node(x, sqlite3_column_int64(q, 0));
		ssize_t d = find_node(x, sqlite3_column_int64(q, 1));
		if (s < 0 || d < 0) {
			x->st->dangling_edges++;
			continue;
		}
		x->ecount[s]++;
		x->edges++;
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return db_fail(x, "cannot read the edges");
	return HF_OK;
}

/* GC-root kinds (synthetic nodes) of a database not made from a snapshot. */
static hf_status load_roots(exp *x)
{
	if (has_table(x, "hprof_gc_root") <= 0)
		return HF_OK;
	sqlite3_stmt *q;
	x->rooted = calloc(x->n / 8 + 1, 1);
	if (!x->rooted)
		return nomem(x);
	hf_status st = prep(x, &q, "SELECT kind, object FROM hprof_gc_root WHERE dump = ?1 ORDER BY rowid");
	if (st)
		return st;
	sqlite3_bind_int64(q, 1, x->opt->dump);
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(q, 0);
		if (!kind)
			kind = "UNKNOWN";
		ssize_t i = find_node(x, sqlite3_column_int64(q, 1));
		if (i < 0) {
			x->st->dangling_roots++;
			continue;
		}
		x->rooted[(size_t)i >> 3] |= (uint8_t)(1u << ((size_t)i & 7));
		size_t k = 0;
		while (k < x->nkinds && strcmp(x->kinds[k], kind))
			k++;
		if (k == x->nkinds) {
			char **nk = realloc(x->kinds, (k + 1) * sizeof *nk);
			uint32_t *nc = realloc(x->kind_count, (k + 1) * sizeof *nc);
			if (nk)
				x->kinds = nk;
			if (nc)
				x->kind_count = nc;
			if (!nk || !nc || !(x->kinds[k] = strdup(kind))) {
				sqlite3_finalize(q);
				return nomem(x);
			}
			x->kind_count[k] = 0;
			x->nkinds++;
		}
		x->kind_count[k]++;
		x->edges++;
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return db_fail(x, "cannot read hprof_gc_root");
	return HF_OK;
}

/* The classes that are java.lang.ref.Reference or extend it, into refs, and
 * the string ids naming Reference's field "referent" (as its CLASS DUMP
 * declares it; without hprof_class_field, every string "referent"), into
 * x->referent: a referent edge is written as V8's "weak", which retains
 * nothing, as the analysis takes it (analysis.c, load_reference_classes). */
static hf_status load_references(exp *x, hf_map *refs)
{
	if (has_table(x, "node_class") <= 0)
		return HF_OK;
	sqlite3_stmt *q;
	hf_status st = prep(x, &q,
		"WITH RECURSIVE r(id) AS (SELECT c.node_identifier FROM node_class c JOIN strings s"
		" ON s.stringid = c.java_name WHERE c.dump = ?1 AND s.data = 'java.lang.ref.Reference'"
		" UNION SELECT c.node_identifier FROM node_class c JOIN r ON c.super = r.id WHERE c.dump = ?1)"
		" SELECT id FROM r");
	if (st)
		return st;
	sqlite3_bind_int64(q, 1, x->opt->dump);
	int rc;
	int64_t reference = 0;
	bool first = true;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(q, 0);
		if (first)
			reference = id;
		first = false;
		if (!hf_map_put(refs, (uint64_t)id, 1)) {
			sqlite3_finalize(q);
			return nomem(x);
		}
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return db_fail(x, "cannot read node_class");
	if (first)
		return HF_OK;
	bool fields = has_table(x, "hprof_class_field") > 0;
	if ((st = prep(x, &q, fields ? "SELECT f.name FROM hprof_class_field f JOIN strings s ON s.stringid = f.name"
	                               " WHERE f.class = ?1 AND f.static = 0 AND s.data = 'referent'"
	                             : "SELECT stringid FROM strings WHERE data = 'referent'")))
		return st;
	if (fields)
		sqlite3_bind_int64(q, 1, reference);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		if (!hf_map_put(&x->referent, (uint64_t)sqlite3_column_int64(q, 0), 1)) {
			sqlite3_finalize(q);
			return nomem(x);
		}
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? HF_OK : db_fail(x, "cannot read the referent field");
}

/* Each object's reference to its class (a database not made from a
 * snapshot): an internal edge "class", first among the object's edges, as
 * the analysis counts it (analysis.c, open_next: in the VM an object keeps
 * its class), unless the class is a GC root, as there too.  Without it
 * DevTools found classes unreachable that node_analysis has reachable (48 of
 * the sample's, helper 24, 2026-11-29). */
static hf_status load_classes(exp *x)
{
	x->class_at = malloc((x->n ? x->n : 1) * sizeof *x->class_at);
	x->weak_src = calloc(x->n / 8 + 1, 1);
	if (!x->class_at || !x->weak_src)
		return nomem(x);
	hf_map refs;             /* java.lang.ref.Reference and the classes that extend it */
	hf_map_init(&refs);
	sqlite3_stmt *q;
	hf_status st = load_references(x, &refs);
	if (!st)
		st = prep(x, &q, "SELECT identifier, class FROM node WHERE dump = ?1");
	if (st) {
		hf_map_free(&refs);
		return st;
	}
	sqlite3_bind_int64(q, 1, x->opt->dump);
	for (size_t i = 0; i < x->n; i++)
		x->class_at[i] = -1;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		ssize_t i = find_node(x, sqlite3_column_int64(q, 0));
		ssize_t c = find_node(x, sqlite3_column_int64(q, 1));
		if (i >= 0 && refs.count && hf_map_get(&refs, (uint64_t)sqlite3_column_int64(q, 1)))
			x->weak_src[(size_t)i >> 3] |= (uint8_t)(1u << ((size_t)i & 7));
		if (i < 0 || c < 0 || (x->rooted && (x->rooted[(size_t)c >> 3] >> ((size_t)c & 7) & 1)) ||
		    x->class_at[i] >= 0 || (size_t)c > INT32_MAX)
			continue;
		x->class_at[i] = (int32_t)c;
		x->ecount[i]++;
		x->edges++;
	}
	sqlite3_finalize(q);
	hf_map_free(&refs);
	if (rc != SQLITE_DONE)
		return db_fail(x, "cannot read the nodes' classes");
	return HF_OK;
}

/* ---- types ------------------------------------------------------------------- */

static int jfind(const hf_jval *list, const char *name)
{
	for (size_t i = 0; list && i < list->n; i++)
		if (list->items[i].type == HF_JV_STRING && !strcmp(list->items[i].s, name))
			return (int)i;
	return -1;
}

static const hf_jval *jarr(const hf_jval *v)
{
	return v && v->type == HF_JV_ARRAY ? v : NULL;
}

/* Parses meta (the database's v8.meta, or Node.js 20's) and finds the fields. */
/* Parses the JSON value of text (a metadata value) into *out, in at most
 * budget bytes of tree; whole: nothing may follow it.  *out is freeable
 * whatever the result. */
static hf_status parse_text(const char *text, const char *ctx, size_t budget, int whole, hf_jval *out,
                            hf_error *err)
{
	hf_input *in;
	memset(out, 0, sizeof *out);
	if (hf_input_open_memory(&in, text, strlen(text), err))
		return HF_ERR_NOMEM;
	hf_jlex lx;
	hf_jlex_init(&lx, in, 0, 0, err);
	lx.ctx = ctx;
	hf_jtok t;
	hf_status st = hf_jlex_next(&lx, &t);
	if (!st)
		st = hf_jval_parse(&lx, t, out, &budget);
	if (!st && whole && (st = hf_jlex_next(&lx, &t)) == HF_OK && t != HF_JT_EOF)
		st = hf_error_set(err, HF_ERR_FORMAT, "%s: more after the value", ctx);
	hf_jlex_free(&lx);
	hf_input_close(in);
	return st;
}

static hf_status use_meta(exp *x, const char *text)
{
	hf_error e2;
	hf_status st = parse_text(text, "v8.meta", (size_t)1 << 20, 0, &x->meta, &e2);
	if (st == HF_ERR_NOMEM)
		return nomem(x);
	if (st) {
		char line[400];
		hf_error_format(&e2, line, sizeof line);
		return hf_error_set(x->err, HF_ERR_FORMAT, "%s: metadata v8.meta: %s", x->path, line);
	}
	const hf_jval *nfl = jarr(hf_jval_get(&x->meta, "node_fields"));
	const hf_jval *efl = jarr(hf_jval_get(&x->meta, "edge_fields"));
	const hf_jval *ntl = jarr(hf_jval_get(&x->meta, "node_types"));
	const hf_jval *etl = jarr(hf_jval_get(&x->meta, "edge_types"));
	x->nf = nfl ? nfl->n : 0;
	x->f_type = jfind(nfl, "type");
	x->f_name = jfind(nfl, "name");
	x->f_id = jfind(nfl, "id");
	x->f_size = jfind(nfl, "self_size");
	x->f_ecount = jfind(nfl, "edge_count");
	x->e_type = jfind(efl, "type");
	x->e_name = jfind(efl, "name_or_index");
	x->e_to = jfind(efl, "to_node");
	if (x->f_type < 0 || x->f_id < 0 || x->f_size < 0 || x->f_ecount < 0 || x->e_type < 0 ||
	    x->e_name < 0 || x->e_to < 0 || !ntl || !etl || ntl->n <= (size_t)x->f_type ||
	    etl->n <= (size_t)x->e_type || !jarr(&etl->items[x->e_type]) || !jarr(&ntl->items[x->f_type]) ||
	    efl->n != 3)
		return hf_error_set(x->err, HF_ERR_FORMAT, "%s: metadata v8.meta lacks the node or edge fields",
		                    x->path);
	const hf_jval *et = &etl->items[x->e_type];
	x->n_etypes = et->n;
	x->n_ntypes = ntl->items[x->f_type].n;
	x->idx_is_label = calloc(et->n + 1, sizeof *x->idx_is_label);
	if (!x->idx_is_label)
		return nomem(x);
	for (size_t i = 0; i < et->n; i++)
		x->idx_is_label[i] = et->items[i].type == HF_JV_STRING &&
		                     (!strcmp(et->items[i].s, "element") || !strcmp(et->items[i].s, "hidden"));
	return HF_OK;
}

/* Prepares "HEAD, <field>... FROM table TAIL" for the first n fields of a
 * meta field list, by their column names (object_index: "object"); a column
 * the table lacks (type, id, ... of node_fields) reads as 0.  *q stays NULL
 * when it cannot be prepared. */
static hf_status select_fields(exp *x, sqlite3_stmt **q, const char *head, const hf_jval *list,
                               size_t n, const char *table, const char *tail)
{
	hf_buf sql;
	hf_buf_init(&sql);
	bool ok = hf_buf_printf(&sql, "%s", head);
	for (size_t i = 0; ok && list && i < n && i < list->n; i++) {
		char id[48], probe[200];
		const char *fn = list->items[i].type == HF_JV_STRING ? list->items[i].s : "";
		hf_v8_type_ident(!strcmp(fn, "object_index") ? "object" : fn, id, sizeof id);
		snprintf(probe, sizeof probe, "SELECT \"%s\" FROM \"%s\" LIMIT 0", id, table);
		sqlite3_stmt *p;
		int have = sqlite3_prepare_v2(x->db, probe, -1, &p, NULL) == SQLITE_OK;
		sqlite3_finalize(p);
		ok = have ? hf_buf_printf(&sql, ", \"%s\"", id) : hf_buf_printf(&sql, ", 0");
	}
	ok = ok && hf_buf_printf(&sql, " FROM \"%s\" %s", table, tail) && hf_buf_append(&sql, "", 1);
	if (ok && sqlite3_prepare_v2(x->db, (const char *)sql.data, -1, q, NULL) != SQLITE_OK)
		*q = NULL;
	hf_buf_free(&sql);
	return ok ? HF_OK : nomem(x);
}

static hf_status load_types(exp *x)
{
	sqlite3_stmt *q;
	hf_status st = prep(x, &q, "SELECT nodetypeid, name, table_name FROM node_types ORDER BY nodetypeid");
	if (st)
		return st;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		subtab *ns = realloc(x->nsub, (x->n_nsub + 1) * sizeof *ns);
		if (!ns) {
			sqlite3_finalize(q);
			return nomem(x);
		}
		x->nsub = ns;
		subtab *s = &ns[x->n_nsub++];
		memset(s, 0, sizeof *s);
		s->id = sqlite3_column_int(q, 0);
		const char *name = (const char *)sqlite3_column_text(q, 1);
		snprintf(s->name, sizeof s->name, "%s", name ? name : "");
		s->is_array = strstr(s->name, "array") != NULL;
		const char *table = (const char *)sqlite3_column_text(q, 2);
		if (x->v8 && table && x->nf) {
			/* the subtype's fields in meta.node_fields order (absent: 0) */
			if ((st = select_fields(x, &s->q, "SELECT 0", hf_jval_get(&x->meta, "node_fields"), x->nf,
			                        table, "WHERE node_identifier = ?1 AND dump = ?2"))) {
				sqlite3_finalize(q);
				return st;
			}
		}
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return db_fail(x, "cannot read node_types");
	if ((st = prep(x, &q, "SELECT edgetypeid, name, label FROM edge_types ORDER BY edgetypeid")))
		return st;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		subtab *ns = realloc(x->esub, (x->n_esub + 1) * sizeof *ns);
		if (!ns) {
			sqlite3_finalize(q);
			return nomem(x);
		}
		x->esub = ns;
		subtab *s = &ns[x->n_esub++];
		memset(s, 0, sizeof *s);
		s->id = sqlite3_column_int(q, 0);
		const char *name = (const char *)sqlite3_column_text(q, 1);
		const char *label = (const char *)sqlite3_column_text(q, 2);
		snprintf(s->name, sizeof s->name, "%s", name ? name : "");
		s->edge_label = label && !strcmp(label, "string") ? 1 : label && !strcmp(label, "index") ? 2 : 0;
		s->name_out = -1;
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return db_fail(x, "cannot read edge_types");
	return HF_OK;
}

static subtab *sub_of(subtab *t, size_t n, int id)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].id == id)
			return &t[i];
	return NULL;
}

/* The name of a node of a database not made from a snapshot: its class
 * name as class_histogram.sql gives it. */
static hf_status class_name(exp *x, int64_t cls, int is_class_object, int64_t *idx)
{
	if (!cls)
		return std_name(x, is_class_object ? 2 : 3, idx);
	uint64_t *v = hf_map_get(&x->class_name, (uint64_t)cls);
	if (v) {
		*idx = (int64_t)*v;
		return HF_OK;
	}
	int64_t sid = 0;
	sqlite3_stmt *qs[] = { x->q_class, x->q_load };
	for (size_t i = 0; i < 2 && !sid; i++) {
		if (!qs[i])
			continue;
		sqlite3_reset(qs[i]);
		sqlite3_bind_int64(qs[i], 1, cls);
		sqlite3_bind_int64(qs[i], 2, x->opt->dump);
		if (sqlite3_step(qs[i]) == SQLITE_ROW)
			sid = sqlite3_column_int64(qs[i], 0);
	}
	hf_status st;
	if (sid)
		st = out_string(x, sid, NULL, idx);
	else {
		char buf[40];
		snprintf(buf, sizeof buf, "<class 0x%" PRIx64 ">", (uint64_t)cls);
		st = out_string(x, 0, buf, idx);
	}
	if (st)
		return st;
	return hf_map_put(&x->class_name, (uint64_t)cls, (uint64_t)*idx) ? HF_OK : nomem(x);
}

/* ---- writing ---------------------------------------------------------------------- */

static void put_row(exp *x, const uint64_t *f, size_t n, int first)
{
	fputs(first ? "" : ",", x->fp);
	for (size_t i = 0; i < n; i++)
		fprintf(x->fp, i ? ",%" PRIu64 : "%" PRIu64, f[i]);
	fputc('\n', x->fp);
}

static void put_node(exp *x, uint64_t type, int64_t name, uint64_t id, uint64_t size, uint64_t ec,
                     const int64_t *extra, int *first)
{
	uint64_t f[64] = { 0 };
	for (size_t i = 0; i < x->nf && i < 64; i++)
		f[i] = extra ? (uint64_t)extra[i] : 0;
	f[x->f_type] = type;
	if (x->f_name >= 0)
		f[x->f_name] = (uint64_t)name;
	f[x->f_id] = id;
	f[x->f_size] = size;
	f[x->f_ecount] = ec;
	put_row(x, f, x->nf, *first);
	*first = 0;
	x->st->nodes++;
}

static void put_edge(exp *x, uint64_t type, uint64_t label, uint64_t to_index, int *first)
{
	uint64_t f[3];
	f[x->e_type] = type;
	f[x->e_name] = label;
	f[x->e_to] = to_index * x->nf;
	put_row(x, f, 3, *first);
	*first = 0;
	x->st->edges++;
}

/* SELECT what (columns FROM table) of the dump's rows whose key is
 * non-negative (half 0) or negative (half 1), ordered: the two halves, in
 * turn, give the rows in the order of the key as an unsigned number. */
static hf_status prep_half(exp *x, sqlite3_stmt **q, const char *what, const char *key, const char *order,
                           int half)
{
	char sql[256];
	snprintf(sql, sizeof sql, "SELECT %s WHERE dump = ?1 AND %s %s 0 ORDER BY %s", what, key,
	         half ? "<" : ">=", order);
	hf_status st = prep(x, q, sql);
	if (!st)
		sqlite3_bind_int64(*q, 1, x->opt->dump);
	return st;
}

/* The node of row q (identifier, nodetypeid, class, size), the i-th. */
static hf_status node_row(exp *x, sqlite3_stmt *q, size_t i, int *first)
{
	int64_t id = sqlite3_column_int64(q, 0);
	int type = sqlite3_column_int(q, 1);
	int64_t cls = sqlite3_column_int64(q, 2);
	int64_t size = sqlite3_column_int64(q, 3);
	subtab *s = sub_of(x->nsub, x->n_nsub, type);
	uint64_t vtype;
	int64_t extra[64], nm = -1;
	hf_status st;
	memset(extra, 0, sizeof extra);
	if (x->v8) {
		vtype = type >= HF_V8_NODE_BASE && (size_t)(type - HF_V8_NODE_BASE) < x->n_ntypes
		        ? (uint64_t)(type - HF_V8_NODE_BASE) : 0;
		if (s && s->q) {
			sqlite3_reset(s->q);
			sqlite3_bind_int64(s->q, 1, id);
			sqlite3_bind_int64(s->q, 2, x->opt->dump);
			if (sqlite3_step(s->q) == SQLITE_ROW)
				for (size_t k = 0; k < x->nf && k < 64; k++)
					extra[k] = sqlite3_column_int64(s->q, (int)k + 1);
		}
		if (x->f_name >= 0 && extra[x->f_name] > 0 && (st = out_string(x, extra[x->f_name], NULL, &nm)))
			return st;
		if (nm < 0 && (st = std_name(x, 0, &nm)))
			return st;
	} else {
		vtype = s && s->is_array ? STD_ARRAY : STD_OBJECT;
		if ((st = class_name(x, cls, s && !strcmp(s->name, "class"), &nm)))
			return st;
	}
	put_node(x, vtype, nm, (uint64_t)id, (uint64_t)size, x->ecount[i], extra, first);
	if (x->opt->progress && !((i + 1) & 0xFFFF))
		x->opt->progress(x->opt->progress_ctx, i + 1, x->n + x->edges);
	return HF_OK;
}

/* The rows of a query that takes the dump (?1) and the root's id (?2,
 * load_root), each given to row(arg). */
static hf_status root_rows(exp *x, const char *sql, hf_status (*row)(exp *, sqlite3_stmt *, void *),
                           void *arg)
{
	sqlite3_stmt *q;
	hf_status st = prep(x, &q, sql);
	if (st)
		return st;
	sqlite3_bind_int64(q, 1, x->opt->dump);
	sqlite3_bind_int64(q, 2, x->root_id);
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW && !(st = row(x, q, arg)))
		;
	sqlite3_finalize(q);
	if (st)
		return st;
	return rc == SQLITE_DONE ? HF_OK : db_fail(x, "cannot read the root's rows");
}

static hf_status root_node(exp *x, sqlite3_stmt *q, void *first)
{
	return node_row(x, q, 0, first);
}

static hf_status write_nodes(exp *x)
{
	hf_status st;
	int first = 1;
	int64_t nm;
	if (!x->v8) {
		/* the root, "(GC roots)", one node per GC-root kind */
		if ((st = std_name(x, 0, &nm)))
			return st;
		put_node(x, STD_SYNTHETIC, nm, x->syn_base, 0, 1, NULL, &first);
		if ((st = std_name(x, 1, &nm)))
			return st;
		put_node(x, STD_SYNTHETIC, nm, x->syn_base + 1, 0, x->nkinds, NULL, &first);
		for (size_t k = 0; k < x->nkinds; k++) {
			char buf[96];
			snprintf(buf, sizeof buf, "(%.80s)", x->kinds[k]);
			if ((st = out_string(x, 0, buf, &nm)))
				return st;
			put_node(x, STD_SYNTHETIC, nm, x->syn_base + 2 + k, 0, x->kind_count[k], NULL, &first);
		}
		x->st->synthetic_nodes = x->nsyn;
	}
	/* In the order of the ids as unsigned numbers (find_node): those from
	 * 2^63 on, negative in the database, last; a snapshot's root first. */
	size_t i = 0;
	if (x->root_at) {
		if ((st = root_rows(x, "SELECT identifier, nodetypeid, class, size FROM node WHERE dump = ?1"
		                       " AND identifier = ?2", root_node, &first)))
			return st;
		i = 1;
	}
	for (int pass = 0; pass < 2; pass++) {
		sqlite3_stmt *q;
		if ((st = prep_half(x, &q, "identifier, nodetypeid, class, size FROM node", "identifier",
		                    "identifier", pass)))
			return st;
		int rc;
		while ((rc = sqlite3_step(q)) == SQLITE_ROW && i < x->n) {
			if (x->root_at && sqlite3_column_int64(q, 0) == x->root_id)
				continue;
			if ((st = node_row(x, q, i++, &first)))
				break;
		}
		sqlite3_finalize(q);
		if (st)
			return st;
		if (rc != SQLITE_DONE && rc != SQLITE_ROW)
			return db_fail(x, "cannot read the nodes");
	}
	return HF_OK;
}

/* The class edges of the nodes from *next up to (not with) end. */
static hf_status class_edges(exp *x, size_t *next, size_t end, int *first)
{
	if (!x->class_at) {
		*next = end;
		return HF_OK;
	}
	for (; *next < end; ++*next) {
		if (x->class_at[*next] < 0)
			continue;
		if (x->class_edge_name < 0) {
			hf_status st = out_string(x, 0, "class", &x->class_edge_name);
			if (st)
				return st;
		}
		put_edge(x, STD_INTERNAL, (uint64_t)x->class_edge_name, x->nsyn + (size_t)x->class_at[*next], first);
	}
	return HF_OK;
}

/* The edge of row q (source, edgetypeid, dest, label) from node s to node d. */
static hf_status edge_row(exp *x, sqlite3_stmt *q, size_t s, size_t d, int *first)
{
	hf_status st;
	int type = sqlite3_column_int(q, 1);
	int64_t label = sqlite3_column_int64(q, 3);
	uint64_t vtype, vlabel;
	int64_t idx;
	if (x->v8) {
		vtype = type >= HF_V8_EDGE_BASE && (size_t)(type - HF_V8_EDGE_BASE) < x->n_etypes
		        ? (uint64_t)(type - HF_V8_EDGE_BASE) : 0;
		if (x->idx_is_label[vtype]) {
			vlabel = (uint64_t)label;
		} else {
			if ((st = label > 0 ? out_string(x, label, NULL, &idx) : std_name(x, 0, &idx)))
				return st;
			vlabel = (uint64_t)idx;
		}
	} else {
		subtab *e = sub_of(x->esub, x->n_esub, type);
		int kind = e ? e->edge_label : 0;
		if (kind == 2) {
			vtype = STD_ELEMENT;
			vlabel = (uint64_t)label;
		} else if (kind == 1) {
			vtype = x->weak_src && (x->weak_src[s >> 3] >> (s & 7) & 1) &&
			        x->referent.count && hf_map_get(&x->referent, (uint64_t)label)
			        ? STD_WEAK : STD_PROPERTY;
			if ((st = label > 0 ? out_string(x, label, NULL, &idx) : std_name(x, 0, &idx)))
				return st;
			vlabel = (uint64_t)idx;
		} else {
			vtype = STD_INTERNAL;
			if (e && e->name_out < 0 && (st = out_string(x, 0, e->name, &e->name_out)))
				return st;
			if (!e && (st = std_name(x, 0, &idx)))
				return st;
			vlabel = (uint64_t)(e ? e->name_out : idx);
		}
	}
	put_edge(x, vtype, vlabel, x->nsyn + d, first);
	return HF_OK;
}

/* A snapshot's root's edges (v8 only: no class edges there). */
static hf_status root_edge(exp *x, sqlite3_stmt *q, void *first)
{
	ssize_t d = find_node(x, sqlite3_column_int64(q, 2));
	return d < 0 ? HF_OK : edge_row(x, q, 0, (size_t)d, first);
}

static hf_status write_edges(exp *x)
{
	hf_status st = HF_OK;
	int first = 1;
	sqlite3_stmt *q;
	if (!x->v8) {
		put_edge(x, STD_ELEMENT, 1, 1, &first);
		for (size_t k = 0; k < x->nkinds; k++)
			put_edge(x, STD_ELEMENT, k + 1, 2 + k, &first);
		x->st->synthetic_edges = 1 + x->nkinds;
		for (size_t k = 0; k < x->nkinds; k++) {
			if ((st = prep(x, &q, "SELECT object FROM hprof_gc_root WHERE dump = ?1 AND "
			                      "coalesce(kind, 'UNKNOWN') = ?2 ORDER BY rowid")))
				return st;
			sqlite3_bind_int64(q, 1, x->opt->dump);
			sqlite3_bind_text(q, 2, x->kinds[k], -1, SQLITE_STATIC);
			uint64_t n = 0;
			int rc;
			while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
				ssize_t d = find_node(x, sqlite3_column_int64(q, 0));
				if (d >= 0)
					put_edge(x, STD_ELEMENT, n++, x->nsyn + (size_t)d, &first);
			}
			sqlite3_finalize(q);
			if (rc != SQLITE_DONE)
				return db_fail(x, "cannot read hprof_gc_root");
		}
	}
	/* Node by node, in the nodes' order (write_nodes): a snapshot's root
	 * first; the nodes up to a row's source get their class edge
	 * (load_classes) before it. */
	if (x->root_at && (st = root_rows(x, "SELECT source, edgetypeid, dest, label FROM edge WHERE dump = ?1"
	                                     " AND source = ?2 ORDER BY seq", root_edge, &first)))
		return st;
	uint64_t done = x->root_at ? x->ecount[0] : 0;
	size_t next = 0;         /* the first node whose class edge is still to come */
	for (int pass = 0; pass < 2; pass++) {
		size_t end = pass ? x->n : x->n - x->nneg;
		if ((st = prep_half(x, &q, "source, edgetypeid, dest, label FROM edge", "source", "source, seq",
		                    pass)))
			return st;
		int rc;
		while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
			if (x->root_at && sqlite3_column_int64(q, 0) == x->root_id)
				continue;
			ssize_t s = find_node(x, sqlite3_column_int64(q, 0));
			ssize_t d = find_node(x, sqlite3_column_int64(q, 2));
			if (s < 0 || d < 0)
				continue;
			if ((st = class_edges(x, &next, (size_t)s + 1, &first)))
				break;
			if ((st = edge_row(x, q, (size_t)s, (size_t)d, &first)))
				break;
			if (x->opt->progress && !(++done & 0xFFFF))
				x->opt->progress(x->opt->progress_ctx, x->n + done, x->n + x->edges);
		}
		sqlite3_finalize(q);
		if (!st)
			st = class_edges(x, &next, end, &first);
		if (st)
			return st;
		if (rc != SQLITE_DONE)
			return db_fail(x, "cannot read the edges");
	}
	return HF_OK;
}

/* ---- the records of a snapshot (v8 origin) ------------------------------------------- */

/* The rows of a v8.* record table as flat groups in the order of the meta
 * field list `fields`; strref: fields that are string ids; object_index is
 * turned back from a node id into a node index.  *count: groups written. */
static hf_status write_flat(exp *x, const char *table, const char *list, const char *const *strref,
                            uint64_t *count)
{
	*count = 0;
	const hf_jval *fl = jarr(hf_jval_get(&x->meta, list));
	if (!fl || !fl->n || fl->n > 32 || has_table(x, table) <= 0)
		return HF_OK;
	sqlite3_stmt *q;
	hf_status st = select_fields(x, &q, "SELECT 0", fl, fl->n, table, "ORDER BY rowid");
	if (st || !q)
		return st; /* a table without those columns: nothing to write */
	int rc, first = 1;
	uint64_t f[32];
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int skip = 0;
		for (size_t i = 0; i < fl->n; i++) {
			int64_t v = sqlite3_column_int64(q, (int)i + 1);
			const char *fn = fl->items[i].type == HF_JV_STRING ? fl->items[i].s : "";
			int is_str = 0;
			for (const char *const *s = strref; s && *s; s++)
				is_str |= !strcmp(fn, *s);
			if (is_str) {
				int64_t idx;
				if ((st = v > 0 ? out_string(x, v, NULL, &idx) : std_name(x, 0, &idx)))
					goto out;
				v = idx;
			} else if (!strcmp(fn, "object_index")) {
				ssize_t d = find_node(x, v);
				if (d < 0)
					skip = 1;
				v = (int64_t)((size_t)d * x->nf);
			}
			f[i] = (uint64_t)v;
		}
		if (skip)
			continue;
		put_row(x, f, fl->n, first);
		first = 0;
		(*count)++;
	}
	if (rc != SQLITE_DONE)
		st = db_fail(x, "cannot read a record table");
out:
	sqlite3_finalize(q);
	return st;
}

/* trace_tree from v8.trace_node rows (pre-order, each with its parent). */
static hf_status write_trace_tree(exp *x, uint64_t *count)
{
	*count = 0;
	const hf_jval *fl = jarr(hf_jval_get(&x->meta, "trace_node_fields"));
	int ch = jfind(fl, "children"), idf = jfind(fl, "id");
	if (!fl || ch != (int)fl->n - 1 || idf < 0 || fl->n > 32 || has_table(x, "v8_trace_node") <= 0)
		return HF_OK;
	sqlite3_stmt *q;
	hf_status st = select_fields(x, &q, "SELECT parent", fl, (size_t)ch, "v8_trace_node", "ORDER BY rowid");
	if (st || !q)
		return st;
	int64_t *open = NULL; /* ids of the open nodes, outermost first */
	size_t depth = 0, cap = 0;
	int comma = 0, rc; /* a sibling was closed before this row */
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t parent = sqlite3_column_int64(q, 0);
		while (depth && open[depth - 1] != parent) {
			fputs("]", x->fp);
			depth--;
			comma = 1;
		}
		if (depth == 0 && parent != 0)
			continue; /* an orphan: its parent was not written */
		if (depth == cap) {
			size_t nc = cap ? cap * 2 : 16;
			int64_t *no = realloc(open, nc * sizeof *no);
			if (!no) {
				free(open);
				sqlite3_finalize(q);
				return nomem(x);
			}
			open = no;
			cap = nc;
		}
		fputs(comma ? "," : "", x->fp);
		for (int i = 0; i < ch; i++)
			fprintf(x->fp, "%" PRId64 ",", (int64_t)sqlite3_column_int64(q, i + 1));
		fputs("[", x->fp);
		comma = 0;
		open[depth++] = sqlite3_column_int64(q, idf + 1);
		(*count)++;
	}
	while (depth--)
		fputs("]", x->fp);
	free(open);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return db_fail(x, "cannot read v8_trace_node");
	return HF_OK;
}

/*
 * A string of the table as V8 writes it: ASCII only, every other character
 * as \uXXXX (a surrogate pair past U+FFFF), by jansson (JSON_ENSURE_ASCII).
 * A reader that decodes the file piece by piece, as the npm package
 * v8-heapsnapshot does (oboe over a byte stream), makes two U+FFFD of a
 * UTF-8 character that falls across two pieces; V8's own files never have
 * one.  Text that is not UTF-8 (none of heapfmt's readers stores such) is
 * decoded as modified UTF-8 first (bad bytes become U+FFFD).  ASCII text
 * goes the NDJSON writer's faster way.  Measured on the database of the
 * 1 GB benchmark dump (2.47 M strings, many of them Greek, Cyrillic, CJK):
 * the export 19.9-20.3 s with raw UTF-8, 20.9-21.2 s so with two dumps
 * a string, 18.2-20.2 s with one (the VM drifts by that much).
 */
static bool json_ascii(hf_buf *b, const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && !((unsigned char)s[i] & 0x80))
		i++;
	if (i == n) /* the same bytes as jansson's (test_unit.c, test_json_escape) */
		return hf_buf_json_string(b, s, n);
	char *clean = NULL;
	size_t len = n;
	json_t *j = json_stringn(s, n);
	if (!j) {
		if (n > (SIZE_MAX - 4) / 3 || !(clean = malloc(HF_MUTF8_OUT_MAX(n))))
			return false;
		len = hf_mutf8_decode((const uint8_t *)s, n, clean);
		j = json_stringn(clean, len);
	}
	/* At most 6 bytes out for each byte of UTF-8 in (\uXXXX for one to
	 * three bytes, two of them for four), and the quotes: one dump. */
	size_t cap = len <= (SIZE_MAX - 2) / 6 ? 6 * len + 2 : 0;
	size_t got = j && cap && hf_buf_reserve(b, cap) ?
	             json_dumpb(j, (char *)b->data + b->len, cap, JSON_ENCODE_ANY | JSON_ENSURE_ASCII) : 0;
	bool ok = got && got <= cap;
	if (ok)
		b->len += got;
	json_decref(j);
	free(clean);
	return ok;
}

static hf_status write_strings(exp *x)
{
	sqlite3_stmt *q = x->q_string;
	hf_buf b;
	hf_buf_init(&b);
	fputs("\"strings\":[", x->fp);
	for (size_t i = 0; i < x->nstrs; i++) {
		hf_buf_reset(&b);
		const char *s = x->strs[i].text;
		size_t n = s ? strlen(s) : 0;
		if (x->strs[i].dbid) {
			sqlite3_reset(q);
			sqlite3_bind_int64(q, 1, x->strs[i].dbid);
			if (sqlite3_step(q) == SQLITE_ROW) {
				s = (const char *)sqlite3_column_text(q, 0);
				n = (size_t)sqlite3_column_bytes(q, 0);
			}
			if (!s) {
				s = "";
				n = 0;
			}
		}
		if (!json_ascii(&b, s, n)) {
			hf_buf_free(&b);
			return nomem(x);
		}
		if (i)
			fputs(",\n", x->fp);
		fwrite(b.data, 1, b.len, x->fp);
		x->st->strings++;
	}
	fputs("]}\n", x->fp);
	hf_buf_free(&b);
	return HF_OK;
}

/* The snapshot's meta as V8 writes it, ASCII only (see json_ascii): *text
 * is replaced when it holds anything else (a meta of V8's never does). */
static hf_status ascii_meta(exp *x, char **text)
{
	const unsigned char *p = (const unsigned char *)*text;
	while (*p && *p < 0x80)
		p++;
	if (!*p)
		return HF_OK;
	hf_buf b;
	hf_buf_init(&b);
	if (!hf_jval_dump_with(&x->meta, &b, json_ascii) || !hf_buf_append(&b, "", 1)) {
		hf_buf_free(&b);
		return nomem(x);
	}
	free(*text);
	*text = (char *)b.data;  /* the buffer's memory (malloc'd) is the text's now */
	return HF_OK;
}

/* The header keys and top-level sections of the snapshot that the reader
 * kept as metadata (v8.snapshot.KEY and v8.extra.KEY, JSON text: V8's
 * extra_native_bytes, a section heapfmt does not know), written back as
 * members, in ASCII: ',"KEY":VALUE' inside the header, '"KEY":VALUE,' among
 * the sections (section).  A value that does not parse as JSON (a section
 * over 1 MiB was not kept) is left out, and so is a key that this writer
 * writes itself (a trace tree whose fields the reader could not map was
 * kept as v8.extra.trace_tree: the export has an empty one), so that no key
 * comes twice. */
static hf_status write_kept(exp *x, const char *prefix, int section)
{
	static const char *const header_own[] = { "meta", "node_count", "edge_count", "trace_function_count",
		NULL };
	static const char *const section_own[] = { "snapshot", "nodes", "edges", "trace_function_infos",
		"trace_tree", "samples", "locations", "strings", NULL };
	const char *const *own = section ? section_own : header_own;
	sqlite3_stmt *q;
	hf_status st = prep(x, &q, "SELECT substr(key, ?1 + 1), value FROM metadata"
	                           " WHERE substr(key, 1, ?1) = ?2 ORDER BY rowid");
	if (st)
		return st;
	sqlite3_bind_int(q, 1, (int)strlen(prefix));
	sqlite3_bind_text(q, 2, prefix, -1, SQLITE_STATIC);
	hf_buf b;
	hf_buf_init(&b);
	int rc;
	while (!st && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(q, 0);
		const char *value = (const char *)sqlite3_column_text(q, 1);
		size_t k = 0;
		while (key && own[k] && strcmp(key, own[k]))
			k++;
		if (!key || own[k] || !value)
			continue;
		hf_error e2;
		hf_jval v;
		if (parse_text(value, key, (size_t)16 << 20, 1, &v, &e2) == HF_OK) {
			hf_buf_reset(&b);
			if (!hf_buf_append(&b, section ? "" : ",", section ? 0 : 1) ||
			    !json_ascii(&b, key, strlen(key)) || !hf_buf_append(&b, ":", 1) ||
			    !hf_jval_dump_with(&v, &b, json_ascii) || (section && !hf_buf_append(&b, ",\n", 2)))
				st = nomem(x);
			else
				fwrite(b.data, 1, b.len, x->fp);
		}
		hf_jval_free(&v);
	}
	if (!st && rc != SQLITE_DONE)
		st = db_fail(x, "cannot read");
	hf_buf_free(&b);
	sqlite3_finalize(q);
	return st;
}

static hf_status write_all(exp *x)
{
	hf_status st;
	const char *meta_text = NULL;
	sqlite3_stmt *q;
	static const char *const core[] = { "node", "edge", "strings", "node_types", "edge_types", "metadata" };
	for (size_t i = 0; i < sizeof core / sizeof *core; i++) {
		int h = has_table(x, core[i]);
		if (h < 0)
			return db_fail(x, "cannot read its schema");
		if (!h)
			return hf_error_set(x->err, HF_ERR_FORMAT, "%s: not a heap database", x->path);
	}
	if ((st = hf_heapdb_check_major(x->db, "main", x->path, x->err)))
		return st;
	if ((st = prep(x, &q, "SELECT (SELECT value FROM metadata WHERE key = 'target_source' LIMIT 1), "
	                      "(SELECT value FROM metadata WHERE key = 'v8.meta' LIMIT 1), "
	                      "(SELECT value FROM metadata WHERE key = 'v8.root' LIMIT 1)")))
		return st;
	char *v8meta = NULL;
	if (sqlite3_step(q) == SQLITE_ROW) {
		const char *src = (const char *)sqlite3_column_text(q, 0);
		const char *m = (const char *)sqlite3_column_text(q, 1);
		const char *root = (const char *)sqlite3_column_text(q, 2);
		if (src && m && !strcmp(src, "v8")) {
			x->v8 = 1;
			v8meta = strdup(m);
			if (!v8meta) {
				sqlite3_finalize(q);
				return nomem(x);
			}
		}
		/* v8.root: a decimal number below 2^64 (load_root) */
		uint64_t id;
		if (root && hf_parse_u64(root, strlen(root), &id)) {
			x->root_given = true;
			x->root_id = (int64_t)id;
		}
	}
	sqlite3_finalize(q);
	x->st->v8_origin = x->v8;
	meta_text = x->v8 ? v8meta : standard_meta;
	st = use_meta(x, meta_text);
	if (!st && x->v8 && !(st = ascii_meta(x, &v8meta)))
		meta_text = v8meta;
	if (!st)
		st = load_types(x);
	if (!st)
		st = load_nodes(x);
	if (!st && !x->n)
		st = dump_exists(x);
	if (!st && !x->v8)
		st = load_roots(x);
	if (!st && !x->v8)
		st = load_classes(x);
	if (st) {
		free(v8meta);
		return st;
	}
	if (!x->v8) {
		x->nsyn = 2 + x->nkinds;
		x->edges += 1 + x->nkinds;
		x->syn_base = 1;
		/* synthetic ids above every id of the dump (and clear of 0) */
		if (x->n && x->ids[x->n - 1] >= 0)
			x->syn_base = (uint64_t)x->ids[x->n - 1] + 1;
		if (has_table(x, "node_class") > 0)
			prep(x, &x->q_class, "SELECT s.stringid FROM node_class c JOIN strings s ON s.stringid = "
			                     "c.java_name WHERE c.node_identifier = ?1 AND c.dump = ?2");
		if (has_table(x, "hprof_load_class") > 0)
			prep(x, &x->q_load, "SELECT s.stringid FROM hprof_load_class l JOIN strings s ON s.stringid = "
			                    "l.java_name WHERE l.class = ?1 AND ?2 = ?2 LIMIT 1");
	}
	if ((st = prep(x, &x->q_string, "SELECT data FROM strings WHERE stringid = ?1"))) {
		free(v8meta);
		return st;
	}
	uint64_t tfi_count = 0;
	if (x->v8 && has_table(x, "v8_trace_function_info") > 0) {
		if (prep(x, &q, "SELECT count(*) FROM v8_trace_function_info") == HF_OK) {
			if (sqlite3_step(q) == SQLITE_ROW)
				tfi_count = (uint64_t)sqlite3_column_int64(q, 0);
			sqlite3_finalize(q);
		}
	}
	fprintf(x->fp, "{\"snapshot\":{\"meta\":%s,\"node_count\":%zu,\"edge_count\":%" PRIu64
	        ",\"trace_function_count\":%" PRIu64, meta_text, x->n + x->nsyn, x->edges, tfi_count);
	free(v8meta);
	if (x->v8 && (st = write_kept(x, "v8.snapshot.", 0)))
		return st;
	fputs("},\n\"nodes\":[", x->fp);
	if ((st = write_nodes(x)))
		return st;
	fputs("],\n\"edges\":[", x->fp);
	if ((st = write_edges(x)))
		return st;
	static const char *const tfi_str[] = { "name", "script_name", NULL };
	fputs("],\n\"trace_function_infos\":[", x->fp);
	if (x->v8 && (st = write_flat(x, "v8_trace_function_info", "trace_function_info_fields", tfi_str,
	                              &x->st->trace_function_infos)))
		return st;
	fputs("],\n\"trace_tree\":[", x->fp);
	if (x->v8 && (st = write_trace_tree(x, &x->st->trace_nodes)))
		return st;
	fputs("],\n\"samples\":[", x->fp);
	if (x->v8 && (st = write_flat(x, "v8_sample", "sample_fields", NULL, &x->st->samples)))
		return st;
	fputs("],\n\"locations\":[", x->fp);
	if (x->v8 && (st = write_flat(x, "v8_location", "location_fields", NULL, &x->st->locations)))
		return st;
	fputs("],\n", x->fp);
	if (x->v8 && (st = write_kept(x, "v8.extra.", 1)))
		return st;
	return write_strings(x);
}

hf_status hf_v8_export(const char *db_path, const char *out_path, const hf_v8_export_options *opt_in,
                       hf_v8_export_stats *stats, hf_error *err)
{
	hf_v8_export_options defaults;
	hf_v8_export_stats local;
	if (!opt_in) {
		hf_v8_export_options_init(&defaults);
		opt_in = &defaults;
	}
	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof *stats);
	memset(err, 0, sizeof *err);
	struct stat sb;
	if (stat(db_path, &sb) != 0)
		return hf_error_set(err, HF_ERR_IO, "cannot open %s: %s", db_path, strerror(errno));
	if (S_ISDIR(sb.st_mode))
		return hf_error_set(err, HF_ERR_IO, "cannot read %s: it is a directory", db_path);
	exp *x = calloc(1, sizeof *x);
	if (!x)
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	x->path = db_path;
	x->out_name = strcmp(out_path, "-") ? out_path : "standard output";
	x->err = err;
	x->st = stats;
	x->opt = opt_in;
	for (int i = 0; i < 4; i++)
		x->std_names[i] = -1;
	x->class_edge_name = -1;
	hf_map_init(&x->by_dbid);
	hf_map_init(&x->class_name);
	hf_map_init(&x->referent);
	hf_status st = HF_OK;
	char *tmp = NULL;
	hf_out_target target = { NULL, 0, 0, -1, 0 };
	int to_stdout = !strcmp(out_path, "-");
	if (sqlite3_open_v2(db_path, &x->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		st = db_fail(x, "cannot open");
		goto out;
	}
	if (!to_stdout && hf_out_resolve(out_path, &target)) {
		st = hf_error_set(err, HF_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (to_stdout) {
		x->fp = stdout;
		hf_pipe_widen(fileno(stdout));
	} else if (target.is_dir) {
		st = hf_error_set(err, HF_ERR_IO, "cannot write %s: it is a directory", out_path);
		goto out;
	} else if (target.in_place) {
		x->fp = hf_out_open_in_place(out_path);
	} else {
		int fd = hf_make_temp_beside(target.path, target.mode, &tmp);
		if (fd < 0) {
			st = hf_error_set(err, HF_ERR_IO, "cannot create a file beside %s: %s", out_path,
			                  strerror(errno));
			goto out;
		}
		x->fp = fdopen(fd, "wb");
		if (!x->fp) {
			int e = errno;
			close(fd);
			errno = e;
		}
	}
	if (!x->fp) {
		st = hf_error_set(err, HF_ERR_IO, "cannot open %s: %s", out_path, strerror(errno));
		goto out;
	}
	st = write_all(x);
	if (!st && (fflush(x->fp) != 0 || ferror(x->fp)))
		st = io_fail(x);
out:
	if (x->fp && x->fp != stdout && fclose(x->fp) != 0 && !st)
		st = io_fail(x);
	if (tmp) {
		if (!st && rename(tmp, target.path) != 0)
			st = hf_error_set(err, HF_ERR_IO, "cannot rename %s to %s: %s", tmp, target.path,
			                  strerror(errno));
		if (st)
			hf_temp_drop(&tmp);
		else
			hf_temp_kept(&tmp);
	}
	free(target.path);
	sqlite3_finalize(x->q_class);
	sqlite3_finalize(x->q_load);
	sqlite3_finalize(x->q_string);
	for (size_t i = 0; i < x->n_nsub; i++)
		sqlite3_finalize(x->nsub[i].q);
	if (x->db)
		sqlite3_close(x->db);
	for (size_t i = 0; i < x->nstrs; i++)
		free(x->strs[i].text);
	for (size_t i = 0; i < x->nkinds; i++)
		free(x->kinds[i]);
	free(x->strs);
	free(x->kinds);
	free(x->kind_count);
	free(x->nsub);
	free(x->esub);
	hf_id_index_free(&x->by_id);
	free(x->ids);
	free(x->ecount);
	free(x->class_at);
	free(x->rooted);
	free(x->weak_src);
	hf_map_free(&x->referent);
	free(x->idx_is_label);
	hf_jval_free(&x->meta);
	hf_map_free(&x->by_dbid);
	hf_map_free(&x->class_name);
	free(x);
	return st;
}
