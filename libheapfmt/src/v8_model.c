/*
 * The JSON layer of the V8 heap-snapshot reader: a streaming tokenizer over
 * the input layer, a small bounded value tree for the "snapshot" header
 * object, and V8's names for node and edge types.
 *
 * Why a tokenizer of our own: a .heapsnapshot is ONE JSON document, often
 * hundreds of megabytes, whose bulk is three flat arrays of integers
 * ("nodes", "edges") and strings ("strings").  jansson (used by the NDJSON
 * reader) can only build the whole tree in memory; it cannot hand values out
 * one by one.  The tokenizer reads through hf_input_peek/consume a window at
 * a time, so memory is the window, the current token and what the reader
 * itself keeps.
 */
#include "v8_model.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

/* ---- the window ------------------------------------------------------------ */

void hf_jlex_init(hf_jlex *lx, hf_input *in, size_t window, size_t max_string, hf_error *err)
{
	memset(lx, 0, sizeof *lx);
	lx->in = in;
	lx->err = err;
	lx->window = window ? window : (size_t)64 << 10;
	lx->max_string = max_string ? max_string : (size_t)64 << 20;
	lx->base = hf_input_offset(in);
	lx->ctx = "snapshot";
	hf_buf_init(&lx->str);
}

void hf_jlex_free(hf_jlex *lx)
{
	hf_buf_free(&lx->str);
}

/* Makes at least one byte available at lx->p; returns 0 at the end of the
 * input, -1 on an input error (err set). */
static int refill(hf_jlex *lx)
{
	if (lx->p < lx->end)
		return 1;
	if (lx->eof)
		return 0;
	hf_input_consume(lx->in, (size_t)(lx->p - lx->win));
	lx->base = hf_input_offset(lx->in);
	const uint8_t *p;
	size_t avail;
	if (hf_input_peek(lx->in, lx->window, &p, &avail, lx->err) != HF_OK)
		return -1;
	if (avail > lx->window)
		avail = lx->window; /* tests use tiny windows to reach every boundary */
	lx->win = lx->p = p;
	lx->end = p + avail;
	if (!avail) {
		lx->eof = 1;
		return 0;
	}
	return 1;
}

/* The next byte (consumed), or -1 at the end (-2 on an input error). */
static inline int getb(hf_jlex *lx)
{
	if (lx->p < lx->end)
		return *lx->p++;
	int r = refill(lx);
	if (r <= 0)
		return r < 0 ? -2 : -1;
	return *lx->p++;
}

/* The next byte without consuming it. */
static inline int peekb(hf_jlex *lx)
{
	if (lx->p < lx->end)
		return *lx->p;
	int r = refill(lx);
	if (r <= 0)
		return r < 0 ? -2 : -1;
	return *lx->p;
}

hf_status hf_jlex_fail(hf_jlex *lx, hf_status st, const char *fmt, ...)
{
	char msg[280];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return hf_error_at(lx->err, st, lx->tok_off, lx->ctx, "%s", msg);
}

static hf_status input_failed(hf_jlex *lx)
{
	return lx->err->status ? lx->err->status : HF_ERR_IO;
}

static hf_status ends(hf_jlex *lx, const char *inside)
{
	lx->tok_off = hf_jlex_offset(lx);
	return hf_jlex_fail(lx, HF_ERR_TRUNCATED, "the snapshot ends inside %s", inside);
}

static hf_status nomem(hf_jlex *lx)
{
	return hf_error_set(lx->err, HF_ERR_NOMEM, "out of memory");
}

static const char *tok_name(hf_jtok t)
{
	static const char *const names[] = { "the end of the input", "'{'", "'}'", "'['", "']'",
		"':'", "','", "a string", "a number", "true", "false", "null" };
	return (unsigned)t < sizeof names / sizeof *names ? names[t] : "?";
}

/* ---- strings ----------------------------------------------------------------- */

