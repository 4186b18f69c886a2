#define _POSIX_C_SOURCE 200809L
/* Text decoding: modified UTF-8 (HPROF names), UTF-16 and Latin-1 (String
 * contents), all into well-formed UTF-8, leniently (never failing). */
#include "internal.h"
#include <string.h>
#include <stdio.h>
#include <time.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

static size_t put_cp(char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		if (cp >= 0xD800 && cp <= 0xDFFF)
			cp = 0xFFFD;
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* put_cp without a branch on the length, for a code point that is not a
 * surrogate: the four encodings are made and the right one is stored as a
 * whole word, whose bytes past the length are garbage the next character
 * overwrites (the caller's out has room: HF_TEXT_OUT_MAX).  A UTF-16 text
 * of mixed scripts changes length from one character to the next, and
 * put_cp's branches were mispredicted on most of them: 106 M units of the
 * benchmark's Strings (ASCII, Greek, Cyrillic, CJK, emoji), in texts of 1 to
 * 64 units, took 0.62 s through put_cp and 0.52 s here (medians of seven).
 * Units of ASCII alone past the eight-at-a-time path cost more here (0.041
 * -> 0.060 s for as many), but since compact Strings (Java 9, Android 8) a
 * text stored in UTF-16 is one that Latin-1 cannot hold. */
static inline size_t put_cp_word(char *out, uint32_t cp)
{
	uint32_t w[4];
	w[0] = cp;
	w[1] = (0xC0 | cp >> 6) | (0x80 | (cp & 0x3F)) << 8;
	w[2] = (0xE0 | cp >> 12) | (0x80 | (cp >> 6 & 0x3F)) << 8 | (0x80 | (cp & 0x3F)) << 16;
	w[3] = (0xF0 | cp >> 18) | (0x80 | (cp >> 12 & 0x3F)) << 8 | (0x80 | (cp >> 6 & 0x3F)) << 16 |
	       (0x80 | (cp & 0x3F)) << 24;
	size_t k = (size_t)(cp >= 0x80) + (cp >= 0x800) + (cp >= 0x10000);
	memcpy(out, &w[k], 4);
	return k + 1;
}
#endif

/* Decodes one (modified) UTF-8 sequence at in[i]; returns its length (>= 1)
 * and the code point (0xFFFD on error; surrogates are returned as is). */
static size_t mutf8_one(const uint8_t *in, size_t len, size_t i, uint32_t *cp)
{
	uint8_t c = in[i];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xE0) == 0xC0 && i + 1 < len && (in[i + 1] & 0xC0) == 0x80) {
		uint32_t v = ((uint32_t)(c & 0x1F) << 6) | (in[i + 1] & 0x3F);
		/* Overlong forms are invalid except 0xC0 0x80, Java's NUL. */
		*cp = (v >= 0x80 || v == 0) ? v : 0xFFFD;
		return 2;
	}
	if ((c & 0xF0) == 0xE0 && i + 2 < len && (in[i + 1] & 0xC0) == 0x80 &&
	    (in[i + 2] & 0xC0) == 0x80) {
		uint32_t v = ((uint32_t)(c & 0x0F) << 12) | ((uint32_t)(in[i + 1] & 0x3F) << 6) |
		             (in[i + 2] & 0x3F);
		*cp = v >= 0x800 ? v : 0xFFFD;
		return 3;
	}
	if ((c & 0xF8) == 0xF0 && i + 3 < len && (in[i + 1] & 0xC0) == 0x80 &&
	    (in[i + 2] & 0xC0) == 0x80 && (in[i + 3] & 0xC0) == 0x80) {
		/* Standard 4-byte UTF-8 is not modified UTF-8, but accept it. */
		uint32_t v = ((uint32_t)(c & 0x07) << 18) | ((uint32_t)(in[i + 1] & 0x3F) << 12) |
		             ((uint32_t)(in[i + 2] & 0x3F) << 6) | (in[i + 3] & 0x3F);
		*cp = (v >= 0x10000 && v <= 0x10FFFF) ? v : 0xFFFD;
		return 4;
	}
	*cp = 0xFFFD;
	return 1;
}

