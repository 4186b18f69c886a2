/*
 * Converts one corpus dump with both programs and checks the output against
 * independent references in ../shared/corpus/refs:
 *  - per-kind counts (classes, instances, object arrays, primitive arrays by
 *    element type, roots by kind, UTF8 strings) equal NAME.summary.json;
 *  - every NDJSON line validates against schema/heapfmt.schema.json, and the
 *    record order is metadata, declarations, then the rest;
 *  - NDJSON and SQLite hold the same records, counted by type;
 *  - for the HotSpot dumps generated with a jcmd histogram, the class
 *    histogram over SQLite equals the histogram class by class (instance
 *    counts exactly but java.lang.Class, array byte totals exactly);
 *  - gzip input also converts through standard input;
 *  - the hand-made 57-byte file and the bzip2 file fail with a clear error
 *    and leave no output.
 * Usage: test_corpus TOOLS_DIR SCHEMA QUERIES_DIR REFS_DIR DUMP
 */
#define _POSIX_C_SOURCE 200809L
#include "jschema.h"
#include "testlib.h"
#include <jansson.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *tools, *schema_path, *queries, *refs;
static char tmpdir[256];

static int run(const char *cmd, char *errbuf, size_t errsize)
{
	char full[4096], errfile[400];
	snprintf(errfile, sizeof errfile, "%s/stderr.txt", tmpdir);
	snprintf(full, sizeof full, "%s 2>%s", cmd, errfile);
	int rc = system(full);
	if (errbuf) {
		errbuf[0] = 0;
		FILE *f = fopen(errfile, "r");
		if (f) {
			size_t n = fread(errbuf, 1, errsize - 1, f);
			errbuf[n] = 0;
			fclose(f);
		}
	}
	if (rc == -1)
		return -1;
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
}

static int exists(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0;
}

static int64_t jint(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_integer(v) ? json_integer_value(v) : 0;
}

/* Record counts by "record" name, node subtypes, roots by kind. */
typedef struct counts {
	json_t *by_record;   /* name -> count */
	json_t *roots;       /* kind -> count */
	int64_t nodes[5];
	int64_t prim_by_type[12];
	int64_t texts;
	int64_t lines, invalid, order_errors;
} counts;

static const char *const prim_names[12] = { 0, 0, 0, 0, "boolean", "char", "float", "double",
	"byte", "short", "int", "long" };

static void bump(json_t *obj, const char *key, int64_t by)
{
	json_t *v = json_object_get(obj, key);
	json_object_set_new(obj, key, json_integer((v ? json_integer_value(v) : 0) + by));
}

