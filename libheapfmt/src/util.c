/* Hash map, growable buffer and JSON text helpers; whole reads and writes. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* ---- whole reads and writes --------------------------------------------------- */

/* Writes all n bytes at *off (advanced), or at the descriptor's offset
 * when off is NULL; 0 or an errno value. */
static int write_loop(int fd, const void *p, size_t n, uint64_t *off)
{
	const uint8_t *c = p;
	while (n) {
		ssize_t r = off ? pwrite(fd, c, n, (off_t)*off) : write(fd, c, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno;
		if (r == 0)
			return EIO;
		c += r;
		n -= (size_t)r;
		if (off)
			*off += (uint64_t)r;
	}
	return 0;
}

int hf_write_full(int fd, const void *p, size_t n)
{
	return write_loop(fd, p, n, NULL);
}

int hf_pwrite_full(int fd, const void *p, size_t n, uint64_t off)
{
	return write_loop(fd, p, n, &off);
}

int hf_pread_full(int fd, void *p, size_t n, uint64_t off, size_t *got)
{
	*got = 0;
	while (*got < n) {
		uint64_t at = off + *got;
		if (at < off || at > (uint64_t)INT64_MAX)
			break; /* past any file's end */
		ssize_t r = pread(fd, (uint8_t *)p + *got, n - *got, (off_t)at);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno;
		if (r == 0)
			break;
		*got += (size_t)r;
	}
	return 0;
}

/* ---- hf_id_index ---------------------------------------------------------- */

void hf_id_index_build(hf_id_index *x, const int64_t *ids, size_t n)
{
	memset(x, 0, sizeof *x);
	x->ids = ids;
	x->n = n;
	if (n < 64 || n >= UINT32_MAX)
		return;
	/* About four ids a bucket: the fewest buckets, a power of two wide,
	 * that cover min..max with at most n / 4 of them. */
	uint64_t range = (uint64_t)ids[n - 1] - (uint64_t)ids[0];
	uint64_t want = n / 4;
	unsigned shift = 0;
	while (shift < 63 && (range >> shift) >= want)
		shift++;
	uint64_t nb = (range >> shift) + 1;
	x->dir = malloc((size_t)(nb + 1) * sizeof *x->dir);
	if (!x->dir)
		return;
	x->nb = nb;
	x->min = ids[0];
	x->shift = shift;
	size_t i = 0;
	for (uint64_t b = 0; b < nb; b++) {
		while (i < n && (((uint64_t)ids[i] - (uint64_t)x->min) >> shift) < b)
			i++;
		x->dir[b] = (uint32_t)i;
	}
	x->dir[nb] = (uint32_t)n;
}

size_t hf_id_index_bytes(const hf_id_index *x)
{
	return x->dir ? (size_t)(x->nb + 1) * sizeof *x->dir : 0;
}

void hf_id_index_free(hf_id_index *x)
{
	free(x->dir);
	memset(x, 0, sizeof *x);
}

/* ---- hf_map -------------------------------------------------------------- */

/*
 * Open addressing with linear probing over murmur3's finalizer of the key.
 * The finalizer can be run backwards, so a crafted input can choose ids that
 * all fall in one slot (an HPROF of 40,000 such UTF8 records, 909 KB, took
 * 2.0 s against 0.02 s; the time grows with the square of the records).  A
 * map counts its probes: when they pass MAP_PROBES_PER_OP for each lookup,
 * insertion or removal since the last rehash, plus MAP_PROBES_FREE, the next
 * insertion rehashes it with a random seed, which the input cannot know.
 * Ordinary keys average one to three probes, so their maps keep seed 0 and
 * the slot order the readers walk in a few places (hprof.c: park_map,
 * dump_close, rescan_late_without_input), and with it the order of the
 * records written, stays the same from run to run; only a map that was
 * attacked gets an order of its own.
 */
#define MAP_PROBES_PER_OP 32
#define MAP_PROBES_FREE 4096

static inline size_t map_hash(const hf_map *m, uint64_t k)
{
	k ^= m->seed;
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return (size_t)k;
}

void hf_map_init(hf_map *m) { memset(m, 0, sizeof *m); }

void hf_map_free(hf_map *m)
{
	free(m->slots);
	memset(m, 0, sizeof *m);
}

uint64_t hf_random_u64(void)
{
	uint64_t seed = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, &seed, sizeof seed) != (ssize_t)sizeof seed)
			seed = 0;
		close(fd);
	}
	if (!seed) {
		/* No /dev/urandom: the clock and addresses (ASLR). */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		static uint64_t calls;
		seed = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^
		       ((uint64_t)(uintptr_t)&ts << 17) ^ (uint64_t)(uintptr_t)&calls ^ ++calls * 0x9E3779B97F4A7C15ULL;
	}
	return seed;
}

