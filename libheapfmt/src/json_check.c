/*
 * hf_json_check: whether a text is one JSON value, as jansson's json_loadb
 * would take it, without building jansson's tree.
 *
 * Why not jansson: the NDJSON reader keeps a json field ("values") as the
 * raw text it read, and needs jansson only to know the text is valid JSON.
 * jansson's tree of a large array costs about 20 times the text (a json_t
 * and a slot of 40 bytes or more for each number of 2 bytes or so): a line
 * of 1.02 GB (an int[] of 510 M elements, as `hprof2ndjson --values
 * --values-limit=0` writes) took ndjson2heapdb to 21.9 GB of resident memory
 * and 79 s.  This check walks the text once and keeps only a bit for each
 * open bracket.
 *
 * What it accepts is what jansson 2.14 accepts with JSON_DECODE_ANY |
 * JSON_ALLOW_NUL, and the NDJSON reader's second try with
 * JSON_DECODE_INT_AS_REAL for integers past 2^63-1 (src/load.c, utf.c,
 * strconv.c there):
 *  - RFC 8259's grammar; whitespace is space, tab, CR and LF;
 *  - strings in strict UTF-8 (no overlong forms, no surrogates, nothing past
 *    U+10FFFF), no control characters below 0x20, the escapes \" \\ \/ \b
 *    \f \n \r \t and \uXXXX, where a high surrogate must be followed by an
 *    escaped low one and a low one may not stand alone; \u0000 is taken in
 *    a value but not in an object's key;
 *  - numbers: no leading zeros, a digit after the point and in the
 *    exponent; one that strtod makes infinite (past about 1.8e308) is
 *    refused, as jansson refuses it ("real number overflow");
 *  - at most JSON_PARSER_MAX_DEPTH levels, counted as jansson counts them:
 *    every value, scalars too, one deeper than the array or object it is in.
 * tests/test_unit.c (test_json_check) holds it to jansson's verdict on
 * generated and mutated texts, and fuzz/fuzz_json.c does the same on
 * whatever libFuzzer makes.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include <errno.h>
#include <jansson.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>

#define MAX_DEPTH JSON_PARSER_MAX_DEPTH

static inline const unsigned char *ws(const unsigned char *p, const unsigned char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* The code unit of \uXXXX at p (p at the 'u'), or -1. */
static long escape_u(const unsigned char *p, const unsigned char *e)
{
	if (e - p < 5)
		return -1;
	long v = 0;
	for (int i = 1; i <= 4; i++) {
		int h = hf_hex_digit(p[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

/* One UTF-8 sequence of two to four bytes at p (p[0] >= 0x80): its length,
 * or 0 when it is not strict UTF-8. */
static size_t utf8_seq(const unsigned char *p, const unsigned char *e)
{
	unsigned char u = p[0];
	size_t n;
	unsigned long v;
	if (u >= 0xC2 && u <= 0xDF)
		n = 2, v = u & 0x1F;
	else if (u >= 0xE0 && u <= 0xEF)
		n = 3, v = u & 0x0F;
	else if (u >= 0xF0 && u <= 0xF4)
		n = 4, v = u & 0x07;
	else
		return 0;
	if ((size_t)(e - p) < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
		v = (v << 6) | (p[i] & 0x3F);
	}
	if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF) || (n == 3 && v < 0x800) ||
	    (n == 4 && v < 0x10000))
		return 0;
	return n;
}

/* A string at *pp (at its opening quote); nul: whether \u0000 may be in it. */
static bool string(const unsigned char **pp, const unsigned char *e, bool nul)
{
	const unsigned char *p = *pp + 1;
	for (;;) {
		/* The plain run first: most of a string. */
		while (p < e && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
			p++;
		if (p >= e)
			return false;
		unsigned char c = *p;
		if (c == '"') {
			*pp = p + 1;
			return true;
		}
		if (c < 0x20)
			return false;
		if (c >= 0x80) {
			size_t n = utf8_seq(p, e);
			if (!n)
				return false;
			p += n;
			continue;
		}
		/* A backslash. */
		if (++p >= e)
			return false;
		c = *p;
		if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' ||
		    c == 't') {
			p++;
			continue;
		}
		if (c != 'u')
			return false;
		long v = escape_u(p, e);
		if (v < 0 || (v == 0 && !nul) || (v >= 0xDC00 && v <= 0xDFFF))
			return false;
		p += 5;
		if (v >= 0xD800 && v <= 0xDBFF) {
			if (e - p < 2 || p[0] != '\\' || p[1] != 'u')
				return false;
			long lo = escape_u(p + 1, e);
			if (lo < 0xDC00 || lo > 0xDFFF)
				return false;
			p += 6;
		}
	}
}

static inline bool digit(const unsigned char *p, const unsigned char *e)
{
	return p < e && *p >= '0' && *p <= '9';
}

/* A number at *pp.  strtod decides whether it is finite only when it might
 * not be: an exponent, or 309 digits or more before the point. */
static bool number(const unsigned char **pp, const unsigned char *e)
{
	const unsigned char *t = *pp, *p = t;
	if (*p == '-')
		p++;
	const unsigned char *int_start = p;
	if (p < e && *p == '0') {
		if (digit(++p, e))
			return false;
	} else if (digit(p, e)) {
		while (digit(p, e))
			p++;
	} else {
		return false;
	}
	size_t int_digits = (size_t)(p - int_start);
	bool exponent = false;
	if (p < e && *p == '.') {
		if (!digit(++p, e))
			return false;
		while (digit(p, e))
			p++;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		if (!digit(p, e))
			return false;
		while (digit(p, e))
			p++;
		exponent = true;
	}
	*pp = p;
	if (!exponent && int_digits < 309)
		return true;
	size_t n = (size_t)(p - t);
	char small[128];
	char *s = n < sizeof small ? small : malloc(n + 1);
	if (!s)
		return false; /* (the caller reports it as invalid: no memory for a number) */
	memcpy(s, t, n);
	s[n] = 0;
	/* strtod reads the locale's decimal point, as jansson's jsonp_strtod
	 * lets it (a library's caller may have set LC_NUMERIC). */
	char point = *localeconv()->decimal_point;
	char *dot = point && point != '.' ? strchr(s, '.') : NULL;
	if (dot)
		*dot = point;
	errno = 0;
	double d = strtod(s, NULL);
	bool ok = !((d == HUGE_VAL || d == -HUGE_VAL) && errno == ERANGE);
	if (s != small)
		free(s);
	return ok;
}

/* One of true, false and null at *pp; jansson reads a whole run of letters
 * as one word, so "nullx" is not null and x. */
static bool literal(const unsigned char **pp, const unsigned char *e)
{
	const unsigned char *p = *pp, *q = p;
	while (q < e && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')))
		q++;
	size_t n = (size_t)(q - p);
	if (!((n == 4 && (!memcmp(p, "true", 4) || !memcmp(p, "null", 4))) ||
	      (n == 5 && !memcmp(p, "false", 5))))
		return false;
	*pp = q;
	return true;
}

/* A key and its colon at *pp; leaves *pp at the value. */
static bool key(const unsigned char **pp, const unsigned char *e)
{
	const unsigned char *p = *pp;
	if (p >= e || *p != '"' || !string(&p, e, false))
		return false;
	p = ws(p, e);
	if (p >= e || *p != ':')
		return false;
	*pp = ws(p + 1, e);
	return true;
}

bool hf_json_check_why(const char *text, size_t n, size_t depth, size_t *bad_at, bool *too_deep)
{
	const unsigned char *s = (const unsigned char *)text, *p = s, *e = s + n;
	unsigned char objects[MAX_DEPTH / 8 + 1]; /* bit k: the k-th open bracket is an object's */
	size_t level = 0;                         /* brackets open */
	if (depth < 1)
		depth = 1;
	if (too_deep)
		*too_deep = false;
	p = ws(p, e);
	for (;;) {
		/* A value, at depth + level. */
		if (depth + level > MAX_DEPTH) {
			if (too_deep)
				*too_deep = true;
			goto bad;
		}
		if (p >= e)
			goto bad;
		switch (*p) {
		case '{':
		case '[': {
			bool obj = *p == '{';
			p = ws(p + 1, e);
			if (p < e && *p == (obj ? '}' : ']')) {
				p++;
				break;
			}
			/* A byte's first bracket sets the whole byte: the bits above
			 * it are written before they are read. */
			unsigned char bit = (unsigned char)(1u << (level % 8));
			unsigned char old = level % 8 ? objects[level / 8] : 0;
			objects[level / 8] = obj ? old | bit : old & (unsigned char)~bit;
			level++;
			if (obj && !key(&p, e))
				goto bad;
			continue;
		}
		case '"':
			if (!string(&p, e, true))
				goto bad;
			break;
		case 't':
		case 'f':
		case 'n':
			if (!literal(&p, e))
				goto bad;
			break;
		default:
			if (!(*p == '-' || (*p >= '0' && *p <= '9')) || !number(&p, e))
				goto bad;
			break;
		}
		/* After a value: close what it ends, then the next one. */
		for (;;) {
			p = ws(p, e);
			if (!level) {
				if (p != e)
					goto bad;
				return true;
			}
			if (p >= e)
				goto bad;
			bool obj = objects[(level - 1) / 8] >> ((level - 1) % 8) & 1;
			if (*p == (obj ? '}' : ']')) {
				p++;
				level--;
				continue;
			}
			if (*p != ',')
				goto bad;
			p = ws(p + 1, e);
			if (obj && !key(&p, e))
				goto bad;
			break;
		}
	}
bad:
	if (bad_at)
		*bad_at = (size_t)(p - s);
	return false;
}

bool hf_json_check(const char *text, size_t n, size_t depth, size_t *bad_at)
{
	return hf_json_check_why(text, n, depth, bad_at, NULL);
}
