/*
 * libFuzzer harness: the round trip between the format's two physical forms.
 *
 * An input that starts like an HPROF file goes through the HPROF reader,
 * anything else through the DDM stream reader (which also takes a bare
 * allocation report); when the reader accepts it, its records are written
 * as NDJSON (A), A is read back into a heap database, the database read
 * back as NDJSON (B), and B once more through a database (C).  Aborts when
 *  - a reader refuses what a writer of this library wrote;
 *  - B does not hold A's records: the same number of each class, less the
 *    duplicate nodes and strings the database keeps once and counts in its
 *    metadata (translate.h);
 *  - C is not byte-identical to B (B is canonical, so it must come back as
 *    it is).
 * Every file lives in one temporary directory per process.
 */
#define _POSIX_C_SOURCE 200809L
#include "heapfmt/heapfmt.h"
#include "heapfmt/translate.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static char path_a[96], path_b[96], path_c[96], path_db[96];

static void remove_dir(void)
{
	unlink(path_a);
	unlink(path_b);
	unlink(path_c);
	unlink(path_db);
	rmdir(dir);
}

static void fail(const char *step, const hf_error *err)
{
	char line[512] = "";
	if (err)
		hf_error_format(err, line, sizeof line);
	fprintf(stderr, "fuzz_roundtrip: %s: %s\n", step, line);
	abort();
}

static void setup(void)
{
	if (dir[0])
		return;
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/hf-roundtrip-XXXXXX", t && strlen(t) < 32 ? t : "/tmp");
	if (!mkdtemp(dir))
		fail("mkdtemp", NULL);
	snprintf(path_a, sizeof path_a, "%s/a.ndjson", dir);
	snprintf(path_b, sizeof path_b, "%s/b.ndjson", dir);
	snprintf(path_c, sizeof path_c, "%s/c.ndjson", dir);
	snprintf(path_db, sizeof path_db, "%s/x.db", dir);
	atexit(remove_dir);
}

/* The whole file at path, NUL-terminated; *n its length. */
static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail("cannot read back an output", NULL);
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)len + 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len)
		fail("cannot read back an output", NULL);
	fclose(f);
	buf[len] = 0;
	*n = (size_t)len;
	return buf;
}

/* The number in the metadata line "key" of an NDJSON text, 0 if absent. */
static uint64_t metadata_count(const char *text, const char *key)
{
	char pat[96];
	snprintf(pat, sizeof pat, "\"key\":\"%s\",\"value\":\"", key);
	const char *p = strstr(text, pat);
	return p ? strtoull(p + strlen(pat), NULL, 10) : 0;
}

/* NDJSON at from -> heap database -> NDJSON at to; stats of both reads. */
static void through_database(const char *from, const char *to, hf_read_stats *in_stats,
                             hf_read_stats *db_stats)
{
	hf_error err;
	hf_input *in;
	hf_sink *db, *out;
	hf_heapdb_options o = { .force = 1, .no_index = 1 };
	if (hf_input_open(&in, from, &err))
		fail("open NDJSON", &err);
	if (hf_heapdb_sink_open(&db, path_db, &o, &err))
		fail("open database", &err);
	hf_ndjson_read_options ro;
	hf_ndjson_read_options_init(&ro);
	hf_status st = hf_ndjson_read(in, db, &ro, in_stats, &err);
	if (!st)
		st = hf_sink_finish(db, &err);
	hf_sink_destroy(db, st == HF_OK);
	hf_input_close(in);
	if (st)
		fail("NDJSON to database", &err);
	if (hf_ndjson_sink_open(&out, to, &err))
		fail("open NDJSON output", &err);
	st = hf_heapdb_read(path_db, out, db_stats, &err);
	if (!st)
		st = hf_sink_finish(out, &err);
	hf_sink_destroy(out, st == HF_OK);
	if (st)
		fail("database to NDJSON", &err);
}

static void same(const char *what, uint64_t a, uint64_t b)
{
	if (a != b) {
		fprintf(stderr, "fuzz_roundtrip: %s: %llu before, %llu after the database\n", what,
		        (unsigned long long)a, (unsigned long long)b);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	hf_input *in;
	hf_sink *sink;
	hf_error err;
	if (hf_input_open_memory(&in, data, size, &err) != HF_OK)
		return 0;
	if (hf_ndjson_sink_open(&sink, path_a, &err))
		fail("open NDJSON output", &err);
	hf_status st;
	if (size >= 4 && !memcmp(data, "JAVA", 4)) {
		hf_hprof_options opt;
		hf_hprof_options_init(&opt);
		opt.crtime = "2000-01-01T00:00:00Z";
		opt.spool_memory = 4096;
		opt.string_cache = 4096;
		opt.string_wait = 2;
		opt.values = size & 1;
		st = hf_hprof_read(in, sink, &opt, NULL, &err);
	} else {
		hf_ddm_options opt;
		hf_ddm_options_init(&opt);
		opt.crtime = "2000-01-01T00:00:00Z";
		opt.max_chunk = 1 << 20;
		st = hf_ddm_read(in, sink, &opt, NULL, &err);
	}
	if (!st)
		st = hf_sink_finish(sink, &err);
	hf_sink_destroy(sink, st == HF_OK);
	hf_input_close(in);
	if (st)
		return 0;

	hf_read_stats a, b_db, b, c_db;
	through_database(path_a, path_b, &a, &b_db);
	through_database(path_b, path_c, &b, &c_db);
	size_t nb, nc;
	char *tb = slurp(path_b, &nb), *tc = slurp(path_c, &nc);
	uint64_t dup_nodes = metadata_count(tb, "heapdb.duplicate_nodes");
	uint64_t dup_strings = metadata_count(tb, "heapdb.duplicate_strings");
	same("metadata", a.metadata + (dup_nodes > 0) + (dup_strings > 0), b_db.metadata);
	same("types", a.types, b_db.types);
	same("strings", a.strings - dup_strings, b_db.strings);
	same("nodes", a.nodes - dup_nodes, b_db.nodes);
	same("edges", a.edges, b_db.edges);
	same("records", a.records, b_db.records);
	same("lines of the canonical NDJSON", b_db.metadata + b_db.types + b_db.strings +
	     b_db.nodes + b_db.edges + b_db.records, b.lines);
	if (nb != nc || memcmp(tb, tc, nb)) {
		fprintf(stderr, "fuzz_roundtrip: canonical NDJSON changed going through a database "
		        "again (%zu and %zu bytes)\n", nb, nc);
		abort();
	}
	free(tb);
	free(tc);
	return 0;
}