static bool put_cp(hf_buf *b, uint32_t cp)
{
	uint8_t o[4];
	size_t n;
	if (cp < 0x80) {
		o[0] = (uint8_t)cp;
		n = 1;
	} else if (cp < 0x800) {
		o[0] = (uint8_t)(0xC0 | cp >> 6);
		o[1] = (uint8_t)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		o[0] = (uint8_t)(0xE0 | cp >> 12);
		o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (uint8_t)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		o[0] = (uint8_t)(0xF0 | cp >> 18);
		o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
		o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
		o[3] = (uint8_t)(0x80 | (cp & 0x3F));
		n = 4;
	}
	return hf_buf_append(b, o, n);
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid. */
static size_t utf8_seq(const uint8_t *s, size_t n)
{
	uint8_t c = s[0];
	size_t len;
	uint32_t min;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF) { len = 2; min = 0x80; }
	else if (c >= 0xE0 && c <= 0xEF) { len = 3; min = 0x800; }
	else if (c >= 0xF0 && c <= 0xF4) { len = 4; min = 0x10000; }
	else return 0;
	if (n < len)
		return 0;
	uint32_t cp = c & (0x3F >> (len - 1));
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

/* Raw bytes of a string that are not valid UTF-8 become U+FFFD, so every
 * string handed on is valid UTF-8 (the sinks require it). */
static bool sanitize_utf8(hf_buf *b, size_t from)
{
	size_t i = from;
	while (i < b->len) {
		size_t k = utf8_seq(b->data + i, b->len - i);
		if (!k)
			break;
		i += k;
	}
	if (i == b->len)
		return true;
	hf_buf fixed;
	hf_buf_init(&fixed);
	if (!hf_buf_append(&fixed, b->data + from, i - from))
		return false;
	while (i < b->len) {
		size_t k = utf8_seq(b->data + i, b->len - i);
		if (k) {
			if (!hf_buf_append(&fixed, b->data + i, k))
				goto oom;
			i += k;
		} else {
			if (!put_cp(&fixed, 0xFFFD))
				goto oom;
			i++;
		}
	}
	b->len = from;
	bool ok = hf_buf_append(b, fixed.data, fixed.len);
	hf_buf_free(&fixed);
	return ok;
oom:
	hf_buf_free(&fixed);
	return false;
}

static hf_status read_u4(hf_jlex *lx, uint32_t *u)
{
	*u = 0;
	for (int i = 0; i < 4; i++) {
		int c = getb(lx);
		if (c == -2)
			return input_failed(lx);
		if (c < 0)
			return ends(lx, "a string");
		int h = hf_hex_digit(c);
		if (h < 0)
			return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected 4 hex digits after \\u in a string");
		*u = *u << 4 | (uint32_t)h;
	}
	return HF_OK;
}

/* A high surrogate not followed by its low half becomes U+FFFD. */
static bool flush_high(hf_jlex *lx, uint32_t *high)
{
	if (!*high)
		return true;
	*high = 0;
	lx->lone_surrogates++;
	return put_cp(&lx->str, 0xFFFD);
}

/* After the opening quote: the decoded text into lx->str. */
static hf_status lex_string(hf_jlex *lx)
{
	hf_buf *b = &lx->str;
	hf_buf_reset(b);
	uint32_t high = 0; /* a high surrogate waiting for its low half */
	for (;;) {
		/* Fast path: a run of plain bytes inside the window. */
		const uint8_t *s = lx->p;
		while (s < lx->end && *s != '"' && *s != '\\' && *s >= 0x20)
			s++;
		if (s > lx->p) {
			if (!flush_high(lx, &high))
				return nomem(lx);
			if (!hf_buf_append(b, lx->p, (size_t)(s - lx->p)))
				return nomem(lx);
			lx->p = s;
		}
		if (b->len > lx->max_string)
			return hf_jlex_fail(lx, HF_ERR_LIMIT, "a string longer than %zu bytes",
			                    lx->max_string);
		int c = getb(lx);
		if (c == -2)
			return input_failed(lx);
		if (c < 0)
			return ends(lx, "a string");
		if (c == '"')
			break;
		if (c < 0x20)
			return hf_jlex_fail(lx, HF_ERR_FORMAT,
			                    "a control character (0x%02x) inside a string: expected '\"'", c);
		if (c != '\\') {
			if (!flush_high(lx, &high))
				return nomem(lx);
			if (!hf_buf_append(b, (uint8_t[]){ (uint8_t)c }, 1))
				return nomem(lx);
			continue;
		}
		c = getb(lx);
		if (c == -2)
			return input_failed(lx);
		if (c < 0)
			return ends(lx, "a string");
		uint32_t cp;
		switch (c) {
		case '"': cp = '"'; break;
		case '\\': cp = '\\'; break;
		case '/': cp = '/'; break;
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u': {
			hf_status st = read_u4(lx, &cp);
			if (st)
				return st;
			break;
		}
		default:
			return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected an escape after '\\' in a string, not '%c'",
			                    c >= 0x20 && c < 0x7F ? c : '?');
		}
		if (high && cp >= 0xDC00 && cp <= 0xDFFF) {
			cp = 0x10000 + ((high - 0xD800) << 10) + (cp - 0xDC00);
			high = 0;
		} else {
			if (!flush_high(lx, &high))
				return nomem(lx);
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				high = cp;
				continue;
			}
			if (cp >= 0xDC00 && cp <= 0xDFFF) {
				lx->lone_surrogates++;
				cp = 0xFFFD;
			}
		}
		if (!put_cp(b, cp))
			return nomem(lx);
	}
	if (!flush_high(lx, &high))
		return nomem(lx);
	if (!sanitize_utf8(b, 0) || !hf_buf_reserve(b, 1))
		return nomem(lx);
	b->data[b->len] = 0;
	if (b->len > lx->max_string)
		return hf_jlex_fail(lx, HF_ERR_LIMIT, "a string longer than %zu bytes", lx->max_string);
	return HF_OK;
}

