/*
 * hf_directdb (directdb.c): SQLite's database written direct.
 *
 * 1. The VFS's file against a model: thousands of random writes (whole
 *    pages, runs of pages, 4 KiB blocks, unaligned bytes, rewrites of what
 *    the buffers still hold), reads (aligned or not, across buffers and the
 *    file's end), truncations and size queries, every read compared with
 *    the model and the file compared byte for byte after the close.
 * 2. The sample dump converted by the database writer with the switch at
 *    64 KiB: the same database file, byte for byte, as converted without
 *    it; with O_DIRECT refused at the third write (the rest through the
 *    page cache): the same again; with the disk failing the fifth write:
 *    the conversion fails, names the error, and leaves no file.
 */
#define _GNU_SOURCE
#include "../libheapfmt/src/internal.h"
#include "testlib.h"
#include <fcntl.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

#define SPACE ((size_t)12 << 20)   /* the model's bytes */

static void test_model(const char *dir)
{
	const char *name = hf_directdb_vfs();
	if (!name) {
		fprintf(stderr, "test_directdb: no direct VFS on this system, model skipped\n");
		return;
	}
	sqlite3_vfs *vfs = sqlite3_vfs_find(name);
	CHECK(vfs != NULL, "the VFS %s is registered", name);
	if (!vfs)
		return;
	char path[1024];
	snprintf(path, sizeof path, "%s/directdb-model.db", dir);
	unlink(path);
	uint8_t *model = calloc(1, SPACE), *got = malloc(SPACE), *data = malloc((size_t)2 << 20);
	sqlite3_file *f = calloc(1, (size_t)vfs->szOsFile);
	CHECK(model && got && data && f, "memory");
	if (!model || !got || !data || !f) {
		free(model);
		free(got);
		free(data);
		free(f);
		return;
	}
	uint64_t size = 0;
	hf_directdb_test_from = 65536;
	int out = 0;
	int rc = vfs->xOpen(vfs, path, f, SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &out);
	hf_directdb_test_from = 0;
	CHECK(rc == SQLITE_OK && f->pMethods, "open %s: %d", path, rc);
	const sqlite3_io_methods *m = f->pMethods;
	if (rc != SQLITE_OK || !m) {
		free(model);
		free(got);
		free(data);
		free(f);
		return;
	}
	unsigned reads = 0, writes = 0, bad = 0;
	for (int op = 0; op < 20000 && bad < 5; op++) {
		uint64_t r = next() % 100;
		uint64_t off;
		size_t n;
		if (r < 45) {
			/* Writes: mostly whole 64 KiB pages, near the end or over
			 * what was written lately; some longer runs, some blocks,
			 * some unaligned. */
			uint64_t kind = next() % 10;
			if (kind < 6) {
				n = 65536;
				uint64_t pages = size / 65536;
				uint64_t back = next() % 24;
				off = (pages > back ? pages - back : 0) * 65536 + (next() % 3 == 0 ? 65536 : 0);
			} else if (kind < 8) {
				n = (size_t)(1 + next() % 20) * 65536;
				off = (next() % (SPACE / 65536 - 20)) * 65536;
			} else if (kind < 9) {
				/* Blocks: anywhere, or past the end with a hole of up
				 * to two blocks before them. */
				n = (size_t)(1 + next() % 8) * 4096;
				if (next() % 2)
					off = (next() % (SPACE / 4096 - 8)) * 4096;
				else
					off = (size + 4095) / 4096 * 4096 + next() % 3 * 4096;
			} else {
				n = (size_t)(1 + next() % 5000);
				off = next() % (SPACE - n);
			}
			if (off + n > SPACE)
				continue;
			for (size_t i = 0; i < n; i++)
				data[i] = (uint8_t)(next() >> 24);
			rc = m->xWrite(f, data, (int)n, (sqlite3_int64)off);
			CHECK(rc == SQLITE_OK, "write %zu at %llu: %d", n, (unsigned long long)off, rc);
			memcpy(model + off, data, n);
			if (off + n > size)
				size = off + n;
			writes++;
		} else if (r < 90) {
			uint64_t kind = next() % 4;
			if (kind < 2) {
				n = (size_t)(1 + next() % 4) * 65536;
				off = (next() % (SPACE / 65536 - 4)) * 65536;
			} else if (kind < 3) {
				n = 65536;
				off = size >= 65536 ? (size - 65536) / 65536 * 65536 : 0;
			} else {
				n = (size_t)(1 + next() % 70000);
				off = next() % (SPACE - n);
			}
			memset(got, 0xA5, n);
			rc = m->xRead(f, got, (int)n, (sqlite3_int64)off);
			int want = off + n <= size ? SQLITE_OK : SQLITE_IOERR_SHORT_READ;
			if (rc != want || memcmp(got, model + off, n) != 0) {
				bad++;
				CHECK(0, "read %zu at %llu (size %llu): rc %d, expected %d; bytes %s", n,
				      (unsigned long long)off, (unsigned long long)size, rc, want,
				      memcmp(got, model + off, n) ? "differ" : "the same");
			}
			reads++;
		} else if (r < 98) {
			sqlite3_int64 s = -1;
			CHECK(m->xFileSize(f, &s) == SQLITE_OK && (uint64_t)s == size, "size %lld, expected %llu",
			      (long long)s, (unsigned long long)size);
		} else if (r < 99) {
			uint64_t to = size ? next() % size : 0;
			if (next() % 2)
				to &= ~(uint64_t)65535;
			CHECK(m->xTruncate(f, (sqlite3_int64)to) == SQLITE_OK, "truncate to %llu",
			      (unsigned long long)to);
			if (to < size)
				memset(model + to, 0, size - to);
			size = to;
		} else {
			CHECK(m->xSync(f, SQLITE_SYNC_NORMAL) == SQLITE_OK, "sync");
		}
	}
	CHECK(reads > 5000 && writes > 5000, "%u reads, %u writes", reads, writes);
	uint64_t direct = 0;
	hf_directdb_test_bytes = 0;
	CHECK(m->xClose(f) == SQLITE_OK, "close");
	direct = hf_directdb_test_bytes;
	CHECK(direct > (uint64_t)100 << 20, "%llu bytes written direct", (unsigned long long)direct);
	int fd = open(path, O_RDONLY);
	CHECK(fd >= 0, "open %s again", path);
	if (fd >= 0) {
		ssize_t k = pread(fd, got, SPACE, 0);
		CHECK(k == (ssize_t)size, "the file has %zd bytes, expected %llu", k, (unsigned long long)size);
		CHECK(k >= 0 && memcmp(got, model, (size_t)k) == 0, "the file's bytes are the model's");
		close(fd);
	}
	unlink(path);
	free(model);
	free(got);
	free(data);
	free(f);
}

