/* Internal helpers shared by the readers and writers of libheapfmt. */
#ifndef HF_INTERNAL_H
#define HF_INTERNAL_H

#include "heapfmt/heapfmt.h"
#include "heapfmt/analysis.h"
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __clang_analyzer__
/* The analyzer never inlines a variadic function, so it cannot see that
 * these return the status they are given (error.c). */
#define hf_error_set(err, st, ...) (hf_error_set((err), (st), __VA_ARGS__), (hf_status)(st))
#define hf_error_at(err, st, off, tag, ...) (hf_error_at((err), (st), (off), (tag), __VA_ARGS__), (hf_status)(st))
#endif

/* Big-endian loads; p must hold the bytes (callers check lengths first). */
static inline uint16_t hf_be16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t hf_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline uint64_t hf_be64(const uint8_t *p)
{
	return ((uint64_t)hf_be32(p) << 32) | hf_be32(p + 4);
}
static inline uint64_t hf_beid(const uint8_t *p, unsigned idsize)
{
	return idsize == 8 ? hf_be64(p) : hf_be32(p);
}

/* ---- u64 -> u64 open-addressing hash map (any key) ---------------------- */
/* Keys and values sit side by side so a probe touches one cache line; an
 * empty slot holds HF_MAP_EMPTY, and that one key value is kept aside. */
#define HF_MAP_EMPTY UINT64_MAX
typedef struct hf_map_slot {
	uint64_t key, val;
} hf_map_slot;
typedef struct hf_map {
	hf_map_slot *slots;
	size_t cap;      /* power of two */
	size_t count;
	int has_empty_key;
	uint64_t empty_key_val;
	uint64_t seed;   /* of the hash: 0 unless keys were found to collide (map.c) */
	uint64_t ops, probes; /* since the last rehash with a new seed */
} hf_map;

/* FNV-1a: h after byte c, after a whole 64-bit number v as one step (a
 * number mixed in, not its bytes), and after n bytes at p; start from
 * HF_FNV_BASIS (or that and a seed). */
#define HF_FNV_BASIS 0xcbf29ce484222325ULL
#define HF_FNV_PRIME 0x100000001b3ULL
static inline uint64_t hf_fnv1a_byte(uint64_t h, unsigned char c) { return (h ^ c) * HF_FNV_PRIME; }
static inline uint64_t hf_fnv1a_u64(uint64_t h, uint64_t v) { return (h ^ v) * HF_FNV_PRIME; }
static inline uint64_t hf_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = hf_fnv1a_byte(h, b[i]);
	return h;
}

/* A (class, subtype) pair as one key of a map. */
static inline uint64_t hf_type_key(int cls, int id) { return (uint64_t)(unsigned)cls << 32 | (uint32_t)id; }

/* 64 random bits (/dev/urandom, else the clock and addresses), for the
 * seeds of hashes of input a crafted file could make collide. */
uint64_t hf_random_u64(void);

void hf_map_init(hf_map *m);
void hf_map_free(hf_map *m);
/* Returns false when out of memory. */
bool hf_map_put(hf_map *m, uint64_t key, uint64_t val);
/* Returns a pointer to the value, or NULL. */
uint64_t *hf_map_get(hf_map *m, uint64_t key);
bool hf_map_remove(hf_map *m, uint64_t key);

/* ---- growable byte buffer ------------------------------------------------ */
typedef struct hf_buf {
	uint8_t *data;
	size_t len, cap;
} hf_buf;

static inline void hf_buf_init(hf_buf *b) { b->data = NULL; b->len = b->cap = 0; }
void hf_buf_free(hf_buf *b);
/* Grows b for extra more bytes (hf_buf_reserve's slow path). */
bool hf_buf_grow(hf_buf *b, size_t extra);
/* Tests: when set, a buffer does not grow past this many bytes, as if memory
 * ran out there (out-of-memory paths, which ASan's allocator never takes). */
extern size_t hf_buf_test_cap;
/* Room for extra more bytes; false out of memory.  Inline: the writers
 * reserve and append for every value of every record. */
static inline bool hf_buf_reserve(hf_buf *b, size_t extra)
{
	return b->cap - b->len >= extra || hf_buf_grow(b, extra);
}
static inline bool hf_buf_append(hf_buf *b, const void *p, size_t n)
{
	if (!hf_buf_reserve(b, n))
		return false;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	return true;
}
static inline void hf_buf_reset(hf_buf *b) { b->len = 0; }

