/* Unit tests of the library's building blocks (text decoding: test_text.c):
 * the JSON escaper (against jansson), the hash map, the input layer, the V8
 * reader's streaming JSON tokenizer, the NDJSON reader on a line nested
 * deeper than any stack should go, hf_json_check against jansson and the
 * NDJSON reader's path for large values against its path through jansson, the NDJSON writer's queue, and gzip
 * inflated on a second thread against the same on the caller's. */
#define _GNU_SOURCE /* O_DIRECT */
#include "../libheapfmt/src/internal.h"
#include "../libheapfmt/src/ddm_model.h"
#include "../libheapfmt/src/v8_model.h"
#include "heapfmt/translate.h"
#include "heapfmt/v8.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include "testlib.h"
#include <jansson.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <time.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

/* The hand-written JSON escaper must write what jansson writes. */
static void test_json_escape(void)
{
	const char *samples[] = { "", "plain", "quote\" back\\slash", "ctl\x01\x1f\x7f",
	                          "nl\n tab\t cr\r bs\b ff\f", "utf8 \xC3\xA9 \xF0\x9F\x98\x80",
	                          "slash / and \xE2\x80\xA8" };
	for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
		hf_buf b;
		hf_buf_init(&b);
		hf_buf_json_string(&b, samples[i], strlen(samples[i]));
		json_t *j = json_string(samples[i]);
		char *ref = json_dumps(j, JSON_ENCODE_ANY);
		CHECK(ref && b.len == strlen(ref) && !memcmp(b.data, ref, b.len),
		      "escape of sample %zu: %.*s vs %s", i, (int)b.len, (char *)b.data, ref);
		free(ref);
		json_decref(j);
		hf_buf_free(&b);
	}
	/* Embedded NUL: jansson takes it with json_stringn. */
	hf_buf b;
	hf_buf_init(&b);
	hf_buf_json_string(&b, "a\0b", 3);
	json_t *j = json_stringn("a\0b", 3);
	char *ref = json_dumps(j, JSON_ENCODE_ANY);
	CHECK(ref && b.len == strlen(ref) && !memcmp(b.data, ref, b.len), "escape of NUL");
	free(ref);
	json_decref(j);
	hf_buf_free(&b);
	/* Random strings, the characters that need escaping at every place of
	 * the eight-byte words the escaper skips through. */
	uint32_t seed = 12345;
	const char *pieces[] = { "a", "Z", "\"", "\\", "\n", "\x01", "\x1f", " ", "\x7f", "\xC3\xA9",
	                         "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "/" };
	for (int round = 0; round < 20000; round++) {
		char str[256];
		size_t len = 0;
		seed = seed * 1103515245u + 12345u;
		size_t want = (seed >> 16) % 40;
		uint32_t plain = (seed >> 8) & 1; /* half the rounds: mostly plain text */
		while (len < want) {
			seed = seed * 1103515245u + 12345u;
			unsigned k = (seed >> 16) % (plain ? 40 : 13);
			const char *pc = pieces[k < 13 ? k : 0];
			memcpy(str + len, pc, strlen(pc));
			len += strlen(pc);
		}
		hf_buf_init(&b);
		hf_buf_json_string(&b, str, len);
		j = json_stringn(str, len);
		ref = json_dumps(j, JSON_ENCODE_ANY);
		if (!(ref && b.len == strlen(ref) && !memcmp(b.data, ref, b.len))) {
			CHECK(0, "escape of random string %d: %.*s vs %s", round, (int)b.len,
			      (char *)b.data, ref ? ref : "(null)");
			round = 20000;
		}
		free(ref);
		json_decref(j);
		hf_buf_free(&b);
	}
	/* An object key with a NUL, which jansson refuses to read: U+FFFD. */
	hf_buf_init(&b);
	hf_buf_append(&b, "{", 1);
	hf_buf_json_key(&b, "a\0b", 3);
	hf_buf_append(&b, ":1}", 3);
	json_error_t je;
	j = json_loadb((const char *)b.data, b.len, 0, &je);
	CHECK(j && json_object_get(j, "a\xEF\xBF\xBD" "b"), "key with NUL: %.*s", (int)b.len,
	      (char *)b.data);
	json_decref(j);
	hf_buf_free(&b);
}

/* hf_put_u64 (the NDJSON writer's numbers) against printf: every power of
 * ten and its neighbours, every bit length, 2^32 around, and random values. */
static void check_u64(uint64_t v)
{
	char a[32], b[32];
	char *e = hf_put_u64(a, v);
	*e = 0;
	snprintf(b, sizeof b, "%llu", (unsigned long long)v);
	CHECK(!strcmp(a, b), "hf_put_u64(%s) wrote %s", b, a);
}

static void test_put_u64(void)
{
	/* Every number below 100 takes the short path; the next ones not. */
	for (uint64_t v = 0; v < 1000; v++)
		check_u64(v);
	uint64_t p = 1;
	for (int k = 0; k < 20; k++, p *= 10) {
		check_u64(p - 1);
		check_u64(p);
		check_u64(p + 1);
	}
	for (int b = 0; b < 64; b++) {
		check_u64((uint64_t)1 << b);
		check_u64(((uint64_t)1 << b) - 1);
		check_u64(((uint64_t)1 << b) + 1);
	}
	check_u64(UINT64_MAX);
	check_u64(UINT32_MAX);
	check_u64((uint64_t)UINT32_MAX + 1);
	check_u64((uint64_t)UINT32_MAX * 100000000);
	uint64_t x = 0x9E3779B97F4A7C15ull;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		check_u64(x >> (x % 64));
	}
	/* Eight digits at a time (hf_put_digits8): each group of four digits,
	 * in either half of the eight and in a longer number, takes every value
	 * of its lane, the other half random. */
	for (uint64_t k = 0; k < 10000; k++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		check_u64(k * 10000 + x % 10000);
		check_u64(x % 10000 * 10000 + k);
		check_u64(4200000000u + k * 10000 + x % 10000);
		check_u64((x % 100000000) * 100000000 + k * 10000 + x % 10000);
	}
}

/* The values are Python's: datetime.fromtimestamp(ms / 1000, timezone.utc). */
static void test_iso8601_ms(void)
{
	char b[40];
	hf_iso8601_ms(1505478840497u, b); /* ahat_RI.hprof's timestamp */
	CHECK_STR(b, "2017-09-15T12:34:00.497Z", "milliseconds kept");
	hf_iso8601_ms(1700000000000u, b);
	CHECK_STR(b, "2023-11-14T22:13:20Z", "none when they are 0");
	hf_iso8601_ms(1700000000007u, b);
	CHECK_STR(b, "2023-11-14T22:13:20.007Z", "three digits");
	hf_iso8601_ms(0, b);
	CHECK_STR(b, "1970-01-01T00:00:00Z", "the epoch");
	hf_iso8601_ms(UINT64_MAX, b);
	CHECK_STR(b, "", "past any calendar: empty");
}

static void test_map(void)
{
	hf_map m;
	hf_map_init(&m);
	for (uint64_t i = 0; i < 100000; i++)
		hf_map_put(&m, i * 7919, i);
	int ok = 1;
	for (uint64_t i = 0; i < 100000; i++) {
		uint64_t *v = hf_map_get(&m, i * 7919);
		if (!v || *v != i)
			ok = 0;
	}
	CHECK(ok, "map lookups");
	for (uint64_t i = 0; i < 100000; i += 2)
		hf_map_remove(&m, i * 7919);
	ok = 1;
	for (uint64_t i = 0; i < 100000; i++) {
		uint64_t *v = hf_map_get(&m, i * 7919);
		if ((i % 2 == 0) != (v == NULL) || (v && *v != i))
			ok = 0;
	}
	CHECK(ok, "map after removals");
	CHECK_EQ_U(m.count, 50000, "map count");
	CHECK(hf_map_get(&m, 0) == NULL, "key 0 removed");
	CHECK(m.seed == 0, "ordinary keys keep the seed 0 (and the slot order)");
	hf_map_free(&m);
}

/* The inverse of the map's hash (murmur3's finalizer) with seed 0: keys
 * that all hash to multiples of 2^40, one slot in any map of up to 2^40. */
static uint64_t mul_inverse(uint64_t a)
{
	uint64_t x = a; /* Newton: each step doubles the correct low bits */
	for (int i = 0; i < 6; i++)
		x *= 2 - a * x;
	return x;
}

static uint64_t unfmix(uint64_t h)
{
	h ^= h >> 33;
	h *= mul_inverse(0xc4ceb9fe1a85ec53ULL);
	h ^= h >> 33;
	h *= mul_inverse(0xff51afd7ed558ccdULL);
	h ^= h >> 33;
	return h;
}

/* Keys chosen to collide: the map takes a random seed after a few thousand
 * long probes, and the 100,000 insertions take linear time (without the
 * seed, 5 billion probes: minutes, more under the sanitizers). */
static void test_map_collisions(void)
{
	hf_map m;
	hf_map_init(&m);
	const uint64_t n = 100000;
	int ok = 1;
	for (uint64_t i = 1; i <= n; i++)
		ok &= hf_map_put(&m, unfmix(i << 40), i);
	CHECK(ok, "collisions: insertions");
	CHECK(m.seed != 0, "collisions: the map took a seed");
	for (uint64_t i = 1; i <= n; i++) {
		uint64_t *v = hf_map_get(&m, unfmix(i << 40));
		if (!v || *v != i)
			ok = 0;
	}
	CHECK(ok, "collisions: lookups");
	for (uint64_t i = 1; i <= n; i += 2)
		ok &= hf_map_remove(&m, unfmix(i << 40));
	CHECK(ok && m.count == n / 2, "collisions: removals, %zu left", m.count);
	CHECK(m.probes < 8 * m.ops + 4096, "collisions: short probes after the seed (%llu for %llu operations)",
	      (unsigned long long)m.probes, (unsigned long long)m.ops);
	hf_map_free(&m);
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

/* The id directory answers like a binary search over the whole array, for
 * present and absent ids, spread evenly, in clusters, negative and at the
 * ends of the int64 range. */
static void test_id_index(void)
{
	enum { N = 50000 };
	int64_t *ids = malloc(N * sizeof *ids);
	uint64_t x = 88172645463325252ULL;
	for (int shape = 0; shape < 4 && ids; shape++) {
		size_t n = 0;
		for (size_t i = 0; i < N; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
			int64_t v = shape == 0 ? (int64_t)(x % 4000000) * 8
			          : shape == 1 ? (int64_t)((x & 1 ? 0x7f0000000LL : 0x100000LL) + (x >> 40) % 100000 * 16)
			          : shape == 2 ? (int64_t)x
			          : (int64_t)(x % 1000) - 500;
			ids[n++] = v;
		}
		if (shape == 2) {
			ids[0] = INT64_MIN;
			ids[1] = INT64_MAX;
		}
		qsort(ids, n, sizeof *ids, cmp_i64);
		size_t m = 0; /* without repeats, as the node tables give them */
		for (size_t i = 0; i < n; i++)
			if (!m || ids[m - 1] != ids[i])
				ids[m++] = ids[i];
		hf_id_index ix;
		hf_id_index_build(&ix, ids, m);
		int ok = 1;
		for (size_t i = 0; i < m; i++)
			if (hf_id_index_find(&ix, ids[i]) != i)
				ok = 0;
		for (size_t i = 0; i < m; i++) {
			int64_t probe[3] = { (int64_t)((uint64_t)ids[i] - 1), (int64_t)((uint64_t)ids[i] + 1),
			                     ids[i] ^ 4 };
			for (int k = 0; k < 3; k++)
				if (hf_id_index_find(&ix, probe[k]) != hf_find_id(ids, m, probe[k]))
					ok = 0;
		}
		CHECK(ok, "id index, shape %d (%zu ids, %llu buckets)", shape, m,
		      (unsigned long long)ix.nb);
		CHECK(hf_id_index_bytes(&ix) <= m * 2 + 8, "id index: %zu bytes for %zu ids",
		      hf_id_index_bytes(&ix), m);
		hf_id_index_free(&ix);
	}
	free(ids);
}

static size_t gz(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)n;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	deflate(&zs, Z_FINISH);
	size_t r = cap - zs.avail_out;
	deflateEnd(&zs);
	return r;
}

/* Everything read from in (peeks of varying sizes) into out (cap bytes):
 * how many, the final status and error.  With rewind_at, rewinds once after
 * that many bytes and reads from the start again. */
typedef struct drained {
	uint64_t bytes;
	hf_status st;
	hf_error err;
} drained;

static drained drain(hf_input *in, uint64_t rewind_at, uint8_t *out, size_t cap)
{
	drained d;
	memset(&d, 0, sizeof d);
	static const size_t wants[] = { 1, 4096, 100000, 3 << 20, 777 };
	for (size_t k = 0;; k++) {
		if (rewind_at && d.bytes >= rewind_at) {
			rewind_at = 0;
			d.st = hf_input_rewind(in, &d.err);
			if (d.st)
				return d;
			d.bytes = 0;
		}
		const uint8_t *p;
		size_t avail;
		d.st = hf_input_peek(in, wants[k % 5], &p, &avail, &d.err);
		if (d.st || !avail)
			return d;
		size_t t = avail < wants[(k + 2) % 5] ? avail : wants[(k + 2) % 5];
		if (d.bytes + t <= cap)
			memcpy(out + d.bytes, p, t);
		d.bytes += t;
		hf_input_consume(in, t);
	}
}

/* A gzip file is inflated on a second thread, memory input on the caller's:
 * the two must give the same bytes, and the same error at the same offset,
 * whatever the damage. */