static int read_ndjson(const char *path, jschema *schema, counts *c)
{
	memset(c, 0, sizeof *c);
	c->by_record = json_object();
	c->roots = json_object();
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int phase = 0; /* 0 metadata, 1 declarations, 2 data */
	json_t *declared = json_object();
	while ((n = getline(&line, &cap, f)) > 0) {
		c->lines++;
		json_error_t je;
		json_t *r = json_loadb(line, (size_t)n, JSON_ALLOW_NUL, &je);
		if (!r) {
			if (c->invalid++ < 3)
				fprintf(stderr, "line %lld: not JSON: %s\n", (long long)c->lines, je.text);
			continue;
		}
		char why[512];
		if (schema && !jschema_validate(schema, r, why, sizeof why) && c->invalid++ < 3)
			fprintf(stderr, "line %lld does not validate: %s: %.200s\n", (long long)c->lines, why, line);
		const char *rec = json_string_value(json_object_get(r, "record"));
		if (!rec)
			rec = "?";
		bump(c->by_record, rec, 1);
		int is_meta = !strcmp(rec, "metadata");
		int is_decl = !strcmp(rec, "node_type") || !strcmp(rec, "edge_type") ||
		              !strcmp(rec, "record_type");
		if (is_decl) {
			if (phase > 1 && c->order_errors++ < 3)
				fprintf(stderr, "line %lld: declaration after data\n", (long long)c->lines);
			phase = 1;
			char key[160];
			json_t *st = json_object_get(r, "subtype");
			char *sts = st ? json_dumps(st, JSON_ENCODE_ANY) : NULL;
			snprintf(key, sizeof key, "%s:%s", rec,
			         sts ? sts : json_string_value(json_object_get(r, "name")));
			free(sts);
			json_object_set_new(declared, key, json_true());
		} else if (!is_meta) {
			phase = 2;
			char key[160] = "";
			if (!strcmp(rec, "node") || !strcmp(rec, "edge")) {
				char *st = json_dumps(json_object_get(r, "subtype"), JSON_ENCODE_ANY);
				snprintf(key, sizeof key, "%s_type:%s", rec, st ? st : "?");
				free(st);
			} else if (strchr(rec, '.')) {
				snprintf(key, sizeof key, "record_type:%s", rec);
			}
			if (key[0] && !json_object_get(declared, key) && c->order_errors++ < 3)
				fprintf(stderr, "line %lld: %s used before it is declared\n", (long long)c->lines, key);
		}
		if (!strcmp(rec, "node")) {
			int64_t st = jint(r, "subtype");
			if (st >= 1 && st <= 4)
				c->nodes[st]++;
			if (st == 4) {
				const char *et = json_string_value(json_object_get(r, "element_type"));
				for (int t = 4; t < 12; t++)
					if (et && !strcmp(et, prim_names[t]))
						c->prim_by_type[t]++;
			}
			if (st == 2 && json_object_get(r, "text"))
				c->texts++;
		} else if (!strcmp(rec, "hprof.gc_root")) {
			char k[64];
			snprintf(k, sizeof k, "ROOT_%s", json_string_value(json_object_get(r, "kind")));
			bump(c->roots, k, 1);
		}
		json_decref(r);
	}
	free(line);
	fclose(f);
	json_decref(declared);
	return 1;
}