/* ---- numbers ------------------------------------------------------------------- */

static int numchar(int c)
{
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* The first character c was consumed. */
static hf_status lex_number(hf_jlex *lx, int c)
{
	lx->numlen = 0;
	lx->num[lx->numlen++] = (char)c;
	for (;;) {
		int d = peekb(lx);
		if (d == -2)
			return input_failed(lx);
		if (d < 0 || !numchar(d))
			break;
		if (lx->numlen >= HF_JLEX_NUM_MAX)
			return hf_jlex_fail(lx, HF_ERR_LIMIT, "a number longer than %d characters",
			                    HF_JLEX_NUM_MAX);
		lx->num[lx->numlen++] = (char)d;
		lx->p++;
	}
	lx->num[lx->numlen] = 0;
	/* JSON grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
	const char *s = lx->num;
	lx->num_neg = *s == '-';
	if (*s == '-')
		s++;
	if (!(*s >= '0' && *s <= '9'))
		goto bad;
	const char *digits = s;
	if (*s == '0')
		s++;
	else
		while (*s >= '0' && *s <= '9')
			s++;
	size_t ndig = (size_t)(s - digits);
	int frac = 0, expo = 0;
	if (*s == '.') {
		s++;
		if (!(*s >= '0' && *s <= '9'))
			goto bad;
		while (*s >= '0' && *s <= '9')
			s++;
		frac = 1;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			goto bad;
		while (*s >= '0' && *s <= '9')
			s++;
		expo = 1;
	}
	if (*s)
		goto bad;
	lx->num_int = !frac && !expo;
	lx->num_big = 0;
	lx->num_u = 0;
	if (lx->num_int) {
		for (size_t i = 0; i < ndig; i++) {
			uint64_t d = (uint64_t)(digits[i] - '0');
			if (lx->num_u > (UINT64_MAX - d) / 10) {
				lx->num_big = 1;
				break;
			}
			lx->num_u = lx->num_u * 10 + d;
		}
	}
	lx->num_d = strtod(lx->num, NULL);
	return HF_OK;
bad:
	return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected a JSON number, not '%.40s'", lx->num);
}

static hf_status lex_word(hf_jlex *lx, const char *rest, hf_jtok t, hf_jtok *tok)
{
	for (const char *r = rest; *r; r++) {
		int c = getb(lx);
		if (c == -2)
			return input_failed(lx);
		if (c != *r)
			return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected a JSON value (true, false or null?)");
	}
	*tok = t;
	return HF_OK;
}

hf_status hf_jlex_next(hf_jlex *lx, hf_jtok *tok)
{
	int c;
	for (;;) {
		c = getb(lx);
		if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
			break;
	}
	lx->tok_off = hf_jlex_offset(lx) - (c >= 0);
	switch (c) {
	case -2: return input_failed(lx);
	case -1: *tok = HF_JT_EOF; return HF_OK;
	case '{': *tok = HF_JT_LBRACE; return HF_OK;
	case '}': *tok = HF_JT_RBRACE; return HF_OK;
	case '[': *tok = HF_JT_LBRACKET; return HF_OK;
	case ']': *tok = HF_JT_RBRACKET; return HF_OK;
	case ':': *tok = HF_JT_COLON; return HF_OK;
	case ',': *tok = HF_JT_COMMA; return HF_OK;
	case '"': *tok = HF_JT_STRING; return lex_string(lx);
	case 't': return lex_word(lx, "rue", HF_JT_TRUE, tok);
	case 'f': return lex_word(lx, "alse", HF_JT_FALSE, tok);
	case 'n': return lex_word(lx, "ull", HF_JT_NULL, tok);
	default:
		if (c == '-' || (c >= '0' && c <= '9')) {
			*tok = HF_JT_NUMBER;
			return lex_number(lx, c);
		}
		if (c >= 0x20 && c < 0x7F)
			return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected a JSON value or punctuation, not '%c'", c);
		return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected a JSON value or punctuation, not byte 0x%02x", c);
	}
}

hf_status hf_jlex_expect(hf_jlex *lx, hf_jtok want, const char *what)
{
	hf_jtok t = HF_JT_EOF;
	hf_status st = hf_jlex_next(lx, &t);
	if (st)
		return st;
	if (t == want)
		return HF_OK;
	if (t == HF_JT_EOF)
		return hf_jlex_fail(lx, HF_ERR_TRUNCATED, "the snapshot ends where %s was expected", what);
	return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected %s, not %s", what, tok_name(t));
}

/* Skips white space; the next byte (not consumed), -1 at the end, -2 on an
 * input error; tok_off is where it stands. */
static int skip_ws(hf_jlex *lx)
{
	int c;
	for (;;) {
		c = peekb(lx);
		if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
			break;
		lx->p++;
	}
	lx->tok_off = hf_jlex_offset(lx);
	return c;
}

hf_status hf_jlex_array_more(hf_jlex *lx, int *first, int *more)
{
	int c = skip_ws(lx);
	if (c == -2)
		return input_failed(lx);
	if (c < 0)
		return ends(lx, "an array");
	if (c == ']') {
		lx->p++;
		*more = 0;
		return HF_OK;
	}
	if (!*first) {
		if (c != ',')
			return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected ',' or ']' in an array");
		lx->p++;
	}
	*first = 0;
	*more = 1;
	return HF_OK;
}

hf_status hf_jlex_object_more(hf_jlex *lx, int *first, int *more)
{
	hf_jtok t = HF_JT_EOF;
	hf_status st = hf_jlex_next(lx, &t);
	if (st)
		return st;
	if (t == HF_JT_RBRACE) {
		*more = 0;
		return HF_OK;
	}
	if (!*first) {
		if (t == HF_JT_EOF)
			return ends(lx, "an object");
		if (t != HF_JT_COMMA)
			return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected ',' or '}' in an object, not %s",
			                    tok_name(t));
		if ((st = hf_jlex_next(lx, &t)))
			return st;
	}
	if (t == HF_JT_EOF)
		return ends(lx, "an object");
	if (t != HF_JT_STRING)
		return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected a key (a string) in an object, not %s",
		                    tok_name(t));
	*first = 0;
	*more = 1;
	return hf_jlex_expect(lx, HF_JT_COLON, "':' after a key");
}