/* The value of a hexadecimal digit, or -1. */
static inline int hf_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
bool hf_buf_printf(hf_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
/* Appends a JSON string literal (with quotes) for UTF-8 text. */
bool hf_buf_json_string(hf_buf *b, const char *s, size_t n);
/* For each ASCII byte, 0 when it stands as it is in a JSON string, else
 * the letter after the backslash ('u': \u00XX) (buf.c). */
#if defined(__GNUC__)
__attribute__((visibility("hidden"))) /* read directly, not through the GOT */
#endif
extern const char hf_json_esc[128];
/* ASCII c into a JSON string at o (room for six bytes); returns the end. */
static inline char *hf_json_ascii(char *o, unsigned c)
{
	char e = hf_json_esc[c];
	if (!e) {
		*o = (char)c;
		return o + 1;
	}
	o[0] = '\\';
	o[1] = e;
	if (e != 'u')
		return o + 2;
	o[2] = '0';
	o[3] = '0';
	o[4] = "0123456789ABCDEF"[c >> 4];
	o[5] = "0123456789ABCDEF"[c & 15];
	return o + 6;
}
/* The same for an object key: U+0000 becomes U+FFFD, since jansson (and so
 * the NDJSON reader) refuses a key with a NUL in it. */
bool hf_buf_json_key(hf_buf *b, const char *s, size_t n);
bool hf_buf_u64(hf_buf *b, uint64_t v);
/* s[0..n) as an unsigned 64-bit decimal: digits only (1 to 20 of them), no
 * sign, no overflow; false otherwise, *out untouched. */
bool hf_parse_u64(const char *s, size_t n, uint64_t *out);
/* ms since the Unix epoch as ISO 8601 UTC, with the milliseconds when
 * they are not 0 ("2023-11-14T22:13:20.123Z"); "" when no calendar date
 * can hold it.  buf: 40 bytes. */
void hf_iso8601_ms(uint64_t ms, char buf[40]);
bool hf_buf_i64(hf_buf *b, int64_t v);

/* Writes v in decimal at p (up to 20 bytes, no NUL); returns the end.  The
 * NDJSON writer's hot path: ids, sizes and labels of every node and edge.
 * The length first (from the bit length), then the digits from the end: eight
 * at a time while eight or more remain (hf_put_digits8), the rest two at a
 * time.  Formatting 20 M numbers of the Android-like benchmark dump's kinds
 * took 0.31-0.37 s with digits gathered in a scratch array and copied,
 * 0.24-0.29 s two at a time from the end; the eight at a time are for its
 * ten-digit ids (see hf_put_digits8).  test_unit checks it against printf. */
static const char hf_digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline char *hf_put_u32_back(char *e, uint32_t v)
{
	while (v >= 100) {
		uint32_t q = v / 100;
		e -= 2;
		memcpy(e, hf_digit_pairs + (v - q * 100) * 2, 2);
		v = q;
	}
	if (v >= 10) {
		e -= 2;
		memcpy(e, hf_digit_pairs + v * 2, 2);
	} else {
		*--e = (char)('0' + v);
	}
	return e;
}

/* The eight digits of v < 10^8 (leading zeros kept) at p.  In one 64-bit
 * word, a lane per group, so that the divisions run side by side instead
 * of one after another (two at a time from the end is a chain of four
 * dependent divisions by 100): the two halves of four digits in 32-bit
 * lanes, their two pairs in 16-bit lanes (x * 10486 >> 20 is x / 100 for
 * x < 10^4), their digits in bytes (x * 103 >> 10 is x / 10 for x < 100);
 * the most significant digit in the lowest byte.  test_unit checks every
 * value of each lane against printf. */
static inline void hf_put_digits8(char *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t x = (uint64_t)(v / 10000) | (uint64_t)(v % 10000) << 32;
	uint64_t hi = ((x * 10486) >> 20) & 0x0000007F0000007FULL;
	x = hi | (x - hi * 100) << 16;
	hi = ((x * 103) >> 10) & 0x000F000F000F000FULL;
	x = hi | (x - hi * 10) << 8;
	x |= 0x3030303030303030ULL;
	memcpy(p, &x, 8);
#else
	char *e = p + 8;
	for (int k = 0; k < 4; k++) {
		e -= 2;
		memcpy(e, hf_digit_pairs + (v % 100) * 2, 2);
		v /= 100;
	}
#endif
}

static inline char *hf_put_u64(char *p, uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
		10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull };
	/* Below 100 (a dump, subtype, heap, label or size, mostly): no digit
	 * count (a fifth of the instructions of the numbers of hprof2ndjson's
	 * run, cachegrind). */
	if (v < 100) {
		if (v < 10) {
			*p = (char)('0' + v);
			return p + 1;
		}
		memcpy(p, hf_digit_pairs + v * 2, 2);
		return p + 2;
	}
	/* floor(log10(v)) is (bit length * 1233) >> 12 or one more. */
	unsigned d = ((64 - (unsigned)__builtin_clzll(v)) * 1233) >> 12;
	char *end = p + d + (d < 20 && v >= pow10[d]);
	char *e = end;
	while (v >= 100000000) {
		uint64_t q = v / 100000000;
		e -= 8;
		hf_put_digits8(e, (uint32_t)(v - q * 100000000));
		v = q;
	}
	hf_put_u32_back(e, (uint32_t)v);
	return end;
}

/* Checked multiply/add for sizes taken from the input. */
static inline bool hf_mul_overflows(uint64_t a, uint64_t b, uint64_t *r)
{
	return __builtin_mul_overflow(a, b, r);
}

/* ---- String texts handed over undecoded (text.c, sink.c, ndjson.c) --------
 * The HPROF reader gives a String's text to a sink that takes it so (the
 * NDJSON writer, which decodes on its formatting thread) as the dump holds
 * it: Java's char[] (UTF-16, big-endian in HPROF), a JDK 9+ byte[] with
 * coder UTF16 (the VM's order: little-endian), Latin-1.  Internal, so that
 * the public hf_sink_ops keeps its size. */
typedef enum hf_text_encoding { HF_TEXT_UTF16BE, HF_TEXT_UTF16LE, HF_TEXT_LATIN1 } hf_text_encoding;

/* nunits code units of enc to UTF-8 (hf_utf16_decode, hf_latin1_decode);
 * out must hold HF_TEXT_OUT_MAX(nunits) bytes.  Returns bytes written. */
