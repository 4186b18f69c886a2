/* Text decoding (modified UTF-8, UTF-16 both ways, Latin-1) and a String's
 * text decoded and JSON-escaped in one pass (hf_buf_json_text) against the
 * two steps, hf_buf_json_string being checked against jansson in
 * test_unit.  tests/meson.build builds this with the library, and on
 * x86-64 twice more with text.c and buf.c compiled in: without SSE2, and
 * without the little-endian word paths, which x86-64 never builds
 * otherwise (the paths of other machines). */
#include "../libheapfmt/src/internal.h"
#include "testlib.h"
#include <stdlib.h>

static void test_mutf8(void)
{
	char out[64];
	/* Modified UTF-8 NUL, a 2-byte and a 3-byte character. */
	const uint8_t a[] = { 'a', 0xC0, 0x80, 0xC3, 0xA9, 0xE2, 0x82, 0xAC };
	size_t n = hf_mutf8_decode(a, sizeof a, out);
	CHECK(n == 1 + 1 + 2 + 3 && !memcmp(out, "a\0\xC3\xA9\xE2\x82\xAC", n), "mutf8 basic");
	/* U+1F600 as a CESU-8 surrogate pair becomes one 4-byte sequence. */
	const uint8_t b[] = { 0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80 };
	n = hf_mutf8_decode(b, sizeof b, out);
	CHECK(n == 4 && !memcmp(out, "\xF0\x9F\x98\x80", 4), "mutf8 surrogate pair joined");
	/* Invalid bytes become U+FFFD and decoding goes on. */
	const uint8_t c[] = { 0xFF, 'x', 0xC3 };
	n = hf_mutf8_decode(c, sizeof c, out);
	CHECK(n == 7 && !memcmp(out, "\xEF\xBF\xBDx\xEF\xBF\xBD", 7), "mutf8 invalid");
	/* A lone high surrogate becomes U+FFFD. */
	const uint8_t d[] = { 0xED, 0xA0, 0xBD, 'z' };
	n = hf_mutf8_decode(d, sizeof d, out);
	CHECK(n == 4 && !memcmp(out, "\xEF\xBF\xBDz", 4), "mutf8 lone surrogate");
}