hf_status hf_jlex_uint(hf_jlex *lx, uint64_t *v)
{
	int c = skip_ws(lx);
	if (c == -2)
		return input_failed(lx);
	if (c < 0)
		return ends(lx, "an array of integers");
	if (c < '0' || c > '9') {
		hf_jtok t;
		hf_status st = hf_jlex_next(lx, &t);
		if (st)
			return st;
		if (t == HF_JT_NUMBER && lx->num_neg && lx->num_int)
			return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected a non-negative integer, not %s", lx->num);
		return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected a non-negative integer, not %s",
		                    t == HF_JT_NUMBER ? lx->num : tok_name(t));
	}
	uint64_t u = 0;
	size_t n = 0;
	int lead0 = c == '0';
	for (;;) {
		c = peekb(lx);
		if (c < '0' || c > '9')
			break;
		uint64_t d = (uint64_t)(c - '0');
		if (u > (UINT64_MAX - d) / 10)
			return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected an integer below 2^64");
		u = u * 10 + d;
		lx->p++;
		n++;
	}
	if (c == -2)
		return input_failed(lx);
	/* Cut inside the number: it may have been longer (its value is not
	 * to be checked as if it were whole). */
	if (c < 0)
		return ends(lx, "an array of integers");
	if (c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')
		return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected an integer, not a number with a fraction or exponent");
	if (lead0 && n > 1)
		return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected a JSON number (no leading zeros)");
	*v = u;
	return HF_OK;
}