static void test_gzip_thread(void)
{
	enum { PLAIN = 6 << 20 };
	uint8_t *plain = malloc(PLAIN), *packed = malloc(PLAIN + (1 << 20));
	char path[] = "/tmp/heapfmt-test-gz-XXXXXX";
	int fd = mkstemp(path);
	CHECK(plain && packed && fd >= 0, "set up");
	if (!plain || !packed || fd < 0) {
		free(plain);
		free(packed);
		return;
	}
	close(fd);
	uint32_t x = 1;
	for (size_t i = 0; i < PLAIN; i++) {
		x = x * 1103515245 + 12345;
		plain[i] = (uint8_t)((x >> 16) % 16 + 'a'); /* compressible, not trivially */
	}
	size_t a = gz(plain, PLAIN / 3, packed, PLAIN + (1 << 20));
	size_t n = a + gz(plain + PLAIN / 3, PLAIN - PLAIN / 3, packed + a, PLAIN + (1 << 20) - a);
	/* intact, cut in the first member, between members, in the second, at
	 * its trailer; a byte flipped in each member; garbage and zero padding
	 * after the end */
	struct { size_t len; size_t flip; uint8_t tail; } cases[] = {
		{ n, 0, 0 }, { a / 2, 0, 0 }, { a, 0, 0 }, { a + (n - a) / 2, 0, 0 }, { n - 3, 0, 0 },
		{ n, a / 3, 0 }, { n, a + (n - a) / 2, 0 }, { n, 0, 'x' }, { n, 0, 0x00 },
	};
	uint8_t *got[3] = { malloc(PLAIN), malloc(PLAIN), malloc(PLAIN) };
	int agree = 0, cases_n = (int)(sizeof cases / sizeof *cases);
	for (int c = 0; c < cases_n && got[0] && got[1] && got[2]; c++) {
		size_t len = cases[c].len + (c >= 7 ? 5 : 0);
		if (cases[c].flip)
			packed[cases[c].flip] ^= 0x5A;
		if (c >= 7)
			memset(packed + n, cases[c].tail, 5);
		FILE *fp = fopen(path, "wb");
		bool wrote = fp && fwrite(packed, 1, len, fp) == len;
		if (fp)
			fclose(fp);
		hf_input *in = NULL;
		hf_error e;
		drained d[3];
		memset(d, 0, sizeof d);
		d[0].st = d[1].st = d[2].st = HF_ERR_IO;
		if (wrote && hf_input_open(&in, path, &e) == HF_OK) {
			d[0] = drain(in, 0, got[0], PLAIN);
			hf_input_close(in);
		}
		if (wrote && hf_input_open(&in, path, &e) == HF_OK) {
			d[1] = drain(in, 5 << 20, got[1], PLAIN); /* rewound while the thread runs */
			hf_input_close(in);
		}
		if (hf_input_open_memory(&in, packed, len, &e) == HF_OK) {
			d[2] = drain(in, 0, got[2], PLAIN);
			hf_input_close(in);
		}
		/* How much comes before a failure depends on how the bytes are
		 * asked for; what comes, the failure, its place and its words do
		 * not. */
		bool same = true;
		for (int k = 0; k < 2; k++) {
			uint64_t common = d[k].bytes < d[2].bytes ? d[k].bytes : d[2].bytes;
			same &= d[k].st == d[2].st && !memcmp(got[k], got[2], common > PLAIN ? PLAIN : common) &&
			        (d[2].st ? d[k].err.offset == d[2].err.offset &&
			                   !strcmp(d[k].err.message, d[2].err.message)
			                 : d[k].bytes == d[2].bytes);
		}
		CHECK(same, "gzip case %d: file %llu bytes %s \"%s\" at %llu, memory %llu bytes %s \"%s\" at %llu",
		      c, (unsigned long long)d[0].bytes, hf_status_name(d[0].st), d[0].st ? d[0].err.message : "",
		      (unsigned long long)d[0].err.offset, (unsigned long long)d[2].bytes,
		      hf_status_name(d[2].st), d[2].st ? d[2].err.message : "",
		      (unsigned long long)d[2].err.offset);
		agree += same;
		if (c == 0)
			CHECK(d[2].bytes == PLAIN && d[2].st == HF_OK && !memcmp(got[2], plain, PLAIN),
			      "intact: the original bytes");
		else if (c == 2)
			CHECK(d[2].bytes == PLAIN / 3 && d[2].st == HF_OK, "the first member alone is whole");
		else if (c == 8)
			CHECK(d[2].bytes == PLAIN && d[2].st == HF_OK, "zero padding after the end is tolerated");
		else
			CHECK(d[2].st != HF_OK, "damage %d is an error", c);
		if (cases[c].flip)
			packed[cases[c].flip] ^= 0x5A;
	}
	for (int k = 0; k < 3; k++)
		free(got[k]);
	CHECK_EQ_U(agree, cases_n, "cases where file and memory input agree");
	unlink(path);
	free(plain);
	free(packed);
}

static void test_input(void)
{
	/* Two gzip members back to back read as one stream (HotSpot -gz). */
	static uint8_t plain[300000], packed[700000];
	for (size_t i = 0; i < sizeof plain; i++)
		plain[i] = (uint8_t)(i * 31 + (i >> 9));
	size_t a = gz(plain, 100000, packed, sizeof packed);
	size_t b = gz(plain + 100000, 200000, packed + a, sizeof packed - a);
	hf_input *in;
	hf_error err;
	CHECK(hf_input_open_memory(&in, packed, a + b, &err) == HF_OK, "open gzip memory");
	CHECK(hf_input_compression(in) == HF_COMPRESSION_GZIP, "gzip detected");
	size_t got = 0;
	int same = 1;
	for (;;) {
		const uint8_t *p;
		size_t avail;
		if (hf_input_peek(in, 4096, &p, &avail, &err) != HF_OK || !avail)
			break;
		size_t t = avail < 777 ? avail : 777;
		if (got + t > sizeof plain || memcmp(p, plain + got, t))
			same = 0;
		got += t;
		hf_input_consume(in, t);
	}
	CHECK(same && got == sizeof plain, "gzip members inflate to the original (%zu bytes)", got);
	hf_input_close(in);

	/* A truncated gzip stream is an error, not a short read. */
	CHECK(hf_input_open_memory(&in, packed, a / 2, &err) == HF_OK, "open truncated gzip");
	hf_status st = HF_OK;
	for (;;) {
		const uint8_t *p;
		size_t avail;
		st = hf_input_peek(in, 4096, &p, &avail, &err);
		if (st != HF_OK || !avail)
			break;
		hf_input_consume(in, avail);
	}
	CHECK(st == HF_ERR_TRUNCATED, "truncated gzip reported (status %d)", st);
	hf_input_close(in);

	/* bzip2 is named. */
	const uint8_t bz[] = "BZh91AY&SY";
	CHECK(hf_input_open_memory(&in, bz, sizeof bz, &err) == HF_ERR_UNSUPPORTED &&
	      strstr(err.message, "bzip2"), "bzip2 refused by name");

	/* Skip across the buffer. */
	CHECK(hf_input_open_memory(&in, plain, sizeof plain, &err) == HF_OK, "open plain");
	uint64_t skipped;
	hf_input_skip(in, 123456, &skipped, &err);
	const uint8_t *p;
	size_t avail;
	hf_input_peek(in, 1, &p, &avail, &err);
	CHECK(skipped == 123456 && avail && p[0] == plain[123456] && hf_input_offset(in) == 123456,
	      "skip");
	hf_input_close(in);
}

/* The V8 reader's NDJSON with a given tokenizer window (0 = default). */
static char *v8_ndjson(const char *snap, size_t window, hf_status *st)
{
	FILE *fp = tmpfile(); /* the NDJSON writer writes to the descriptor */
	hf_input *in;
	hf_sink *sink;
	hf_error err;
	hf_input_open_memory(&in, snap, strlen(snap), &err);
	hf_ndjson_sink_new(&sink, fp, &err);
	hf_v8_options opt;
	hf_v8_options_init(&opt);
	opt.window = window;
	opt.crtime = "2026-01-01T00:00:00Z";
	*st = hf_v8_read(in, sink, &opt, NULL, &err);
	if (!*st)
		*st = hf_sink_finish(sink, &err);
	hf_sink_destroy(sink, *st == HF_OK);
	hf_input_close(in);
	long n = ftell(fp) >= 0 ? (fseek(fp, 0, SEEK_END), ftell(fp)) : 0;
	char *out = calloc(1, (size_t)n + 1);
	rewind(fp);
	if (out && fread(out, 1, (size_t)n, fp) != (size_t)n) {
		free(out);
		out = NULL;
	}
	fclose(fp);
	return out;
}

static void test_v8_tokenizer(void)
{
	/* Every token cut at every place by a refill gives the same records. */
	static const char snap[] =
		"{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\"],"
		"\"node_types\":[[\"synthetic\",\"object\"],\"string\",\"number\",\"number\",\"number\"],"
		"\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],"
		"\"edge_types\":[[\"element\",\"property\"],\"string_or_number\",\"node\"]},"
		"\"node_count\":2,\"edge_count\":2,\"future\":[1.5e3,-0,true,null,{\"k\":\"v\"}]},\n"
		"\"nodes\" : [ 0 , 0 , 1 , 0 , 2 ,\n 1,1,18446744073709551615,123456789012,0 ],"
		"\"edges\":[0,7,5,1,2,5],\"later\":{\"a\":[[[]]],\"b\":\"\\\"x\\\\\"},"
		"\"strings\":[\"\",\"Caf\\u00e9 \\ud83d\\ude00 \\ud800 \\n\\t\\/\",\"\xe4\xb8\xad\xff\"]}\n";
	hf_status st0;
	char *ref = v8_ndjson(snap, 0, &st0);
	CHECK(st0 == HF_OK, "v8 tokenizer: the snapshot reads (status %d)", (int)st0);
	CHECK(ref && strstr(ref, "\"data\":\"Caf\xc3\xa9 \xf0\x9f\x98\x80 \xef\xbf\xbd \\n\\t/\""),
	      "v8 tokenizer: escapes, a surrogate pair, a lone surrogate");
	CHECK(ref && strstr(ref, "\"data\":\"\xe4\xb8\xad\xef\xbf\xbd\""), "v8 tokenizer: a bad byte is U+FFFD");
	CHECK(ref && strstr(ref, "\"identifier\":18446744073709551615"), "v8 tokenizer: a 64-bit id");
	CHECK(ref && strstr(ref, "\"key\":\"v8.extra.later\",\"value\":\"{\\\"a\\\":[[[]]],"),
	      "v8 tokenizer: an unknown key kept as JSON text");
	for (size_t w = 1; w <= 24; w++) {
		hf_status st;
		char *out = v8_ndjson(snap, w, &st);
		CHECK(st == HF_OK && ref && out && !strcmp(out, ref), "v8 tokenizer: window %zu gives the same records", w);
		free(out);
	}
	free(ref);
	/* Numbers the tokenizer refuses. */
	static const char *const bad[] = { "01", "1.", "-", "1e", "--1", ".5", "1e+" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		hf_input *in;
		hf_error err;
		hf_input_open_memory(&in, bad[i], strlen(bad[i]), &err);
		hf_jlex lx;
		hf_jlex_init(&lx, in, 2, 0, &err);
		hf_jtok t;
		hf_status st = hf_jlex_next(&lx, &t);
		if (!st)
			st = hf_jlex_end(&lx);
		CHECK(st == HF_ERR_FORMAT && err.has_offset, "v8 tokenizer: '%s' is not a JSON number", bad[i]);
		hf_jlex_free(&lx);
		hf_input_close(in);
	}
}

/* Nothing in the library recurses on the structure of its input, except
 * jansson parsing an NDJSON line, which stops at JSON_PARSER_MAX_DEPTH: a
 * line of a million brackets is a clean format error, not a stack overflow. */
static void test_ndjson_deep(void)
{
	const size_t depth = 1000000;
	static const char head[] = "{\"record\":\"metadata\",\"key\":\"k\",\"value\":";
	size_t n = sizeof head - 1 + 2 * depth + 2;
	char *line = malloc(n + 1);
	CHECK(line != NULL, "malloc");
	if (!line)
		return;
	memcpy(line, head, sizeof head - 1);
	memset(line + sizeof head - 1, '[', depth);
	memset(line + sizeof head - 1 + depth, ']', depth);
	memcpy(line + n - 2, "}\n", 3);
	hf_input *in = NULL;
	hf_sink *sink = NULL;
	hf_error err;
	FILE *devnull = fopen("/dev/null", "wb");
	CHECK(devnull && hf_input_open_memory(&in, line, n, &err) == HF_OK &&
	      hf_ndjson_sink_new(&sink, devnull, &err) == HF_OK, "open");
	if (!in || !sink) {
		hf_sink_destroy(sink, 0);
		hf_input_close(in);
		if (devnull)
			fclose(devnull);
		free(line);
		return;
	}
	hf_status st = hf_ndjson_read(in, sink, NULL, NULL, &err);
	CHECK(st == HF_ERR_FORMAT && err.has_offset && err.offset == 0,
	      "a million nested arrays: %s, %s", hf_status_name(st), err.message);
	hf_sink_destroy(sink, 0);
	hf_input_close(in);
	fclose(devnull);
	free(line);
}

/* ---- hf_json_check against jansson ------------------------------------------ */

static uint64_t jc_rng = 0x9E3779B97F4A7C15u;
static uint32_t jc_rand(void)
{
	jc_rng ^= jc_rng << 13;
	jc_rng ^= jc_rng >> 7;
	jc_rng ^= jc_rng << 17;
	return (uint32_t)(jc_rng >> 11);
}

/* jansson's verdict as the NDJSON reader asks for it: integers past 2^63-1
 * are tried again as reals. */