size_t hf_mutf8_decode(const uint8_t *in, size_t len, char *out)
{
	size_t o = 0, i = 0;
	while (i < len) {
		/* Fast path for ASCII runs. */
		if (in[i] < 0x80) {
			out[o++] = (char)in[i++];
			continue;
		}
		uint32_t cp;
		size_t n = mutf8_one(in, len, i, &cp);
		i += n;
		if (cp >= 0xD800 && cp <= 0xDBFF && i < len) {
			uint32_t lo;
			size_t m = mutf8_one(in, len, i, &lo);
			if (lo >= 0xDC00 && lo <= 0xDFFF) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				i += m;
			}
		}
		o += put_cp(out + o, cp);
	}
	return o;
}

/* The character at p, of left >= 1 units: its code point in *cp, a
 * surrogate pair's as one, a surrogate alone U+FFFD; returns the units it
 * takes (1 or 2). */
static inline size_t utf16_char(const uint8_t *p, size_t left, int le, uint32_t *cp)
{
	uint32_t u = le ? (uint32_t)(p[0] | (p[1] << 8)) : (uint32_t)((p[0] << 8) | p[1]);
	*cp = u;
	if (u - 0xD800 >= 0x800)
		return 1;
	uint32_t lo = 0;
	if (u <= 0xDBFF && left > 1)
		lo = le ? (uint32_t)(p[2] | (p[3] << 8)) : (uint32_t)((p[2] << 8) | p[3]);
	if (lo < 0xDC00 || lo > 0xDFFF) {
		*cp = 0xFFFD;
		return 1;
	}
	*cp = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
	return 2;
}

/* A code point that is not a surrogate at out, in UTF-8; returns its
 * length (out has room for four bytes). */
static inline size_t put_char(char *out, uint32_t cp)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return put_cp_word(out, cp);
#else
	return put_cp(out, cp);
#endif
}

size_t hf_utf16_decode(const uint8_t *in, size_t nunits, int little_endian,
                       char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < nunits; i++) {
		const uint8_t *p = in + 2 * i;
#ifdef __SSE2__
		/* Eight ASCII units at a time: in each 16-bit lane as loaded (little
		 * endian), the bits of a unit that must be clear are 0xFF80, or
		 * 0x80FF for big-endian units, whose ASCII byte is then the lane's
		 * high one; packed to bytes, the eight are the text.  (4.9 % of
		 * hprof2ndjson's time on the Android-like benchmark dump went to
		 * this function four units at a time, below.) */
		if (i + 8 <= nunits) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
			__m128i must0 = _mm_set1_epi16(little_endian ? (short)0xFF80 : (short)0x80FF);
			if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(v, must0), _mm_setzero_si128())) ==
			    0xFFFF) {
				if (!little_endian)
					v = _mm_srli_epi16(v, 8);
				_mm_storel_epi64((__m128i *)(void *)(out + o), _mm_packus_epi16(v, v));
				o += 8;
				i += 7;
				continue;
			}
		}
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		/* Four ASCII units at a time: the high byte of each zero, the low
		 * one below 0x80 (3.9 % of hprof2ndjson's time on the Android-like
		 * benchmark dump went to this function one unit at a time). */
		uint64_t w;
		if (i + 4 <= nunits) {
			memcpy(&w, p, 8);
			if (!little_endian && !(w & 0x80FF80FF80FF80FFULL)) {
				uint32_t a = (uint32_t)(((w >> 8) & 0xFF) | ((w >> 16) & 0xFF00) |
				                        ((w >> 24) & 0xFF0000) | ((w >> 32) & 0xFF000000));
				memcpy(out + o, &a, 4);
				o += 4;
				i += 3;
				continue;
			}
			if (little_endian && !(w & 0xFF80FF80FF80FF80ULL)) {
				uint32_t a = (uint32_t)((w & 0xFF) | ((w >> 8) & 0xFF00) | ((w >> 16) & 0xFF0000) |
				                        ((w >> 24) & 0xFF000000));
				memcpy(out + o, &a, 4);
				o += 4;
				i += 3;
				continue;
			}
		}
#endif
		uint32_t u;
		i += utf16_char(p, nunits - i, little_endian, &u) - 1;
		o += put_char(out + o, u);
	}
	return o;
}

size_t hf_latin1_decode(const uint8_t *in, size_t len, char *out)
{
	size_t o = 0, i = 0;
	while (i < len) {
		/* Eight ASCII bytes at a time, copied as they are. */
		uint64_t w;
		if (i + 8 <= len && (memcpy(&w, in + i, 8), !(w & 0x8080808080808080ULL))) {
			memcpy(out + o, in + i, 8);
			o += 8;
			i += 8;
			continue;
		}
		o += put_cp(out + o, in[i++]);
	}
	return o;
}