size_t hf_text_decode(hf_text_encoding enc, const uint8_t *in, size_t nunits, char *out);
#define HF_TEXT_OUT_MAX(nunits) ((nunits) * 3 + 4)
/* Appends the JSON string (quoted and escaped as hf_buf_json_string) of
 * nunits units of enc: the two steps in one pass.  False: out of memory. */
bool hf_buf_json_text(hf_buf *b, hf_text_encoding enc, const uint8_t *in, size_t nunits);
/* Whether s decodes texts itself (hf_sink_string_encoded is then cheaper
 * for the caller than decoding and hf_sink_string). */
bool hf_sink_takes_encoded(const hf_sink *s);
/* A string record whose text is nunits units of enc at data (read during
 * the call only); a sink that does not take it so gets it decoded. */
hf_status hf_sink_string_encoded(hf_sink *s, uint64_t id, hf_text_encoding enc, const uint8_t *data,
                                 size_t nunits, hf_error *err);
/* n edges of one type, source and dump, to to[i].dest labelled
 * to[i].label, in that order (the same records as n calls of
 * hf_sink_edge). */
typedef struct hf_edge_to {
	uint64_t dest, label;
} hf_edge_to;
hf_status hf_sink_edges(hf_sink *s, const hf_type *type, uint64_t source, uint32_t dump, size_t n,
                        const hf_edge_to *to, hf_error *err);
/* ndjson.c's side of the three above (hf_sink_string_encoded checks nunits). */
bool hf_ndjson_sink_is(const hf_sink *s);
hf_status hf_ndjson_string_encoded(hf_sink *s, uint64_t id, hf_text_encoding enc, const uint8_t *data,
                                   size_t nunits, hf_error *err);
hf_status hf_ndjson_edges(hf_sink *s, const hf_type *type, uint64_t source, uint32_t dump, size_t n,
                          const hf_edge_to *to, hf_error *err);

/* ---- heap database names (heapdb.c) --------------------------------------- */
/* Whether s can name a table or column the writer makes: letters, digits
 * and '_', not a digit first, at most 64 bytes. */
bool hf_heapdb_valid_name(const char *s);
/* The table of a record type declared without one: the name with '.' and
 * '-' as '_' (cut to size - 1 bytes). */
void hf_heapdb_record_table(const char *name, char *out, size_t size);

/* ---- analysis (analysis.c) ---------------------------------------------- */
/* Analyses the heap database open on db inside the caller's transaction:
 * (re)creates node_analysis and dump_analysis. */
struct sqlite3;
/* The same, and beside(ctx, err) on the calling thread while the first
 * dump's dominators are computed on another (once the analysis has read what
 * it needs; it uses the connection meanwhile, the computation does not).
 * beside may use the connection, but the analysis has already read the
 * tables: the heap database writer fills its indexes then.  Not called when
 * the analysis ends before (no nodes, a failure). */
typedef hf_status (*hf_analysis_beside)(void *ctx, hf_error *err);
/* The graph of the database's only dump as its writer put it into the
 * tables, given to the analysis so that it need not read node and edge:
 * rows (identifier, class, size, 0) of every node and (source, dest, label,
 * edgetypeid) of every edge, both sorts finished (hf_rowsort_finish) and
 * read once.  With it, the analysis also reads the graph on the second
 * thread, beside beside(). */
struct hf_rowsort;
typedef struct hf_analysis_graph {
	struct hf_rowsort *nodes, *edges;
	int64_t dump;
} hf_analysis_graph;
hf_status hf_analysis_run_beside(struct sqlite3 *db, const hf_analysis_options *opt,
                                 hf_analysis_stats *stats, const hf_analysis_graph *graph,
                                 hf_analysis_beside beside, void *ctx, hf_error *err);
hf_status hf_analysis_run(struct sqlite3 *db, const hf_analysis_options *opt,
                          hf_analysis_stats *stats, hf_error *err);

/* The index of id in ids[0..n), sorted ascending; n when it is not there. */
static inline size_t hf_find_id(const int64_t *ids, size_t n, int64_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ids[lo] == id ? lo : n;
}

/* A directory over sorted ids (id_index.c): bucket b holds the ids whose offset
 * from the smallest, shifted right by shift, is b, so a lookup is one
 * directory read and a binary search over a few neighbours instead of
 * log2(n) cache misses across the whole array (object ids are addresses,
 * spread evenly enough).  Costs at most 2 bytes per id; without a directory
 * (allocation failed, or too many ids) lookups are plain binary searches. */
typedef struct hf_id_index {
	const int64_t *ids;
	size_t n;
	uint32_t *dir; /* nb + 1 entries: dir[b] = first index of bucket b */
	uint64_t nb;
	int64_t min;
	unsigned shift;
} hf_id_index;

void hf_id_index_build(hf_id_index *x, const int64_t *ids, size_t n);
void hf_id_index_free(hf_id_index *x);
size_t hf_id_index_bytes(const hf_id_index *x);

/* The index of id in the indexed ids; n when it is not there. */
static inline size_t hf_id_index_find(const hf_id_index *x, int64_t id)
{
	if (!x->dir)
		return hf_find_id(x->ids, x->n, id);
	if (id < x->min)
		return x->n;
	uint64_t b = ((uint64_t)id - (uint64_t)x->min) >> x->shift;
	if (b >= x->nb)
		return x->n;
	size_t lo = x->dir[b], hi = x->dir[b + 1];
	size_t i = lo + hf_find_id(x->ids + lo, hi - lo, id);
	return i < hi ? i : x->n;
}

