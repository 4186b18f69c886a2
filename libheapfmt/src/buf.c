/* hf_buf: the growable byte buffer, and JSON text written into it. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include <stdarg.h>
#include <stdio.h>

void hf_buf_free(hf_buf *b)
{
	free(b->data);
	hf_buf_init(b);
}

size_t hf_buf_test_cap;

bool hf_buf_grow(hf_buf *b, size_t extra)
{
	if (b->cap - b->len >= extra)
		return true;
	size_t need = b->len + extra;
	if (need < b->len || (hf_buf_test_cap && need > hf_buf_test_cap))
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
 * an allocation per value; test_unit.c (test_json_escape) checks it against
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

const char hf_json_esc[128] = {
	'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'b', 't', 'n', 'u', 'f', 'r', 'u', 'u',
	'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u',
	['"'] = '"', ['\\'] = '\\',
};

bool hf_buf_json_string(hf_buf *b, const char *s, size_t n)
{
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
		if (c >= 0x80 || !hf_json_esc[c])
			continue;
		if (!hf_buf_append(b, s + run, i - run) || !hf_buf_reserve(b, 6))
			return false;
		run = i + 1;
		b->len = (size_t)(hf_json_ascii((char *)b->data + b->len, c) - (char *)b->data);
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