static bool jansson_takes(const char *s, size_t n)
{
	/* jansson drops a NUL byte that follows a number or a word ("[1\0]" is
	 * [1] to it); JSON has none, and the NDJSON reader refuses any first. */
	if (memchr(s, 0, n))
		return false;
	json_error_t je;
	json_t *j = json_loadb(s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
	if (!j && json_error_code(&je) == json_error_numeric_overflow)
		j = json_loadb(s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &je);
	json_decref(j);
	return j != NULL;
}

static void jc_ws(hf_buf *b)
{
	static const char w[] = " \t\r\n";
	while (jc_rand() % 4 == 0)
		hf_buf_append(b, &w[jc_rand() % 4], 1);
}

static void jc_string(hf_buf *b)
{
	static const char *const pieces[] = {
		"a", "Z", " ", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0041",
		"\\u00e9", "\\u0000", "\\uD83D\\uDE00", "\\udbff\\udfff", "\\uD800", "\\uDC00",
		"\\uD800\\u0041", "\\uD800x", "\\u12", "\\x", "\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x98\x80",
		"\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80",
		"\x80", "\xff", "\xc3", "\x01", "\x1f", "\x7f", "\t", "\n",
	};
	hf_buf_append(b, "\"", 1);
	int n = (int)(jc_rand() % 6);
	for (int i = 0; i < n; i++) {
		/* mostly valid pieces */
		const char *p = pieces[jc_rand() % 4 ? jc_rand() % 15 : jc_rand() % (sizeof pieces / sizeof *pieces)];
		hf_buf_append(b, p, strlen(p));
	}
	hf_buf_append(b, "\"", 1);
}

static void jc_number(hf_buf *b)
{
	static const char *const nums[] = {
		"0", "-0", "1", "-1", "12", "0.5", "-0.25", "1e5", "1E+5", "1e-5", "2.5e308", "1.7976931348623157e308",
		"1.7976931348623159e308", "-1e309", "1e-400", "9223372036854775807", "9223372036854775808",
		"-9223372036854775809", "18446744073709551615", "01", "-", "1.", ".5", "1e", "1e+", "+1",
		"0x10", "1.5e3.2", "00", "-01", "0e0", "1e0000000000000000000000400", "NaN", "Infinity",
	};
	if (jc_rand() % 8 == 0) {
		/* 300 to 320 digits: around where a double ends */
		int digits = 300 + (int)(jc_rand() % 21);
		if (jc_rand() % 2)
			hf_buf_append(b, "-", 1);
		hf_buf_append(b, jc_rand() % 2 ? "1" : "2", 1);
		for (int i = 1; i < digits; i++)
			hf_buf_append(b, "0", 1);
		if (jc_rand() % 2)
			hf_buf_append(b, ".5", 2);
		return;
	}
	const char *p = nums[jc_rand() % 4 ? jc_rand() % 19 : jc_rand() % (sizeof nums / sizeof *nums)];
	hf_buf_append(b, p, strlen(p));
}

static void jc_value(hf_buf *b, int depth)
{
	unsigned k = jc_rand() % 10;
	if (depth > 6 && k >= 7)
		k = jc_rand() % 7;
	switch (k) {
	case 0: case 1: jc_string(b); break;
	case 2: case 3: jc_number(b); break;
	case 4: hf_buf_append(b, "true", 4); break;
	case 5: hf_buf_append(b, "null", 4); break;
	case 6: {
		bool whole = jc_rand() % 8 != 0;
		hf_buf_append(b, whole ? "false" : "nul", whole ? 5 : 3);
		break;
	}
	case 7: case 8: {
		hf_buf_append(b, "[", 1);
		int n = (int)(jc_rand() % 5);
		for (int i = 0; i < n; i++) {
			jc_ws(b);
			if (i)
				hf_buf_append(b, ",", 1), jc_ws(b);
			jc_value(b, depth + 1);
		}
		jc_ws(b);
		hf_buf_append(b, "]", 1);
		break;
	}
	default: {
		hf_buf_append(b, "{", 1);
		int n = (int)(jc_rand() % 4);
		for (int i = 0; i < n; i++) {
			jc_ws(b);
			if (i)
				hf_buf_append(b, ",", 1), jc_ws(b);
			jc_string(b);
			jc_ws(b);
			hf_buf_append(b, ":", 1);
			jc_ws(b);
			jc_value(b, depth + 1);
		}
		jc_ws(b);
		hf_buf_append(b, "}", 1);
		break;
	}
	}
}

static void jc_compare(const char *s, size_t n, unsigned long *taken, unsigned long *refused)
{
	bool mine = hf_json_check(s, n, 1, NULL), theirs = jansson_takes(s, n);
	if (mine != theirs) {
		char hex[3 * 64 + 1] = "";
		for (size_t i = 0; i < n && i < 64; i++)
			snprintf(hex + 3 * i, 4, " %02x", (unsigned char)s[i]);
		CHECK(mine == theirs, "hf_json_check says %s, jansson %s: %zu bytes:%s", mine ? "valid" : "invalid",
		      theirs ? "valid" : "invalid", n, hex);
	}
	if (theirs)
		++*taken;
	else
		++*refused;
}

static void test_json_check(void)
{
	unsigned long taken = 0, refused = 0;
	static const char *const fixed[] = {
		"", " ", "[", "]", "{}", "[]", " [ ] ", "{\"a\":1}", "{\"a\" : [1,2,{\"b\":null}]}",
		"{\"a\":1,}", "[1,]", "[,1]", "{\"a\"}", "{a:1}", "{\"\\u0000\":1}", "[\"\\u0000\"]",
		"{\"a\":1}{}", "[1] x", "truex", "nullnull", "[true,false,null]", "\"\xed\x9f\xbf\"",
		"\"\xef\xbf\xbf\"", "\"\xf4\x8f\xbf\xbf\"", "[1\x00]", "\"a\x00\"", "[1]\n", "\xef\xbb\xbf[]",
	};
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		jc_compare(fixed[i], strlen(fixed[i]), &taken, &refused);
	jc_compare("[1\0]", 4, &taken, &refused);
	/* Depth: jansson takes 2048 levels, counting the innermost scalar. */
	hf_buf d;
	hf_buf_init(&d);
	for (int levels = 2046; levels <= 2050; levels++) {
		for (int scalar = 0; scalar < 2; scalar++) {
			hf_buf_reset(&d);
			for (int i = 0; i < levels; i++)
				hf_buf_append(&d, i % 3 == 2 ? "{\"k\":" : "[", i % 3 == 2 ? 5 : 1);
			if (scalar)
				hf_buf_append(&d, "7", 1);
			for (int i = levels - 1; i >= 0; i--)
				hf_buf_append(&d, i % 3 == 2 ? "}" : "]", 1);
			if (!scalar && (levels - 1) % 3 == 2)
				continue; /* {"k":} is not JSON anyway */
			jc_compare((const char *)d.data, d.len, &taken, &refused);
		}
	}
	/* As a member of a line's object (depth 2), as the NDJSON reader asks. */
	hf_buf_reset(&d);
	for (int i = 0; i < 2047; i++)
		hf_buf_append(&d, "[", 1);
	for (int i = 0; i < 2047; i++)
		hf_buf_append(&d, "]", 1);
	CHECK(hf_json_check((const char *)d.data, d.len, 2, NULL), "2047 levels at depth 2");
	CHECK(!hf_json_check((const char *)d.data, d.len, 3, NULL), "2047 levels at depth 3");
	/* Why: the depth, at the bracket past it; a syntax error is not one. */
	bool deep = false;
	size_t at = 0;
	CHECK(!hf_json_check_why((const char *)d.data, d.len, 3, &at, &deep) && deep && at == 2046,
	      "2047 levels at depth 3: too deep at byte 2046 (%s at %zu)", deep ? "too deep" : "invalid", at);
	CHECK(!hf_json_check_why("[1,]", 4, 1, &at, &deep) && !deep && at == 3,
	      "[1,] invalid at byte 3, not too deep (%s at %zu)", deep ? "too deep" : "invalid", at);
	CHECK(hf_json_check_why((const char *)d.data, d.len, 2, NULL, &deep) && !deep, "2047 levels at depth 2: fine");
	/* Generated values, then the same with a byte changed, dropped or added. */
	hf_buf b;
	hf_buf_init(&b);
	static const char bytes[] = "{}[],:\"\\0123456789-+.eEtrufalsn \t\n\x80\xc3\xff\x00";
	for (int round = 0; round < 60000; round++) {
		hf_buf_reset(&b);
		jc_ws(&b);
		jc_value(&b, 0);
		jc_ws(&b);
		jc_compare((const char *)b.data, b.len, &taken, &refused);
		for (int m = 0; m < 3 && b.len; m++) {
			size_t at = jc_rand() % b.len;
			unsigned op = jc_rand() % 3;
			char c = bytes[jc_rand() % (sizeof bytes - 1)];
			if (op == 0)
				b.data[at] = (uint8_t)c;
			else if (op == 1)
				memmove(b.data + at, b.data + at + 1, b.len - at - 1), b.len--;
			else if (hf_buf_append(&b, "", 1) || 1) {
				memmove(b.data + at + 1, b.data + at, b.len - at - 1);
				b.data[at] = (uint8_t)c;
			}
			jc_compare((const char *)b.data, b.len, &taken, &refused);
		}
	}
	CHECK(taken > 20000 && refused > 20000, "both verdicts seen often: %lu valid, %lu invalid", taken, refused);
	hf_buf_free(&b);
	hf_buf_free(&d);
}

/* The NDJSON reader's path for lines with large arrays and objects (checked
 * by hf_json_check, left out of jansson's parse) gives the same records, and
 * refuses the same lines, as the path through jansson alone. */
static hf_status jc_convert(const char *text, size_t n, size_t big, char **out, size_t *outlen, hf_error *err)
{
	hf_ndjson_test_big_value = big;
	hf_input *in = NULL;
	hf_sink *sink = NULL;
	FILE *fp = tmpfile(); /* (the writer writes to the descriptor: no memory stream) */
	hf_status st = HF_ERR_IO;
	if (fp && (st = hf_input_open_memory(&in, text, n, err)) == HF_OK &&
	    (st = hf_ndjson_sink_new(&sink, fp, err)) == HF_OK)
		st = hf_ndjson_read(in, sink, NULL, NULL, err);
	if (sink) {
		hf_status fs = st ? st : hf_sink_finish(sink, err);
		hf_sink_destroy(sink, fs == HF_OK);
		st = fs;
	}
	hf_input_close(in);
	*out = NULL;
	*outlen = 0;
	if (fp) {
		long size = (fseek(fp, 0, SEEK_END), ftell(fp));
		rewind(fp);
		if (size > 0 && (*out = calloc(1, (size_t)size + 1)) &&
		    fread(*out, 1, (size_t)size, fp) == (size_t)size)
			*outlen = (size_t)size;
		fclose(fp);
	}
	hf_ndjson_test_big_value = 0;
	return st;
}

static void test_ndjson_big_values(void)
{
	static const char head[] =
		"{\"record\":\"node_type\",\"subtype\":41,\"name\":\"thing\",\"table\":\"node_thing\","
		"\"fields\":[{\"name\":\"shape\",\"type\":\"json\"},{\"name\":\"tag\",\"type\":\"text\"}]}\n";
	static const char *const good[] = {
		"{\"record\":\"node\",\"identifier\":1,\"subtype\":41,\"dump\":0,\"class\":0,\"size\":0,\"heap\":0,\"shape\":[1, 2,\t3 ,{\"a\" :[\"\\u00e9\\\"]\"]}]}",
		"{\"record\":\"node\",\"identifier\":2,\"subtype\":41,\"dump\":0,\"class\":0,\"size\":0,\"heap\":0,\"shape\":{\"x\":[[[]]],\"y\":-1.5e3},\"tag\":\"[t]\"}",
		"{ \"shape\" : [ ] , \"record\":\"node\",\"identifier\":18446744073709551615,\"subtype\":41,\"dump\":0,\"class\":0,\"size\":0,\"heap\":0 }",
		"{\"record\":\"node\",\"identifier\":4,\"subtype\":41,\"dump\":0,\"class\":0,\"size\":0,\"heap\":0,\"shape\":[9223372036854775808,\"}\"]}",
		"{\"record\":\"node\",\"identifier\":5,\"subtype\":41,\"dump\":0,\"class\":0,\"size\":0,\"heap\":0,\"shape\":\"plain string\"}",
	};
	static const char *const bad[] = {
		"{\"record\":\"node\",\"identifier\":6,\"subtype\":41,\"dump\":0,\"class\":0,\"size\":0,\"heap\":0,\"shape\":[1,2,]}",
		"{\"record\":\"node\",\"identifier\":7,\"subtype\":41,\"dump\":0,\"class\":0,\"size\":0,\"heap\":0,\"shape\":[1e999]}",
		"{\"record\":\"node\",\"identifier\":8,\"subtype\":41,\"dump\":0,\"class\":0,\"size\":0,\"heap\":0,\"shape\":{\"\\u0000\":1}}",
		"{\"record\":\"node\",\"identifier\":9,\"subtype\":41,\"dump\":0,\"class\":0,\"size\":0,\"heap\":0,\"shape\":[\"\xc0\x80\"]}",
		"{\"record\":\"node\",\"identifier\":10,\"subtype\":41,\"dump\":0,\"class\":0,\"size\":0,\"heap\":0,\"tag\":[\"not text\"]}",
		"{\"record\":\"node\",\"identifier\":11,\"subtype\":41,\"dump\":0,\"class\":0,\"size\":0,\"heap\":0,\"shape\":[1] ,}",
		"{\"record\":\"node\",\"identifier\":12,\"subtype\":41,\"dump\":0,\"class\":0,\"size\":0,\"heap\":0,\"shape\":[1]]}",
		"{\"record\":\"node\",\"identifier\":13,\"subtype\":41,\"dump\":0,\"class\":0,\"size\":0,\"heap\":0,\"shape\":[\"\\uD800\"]}",
		"{\"record\":\"node\",\"identifier\":14,\"subtype\":41,\"dump\":0,\"class\":0,\"size\":0,\"heap\":0,\"shape\":[1],\"x\":01}",
	};
	hf_buf all;
	hf_buf_init(&all);
	hf_buf_append(&all, head, sizeof head - 1);
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		hf_buf_append(&all, good[i], strlen(good[i]));
		hf_buf_append(&all, "\n", 1);
	}
	char *a = NULL, *b = NULL;
	size_t al = 0, bl = 0;
	hf_error err;
	hf_status sa = jc_convert((const char *)all.data, all.len, 0, &a, &al, &err);
	hf_status sb = jc_convert((const char *)all.data, all.len, 4, &b, &bl, &err);
	CHECK(sa == HF_OK && sb == HF_OK && al == bl && al > 0 && !memcmp(a, b, al),
	      "the same records by both paths: %s/%s, %zu/%zu bytes (%s)", hf_status_name(sa), hf_status_name(sb), al, bl, err.message);
	CHECK(a && strstr(a, "\"shape\":[1, 2,\t3 ,{\"a\" :[\"\\u00e9\\\"]\"]}]"), "json field kept as written");
	free(a);
	free(b);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		hf_buf one;
		hf_buf_init(&one);
		hf_buf_append(&one, head, sizeof head - 1);
		hf_buf_append(&one, bad[i], strlen(bad[i]));
		hf_buf_append(&one, "\n", 1);
		a = b = NULL;
		sa = jc_convert((const char *)one.data, one.len, 0, &a, &al, &err);
		char msg_a[sizeof err.message];
		snprintf(msg_a, sizeof msg_a, "%s", err.message);
		sb = jc_convert((const char *)one.data, one.len, 4, &b, &bl, &err);
		CHECK(sa == HF_ERR_FORMAT && sb == HF_ERR_FORMAT && err.has_offset &&
		      err.offset == sizeof head - 1,
		      "bad line %zu refused by both paths: %s (%s) / %s (%s)", i, hf_status_name(sa), msg_a,
		      hf_status_name(sb), err.message);
		free(a);
		free(b);
		hf_buf_free(&one);
	}
	hf_buf_free(&all);
}

/* The NDJSON writer queues records for a second thread to format: the lines
 * must come out in call order, with each record's type as it was at the
 * call, even when the caller rebuilds a type in place (same address, other
 * fields) or a type is first met after the thread has started. */