static void test_utf16(void)
{
	char out[256];
	const uint8_t be[] = { 0x00, 'H', 0x04, 0x1F, 0xD8, 0x3D, 0xDE, 0x00 };
	size_t n = hf_utf16_decode(be, 4, 0, out);
	CHECK(n == 1 + 2 + 4 && !memcmp(out, "H\xD0\x9F\xF0\x9F\x98\x80", n), "utf16 be");
	const uint8_t le[] = { 'H', 0x00, 0x1F, 0x04 };
	n = hf_utf16_decode(le, 2, 1, out);
	CHECK(n == 3 && !memcmp(out, "H\xD0\x9F", 3), "utf16 le");
	const uint8_t lone[] = { 0xDC, 0x00 };
	n = hf_utf16_decode(lone, 1, 0, out);
	CHECK(n == 3 && !memcmp(out, "\xEF\xBF\xBD", 3), "utf16 lone low surrogate");
	const uint8_t l1[] = { 'a', 0xE9, 0xFF };
	n = hf_latin1_decode(l1, 3, out);
	CHECK(n == 5 && !memcmp(out, "a\xC3\xA9\xC3\xBF", 5), "latin1");
	/* The eight-at-a-time ASCII path against a byte-by-byte encoding. */
	uint8_t l1r[64];
	char expect[256];
	uint32_t seed = 99;
	for (int round = 0; round < 5000; round++) {
		seed = seed * 1103515245u + 12345u;
		size_t len = (seed >> 16) % 64, m = 0;
		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			l1r[i] = (uint8_t)((seed >> 16) % 11 == 0 ? 0x80 + (seed >> 20) % 128 : (seed >> 16) % 128);
			if (l1r[i] < 0x80) {
				expect[m++] = (char)l1r[i];
			} else {
				expect[m++] = (char)(0xC0 | (l1r[i] >> 6));
				expect[m++] = (char)(0x80 | (l1r[i] & 0x3F));
			}
		}
		n = hf_latin1_decode(l1r, len, out);
		if (n != m || memcmp(out, expect, m)) {
			CHECK(0, "latin1 random round %d", round);
			break;
		}
	}
	/* The eight-at-a-time (SSE2) or four-at-a-time ASCII path of UTF-16,
	 * both byte orders, against a
	 * unit-by-unit encoding: mostly ASCII, some NULs, two- and three-byte
	 * characters and surrogate pairs (whole, split or lone); the encoding
	 * of one character without a branch on its length (put_cp_word) too. */
	uint8_t u16[2][128];
	static const uint16_t odd[] = { 0x00, 0x7F, 0x80, 0xFF, 0x100, 0x7FF, 0x800, 0x41, 0xFFFF,
		0xD83D, 0xDE00, 0xDBFF, 0xDC00, 0x4100, 0x0041 };
	for (int round = 0; round < 5000; round++) {
		seed = seed * 1103515245u + 12345u;
		size_t units = (seed >> 16) % 64, m = 0;
		uint16_t v[64];
		for (size_t i = 0; i < units; i++) {
			seed = seed * 1103515245u + 12345u;
			/* Odd rounds: any unit at all, as in a text of mixed
			 * scripts (every character a length of its own). */
			v[i] = (seed >> 16) % 7 == 0 ? odd[(seed >> 20) % (sizeof odd / sizeof *odd)]
			       : round & 1 ? (uint16_t)(seed >> 8) : (uint16_t)((seed >> 16) % 128);
			u16[0][2 * i] = (uint8_t)(v[i] >> 8);
			u16[0][2 * i + 1] = (uint8_t)v[i];
			u16[1][2 * i] = (uint8_t)v[i];
			u16[1][2 * i + 1] = (uint8_t)(v[i] >> 8);
		}
		for (size_t i = 0; i < units; i++) {
			uint32_t cp = v[i];
			if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < units && v[i + 1] >= 0xDC00 &&
			    v[i + 1] <= 0xDFFF)
				cp = 0x10000 + ((cp - 0xD800) << 10) + (v[++i] - 0xDC00);
			else if (cp >= 0xD800 && cp <= 0xDFFF)
				cp = 0xFFFD;
			if (cp < 0x80) {
				expect[m++] = (char)cp;
			} else if (cp < 0x800) {
				expect[m++] = (char)(0xC0 | (cp >> 6));
				expect[m++] = (char)(0x80 | (cp & 0x3F));
			} else if (cp < 0x10000) {
				expect[m++] = (char)(0xE0 | (cp >> 12));
				expect[m++] = (char)(0x80 | ((cp >> 6) & 0x3F));
				expect[m++] = (char)(0x80 | (cp & 0x3F));
			} else {
				expect[m++] = (char)(0xF0 | (cp >> 18));
				expect[m++] = (char)(0x80 | ((cp >> 12) & 0x3F));
				expect[m++] = (char)(0x80 | ((cp >> 6) & 0x3F));
				expect[m++] = (char)(0x80 | (cp & 0x3F));
			}
		}
		for (int le = 0; le < 2; le++) {
			n = hf_utf16_decode(u16[le], units, le, out);
			if (n != m || memcmp(out, expect, m)) {
				CHECK(0, "utf16 random round %d (%s)", round, le ? "le" : "be");
				round = 5000;
				break;
			}
		}
	}
}

/* hf_buf_json_text (decoding and escaping in one pass, with its eight- and
 * sixteen-unit blocks) against hf_text_decode and then hf_buf_json_string,
 * which is checked against jansson above: random texts of runs (plain
 * ASCII, characters to escape, [0x80, 0x800), three-byte characters,
 * surrogates whole, split or lone), every length to past two blocks, from
 * every offset of a buffer, in the three encodings. */