/* A thread with its lock and condition: hf_thread_start initialises them and
 * starts main(arg) (false, and nothing to undo, when it cannot);
 * hf_thread_stop sets *stop under the lock, wakes the thread, waits for it
 * to end and destroys them. */
bool hf_thread_start(pthread_t *t, pthread_mutex_t *mu, pthread_cond_t *cv,
                     void *(*main)(void *), void *arg);
void hf_thread_stop(pthread_t t, pthread_mutex_t *mu, pthread_cond_t *cv, int *stop);

/* ---- hf_worker: one background job at a time ------------------------------
 * The owner fills a buffer, hf_worker_wait()s for the previous job to end,
 * swaps its buffers and hf_worker_post()s: run(arg) then works on the other
 * buffer on the worker thread.  Whatever run() leaves in arg (its result,
 * its error) is the owner's to read after the next hf_worker_wait().
 * hf_worker_start() returns false when no thread can be made (the owner does
 * the job itself); hf_worker_stop() waits for the job and ends the thread. */
typedef struct hf_worker {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int started, busy, stop;
	void (*run)(void *arg);
	void *arg;
} hf_worker;

bool hf_worker_start(hf_worker *w, void (*run)(void *arg), void *arg);
void hf_worker_wait(hf_worker *w);
void hf_worker_post(hf_worker *w);
void hf_worker_stop(hf_worker *w);

/* Whether values of this kind are texts (hf_value.s, .n). */
static inline bool hf_field_is_text(hf_field_kind k)
{
	return k == HF_FIELD_TEXT || k == HF_FIELD_JSON;
}

/* ---- what an input is, from its first bytes (kind.c) ------------------------- */
typedef enum hf_kind {
	HF_KIND_UNKNOWN, HF_KIND_HPROF, HF_KIND_SQLITE, HF_KIND_DDM, HF_KIND_ZIP, HF_KIND_V8, HF_KIND_NDJSON
} hf_kind;
#define HF_KIND_BIT(k) (1u << (k))
hf_kind hf_kind_of(const uint8_t *p, size_t n);
/* "an HPROF heap dump (hprof2ndjson and hprof2heapdb read it)", or NULL. */
const char *hf_kind_name(hf_kind k);
/* At a reader's start: an HF_ERR_FORMAT at offset 0, "not WHAT: it is
 * KIND", when the input's first bytes are those of a kind in refused
 * (HF_KIND_BIT of each), else HF_OK (the reading finds out the rest). */
hf_status hf_kind_refuse(hf_input *in, unsigned refused, const char *what, hf_error *err);
/* At a reader's start: an input with no bytes at all (what a failed jcmd
 * or am dumpheap leaves) is an HF_ERR_FORMAT at offset 0, "the input is
 * empty"; a read error is returned as it is. */
hf_status hf_refuse_empty(hf_input *in, hf_error *err);
/* hf_kind_name of a file's first bytes (NULL: none known, or unreadable):
 * for "not a SQLite database". */
const char *hf_kind_of_path(const char *path);
/* ": it is KIND" for a file hf_kind_of_path names, else "". */
#define HF_KIND_HINT(kind) (kind) ? ": it is " : "", (kind) ? (kind) : ""

/* ---- whole reads and writes (fileio.c) ----------------------------------------
 * Each loops over short counts and EINTR and returns 0 or an errno (EIO for a
 * write that writes nothing); hf_pread_full's *got < n: the file ends first. */
int hf_write_full(int fd, const void *p, size_t n);
int hf_pwrite_full(int fd, const void *p, size_t n, uint64_t off);
int hf_pread_full(int fd, void *p, size_t n, uint64_t off, size_t *got);

/* ---- reading the input at an offset (input.c) -------------------------------
 * For a plain (uncompressed) regular file or memory input: n bytes at offset
 * off of the stream (counted as hf_input_offset counts, from where the input
 * started: standard input may start past the file's first byte), without
 * moving the stream; *got < n means the input ends first. */
int hf_input_can_read_at(const hf_input *in);
/* For a compressed regular file: a second, independent reading of the same
 * file from its first byte (a look ahead further than a peek can hold);
 * HF_ERR_UNSUPPORTED for other inputs. */
hf_status hf_input_reopen(const hf_input *in, hf_input **out, hf_error *err);
hf_status hf_input_read_at(hf_input *in, uint64_t off, void *dst, size_t n, size_t *got,
                           hf_error *err);
/* For a stream that can be read only once (a pipe, plain or gzip): n
 * bytes at offset off of the (inflated) stream, at or past the window's
 * start, read ahead of the reading into a temporary file (the spool; the
 * reading then takes them from there) as far as off + n but not past
 * stream offset limit, nor past half of $TMPDIR's free space.  *got < n:
 * the input ends or fails first (the reading meets the failure after the
 * bytes before it), or a bound was met (*bounded set then), or off is out
 * of reach.  HF_ERR_UNSUPPORTED for other inputs, and when no spool can be
 * made. */
int hf_input_can_spool(const hf_input *in);
hf_status hf_input_spool_read(hf_input *in, uint64_t off, void *dst, size_t n, uint64_t limit,
                              size_t *got, int *bounded, hf_error *err);
/* Tests: 1 makes the spool fail to be made, as when $TMPDIR is unwritable;
 * 2 makes its writes fail after the first (ENOSPC). */