static void test_ndjson_queue(void)
{
	FILE *fp = tmpfile();
	hf_sink *sink = NULL;
	hf_error err;
	CHECK(fp && hf_ndjson_sink_new(&sink, fp, &err) == HF_OK, "open");
	if (!sink) {
		if (fp)
			fclose(fp);
		return;
	}
	static const hf_field fa[] = { { "a", HF_FIELD_INT, NULL, 0 } };
	/* Values of every kind: a key longer than the writer copies at a fixed
	 * size, a text and a JSON value present without text, a real. */
	static const hf_field fb[] = { { "b", HF_FIELD_TEXT, NULL, 0 }, { "c\"", HF_FIELD_ID, NULL, 0 },
	                               { "a_field_name_longer_than_thirty_two_bytes", HF_FIELD_INT, NULL, 0 },
	                               { "none", HF_FIELD_TEXT, NULL, 0 }, { "nojson", HF_FIELD_JSON, NULL, 0 },
	                               { "r", HF_FIELD_REAL, NULL, 0 } };
	static const hf_type edge_t = { HF_TYPE_EDGE, 7, "ref", NULL, NULL, 0, "none", NULL };
	hf_type t = { HF_TYPE_NODE, 1, "one", NULL, fa, 1, NULL, NULL };
	hf_value va[1] = { { .i = -5, .present = 1 } };
	hf_node n = { &t, 1, 0, 9, 16, 0, va };
	hf_status st = hf_sink_node(sink, &n, &err);
	/* The same hf_type, rebuilt with other fields. */
	char text[] = "x\ny";
	t = (hf_type){ HF_TYPE_NODE, 2, "two", NULL, fb, 6, NULL, NULL };
	hf_value vb[6] = { { .s = text, .n = 3, .present = 1 }, { .u = 42, .present = 1 }, { .i = -7, .present = 1 },
	                   { .present = 1 }, { .present = 1 }, { .d = 1.5, .present = 1 } };
	n.id = 2;
	n.values = vb;
	if (!st)
		st = hf_sink_node(sink, &n, &err);
	text[0] = 'Z'; /* the queue holds a copy */
	/* A field of no known kind is left out; a string larger than a queue
	 * block is written in its place among the lines. */
	hf_field fc[2] = { { "a", HF_FIELD_INT, NULL, 0 }, { "odd", (hf_field_kind)99, NULL, 0 } };
	t = (hf_type){ HF_TYPE_NODE, 3, "three", NULL, fc, 2, NULL, NULL };
	hf_value vc[2] = { { .i = -5, .present = 1 }, { .i = 1, .present = 1 } };
	n.id = 3;
	n.values = vc;
	if (!st)
		st = hf_sink_node(sink, &n, &err);
	enum { BIG = 3 << 20 };
	char *big = malloc(BIG);
	if (big)
		memset(big, 'q', BIG);
	if (!st)
		st = big ? hf_sink_string(sink, 77, big, BIG, &err) : HF_ERR_NOMEM;
	free(big);
	n.id = 4;
	if (!st)
		st = hf_sink_node(sink, &n, &err);
	/* A node larger than a queue block: formatted in its place, its text
	 * taken where the caller has it. */
	static const hf_field fd[] = { { "big", HF_FIELD_TEXT, NULL, 0 }, { "j", HF_FIELD_JSON, NULL, 0 } };
	hf_type td = { HF_TYPE_NODE, 4, "four", NULL, fd, 2, NULL, NULL };
	char *bigtext = malloc(2 << 20);
	if (bigtext)
		memset(bigtext, 'q', 2 << 20);
	hf_value vd[2] = { { .s = bigtext, .n = 2 << 20, .present = 1 }, { .s = "[1]", .n = 3, .present = 1 } };
	hf_node nd = { &td, 5, 0, 9, 16, 0, vd };
	if (!st)
		st = bigtext ? hf_sink_node(sink, &nd, &err) : HF_ERR_NOMEM;
	free(bigtext);
	/* Enough edges for several hand-offs to the thread, then a record type
	 * first met while it runs, then metadata (written by the caller). */
	enum { EDGES = 100000 };
	for (uint64_t i = 0; i < EDGES && !st; i++) {
		hf_edge e = { &edge_t, 3, 1000 + i, i, 0 };
		st = hf_sink_edge(sink, &e, &err);
	}
	/* Types first met while the thread formats, past the room of the copies
	 * (they move when it grows): late0 ... late39, each between edges. */
	static char names[40][16];
	for (int j = 0; j < 40 && !st; j++) {
		char *name = names[j];
		hf_type *late = calloc(1, sizeof *late);
		if (!late) {
			st = HF_ERR_NOMEM;
			break;
		}
		snprintf(name, sizeof names[j], "late%d", j);
		*late = (hf_type){ HF_TYPE_RECORD, 0, name, NULL, fa, 1, NULL, NULL };
		hf_record rec = { late, va };
		/* Not declared (the NDJSON writer does not need it): copied while
		 * the thread may be formatting. */
		st = hf_sink_record(sink, &rec, &err);
		free(late);
		/* Another address, same content: shares the copy (and a type at
		 * the same address as in the last round, with another name). */
		hf_type again = { HF_TYPE_RECORD, 0, name, NULL, fa, 1, NULL, NULL };
		rec.type = &again;
		if (!st)
			st = hf_sink_record(sink, &rec, &err);
		for (uint64_t i = 0; i < 2000 && !st; i++) {
			hf_edge e = { &edge_t, 4, 1, i, 0 };
			st = hf_sink_edge(sink, &e, &err);
		}
	}
	if (!st)
		st = hf_sink_metadata(sink, "k", "v", &err);
	if (!st)
		st = hf_sink_finish(sink, &err);
	CHECK(st == HF_OK, "write: %s", err.message);
	hf_sink_destroy(sink, st == HF_OK);
	rewind(fp);
	static char line[(3 << 20) + 256];
	static const char *const head[] = {
		"{\"record\":\"node\",\"identifier\":1,\"subtype\":1,\"dump\":0,\"class\":9,\"size\":16,\"heap\":0,\"a\":-5}\n",
		("{\"record\":\"node\",\"identifier\":2,\"subtype\":2,\"dump\":0,\"class\":9,\"size\":16,\"heap\":0,"
		 "\"b\":\"x\\ny\",\"c\\\"\":42,\"a_field_name_longer_than_thirty_two_bytes\":-7,\"none\":\"\","
		 "\"nojson\":null,\"r\":1.5}\n"),
		"{\"record\":\"node\",\"identifier\":3,\"subtype\":3,\"dump\":0,\"class\":9,\"size\":16,\"heap\":0,\"a\":-5}\n",
		"{\"record\":\"string\",\"id\":77,\"data\":\"qqqq",
		"{\"record\":\"node\",\"identifier\":4,\"subtype\":3,\"dump\":0,\"class\":9,\"size\":16,\"heap\":0,\"a\":-5}\n",
		"{\"record\":\"node\",\"identifier\":5,\"subtype\":4,\"dump\":0,\"class\":9,\"size\":16,\"heap\":0,\"big\":\"qqqq",
	};
	enum { HEAD = sizeof head / sizeof *head };
	size_t k = 0, edges = 0, bad_edges = 0;
	bool tail_ok = true;
	while (fgets(line, sizeof line, fp)) {
		if (k == 3) {
			size_t len = strlen(line);
			CHECK(len == 35 + BIG + 3 && !strncmp(line, head[k], strlen(head[k])) &&
			      !strcmp(line + len - 6, "qqq\"}\n"), "the 3 MiB string's line (%zu bytes)", len);
		} else if (k == 5) {
			size_t len = strlen(line);
			static const char tail[] = "qqq\",\"j\":[1]}\n";
			CHECK(len == strlen(head[k]) - 4 + (2 << 20) + sizeof tail - 4 && !strncmp(line, head[k], strlen(head[k])) &&
			      !strcmp(line + len - (sizeof tail - 1), tail), "the 2 MiB node's line (%zu bytes)", len);
		} else if (k < HEAD) {
			CHECK_STR(line, head[k], "node line");
		} else if (k < HEAD + EDGES) {
			char want[128];
			size_t i = k - HEAD;
			snprintf(want, sizeof want,
			         "{\"record\":\"edge\",\"subtype\":7,\"source\":3,\"dest\":%zu,\"label\":%zu,\"dump\":0}\n",
			         1000 + i, i);
			edges++;
			bad_edges += strcmp(line, want) != 0;
		} else if (k < HEAD + EDGES + 40 * 2002) {
			size_t j = (k - HEAD - EDGES) / 2002, at = (k - HEAD - EDGES) % 2002;
			char want[160];
			if (at < 2)
				snprintf(want, sizeof want, "{\"record\":\"late%zu\",\"a\":-5}\n", j);
			else
				snprintf(want, sizeof want,
				         "{\"record\":\"edge\",\"subtype\":7,\"source\":4,\"dest\":1,\"label\":%zu,\"dump\":0}\n",
				         at - 2);
			tail_ok &= !strcmp(line, want);
		} else {
			tail_ok &= !strcmp(line, "{\"record\":\"metadata\",\"key\":\"k\",\"value\":\"v\"}\n");
		}
		k++;
	}
	CHECK_EQ_U(k, HEAD + 1 + EDGES + 40 * 2002, "lines");
	CHECK_EQ_U(edges, EDGES, "edge lines");
	CHECK_EQ_U(bad_edges, 0, "edge lines out of order or wrong");
	CHECK(tail_ok, "the record and metadata lines after the edges");
	fclose(fp);
}

/* Strings handed to the NDJSON writer undecoded (hf_sink_string_encoded,
 * decoded on its formatting thread) come out byte for byte as the same texts
 * decoded by the caller and given to hf_sink_string: random UTF-16 of both
 * orders (surrogate pairs, lone surrogates, controls that JSON escapes) and
 * Latin-1, one of each larger than a queue block, the caller's bytes
 * overwritten after each call); and any other sink gets the decoded text
 * through hf_sink_string_encoded. */
typedef struct text_capture {
	hf_buf all;
	uint64_t strings;
} text_capture;

static hf_status cap_string(hf_sink *s, uint64_t id, const char *utf8, size_t len, hf_error *err)
{
	text_capture *c = s->impl;
	(void)err;
	c->strings++;
	hf_buf_printf(&c->all, "%llu:", (unsigned long long)id);
	hf_buf_append(&c->all, utf8, len);
	hf_buf_append(&c->all, "\n", 1);
	return HF_OK;
}

static char *slurp_fp(FILE *fp, size_t *n)
{
	fflush(fp);
	long size = ftell(fp);
	char *p = malloc(size > 0 ? (size_t)size : 1);
	rewind(fp);
	*n = p && size > 0 ? fread(p, 1, (size_t)size, fp) : 0;
	return p;
}

/* Finishes (if st is HF_OK) and destroys sinks a and b, which write fa and
 * fb, and reads both files back into *pa and *pb (to free) before closing
 * them. */
static void finish_pair(hf_sink *a, hf_sink *b, hf_status st, hf_error *err, FILE *fa, FILE *fb, char **pa,
                        size_t *na, char **pb, size_t *nb)
{
	if (!st)
		st = hf_sink_finish(a, err);
	if (!st)
		st = hf_sink_finish(b, err);
	CHECK(st == HF_OK, "write: %s", err->message);
	hf_sink_destroy(a, st == HF_OK);
	hf_sink_destroy(b, st == HF_OK);
	*pa = fa ? slurp_fp(fa, na) : NULL;
	*pb = fb ? slurp_fp(fb, nb) : NULL;
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
}

static void test_ndjson_encoded(void)
{
	/* Some 6 MB of texts: the formatting thread takes many blocks; texts 201,
	 * 202 and 203, one of each encoding, are each larger than a block. */
	enum { TEXTS = 20000, BIG_UNITS = 1200000 };
	static const hf_text_encoding encs[] = { HF_TEXT_UTF16BE, HF_TEXT_UTF16LE, HF_TEXT_LATIN1 };
	FILE *fa = tmpfile(), *fb = tmpfile();
	hf_sink *a = NULL, *b = NULL;
	hf_error err;
	CHECK(fa && fb && hf_ndjson_sink_new(&a, fa, &err) == HF_OK && hf_ndjson_sink_new(&b, fb, &err) == HF_OK,
	      "open two NDJSON sinks");
	uint8_t *data = malloc(2 * (size_t)BIG_UNITS);
	char *utf8 = malloc(HF_TEXT_OUT_MAX((size_t)BIG_UNITS));
	static const hf_sink_ops cap_ops = { NULL, NULL, cap_string, NULL, NULL, NULL, NULL, NULL };
	text_capture cap = { { 0 }, 0 }, want = { { 0 }, 0 };
	hf_sink capsink = { .ops = &cap_ops, .impl = &cap };
	hf_sink wantsink = { .ops = &cap_ops, .impl = &want };
	hf_status st = a && b && data && utf8 ? HF_OK : HF_ERR_NOMEM;
	srand(7);
	for (int i = 0; i < TEXTS && !st; i++) {
		hf_text_encoding enc = encs[i % 3];
		size_t units = i >= 201 && i <= 203 ? BIG_UNITS : (size_t)(rand() % 300);
		size_t bytes = enc == HF_TEXT_LATIN1 ? units : 2 * units;
		for (size_t k = 0; k < bytes; k++) {
			int r = rand() % 16;
			/* Mostly ASCII; then controls, Latin-1, surrogates (0xD8-0xDF in a
			 * unit's high byte), anything. */
			data[k] = (uint8_t)(r < 9 ? 'a' + r : r < 11 ? rand() % 32 : r < 13 ? 0xD8 + rand() % 8
			                   : r < 14 ? '"' : rand() % 256);
		}
		size_t n = hf_text_decode(enc, data, units, utf8);
		st = hf_sink_string_encoded(a, 1000 + (uint64_t)i, enc, data, units, &err);
		if (!st)
			st = hf_sink_string(b, 1000 + (uint64_t)i, utf8, n, &err);
		if (!st)
			st = hf_sink_string_encoded(&capsink, 1000 + (uint64_t)i, enc, data, units, &err);
		if (!st)
			st = hf_sink_string(&wantsink, 1000 + (uint64_t)i, utf8, n, &err);
		memset(data, 0xEE, bytes); /* the writer must have kept a copy */
	}
	size_t na = 0, nb = 0;
	char *pa = NULL, *pb = NULL;
	finish_pair(a, b, st, &err, fa, fb, &pa, &na, &pb, &nb);
	CHECK(pa && pb && na == nb && na > 3 * (size_t)BIG_UNITS && !memcmp(pa, pb, na),
	      "the same NDJSON either way (%zu and %zu bytes)", na, nb);
	CHECK_EQ_U(cap.strings, TEXTS, "strings through the fallback");
	CHECK(cap.all.len == want.all.len && (!cap.all.len || !memcmp(cap.all.data, want.all.data, cap.all.len)),
	      "the fallback decodes as the caller would");
	free(pa);
	free(pb);
	free(data);
	free(utf8);
	hf_buf_free(&cap.all);
	hf_buf_free(&want.all);
}

/* Edges handed over in lots (hf_sink_edges, the HPROF reader's per-object
 * batches) come out as the same lines as one hf_sink_edge each: lots of 0,
 * 1, 63-65 and more edges than a queue block holds, two types alternating,
 * nodes between, the caller's arrays overwritten after each call; and any
 * other sink gets them one by one, in order, counted. */
typedef struct edge_capture {
	hf_buf all;
} edge_capture;

static hf_status cap_edge(hf_sink *s, const hf_edge *e, hf_error *err)
{
	edge_capture *c = s->impl;
	(void)err;
	hf_buf_printf(&c->all, "%s %llu %llu %llu %u\n", e->type->name, (unsigned long long)e->source,
	              (unsigned long long)e->dest, (unsigned long long)e->label, e->dump);
	return HF_OK;
}