hf_status hf_jlex_int(hf_jlex *lx, int64_t *v)
{
	hf_jtok t;
	hf_status st = hf_jlex_next(lx, &t);
	if (st)
		return st;
	if (t != HF_JT_NUMBER || !lx->num_int || lx->num_big ||
	    lx->num_u > (lx->num_neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX)) {
		if (t == HF_JT_EOF)
			return ends(lx, "an array of integers");
		return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected a 64-bit integer, not %s",
		                    t == HF_JT_NUMBER ? lx->num : tok_name(t));
	}
	*v = lx->num_neg ? (int64_t)(0 - lx->num_u) : (int64_t)lx->num_u;
	return HF_OK;
}

/* ---- skipping and capturing ------------------------------------------------------ */

static bool capture_tok(hf_jlex *lx, hf_jtok t, hf_buf *cap, size_t limit, int *capped)
{
	if (!cap || *capped || t == HF_JT_EOF)
		return true;
	size_t before = cap->len;
	bool ok;
	switch (t) {
	case HF_JT_STRING: ok = hf_buf_json_string(cap, (const char *)lx->str.data, lx->str.len); break;
	case HF_JT_NUMBER: ok = hf_buf_append(cap, lx->num, lx->numlen); break;
	case HF_JT_TRUE: ok = hf_buf_append(cap, "true", 4); break;
	case HF_JT_FALSE: ok = hf_buf_append(cap, "false", 5); break;
	case HF_JT_NULL: ok = hf_buf_append(cap, "null", 4); break;
	default: ok = hf_buf_append(cap, &"{}[]:,"[t - HF_JT_LBRACE], 1); break;
	}
	if (!ok)
		return false;
	if (cap->len > limit) {
		cap->len = before;
		*capped = 1;
	}
	return true;
}