/* Rehashes into ncap slots (a power of two); with reseed, with a new seed. */
static bool map_rehash(hf_map *m, size_t ncap, bool reseed)
{
	hf_map_slot *ns = malloc(ncap * sizeof *ns);
	if (!ns)
		return false;
	memset(ns, 0xFF, ncap * sizeof *ns); /* every key HF_MAP_EMPTY (all ones) */
	if (reseed) {
		m->seed = hf_random_u64() | 1;
		m->ops = m->probes = 0;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key != HF_MAP_EMPTY) {
			size_t j = map_hash(m, m->slots[i].key) & (ncap - 1);
			while (ns[j].key != HF_MAP_EMPTY)
				j = (j + 1) & (ncap - 1);
			ns[j] = m->slots[i];
		}
	free(m->slots);
	m->slots = ns;
	m->cap = ncap;
	return true;
}

bool hf_map_put(hf_map *m, uint64_t key, uint64_t val)
{
	if (key == HF_MAP_EMPTY) {
		if (!m->has_empty_key)
			m->count++;
		m->has_empty_key = 1;
		m->empty_key_val = val;
		return true;
	}
	if ((m->count + 1) * 4 > m->cap * 3 && !map_rehash(m, m->cap ? m->cap * 2 : 64, false))
		return false;
	/* (A failed rehash leaves the map as it was: slow, not wrong.) */
	if (m->probes > MAP_PROBES_PER_OP * m->ops + MAP_PROBES_FREE)
		map_rehash(m, m->cap, true);
	m->ops++;
	size_t j = map_hash(m, key) & (m->cap - 1);
	while (m->slots[j].key != HF_MAP_EMPTY) {
		if (m->slots[j].key == key) {
			m->slots[j].val = val;
			return true;
		}
		j = (j + 1) & (m->cap - 1);
		m->probes++;
	}
	m->slots[j].key = key;
	m->slots[j].val = val;
	m->count++;
	return true;
}

uint64_t *hf_map_get(hf_map *m, uint64_t key)
{
	if (key == HF_MAP_EMPTY)
		return m->has_empty_key ? &m->empty_key_val : NULL;
	if (!m->cap)
		return NULL;
	/* (Counted here, acted on by the next insertion: a pointer a lookup
	 * returned stays valid until the map is changed.) */
	m->ops++;
	size_t j = map_hash(m, key) & (m->cap - 1);
	for (;;) {
		uint64_t k = m->slots[j].key;
		if (k == key)
			return &m->slots[j].val;
		if (k == HF_MAP_EMPTY)
			return NULL;
		j = (j + 1) & (m->cap - 1);
		m->probes++;
	}
}

bool hf_map_remove(hf_map *m, uint64_t key)
{
	if (key == HF_MAP_EMPTY) {
		if (!m->has_empty_key)
			return false;
		m->has_empty_key = 0;
		m->count--;
		return true;
	}
	if (!m->cap)
		return false;
	m->ops++;
	size_t mask = m->cap - 1;
	size_t j = map_hash(m, key) & mask;
	while (m->slots[j].key != key) {
		if (m->slots[j].key == HF_MAP_EMPTY)
			return false;
		j = (j + 1) & mask;
		m->probes++;
	}
	/* Backward-shift deletion keeps probe chains intact. */
	size_t i = j;
	for (;;) {
		m->slots[i].key = HF_MAP_EMPTY;
		size_t k = i;
		for (;;) {
			k = (k + 1) & mask;
			m->probes++;
			if (m->slots[k].key == HF_MAP_EMPTY) {
				m->count--;
				return true;
			}
			size_t home = map_hash(m, m->slots[k].key) & mask;
			/* Move k to i if its home is not cyclically in (i, k]. */
			if (i <= k ? (home <= i || home > k) : (home <= i && home > k))
				break;
		}
		m->slots[i] = m->slots[k];
		i = k;
	}
}