static void test_ndjson_edges(void)
{
	static const size_t lots[] = { 0, 1, 63, 64, 65, 2, 40000, 7, 65534, 65535, 1, 65536 };
	enum { NLOTS = sizeof lots / sizeof lots[0] };
	static const hf_type field = { HF_TYPE_EDGE, 1, "instance_field", NULL, NULL, 0, "string", NULL };
	static const hf_type element = { HF_TYPE_EDGE, 3, "array_element", NULL, NULL, 0, "index", NULL };
	static const hf_type node_type = { HF_TYPE_NODE, 2, "instance", NULL, NULL, 0, NULL, NULL };
	FILE *fa = tmpfile(), *fb = tmpfile();
	hf_sink *a = NULL, *b = NULL;
	hf_error err;
	CHECK(fa && fb && hf_ndjson_sink_new(&a, fa, &err) == HF_OK && hf_ndjson_sink_new(&b, fb, &err) == HF_OK,
	      "open two NDJSON sinks");
	static const hf_sink_ops cap_ops = { NULL, NULL, NULL, NULL, cap_edge, NULL, NULL, NULL };
	edge_capture cap = { { 0 } }, want = { { 0 } };
	hf_sink capsink = { .ops = &cap_ops, .impl = &cap };
	hf_sink wantsink = { .ops = &cap_ops, .impl = &want };
	hf_edge_to *to = malloc(65536 * sizeof *to);
	hf_status st = a && b && to ? HF_OK : HF_ERR_NOMEM;
	size_t total = 0;
	for (size_t l = 0; l < NLOTS && !st; l++) {
		const hf_type *t = l % 2 ? &element : &field;
		uint64_t src = 0x1000 + l, expect = 0;
		uint32_t dump = (uint32_t)l % 3;
		for (size_t i = 0; i < lots[l]; i++) {
			to[i].dest = l == 6 && i == 5 ? UINT64_MAX : 0x100000 + 8 * i + l;
			to[i].label = l % 2 ? i : 77 + i % 5;
		}
		hf_node n = { &node_type, src, dump, 0x42, 16, 65, NULL };
		st = hf_sink_node(a, &n, &err);
		if (!st)
			st = hf_sink_node(b, &n, &err);
		if (!st)
			st = hf_sink_edges(a, t, src, dump, lots[l], to, &err);
		if (!st)
			st = hf_sink_edges(&capsink, t, src, dump, lots[l], to, &err);
		for (size_t i = 0; i < lots[l] && !st; i++) {
			hf_edge e = { t, src, to[i].dest, to[i].label, dump };
			st = hf_sink_edge(b, &e, &err);
			if (!st)
				st = hf_sink_edge(&wantsink, &e, &err);
			expect++;
		}
		total += expect;
		memset(to, 0xEE, lots[l] * sizeof *to); /* the writer must have kept a copy */
	}
	CHECK_EQ_U(a ? a->n_edges : 0, total, "edges counted by the batched sink");
	CHECK_EQ_U(capsink.n_edges, total, "edges counted through the fallback");
	size_t na = 0, nb = 0;
	char *pa = NULL, *pb = NULL;
	finish_pair(a, b, st, &err, fa, fb, &pa, &na, &pb, &nb);
	CHECK(pa && pb && na == nb && na > 100000 * 60 && !memcmp(pa, pb, na),
	      "the same NDJSON either way (%zu and %zu bytes)", na, nb);
	CHECK(pa && strstr(pa, "{\"record\":\"edge\",\"subtype\":1,\"source\":4102,\"dest\":18446744073709551615,"
	                       "\"label\":77,\"dump\":0}\n") != NULL,
	      "the lot of 40000 holds its edge to 2^64-1 with its label and dump");
	CHECK(cap.all.len == want.all.len && cap.all.len > 0 && !memcmp(cap.all.data, want.all.data, cap.all.len),
	      "the fallback gives each edge in order");
	free(pa);
	free(pb);
	free(to);
	hf_buf_free(&cap.all);
	hf_buf_free(&want.all);
}

/* ---- hf_queue ---------------------------------------------------------------- */

typedef struct queue_probe {
	uint64_t next;       /* the number the next record must hold */
	uint64_t blocks, fail_at;
	int bad;
} queue_probe;

static hf_status queue_probe_run(void *ctx, const uint8_t *p, const uint8_t *end, hf_error *err)
{
	queue_probe *q = ctx;
	if (++q->blocks == q->fail_at)
		return hf_error_set(err, HF_ERR_IO, "block %llu failed", (unsigned long long)q->blocks);
	for (; p + 8 <= end; p += 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		q->bad += v != q->next++;
	}
	q->bad += p != end;
	return HF_OK;
}

/* Records come out in order across many hand-offs (more blocks than the
 * queue holds at once); after a failure no later block runs, and the error
 * comes back from the owner's next hand-off or drain. */
static void test_queue(void)
{
	for (int fail = 0; fail < 2; fail++) {
		queue_probe pr = { 0, 0, fail ? 5 : 0, 0 };
		hf_queue q;
		hf_queue_init(&q, 4096, queue_probe_run, &pr);
		hf_error err;
		memset(&err, 0, sizeof err);
		hf_status st = HF_OK;
		uint64_t i;
		for (i = 0; i < 100000 && !st; i++) {
			if (!(st = hf_queue_room(&q, 8, &err)))
				hf_queue_put(&q, &i, 8);
		}
		hf_status dr = hf_queue_drain(&q, st ? NULL : &err);
		if (!fail) {
			CHECK(st == HF_OK && dr == HF_OK, "queue: %s", err.message);
			CHECK_EQ_U(pr.next, 100000, "records through the queue");
			CHECK(pr.blocks > HF_QUEUE_DEPTH * 4, "several rounds of the ring (%llu blocks)",
			      (unsigned long long)pr.blocks);
		} else {
			CHECK(st == HF_ERR_IO || dr == HF_ERR_IO, "the failure comes back");
			CHECK(strstr(err.message, "block 5 failed") != NULL, "its error: %s", err.message);
			CHECK_EQ_U(pr.blocks, 5, "no block runs after the failure");
			CHECK_EQ_U(pr.next, 4 * (4096 / 8), "the records of the blocks before it");
			memset(&err, 0, sizeof err);
			CHECK(hf_queue_drain(&q, &err) == HF_ERR_IO && strstr(err.message, "block 5"),
			      "a second drain still returns the failure");
			hf_queue_stop(&q);
			CHECK(hf_queue_drain(&q, &err) == HF_ERR_IO, "and after the thread is gone");
		}
		CHECK_EQ_U(pr.bad, 0, "records in order");
		hf_queue_free(&q);
	}
	/* Drained below one block and never started: runs on this thread. */
	queue_probe pr = { 0, 0, 0, 0 };
	hf_queue q;
	hf_queue_init(&q, 4096, queue_probe_run, &pr);
	hf_error err;
	uint64_t v = 0;
	CHECK(hf_queue_room(&q, 8, &err) == HF_OK, "room");
	hf_queue_put(&q, &v, 8);
	CHECK(hf_queue_drain(&q, &err) == HF_OK && pr.next == 1 && !q.started, "a small queue, no thread");
	hf_queue_free(&q);
	/* The same failing on this thread: every later drain returns it. */
	queue_probe pf = { 0, 0, 1, 0 };
	hf_queue_init(&q, 4096, queue_probe_run, &pf);
	CHECK(hf_queue_room(&q, 8, &err) == HF_OK, "room");
	hf_queue_put(&q, &v, 8);
	CHECK(hf_queue_drain(&q, &err) == HF_ERR_IO, "a small queue's failure");
	memset(&err, 0, sizeof err);
	CHECK(hf_queue_drain(&q, &err) == HF_ERR_IO && strstr(err.message, "block 1"),
	      "returned again: %s", err.message);
	hf_queue_free(&q);
}

/* ---- hf_rowsort against qsort ---------------------------------------------- */

static int cmp_row4(const void *x, const void *y)
{
	const hf_row4 *a = x, *b = y;
	for (int c = 0; c < 4; c++)
		if (a->k[c] != b->k[c])
			return a->k[c] < b->k[c] ? -1 : 1;
	return 0;
}

/* Sorted runs kept in a temporary file and merged, sorted on a thread, the
 * merge on the caller's thread or ahead on another:
 * the same order as qsort, SQLite's (signed) order of integers, with ties
 * in every column and the extreme values. */
static void test_rowsort(void)
{
	static const size_t cases[][2] = { { 0, 16 }, { 1, 16 }, { 17, 16 }, { 1000, 64 },
		{ 200000, 4096 }, { 70000, 0 }, { 32768, 4096 } };
	static const int64_t extremes[] = { INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX - 1, INT64_MAX };
	uint64_t x = 0x9E3779B97F4A7C15u;
	for (size_t t = 0; t < sizeof cases / sizeof *cases; t++) {
		size_t n = cases[t][0];
		hf_rowsort s;
		CHECK(hf_rowsort_init(&s, cases[t][1]), "rowsort init");
		hf_row4 *ref = malloc((n ? n : 1) * sizeof *ref);
		hf_error err;
		for (size_t i = 0; i < n; i++) {
			int64_t k[4];
			for (int c = 0; c < 4; c++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				switch ((x >> 60) % 4) {
				case 0: k[c] = extremes[(x >> 8) % 7]; break;
				case 1: k[c] = (int64_t)(x % 5) - 2; break;
				default: k[c] = (int64_t)x;
				}
			}
			if (t == 4 && i % 3)
				k[3] = (int64_t)i;   /* a column partly in order, like edge seq */
			memcpy(ref[i].k, k, sizeof k);
			CHECK(hf_rowsort_add(&s, k[0], k[1], k[2], k[3], &err) == HF_OK, "add: %s", err.message);
		}
		CHECK(hf_rowsort_finish(&s, &err) == HF_OK, "finish: %s", err.message);
		/* Every other case merged ahead on a thread: the same rows (32768:
		 * whole blocks of 16 Ki rows and nothing after). */
		if (t % 2 == 0)
			CHECK(hf_rowsort_prefetch(&s), "prefetch");
		qsort(ref, n, sizeof *ref, cmp_row4);
		size_t i = 0, bad = 0;
		hf_row4 r;
		while (hf_rowsort_next(&s, &r) == 1) {
			if (i >= n || memcmp(&r, &ref[i], sizeof r))
				bad++;
			i++;
		}
		CHECK_EQ_U(i, n, "rows out of hf_rowsort");
		CHECK_EQ_U(bad, 0, "rows out of order");
		CHECK(hf_rowsort_next(&s, &r) == 0, "the end stays the end");
		if (cases[t][1] && n > cases[t][1])
			CHECK_EQ_U(s.nruns, (n + cases[t][1] - 1) / cases[t][1], "sorted runs");
		hf_rowsort_free(&s);
		free(ref);
	}
	/* Rows like the edge keys of a dump (destinations close together, one
	 * dump, sources and sequence numbers ascending) pack into far fewer
	 * than 32 bytes a row, and come back the same. */
	hf_rowsort s;
	CHECK(hf_rowsort_init(&s, 4096), "rowsort init");
	hf_error err;
	const size_t n = 50000;
	for (size_t i = 0; i < n; i++)
		CHECK(hf_rowsort_add(&s, 0x7F0000000000 + (int64_t)((i * 7919) % n) * 16, 0,
		                     0x7F0000000000 + (int64_t)i * 24, (int64_t)i, &err) == HF_OK,
		      "add: %s", err.message);
	CHECK(hf_rowsort_finish(&s, &err) == HF_OK, "finish: %s", err.message);
	CHECK(s.bytes < (uint64_t)n * 16, "packed: %llu bytes for %zu rows",
	      (unsigned long long)s.bytes, n);
	hf_row4 r, last = { { INT64_MIN, 0, 0, 0 } };
	size_t got = 0, bad = 0;
	while (hf_rowsort_next(&s, &r) == 1) {
		bad += cmp_row4(&last, &r) > 0 || r.k[1] != 0 || r.k[2] != 0x7F0000000000 + r.k[3] * 24;
		last = r;
		got++;
	}
	CHECK_EQ_U(got, n, "rows out of the packed runs");
	CHECK_EQ_U(bad, 0, "packed rows out of order or changed");
	hf_rowsort_free(&s);
	/* Freed while the merge runs ahead, most rows unread. */
	CHECK(hf_rowsort_init(&s, 4096), "rowsort init");
	for (size_t i = 0; i < n; i++)
		CHECK(hf_rowsort_add(&s, (int64_t)(n - i), 0, 0, 0, &err) == HF_OK, "add: %s", err.message);
	CHECK(hf_rowsort_finish(&s, &err) == HF_OK && hf_rowsort_prefetch(&s), "finish, prefetch");
	CHECK(hf_rowsort_next(&s, &r) == 1 && r.k[0] == 1, "the first row");
	hf_rowsort_free(&s);
}

/* The imposter tables the big indexes are filled through (presorted.c)
 * can be made with this SQLite: else every database is indexed the slow
 * way, and the tests of the indexes' order would not see the fast one. */
