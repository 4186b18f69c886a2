/*
 * Tests of the DDM converters (alloc2ndjson, alloc2heapdb, hpsg2ndjson,
 * hpsg2heapdb), run as programs on files:
 *
 *   test_ddm corpus TOOLS REFS ALLOC_DIR QUERIES [SCHEMA]
 *       every file of ../shared/corpus/alloc converts, and every field of
 *       every entry equals what ddmlib's AllocationsParser printed for it
 *       (REFS/NAME.ddmlib.json); the database holds the same entries and the
 *       queries run on it.
 *   test_ddm gen TOOLS DDMGEN DESC QUERIES [SCHEMA]
 *       ddmgen writes an input from DESC and a list of what it put in; the
 *       NDJSON conversion gives back every value (entries in file order with
 *       class, size, thread, frames, sequence, alloc_number; heap runs with
 *       address, length, solidity, kind, object boundary; heap info; threads;
 *       process metadata; packet, ZLIB and zero-unit counts), the database
 *       agrees, and the queries run on it.
 *   With SCHEMA, every NDJSON line must validate against it.
 *   test_ddm bad TOOLS DDMGEN DESC TAG
 *       the converter fails with exit 1 and one error line naming an offset
 *       and TAG, and leaves no output file (NDJSON nor database) behind;
 *       for a stream, --lenient changes nothing and --salvage keeps what
 *       came before (exit 5, heapfmt.complete false, heapfmt.stopped_at the
 *       error's offset).
 *   test_ddm unpaired TOOLS DDMGEN DESC WARNING INCOMPLETE COMPLETE WARNINGS
 *       a capture that starts or stops inside a heap series converts (exit
 *       0, heapfmt.complete true) with WARNINGS warnings, the first starting
 *       with WARNING ("offset N (TYPE)"), INCOMPLETE series written with
 *       complete 0 and COMPLETE with 1, in the database too; --lenient gives
 *       the same; --strict fails with exit 1 and one line starting with
 *       WARNING, and leaves no output.
 *   test_ddm ddmlib TOOLS DDMGEN HARNESS.java DESC...
 *       where javac, java and Debian's ddmlib jar are present: ddmlib's own
 *       AllocationsParser, through HARNESS, reads the generated reports and
 *       agrees entry by entry with alloc2ndjson; else skips (77).
 */
#define _POSIX_C_SOURCE 200809L
#include "../libheapfmt/src/ddm_model.h"
#include "jschema.h"
#include "testlib.h"
#include <dirent.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpdir[256];
static char errtext[4096];
static jschema *schema;     /* schema/heapfmt.schema.json: every line must validate */