/* ---- hf_buf -------------------------------------------------------------- */

void hf_buf_free(hf_buf *b)
{
	free(b->data);
	hf_buf_init(b);
}

bool hf_buf_reserve(hf_buf *b, size_t extra)
{
	if (b->cap - b->len >= extra)
		return true;
	size_t need = b->len + extra;
	if (need < b->len)
		return false;
	size_t ncap = b->cap ? b->cap : 256;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return false;
		ncap *= 2;
	}
	uint8_t *p = realloc(b->data, ncap);
	if (!p)
		return false;
	b->data = p;
	b->cap = ncap;
	return true;
}

bool hf_buf_append(hf_buf *b, const void *p, size_t n)
{
	if (!hf_buf_reserve(b, n))
		return false;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	return true;
}

bool hf_buf_printf(hf_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !hf_buf_reserve(b, (size_t)n + 1))
		return false;
	va_start(ap, fmt);
	vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return true;
}

bool hf_buf_u64(hf_buf *b, uint64_t v)
{
	char tmp[24];
	return hf_buf_append(b, tmp, (size_t)(hf_put_u64(tmp, v) - tmp));
}

bool hf_buf_i64(hf_buf *b, int64_t v)
{
	if (v < 0) {
		if (!hf_buf_append(b, "-", 1))
			return false;
		return hf_buf_u64(b, (uint64_t)0 - (uint64_t)v);
	}
	return hf_buf_u64(b, (uint64_t)v);
}

/*
 * JSON string escaping.  Written by hand rather than through jansson because
 * it runs once per string record (millions per large dump) and jansson needs
 * an allocation per value; tests/test_json_escape.c checks it against
 * jansson's encoder byte for byte.  Input must be valid UTF-8 (the decoders
 * in text.c guarantee it); bytes >= 0x80 pass through unchanged, as jansson
 * does without JSON_ENSURE_ASCII.
 */
/* Nonzero when one of the 8 bytes of w is below 0x20, '"' or '\\' (exact
 * as a yes/no: the borrows of the subtractions flag only above a true hit). */
static inline uint64_t json_special8(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	uint64_t q = w ^ (ones * '"'), bs = w ^ (ones * '\\');
	return ((w - ones * 0x20) & ~w & high) | ((q - ones) & ~q & high) |
	       ((bs - ones) & ~bs & high);
}

bool hf_buf_json_string(hf_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	if (!hf_buf_reserve(b, n + 2))
		return false;
	b->data[b->len++] = '"';
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		/* Eight plain bytes at a time: most text needs no escape. */
		while (i + 8 <= n) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if (json_special8(w))
				break;
			i += 8;
		}
		if (i >= n)
			break;
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		if (!hf_buf_append(b, s + run, i - run))
			return false;
		run = i + 1;
		char esc[7];
		size_t len = 2;
		esc[0] = '\\';
		switch (c) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		default:
			esc[1] = 'u'; esc[2] = '0'; esc[3] = '0';
			esc[4] = hex[c >> 4]; esc[5] = hex[c & 15];
			len = 6;
		}
		if (!hf_buf_append(b, esc, len))
			return false;
	}
	if (!hf_buf_append(b, s + run, n - run))
		return false;
	return hf_buf_append(b, "\"", 1);
}

bool hf_buf_json_key(hf_buf *b, const char *s, size_t n)
{
	if (!memchr(s, 0, n))
		return hf_buf_json_string(b, s, n);
	char *t = malloc(n * 3);
	if (!t)
		return false;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i])
			t[m++] = s[i];
		else {
			memcpy(t + m, "\xEF\xBF\xBD", 3);
			m += 3;
		}
	}
	bool ok = hf_buf_json_string(b, t, m);
	free(t);
	return ok;
}