size_t hf_text_decode(hf_text_encoding enc, const uint8_t *in, size_t nunits, char *out)
{
	if (enc == HF_TEXT_LATIN1)
		return hf_latin1_decode(in, nunits, out);
	return hf_utf16_decode(in, nunits, enc == HF_TEXT_UTF16LE, out);
}

/*
 * A String's text straight into a JSON string: hf_text_decode and then
 * hf_buf_json_string in one pass, without the UTF-8 copy between them (the
 * NDJSON writer's formatting thread; the two passes were 17 % of the
 * instructions of hprof2ndjson of the Android-like 100 MB benchmark dump,
 * cachegrind).  The output is theirs byte for byte (test_text.c checks it
 * on random texts): only ASCII needs an escape, and the decoders' output is
 * well-formed UTF-8, which the escaper passes through.
 */

#ifdef __SSE2__
/* Of 16 bytes that are ASCII, a bit for each one that needs an escape. */
static inline unsigned json_special16(__m128i b)
{
	__m128i s = _mm_or_si128(_mm_cmplt_epi8(b, _mm_set1_epi8(0x20)),
	                         _mm_or_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8('"')),
	                                      _mm_cmpeq_epi8(b, _mm_set1_epi8('\\'))));
	return (unsigned)_mm_movemask_epi8(s);
}

/* Eight 16-bit lanes, each a code point in [0x80, 0x800), as their
 * two-byte UTF-8 forms: 16 bytes. */
static inline __m128i utf8_two(__m128i u)
{
	__m128i lead = _mm_or_si128(_mm_srli_epi16(u, 6), _mm_set1_epi16(0xC0));
	__m128i cont = _mm_or_si128(_mm_and_si128(u, _mm_set1_epi16(0x3F)), _mm_set1_epi16(0x80));
	return _mm_or_si128(lead, _mm_slli_epi16(cont, 8));
}

/* Of eight 16-bit lanes, a bit (of 8) for each in [0x80, 0x800). */
static inline unsigned two_byte8(__m128i u)
{
	__m128i zero = _mm_setzero_si128();
	__m128i below800 = _mm_cmpeq_epi16(_mm_and_si128(u, _mm_set1_epi16((short)0xF800)), zero);
	__m128i below80 = _mm_cmpeq_epi16(_mm_and_si128(u, _mm_set1_epi16((short)0xFF80)), zero);
	__m128i m = _mm_andnot_si128(below80, below800);
	return (unsigned)_mm_movemask_epi8(_mm_packs_epi16(m, m)) & 0xFF;
}
#endif

static char *json_utf16(char *o, const uint8_t *in, size_t nunits, int le)
{
	for (size_t i = 0; i < nunits;) {
		size_t end = nunits; /* one unit at a time up to here */
#ifdef __SSE2__
		/* Eight units at a time: the ASCII ones that need no escape stored
		 * as bytes up to the first that is not, or all eight as their two
		 * bytes when each is in [0x80, 0x800).  Else one at a time up to
		 * the next that needs no escape (a text of mixed scripts would
		 * otherwise try the eight for every unit). */
		if (i + 8 <= nunits) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(in + 2 * i));
			if (!le)
				v = _mm_or_si128(_mm_srli_epi16(v, 8), _mm_slli_epi16(v, 8));
			__m128i ascii = _mm_cmpeq_epi16(_mm_and_si128(v, _mm_set1_epi16((short)0xFF80)),
			                                _mm_setzero_si128());
			unsigned ok = (unsigned)_mm_movemask_epi8(_mm_packs_epi16(ascii, ascii)) & 0xFF;
			if (ok) {
				__m128i b = _mm_packus_epi16(v, v);
				ok &= ~json_special16(b);
				if (ok & 1) {
					_mm_storel_epi64((__m128i *)(void *)o, b);
					unsigned k = (unsigned)__builtin_ctz(~ok);
					o += k;
					i += k;
					continue;
				}
			} else if (two_byte8(v) == 0xFF) {
				_mm_storeu_si128((__m128i *)(void *)o, utf8_two(v));
				o += 16;
				i += 8;
				continue;
			}
			end = i + (ok ? (unsigned)__builtin_ctz(ok) : 8);
		}