extern int hf_input_test_spool_fail;
/* Tests (hprof.c): 1 makes the HPROF reader's passes for late Strings read
 * the whole input again instead of its index of text arrays. */
extern int hf_hprof_test_reread;
/* Tests (hprof.c): the size model's look-ahead windows, in bytes (0: 16 MiB),
 * and how far ahead of its reading a pipe is held for it (0: 48 MiB). */
extern size_t hf_hprof_test_sniff_window;
extern uint64_t hf_hprof_test_pipe_max;
/* Tests (hprof.c): the pass over the index for parked Strings reads their
 * records in batches of hf_hprof_test_pf_batch (0: its own size), and fails
 * at record hf_hprof_test_pf_fail (from 1); parked Strings go to the park
 * file in sorted runs of hf_hprof_test_park_run (0: its own size). */
extern size_t hf_hprof_test_pf_batch;
extern uint64_t hf_hprof_test_pf_fail;
extern size_t hf_hprof_test_park_run;
/* Tests (hprof.c): late Strings looked at by the passes, all runs together
 * (each at most twice a pass: see resolve_late). */
extern uint64_t hf_hprof_test_late_walk;
/* Tests (hprof.c): when set, a write that would take a pipe's text spool
 * past this many bytes fails, as a full disk would make it. */
extern uint64_t hf_hprof_test_spool_limit;
/* Tests (hprof.c): the limit of a dump's classes' values texts in all (0: the
 * default). */
extern size_t hf_hprof_test_class_values;
/* Tests (ndjson_reader.c): the size from which the NDJSON reader checks a
 * line's arrays and objects with hf_json_check instead of jansson (0: 64 KiB). */
extern size_t hf_ndjson_test_big_value;

/* json_check.c: whether text[0, n) is one JSON value (whitespace around it
 * allowed) that jansson's json_loadb would take with JSON_DECODE_ANY |
 * JSON_ALLOW_NUL, not counting integers past 2^63-1; depth is the value's
 * own depth in its document as jansson counts it (1 for a whole document, 2
 * for a member of a line's object).  When it is not, *bad_at (if not NULL)
 * is about where it goes wrong. */
bool hf_json_check(const char *text, size_t n, size_t depth, size_t *bad_at);
/* The same, and *too_deep (if not NULL): whether it goes wrong there by
 * passing jansson's maximum depth (JSON_PARSER_MAX_DEPTH). */
bool hf_json_check_why(const char *text, size_t n, size_t depth, size_t *bad_at, bool *too_deep);

/* ---- hf_queue: records handed to a second thread in blocks ---------------
 * The owner copies each record into q (hf_queue_room, then hf_queue_put);
 * when q would pass `block` bytes it joins the blocks waiting for the
 * thread, which calls run(ctx, records, end, err) on each in turn while the
 * owner fills another.  Up to HF_QUEUE_DEPTH blocks wait or run at once, so
 * that the thread need not wait for the owner to be scheduled between two
 * blocks (with one block waiting, the database writer's thread sat idle
 * 2.4 s of the 18 s load of the 1 GB benchmark dump, 1.35 s with four
 * blocks; perf sched, 2026-11-23; 16 blocks did no better).
 * A queue smaller than one block when drained runs on the owner's thread
 * (no thread for small inputs), as does every block when no thread can be
 * made.  The first failure of run() stops the queue: nothing more runs, and
 * it is returned (with its error) by the next hf_queue_room that hands off,
 * or by hf_queue_drain.
 * After hf_queue_drain() the thread is idle and the owner may touch what
 * run() uses; after hf_queue_stop() it is gone.  The NDJSON and database
 * writers and the analysis use it. */
typedef hf_status (*hf_queue_run)(void *ctx, const uint8_t *p, const uint8_t *end,
                                  hf_error *err);
#define HF_QUEUE_DEPTH 4
typedef struct hf_queue {
	hf_buf q;            /* being filled by the owner */
	hf_buf ring[HF_QUEUE_DEPTH];  /* [head, head + nfull) (mod depth): waiting or
	                               * running (ring[head]); the others empty */
	unsigned head, nfull;
	size_t block;
	hf_queue_run run;
	void *ctx;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;   /* nfull or stop changed */
	int started, stop;
	hf_status status;    /* the first failure, and its error */
	hf_error err;
} hf_queue;

void hf_queue_init(hf_queue *qu, size_t block, hf_queue_run run, void *ctx);
hf_status hf_queue_room_slow(hf_queue *qu, size_t n, hf_error *err);
/* Room for n more bytes in q, handing it off first when they would pass the
 * block.  Inline for the usual case (the room is there), which every node,
 * edge and row of the writers takes. */
static inline hf_status hf_queue_room(hf_queue *qu, size_t n, hf_error *err)
{
	if (qu->q.len + n <= qu->q.cap && (qu->q.len + n <= qu->block || !qu->q.len))
		return HF_OK;
	return hf_queue_room_slow(qu, n, err);
}
hf_status hf_queue_drain(hf_queue *qu, hf_error *err);
/* Ends the thread after the blocks handed off; after hf_queue_drain, or the
 * records still in q are dropped. */
void hf_queue_stop(hf_queue *qu);
void hf_queue_free(hf_queue *qu);   /* hf_queue_stop, and frees */

/* After hf_queue_room(qu, n): n bytes may be put. */
static inline void hf_queue_put(hf_queue *qu, const void *p, size_t n)
{
	memcpy(qu->q.data + qu->q.len, p, n);
	qu->q.len += n;
}