static int run(const char *cmd)
{
	char full[8192], errfile[400];
	snprintf(errfile, sizeof errfile, "%s/stderr.txt", tmpdir);
	snprintf(full, sizeof full, "%s 2>%s", cmd, errfile);
	int rc = system(full);
	errtext[0] = 0;
	FILE *f = fopen(errfile, "r");
	if (f) {
		size_t n = fread(errtext, 1, sizeof errtext - 1, f);
		errtext[n] = 0;
		fclose(f);
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

static void cleanup(void)
{
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (tmpdir[0] && system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
}

/* ---- the converted records -------------------------------------------- */

typedef struct out {
	json_t *strings;   /* "id" -> text */
	json_t *frames;    /* "id" -> ddm.stack_frame */
	json_t *stacks;    /* "id" -> [frame id by depth] */
	json_t *allocs, *reports, *runs, *dumps, *infos, *threads, *segments, *chunks;
	json_t *meta;      /* key -> [values] */
	long lines;
} out;

static json_t *arr(json_t *o, const char *k)
{
	json_t *a = json_object_get(o, k);
	if (!a) {
		a = json_array();
		json_object_set_new(o, k, a);
	}
	return a;
}

static long long ji(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_integer(v) ? (long long)json_integer_value(v) : -999999;
}

static const char *js(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static int load(const char *path, out *o)
{
	memset(o, 0, sizeof *o);
	o->strings = json_object();
	o->frames = json_object();
	o->stacks = json_object();
	o->allocs = json_array();
	o->reports = json_array();
	o->runs = json_array();
	o->dumps = json_array();
	o->infos = json_array();
	o->threads = json_array();
	o->segments = json_array();
	o->chunks = json_array();
	o->meta = json_object();
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) > 0) {
		o->lines++;
		json_error_t je;
		json_t *r = json_loadb(line, (size_t)n, 0, &je);
		CHECK(r != NULL, "line %ld is not JSON: %s", o->lines, je.text);
		if (!r)
			continue;
		char why[512];
		if (schema)
			CHECK(jschema_validate(schema, r, why, sizeof why), "line %ld does not validate: %s: %.200s",
			      o->lines, why, line);
		const char *rec = js(r, "record");
		char key[32];
		if (!rec) {
			CHECK(0, "line %ld has no record", o->lines);
		} else if (!strcmp(rec, "string")) {
			snprintf(key, sizeof key, "%lld", ji(r, "id"));
			CHECK(!json_object_get(o->strings, key), "string %s written twice", key);
			json_object_set(o->strings, key, json_object_get(r, "data"));
		} else if (!strcmp(rec, "metadata")) {
			json_array_append(arr(o->meta, js(r, "key")), json_object_get(r, "value"));
		} else if (!strcmp(rec, "ddm.stack_frame")) {
			snprintf(key, sizeof key, "%lld", ji(r, "frame"));
			json_object_set(o->frames, key, r);
		} else if (!strcmp(rec, "ddm.stack_element")) {
			snprintf(key, sizeof key, "%lld", ji(r, "stack"));
			json_t *a = arr(o->stacks, key);
			CHECK((long long)json_array_size(a) == ji(r, "depth"), "stack %s depths out of order", key);
			json_array_append_new(a, json_integer(ji(r, "frame")));
		} else if (!strcmp(rec, "ddm.stack")) {
			snprintf(key, sizeof key, "%lld", ji(r, "stack"));
			arr(o->stacks, key);
		} else if (!strcmp(rec, "ddm.allocation")) {
			json_array_append(o->allocs, r);
		} else if (!strcmp(rec, "ddm.alloc_report")) {
			json_array_append(o->reports, r);
		} else if (!strcmp(rec, "ddm.heap_run")) {
			json_array_append(o->runs, r);
		} else if (!strcmp(rec, "ddm.heap_dump")) {
			json_array_append(o->dumps, r);
		} else if (!strcmp(rec, "ddm.heap_info")) {
			json_array_append(o->infos, r);
		} else if (!strcmp(rec, "ddm.thread")) {
			json_array_append(o->threads, r);
		} else if (!strcmp(rec, "ddm.heap_segment")) {
			json_array_append(o->segments, r);
		} else if (!strcmp(rec, "ddm.chunk")) {
			json_array_append(o->chunks, r);
		}
		json_decref(r);
	}
	free(line);
	fclose(f);
	return 1;
}

static void out_free(out *o)
{
	json_t *all[] = { o->strings, o->frames, o->stacks, o->allocs, o->reports, o->runs, o->dumps,
	                  o->infos, o->threads, o->segments, o->chunks, o->meta };
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		json_decref(all[i]);
}

static const char *str(const out *o, long long id)
{
	char key[32];
	snprintf(key, sizeof key, "%lld", id);
	const char *s = json_string_value(json_object_get(o->strings, key));
	return s ? s : "<missing string>";
}

static const char *meta1(const out *o, const char *k)
{
	json_t *a = json_object_get(o->meta, k);
	return a ? json_string_value(json_array_get(a, json_array_size(a) - 1)) : NULL;
}

static int meta_has(const out *o, const char *k, const char *v)
{
	json_t *a = json_object_get(o->meta, k);
	for (size_t i = 0; a && i < json_array_size(a); i++)
		if (!strcmp(json_string_value(json_array_get(a, i)), v))
			return 1;
	return 0;
}

/* The frames of an allocation: JSON array of ddm.stack_frame objects. */
static json_t *alloc_frames(const out *o, json_t *a)
{
	char key[32];
	snprintf(key, sizeof key, "%lld", ji(a, "stack"));
	json_t *ids = json_object_get(o->stacks, key);
	json_t *res = json_array();
	CHECK(ids != NULL, "stack %s of an allocation was not written", key);
	for (size_t d = 0; ids && d < json_array_size(ids); d++) {
		snprintf(key, sizeof key, "%lld", (long long)json_integer_value(json_array_get(ids, d)));
		json_t *f = json_object_get(o->frames, key);
		CHECK(f != NULL, "frame %s was not written", key);
		if (f)
			json_array_append(res, f);
	}
	CHECK((long long)json_array_size(res) == ji(a, "depth"), "depth %lld vs %zu frames",
	      ji(a, "depth"), json_array_size(res));
	if (json_array_size(res))
		CHECK(ji(a, "top_frame") == ji(json_array_get(res, 0), "frame"), "top_frame");
	return res;
}

/* ddmlib also runs method and file names through descriptorToDot. */
static void ddmlib_dot(const char *s, char *outbuf, size_t size)
{
	hf_buf b;
	hf_buf_init(&b);
	ddm_descriptor_to_dot(s, strlen(s), &b);
	snprintf(outbuf, size, "%.*s", (int)b.len, b.data ? (const char *)b.data : "");
	hf_buf_free(&b);
}

/* ---- SQLite ------------------------------------------------------------- */

static long long db_count(sqlite3 *db, const char *table)
{
	char sql[200];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
	sqlite3_stmt *st;
	long long n = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static int count_rows_cb(void *ctx, int n, char **v, char **c)
{
	(void)n; (void)v; (void)c;
	(*(long *)ctx)++;
	return 0;
}

/* Runs every DDM query file; each must work; returns rows printed. */
static void check_db(const char *dbpath, const out *o, const char *queries)
{
	sqlite3 *db;
	CHECK(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK, "open %s", dbpath);
	CHECK_EQ_U(db_count(db, "ddm_allocation"), json_array_size(o->allocs), "allocations in SQLite");
	CHECK_EQ_U(db_count(db, "ddm_heap_run"), json_array_size(o->runs), "heap runs in SQLite");
	CHECK_EQ_U(db_count(db, "ddm_stack_frame"), json_object_size(o->frames), "frames in SQLite");
	CHECK_EQ_U(db_count(db, "ddm_thread"), json_array_size(o->threads), "threads in SQLite");
	CHECK_EQ_U(db_count(db, "strings"), json_object_size(o->strings), "strings in SQLite");
	static const char *const files[] = { "alloc_sites.sql", "alloc_by_class.sql",
	                                      "alloc_by_thread.sql", "heap_usage.sql",
	                                      "heap_fragmentation.sql" };
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		char path[600];
		snprintf(path, sizeof path, "%s/%s", queries, files[i]);
		FILE *f = fopen(path, "r");
		CHECK(f != NULL, "query %s missing", path);
		if (!f)
			continue;
		char sql[65536];
		size_t n = fread(sql, 1, sizeof sql - 1, f);
		sql[n] = 0;
		fclose(f);
		long rows = 0;
		char *msg = NULL;
		int rc = sqlite3_exec(db, sql, count_rows_cb, &rows, &msg);
		CHECK(rc == SQLITE_OK, "%s: %s", files[i], msg ? msg : "");
		sqlite3_free(msg);
		int alloc_q = i < 3;
		if (alloc_q && json_array_size(o->allocs))
			CHECK(rows > 0, "%s gave no rows on %zu allocations", files[i], json_array_size(o->allocs));
		if (!alloc_q && json_array_size(o->runs))
			CHECK(rows > 0, "%s gave no rows on %zu runs", files[i], json_array_size(o->runs));
	}
	/* Fragmentation: the largest free run per dump equals the NDJSON's. */
	for (size_t i = 0; i < json_array_size(o->dumps); i++) {
		json_t *d = json_array_get(o->dumps, i);
		char sql[300];
		snprintf(sql, sizeof sql, "SELECT coalesce(max(length),0) FROM ddm_heap_run WHERE dump=%lld "
		         "AND solidity=0", ji(d, "dump"));
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
			CHECK(sqlite3_column_int64(st, 0) == ji(d, "largest_free_bytes"),
			      "largest free run of dump %lld", ji(d, "dump"));
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
}

/* ---- corpus ------------------------------------------------------------- */

static void compare_ref(const out *o, json_t *ref, const char *name)
{
	json_t *h = json_object_get(ref, "header");
	json_t *rep = json_array_get(o->reports, 0);
	CHECK(rep != NULL, "%s: no ddm.alloc_report", name);
	if (!rep)
		return;
	CHECK_EQ_U(ji(rep, "header_length"), ji(h, "header_len"), "header_len");
	CHECK_EQ_U(ji(rep, "entry_header_length"), ji(h, "entry_header_len"), "entry_header_len");
	CHECK_EQ_U(ji(rep, "frame_length"), ji(h, "stack_frame_len"), "stack_frame_len");
	CHECK_EQ_U(ji(rep, "header_entries"), ji(h, "num_entries"), "num_entries");
	CHECK_EQ_U(ji(rep, "string_table_offset"), ji(h, "string_table_offset"), "string_table_offset");
	CHECK_EQ_U(ji(rep, "class_names"), ji(h, "num_class_names"), "num_class_names");
	CHECK_EQ_U(ji(rep, "method_names"), ji(h, "num_method_names"), "num_method_names");
	CHECK_EQ_U(ji(rep, "file_names"), ji(h, "num_file_names"), "num_file_names");
	CHECK_EQ_U(json_array_size(o->allocs), ji(ref, "entries"), "entries");
	json_t *listed = json_object_get(ref, "listed");
	for (size_t i = 0; i < json_array_size(listed); i++) {
		json_t *e = json_array_get(listed, i), *a = json_array_get(o->allocs, i);
		CHECK(a != NULL, "%s: entry %zu missing", name, i);
		if (!a)
			continue;
		CHECK_EQ_U(ji(a, "alloc_number"), ji(e, "alloc_number"), "alloc_number");
		CHECK_STR(str(o, ji(a, "class")), js(e, "class"), "class");
		CHECK(ji(a, "size") >= 0 && (int32_t)(uint32_t)ji(a, "size") == ji(e, "size"),
		      "entry %zu size %lld vs %lld", i, ji(a, "size"), ji(e, "size"));
		CHECK((int16_t)(uint16_t)ji(a, "thread") == ji(e, "thread"), "entry %zu thread", i);
		json_t *fr = alloc_frames(o, a), *rf = json_object_get(e, "frames");
		CHECK_EQ_U(json_array_size(fr), json_array_size(rf), "frame count");
		for (size_t k = 0; k < json_array_size(rf) && k < json_array_size(fr); k++) {
			json_t *x = json_array_get(fr, k), *y = json_array_get(rf, k);
			char m[512], fl[512];
			ddmlib_dot(str(o, ji(x, "method")), m, sizeof m);
			ddmlib_dot(str(o, ji(x, "file")), fl, sizeof fl);
			CHECK_STR(str(o, ji(x, "class")), js(y, "class"), "frame class");
			CHECK_STR(m, js(y, "method"), "frame method");
			CHECK_STR(fl, js(y, "file"), "frame file");
			CHECK_EQ_U(ji(x, "line"), ji(y, "line"), "frame line");
		}
		json_t *top = json_object_get(e, "top_frame");
		CHECK(json_is_null(top) == (json_array_size(fr) == 0), "top_frame presence");
		json_decref(fr);
	}
}

static int do_corpus(const char *tools, const char *refs, const char *dir, const char *queries)
{
	DIR *d = opendir(dir);
	if (!d) {
		printf("SKIP: %s is absent (../shared/corpus not beside the project)\n", dir);
		return TEST_SKIP;
	}
	struct dirent *de;
	int files = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char in[600], refpath[700], nd[600], db[600], cmd[2400];
		snprintf(in, sizeof in, "%s/%s", dir, de->d_name);
		snprintf(refpath, sizeof refpath, "%s/%s.ddmlib.json", refs, de->d_name);
		snprintf(nd, sizeof nd, "%s/%s.ndjson", tmpdir, de->d_name);
		snprintf(db, sizeof db, "%s/%s.db", tmpdir, de->d_name);
		json_error_t je;
		json_t *ref = json_load_file(refpath, 0, &je);
		CHECK(ref != NULL, "%s: no reference %s", de->d_name, refpath);
		snprintf(cmd, sizeof cmd, "'%s/alloc2ndjson' '%s' '%s'", tools, in, nd);
		CHECK(run(cmd) == 0, "%s: alloc2ndjson failed: %s", de->d_name, errtext);
		snprintf(cmd, sizeof cmd, "'%s/alloc2heapdb' '%s' '%s'", tools, in, db);
		CHECK(run(cmd) == 0, "%s: alloc2heapdb failed: %s", de->d_name, errtext);
		out o;
		load(nd, &o);
		if (ref)
			compare_ref(&o, ref, de->d_name);
		check_db(db, &o, queries);
		out_free(&o);
		json_decref(ref);
		files++;
	}
	closedir(d);
	CHECK(files > 0, "no files in %s", dir);
	printf("%d corpus files\n", files);
	return 0;
}

/* ---- generated inputs --------------------------------------------------- */

/* "alloc" or "stream": the first directive of a description. */
static int desc_kind(const char *desc)
{
	FILE *f = fopen(desc, "r");
	char line[512];
	int kind = 0;
	while (f && fgets(line, sizeof line, f)) {
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\n' || !*p)
			continue;
		kind = !strncmp(p, "alloc", 5) ? 1 : !strncmp(p, "stream", 6) ? 2 : 0;
		break;
	}
	if (f)
		fclose(f);
	return kind;
}

static void compare_reports(const out *o, json_t *exp)
{
	size_t base = 0, rno = 0;
	for (size_t i = 0; i < json_array_size(exp); i++) {
		json_t *r = json_array_get(exp, i);
		if (!strcmp(js(r, "what"), "report_at")) {
			/* Where the report is, and where its trailing bytes are said
			 * to be (in a ZLIB chunk: the chunk, and the inflated byte). */
			json_t *rep = json_array_get(o->reports, (size_t)ji(r, "report"));
			CHECK(rep && ji(rep, "offset") == ji(r, "offset"), "report %lld offset %lld, expected %lld",
			      ji(r, "report"), rep ? ji(rep, "offset") : -1, ji(r, "offset"));
			if (rep && ji(rep, "trailing_bytes") > 0)
				CHECK(meta_has(o, "ddm.warning", js(r, "warning")), "warning \"%s\" missing",
				      js(r, "warning"));
			continue;
		}
		if (strcmp(js(r, "what"), "report"))
			continue;
		json_t *rep = json_array_get(o->reports, rno++);
		CHECK(rep != NULL, "report %zu missing", rno - 1);
		if (!rep)
			return;
		long long n = ji(r, "entries");
		CHECK_EQ_U(ji(rep, "entries"), n, "report entries");
		CHECK_EQ_U(ji(rep, "header_entries"), ji(r, "header_entries"), "header_entries");
		CHECK_EQ_U(ji(rep, "count_overflow"), n > 65535, "count_overflow");
		CHECK_STR(js(rep, "order"), js(r, "order"), "order taken by --order=auto");
		CHECK_EQ_U(ji(rep, "trailing_bytes"), ji(r, "trailing"), "trailing bytes");
		json_t *list = json_object_get(r, "list");
		for (size_t k = 0; k < json_array_size(list); k++) {
			json_t *e = json_array_get(list, k), *a = json_array_get(o->allocs, base + k);
			CHECK(a != NULL, "allocation %zu missing", base + k);
			if (!a)
				return;
			CHECK_EQ_U(ji(a, "position"), k, "position");
			CHECK_EQ_U(ji(a, "alloc_number"), n - (long long)k, "alloc_number");
			CHECK_EQ_U(ji(a, "sequence"), ji(e, "sequence"), "sequence");
			CHECK_STR(str(o, ji(a, "class_descriptor")), js(e, "class"), "class descriptor");
			CHECK_EQ_U(ji(a, "size"), ji(e, "size"), "size");
			CHECK_EQ_U(ji(a, "thread"), ji(e, "thread"), "thread");
			json_t *fr = alloc_frames(o, a), *ef = json_object_get(e, "frames");
			CHECK_EQ_U(json_array_size(fr), json_array_size(ef), "depth");
			for (size_t f = 0; f < json_array_size(fr) && f < json_array_size(ef); f++) {
				json_t *x = json_array_get(fr, f), *y = json_array_get(ef, f);
				CHECK_STR(str(o, ji(x, "class_descriptor")), js(y, "class"), "frame class");
				CHECK_STR(str(o, ji(x, "method")), js(y, "method"), "frame method");
				CHECK_STR(str(o, ji(x, "file")), js(y, "file"), "frame file");
				long long line = ji(y, "line");
				CHECK_EQ_U(ji(x, "line"), line, "frame line");
				CHECK_EQ_U(ji(x, "native"), line == -2, "native");
				long long sl = line >= 0 ? line : line < -2 ? line + 65536 : -999999;
				CHECK_EQ_U(ji(x, "source_line"), sl, "source_line");
			}
			json_decref(fr);
		}
		base += json_array_size(list);
	}
	CHECK_EQ_U(json_array_size(o->allocs), base, "allocations in all");
	CHECK_EQ_U(json_array_size(o->reports), rno, "reports");
}

static void compare_stream(const out *o, json_t *exp)
{
	size_t run = 0, th = 0, info = 0;
	for (size_t i = 0; i < json_array_size(exp); i++) {
		json_t *e = json_array_get(exp, i);
		const char *w = js(e, "what");
		if (!strcmp(w, "meta")) {
			CHECK(meta_has(o, js(e, "key"), js(e, "value")), "metadata %s = %s missing",
			      js(e, "key"), js(e, "value"));
		} else if (!strcmp(w, "stream")) {
			const char *hs = meta1(o, "ddm.jdwp_handshakes");
			CHECK(hs && atoll(hs) == ji(e, "handshakes"), "handshakes %s", hs ? hs : "?");
			CHECK_STR(meta1(o, "ddm.shape"), js(e, "shape"), "shape told from the bytes");
		} else if (!strcmp(w, "thread")) {
			json_t *t = json_array_get(o->threads, th++);
			CHECK(t != NULL, "thread event %zu missing", th - 1);
			if (!t)
				continue;
			CHECK_STR(js(t, "event"), js(e, "event"), "thread event");
			CHECK_EQ_U(ji(t, "thread"), ji(e, "thread"), "thread id");
			if (js(e, "name"))
				CHECK_STR(str(o, ji(t, "name")), js(e, "name"), "thread name");
			if (json_object_get(e, "tid")) {
				CHECK_EQ_U(ji(t, "tid"), ji(e, "tid"), "tid");
				CHECK_EQ_U(ji(t, "state"), ji(e, "state"), "state");
			}
		} else if (!strcmp(w, "heap_info")) {
			json_t *t = json_array_get(o->infos, info++);
			CHECK(t != NULL, "heap info %zu missing", info - 1);
			static const char *const k[] = { "heap", "timestamp_ms", "reason", "max_bytes",
			                                 "footprint_bytes", "allocated_bytes", "allocated_objects" };
			for (size_t j = 0; t && j < sizeof k / sizeof *k; j++)
				CHECK_EQ_U(ji(t, k[j]), ji(e, k[j]), k[j]);
		} else if (!strcmp(w, "heap_dump")) {
			json_t *d = NULL;
			for (size_t j = 0; j < json_array_size(o->dumps); j++)
				if (ji(json_array_get(o->dumps, j), "dump") == ji(e, "dump"))
					d = json_array_get(o->dumps, j);
			CHECK(d != NULL, "heap dump %lld missing", ji(e, "dump"));
			if (d) {
				CHECK_EQ_U(ji(d, "heap"), ji(e, "heap"), "dump heap");
				CHECK_EQ_U(ji(d, "native"), ji(e, "native"), "dump native");
			}
		} else if (!strcmp(w, "run")) {
			json_t *r = json_array_get(o->runs, run++);
			CHECK(r != NULL, "run %zu missing", run - 1);
			if (!r)
				continue;
			static const char *const k[] = { "dump", "address", "length", "solidity", "kind",
			                                 "object_boundary" };
			for (size_t j = 0; j < sizeof k / sizeof *k; j++)
				CHECK(ji(r, k[j]) == ji(e, k[j]), "run %zu %s: got %lld, put in %lld", run - 1,
				      k[j], ji(r, k[j]), ji(e, k[j]));
		} else if (!strcmp(w, "counts")) {
			const char *v = meta1(o, "ddm.jdwp_other_packets");
			CHECK(v && atoll(v) == ji(e, "other_packets"), "debugger packets skipped: %s", v);
			v = meta1(o, "ddm.zlib_chunks");
			CHECK(v && atoll(v) == ji(e, "zlib_chunks"), "ZLIB chunks: %s", v);
			v = meta1(o, "ddm.zero_unit_runs");
			CHECK(v && atoll(v) == ji(e, "zero_unit_runs"), "zero-unit runs: %s", v);
		}
	}
	CHECK_EQ_U(json_array_size(o->runs), run, "runs in all");
	CHECK_EQ_U(json_array_size(o->threads), th, "thread events in all");
	CHECK_EQ_U(json_array_size(o->infos), info, "heap infos in all");
	/* Used and free bytes per dump add up from the runs. */
	for (size_t j = 0; j < json_array_size(o->dumps); j++) {
		json_t *d = json_array_get(o->dumps, j);
		long long used = 0, fr = 0;
		for (size_t r = 0; r < json_array_size(o->runs); r++) {
			json_t *x = json_array_get(o->runs, r);
			if (ji(x, "dump") != ji(d, "dump"))
				continue;
			if (ji(x, "solidity"))
				used += ji(x, "length");
			else
				fr += ji(x, "length");
		}
		CHECK_EQ_U(ji(d, "used_bytes"), used, "used bytes");
		CHECK_EQ_U(ji(d, "free_bytes"), fr, "free bytes");
	}
}

static const char *stream_args(json_t *exp)
{
	for (size_t i = 0; i < json_array_size(exp); i++) {
		json_t *e = json_array_get(exp, i);
		if (!strcmp(js(e, "what"), "stream"))
			return js(e, "args");
	}
	return "";
}

static int do_gen(const char *tools, const char *gen, const char *desc, const char *queries)
{
	char bin[400], exp_path[400], nd[400], db[400], cmd[2000];
	snprintf(bin, sizeof bin, "%s/in.bin", tmpdir);
	snprintf(exp_path, sizeof exp_path, "%s/expected.json", tmpdir);
	snprintf(nd, sizeof nd, "%s/out.ndjson", tmpdir);
	snprintf(db, sizeof db, "%s/out.db", tmpdir);
	snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' '%s'", gen, desc, bin, exp_path);
	if (run(cmd) != 0) {
		CHECK(0, "ddmgen failed: %s", errtext);
		return 1;
	}
	json_error_t je;
	json_t *exp = json_load_file(exp_path, 0, &je);
	CHECK(exp != NULL, "expected.json: %s", je.text);
	if (!exp)
		return 1;
	int kind = desc_kind(desc);
	const char *prog = kind == 1 ? "alloc2" : "hpsg2";
	const char *args = kind == 2 ? stream_args(exp) : "";
	snprintf(cmd, sizeof cmd, "'%s/%sndjson' %s '%s' '%s'", tools, prog, args, bin, nd);
	CHECK(run(cmd) == 0, "%sndjson failed: %s", prog, errtext);
	/* Through standard input and gzip too, for the same lines. */
	snprintf(cmd, sizeof cmd, "gzip -c '%s' | '%s/%sndjson' %s - | grep -vc '\"crtime\"' > '%s/n1' && "
	         "grep -vc '\"crtime\"' '%s' > '%s/n2' && cmp -s '%s/n1' '%s/n2'",
	         bin, tools, prog, args, tmpdir, nd, tmpdir, tmpdir, tmpdir);
	CHECK(run(cmd) == 0, "gzip through stdin gives other output: %s", errtext);
	snprintf(cmd, sizeof cmd, "'%s/%sheapdb' %s '%s' '%s'", tools, prog, args, bin, db);
	CHECK(run(cmd) == 0, "%sheapdb failed: %s", prog, errtext);
	out o;
	load(nd, &o);
	compare_reports(&o, exp);
	if (kind == 2)
		compare_stream(&o, exp);
	CHECK_STR(meta1(&o, "heapfmt.complete"), "true", "complete");
	check_db(db, &o, queries);
	printf("%zu allocations, %zu runs, %zu thread events, %ld lines\n", json_array_size(o.allocs),
	       json_array_size(o.runs), json_array_size(o.threads), o.lines);
	out_free(&o);
	json_decref(exp);
	return 0;
}

/* The last error line's "offset N": N, or -1. */
static long long err_offset(void)
{
	const char *p = strstr(errtext, "offset ");
	return p ? atoll(p + 7) : -1;
}

/* ddmgen writes DESC into tmpdir/NAME (bin) and names out.ndjson (nd) and
 * out.db (db) there; 0 when it worked. */
static int gen_input(const char *gen, const char *desc, const char *name, char bin[400],
                     char nd[400], char db[400])
{
	char cmd[1400];
	snprintf(bin, 400, "%s/%s", tmpdir, name);
	snprintf(nd, 400, "%s/out.ndjson", tmpdir);
	snprintf(db, 400, "%s/out.db", tmpdir);
	snprintf(cmd, sizeof cmd, "'%s' '%s' '%s'", gen, desc, bin);
	if (run(cmd) != 0) {
		CHECK(0, "ddmgen failed: %s", errtext);
		return 1;
	}
	return 0;
}

static int do_bad(const char *tools, const char *gen, const char *desc, const char *tag)
{
	char bin[400], nd[400], db[400], cmd[2000];
	if (gen_input(gen, desc, "bad.bin", bin, nd, db))
		return 1;
	const char *prog = desc_kind(desc) == 1 ? "alloc2" : "hpsg2";
	const char *outs[2] = { nd, db };
	for (int k = 0; k < 2; k++) {
		/* Under ASan no single allocation may pass 64 MiB (a bad input is a
		 * few bytes): a declared size taken at its word fails with exit 4. */
		snprintf(cmd, sizeof cmd, "ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:allocator_may_return_null=1:"
		         "max_allocation_size_mb=64\" '%s/%s%s' '%s' '%s'", tools, prog,
		         k ? "heapdb" : "ndjson", bin, outs[k]);
		int rc = run(cmd);
		CHECK(rc == 1, "%s: exit %d, expected 1", cmd, rc);
		int lines = 0;
		for (const char *p = errtext; *p; p++)
			lines += *p == '\n';
		CHECK(lines == 1, "error is %d lines: %s", lines, errtext);
		CHECK(strstr(errtext, "offset ") != NULL, "error names no offset: %s", errtext);
		CHECK(strstr(errtext, tag) != NULL, "error does not name %s: %s", tag, errtext);
		CHECK(!exists(outs[k]), "%s left behind", outs[k]);
		printf("%s", errtext);
	}
	snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -q tmp-", tmpdir);
	CHECK(run(cmd) != 0, "a temporary file is left in %s", tmpdir);
	/* NDJSON to standard output fails the same way. */
	snprintf(cmd, sizeof cmd, "'%s/%sndjson' '%s' > /dev/null", tools, prog, bin);
	CHECK(run(cmd) == 1, "to stdout: %s", errtext);
	long long at = err_offset();
	if (desc_kind(desc) == 2) {
		/* --lenient is a no-op: damage stays an error. */
		snprintf(cmd, sizeof cmd, "ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:allocator_may_return_null=1:"
		         "max_allocation_size_mb=64\" '%s/hpsg2ndjson' --lenient '%s' '%s'", tools, bin, nd);
		CHECK(run(cmd) == 1, "--lenient: %s", errtext);
		CHECK(!exists(nd), "--lenient left %s", nd);
		snprintf(cmd, sizeof cmd, "ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:allocator_may_return_null=1:"
		         "max_allocation_size_mb=64\" '%s/hpsg2ndjson' --salvage '%s' '%s'", tools, bin, nd);
		CHECK(run(cmd) == 5, "--salvage: %s", errtext);
		out o;
		load(nd, &o);
		CHECK_STR(meta1(&o, "heapfmt.complete"), "false", "complete after --salvage");
		const char *sa = meta1(&o, "heapfmt.stopped_at");
		CHECK(sa && atoll(sa) == at, "heapfmt.stopped_at %s, the error said %lld", sa ? sa : "?", at);
		out_free(&o);
	}
	return 0;
}

static long long db_count_where(const char *dbpath, const char *sql)
{
	sqlite3 *db;
	long long n = -1;
	if (sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return n;
}

/* A series cut by the start or the end of the capture (ddm-stream.md 7.7). */
static int do_unpaired(const char *tools, const char *gen, const char *desc, const char *warning,
                       long long incomplete, long long complete, long long warnings)
{
	char bin[400], nd[400], nd2[400], db[400], cmd[4000];
	if (gen_input(gen, desc, "in.bin", bin, nd, db))
		return 1;
	snprintf(nd2, sizeof nd2, "%s/lenient.ndjson", tmpdir);
	snprintf(cmd, sizeof cmd, "'%s/hpsg2ndjson' '%s' '%s'", tools, bin, nd);
	CHECK(run(cmd) == 0, "hpsg2ndjson: %s", errtext);
	/* A warning is no error: exit 0, and stderr has the first warning's
	 * line (README "Exit status"), naming the input. */
	{
		char want[600];
		snprintf(want, sizeof want, "hpsg2ndjson: %s: warning: %s", bin, warning);
		CHECK(!strncmp(errtext, want, strlen(want)), "stderr \"%s\", expected \"%s...\"", errtext, want);
	}
	out o;
	load(nd, &o);
	CHECK_STR(meta1(&o, "heapfmt.complete"), "true", "heapfmt.complete");
	CHECK(!meta1(&o, "heapfmt.stopped_at"), "heapfmt.stopped_at without damage");
	const char *w = meta1(&o, "ddm.warnings");
	CHECK(w && atoll(w) == warnings, "ddm.warnings %s, expected %lld", w ? w : "?", warnings);
	json_t *wl = json_object_get(o.meta, "ddm.warning");
	const char *first = json_string_value(json_array_get(wl, 0));
	CHECK_EQ_U(json_array_size(wl), warnings, "ddm.warning lines");
	CHECK(first && !strncmp(first, warning, strlen(warning)), "first warning \"%s\", expected \"%s...\"",
	      first ? first : "(none)", warning);
	long long inc = 0, com = 0;
	for (size_t i = 0; i < json_array_size(o.dumps); i++) {
		json_t *d = json_array_get(o.dumps, i);
		int has_start = json_object_get(d, "start_chunk") != NULL;
		int has_end = json_object_get(d, "end_chunk") != NULL;
		CHECK_EQ_U(ji(d, "complete"), has_start && has_end, "complete = start and end known");
		long long segs = 0;
		for (size_t k = 0; k < json_array_size(o.segments); k++)
			segs += ji(json_array_get(o.segments, k), "dump") == ji(d, "dump");
		CHECK_EQ_U(ji(d, "segments"), segs, "segments of the series");
		if (ji(d, "complete") == 1)
			com++;
		else
			inc++;
	}
	CHECK_EQ_U(inc, incomplete, "incomplete series");
	CHECK_EQ_U(com, complete, "complete series");
	snprintf(cmd, sizeof cmd, "'%s/hpsg2heapdb' '%s' '%s'", tools, bin, db);
	CHECK(run(cmd) == 0, "hpsg2heapdb: %s", errtext);
	CHECK_EQ_U(db_count_where(db, "SELECT count(*) FROM ddm_heap_dump WHERE complete = 0"), incomplete,
	           "incomplete series in SQLite");
	CHECK_EQ_U(db_count_where(db, "SELECT count(*) FROM ddm_heap_dump WHERE complete = 1"), complete,
	           "complete series in SQLite");
	out_free(&o);
	/* --lenient, kept for old command lines, gives the same lines. */
	snprintf(cmd, sizeof cmd, "'%s/hpsg2ndjson' --lenient '%s' '%s'", tools, bin, nd2);
	CHECK(run(cmd) == 0, "--lenient: %s", errtext);
	snprintf(cmd, sizeof cmd, "grep -v '\"crtime\"' '%s' > '%s.a' && grep -v '\"crtime\"' '%s' > '%s.b' && "
	         "cmp -s '%s.a' '%s.b'", nd, nd, nd2, nd2, nd, nd2);
	CHECK(run(cmd) == 0, "--lenient gives other output");
	/* --strict: the first warning is the error. */
	for (int k = 0; k < 2; k++) {
		const char *o_path = k ? db : nd;
		remove(o_path);
		snprintf(cmd, sizeof cmd, "'%s/hpsg2%s' --strict '%s' '%s'", tools, k ? "heapdb" : "ndjson",
		         bin, o_path);
		CHECK(run(cmd) == 1, "--strict: exit is not 1: %s", errtext);
		const char *colon = strstr(errtext, ": offset ");
		CHECK(colon && !strncmp(colon + 2, warning, strlen(warning)), "--strict error: %s", errtext);
		CHECK(strchr(errtext, '\n') == errtext + strlen(errtext) - 1, "one line: %s", errtext);
		CHECK(!exists(o_path), "--strict left %s", o_path);
	}
	return 0;
}

/* ---- ddmlib ------------------------------------------------------------- */

static int have(const char *prog)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

static int do_ddmlib(const char *tools, const char *gen, const char *harness, int ndesc,
                     char **descs)
{
	const char *jar = "/usr/share/java/com.android.tools.ddms.ddmlib.jar";
	if (!have("javac") || !have("java") || !exists(jar)) {
		printf("SKIP: needs javac, java and %s (apt-get install default-jdk-headless "
		       "libandroid-ddms-java)\n", jar);
		return TEST_SKIP;
	}
	char cmd[4000], classes[400];
	snprintf(classes, sizeof classes, "%s/classes", tmpdir);
	snprintf(cmd, sizeof cmd, "javac -encoding UTF-8 -cp '%s' -d '%s' '%s'", jar, classes, harness);
	if (run(cmd) != 0) {
		CHECK(0, "javac failed: %s", errtext);
		return 1;
	}
	for (int d = 0; d < ndesc; d++) {
		char bin[400], nd[400], jo[400];
		snprintf(bin, sizeof bin, "%s/r%d.alloc", tmpdir, d);
		snprintf(nd, sizeof nd, "%s/r%d.ndjson", tmpdir, d);
		snprintf(jo, sizeof jo, "%s/r%d.ddmlib", tmpdir, d);
		snprintf(cmd, sizeof cmd, "'%s' '%s' '%s'", gen, descs[d], bin);
		CHECK(run(cmd) == 0, "ddmgen %s: %s", descs[d], errtext);
		snprintf(cmd, sizeof cmd, "'%s/alloc2ndjson' '%s' '%s'", tools, bin, nd);
		CHECK(run(cmd) == 0, "alloc2ndjson %s: %s", descs[d], errtext);
		snprintf(cmd, sizeof cmd, "java -Xss16m -cp '%s:%s' DdmlibAllocDump '%s' > '%s'", classes, jar,
		         bin, jo);
		CHECK(run(cmd) == 0, "ddmlib harness on %s: %s", descs[d], errtext);
		out o;
		load(nd, &o);
		json_t *rep = json_array_get(o.reports, 0);
		int wrapped = rep && ji(rep, "count_overflow") == 1;
		FILE *f = fopen(jo, "r");
		char *line = NULL;
		size_t cap = 0, i = 0;
		ssize_t n;
		while (f && (n = getline(&line, &cap, f)) > 0) {
			json_error_t je;
			json_t *e = json_loadb(line, (size_t)n, 0, &je);
			CHECK(e != NULL, "harness output line %zu: %s", i, je.text);
			json_t *a = json_array_get(o.allocs, i);
			CHECK(a != NULL, "%s: ddmlib has entry %zu, alloc2ndjson not", descs[d], i);
			if (e && a) {
				CHECK_EQ_U(ji(a, "alloc_number"), ji(e, "n"), "alloc_number");
				CHECK_STR(str(&o, ji(a, "class")), js(e, "class"), "class (display form)");
				CHECK((int32_t)(uint32_t)ji(a, "size") == ji(e, "size"), "entry %zu size", i);
				CHECK((int16_t)(uint16_t)ji(a, "thread") == ji(e, "thread"), "entry %zu thread", i);
				json_t *fr = alloc_frames(&o, a), *ef = json_object_get(e, "frames");
				CHECK_EQ_U(json_array_size(fr), json_array_size(ef), "frames");
				for (size_t k = 0; k < json_array_size(fr) && k < json_array_size(ef); k++) {
					json_t *x = json_array_get(fr, k), *y = json_array_get(ef, k);
					char m[512], fl[512];
					ddmlib_dot(str(&o, ji(x, "method")), m, sizeof m);
					ddmlib_dot(str(&o, ji(x, "file")), fl, sizeof fl);
					CHECK_STR(str(&o, ji(x, "class")), json_string_value(json_array_get(y, 0)),
					          "frame class");
					CHECK_STR(m, json_string_value(json_array_get(y, 1)), "frame method");
					CHECK_STR(fl, json_string_value(json_array_get(y, 2)), "frame file");
					CHECK_EQ_U(ji(x, "line"), json_integer_value(json_array_get(y, 3)), "line");
				}
				json_decref(fr);
			}
			json_decref(e);
			i++;
		}
		free(line);
		if (f)
			fclose(f);
		/* ddmlib believes the wrapped count (0 entries); heapfmt recovers them. */
		if (wrapped)
			CHECK(i == 0, "ddmlib read %zu entries of a wrapped report", i);
		else
			CHECK_EQ_U(i, json_array_size(o.allocs), "entries: ddmlib vs alloc2ndjson");
		printf("%s: %zu entries agree with ddmlib%s\n", descs[d], i,
		       wrapped ? " (wrapped count: ddmlib reads none)" : "");
		out_free(&o);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: see the comment at the top of test_ddm.c\n");
		return 2;
	}
	snprintf(tmpdir, sizeof tmpdir, "/tmp/test_ddm.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	int rc = 2;
	const char *mode = argv[1];
	/* gen and corpus take the schema as a last, optional argument. */
	if ((!strcmp(mode, "gen") || !strcmp(mode, "corpus")) && argc == 7) {
		char why[512];
		if (exists(argv[6]) && !(schema = jschema_load(argv[6], why, sizeof why))) {
			fprintf(stderr, "%s: %s\n", argv[6], why);
			return 1;
		}
		argc--;
	}
	if (!strcmp(mode, "corpus") && argc == 6)
		rc = do_corpus(argv[2], argv[3], argv[4], argv[5]);
	else if (!strcmp(mode, "gen") && argc == 6)
		rc = do_gen(argv[2], argv[3], argv[4], argv[5]);
	else if (!strcmp(mode, "bad") && argc == 6)
		rc = do_bad(argv[2], argv[3], argv[4], argv[5]);
	else if (!strcmp(mode, "unpaired") && argc == 9)
		rc = do_unpaired(argv[2], argv[3], argv[4], argv[5], atoll(argv[6]), atoll(argv[7]),
		                 atoll(argv[8]));
	else if (!strcmp(mode, "ddmlib") && argc >= 6)
		rc = do_ddmlib(argv[2], argv[3], argv[4], argc - 5, argv + 5);
	else
		fprintf(stderr, "test_ddm: bad arguments\n");
	cleanup();
	if (schema)
		jschema_free(schema);
	if (rc == TEST_SKIP || rc == 2)
		return rc;
	return t_done(mode) || rc;
}