static int64_t q1(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "SQL error: %s: %s\n", sqlite3_errmsg(db), sql);
		return -1;
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* jcmd histogram name -> the Java form heapfmt writes as java_name (a
 * hidden class's Foo/0x... as it is, as Class.getName() gives it). */
static void histo_to_java(const char *h, char *out, size_t size)
{
	char tmp[512];
	snprintf(tmp, sizeof tmp, "%s", h);
	int dims = 0;
	while (tmp[dims] == '[')
		dims++;
	const char *base = tmp + dims;
	char b[512];
	if (dims && strlen(base) == 1) {
		const char *m = "?";
		switch (base[0]) {
		case 'Z': m = "boolean"; break; case 'B': m = "byte"; break;
		case 'C': m = "char"; break; case 'S': m = "short"; break;
		case 'I': m = "int"; break; case 'J': m = "long"; break;
		case 'F': m = "float"; break; case 'D': m = "double"; break;
		}
		snprintf(b, sizeof b, "%s", m);
	} else if (dims && base[0] == 'L') {
		snprintf(b, sizeof b, "%.*s", (int)strlen(base) - 2, base + 1);
	} else {
		snprintf(b, sizeof b, "%s", base);
	}
	size_t l = (size_t)snprintf(out, size, "%s", b);
	for (int i = 0; i < dims && l + 3 < size; i++)
		l += (size_t)snprintf(out + l, size - l, "[]");
}

static void check_histogram(sqlite3 *db, const char *name)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s.histogram-check.json", refs, name);
	json_t *chk = json_load_file(path, 0, NULL);
	if (!chk)
		return;
	const char *hname = json_string_value(json_object_get(chk, "histogram"));
	snprintf(path, sizeof path, "%s/%s", refs, hname);
	FILE *f = fopen(path, "r");
	CHECK(f != NULL, "histogram %s readable", path);
	if (!f) {
		json_decref(chk);
		return;
	}
	/* Our class histogram, from the query file every user runs. */
	char qpath[1024];
	snprintf(qpath, sizeof qpath, "%s/class_histogram.sql", queries);
	FILE *qf = fopen(qpath, "r");
	CHECK(qf != NULL, "%s exists", qpath);
	char sql[8192] = "";
	if (qf) {
		size_t n = fread(sql, 1, sizeof sql - 1, qf);
		sql[n] = 0;
		fclose(qf);
	}
	json_t *ours = json_object();
	sqlite3_stmt *st;
	if (qf && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		int ccls = -1, cinst = -1, cbytes = -1;
		for (int i = 0; i < sqlite3_column_count(st); i++) {
			const char *cn = sqlite3_column_name(st, i);
			if (!strcmp(cn, "class")) ccls = i;
			if (!strcmp(cn, "instances")) cinst = i;
			if (!strcmp(cn, "bytes")) cbytes = i;
		}
		CHECK(ccls >= 0 && cinst >= 0 && cbytes >= 0,
		      "class_histogram.sql has columns class, instances, bytes");
		while (ccls >= 0 && cinst >= 0 && cbytes >= 0 && sqlite3_step(st) == SQLITE_ROW) {
			const char *c = (const char *)sqlite3_column_text(st, ccls);
			json_t *row = json_pack("[II]", (json_int_t)sqlite3_column_int64(st, cinst),
			                        (json_int_t)sqlite3_column_int64(st, cbytes));
			if (c)
				json_object_set_new(ours, c, row);
			else
				json_decref(row);
		}
		sqlite3_finalize(st);
	} else if (qf) {
		CHECK(0, "class_histogram.sql prepares: %s", sqlite3_errmsg(db));
	}
	char line[1024];
	int rows = 0, count_mismatch = 0, array_bytes_mismatch = 0, arrays = 0, inst_bytes_off = 0;
	int64_t class_dump_count = -1;
	while (fgets(line, sizeof line, f)) {
		char num[32], cls[512];
		long long ninst, nbytes;
		if (sscanf(line, " %31s %lld %lld %511s", num, &ninst, &nbytes, cls) != 4 ||
		    num[strlen(num) - 1] != ':')
			continue;
		rows++;
		char jn[600];
		histo_to_java(cls, jn, sizeof jn);
		json_t *o = json_object_get(ours, jn);
		long long oc = o ? json_integer_value(json_array_get(o, 0)) : 0;
		long long ob = o ? json_integer_value(json_array_get(o, 1)) : 0;
		if (!strcmp(jn, "java.lang.Class")) {
			class_dump_count = oc;
			continue;
		}
		if (oc != ninst) {
			count_mismatch++;
			if (count_mismatch <= 5)
				fprintf(stderr, "  count differs for %s: histogram %lld, ours %lld\n", jn, ninst, oc);
		}
		if (cls[0] == '[') {
			arrays++;
			if (ob != nbytes && array_bytes_mismatch++ < 5)
				fprintf(stderr, "  array bytes differ for %s: histogram %lld, ours %lld\n", jn, nbytes, ob);
		} else if (ob != nbytes) {
			inst_bytes_off++;
		}
	}
	fclose(f);
	CHECK(rows > 100, "histogram %s has rows (%d)", hname, rows);
	CHECK_EQ_U(count_mismatch, 0, "classes whose instance count differs from the jcmd histogram");
	CHECK_EQ_U(array_bytes_mismatch, 0, "array classes whose byte total differs from the jcmd histogram");
	CHECK(arrays > 5, "array classes compared (%d)", arrays);
	/* java.lang.Class: the histogram counts CDS-archived mirrors the dumper
	 * skips (MANIFEST.md); ours must equal the dump's own count. */
	json_t *mm = json_object_get(chk, "count_mismatches");
	size_t i;
	json_t *e;
	json_array_foreach(mm, i, e) {
		if (!strcmp(json_string_value(json_object_get(e, "class")), "java.lang.Class"))
			CHECK_EQ_U(class_dump_count, jint(e, "dump"), "java.lang.Class count (class dumps + primitive mirrors)");
	}
	/* Instance sizes come from a layout model; the reference checker's
	 * model misses the same classes (VM-injected fields, @Contended). */
	int64_t model_bad = jint(json_object_get(chk, "instance_size_model"), "classes_not_matching");
	CHECK(inst_bytes_off <= model_bad, "instance classes whose byte total differs: %d (reference model: %lld)",
	      inst_bytes_off, (long long)model_bad);
	json_decref(ours);
	json_decref(chk);
}