static inline void hf_queue_get(const uint8_t **p, void *out, size_t n)
{
	memcpy(out, *p, n);
	*p += n;
}

/* A scratch file, "w+b", unlinked: in $TMPDIR when set, else tmpfile()'s
 * directory (tempfile.c). */
FILE *hf_tmpfile(void);
const char *hf_tmpdir(void);
const char *hf_sqlite_tmpdir(void);
/* Whether an SQLite result code (primary or extended) says the database
 * file is damaged or not a database: bad input, as a damaged dump is
 * (heapdb.c). */
int hf_sqlite_damaged(int code);
/* What SQLite's message ("attempt to write a readonly database") leaves
 * out when a read-only opening meets the hot journal of a write cut short:
 * the cause and the way out, with a leading space; else "" (heapdb.c). */
struct sqlite3;
const char *hf_sqlite_hint(struct sqlite3 *db);
/* HF_ERR_FORMAT, naming path, when the metadata table of database schema
 * ("main", or an attached one) holds a version_major other than
 * HEAPFMT_FORMAT_MAJOR: a later major version of the extensible heap-dump
 * format may change what any record means.  HF_OK otherwise, and when the
 * table or the key is missing or cannot be read (the caller's own reading
 * reports those) (heapdb_reader.c). */
hf_status hf_heapdb_check_major(struct sqlite3 *db, const char *schema, const char *path, hf_error *err);
/* Their words for a version_major (%s, the value) other than HEAPFMT_FORMAT_MAJOR. */
#define HF_MAJOR_REFUSED \
	"version_major is \"%.20s\": this reader knows version " HEAPFMT_FORMAT_MAJOR \
	" of the extensible heap-dump format only"
int hf_tmpfd_in(const char *dir);
/* An output's temporary file beside path ("<dir>/.<base>.tmp-XXXXXX", mode
 * 0666 less the umask, or the permission bits mode when it is not -1: those
 * of the file it is to replace, whose permissions a dump's output keeps),
 * open read-write; its name in *tmp_out, kept for hf_remove_partial_outputs
 * until hf_temp_kept (renamed into place) or hf_temp_drop (unlinked); both
 * free the name and set it NULL. */
int hf_make_temp_beside(const char *path, int mode, char **tmp_out);
void hf_temp_kept(char **tmp);
void hf_temp_drop(char **tmp);
/* Where the output named path goes (tempfile.c).  in_place: written at path
 * itself, without a rename, which would replace it: a device, FIFO or
 * socket, or a descriptor's name reached through a link (/dev/stdout,
 * /dev/fd/N, /proc/PID/fd/N: the file standard output is, appended to
 * perhaps).  Else path names the regular file (there or not yet) to build
 * beside and rename onto: the path given, or the file its symbolic links
 * lead to (the links stay, as a shell's redirection leaves them); mode is
 * that file's permission bits when it exists (-1 when not), for its
 * replacement.  is_dir: a directory is there.  is_fd (with in_place): path
 * is, or its links lead to, a descriptor's name.  0, or ENOMEM. */
typedef struct hf_out_target {
	char *path;
	int in_place, is_dir, mode, is_fd;
} hf_out_target;
int hf_out_resolve(const char *path, hf_out_target *t);
/* The descriptor a path names (/dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N), or -1: written through a duplicate of it, where the
 * shell's redirection put it (appending, say), not reopened and truncated. */
int hf_out_descriptor(const char *path);
/* fopen(path, "wb") for an output written in place, but through a
 * duplicate of the descriptor path names (hf_out_descriptor). */
FILE *hf_out_open_in_place(const char *path);

/* ---- hf_writebehind: a large output file written behind (writebehind.c) ---
 * hf_writebehind_init(wb, fd) on the descriptor an output is written to;
 * hf_writebehind_write(wb, p, n) instead of write(2) (0 or an errno);
 * hf_writebehind_finish(wb) after the last write (0 or an errno; the
 * descriptor's offset is then the output's end); hf_writebehind_free(wb)
 * always, last.  On anything but a regular file, or another system than
 * Linux, the writes are plain writes (to a pipe widened first,
 * hf_pipe_widen). */
#define HF_WB_DEPTH 4
#define HF_WB_DIRECT_BUFS 4
#define HF_WB_DIRECT_THREADS 2
typedef struct hf_wb_direct hf_wb_direct;
typedef struct hf_writebehind {
	int out;                 /* the descriptor written to */
	int fd;                  /* the same, written behind; -1: off */
	uint64_t pos, flushed, start;
	uint64_t behind;         /* without direct writes, written behind from here */
	uint64_t cached_to;      /* with them, the page cache takes the output up to here */
	int disk_behind;         /* tests (hf_writebehind_test_cache) */
	uint64_t from[HF_WB_DEPTH], len[HF_WB_DEPTH];   /* the chunks in flight */
	unsigned head, count;
	uint64_t written_behind; /* bytes handed to the disk early, for the tests */
	uint64_t written_direct; /* of which bypassing the page cache, for the tests */
	uint64_t written_cached; /* past start, through the page cache while the disk was behind */
	uint64_t written_lent;   /* direct without a copy (hf_writebehind_write_buf), for the tests */
	int error;               /* an errno of the disk's the waits saw, or 0 */
	hf_wb_direct *direct;    /* past start: the writes bypass the page cache */
	int direct_tried;
} hf_writebehind;
void hf_writebehind_init(hf_writebehind *wb, int fd);
int hf_writebehind_write(hf_writebehind *wb, const void *p, size_t n);
/* Writes b's bytes as hf_writebehind_write would (0 or an errno), but past
 * the start of direct writes without copying them: b's storage then goes
 * to the disk and b gets a free direct buffer (aligned, 4 MiB) in
 * exchange, keeping the bytes past the last 4 KiB block (b->len), which
 * the next call writes, or the caller with hf_writebehind_write before
 * hf_writebehind_finish. */