#endif
		do {
			uint32_t u;
			i += utf16_char(in + 2 * i, nunits - i, le, &u);
			if (u < 0x80)
				o = hf_json_ascii(o, u);
			else
				o += put_char(o, u);
		} while (i < end);
	}
	return o;
}

static char *json_latin1(char *o, const uint8_t *in, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t end = n;
#ifdef __SSE2__
		/* Sixteen bytes at a time, as the units of json_utf16: ASCII that
		 * needs no escape copied, or all sixteen as two bytes each when
		 * each is 0x80 or above; else one at a time to the next plain one. */
		if (i + 16 <= n) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(in + i));
			unsigned high = (unsigned)_mm_movemask_epi8(v);
			if (high == 0xFFFF) {
				__m128i zero = _mm_setzero_si128();
				_mm_storeu_si128((__m128i *)(void *)o, utf8_two(_mm_unpacklo_epi8(v, zero)));
				_mm_storeu_si128((__m128i *)(void *)(o + 16), utf8_two(_mm_unpackhi_epi8(v, zero)));
				o += 32;
				i += 16;
				continue;
			}
			unsigned ok = ~(high | json_special16(v)) & 0xFFFF;
			if (ok & 1) {
				_mm_storeu_si128((__m128i *)(void *)o, v);
				unsigned k = (unsigned)__builtin_ctz(~ok);
				o += k;
				i += k;
				continue;
			}
			end = i + (ok ? (unsigned)__builtin_ctz(ok) : 16);
		}
#endif
		do {
			unsigned c = in[i++];
			if (c < 0x80) {
				o = hf_json_ascii(o, c);
			} else {
				o[0] = (char)(0xC0 | (c >> 6));
				o[1] = (char)(0x80 | (c & 0x3F));
				o += 2;
			}
		} while (i < end);
	}
	return o;
}

/* Units a time: what is reserved for them stays small (six bytes a unit)
 * however long the text. */
#define JSON_TEXT_CHUNK ((size_t)1 << 16)

bool hf_buf_json_text(hf_buf *b, hf_text_encoding enc, const uint8_t *in, size_t nunits)
{
	int le = enc == HF_TEXT_UTF16LE;
	for (size_t done = 0;;) {
		size_t k = nunits - done;
		if (k > JSON_TEXT_CHUNK) {
			k = JSON_TEXT_CHUNK;
			/* A high surrogate last goes with the next piece, where the
			 * unit it may pair with is. */
			if (enc != HF_TEXT_LATIN1 && (in[2 * (done + k - 1) + (le ? 1 : 0)] & 0xFC) == 0xD8)
				k--;
		}
		/* At most six bytes a unit (\u00XX; a character takes at most
		 * three a unit), the quotes, and the 16 a block store may write
		 * past. */
		if (!hf_buf_reserve(b, 6 * k + 34))
			return false;
		char *o = (char *)b->data + b->len;
		if (!done)
			*o++ = '"';
		if (enc == HF_TEXT_LATIN1)
			o = json_latin1(o, in + done, k);
		else
			o = json_utf16(o, in + 2 * done, k, le);
		done += k;
		if (done == nunits)
			*o++ = '"';
		b->len = (size_t)(o - (char *)b->data);
		if (done == nunits)
			return true;
	}
}

void hf_iso8601_ms(uint64_t ms, char buf[40])
{
	buf[0] = 0;
	/* Past year 2^31 gmtime_r may fail or overflow the year: not a time. */
	if (ms / 1000 > (uint64_t)INT32_MAX * 64)
		return;
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	if (!gmtime_r(&t, &tm))
		return;
	size_t n = strftime(buf, 40, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!n) {
		buf[0] = 0;
		return;
	}
	if (ms % 1000)
		snprintf(buf + n, 40 - n, ".%03uZ", (unsigned)(ms % 1000));
	else
		snprintf(buf + n, 40 - n, "Z");
}

bool hf_parse_u64(const char *s, size_t n, uint64_t *out)
{
	if (!n || n > 20)
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

void hf_crtime_now(char *buf, size_t size)
{
	time_t t = time(NULL);
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	if (sde && *sde) {
		char *end;
		long long v = strtoll(sde, &end, 10);
		if (*end == 0 && v >= 0)
			t = (time_t)v;
	}
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
