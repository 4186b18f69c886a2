/*
 * The JSON layer of the V8 heap-snapshot reader (v8_model.c): a streaming
 * tokenizer over the input layer and a small bounded value tree for the
 * snapshot's header object; and V8's own names for node and edge types.
 */
#ifndef HF_V8_MODEL_H
#define HF_V8_MODEL_H
#include "internal.h"

/* ---- streaming JSON tokenizer -------------------------------------------- */

typedef enum hf_jtok {
	HF_JT_EOF = 0,
	HF_JT_LBRACE, HF_JT_RBRACE, HF_JT_LBRACKET, HF_JT_RBRACKET, HF_JT_COLON, HF_JT_COMMA,
	HF_JT_STRING, HF_JT_NUMBER, HF_JT_TRUE, HF_JT_FALSE, HF_JT_NULL
} hf_jtok;

#define HF_JLEX_NUM_MAX 512      /* longest number text accepted */
#define HF_JLEX_DEPTH_MAX 65536  /* deepest nesting skipped or captured */

typedef struct hf_jlex {
	hf_input *in;
	hf_error *err;
	const uint8_t *win, *p, *end; /* window [win, end) of the input; cursor p */
	uint64_t base;                /* input offset of win */
	size_t window;                /* bytes asked for per refill */
	int eof;
	const char *ctx;              /* what is being read, for error tags ("nodes") */
	uint64_t tok_off;             /* offset of the token last read */
	/* HF_JT_STRING: the decoded UTF-8 text (NUL-terminated; may hold NULs) */
	hf_buf str;
	size_t max_string;
	/* HF_JT_NUMBER */
	char num[HF_JLEX_NUM_MAX + 1];
	size_t numlen;
	int num_int;                  /* no fraction, no exponent */
	int num_neg;
	int num_big;                  /* integer beyond 64 bits (num_u is not exact) */
	uint64_t num_u;               /* magnitude of an integer */
	double num_d;
	uint64_t lone_surrogates;     /* \uD800-style escapes turned into U+FFFD */
} hf_jlex;

void hf_jlex_init(hf_jlex *lx, hf_input *in, size_t window, size_t max_string, hf_error *err);
void hf_jlex_free(hf_jlex *lx);
static inline uint64_t hf_jlex_offset(const hf_jlex *lx)
{
	return lx->base + (uint64_t)(lx->p - lx->win);
}
/* Fails with "offset N (ctx): expected ..." at the last token. */
hf_status hf_jlex_fail(hf_jlex *lx, hf_status st, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
/* Reads the next token. */
hf_status hf_jlex_next(hf_jlex *lx, hf_jtok *tok);
/* Reads the next token and fails unless it is `want`. */
hf_status hf_jlex_expect(hf_jlex *lx, hf_jtok want, const char *what);
/* Arrays element by element: call with *first = 1 right after '['; says
 * whether another element follows (consuming the ',' before it) or the
 * array ended (consuming ']'). */
hf_status hf_jlex_array_more(hf_jlex *lx, int *first, int *more);
/* Objects: after '{', reads the next key into lx->str (consuming the ':')
 * or says the object ended. */
hf_status hf_jlex_object_more(hf_jlex *lx, int *first, int *more);
/* Fast path for the big arrays: a non-negative integer below 2^64. */
hf_status hf_jlex_uint(hf_jlex *lx, uint64_t *v);
/* A signed integer (fits int64). */
hf_status hf_jlex_int(hf_jlex *lx, int64_t *v);
/* Skips one whole value after its first token `first` was read; when
 * capture is given, appends its compact JSON text while it stays within
 * cap_limit bytes (*capped says it did not). */
hf_status hf_jlex_skip(hf_jlex *lx, hf_jtok first, hf_buf *capture, size_t cap_limit,
                       int *capped);
/* After the top-level value: only white space may follow. */
hf_status hf_jlex_end(hf_jlex *lx);

/* ---- a small value tree (for the "snapshot" header object) --------------- */

typedef enum hf_jtype {
	HF_JV_NULL, HF_JV_FALSE, HF_JV_TRUE, HF_JV_INT, HF_JV_REAL, HF_JV_STRING,
	HF_JV_ARRAY, HF_JV_OBJECT
} hf_jtype;

typedef struct hf_jval hf_jval;
struct hf_jval {
	hf_jtype type;
	char *s;            /* STRING: decoded UTF-8 (NUL-terminated); REAL: the
	                     * number as written (JSON), which hf_jval_dump writes */
	size_t n;           /* STRING, REAL: length of s; ARRAY, OBJECT: count */
	int64_t i;          /* INT (within int64) */
	double d;           /* INT and REAL */
	hf_jval *items;     /* ARRAY, OBJECT: the values */
	char **keys;        /* OBJECT: the keys (NUL-terminated) */
	size_t *keylens;
};

/* Parses the value whose first token `first` was just read.  *budget is the
 * number of bytes the tree may still take; depth is bounded by 64. */
hf_status hf_jval_parse(hf_jlex *lx, hf_jtok first, hf_jval *out, size_t *budget);
void hf_jval_free(hf_jval *v);
/* The first member named key, or NULL. */
const hf_jval *hf_jval_get(const hf_jval *obj, const char *key);
/* Appends compact JSON text. */
bool hf_jval_dump(const hf_jval *v, hf_buf *out);
/* The same with the strings (keys too) written by str: hf_buf_json_string
 * for hf_jval_dump. */
bool hf_jval_dump_with(const hf_jval *v, hf_buf *out, bool (*str)(hf_buf *b, const char *s, size_t n));

/* ---- V8's names ------------------------------------------------------------ */

/* meta.node_types[type] and meta.edge_types[type] of current V8 (Node.js 20). */
extern const char *const hf_v8_node_type_names[];
extern const size_t hf_v8_node_type_count;
extern const char *const hf_v8_edge_type_names[];
extern const size_t hf_v8_edge_type_count;
/* A type name as a subtype name: lower case, [a-z0-9_], starting with a
 * letter ("concatenated string" -> "concatenated_string"); at most size-1
 * bytes. */
void hf_v8_type_ident(const char *name, char *out, size_t size);

#endif