int hf_writebehind_write_buf(hf_writebehind *wb, hf_buf *b);
/* How full a caller's buffer should get before hf_writebehind_write_buf:
 * `plain`, or larger once the writes are direct. */
size_t hf_writebehind_batch(const hf_writebehind *wb, size_t plain);
int hf_writebehind_finish(hf_writebehind *wb);
void hf_writebehind_free(hf_writebehind *wb);
/* For the tests: 0 keeps the writes in the page cache (sync_file_range
 * alone, as where O_DIRECT cannot be had). */
extern int hf_writebehind_test_direct;
/* For the tests: past this many direct writes, act as if the file system
 * refused O_DIRECT (EINVAL); 0: never.  When set, each direct write is
 * waited for as it is handed off, so that the refusal is seen at once. */
extern unsigned hf_writebehind_test_refuse;
/* For the tests: where the outputs begin to be written behind, in bytes
 * from where they start (0: 512 MiB, or the kernel's background limit if
 * less). */
extern uint64_t hf_writebehind_test_start;
/* For the tests: the page cache's share of an output written direct, in
 * bytes from where it starts (0: the kernel's background limit); when set,
 * direct writes use it as if the disk were always behind. */
extern uint64_t hf_writebehind_test_cache;
/* For the tests: nonzero, a direct write waits for the disk however long
 * it lags, never sending a buffer's worth through the page cache instead
 * (the bytes' split is then the same in every run). */
extern int hf_writebehind_test_wait;

/* An errno that says the disk failed a write (EIO, ENOSPC, EDQUOT), to be
 * reported, rather than that a call is not supported here. */
static inline bool hf_disk_error(int e)
{
	return e == EIO || e == ENOSPC || e == EDQUOT;
}

/* Bytes the kernel lets be dirty before its background writeback starts
 * (vm.dirty_background_bytes, or vm.dirty_background_ratio of the available
 * memory; 1 GiB when unknown). */
uint64_t hf_dirty_background_limit(void);

/* A pipe (fd, either end) widened to HF_PIPE_SIZE bytes when it is smaller
 * and the system allows it (Linux; the default is 16 pages, 64 KiB on 4 KiB
 * pages; fs.pipe-max-size, 1 MiB by default, bounds an unprivileged user,
 * and so does fs.pipe-user-pages-soft, 64 MiB of pipes in all by default,
 * past which the user's new pipes stay small); on anything else, or when
 * refused, nothing changes.  Only the number of hand-offs between the two
 * processes changes, never the bytes. */
#define HF_PIPE_SIZE ((size_t)1 << 20)
void hf_pipe_widen(int fd);

#ifdef __linux__
/* Writes out what is dirty of [from, from + len) of fd, waits until all of
 * it is on the disk and drops it from the page cache: 0, or -1 and errno
 * (sync_file_range's). */
int hf_flush_and_drop(int fd, uint64_t from, uint64_t len);
#endif

/* ---- hf_dropbehind: a file another writer fills, dropped behind it ---------
 * (dropbehind.c) hf_dropbehind_start(d, fd) on a descriptor of the file,
 * which it owns from then on; hf_dropbehind_stop(d) after the writer's
 * last write looks a last time and closes: 0, or an errno of the disk's
 * (hf_disk_error) that the waits saw.  On another system than Linux,
 * nothing but the close. */
typedef struct hf_dropbehind {
	int fd;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop, started;
	bool on;                 /* no look failed yet */
	uint64_t start, chunk, keep, behind, dropped;
	uint64_t written_behind, dropped_bytes;   /* for the tests, after the stop */
	int error;
} hf_dropbehind;
void hf_dropbehind_start(hf_dropbehind *d, int fd);
int hf_dropbehind_stop(hf_dropbehind *d);
/* For the tests: the size past which the file is dropped behind (0: the
 * kernel's background limit); when set, 64 KiB are handed to the disk at
 * once and kept below the end. */
extern uint64_t hf_dropbehind_test_start;

/* ---- hf_huge: arrays read at random, on huge pages (bigmem.c) -------------
 * hf_huge_alloc(bytes): zeroed memory, like calloc, whose pages the kernel
 * may back with 2 MiB pages (Linux: an anonymous mapping aligned to 2 MiB
 * and advised MADV_HUGEPAGE; elsewhere calloc).  For a table looked up at
 * random that is much larger than the TLB covers; free with hf_huge_free
 * and the same size. */
void *hf_huge_alloc(size_t bytes);
void hf_huge_free(void *p, size_t bytes);

/* ---- hf_bigmem: large arrays in mapped temporary files (bigmem.c) ----------
 * hf_bigmem_new(limit) watches the process's resident size and, above limit
 * bytes, releases the mapped pages of its arrays (they stay in the file and
 * the page cache, and come back when touched); limit 0: plain malloc.
 * alloc/realloc/release are malloc/realloc/free for arrays of any size
 * (realloc needs the old size); NULL when out of memory. */