static void test_imposter(void)
{
	sqlite3 *db = NULL;
	CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK, "open");
	CHECK(sqlite3_exec(db, "CREATE TABLE t (a INTEGER NOT NULL, b INTEGER, PRIMARY KEY (a)) WITHOUT ROWID;"
	                       " CREATE INDEX t_b ON t (b); BEGIN", NULL, NULL, NULL) == SQLITE_OK, "schema");
	CHECK(hf_imposter_open(db, "t", "hf-imp-t", "a, b, PRIMARY KEY (a)"), "imposter over a table");
	CHECK(hf_imposter_open(db, "t_b", "hf-imp-t_b", "b, a, PRIMARY KEY (b, a)"), "imposter over an index");
	CHECK(sqlite3_exec(db, "INSERT INTO \"hf-imp-t\" VALUES (1, 30), (2, 10), (3, 20);"
	                       " INSERT INTO \"hf-imp-t_b\" VALUES (10, 2), (20, 3), (30, 1)",
	                   NULL, NULL, NULL) == SQLITE_OK, "insert: %s", sqlite3_errmsg(db));
	hf_imposters_close(db);
	sqlite3_stmt *st = NULL;
	const char *want[] = { "ok", "2 3 1" };
	const char *sql[] = { "PRAGMA integrity_check",
		"SELECT group_concat(a, ' ') FROM (SELECT a FROM t INDEXED BY t_b ORDER BY b)" };
	for (int i = 0; i < 2; i++) {
		CHECK(sqlite3_prepare_v2(db, sql[i], -1, &st, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(db));
		CHECK(sqlite3_step(st) == SQLITE_ROW, "row");
		CHECK_STR((const char *)sqlite3_column_text(st, 0), want[i], sql[i]);
		sqlite3_finalize(st);
	}
	CHECK(sqlite3_prepare_v2(db, "SELECT * FROM \"hf-imp-t\"", -1, &st, NULL) != SQLITE_OK,
	      "the imposters are gone");
	sqlite3_finalize(st);
	CHECK(sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'hf-imp%'", -1,
	                         &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
	      sqlite3_column_int(st, 0) == 0, "nothing of them in sqlite_schema");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* hf_tmpfile: in $TMPDIR when set (unlinked at once), else tmpfile()'s
 * place, and a $TMPDIR that cannot be used does not make it fail. */
static void test_tmpfile(void)
{
	char dir[] = "/tmp/heapfmt-test-tmpdir-XXXXXX";
	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	const char *old = getenv("TMPDIR");
	char *keep = old ? strdup(old) : NULL;
	setenv("TMPDIR", dir, 1);
	FILE *f = hf_tmpfile();
	CHECK(f != NULL, "hf_tmpfile in %s", dir);
	if (f) {
		char link[64], target[512];
		snprintf(link, sizeof link, "/proc/self/fd/%d", fileno(f));
		ssize_t n = readlink(link, target, sizeof target - 1);
		target[n > 0 ? n : 0] = 0;
		CHECK(!strncmp(target, dir, strlen(dir)), "the file is in $TMPDIR: %s", target);
		CHECK(strstr(target, "(deleted)") != NULL, "and unlinked: %s", target);
		CHECK(fwrite("abc", 1, 3, f) == 3 && fflush(f) == 0 && (rewind(f), fgetc(f)) == 'a',
		      "written and read back");
		fclose(f);
	}
	setenv("TMPDIR", "/nonexistent/heapfmt", 1);
	f = hf_tmpfile();
	CHECK(f != NULL, "a $TMPDIR that does not exist: tmpfile()'s place");
	if (f)
		fclose(f);
	if (keep)
		setenv("TMPDIR", keep, 1);
	else
		unsetenv("TMPDIR");
	free(keep);
	rmdir(dir);
}

/* NDJSON of n nodes into fp, closed; 0 on failure. */
static int ndjson_nodes(FILE *fp, uint32_t n)
{
	hf_sink *sink = NULL;
	hf_error err;
	if (hf_ndjson_sink_new(&sink, fp, &err) != HF_OK)
		return 0;
	static const hf_field f[] = { { "name", HF_FIELD_TEXT, NULL, 0 } };
	hf_type t = { HF_TYPE_NODE, 1, "obj", NULL, f, 1, NULL, NULL };
	hf_status st = hf_sink_declare(sink, &t, &err);
	char text[32];
	for (uint32_t i = 0; i < n && !st; i++) {
		snprintf(text, sizeof text, "object number %u", i * 7919u);
		hf_value v[1] = { { .s = text, .n = strlen(text), .present = 1 } };
		hf_node nd = { &t, 0x10000 + 8 * (uint64_t)i, 0, 0x20, 16 + i % 40, 0, v };
		st = hf_sink_node(sink, &nd, &err);
	}
	if (!st)
		st = hf_sink_finish(sink, &err);
	hf_sink_destroy(sink, !st);
	return !st && fflush(fp) == 0;
}

/* hf_writebehind: the bytes written behind are the bytes written, from
 * where the descriptor stood, which ends at their end; direct (O_DIRECT)
 * where the file system allows it, and through the page cache alone, also
 * when standard error is the same file ("prog > out 2>&1"); direct with
 * the page cache taking its share as if the disk were behind, in writes
 * that end at a block, the bytes past it carried to the next write; and
 * the text handed over in a buffer of the caller's (hf_writebehind_write_buf)
 * that is written without a copy once it is aligned, the caller keeping the
 * bytes past its last block.  The writes are of many sizes, none a
 * multiple of a block. */
enum { WB_PAGE_CACHE, WB_DIRECT, WB_REFUSED, WB_ABANDONED, WB_SHARED_STDERR, WB_CACHED, WB_LENT,
       WB_LENT_CACHED, WB_LENT_REFUSED };

static size_t wb_write_size(size_t k, size_t nb, size_t bs)
{
	return k < nb ? bs - (k % 5) * 1237 : 1000;
}

/* One of a test's writes: plain, or (lend) into the caller's buffer line,
 * handed over with hf_writebehind_write_buf when the write would pass the
 * batch (hf_writebehind_batch, `plain` before direct writes begin). */
static int wb_put(hf_writebehind *wb, hf_buf *line, bool lend, const uint8_t *p, size_t n, size_t plain)
{
	if (!lend)
		return hf_writebehind_write(wb, p, n);
	int e = line->len + n > hf_writebehind_batch(wb, plain) ? hf_writebehind_write_buf(wb, line) : 0;
	return e ? e : hf_buf_append(line, p, n) ? 0 : ENOMEM;
}

/* After the last wb_put (e: its result): what line kept, written. */
static int wb_put_end(hf_writebehind *wb, hf_buf *line, int e)
{
	if (!e && line->len)
		e = hf_writebehind_write(wb, line->data, line->len);
	hf_buf_free(line);
	return e;
}

static void writebehind_file(int mode)
{
	static const char *const hows[] = { "page cache", "direct", "direct, then refused",
	                                     "direct, no finish", "standard error to the file",
	                                     "direct, the page cache taking 12 MiB",
	                                     "direct, the caller's buffers", "the caller's buffers, the page cache taking 12 MiB",
	                                     "the caller's buffers, direct, then refused" };
	const char *how = hows[mode];
	int direct = mode != WB_PAGE_CACHE;
	FILE *f = tmpfile();
	CHECK(f != NULL, "writebehind (%s): tmpfile", how);
	if (!f)
		return;
	int fd = fileno(f);
	size_t bs = (size_t)256 << 10, nb = 160;   /* 40 MiB, and a last write of 1000 bytes */
	uint8_t *buf = malloc(bs);
	CHECK(write(fd, "head", 4) == 4, "writebehind: a head before");
	hf_writebehind_test_start = 1;
	hf_writebehind_test_direct = direct;
	hf_writebehind_test_refuse = mode == WB_REFUSED || mode == WB_LENT_REFUSED ? 3 : 0;
	hf_writebehind_test_cache = mode == WB_CACHED || mode == WB_LENT_CACHED ? (uint64_t)12 << 20 : 0;
	/* Where the split is checked byte for byte, the writes wait for a
	 * disk that lags instead of sending a buffer's worth through the page
	 * cache (the checks below failed once in six runs with the disk busy:
	 * 57,344 bytes so, or 27.3 of the 28 MiB lent). */
	hf_writebehind_test_wait = mode != WB_CACHED && mode != WB_LENT_CACHED;
	bool lend = mode == WB_LENT || mode == WB_LENT_CACHED || mode == WB_LENT_REFUSED;
	int saved_stderr = -1;
	if (mode == WB_SHARED_STDERR) {
		fflush(stderr);
		saved_stderr = dup(2);
		CHECK(saved_stderr >= 0 && dup2(fd, 2) == 2, "writebehind: standard error to the file");
	}
	hf_writebehind wb;
	hf_writebehind_init(&wb, fd);
	hf_writebehind_test_start = 0;
	hf_writebehind_test_cache = 0;
	CHECK(wb.fd == fd && wb.pos == 4, "writebehind (%s): on, from offset 4", how);
	int e = 0;
	uint64_t total = 4;
	hf_buf line;
	hf_buf_init(&line);
	for (size_t k = 0; k <= nb && !e; k++) {
		size_t n = wb_write_size(k, nb, bs);
		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t)(k * 31 + i * 7);
		total += n;
		e = wb_put(&wb, &line, lend, buf, n, bs);
	}
	e = wb_put_end(&wb, &line, e);
	CHECK(!e, "writebehind (%s): writes: %s", how, strerror(e));
	if (mode != WB_ABANDONED) {
		e = hf_writebehind_finish(&wb);
		CHECK(!e, "writebehind (%s): finish: %s", how, strerror(e));
	}
	hf_writebehind_free(&wb);
	if (saved_stderr >= 0) {
		dup2(saved_stderr, 2);
		close(saved_stderr);
	}
	hf_writebehind_test_direct = 1;
	hf_writebehind_test_refuse = 0;
	hf_writebehind_test_wait = 0;
	CHECK_EQ_U((uint64_t)lseek(fd, 0, SEEK_CUR), total, "writebehind: the descriptor at the end");
	CHECK(mode == WB_REFUSED || mode == WB_LENT_REFUSED || mode == WB_CACHED || mode == WB_LENT_CACHED ||
	      wb.written_behind >= (uint64_t)32 << 20,
	      "writebehind (%s): %llu bytes written behind", how, (unsigned long long)wb.written_behind);
	/* Direct where this file system takes O_DIRECT. */
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
#ifdef O_DIRECT
	int dfd = open(path, O_WRONLY | O_DIRECT);
#else
	int dfd = -1;
#endif
	if (dfd >= 0)
		close(dfd);
	if ((mode == WB_REFUSED || mode == WB_LENT_REFUSED) && dfd >= 0) {
		/* Three buffers direct, then written behind again. */
		CHECK(wb.written_direct >= (uint64_t)8 << 20 && wb.written_direct <= (uint64_t)16 << 20,
		      "writebehind: %llu bytes written direct before the refusal",
		      (unsigned long long)wb.written_direct);
		CHECK(wb.written_behind >= wb.written_direct + ((uint64_t)8 << 20),
		      "writebehind: %llu bytes written behind, %llu of them direct",
		      (unsigned long long)wb.written_behind, (unsigned long long)wb.written_direct);
	} else if (mode == WB_LENT && dfd >= 0) {
		/* The first buffer copied (not aligned), the rest as they were. */
		CHECK(wb.written_lent >= (uint64_t)28 << 20 && wb.written_lent <= wb.written_direct &&
		      wb.written_direct >= (uint64_t)32 << 20,
		      "writebehind (%s): %llu bytes direct, %llu of them without a copy", how,
		      (unsigned long long)wb.written_direct, (unsigned long long)wb.written_lent);
		CHECK_EQ_U(wb.written_cached, 0, "writebehind: nothing through the page cache past the start");
	} else if ((mode == WB_CACHED || mode == WB_LENT_CACHED) && dfd >= 0) {
		/* The first buffer direct, then the page cache's 12 MiB (less the
		 * head's 4 bytes and what would pass them), then direct again. */
		CHECK(wb.written_cached >= (uint64_t)8 << 20 && wb.written_cached <= ((uint64_t)12 << 20) - 4,
		      "writebehind (%s): %llu bytes through the page cache", how,
		      (unsigned long long)wb.written_cached);
		CHECK(wb.written_direct >= (uint64_t)24 << 20 &&
		      wb.written_direct + wb.written_cached <= total,
		      "writebehind (%s): %llu bytes written direct", how, (unsigned long long)wb.written_direct);
		/* After the page cache's share, the carry moved in front of the
		 * caller's buffer, then its buffers as they were. */
		CHECK(mode == WB_CACHED ? wb.written_lent == 0 : wb.written_lent >= (uint64_t)8 << 20,
		      "writebehind (%s): %llu bytes without a copy", how, (unsigned long long)wb.written_lent);
	} else if (direct && dfd >= 0 && mode != WB_SHARED_STDERR) {
		CHECK(wb.written_direct >= (uint64_t)32 << 20, "writebehind (%s): %llu bytes written direct",
		      how, (unsigned long long)wb.written_direct);
		CHECK_EQ_U(wb.written_cached, 0, "writebehind: nothing through the page cache past the start");
	} else {
		CHECK_EQ_U(wb.written_direct, 0, "writebehind: no bytes written direct");
	}
	size_t bad = 0;
	off_t at = 4;
	for (size_t k = 0; k <= nb && !bad; k++) {
		size_t n = wb_write_size(k, nb, bs);
		if (pread(fd, buf, n, at) != (ssize_t)n) {
			bad++;
			break;
		}
		for (size_t i = 0; i < n; i++)
			bad += buf[i] != (uint8_t)(k * 31 + i * 7);
		at += (off_t)n;
	}
	CHECK_EQ_U(bad, 0, "writebehind: read back");
	char head[4];
	CHECK(pread(fd, head, 4, 0) == 4 && !memcmp(head, "head", 4), "writebehind: the head kept");
	fclose(f);
	free(buf);
}

/* hf_dropbehind: a file written through another descriptor (as SQLite
 * writes its database) is handed to the disk and dropped from the page
 * cache behind the writes, and reads back as written, also where a part
 * already dropped is written again. */
static void dropbehind_file(void)
{
	FILE *f = tmpfile();
	CHECK(f != NULL, "dropbehind: tmpfile");
	if (!f)
		return;
	int fd = fileno(f);
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	int own = open(path, O_WRONLY | O_CLOEXEC);
	size_t bs = (size_t)256 << 10, nb = 64;    /* 16 MiB */
	uint8_t *buf = malloc(bs);
	CHECK(own >= 0 && buf, "dropbehind: a second descriptor, a buffer");
	if (own < 0 || !buf) {
		fclose(f);
		free(buf);
		return;
	}
	hf_dropbehind_test_start = 1;
	hf_dropbehind d;
	hf_dropbehind_start(&d, own);
	hf_dropbehind_test_start = 0;
	for (size_t k = 0; k < nb; k++) {
		for (size_t i = 0; i < bs; i++)
			buf[i] = (uint8_t)(k * 29 + i * 5);
		CHECK(pwrite(fd, buf, bs, (off_t)(k * bs)) == (ssize_t)bs, "dropbehind: write %zu", k);
		if (k == nb / 2)
			nanosleep(&(struct timespec){ 0, 30000000L }, NULL);   /* the thread looks */
	}
	/* The first block again, long dropped by now. */
	memset(buf, 0xA5, 4096);
	CHECK(pwrite(fd, buf, 4096, 0) == 4096, "dropbehind: write again");
	CHECK_EQ_U((uint64_t)hf_dropbehind_stop(&d), 0, "dropbehind: no disk error");
	CHECK_EQ_U((uint64_t)d.fd, (uint64_t)-1, "dropbehind: its descriptor closed");
#ifdef __linux__
	/* Whatever the thread saw, the stop's last look hands the rest to the
	 * disk and drops all but the last 64-128 KiB (the test's sizes). */
	CHECK_EQ_U(d.written_behind, (uint64_t)16 << 20, "dropbehind: bytes written behind");
	CHECK(d.dropped_bytes >= ((uint64_t)16 << 20) - 131072 &&
	      d.dropped_bytes <= ((uint64_t)16 << 20) - 65536,
	      "dropbehind: %llu bytes dropped", (unsigned long long)d.dropped_bytes);
#endif
	size_t bad = 0;
	for (size_t k = 0; k < nb && !bad; k++) {
		if (pread(fd, buf, bs, (off_t)(k * bs)) != (ssize_t)bs) {
			bad++;
			break;
		}
		for (size_t i = 0; i < bs; i++)
			bad += buf[i] != (k == 0 && i < 4096 ? 0xA5 : (uint8_t)(k * 29 + i * 5));
	}
	CHECK_EQ_U(bad, 0, "dropbehind: read back");
	/* Nothing to watch: the close alone. */
	hf_dropbehind_start(&d, -1);
	CHECK_EQ_U((uint64_t)hf_dropbehind_stop(&d), 0, "dropbehind: without a descriptor");
	fclose(f);
	free(buf);
}

/* A write the disk refuses (here a file size limit: EFBIG) is reported by
 * a write or by finish, whichever thread met it; also when the text is
 * handed over in the caller's buffers (lend). */
static void writebehind_full(int direct, int lend)
{
	FILE *f = tmpfile();
	CHECK(f != NULL, "writebehind: tmpfile");
	if (!f)
		return;
	struct rlimit old_fsize, small_fsize = { (rlim_t)12 << 20, (rlim_t)12 << 20 };
	void (*old_xfsz)(int) = signal(SIGXFSZ, SIG_IGN);
	if (getrlimit(RLIMIT_FSIZE, &old_fsize) == 0 && old_fsize.rlim_max >= small_fsize.rlim_max) {
		small_fsize.rlim_max = old_fsize.rlim_max;
		setrlimit(RLIMIT_FSIZE, &small_fsize);
		hf_writebehind_test_start = 1;
		hf_writebehind_test_direct = direct;
		hf_writebehind wb;
		hf_writebehind_init(&wb, fileno(f));
		static uint8_t buf[(size_t)1 << 20];
		memset(buf, 'x', sizeof buf);
		int e = 0;
		hf_buf line;
		hf_buf_init(&line);
		for (int k = 0; k < 24 && !e; k++)
			e = wb_put(&wb, &line, lend, buf, sizeof buf - (k == 23), sizeof buf);
		e = wb_put_end(&wb, &line, e);
		if (!e)
			e = hf_writebehind_finish(&wb);
		hf_writebehind_free(&wb);
		hf_writebehind_test_start = 0;
		hf_writebehind_test_direct = 1;
		setrlimit(RLIMIT_FSIZE, &old_fsize);
		CHECK(e == EFBIG, "writebehind (%s%s): 24 MiB under a 12 MiB file size limit: %s",
		      direct ? "direct" : "page cache", lend ? ", the caller's buffers" : "",
		      e ? strerror(e) : "no error");
	}
	signal(SIGXFSZ, old_xfsz);
	fclose(f);
}