hf_status hf_jlex_skip(hf_jlex *lx, hf_jtok first, hf_buf *capture, size_t cap_limit, int *capped)
{
	/* An explicit stack of open containers (1 bit each) and a state, so
	 * that depth costs a bit, not a C stack frame, and the grammar is
	 * checked as strictly as when the value is read. */
	enum { WANT_VALUE, WANT_VALUE_OR_CLOSE, WANT_KEY_OR_CLOSE, WANT_KEY, WANT_COLON,
	       WANT_COMMA_OR_CLOSE };
	static const size_t maxd = HF_JLEX_DEPTH_MAX;
	uint8_t *stack = NULL; /* 1 = object */
	size_t depth = 0;
	int dummy = 0;
	if (!capped)
		capped = &dummy;
	hf_jtok t = first;
	int state = WANT_VALUE;
	hf_status st = HF_OK;
	for (;;) {
		if (!capture_tok(lx, t, capture, cap_limit, capped)) {
			st = nomem(lx);
			break;
		}
		int in_obj = depth && (stack[(depth - 1) / 8] >> ((depth - 1) % 8) & 1);
		if (t == HF_JT_EOF) {
			st = ends(lx, depth ? (in_obj ? "an object" : "an array") : "a value");
			break;
		}
		int closed = 0;
		switch (state) {
		case WANT_VALUE:
		case WANT_VALUE_OR_CLOSE:
			if (state == WANT_VALUE_OR_CLOSE && t == HF_JT_RBRACKET) {
				closed = 1;
				break;
			}
			if (t == HF_JT_LBRACE || t == HF_JT_LBRACKET) {
				if (depth >= maxd) {
					st = hf_jlex_fail(lx, HF_ERR_LIMIT, "JSON nested deeper than %zu levels", maxd);
					goto out;
				}
				if (depth % 8 == 0) {
					uint8_t *ns = realloc(stack, depth / 8 + 1);
					if (!ns) {
						st = nomem(lx);
						goto out;
					}
					stack = ns;
				}
				size_t b = depth / 8;
				if (depth % 8 == 0)
					stack[b] = 0;
				if (t == HF_JT_LBRACE)
					stack[b] |= (uint8_t)(1u << (depth % 8));
				depth++;
				state = t == HF_JT_LBRACE ? WANT_KEY_OR_CLOSE : WANT_VALUE_OR_CLOSE;
				break;
			}
			if (t == HF_JT_STRING || t == HF_JT_NUMBER || t == HF_JT_TRUE || t == HF_JT_FALSE ||
			    t == HF_JT_NULL) {
				if (!depth)
					goto out;
				state = WANT_COMMA_OR_CLOSE;
				break;
			}
			st = hf_jlex_fail(lx, HF_ERR_FORMAT, "expected a JSON value, not %s", tok_name(t));
			goto out;
		case WANT_KEY_OR_CLOSE:
		case WANT_KEY:
			if (state == WANT_KEY_OR_CLOSE && t == HF_JT_RBRACE) {
				closed = 1;
				break;
			}
			if (t != HF_JT_STRING) {
				st = hf_jlex_fail(lx, HF_ERR_FORMAT, "expected a key (a string), not %s", tok_name(t));
				goto out;
			}
			state = WANT_COLON;
			break;
		case WANT_COLON:
			if (t != HF_JT_COLON) {
				st = hf_jlex_fail(lx, HF_ERR_FORMAT, "expected ':' after a key, not %s", tok_name(t));
				goto out;
			}
			state = WANT_VALUE;
			break;
		case WANT_COMMA_OR_CLOSE:
			if (t == HF_JT_COMMA) {
				state = in_obj ? WANT_KEY : WANT_VALUE;
				break;
			}
			if (t == (in_obj ? HF_JT_RBRACE : HF_JT_RBRACKET)) {
				closed = 1;
				break;
			}
			st = hf_jlex_fail(lx, HF_ERR_FORMAT, "expected ',' or '%c', not %s", in_obj ? '}' : ']',
			                  tok_name(t));
			goto out;
		}
		if (closed) {
			depth--;
			if (!depth)
				goto out;
			state = WANT_COMMA_OR_CLOSE;
		}
		if ((st = hf_jlex_next(lx, &t)))
			break;
	}
out:
	free(stack);
	return st;
}

hf_status hf_jlex_end(hf_jlex *lx)
{
	hf_jtok t;
	hf_status st = hf_jlex_next(lx, &t);
	if (st)
		return st;
	if (t != HF_JT_EOF)
		return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected the end of the input after the snapshot, not %s",
		                    tok_name(t));
	return HF_OK;
}

/* ---- the value tree -------------------------------------------------------------- */

#define JVAL_DEPTH_MAX 64

static bool charge(size_t *budget, size_t n)
{
	if (*budget < n)
		return false;
	*budget -= n;
	return true;
}

static hf_status jval_parse(hf_jlex *lx, hf_jtok t, hf_jval *out, size_t *budget, int depth);

