/* Record types of the DDM mapping and the state the DDM readers share
 * (ddm_model.c): string, frame and stack interning, warnings, values. */
#ifndef HF_DDM_MODEL_H
#define HF_DDM_MODEL_H
#include "internal.h"

extern const hf_type ddm_rec_alloc_report, ddm_rec_allocation, ddm_rec_stack,
	ddm_rec_stack_element, ddm_rec_stack_frame, ddm_rec_heap_info, ddm_rec_heap_dump,
	ddm_rec_heap_segment, ddm_rec_heap_run, ddm_rec_thread, ddm_rec_chunk;
/* Every type, in declaration order, NULL-terminated. */
extern const hf_type *const ddm_types[];

/* A chunk type as four characters and a NUL ("HPSG"; '?' for unprintable). */
void ddm_type_name(uint32_t type, char out[5]);
#define DDM_TYPE(a, b, c, d) \
	(((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))

typedef struct ddm_str {
	uint64_t sid;
	size_t off, len;     /* UTF-8 bytes in the arena */
	uint32_t next;       /* next entry with the same hash bucket, UINT32_MAX none */
} ddm_str;

typedef struct ddm_frame {
	uint64_t cls, desc, method, file; /* string ids */
	int32_t line;
	uint32_t next;
} ddm_frame;

typedef struct ddm_stack {
	size_t off;          /* first frame id in stack_arena */
	uint32_t depth;
	uint32_t next;
} ddm_stack;

/* What both readers share while writing one output. */
typedef struct ddm_ctx {
	hf_sink *sink;
	hf_error *err;
	const char *warn_key;   /* metadata key of warnings */
	hf_warning_fn warning;  /* the options' (hf_warning_fn), or NULL */
	void *warning_ctx;
	uint64_t warnings;
	uint64_t *stats_warnings;
	hf_alloc_stats *astats;
	hf_alloc_order order;   /* option */
	int vm_dalvik;          /* -1 unknown, 1 HELO said Dalvik v1.x, 0 said ART */
	uint64_t max_size;
	/* While the inflated payload of a ZLIB chunk is decoded (offsets are
	 * then into the inflated bytes): the chunk header's offset, where
	 * warnings and the allocation report's offset point. */
	int inflated;
	uint64_t zlib_off;

	hf_map str_map;         /* hash -> first ddm_str index */
	ddm_str *strs;
	size_t nstrs, capstrs;
	hf_buf str_arena;
	uint64_t next_sid;

	hf_map frame_map;       /* hash -> first frame index (frame id = index + 1) */
	ddm_frame *frames;
	size_t nframes, capframes;

	hf_map stack_map;       /* hash -> first stack index (stack id = index + 1) */
	ddm_stack *stacks;
	size_t nstacks, capstacks;
	uint32_t *stack_arena;
	size_t nstack_arena, capstack_arena;

	uint64_t reports;
	hf_value vals[24];  /* more than the fields of any DDM type */
	hf_buf text, text2;
} ddm_ctx;

void ddm_ctx_init(ddm_ctx *c, hf_sink *sink, hf_error *err);
void ddm_ctx_free(ddm_ctx *c);

hf_status ddm_nomem(ddm_ctx *c);
/* Emits metadata, version, declarations: source is "ddm-alloc" or "ddm-stream". */
hf_status ddm_begin(ddm_ctx *c, const char *target_source, const char *target_file,
                    const char *crtime, const char *generator);
hf_status ddm_meta(ddm_ctx *c, const char *key, const char *value);
hf_status ddm_meta_u(ddm_ctx *c, const char *key, uint64_t value);
/* Counts a warning and keeps the first ones as metadata "<warn_key>". */
hf_status ddm_warn(ddm_ctx *c, uint64_t off, const char *tag, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;
hf_status ddm_fail(ddm_ctx *c, hf_status st, uint64_t off, const char *tag,
                   const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;

/* Interns UTF-8 text; writes a string record the first time; *sid gets its id. */
hf_status ddm_intern(ddm_ctx *c, const char *s, size_t n, uint64_t *sid);
/* Decodes n UTF-16BE code units at p and interns the text. */
hf_status ddm_intern_utf16(ddm_ctx *c, const uint8_t *p, size_t n, uint64_t *sid);
/* Text of an interned string. */
const char *ddm_str_text(const ddm_ctx *c, uint64_t sid, size_t *len);
/* A stack frame; writes ddm.stack_frame the first time.  *id from 1. */
hf_status ddm_frame_id(ddm_ctx *c, uint64_t cls, uint64_t desc, uint64_t method,
                       uint64_t file, int32_t line, uint64_t *id);
/* A stack (frame ids innermost first); writes ddm.stack and its
 * ddm.stack_element records the first time.  *id from 1. */
hf_status ddm_stack_id(ddm_ctx *c, const uint32_t *frames, uint32_t depth, uint64_t *id);

/* ddmlib's display form of a type descriptor (AllocationsParser.descriptorToDot):
 * leading '[' counted and removed, "Lx/y;" -> "x.y", a primitive letter ->
 * its name, then one "[]" per '['; anything else is kept as it is.  False
 * when out of memory (out then holds part of the name). */
bool ddm_descriptor_to_dot(const char *s, size_t n, hf_buf *out);

/* Values of the record being built. */
static inline void ddm_vals_clear(ddm_ctx *c, size_t n)
{
	memset(c->vals, 0, n * sizeof *c->vals);
}
static inline void ddm_val_i(hf_value *v, int64_t i) { v->i = i; v->u = (uint64_t)i; v->present = 1; }
static inline void ddm_val_u(hf_value *v, uint64_t u) { v->u = u; v->i = (int64_t)u; v->present = 1; }
static inline void ddm_val_s(hf_value *v, const char *s, size_t n) { v->s = s; v->n = n; v->present = 1; }
hf_status ddm_record(ddm_ctx *c, const hf_type *t);

/* Reads exactly n bytes of input into *p (valid until the next input call):
 * a view into the input window when it fits, else a copy into buf.
 * *got < n means the input ended first. */
hf_status ddm_take(hf_input *in, uint64_t n, hf_buf *buf, const uint8_t **p, uint64_t *got,
                   hf_error *err);

/* Reads the rest of the input into buf (at most max bytes, else an
 * HF_ERR_LIMIT naming tag). */
hf_status ddm_read_all(hf_input *in, uint64_t max, hf_buf *buf, const char *tag, hf_error *err);

/* Decodes one REAL payload (ddm_alloc.c).  base: input offset of p[0];
 * chunk: index of the chunk it came in (-1 for a bare report). */
hf_status ddm_alloc_report(ddm_ctx *c, const uint8_t *p, size_t n, uint64_t base,
                           int64_t chunk);
#endif