static void test_json_text(void)
{
	static const hf_text_encoding encs[] = { HF_TEXT_UTF16BE, HF_TEXT_UTF16LE, HF_TEXT_LATIN1 };
	static const uint16_t odd[] = { 0x00, 0x08, 0x0A, 0x1F, '"', '\\', 0x7F, 0x80, 0xFF, 0x100,
	                                0x7FF, 0x800, 0xFFFF, 0xD83D, 0xDE00, 0xDBFF, 0xDC00, 0xD800 };
	uint32_t seed = 4242;
	uint16_t v[80];
	char *utf8 = malloc(HF_TEXT_OUT_MAX(80));
	hf_buf a, b;
	hf_buf_init(&a);
	hf_buf_init(&b);
	int bad = 0;
	for (int round = 0; round < 30000 && !bad && utf8; round++) {
		seed = seed * 1103515245u + 12345u;
		size_t units = (seed >> 16) % 80;
		unsigned kind = (seed >> 8) % 6, off = (seed >> 4) % 16;
		hf_text_encoding enc = encs[round % 3];
		for (size_t i = 0; i < units;) {
			seed = seed * 1103515245u + 12345u;
			size_t run = 1 + (seed >> 16) % 20;
			unsigned what = (seed >> 8) % 8;
			if (what == 6) /* the run of the round: blocks of one kind */
				what = kind;
			for (; run && i < units; run--, i++) {
				seed = seed * 1103515245u + 12345u;
				unsigned r = seed >> 16;
				v[i] = what == 0 ? (uint16_t)(0x20 + r % 0x5F)                 /* printable ASCII */
				       : what == 1 ? odd[r % 7]                                /* to escape */
				       : what == 2 ? (uint16_t)(0x80 + r % 0x780)             /* two bytes */
				       : what == 3 ? (uint16_t)(0x800 + r % 0xD000)           /* three */
				       : what == 4 ? odd[r % (sizeof odd / sizeof *odd)]
				       : (uint16_t)r;                                          /* anything */
				if (enc == HF_TEXT_LATIN1)
					v[i] = what == 2 || what == 3 ? (uint16_t)(0x80 | (v[i] & 0x7F)) : (uint16_t)(v[i] & 0xFF);
			}
		}
		/* The input in a block of its size, after off bytes: a read past
		 * it is one past the block (ASan). */
		size_t bytes = enc == HF_TEXT_LATIN1 ? units : 2 * units;
		uint8_t *block = malloc(off + bytes + 1), *d = block + off;
		if (!block)
			break;
		for (size_t i = 0; i < units; i++) {
			if (enc == HF_TEXT_LATIN1) {
				d[i] = (uint8_t)v[i];
			} else {
				int le = enc == HF_TEXT_UTF16LE;
				d[2 * i + !le] = (uint8_t)v[i];
				d[2 * i + le] = (uint8_t)(v[i] >> 8);
			}
		}
		size_t n = hf_text_decode(enc, d, units, utf8);
		a.len = 0;
		hf_buf_append(&a, "x", 1);
		/* The output in a block of just what hf_buf_json_text reserves
		 * (six bytes a unit and 34): a store past that is one past the
		 * block. */
		hf_buf_free(&b);
		b.cap = 1 + 6 * units + 34;
		b.data = malloc(b.cap);
		b.len = 1;
		if (b.data)
			b.data[0] = 'x';
		bool oka = hf_buf_json_string(&a, utf8, n), okb = b.data && hf_buf_json_text(&b, enc, d, units);
		free(block);
		if (!oka || !okb || a.len != b.len || memcmp(a.data, b.data, a.len)) {
			CHECK(0, "json text round %d (encoding %d, %zu units): %.*s against %.*s", round, (int)enc,
			      units, (int)b.len, (char *)b.data, (int)a.len, (char *)a.data);
			bad = 1;
		}
	}
	CHECK(!bad, "hf_buf_json_text as decoding and escaping, 30000 texts");
	/* A text of several of its pieces (65,536 units), with a surrogate
	 * pair across each boundary, a high one alone just before one, a pair
	 * right after one, and escapes and two-byte blocks between. */
	enum { LONG = 3 * 65536 + 100 };
	uint8_t *lt = malloc(2 * (size_t)LONG);
	char *lu = malloc(HF_TEXT_OUT_MAX((size_t)LONG));
	for (int le = 0; le < 2 && lt && lu; le++) {
		for (size_t i = 0; i < LONG; i++) {
			uint16_t u = i % 97 == 0 ? '"' : i % 89 == 0 ? 0x0A : i % 1000 < 40 ? (uint16_t)(0xE0 + i % 20)
			             : (uint16_t)('a' + i % 26);
			size_t m = i % 65536;
			if ((i / 65536 == 1 && m == 65535) || (i / 65536 == 2 && m == 0))
				u = m == 65535 ? 0xD83D : 0xDE00;        /* a pair across */
			if (i / 65536 == 2 && m == 65535)
				u = 0xD801;                              /* a high one alone */
			if (i / 65536 == 3 && (m == 0 || m == 1))
				u = m == 0 ? 0xDBFF : 0xDFFF;            /* a pair after one */
			lt[2 * i + !le] = (uint8_t)u;
			lt[2 * i + le] = (uint8_t)(u >> 8);
		}
		hf_text_encoding enc = le ? HF_TEXT_UTF16LE : HF_TEXT_UTF16BE;
		size_t n = hf_text_decode(enc, lt, LONG, lu);
		a.len = b.len = 0;
		bool oka = hf_buf_json_string(&a, lu, n), okb = hf_buf_json_text(&b, enc, lt, LONG);
		CHECK(oka && okb && a.len == b.len && !memcmp(a.data, b.data, a.len),
		      "a text of %d units in pieces (%s): %zu bytes against %zu", (int)LONG, le ? "le" : "be", b.len,
		      a.len);
	}
	free(lt);
	free(lu);
	free(utf8);
	hf_buf_free(&a);
	hf_buf_free(&b);
}

int main(void)
{
	test_mutf8();
	test_utf16();
	test_json_text();
#if defined(__SSE2__)
	const char *paths = "SSE2";
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const char *paths = "words";
#else
	const char *paths = "bytes";
#endif
	fprintf(stderr, "text paths: %s\n", paths);
	return t_done("test_text");
}