static void check_counts(const char *name, counts *c, sqlite3 *db, json_t *ref)
{
	json_t *sub = json_object_get(ref, "subrecords");
	CHECK_EQ_U(c->nodes[1], jint(sub, "CLASS_DUMP"), "class nodes vs CLASS_DUMP sub-records");
	CHECK_EQ_U(c->nodes[2], jint(ref, "instances"), "instance nodes");
	CHECK_EQ_U(c->nodes[3], jint(ref, "object_arrays"), "object array nodes");
	json_t *prims = json_object_get(ref, "primitive_arrays");
	int64_t total = 0;
	for (int t = 4; t < 12; t++) {
		json_t *p = json_object_get(prims, prim_names[t]);
		int64_t want = p ? jint(p, "count") : 0;
		total += want;
		char what[64];
		snprintf(what, sizeof what, "%s[] nodes", prim_names[t]);
		CHECK_EQ_U(c->prim_by_type[t], want, what);
		char sql[200];
		snprintf(sql, sizeof sql, "SELECT coalesce(sum(length),0) FROM node_primitive_array WHERE element_type='%s'",
		         prim_names[t]);
		snprintf(what, sizeof what, "%s[] elements (SQLite)", prim_names[t]);
		CHECK_EQ_U(q1(db, sql), p ? jint(p, "elements") : 0, what);
	}
	CHECK_EQ_U(c->nodes[4], total, "primitive array nodes");
	/* Roots by kind, both ways. */
	const char *k;
	json_t *v;
	int64_t roots = 0;
	json_object_foreach(sub, k, v) {
		if (strncmp(k, "ROOT_", 5))
			continue;
		roots += json_integer_value(v);
		CHECK_EQ_U(jint(c->roots, k), json_integer_value(v), k);
	}
	json_object_foreach(c->roots, k, v)
		CHECK(json_object_get(sub, k) != NULL, "root kind %s not in the reference", k);
	CHECK_EQ_U(q1(db, "SELECT count(*) FROM hprof_gc_root"), roots, "roots in SQLite");
	/* Strings: UTF8 records = all strings - String texts - Java-form names. */
	int64_t utf8 = q1(db,
		"SELECT (SELECT count(*) FROM strings)"
		" - (SELECT count(*) FROM node_instance WHERE text IS NOT NULL)"
		" - (SELECT count(DISTINCT java_name) FROM hprof_load_class WHERE java_name <> name)");
	CHECK_EQ_U(utf8, jint(ref, "strings"), "UTF8 strings");
	CHECK_EQ_U(q1(db, "SELECT count(*) FROM hprof_load_class"), jint(json_object_get(ref, "records"), "LOAD_CLASS"),
	           "LOAD CLASS records");
	/* Android heaps: objects per heap id. */
	json_t *heaps = json_object_get(ref, "heaps");
	json_object_foreach(heaps, k, v) {
		const char *paren = strrchr(k, '(');
		if (!paren)
			continue;
		int hid = atoi(paren + 1);
		char sql[160];
		snprintf(sql, sizeof sql, "SELECT count(*) FROM node WHERE heap=%d", hid);
		char what[96];
		snprintf(what, sizeof what, "objects in heap %s", k);
		CHECK_EQ_U(q1(db, sql), json_integer_value(v), what);
	}
	(void)name;
}