static hf_status too_big(hf_jlex *lx)
{
	return hf_jlex_fail(lx, HF_ERR_LIMIT, "the \"snapshot\" header object is too large");
}

static hf_status jval_container(hf_jlex *lx, hf_jval *out, size_t *budget, int depth, int obj)
{
	size_t cap = 0;
	hf_status st;
	int first = 1, more = 0;
	for (;;) {
		hf_jtok t = HF_JT_EOF;
		if (obj) {
			if ((st = hf_jlex_object_more(lx, &first, &more)))
				return st;
		} else {
			if ((st = hf_jlex_array_more(lx, &first, &more)))
				return st;
		}
		if (!more)
			return HF_OK;
		if (out->n == cap) {
			size_t nc = cap ? cap * 2 : 4;
			if (!charge(budget, (nc - cap) * (sizeof(hf_jval) + (obj ? sizeof(char *) + sizeof(size_t) : 0))))
				return too_big(lx);
			hf_jval *ni = realloc(out->items, nc * sizeof *ni);
			if (!ni)
				return nomem(lx);
			out->items = ni;
			if (obj) {
				char **nk = realloc(out->keys, nc * sizeof *nk);
				if (!nk)
					return nomem(lx);
				out->keys = nk;
				size_t *nl = realloc(out->keylens, nc * sizeof *nl);
				if (!nl)
					return nomem(lx);
				out->keylens = nl;
			}
			cap = nc;
		}
		if (obj) {
			if (!charge(budget, lx->str.len + 1))
				return too_big(lx);
			char *k = malloc(lx->str.len + 1);
			if (!k)
				return nomem(lx);
			memcpy(k, lx->str.data, lx->str.len + 1);
			out->keys[out->n] = k;
			out->keylens[out->n] = lx->str.len;
		}
		hf_jval *item = &out->items[out->n];
		memset(item, 0, sizeof *item);
		out->n++;
		if ((st = hf_jlex_next(lx, &t)))
			return st;
		if ((st = jval_parse(lx, t, item, budget, depth + 1)))
			return st;
	}
}

static hf_status jval_parse(hf_jlex *lx, hf_jtok t, hf_jval *out, size_t *budget, int depth)
{
	memset(out, 0, sizeof *out);
	if (depth > JVAL_DEPTH_MAX)
		return hf_jlex_fail(lx, HF_ERR_LIMIT, "the \"snapshot\" header is nested deeper than %d levels",
		                    JVAL_DEPTH_MAX);
	if (!charge(budget, sizeof *out))
		return too_big(lx);
	switch (t) {
	case HF_JT_NULL: out->type = HF_JV_NULL; return HF_OK;
	case HF_JT_TRUE: out->type = HF_JV_TRUE; return HF_OK;
	case HF_JT_FALSE: out->type = HF_JV_FALSE; return HF_OK;
	case HF_JT_NUMBER:
		out->d = lx->num_d;
		if (lx->num_int && !lx->num_big &&
		    lx->num_u <= (lx->num_neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX)) {
			out->type = HF_JV_INT;
			out->i = lx->num_neg ? (int64_t)(0 - lx->num_u) : (int64_t)lx->num_u;
		} else {
			/* Kept as written ("1.0", 2^64-1, "1e300"): its text goes
			 * back out, where a double would change it. */
			out->type = HF_JV_REAL;
			if (!charge(budget, lx->numlen + 1))
				return too_big(lx);
			out->s = malloc(lx->numlen + 1);
			if (!out->s)
				return nomem(lx);
			memcpy(out->s, lx->num, lx->numlen + 1);
			out->n = lx->numlen;
		}
		return HF_OK;
	case HF_JT_STRING:
		out->type = HF_JV_STRING;
		if (!charge(budget, lx->str.len + 1))
			return too_big(lx);
		out->s = malloc(lx->str.len + 1);
		if (!out->s)
			return nomem(lx);
		memcpy(out->s, lx->str.data, lx->str.len + 1);
		out->n = lx->str.len;
		return HF_OK;
	case HF_JT_LBRACKET:
		out->type = HF_JV_ARRAY;
		return jval_container(lx, out, budget, depth, 0);
	case HF_JT_LBRACE:
		out->type = HF_JV_OBJECT;
		return jval_container(lx, out, budget, depth, 1);
	case HF_JT_EOF:
		return ends(lx, "the \"snapshot\" header");
	default:
		return hf_jlex_fail(lx, HF_ERR_FORMAT, "expected a JSON value, not %s", tok_name(t));
	}
}