static int convert(const char *sample, const char *path, hf_error *err)
{
	hf_input *in;
	hf_status st = hf_input_open(&in, sample, err);
	if (st)
		return st;
	hf_sink *s = NULL;
	hf_heapdb_options o = { 1, 0, 1, 0 };
	unlink(path);
	st = hf_heapdb_sink_open(&s, path, &o, err);
	hf_directdb_test_from = 0;
	if (!st) {
		hf_hprof_options opt;
		hf_hprof_options_init(&opt);
		opt.crtime = "2026-01-01T00:00:00Z";
		hf_hprof_stats hs;
		st = hf_hprof_read(in, s, &opt, &hs, err);
		if (!st)
			st = hf_sink_finish(s, err);
		hf_sink_destroy(s, st == HF_OK);
	}
	hf_input_close(in);
	return st;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	*n = 0;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	rewind(f);
	uint8_t *p = len > 0 ? malloc((size_t)len) : NULL;
	if (p && fread(p, 1, (size_t)len, f) == (size_t)len)
		*n = (size_t)len;
	fclose(f);
	return p;
}

static void test_sample(const char *sample, const char *dir)
{
	char ref[1024], path[1024];
	snprintf(ref, sizeof ref, "%s/directdb-plain.db", dir);
	snprintf(path, sizeof path, "%s/directdb-direct.db", dir);
	hf_error err;
	hf_directdb_test_from = UINT64_MAX;
	CHECK(convert(sample, ref, &err) == HF_OK, "convert without direct writes: %s", err.message);
	size_t nref = 0;
	uint8_t *want = slurp(ref, &nref);
	CHECK(want && nref > (size_t)4 << 20, "the database has %zu bytes", nref);
	static const struct {
		const char *what;
		unsigned refuse;
	} ways[] = { { "direct", 0 }, { "direct, O_DIRECT refused at the third write", 3 } };
	for (size_t w = 0; w < sizeof ways / sizeof *ways; w++) {
		hf_directdb_test_from = 65536;
		hf_directdb_test_refuse = ways[w].refuse;
		hf_directdb_test_bytes = 0;
		CHECK(convert(sample, path, &err) == HF_OK, "convert %s: %s", ways[w].what, err.message);
		hf_directdb_test_refuse = 0;
		if (hf_directdb_vfs()) {
			if (ways[w].refuse)
				CHECK(hf_directdb_test_bytes > 0 && hf_directdb_test_bytes <= (uint64_t)2 << 20,
				      "%s: %llu bytes written direct, the first two buffers' (at most 2 MiB)", ways[w].what,
				      (unsigned long long)hf_directdb_test_bytes);
			else
				CHECK(hf_directdb_test_bytes > nref / 2, "%s: %llu bytes written direct of %zu",
				      ways[w].what, (unsigned long long)hf_directdb_test_bytes, nref);
		}
		size_t n = 0;
		uint8_t *have = slurp(path, &n);
		CHECK(have && want && n == nref && memcmp(have, want, n) == 0,
		      "%s: the same database, byte for byte (%zu bytes, expected %zu)", ways[w].what, n, nref);
		free(have);
		sqlite3 *db;
		if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
			sqlite3_stmt *q;
			if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &q, NULL) == SQLITE_OK &&
			    sqlite3_step(q) == SQLITE_ROW)
				CHECK_STR((const char *)sqlite3_column_text(q, 0), "ok", ways[w].what);
			sqlite3_finalize(q);
		}
		sqlite3_close(db);
		unlink(path);
	}
	free(want);
	if (hf_directdb_vfs()) {
		/* The disk fails the fifth write and every one after. */
		hf_directdb_test_from = 65536;
		hf_directdb_test_fail = 5;
		hf_status st = convert(sample, path, &err);
		hf_directdb_test_fail = 0;
		CHECK(st != HF_OK, "a failing disk fails the conversion");
		CHECK(st == HF_OK || strstr(err.message, "I/O error") || strstr(err.message, "Input/output error"),
		      "the error says so: %s", err.message);
		CHECK(access(path, F_OK) != 0, "no database is left after the failure");
	}
	unlink(ref);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_directdb SAMPLE.hprof.gz TMPDIR\n");
		return 2;
	}
	sqlite3_initialize();
	test_model(argv[2]);
	test_sample(argv[1], argv[2]);
	return t_done("test_directdb");
}