static void check_same_records(counts *c, sqlite3 *db)
{
	CHECK_EQ_U(q1(db, "SELECT count(*) FROM node"), jint(c->by_record, "node"), "nodes NDJSON vs SQLite");
	CHECK_EQ_U(q1(db, "SELECT count(*) FROM edge"), jint(c->by_record, "edge"), "edges NDJSON vs SQLite");
	CHECK_EQ_U(q1(db, "SELECT count(*) FROM strings"), jint(c->by_record, "string"), "strings NDJSON vs SQLite");
	CHECK_EQ_U(q1(db, "SELECT count(*) FROM node_types"), jint(c->by_record, "node_type"), "node types");
	CHECK_EQ_U(q1(db, "SELECT count(*) FROM edge_types"), jint(c->by_record, "edge_type"), "edge types");
	CHECK_EQ_U(q1(db, "SELECT count(*) FROM record_types"), jint(c->by_record, "record_type"), "record types");
	CHECK_EQ_U(q1(db, "SELECT count(*) FROM metadata"), jint(c->by_record, "metadata"), "metadata");
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT name, table_name FROM record_types", -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			char sql[256];
			const char *name = (const char *)sqlite3_column_text(st, 0);
			snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\"", sqlite3_column_text(st, 1));
			CHECK_EQ_U(q1(db, sql), jint(c->by_record, name), name);
		}
		sqlite3_finalize(st);
	}
	for (int t = 1; t <= 4; t++) {
		char sql[128], what[64];
		snprintf(sql, sizeof sql, "SELECT count(*) FROM node WHERE nodetypeid=%d", t);
		snprintf(what, sizeof what, "nodes of subtype %d", t);
		CHECK_EQ_U(q1(db, sql), c->nodes[t], what);
	}
	CHECK_EQ_U(q1(db, "SELECT count(*) FROM node_instance WHERE text IS NOT NULL"), c->texts, "String texts");
	CHECK_EQ_U(q1(db, "SELECT count(*) FROM node_instance i WHERE text IS NOT NULL AND NOT EXISTS"
	                  " (SELECT 1 FROM strings s WHERE s.stringid = i.text)"), 0,
	           "String texts that name no string record");
	CHECK_EQ_U(q1(db, "SELECT coalesce(max(CAST(value AS INTEGER)),0) FROM metadata WHERE key='heapfmt.unresolved_strings'"),
	           0, "Strings whose text could not be found");
	/* Classes loaded under one UTF8 name (several class loaders) share its
	 * Java form: one string record, not one for each LOAD CLASS. */
	CHECK_EQ_U(q1(db, "SELECT count(*) FROM (SELECT name FROM hprof_load_class GROUP BY name"
	                  " HAVING count(DISTINCT java_name) > 1)"), 0, "one Java form for each name");
	CHECK_EQ_U(q1(db, "SELECT count(DISTINCT java_name) - count(DISTINCT name) <= 0 FROM hprof_load_class"), 1,
	           "no more Java forms than names");
}

/*
 * --values on the dump whose byte[] of 521,141,248 elements (the MANIFEST's
 * figure) would take its values text past SQLite's 10^9-byte limit and
 * hprof2ndjson's memory to 2 GB: both programs write that array without
 * values, with a warning, and every other array with them, in a bounded
 * memory (the largest child process's peak, ru_maxrss).
 */