/* The spool of a pipe's look ahead (input.c): bytes read ahead at offsets
 * into a temporary file come back the same, and the reading then gets every
 * byte of the stream once, in order, whatever the spool met (its bound, a
 * full disk, no file at all). */
static uint8_t spool_byte(uint64_t i)
{
	return (uint8_t)((i * 2654435761u) >> 13);
}

static bool spool_same(const uint8_t *p, size_t n, uint64_t off)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != spool_byte(off + i))
			return false;
	return true;
}

/* mode: hf_input_test_spool_fail; gz: the FIFO carries the bytes gzipped,
 * cut: and cut short, 1000 bytes before the gzip stream's end. */
static void input_spool(int mode, int gz, int cut)
{
	const size_t total = ((size_t)7 << 20) + 12345;
	uint8_t *plain = malloc(total);
	size_t size = total;
	uint8_t *data = plain;
	if (!plain) {
		CHECK(0, "spool: malloc");
		return;
	}
	for (size_t i = 0; i < total; i++)
		plain[i] = spool_byte(i);
	if (gz) {
		z_stream z;
		memset(&z, 0, sizeof z);
		size = deflateBound(&z, (uLong)total) + 64;
		data = malloc(size);
		CHECK(data && deflateInit2(&z, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) == Z_OK, "spool: deflate");
		if (!data)
			return;
		z.next_in = plain;
		z.avail_in = (uInt)total;
		z.next_out = data;
		z.avail_out = (uInt)size;
		CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END, "spool: deflate");
		size = z.total_out - (cut ? 1000 : 0);
		deflateEnd(&z);
	}
	char dir[] = "/tmp/heapfmt-spool-XXXXXX", fifo[64];
	if (!mkdtemp(dir)) {
		CHECK(0, "spool: mkdtemp");
		return;
	}
	snprintf(fifo, sizeof fifo, "%s/in", dir);
	CHECK(mkfifo(fifo, 0600) == 0, "spool: mkfifo");
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(fifo, O_WRONLY);
		_exit(fd < 0 || hf_write_full(fd, data, size) ? 1 : 0);
	}
	hf_input *in = NULL;
	hf_error err;
	memset(&err, 0, sizeof err);
	hf_input_test_spool_fail = mode;
	CHECK(hf_input_open(&in, fifo, &err) == HF_OK, "spool %d/%d: open the FIFO: %s", mode, gz, err.message);
	if (in) {
		const uint8_t *p;
		size_t avail, got = 0;
		int bounded = 0;
		CHECK(hf_input_can_spool(in), "spool %d/%d: a FIFO can be spooled", mode, gz);
		CHECK(hf_input_peek(in, 100, &p, &avail, &err) == HF_OK && avail >= 100 && spool_same(p, 100, 0),
		      "spool %d/%d: peek", mode, gz);
		uint8_t *buf = malloc((size_t)3 << 20);
		hf_status st = hf_input_spool_read(in, 1000, buf, (size_t)3 << 20, UINT64_MAX, &got, &bounded, &err);
		if (mode == 1) {
			/* (What the window holds it still gives.) */
			CHECK(st == HF_ERR_UNSUPPORTED && spool_same(buf, got, 1000), "spool 1: no file, no spool (%d)", st);
		} else if (mode == 2) {
			/* The first piece written, the second taken and kept in memory. */
			CHECK(st == HF_OK && bounded && got < ((size_t)3 << 20) && got > 100 &&
			      spool_same(buf, got, 1000), "spool 2/%d: a full disk: %zu bytes, bounded %d (%d)", gz, got,
			      bounded, st);
		} else {
			CHECK(st == HF_OK && got == ((size_t)3 << 20) && !bounded && spool_same(buf, got, 1000),
			      "spool 0/%d: 3 MiB at 1000 (%zu, %d)", gz, got, st);
			CHECK(hf_input_spool_read(in, 50, buf, 10, UINT64_MAX, &got, &bounded, &err) == HF_OK &&
			      got == 10 && spool_same(buf, 10, 50), "spool 0/%d: 10 bytes in the window", gz);
			CHECK(hf_input_spool_read(in, (uint64_t)4 << 20, buf, (size_t)2 << 20, (uint64_t)5 << 20, &got,
			                          &bounded, &err) == HF_OK && got == ((size_t)1 << 20) && bounded &&
			      spool_same(buf, got, (uint64_t)4 << 20), "spool 0/%d: up to a limit (%zu)", gz, got);
			st = hf_input_spool_read(in, total - 10, buf, 100, UINT64_MAX, &got, &bounded, &err);
			if (cut)
				CHECK(st == HF_OK && got == 0, "spool 0/gz cut: the damage is the reading's to meet (%zu)", got);
			else
				CHECK(st == HF_OK && got == 10 && spool_same(buf, 10, total - 10),
				      "spool 0/%d: the stream's end (%zu)", gz, got);
		}
		free(buf);
		/* Every byte once, in order, in peeks of odd sizes; a cut gzip
		 * stream fails after the bytes before the cut. */
		uint64_t off = 0;
		bool same = true;
		for (size_t want = 1; same; want = want * 3 % 1000003 + 1) {
			st = hf_input_peek(in, want, &p, &avail, &err);
			if (st != HF_OK || !avail)
				break;
			size_t k = avail < want ? avail : want;
			same = spool_same(p, k, off) && hf_input_offset(in) == off;
			hf_input_consume(in, k);
			off += k;
		}
		if (cut)
			CHECK(same && st == HF_ERR_TRUNCATED && off > total / 2 && off < total,
			      "spool %d/gz cut: %llu bytes then the damage (%d: %s)", mode, (unsigned long long)off, st,
			      err.message);
		else
			CHECK(same && st == HF_OK && off == total, "spool %d/%d: the stream read through, %llu bytes of %zu",
			      mode, gz, (unsigned long long)off, total);
		hf_input_close(in);
	}
	hf_input_test_spool_fail = 0;
	int status = 0;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "spool %d/%d: the writer", mode, gz);
	unlink(fifo);
	rmdir(dir);
	if (data != plain)
		free(data);
	free(plain);
}

static void test_input_spool(void)
{
	for (int mode = 0; mode < 3; mode++) {
		input_spool(mode, 0, 0);
		input_spool(mode, 1, 0);
	}
	input_spool(0, 1, 1);
	input_spool(2, 1, 1);
}

static void test_writebehind(void)
{
	writebehind_file(WB_DIRECT);
	dropbehind_file();
	writebehind_file(WB_PAGE_CACHE);
	writebehind_file(WB_REFUSED);
	writebehind_file(WB_ABANDONED);
	writebehind_file(WB_SHARED_STDERR);
	writebehind_file(WB_CACHED);
	writebehind_file(WB_LENT);
	writebehind_file(WB_LENT_CACHED);
	writebehind_file(WB_LENT_REFUSED);
	writebehind_full(1, 0);
	writebehind_full(0, 0);
	writebehind_full(1, 1);
	hf_writebehind wb;
	int p[2];
	if (pipe(p) == 0) {
		hf_writebehind_init(&wb, p[1]);
		CHECK(wb.fd == -1, "writebehind: off on a pipe");
		CHECK(hf_writebehind_write(&wb, "x\n", 2) == 0 && hf_writebehind_finish(&wb) == 0,
		      "writebehind: plain writes to a pipe");
		hf_writebehind_free(&wb);
		char x[2];
		CHECK(read(p[0], x, 2) == 2 && x[0] == 'x', "writebehind: the pipe's bytes");
		close(p[0]);
		close(p[1]);
	}
	/* 400,000 nodes, about 30 MB of NDJSON, written behind from the start
	 * and not at all. */
	FILE *a = tmpfile(), *b = tmpfile();
	CHECK(a && b, "writebehind: tmpfiles");
	if (!a || !b) {
		if (a)
			fclose(a);
		if (b)
			fclose(b);
		return;
	}
	hf_writebehind_test_start = 1;
	CHECK(ndjson_nodes(a, 400000), "writebehind: NDJSON written behind");
	hf_writebehind_test_start = 0;
	CHECK(ndjson_nodes(b, 400000), "writebehind: NDJSON written plainly");
	/* And through the page cache alone, into a file the caller wrote to:
	 * the writer's output follows, and the descriptor ends after it. */
	FILE *c = tmpfile();
	CHECK(c && fputs("before\n", c) >= 0, "writebehind: a third tmpfile");
	hf_writebehind_test_start = 1;
	hf_writebehind_test_direct = 0;
	CHECK(c && ndjson_nodes(c, 400000), "writebehind: NDJSON through the page cache");
	hf_writebehind_test_start = 0;
	hf_writebehind_test_direct = 1;
	long la = ftell(a), lb = ftell(b), lc = c ? ftell(c) : 0;
	CHECK(lc == lb + 7, "writebehind: NDJSON of %ld bytes after a line of 7, %ld alone", lc, lb);
	CHECK(la > (30l << 20) - (4l << 20) && la == lb, "writebehind: NDJSON of %ld and %ld bytes", la, lb);
	rewind(a);
	rewind(b);
	char x[65536], y[65536];
	size_t got, same = 1;
	while (same && (got = fread(x, 1, sizeof x, a)) > 0)
		same = fread(y, 1, sizeof y, b) == got && !memcmp(x, y, got);
	CHECK(same, "writebehind: the same NDJSON, byte for byte");
	if (c) {
		rewind(b);
		CHECK(fseek(c, 7, SEEK_SET) == 0, "writebehind: seek");
		same = 1;
		while (same && (got = fread(x, 1, sizeof x, b)) > 0)
			same = fread(y, 1, sizeof y, c) == got && !memcmp(x, y, got);
		CHECK(same, "writebehind: the same NDJSON through the page cache, after the caller's line");
		fclose(c);
	}
	fclose(a);
	fclose(b);
}

#ifdef __linux__
/* A bigmem whose looks the test takes itself (no watching thread), with a
 * limit of a byte, and an array of n uint32s in it filled with i * mul;
 * NULL (and *a NULL) when either cannot be had. */