typedef struct hf_bigmem hf_bigmem;
hf_bigmem *hf_bigmem_new(size_t limit);
void *hf_bigmem_alloc(hf_bigmem *m, size_t bytes);
void *hf_bigmem_realloc(hf_bigmem *m, void *p, size_t old_bytes, size_t bytes);
void hf_bigmem_release(hf_bigmem *m, void *p);
/* Bytes released so far; *sweeps (when not NULL): sweeps that left the
 * process above the limit all the same (then it backs off). */
uint64_t hf_bigmem_released(hf_bigmem *m, uint64_t *sweeps);
void hf_bigmem_free(hf_bigmem *m);
/* For the thread that walks the arrays, every hundred steps or so of a
 * long loop: looks at the resident size itself (and releases) when no look
 * was taken for a while (bigmem.c says why); a clock read otherwise. */
void hf_bigmem_pace(hf_bigmem *m);
/* For the tests: when set, hf_bigmem_new starts no watching thread and the
 * test takes each look itself with hf_bigmem_test_look (what the thread
 * does every few ms), so that what a look decides does not hang on when
 * the thread runs. */
extern int hf_bigmem_test_manual;
void hf_bigmem_test_look(hf_bigmem *m);

/* ---- presorted indexes (presorted.c) ---------------------------------------
 * Big indexes are created empty before their table is filled and filled at
 * the end from sorted keys, through imposter tables (presorted.c says why
 * and how).  hf_imposter_open makes the imposter table name over the b-tree
 * of object (an index, or a WITHOUT ROWID table), with the columns decl
 * ("a, b, c, PRIMARY KEY (a, b)"); false when the library cannot, and then
 * nothing was made.  hf_imposters_close forgets them all (statements that
 * name them must be finalized first). */
bool hf_imposter_open(struct sqlite3 *db, const char *object, const char *name, const char *decl);
void hf_imposters_close(struct sqlite3 *db);

/* Rows handed to an INSERT one at a time: next() fills row (bit c of
 * *nulls set: column c is NULL) and returns 1, 0 at the end, -1 on failure
 * (having set failed and its error). */
#define HF_ROW_MAX 6
typedef struct hf_row_feed {
	int (*next)(struct hf_row_feed *f, int64_t row[HF_ROW_MAX], unsigned *nulls);
	void *ctx;
	hf_status failed;
} hf_row_feed;
#define HF_ROW_FEED_POINTER "heapfmt.row_feed"
/* INSERT INTO main."table" (an imposter, or not) the first ncols columns
 * of every row of f; *rows: how many went in. */
hf_status hf_row_feed_insert(struct sqlite3 *db, const char *table, unsigned ncols,
                             hf_row_feed *f, uint64_t *rows, hf_error *err);

/* hf_rowsort: rows of four integers sorted (signed, column by column) in
 * runs of at most rows_per_run, sorted on a thread of their own and kept in
 * a temporary file (packed: presorted.c), then merged. */
typedef struct hf_row4 {
	int64_t k[4];
} hf_row4;
#define HF_ROWSORT_ROWS ((size_t)1 << 19)   /* 16 MiB a buffer */
struct run_reader;
typedef struct hf_rowsort {
	hf_row4 *fill, *work, *tmp;
	size_t cap, nfill, nwork;
	FILE *file;
	uint64_t written;          /* rows in the file */
	uint64_t bytes;            /* bytes in the file (the runs are packed) */
	uint64_t *run_end;         /* [nruns]: row where each run ends */
	uint64_t *run_bytes;       /* [nruns]: byte where each run ends */
	uint8_t *pack;             /* packing a run; reading the runs in the merge */
	size_t nruns, caprun;
	hf_worker worker;
	bool threaded, merging;
	int werr;                  /* errno of the worker's failure */
	struct run_reader *readers;
	uint32_t *heap;
	size_t nheap;
	bool prefetch;             /* the merge runs ahead on the worker */
	hf_row4 *ahead[2];         /* blocks of merged rows: one read, one filled */
	size_t ahead_n[2], mpos;
	int mcur, mfill;
} hf_rowsort;

bool hf_rowsort_init(hf_rowsort *s, size_t rows_per_run);   /* 0: HF_ROWSORT_ROWS */
hf_status hf_rowsort_spill(hf_rowsort *s, hf_error *err);
static inline hf_status hf_rowsort_add(hf_rowsort *s, int64_t a, int64_t b, int64_t c, int64_t d,
                                       hf_error *err)
{
	if (s->nfill == s->cap) {
		hf_status st = hf_rowsort_spill(s, err);
		if (st)
			return st;
	}
	hf_row4 *r = &s->fill[s->nfill++];
	r->k[0] = a;
	r->k[1] = b;
	r->k[2] = c;
	r->k[3] = d;
	return HF_OK;
}
/* No more rows: the merge begins (a second call does nothing). */
hf_status hf_rowsort_finish(hf_rowsort *s, hf_error *err);
/* The next row in order: 1, 0 at the end, -1 when the file cannot be read. */
int hf_rowsort_next(hf_rowsort *s, hf_row4 *out);
/* After hf_rowsort_finish, before the first hf_rowsort_next: the merge runs
 * a block ahead on a thread of its own (the rows the same).  false (no
 * memory or no thread for it, or called before the finish): the merge stays
 * on the caller's thread. */
bool hf_rowsort_prefetch(hf_rowsort *s);
void hf_rowsort_free(hf_rowsort *s);

#endif