static void check_large_values(const char *dump, const char *db_path, const char *nd)
{
	char cmd[3000], errbuf[4096];
	unlink(db_path);
	unlink(nd);
	snprintf(cmd, sizeof cmd, "%s/hprof2heapdb --values '%s' '%s'", tools, dump, db_path);
	int rc = run(cmd, errbuf, sizeof errbuf);
	CHECK(rc == 0, "hprof2heapdb --values exit %d: %s", rc, errbuf);
	snprintf(cmd, sizeof cmd, "%s/hprof2ndjson --values '%s' '%s'", tools, dump, nd);
	rc = run(cmd, errbuf, sizeof errbuf);
	CHECK(rc == 0, "hprof2ndjson --values exit %d: %s", rc, errbuf);
	struct rusage ru;
	CHECK(getrusage(RUSAGE_CHILDREN, &ru) == 0 && ru.ru_maxrss < 600 * 1024,
	      "--values of a 521 MB array in bounded memory: peak %ld KiB", (long)ru.ru_maxrss);
	sqlite3 *db = NULL;
	if (rc || sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return;
	}
	CHECK_EQ_U(q1(db, "SELECT count(*) FROM node_primitive_array WHERE \"values\" IS NULL AND nodata IS NULL"
	              " AND length = 521141248"), 1, "the 521 MB byte[] has no values");
	CHECK_EQ_U(q1(db, "SELECT count(*) FROM node_primitive_array WHERE \"values\" IS NULL"), 1,
	           "every other array has its values");
	CHECK_EQ_U(q1(db, "SELECT CAST(value AS INTEGER) FROM metadata WHERE key = 'heapfmt.values_omitted'"), 1,
	           "heapfmt.values_omitted");
	CHECK_EQ_U(q1(db, "SELECT count(*) FROM metadata WHERE key = 'hprof.warning' AND value LIKE"
	              " '%521141248 byte elements written without its values%'"), 1, "the warning");
	sqlite3_close(db);
	FILE *f = fopen(nd, "r");
	char line[1024];
	int found = 0;
	while (f && fgets(line, sizeof line, f))
		found += strstr(line, "\"key\":\"heapfmt.values_omitted\",\"value\":\"1\"") != NULL;
	if (f)
		fclose(f);
	CHECK(found == 1, "the NDJSON's heapfmt.values_omitted");
	unlink(db_path);
	unlink(nd);
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: test_corpus TOOLS_DIR SCHEMA QUERIES_DIR REFS_DIR DUMP\n");
		return 2;
	}
	tools = argv[1];
	schema_path = argv[2];
	queries = argv[3];
	refs = argv[4];
	const char *dump = argv[5];
	if (!exists(dump)) {
		printf("SKIP: %s not found (the corpus is in ../shared/corpus beside the repository)\n", dump);
		return TEST_SKIP;
	}
	const char *name = strrchr(dump, '/') ? strrchr(dump, '/') + 1 : dump;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/heapfmt-test-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 2;
	char ref_path[1024];
	snprintf(ref_path, sizeof ref_path, "%s/%s.summary.json", refs, name);
	json_t *ref = json_load_file(ref_path, 0, NULL);
	CHECK(ref != NULL, "reference %s loads", ref_path);
	char nd[400], db_path[400], cmd[3000], errbuf[4096];
	snprintf(nd, sizeof nd, "%s/out.ndjson", tmpdir);
	snprintf(db_path, sizeof db_path, "%s/out.db", tmpdir);

	if (ends_with(name, ".bz2")) {
		snprintf(cmd, sizeof cmd, "%s/hprof2ndjson '%s' '%s'", tools, dump, nd);
		int rc = run(cmd, errbuf, sizeof errbuf);
		CHECK(rc == 1, "hprof2ndjson exits 1 on bzip2 (got %d)", rc);
		CHECK(strstr(errbuf, "bzip2") != NULL, "error names bzip2: %s", errbuf);
		CHECK(!strchr(errbuf, '\n') || strchr(errbuf, '\n') == errbuf + strlen(errbuf) - 1,
		      "one-line error: %s", errbuf);
		snprintf(cmd, sizeof cmd, "%s/hprof2heapdb '%s' '%s'", tools, dump, db_path);
		rc = run(cmd, errbuf, sizeof errbuf);
		CHECK(rc == 1 && strstr(errbuf, "bzip2"), "hprof2heapdb refuses bzip2 (%d: %s)", rc, errbuf);
		CHECK(!exists(nd) && !exists(db_path), "no output left behind");
		goto done;
	}
	if (ref && jint(json_object_get(ref, "heap_dump_records"), "count") == 0) {
		snprintf(cmd, sizeof cmd, "%s/hprof2heapdb '%s' '%s'", tools, dump, db_path);
		int rc = run(cmd, errbuf, sizeof errbuf);
		CHECK(rc == 1, "a file with no heap dump fails with exit 1 (got %d)", rc);
		CHECK(strstr(errbuf, "offset") && strstr(errbuf, "no HEAP DUMP"), "clear error: %s", errbuf);
		CHECK(!exists(db_path), "no database left behind");
		snprintf(cmd, sizeof cmd, "%s/hprof2ndjson '%s' '%s'", tools, dump, nd);
		rc = run(cmd, errbuf, sizeof errbuf);
		CHECK(rc == 1 && !exists(nd), "hprof2ndjson fails too and leaves no file (%d)", rc);
		goto done;
	}

	snprintf(cmd, sizeof cmd, "%s/hprof2ndjson '%s' '%s'", tools, dump, nd);
	int rc = run(cmd, errbuf, sizeof errbuf);
	CHECK(rc == 0, "hprof2ndjson exit %d: %s", rc, errbuf);
	/* No progress lines; a dump that converts with warnings has them told
	 * (the README's "Exit status"), and nothing else. */
	for (const char *l = errbuf; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
		CHECK(!strncmp(l, "hprof2ndjson: ", 14) && strstr(l, ": warning: ") &&
		      (!strchr(l, '\n') || strstr(l, ": warning: ") < strchr(l, '\n')),
		      "quiet when stderr is not a terminal, but for warnings: %s", errbuf);
	snprintf(cmd, sizeof cmd, "%s/hprof2heapdb '%s' '%s'", tools, dump, db_path);
	rc = run(cmd, errbuf, sizeof errbuf);
	CHECK(rc == 0, "hprof2heapdb exit %d: %s", rc, errbuf);

	char err[512];
	jschema *schema = jschema_load(schema_path, err, sizeof err);
	CHECK(schema != NULL, "schema loads: %s", schema ? "" : err);
	counts c;
	CHECK(read_ndjson(nd, schema, &c), "NDJSON readable");
	CHECK_EQ_U(c.invalid, 0, "NDJSON lines that do not validate against the schema");
	CHECK_EQ_U(c.order_errors, 0, "record order errors");
	jschema_free(schema);

	sqlite3 *db = NULL;
	CHECK(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK, "open database");
	if (ref)
		check_counts(name, &c, db, ref);
	check_same_records(&c, db);
	check_histogram(db, name);
	CHECK(q1(db, "PRAGMA integrity_check") >= 0, "integrity check runs");
	sqlite3_close(db);

	if (ends_with(name, ".gz")) {
		/* The same dump through standard input gives the same records. */
		char nd2[400];
		snprintf(nd2, sizeof nd2, "%s/stdin.ndjson", tmpdir);
		snprintf(cmd, sizeof cmd, "%s/hprof2ndjson - < '%s' > '%s'", tools, dump, nd2);
		rc = run(cmd, errbuf, sizeof errbuf);
		CHECK(rc == 0, "gzip through stdin: exit %d: %s", rc, errbuf);
		counts c2;
		read_ndjson(nd2, NULL, &c2);
		CHECK_EQ_U(c2.lines, c.lines, "lines through stdin");
		const char *k;
		json_t *v;
		json_object_foreach(c.by_record, k, v)
			CHECK_EQ_U(jint(c2.by_record, k), json_integer_value(v), k);
		json_decref(c2.by_record);
		json_decref(c2.roots);
		unlink(nd2);
	}
	json_decref(c.by_record);
	json_decref(c.roots);
	if (strstr(name, "java_pid1884"))
		check_large_values(dump, db_path, nd);
done:
	json_decref(ref);
	unlink(nd);
	unlink(db_path);
	char stderr_file[400];
	snprintf(stderr_file, sizeof stderr_file, "%s/stderr.txt", tmpdir);
	unlink(stderr_file);
	rmdir(tmpdir);
	return t_done(name);
}