static hf_bigmem *manual_bigmem(size_t n, uint32_t mul, uint32_t **a, const char *what)
{
	hf_bigmem_test_manual = 1;
	hf_bigmem *m = hf_bigmem_new(1);
	hf_bigmem_test_manual = 0;
	*a = m ? hf_bigmem_alloc(m, n * sizeof **a) : NULL;
	CHECK(m && *a, "%s: a bigmem and its array", what);
	if (!*a) {
		hf_bigmem_free(m);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		(*a)[i] = (uint32_t)i * mul;
	return m;
}
#endif

/* hf_bigmem's back-off, each look of the watcher taken by the test: above a
 * limit of a byte no sweep reaches the target, so the watcher stops sweeping
 * until the arrays' pages grow by 16 MiB again (not 500 sweeps a second for
 * nothing).  With the thread, what a look saw hung on when it ran: a sweep
 * that ran while the test read the pages back set the floor high, and the
 * test's rewrite then never reached it (seen once in CI under load). */
static void test_bigmem_backoff(void)
{
#ifdef __linux__
	size_t n = (size_t)6 << 20;          /* 24 MiB: more than the back-off's 16 */
	uint32_t *a;
	hf_bigmem *m = manual_bigmem(n, 2654435761u, &a, "bigmem back-off");
	if (!m)
		return;
	uint64_t sweeps[5], released[5];
	hf_bigmem_test_look(m);              /* releases all 24 MiB, stays above */
	released[0] = hf_bigmem_released(m, &sweeps[0]);
	hf_bigmem_test_look(m);              /* nothing came back: backs off */
	released[1] = hf_bigmem_released(m, &sweeps[1]);
	size_t bad = 0;
	for (size_t i = 0; i < n / 6; i++)   /* 4 MiB back: still backs off */
		bad += a[i] != (uint32_t)i * 2654435761u;
	hf_bigmem_test_look(m);
	released[2] = hf_bigmem_released(m, &sweeps[2]);
	for (size_t i = 0; i < n; i++)       /* 24 MiB back: sweeps again */
		bad += a[i] != (uint32_t)i * 2654435761u;
	hf_bigmem_test_look(m);
	released[3] = hf_bigmem_released(m, &sweeps[3]);
	hf_bigmem_test_look(m);              /* and backs off again */
	released[4] = hf_bigmem_released(m, &sweeps[4]);
	uint64_t all = n * sizeof *a;
	CHECK(released[0] == all && sweeps[0] == 1, "bigmem back-off: the first sweep (%llu bytes, %llu)",
	      (unsigned long long)released[0], (unsigned long long)sweeps[0]);
	CHECK(released[1] == all && sweeps[1] == 1, "bigmem back-off: backs off (%llu bytes, %llu)",
	      (unsigned long long)released[1], (unsigned long long)sweeps[1]);
	CHECK(released[2] == all && sweeps[2] == 1, "bigmem back-off: 4 MiB back, still (%llu bytes, %llu)",
	      (unsigned long long)released[2], (unsigned long long)sweeps[2]);
	CHECK(released[3] == 2 * all && sweeps[3] == 2,
	      "bigmem back-off: sweeps again once the pages grew (%llu bytes, %llu)",
	      (unsigned long long)released[3], (unsigned long long)sweeps[3]);
	CHECK(released[4] == 2 * all && sweeps[4] == 2, "bigmem back-off: and backs off again (%llu bytes, %llu)",
	      (unsigned long long)released[4], (unsigned long long)sweeps[4]);
	CHECK_EQ_U(bad, 0, "bigmem back-off: the contents after the releases");
	hf_bigmem_release(m, a);
	hf_bigmem_free(m);
#endif
}

/* hf_bigmem_pace: the computing thread's own look.  Without a watching
 * thread (the test's mode), above a limit of a byte, a pace releases the
 * arrays as the watcher's look would, and the contents stay; once they are
 * read back whole, a pace some milliseconds later looks and releases
 * again. */
static void test_bigmem_pace(void)
{
#ifdef __linux__
	size_t n = (size_t)6 << 20;          /* 24 MiB: read back whole, past the back-off's 16 */
	uint32_t *a;
	hf_bigmem *m = manual_bigmem(n, 0x5bd1e995u, &a, "bigmem pace");
	if (!m)
		return;
	uint64_t all = n * sizeof *a;
	hf_bigmem_pace(m);                   /* never looked: looks, releases all */
	CHECK(hf_bigmem_released(m, NULL) == all, "bigmem pace: the first pace releases (%llu bytes)",
	      (unsigned long long)hf_bigmem_released(m, NULL));
	size_t bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += a[i] != (uint32_t)i * 0x5bd1e995u;
	nanosleep(&(struct timespec){ 0, 5000000 }, NULL);   /* 5 ms: past PACE_NS and WATCH_NS */
	hf_bigmem_pace(m);
	CHECK(hf_bigmem_released(m, NULL) == 2 * all, "bigmem pace: and again later (%llu bytes)",
	      (unsigned long long)hf_bigmem_released(m, NULL));
	for (size_t i = 0; i < n; i++)
		bad += a[i] != (uint32_t)i * 0x5bd1e995u;
	CHECK_EQ_U(bad, 0, "bigmem pace: the contents after the releases");
	hf_bigmem_release(m, a);
	hf_bigmem_free(m);
	/* Without a limit (malloc'd arrays) a pace does nothing. */
	m = hf_bigmem_new(0);
	CHECK(m != NULL, "bigmem pace: no limit");
	if (m) {
		hf_bigmem_pace(m);
		CHECK(hf_bigmem_released(m, NULL) == 0, "bigmem pace: no limit, nothing released");
		hf_bigmem_free(m);
	}
#endif
}

/* hf_bigmem: arrays in mapped temporary files keep their contents through
 * the watcher's releases, growing, shrinking and moving from malloc. */
static void test_bigmem(void)
{
	hf_bigmem *m = hf_bigmem_new(1);     /* above a byte: every round releases */
	CHECK(m != NULL, "bigmem");
	if (!m)
		return;
	size_t n = (size_t)6 << 20;          /* 24 MiB: three windows of 8 */
	uint32_t *a = hf_bigmem_alloc(m, n * sizeof *a);
	uint8_t *small = hf_bigmem_alloc(m, 1000);
	CHECK(a && small, "bigmem: alloc");
	if (!a || !small)
		return;
#ifdef __linux__
	CHECK((uintptr_t)a % ((uintptr_t)2 << 20) == 0, "bigmem: aligned to 2 MiB (%p)", (void *)a);
#endif
	memset(small, 7, 1000);
	/* Written over and over while the watcher releases beside. */
	for (uint32_t round = 0; round < 4; round++)
		for (size_t i = 0; i < n; i++)
			a[i] = ((uint32_t)i + round) * 2654435761u;
	for (int w = 0; w < 5000 && hf_bigmem_released(m, NULL) < n * sizeof *a; w++)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	uint64_t released = hf_bigmem_released(m, NULL);
	CHECK(released >= n * sizeof *a, "bigmem: released (%llu bytes)", (unsigned long long)released);
	size_t bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += a[i] != ((uint32_t)i + 3) * 2654435761u;
	CHECK_EQ_U(bad, 0, "bigmem: the contents after the releases");
	for (size_t i = 0; i < n; i++)
		a[i] = (uint32_t)i * 2654435761u;
	a = hf_bigmem_realloc(m, a, n * sizeof *a, 2 * n * sizeof *a);
	CHECK(a != NULL, "bigmem: grow");
	if (!a)
		return;
#ifdef __linux__
	/* Grown, still on a huge page's boundary (so that its 2 MiB folios map
	 * whole: map_aligned in bigmem.c). */
	CHECK((uintptr_t)a % ((uintptr_t)2 << 20) == 0, "bigmem: grown, aligned to 2 MiB (%p)", (void *)a);
#endif
	bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += a[i] != (uint32_t)i * 2654435761u || a[n + i] != 0;
	CHECK_EQ_U(bad, 0, "bigmem: grown, the contents kept and the rest zero");
	a = hf_bigmem_realloc(m, a, 2 * n * sizeof *a, n / 2 * sizeof *a);
	CHECK(a != NULL, "bigmem: shrink");
	if (!a)
		return;
	bad = 0;
	for (size_t i = 0; i < n / 2; i++)
		bad += a[i] != (uint32_t)i * 2654435761u;
	CHECK_EQ_U(bad, 0, "bigmem: shrunk, the contents kept");
	small = hf_bigmem_realloc(m, small, 1000, (size_t)2 << 20);
	CHECK(small != NULL, "bigmem: from malloc to a file");
	if (small) {
		bad = 0;
		for (size_t i = 0; i < 1000; i++)
			bad += small[i] != 7;
		CHECK_EQ_U(bad, 0, "bigmem: moved into a file, the contents kept");
	}
	hf_bigmem_release(m, small);
	hf_bigmem_release(m, a);
	CHECK(hf_bigmem_alloc(m, (size_t)4 << 20) != NULL, "bigmem: left to hf_bigmem_free");
	/* No room for a file to grow (a file size limit here, a full disk
	 * elsewhere): the array moves into memory with its contents. */
	struct rlimit old_fsize, small_fsize = { (rlim_t)8 << 20, (rlim_t)8 << 20 };
	void (*old_xfsz)(int) = signal(SIGXFSZ, SIG_IGN);
	if (getrlimit(RLIMIT_FSIZE, &old_fsize) == 0 && old_fsize.rlim_max >= small_fsize.rlim_max) {
		small_fsize.rlim_max = old_fsize.rlim_max;
		setrlimit(RLIMIT_FSIZE, &small_fsize);
		uint32_t *c = hf_bigmem_alloc(m, (size_t)4 << 20);
		CHECK(c != NULL, "bigmem: alloc under a file size limit");
		if (c) {
			for (size_t i = 0; i < (1u << 20); i++)
				c[i] = (uint32_t)i ^ 0x5a5a5a5au;
			c = hf_bigmem_realloc(m, c, (size_t)4 << 20, (size_t)16 << 20);
			CHECK(c != NULL, "bigmem: grown past the file size limit");
			if (c) {
				bad = 0;
				for (size_t i = 0; i < (1u << 20); i++)
					bad += c[i] != ((uint32_t)i ^ 0x5a5a5a5au);
				c[(4u << 20) - 1] = 1;
				CHECK_EQ_U(bad, 0, "bigmem: moved into memory, the contents kept");
			}
			hf_bigmem_release(m, c);
		}
		setrlimit(RLIMIT_FSIZE, &old_fsize);
	}
	signal(SIGXFSZ, old_xfsz);
	hf_bigmem_free(m);

	m = hf_bigmem_new(0);                /* no limit: malloc */
	CHECK(m != NULL, "bigmem without a limit");
	if (!m)
		return;
	uint8_t *p = hf_bigmem_alloc(m, (size_t)4 << 20);
	CHECK(p != NULL, "bigmem without a limit: alloc");
	if (p) {
		memset(p, 1, (size_t)4 << 20);
		p = hf_bigmem_realloc(m, p, (size_t)4 << 20, (size_t)8 << 20);
		CHECK(p && p[(4 << 20) - 1] == 1, "bigmem without a limit: realloc");
		hf_bigmem_release(m, p);
	}
	CHECK_EQ_U(hf_bigmem_released(m, NULL), 0, "bigmem without a limit: nothing released");
	hf_bigmem_free(m);
}

/* hf_huge_alloc: zeroed as calloc's, a whole mapping aligned to 2 MiB on
 * Linux from 2 MiB up (so that hf_huge_free tells it by the size), and
 * usable to its last byte; smaller sizes, zero among them, from calloc. */
static void test_huge(void)
{
	static const size_t sizes[] = { 0, 1, 4096, ((size_t)2 << 20) - 1, (size_t)2 << 20,
		                        ((size_t)2 << 20) + 1, (size_t)33 << 20 };
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		size_t n = sizes[k];
		uint8_t *p = hf_huge_alloc(n);
		CHECK(p != NULL, "huge: %zu bytes", n);
		if (!p)
			continue;
		size_t nonzero = 0;
		for (size_t i = 0; i < n; i += 4096)
			nonzero += p[i] != 0;
		if (n)
			nonzero += p[n - 1] != 0;
		CHECK(nonzero == 0, "huge: %zu bytes zeroed (%zu bytes looked at were not)", n, nonzero);
#ifdef __linux__
		if (n >= ((size_t)2 << 20))
			CHECK((uintptr_t)p % ((size_t)2 << 20) == 0, "huge: %zu bytes on a 2 MiB boundary", n);
#endif
		if (n) {
			memset(p, 0xA5, n);
			CHECK(p[0] == 0xA5 && p[n - 1] == 0xA5, "huge: %zu bytes written", n);
		}
		hf_huge_free(p, n);
	}
	hf_huge_free(NULL, (size_t)4 << 20);
}

/* ddmlib's display form of a class descriptor, and its out-of-memory path:
 * a name whose conversion cannot grow its buffer is an error, not a name cut
 * short (an allocation report's class table went on with "" before). */
static void test_descriptor_to_dot(void)
{
	static const char *const cases[][2] = {
		{ "Ljava/lang/String;", "java.lang.String" }, { "[[I", "int[][]" },
		{ "[Ljava/util/Map$Entry;", "java.util.Map$Entry[]" }, { "Z", "boolean" },
		{ "Q", "Q" }, { "L;", "" }, { "[", "[]" }, { "", "" },
	};
	hf_buf b;
	hf_buf_init(&b);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		bool ok = ddm_descriptor_to_dot(cases[i][0], strlen(cases[i][0]), &b);
		CHECK(ok && b.len == strlen(cases[i][1]) && (!b.len || !memcmp(b.data, cases[i][1], b.len)),
		      "descriptor %s -> %s (got %.*s)", cases[i][0], cases[i][1], (int)b.len,
		      b.data ? (const char *)b.data : "");
	}
	hf_buf_free(&b);
	/* 3,000 dimensions of a 3,000-character class: 9,000 bytes of display
	 * name, past a cap of 8,192 whichever append reaches it. */
	char *d = malloc(6002);
	CHECK(d != NULL, "descriptor: malloc");
	if (!d)
		return;
	memset(d, '[', 3000);
	d[3000] = 'L';
	memset(d + 3001, 'a', 3000);
	d[6001] = ';';
	hf_buf_test_cap = 8192;
	bool ok = ddm_descriptor_to_dot(d, 6002, &b);
	CHECK(!ok, "descriptor: a name past the buffer's cap is an error");
	hf_buf_free(&b);
	/* The class alone (its 3,000 characters) fits, its dimensions do not. */
	ok = ddm_descriptor_to_dot(d + 2999, 3003, &b);
	CHECK(ok && b.len == 3002, "descriptor: one dimension under the cap (%zu bytes)", b.len);
	hf_buf_free(&b);
	ok = ddm_descriptor_to_dot(d + 3000, 3002, &b);
	CHECK(ok && b.len == 3000, "descriptor: the class under the cap (%zu bytes)", b.len);
	hf_buf_free(&b);
	hf_buf_test_cap = 9000;
	ok = ddm_descriptor_to_dot(d, 6002, &b);
	CHECK(ok && b.len == 9000 && !memcmp(b.data + 8998, "[]", 2), "descriptor: at the cap (%zu bytes)", b.len);
	hf_buf_test_cap = 0;
	hf_buf_free(&b);
	free(d);
}

/* hf_pipe_widen: a pipe's either end widened to HF_PIPE_SIZE when the system
 * allows it, a wider one left alone, anything else untouched. */
static void test_pipe_widen(void)
{
#if defined(__linux__) && defined(F_SETPIPE_SZ)
	int p[2];
	if (pipe(p) != 0) {
		CHECK(0, "pipe_widen: pipe: %s", strerror(errno));
		return;
	}
	int before = fcntl(p[0], F_GETPIPE_SZ);
	hf_pipe_widen(p[1]);
	int after = fcntl(p[0], F_GETPIPE_SZ);
	if (before >= (int)HF_PIPE_SIZE) {
		/* Pipes as wide already (16 pages of 64 KiB, say): left so. */
		CHECK(after == before, "pipe_widen: a pipe of %d bytes became %d", before, after);
	} else if (after != (int)HF_PIPE_SIZE) {
		/* Refused (fs.pipe-max-size below it, or the user's pipe pages
		 * spent): then asking directly is refused too, and nothing moved. */
		CHECK(after == before && fcntl(p[0], F_SETPIPE_SZ, (int)HF_PIPE_SIZE) < 0,
		      "pipe_widen: %d -> %d bytes, and the system allows %d", before, after, (int)HF_PIPE_SIZE);
		printf("# pipe_widen: the system keeps pipes at %d bytes\n", before);
	} else {
		CHECK(before < after, "pipe_widen: %d -> %d bytes", before, after);
	}
	/* A wider pipe is not narrowed (one can be had as root, or where
	 * fs.pipe-max-size allows it). */
	if (fcntl(p[1], F_SETPIPE_SZ, 2 * (int)HF_PIPE_SIZE) >= 0) {
		int wide = fcntl(p[1], F_GETPIPE_SZ);
		hf_pipe_widen(p[0]);
		CHECK_EQ_U((uint64_t)fcntl(p[1], F_GETPIPE_SZ), (uint64_t)wide, "pipe_widen: a wider pipe kept");
	} else {
		printf("# pipe_widen: no pipe wider than %zu bytes to be had here: not narrowing it untested\n",
		       HF_PIPE_SIZE);
	}
	/* The bytes through it are the bytes written. */
	static uint8_t out[200000], in[sizeof out];
	for (size_t i = 0; i < sizeof out; i++)
		out[i] = (uint8_t)(i * 2654435761u >> 13);
	pid_t c = fork();
	if (c == 0) {
		close(p[0]);
		_exit(hf_write_full(p[1], out, sizeof out) ? 1 : 0);
	}
	close(p[1]);
	size_t got = 0;
	for (ssize_t r; got < sizeof in && (r = read(p[0], in + got, sizeof in - got)) > 0;)
		got += (size_t)r;
	int status = 0;
	waitpid(c, &status, 0);
	CHECK(got == sizeof in && !memcmp(in, out, sizeof in) && WIFEXITED(status) && !WEXITSTATUS(status),
	      "pipe_widen: %zu of %zu bytes through it, as written", got, sizeof in);
	close(p[0]);
	/* Not a pipe: a regular file (its offset and bytes as they were), a
	 * closed descriptor, -1: nothing done, nothing broken. */
	char path[] = "/tmp/heapfmt-pipe-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0, "pipe_widen: mkstemp");
	if (fd >= 0) {
		CHECK(write(fd, "abc", 3) == 3, "pipe_widen: write");
		hf_pipe_widen(fd);
		struct stat sb;
		CHECK(lseek(fd, 0, SEEK_CUR) == 3 && fstat(fd, &sb) == 0 && sb.st_size == 3 && S_ISREG(sb.st_mode),
		      "pipe_widen: a file left as it was");
		close(fd);
		unlink(path);
		hf_pipe_widen(fd);
	}
	hf_pipe_widen(-1);
#endif
}

int main(void)
{
	test_pipe_widen();
	test_descriptor_to_dot();
	test_json_escape();
	test_map();
	test_map_collisions();
	test_id_index();
	test_input();
	test_input_spool();
	test_gzip_thread();
	test_v8_tokenizer();
	test_ndjson_deep();
	test_json_check();
	test_ndjson_big_values();
	test_ndjson_queue();
	test_ndjson_encoded();
	test_ndjson_edges();
	test_queue();
	test_rowsort();
	test_imposter();
	test_tmpfile();
	test_bigmem();
	test_bigmem_backoff();
	test_bigmem_pace();
	test_huge();
	test_put_u64();
	test_iso8601_ms();
	test_writebehind();
	return t_done("test_unit");
}