hf_status hf_jval_parse(hf_jlex *lx, hf_jtok first, hf_jval *out, size_t *budget)
{
	return jval_parse(lx, first, out, budget, 0);
}

void hf_jval_free(hf_jval *v)
{
	if (!v)
		return;
	free(v->s);
	for (size_t i = 0; v->items && i < v->n; i++) {
		hf_jval_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->keylens);
	memset(v, 0, sizeof *v);
}

const hf_jval *hf_jval_get(const hf_jval *obj, const char *key)
{
	if (!obj || obj->type != HF_JV_OBJECT)
		return NULL;
	size_t kl = strlen(key);
	for (size_t i = 0; i < obj->n; i++)
		if (obj->keylens[i] == kl && !memcmp(obj->keys[i], key, kl))
			return &obj->items[i];
	return NULL;
}

bool hf_jval_dump_with(const hf_jval *v, hf_buf *out, bool (*str)(hf_buf *b, const char *s, size_t n))
{
	char num[40];
	switch (v->type) {
	case HF_JV_NULL: return hf_buf_append(out, "null", 4);
	case HF_JV_TRUE: return hf_buf_append(out, "true", 4);
	case HF_JV_FALSE: return hf_buf_append(out, "false", 5);
	case HF_JV_INT: return hf_buf_i64(out, v->i);
	case HF_JV_REAL:
		if (v->s)
			return hf_buf_append(out, v->s, v->n);
		if (!isfinite(v->d))
			return hf_buf_append(out, "null", 4);
		snprintf(num, sizeof num, "%.17g", v->d);
		return hf_buf_append(out, num, strlen(num));
	case HF_JV_STRING: return str(out, v->s, v->n);
	case HF_JV_ARRAY:
	case HF_JV_OBJECT: {
		int obj = v->type == HF_JV_OBJECT;
		if (!hf_buf_append(out, obj ? "{" : "[", 1))
			return false;
		for (size_t i = 0; i < v->n; i++) {
			if (i && !hf_buf_append(out, ",", 1))
				return false;
			if (obj && (!str(out, v->keys[i], v->keylens[i]) ||
			            !hf_buf_append(out, ":", 1)))
				return false;
			if (!hf_jval_dump_with(&v->items[i], out, str))
				return false;
		}
		return hf_buf_append(out, obj ? "}" : "]", 1);
	}
	}
	return false;
}

bool hf_jval_dump(const hf_jval *v, hf_buf *out)
{
	return hf_jval_dump_with(v, out, hf_buf_json_string);
}

/* ---- V8's names ---------------------------------------------------------------------- */

const char *const hf_v8_node_type_names[] = {
	"hidden", "array", "string", "object", "code", "closure", "regexp", "number", "native",
	"synthetic", "concatenated string", "sliced string", "symbol", "bigint", "object shape",
	"wasm object",
};
const size_t hf_v8_node_type_count = sizeof hf_v8_node_type_names / sizeof *hf_v8_node_type_names;
const char *const hf_v8_edge_type_names[] = {
	"context", "element", "property", "internal", "hidden", "shortcut", "weak",
};
const size_t hf_v8_edge_type_count = sizeof hf_v8_edge_type_names / sizeof *hf_v8_edge_type_names;

void hf_v8_type_ident(const char *name, char *out, size_t size)
{
	size_t n = 0;
	if (!size)
		return;
	for (const char *s = name; *s && n + 1 < size; s++) {
		char c = *s;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
			c = '_';
		if (n == 0 && !(c >= 'a' && c <= 'z')) {
			if (n + 2 >= size)
				break;
			out[n++] = 't';
		}
		out[n++] = c;
	}
	if (n == 0 && size > 1)
		out[n++] = 't';
	out[n] = 0;
}
