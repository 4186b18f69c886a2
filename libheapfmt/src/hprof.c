/*
 * HPROF reader (HotSpot, the JVMTI hprof agent, Dalvik and ART).
 *
 * One pass over the input through the input layer.  Records are streamed:
 * no whole record and no whole heap is ever held.  What is kept in memory
 * grows with the number of classes and names, not of objects:
 *  - UTF8 names (needed for class and field names);
 *  - class layouts (needed to decode instance fields);
 *  - deferred instances, whose class dump has not been seen yet (Android and
 *    the hprof agent write objects before their class): their raw bytes go to
 *    a spool (memory up to a bound, then a temporary file) and are decoded at
 *    the end of the dump, when every class of it is known;
 *  - java.lang.String values waiting for their char[]/byte[] (pending) and a
 *    bounded cache of recent char[]/byte[] contents for Strings that come
 *    after their array.
 * See schema/README.md for the record layout and the shallow-size models.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "hprof_model.h"
#include "input_impl.h"
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

/* Top-level tags. */
enum {
	TAG_UTF8 = 0x01, TAG_LOAD_CLASS = 0x02, TAG_UNLOAD_CLASS = 0x03, TAG_FRAME = 0x04,
	TAG_TRACE = 0x05, TAG_ALLOC_SITES = 0x06, TAG_HEAP_SUMMARY = 0x07,
	TAG_START_THREAD = 0x0A, TAG_END_THREAD = 0x0B, TAG_HEAP_DUMP = 0x0C,
	TAG_CPU_SAMPLES = 0x0D, TAG_CONTROL_SETTINGS = 0x0E, TAG_HEAP_DUMP_SEGMENT = 0x1C,
	TAG_HEAP_DUMP_END = 0x2C
};
/* Heap-dump sub-record tags. */
enum {
	SUB_ROOT_UNKNOWN = 0xFF, SUB_ROOT_JNI_GLOBAL = 0x01, SUB_ROOT_JNI_LOCAL = 0x02,
	SUB_ROOT_JAVA_FRAME = 0x03, SUB_ROOT_NATIVE_STACK = 0x04, SUB_ROOT_STICKY_CLASS = 0x05,
	SUB_ROOT_THREAD_BLOCK = 0x06, SUB_ROOT_MONITOR_USED = 0x07, SUB_ROOT_THREAD_OBJECT = 0x08,
	SUB_CLASS_DUMP = 0x20, SUB_INSTANCE_DUMP = 0x21, SUB_OBJECT_ARRAY_DUMP = 0x22,
	SUB_PRIMITIVE_ARRAY_DUMP = 0x23,
	SUB_ROOT_INTERNED_STRING = 0x89, SUB_ROOT_FINALIZING = 0x8A, SUB_ROOT_DEBUGGER = 0x8B,
	SUB_ROOT_REFERENCE_CLEANUP = 0x8C, SUB_ROOT_VM_INTERNAL = 0x8D, SUB_ROOT_JNI_MONITOR = 0x8E,
	SUB_UNREACHABLE = 0x90, SUB_PRIMITIVE_ARRAY_NODATA = 0xC3, SUB_HEAP_DUMP_INFO = 0xFE
};

enum { T_OBJECT = 2, T_BOOLEAN = 4, T_CHAR = 5, T_FLOAT = 6, T_DOUBLE = 7, T_BYTE = 8,
       T_SHORT = 9, T_INT = 10, T_LONG = 11 };

#define MAX_CLASS_CHAIN 4096
/* Flattened fields (class_layout) always allowed, beyond one per input byte. */
#define FLAT_FIELDS_FREE ((uint64_t)1 << 20)
/* The work on class chains, in all: a class walked to lay out or check a
 * layout is a step, a flattened entry built CHAIN_WORK_ENTRY steps (its
 * name looked up and sorted: some 250 ns against 30 ns a step).  Allowed:
 * CHAIN_WORK_FREE steps, plus CHAIN_WORK_PER_BYTE for each byte read.  A
 * real dump lays each class out once (100 K classes of chains 10 to 30 deep:
 * a few million steps and entries, far within the allowance of its bytes);
 * a crafted one could make every 25-byte instance walk a chain of 4096
 * classes that is never complete (80,000 instances took 14 s), or rebuild
 * a layout of 60,000 fields after each 118-byte UNLOAD CLASS and CLASS DUMP
 * (2,000 times: 30 s).  Past the budget a class's instances are converted
 * without their fields decoded (class_layout -3), with a warning. */
#define CHAIN_WORK_FREE ((uint64_t)1 << 22)
#define CHAIN_WORK_PER_BYTE 4
#define CHAIN_WORK_ENTRY 8
#define MAX_SMALL_RECORD ((uint64_t)64 << 20)
#define DEFAULT_SPOOL_MEMORY ((size_t)64 << 20)
#define DEFAULT_STRING_CACHE ((size_t)32 << 20)
/* Strings waiting for their array, in memory, before they are parked on disk
 * (about 100 bytes each, plus the map: some 15 MiB). */
#define DEFAULT_STRING_WAIT ((size_t)128 << 10)

static const char *const type_names[12] = {
	NULL, NULL, "object", NULL, "boolean", "char", "float", "double", "byte", "short", "int", "long"
};

typedef struct field_def {
	uint64_t name;   /* HPROF string id */
	uint8_t type;
} field_def;

typedef struct flat_field {
	uint32_t offset; /* in the instance's field bytes */
	uint8_t type;
	uint64_t name;   /* our string id */
	uint64_t hname;  /* HPROF string id */
	int shadowed;    /* a subclass has a field of the same name */
} flat_field;

/* A reference field of the layout, in flat's order: what the instance
 * loop reads, without stepping over the primitive fields. */
typedef struct ref_field {
	uint32_t offset; /* in the instance's field bytes */
	uint64_t name;   /* our string id: the edge's label */
} ref_field;

typedef struct class_info {
	uint64_t id, super, loader;
	uint32_t instance_size;
	field_def *fields;
	uint16_t nfields;
	int dumped;
	int fields_emitted;
	/* Layout over the superclass chain, computed on first use. */
	int layout;          /* 0 not yet, 1 ok, -1 broken (cycle / too deep), -2 over the
	                      * flattened fields' budget, -3 over the chain work's */
	uint64_t layout_gen; /* reader's layout_gen when last known good */
	uint64_t forgot_gen; /* reader's layout_gen when this class was forgotten */
	uint32_t total;      /* serialized bytes of all instance fields */
	flat_field *flat;
	uint32_t nflat;
	ref_field *refs;     /* flat's T_OBJECT fields */
	uint32_t nrefs;
	uint64_t shallow;    /* instance shallow size (model) */
	int is_string;
	int32_t str_value, str_coder, str_offset, str_count; /* indexes in flat, -1 none */
} class_info;

typedef struct name_entry {
	uint64_t sid;        /* our string id */
	size_t off, len;     /* decoded UTF-8 in names arena */
	uint64_t jsid;       /* the string id of its Java form, once a class is named so (0: not yet) */
} name_entry;

typedef struct pending_string {
	uint64_t sid;        /* string id reserved for the text */
	int32_t coder;       /* -1 absent */
	int64_t offset, count; /* -1 absent */
	uint32_t next;       /* next pending string for the same array, or UINT32_MAX */
	uint32_t dump;
	/* The String's node waits with it, so that its text field is written
	 * only when the text is (no reference to a string never written). */
	uint64_t node, cls, size;
	uint32_t heap;
	char *values;        /* --values JSON, or NULL */
	size_t values_len;
} pending_string;

/* A class node waiting for the end of its dump: its size needs the layout
 * of java.lang.Class, whose CLASS DUMP (and java.lang.Object's) HotSpot
 * writes after most other classes'. */
typedef struct pending_class {
	uint64_t id, super, loader, static_bytes;
	uint32_t isize, heap;
	uint16_t nst, nif;
	int32_t has_class_pseudo;
	int64_t values_off;  /* in class_values, -1 without --values */
	uint64_t values_len;
} pending_class;

/* A LOAD CLASS whose name's UTF8 record had not come yet. */
typedef struct late_class {
	uint64_t cls;
	uint64_t next;       /* index of the next one with the same name, or UINT64_MAX */
} late_class;

/* A parked String waiting in a later pass: its array and dump, and its
 * record's offset in the park file (REF_DONE set once its node is written). */
typedef struct late_ref {
	uint64_t array;
	uint64_t off;
	uint32_t dump;
} late_ref;
#define REF_DONE ((uint64_t)1 << 63)

/* A way of the array cache: pos is the absolute ring position of the
 * array's header (its length and element type, then its bytes) plus one;
 * 0 is empty. */
typedef struct cached_array {
	uint64_t id;
	uint64_t pos;
} cached_array;

/* Strings whose array has not been looked for yet: most dumps write a
 * String just before its array (HotSpot, in address order), and an array
 * that matches one of these needs neither the cache nor pending_map. */
#define FRESH_MAX 8

#define CACHE_WAYS 4           /* one 64-byte line per set */
#define CACHE_HDR 8            /* in the ring: u32 length, u8 type, padding */

/* TIX_FULL: the index takes no more arrays (a pipe's text spool could not be
 * written), but those it has stand (tspool_freeze). */
enum { TIX_NONE, TIX_ON, TIX_FULL, TIX_OFF };

/* An id filter (see "id filters" below): the bits, made at the first add,
 * and the words an add turned non-zero since the last clear, so that a
 * clear writes only those while there are few of them. */
#define FILTER_LOG 64
typedef struct id_filter {
	uint64_t *bits;
	uint32_t nset;               /* words turned non-zero (at most 2^17) */
	uint32_t set[FILTER_LOG];    /* the first FILTER_LOG of them */
} id_filter;

typedef struct reader {
	hf_input *in;
	hf_sink *sink;
	const hf_hprof_options *opt;
	hf_hprof_stats *stats;
	hf_error *err;
	unsigned idsize;
	int android;         /* 1.0.3, or a 1.0.2 file with ART's class names (hprof-conv) */
	int art_names;       /* a LOAD CLASS named java.lang.Object or char[] (ART's form) */
	int agent_records;   /* a CONTROL SETTINGS or START THREAD record, which the JVMTI hprof
	                      * agent writes and ART and Dalvik do not: its names look like ART's */
	int timed;           /* a record with a time other than 0 came (HotSpot, ART and Dalvik
	                      * write 0; the JVMTI hprof agent the microseconds since the header) */
	char version[40];
	uint64_t timestamp_ms;

	/* names: HPROF string id -> names[] index */
	hf_map name_map;
	name_entry *names;
	size_t nnames, capnames;
	hf_buf name_arena;
	uint64_t next_sid;

	/* classes */
	hf_map class_map;    /* class id -> classes[] index */
	size_t last_class_ix; /* SIZE_MAX: none */
	class_info *classes;
	size_t nclasses, capclasses;
	uint64_t flat_fields; /* entries of every class's flat[] together */
	uint64_t chain_work;  /* classes walked and entries built, in all (CHAIN_WORK_FREE) */
	uint64_t chain_read;  /* the furthest input offset chain_work_over saw */
	hf_map class_name;   /* class id -> HPROF name id (LOAD CLASS) */
	hf_map class_java_name; /* class id -> our string id of the Java form */
	hf_map serial_class; /* class serial -> class id */
	hf_map late_names;   /* HPROF name id of a LOAD CLASS that came before its UTF8 -> index in late_classes */
	hf_map missed_names; /* HPROF name ids used (field, frame...) before any UTF8 record of them */
	uint64_t names_after_use; /* UTF8 records whose id was used before them */
	size_t values_limit;     /* longest values text of a node (--values) */
	hf_buf late_classes; /* late_class chains */
	hf_map class_serial; /* class id -> class serial */
	uint64_t string_class, class_class;
	uint64_t layout_gen;     /* bumped when a class is forgotten (class_forget) */
	uint64_t prim_array_class[12];

	/* dumps */
	uint32_t dump;
	int dump_open, dump_segmented;
	int last_to_eof;     /* the last heap-dump record was read to the end of the input */
	int warned_segments_101; /* a 1.0.1 file with segments: said once */
	uint32_t heap;
	hf_map heaps_seen;   /* heap id -> name sid */
	int coops_decided, coops;
	unsigned oop, obj_header, arr_header, obj_align;
	const char *model_from; /* how the HotSpot size model was decided */
	int emit;            /* the current dump is selected */

	/* class nodes of the open dump (pending_class), their --values JSON */
	hf_buf pending_classes, class_values;

	/* deferred instances */
	hf_buf spool;
	FILE *spool_file;
	uint64_t spool_count;

	/* Strings */
	hf_map pending_map;  /* array id -> first pending index | last << 32 */
	hf_map late_map;     /* the same, for Strings whose dump has ended (see
	                        resolve_late: each chain in the order of the dumps) */
	uint32_t late_dead;  /* late Strings the pass has gone by, to be written
	                        without text at its end (UINT32_MAX: none) */
	int late_unsorted;   /* late_map may have chains out of dump order */
	uint64_t late_walk;  /* late Strings looked at (hf_hprof_test_late_walk) */
	int rescan;          /* second pass: only resolving late Strings */
	pending_string *pending;
	size_t npending, cappending, pending_free; /* free list head (UINT32_MAX none) */
	size_t pending_live;     /* entries of pending[] in use */
	size_t string_wait;      /* the most kept in memory before parking */
	FILE *park_file;         /* waiting Strings parked on disk, for later passes */
	uint64_t parked, park_read;
	uint64_t park_pos;       /* park file offset of the next record park_next reads */
	late_ref *refs;          /* while late_refs: the pass's parked Strings, by array */
	size_t nrefs, caprefs, ref_finger;
	int late_refs;
	struct run_item *run;    /* Strings parked since the last run was written (park_one) */
	size_t nrun, caprun;
	hf_buf run_vals;         /* their values (--values), run_item.voff into it */
	struct park_runs { uint64_t *start, *first; size_t n, cap; struct park_win *win; uint64_t end; } runs;
	struct read_window { uint8_t *buf; size_t cap, len; uint64_t start; } input_win;
	FILE *tix_file;          /* text-array index (see tix_add); NULL: none */
	struct tix_entry *tix_buf;
	size_t tix_n;            /* entries in tix_buf not yet in tix_file */
	int tix_state;           /* TIX_NONE, TIX_ON, TIX_FULL, TIX_OFF */
	uint64_t tix_flushed;    /* entries in tix_file */
	/* Strings settled in place (see settle_in_place): the index's spans. */
	bool in_place;
	struct tix_span *spans;
	size_t nspans, capspans;
	uint64_t tix_dump_first; /* the open dump's first index entry */
	struct tix_entry *chunk; /* [TIX_CHUNK]: the entries of span chunk_no */
	size_t chunk_no, chunk_n;
	uint64_t win_read;       /* bytes read into input_win */
	uint64_t in_place_read;  /* of which for Strings settled in place */
	FILE *tspool;            /* a pipe's or gzip's text arrays, which the index points into */
	uint64_t tspool_pos;     /* its size */
	uint64_t tspool_end;     /* TIX_FULL: its whole arrays end here (tspool_freeze) */
	uint64_t tspool_budget;  /* the most it and the index take of TMPDIR */
	int spool_lost;          /* it stopped in the first pass: unpark_to_memory */
	id_filter pending_bits;  /* filters in front of pending_map and late_map */
	id_filter late_bits;
	uint64_t pending_puts;   /* puts since pending_bits was rebuilt */
	pending_string fresh[FRESH_MAX]; /* the newest Strings: a ring, oldest at fresh_head */
	uint64_t fresh_array[FRESH_MAX];
	unsigned fresh_head, nfresh;
	cached_array *cache;     /* (cache_sets) x CACHE_WAYS */
	size_t cache_setmask;    /* number of sets - 1 */
	unsigned id_shift;       /* low bits clear in every array id so far (<= 3) */
	uint64_t last_text_array;      /* id of the last char[]/byte[] of the dump */
	uint64_t text_arrays, text_array_descents; /* how many; how many had a lower id */
	uint8_t *cache_ring;
	size_t cache_cap;
	uint64_t cache_wpos;     /* absolute: ring offset is cache_wpos % cache_cap */

	/* scratch */
	hf_buf text, json, tmp;
	hf_value vals[16];

	uint64_t unknown_tags;
	hf_buf unknown_list;
	uint64_t warnings;
	uint64_t last_progress;
} reader;

/* ---- errors ------------------------------------------------------------- */

static const char *tag_name(unsigned tag)
{
	switch (tag) {
	case TAG_UTF8: return "UTF8";
	case TAG_LOAD_CLASS: return "LOAD CLASS";
	case TAG_UNLOAD_CLASS: return "UNLOAD CLASS";
	case TAG_FRAME: return "FRAME";
	case TAG_TRACE: return "TRACE";
	case TAG_ALLOC_SITES: return "ALLOC SITES";
	case TAG_HEAP_SUMMARY: return "HEAP SUMMARY";
	case TAG_START_THREAD: return "START THREAD";
	case TAG_END_THREAD: return "END THREAD";
	case TAG_HEAP_DUMP: return "HEAP DUMP";
	case TAG_CPU_SAMPLES: return "CPU SAMPLES";
	case TAG_CONTROL_SETTINGS: return "CONTROL SETTINGS";
	case TAG_HEAP_DUMP_SEGMENT: return "HEAP DUMP SEGMENT";
	case TAG_HEAP_DUMP_END: return "HEAP DUMP END";
	}
	return NULL;
}

static const char *sub_name(unsigned sub)
{
	switch (sub) {
	case SUB_ROOT_UNKNOWN: return "UNKNOWN";
	case SUB_ROOT_JNI_GLOBAL: return "JNI_GLOBAL";
	case SUB_ROOT_JNI_LOCAL: return "JNI_LOCAL";
	case SUB_ROOT_JAVA_FRAME: return "JAVA_FRAME";
	case SUB_ROOT_NATIVE_STACK: return "NATIVE_STACK";
	case SUB_ROOT_STICKY_CLASS: return "STICKY_CLASS";
	case SUB_ROOT_THREAD_BLOCK: return "THREAD_BLOCK";
	case SUB_ROOT_MONITOR_USED: return "MONITOR_USED";
	case SUB_ROOT_THREAD_OBJECT: return "THREAD_OBJECT";
	case SUB_CLASS_DUMP: return "CLASS DUMP";
	case SUB_INSTANCE_DUMP: return "INSTANCE DUMP";
	case SUB_OBJECT_ARRAY_DUMP: return "OBJECT ARRAY DUMP";
	case SUB_PRIMITIVE_ARRAY_DUMP: return "PRIMITIVE ARRAY DUMP";
	case SUB_ROOT_INTERNED_STRING: return "INTERNED_STRING";
	case SUB_ROOT_FINALIZING: return "FINALIZING";
	case SUB_ROOT_DEBUGGER: return "DEBUGGER";
	case SUB_ROOT_REFERENCE_CLEANUP: return "REFERENCE_CLEANUP";
	case SUB_ROOT_VM_INTERNAL: return "VM_INTERNAL";
	case SUB_ROOT_JNI_MONITOR: return "JNI_MONITOR";
	case SUB_UNREACHABLE: return "UNREACHABLE";
	case SUB_PRIMITIVE_ARRAY_NODATA: return "PRIMITIVE ARRAY NODATA";
	case SUB_HEAP_DUMP_INFO: return "HEAP DUMP INFO";
	}
	return NULL;
}

static void tag_label(char *buf, size_t size, unsigned tag, int sub)
{
	const char *t = tag_name(tag);
	char tb[16];
	if (!t) {
		snprintf(tb, sizeof tb, "tag 0x%02X", tag);
		t = tb;
	}
	if (sub < 0) {
		snprintf(buf, size, "%s", t);
		return;
	}
	const char *s = sub_name((unsigned)sub);
	if (s && (sub < 0x20 || (sub >= 0x89 && sub <= 0x90) || sub == 0xFF))
		snprintf(buf, size, "%s/ROOT %s", t, s);
	else if (s)
		snprintf(buf, size, "%s/%s", t, s);
	else
		snprintf(buf, size, "%s/sub-record 0x%02X", t, (unsigned)sub);
}

static hf_status fail(reader *r, hf_status st, uint64_t off, unsigned tag, int sub,
                      const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 6, 7)))
#endif
	;
static hf_status fail(reader *r, hf_status st, uint64_t off, unsigned tag, int sub,
                      const char *fmt, ...)
{
	char label[48], msg[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	tag_label(label, sizeof label, tag, sub);
	return hf_error_at(r->err, st, off, label, "%s", msg);
}

static hf_status nomem(reader *r)
{
	return hf_error_set(r->err, HF_ERR_NOMEM, "out of memory");
}

static hf_status warn(reader *r, uint64_t off, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
static hf_status warn(reader *r, uint64_t off, const char *fmt, ...)
{
	if (r->rescan)
		return HF_OK; /* said during the first pass */
	r->warnings++;
	r->stats->warnings++;
	if (r->warnings > HF_WARNINGS_KEPT)
		return HF_OK;
	char msg[300], line[340];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(line, sizeof line, "offset %" PRIu64 ": %s", off, msg);
	if (r->opt->warning)
		r->opt->warning(r->opt->warning_ctx, line);
	return hf_sink_metadata(r->sink, "hprof.warning", line, r->err);
}

/* ---- basic types -------------------------------------------------------- */

static unsigned type_size(const reader *r, unsigned t)
{
	switch (t) {
	case T_OBJECT: return r->idsize;
	case T_BOOLEAN: case T_BYTE: return 1;
	case T_CHAR: case T_SHORT: return 2;
	case T_FLOAT: case T_INT: return 4;
	case T_DOUBLE: case T_LONG: return 8;
	}
	return 0;
}

static inline uint64_t align8(uint64_t v) { return (v + 7) & ~(uint64_t)7; }
/* An object's size rounded to the VM's object alignment (8, or 16 to 256
 * with -XX:ObjectAlignmentInBytes). */
static inline uint64_t align_obj(const reader *r, uint64_t v)
{
	return (v + r->obj_align - 1) & ~((uint64_t)r->obj_align - 1);
}

/* ---- names -------------------------------------------------------------- */

static const name_entry *name_get(reader *r, uint64_t hid)
{
	uint64_t *ix = hf_map_get(&r->name_map, hid);
	return ix ? &r->names[*ix] : NULL;
}

/* Our string id for an HPROF name id; 0 when no UTF8 record has given it
 * (yet: a later one is counted in names_after_use and reported). */
static uint64_t name_sid(reader *r, uint64_t hid)
{
	const name_entry *e = name_get(r, hid);
	if (e)
		return e->sid;
	if (hid && hid != HF_MAP_EMPTY && !r->rescan)
		(void)hf_map_put(&r->missed_names, hid, 1); /* a diagnostic: best effort */
	return 0;
}

/* Whether two HPROF string ids name the same text (the same id, or two
 * UTF8 records of one text). */
static bool same_name(reader *r, uint64_t a, uint64_t b)
{
	if (a == b)
		return true;
	const name_entry *ea = name_get(r, a), *eb = name_get(r, b);
	return ea && eb && ea->len == eb->len &&
	       !memcmp(r->name_arena.data + ea->off, r->name_arena.data + eb->off, ea->len);
}

static bool name_is(reader *r, uint64_t hid, const char *s)
{
	const name_entry *e = name_get(r, hid);
	size_t n = strlen(s);
	return e && e->len == n && !memcmp(r->name_arena.data + e->off, s, n);
}

/* A text longer than the writer stores (a database's row: 10^9 bytes, a
 * String of a runaway StringBuilder's size) is cut at a character's
 * boundary, and the cuts counted in a warning at the end: its start is
 * what a reader of the dump wants to see, and the rest of the dump still
 * converts. */
static hf_status emit_string(reader *r, uint64_t sid, const char *s, size_t n)
{
	r->stats->strings++;
	size_t max = r->sink->max_text;
	if (max && n > max) {
		n = max;
		while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
		r->stats->texts_cut++;
	}
	return hf_sink_string(r->sink, sid, s, n, r->err);
}

/* Java source form of an internal class name: java/lang/String ->
 * java.lang.String, [I -> int[], [Ljava/lang/Object; -> java.lang.Object[];
 * a hidden class's (a lambda's) as Class.getName() gives it: HotSpot names
 * one N+0x<hex> inside, N/0x<hex> outside (its suffix follows the last '+',
 * which HotSpot turns into '/'; the dump says not which classes are hidden,
 * so a name that ends so is taken for one). */
static void java_name(const char *s, size_t n, hf_buf *out)
{
	size_t dims = 0;
	out->len = 0;
	while (dims < n && s[dims] == '[')
		dims++;
	const char *p = s + dims;
	size_t len = n - dims;
	if (dims) {
		const char *prim = NULL;
		if (len == 1) {
			switch (p[0]) {
			case 'Z': prim = "boolean"; break;
			case 'B': prim = "byte"; break;
			case 'C': prim = "char"; break;
			case 'S': prim = "short"; break;
			case 'I': prim = "int"; break;
			case 'J': prim = "long"; break;
			case 'F': prim = "float"; break;
			case 'D': prim = "double"; break;
			}
		}
		if (prim) {
			hf_buf_append(out, prim, strlen(prim));
		} else if (len >= 2 && p[0] == 'L' && p[len - 1] == ';') {
			hf_buf_append(out, p + 1, len - 2);
		} else {
			hf_buf_append(out, p, len);
		}
	} else {
		hf_buf_append(out, p, len);
	}
	for (size_t i = 0; i < out->len; i++)
		if (out->data[i] == '/')
			out->data[i] = '.';
	size_t plus = out->len;
	for (unsigned c; plus > 0 && ((c = out->data[plus - 1]) - '0' < 10u || (c | 0x20u) - 'a' < 6u);)
		plus--;
	if (plus < out->len && plus >= 3 && out->data[plus - 1] == 'x' && out->data[plus - 2] == '0' &&
	    out->data[plus - 3] == '+')
		out->data[plus - 3] = '/';
	for (size_t i = 0; i < dims; i++)
		hf_buf_append(out, "[]", 2);
}

/* ---- classes ------------------------------------------------------------ */

static class_info *class_get(reader *r, uint64_t id)
{
	/* Runs of objects of one class are common: remember the last one. */
	if (r->last_class_ix != SIZE_MAX && r->classes[r->last_class_ix].id == id)
		return &r->classes[r->last_class_ix];
	uint64_t *ix = hf_map_get(&r->class_map, id);
	if (!ix)
		return NULL;
	r->last_class_ix = (size_t)*ix;
	return &r->classes[*ix];
}

/* Forgets c's flattened layout (computed again when next needed). */
static void class_unlayout(reader *r, class_info *c)
{
	free(c->flat);
	free(c->refs);
	r->flat_fields -= c->nflat;
	c->flat = NULL;
	c->refs = NULL;
	c->nflat = c->nrefs = 0;
	c->layout = 0;
}

static class_info *class_new(reader *r, uint64_t id)
{
	class_info *c = class_get(r, id);
	if (c) {
		free(c->fields);
		c->fields = NULL;
		class_unlayout(r, c);
		/* Dumped again (a later dump, or twice in one): the layouts of
		 * the classes built on it are checked again (layout_still_good),
		 * as after a class_forget: its fields may differ. */
		if (c->dumped)
			c->forgot_gen = ++r->layout_gen;
		return c;
	}
	if (r->nclasses == r->capclasses) {
		size_t nc = r->capclasses ? r->capclasses * 2 : 256;
		class_info *n = realloc(r->classes, nc * sizeof *n);
		if (!n)
			return NULL;
		r->classes = n;
		r->capclasses = nc;
	}
	if (!hf_map_put(&r->class_map, id, r->nclasses))
		return NULL;
	c = &r->classes[r->nclasses++];
	memset(c, 0, sizeof *c);
	c->id = id;
	c->layout_gen = r->layout_gen;
	return c;
}

/* Whether no class of c's chain was forgotten since c was laid out (a
 * walk of at most MAX_CLASS_CHAIN classes, only after a class_forget). */
static bool layout_still_good(reader *r, const class_info *c)
{
	const class_info *k = c;
	for (size_t depth = 0; k && depth <= MAX_CLASS_CHAIN; depth++) {
		r->chain_work++;
		if (k->forgot_gen > c->layout_gen)
			return false;
		k = k->super ? class_get(r, k->super) : NULL;
	}
	return true;
}

static bool chain_work_over(reader *r)
{
	/* (The furthest byte read: a second pass starts again from 0.) */
	uint64_t off = hf_input_offset(r->in);
	if (off > r->chain_read)
		r->chain_read = off;
	return r->chain_work > CHAIN_WORK_FREE + CHAIN_WORK_PER_BYTE * r->chain_read;
}

/* The class id was unloaded, or named again by a LOAD CLASS of another
 * name (an address reused by a later class): its CLASS DUMP no longer
 * holds, and neither do the layouts of the classes built on it (computed
 * again when next used: layout_still_good). */
static void class_forget(reader *r, class_info *c)
{
	free(c->fields);
	c->fields = NULL;
	c->nfields = 0;
	class_unlayout(r, c);
	c->dumped = 0;
	c->fields_emitted = 0;
	c->is_string = 0;
	if (r->string_class == c->id)
		r->string_class = 0;
	c->forgot_gen = ++r->layout_gen;
}

/* An instance's size from its header and the widths of its fields (every
 * class of the chain): on a 12-byte header an 8-byte field cannot start at
 * 12, so an instance whose fields are all 8 bytes wide starts them at 16
 * (see schema/README.md, "the 4-byte hole"). */
static uint64_t object_size(unsigned header, unsigned align, uint64_t field_bytes, int has8,
                            int has_small)
{
	uint64_t total = header + field_bytes;
	if ((header % 8) && has8 && !has_small)
		total += 8 - header % 8;
	return (total + align - 1) & ~((uint64_t)align - 1);
}

/* An array's size; UINT64_MAX when it overflows. */
static uint64_t array_bytes(unsigned header, unsigned align, uint64_t n, unsigned elem)
{
	uint64_t base = header;
	if (elem == 8)
		base = align8(base);
	uint64_t bytes;
	if (hf_mul_overflows(n, elem, &bytes) || bytes > UINT64_MAX - 512) /* header, alignment */
		return UINT64_MAX;
	return (base + bytes + align - 1) & ~((uint64_t)align - 1);
}

/* Shallow size of an instance of c, per VM model (see schema/README.md). */
static uint64_t instance_model(reader *r, class_info *c)
{
	if (r->android)
		return c->instance_size;
	uint64_t sum = 0;
	int has8 = 0, has_small = 0;
	for (uint32_t i = 0; i < c->nflat; i++) {
		unsigned sz = c->flat[i].type == T_OBJECT ? r->oop : type_size(r, c->flat[i].type);
		sum += sz;
		if (sz == 8)
			has8 = 1;
		else
			has_small = 1;
	}
	return object_size(r->obj_header, r->obj_align, sum, has8, has_small);
}

static uint64_t array_size(const reader *r, uint64_t n, unsigned elem)
{
	return array_bytes(r->arr_header, r->obj_align, n, elem);
}

/* Where the three lists of a CLASS DUMP's body lie, found by walking it
 * within avail bytes: the constant pool (u2 index, type, value), the static
 * fields (name id, type, value) and the instance fields (name id, type).
 * On the first problem, in reading order, bad says which: the body runs
 * past avail, or an entry of list bad_list has an invalid type. */
typedef struct class_shape {
	size_t st_start, if_start, len;  /* offsets in the body; len: all of it */
	uint16_t ncp, nst, nif;
	enum { SHAPE_OK, SHAPE_SHORT, SHAPE_BAD_TYPE } bad;
	int bad_list;            /* 0 constant pool, 1 static fields, 2 instance fields */
	unsigned bad_index, bad_type;
} class_shape;

static void class_shape_of(const reader *r, const uint8_t *p, size_t avail, class_shape *k)
{
	const unsigned I = r->idsize;
	memset(k, 0, sizeof *k);
	size_t q = 7 * I + 8;
#define SHORT(n) do { if ((n) > avail - q) { k->bad = SHAPE_SHORT; return; } } while (0)
#define BAD(list, i, t) do { k->bad = SHAPE_BAD_TYPE; k->bad_list = (list); k->bad_index = (i); \
                             k->bad_type = (t); return; } while (0)
	if (q > avail) {
		k->bad = SHAPE_SHORT;
		return;
	}
	SHORT(2);
	k->ncp = hf_be16(p + q);
	q += 2;
	for (uint16_t i = 0; i < k->ncp; i++) {
		SHORT(3);
		unsigned t = p[q + 2], sz = type_size(r, t);
		if (!sz)
			BAD(0, i, t);
		SHORT(3 + sz);
		q += 3 + sz;
	}
	SHORT(2);
	k->nst = hf_be16(p + q);
	q += 2;
	k->st_start = q;
	for (uint16_t i = 0; i < k->nst; i++) {
		SHORT(I + 1);
		unsigned t = p[q + I], sz = type_size(r, t);
		if (!sz)
			BAD(1, i, t);
		SHORT(I + 1 + sz);
		q += I + 1 + sz;
	}
	SHORT(2);
	k->nif = hf_be16(p + q);
	q += 2;
	SHORT((size_t)k->nif * (I + 1));
	k->if_start = q;
	for (uint16_t i = 0; i < k->nif; i++) {
		unsigned t = p[q + i * (I + 1) + I];
		if (!type_size(r, t))
			BAD(2, i, t);
	}
	k->len = q + (size_t)k->nif * (I + 1);
#undef SHORT
#undef BAD
}

/* A field's name for mark_shadowed: its text, or (when the dump never
 * wrote the name) its HPROF string id alone. */
typedef struct field_key {
	const uint8_t *text;
	size_t len;
	uint64_t hname;
	uint32_t index;
} field_key;

static int cmp_field_name(const field_key *a, const field_key *b)
{
	if (!a->text != !b->text)
		return a->text ? -1 : 1;
	if (!a->text)
		return a->hname < b->hname ? -1 : a->hname > b->hname;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return memcmp(a->text, b->text, a->len);
}

static int cmp_field_key(const void *x, const void *y)
{
	const field_key *a = x, *b = y;
	int c = cmp_field_name(a, b);
	return c ? c : a->index < b->index ? -1 : a->index > b->index;
}

/* Sets flat[i].shadowed for every field whose name an earlier field (a
 * subclass's: the chain is flattened from the class up) also has, by
 * sorting the names (a class may declare 65535 fields).  False when out of
 * memory. */
static bool mark_shadowed(reader *r, flat_field *flat, uint32_t n)
{
	field_key *keys = malloc((size_t)n * sizeof *keys);
	if (!keys)
		return false;
	for (uint32_t i = 0; i < n; i++) {
		const name_entry *e = name_get(r, flat[i].hname);
		keys[i] = (field_key){ e ? r->name_arena.data + e->off : NULL, e ? e->len : 0,
		                       flat[i].hname, i };
	}
	qsort(keys, n, sizeof *keys, cmp_field_key);
	for (uint32_t i = 1; i < n; i++)
		if (!cmp_field_name(&keys[i], &keys[i - 1]))
			flat[keys[i].index].shadowed = 1;
	free(keys);
	return true;
}

/* Resolves the field layout over the superclass chain.  Returns 1 when ready,
 * 0 when a class of the chain is not known yet, -1 when the chain is broken,
 * -2 when the layout would pass the budget of flattened fields.
 *
 * Every class holds the fields of its whole chain, so a long chain of small
 * classes costs the square of its length: 4096 classes of 8 fields, 400 kB of
 * input, would take 2 GB.  The entries of all classes together may pass
 * FLAT_FIELDS_FREE by one per byte read (real dumps stay far below); a class
 * past that is not laid out and its instances' fields are not decoded. */
static int class_layout(reader *r, class_info *c)
{
	if (c->layout && c->layout_gen == r->layout_gen)
		return c->layout;
	if (chain_work_over(r)) {
		/* (Not kept: the budget grows as the input is read, and a class
		 * waiting for a superclass's dump may be laid out later.) */
		if (c->layout)
			class_unlayout(r, c);
		return -3;
	}
	if (c->layout && layout_still_good(r, c)) {
		c->layout_gen = r->layout_gen;
		return c->layout;
	}
	if (c->layout)
		class_unlayout(r, c);
	c->layout_gen = r->layout_gen;
	uint32_t n = 0;
	uint64_t total = 0;
	class_info *k = c;
	size_t depth = 0;
	while (k) {
		r->chain_work++;
		if (++depth > MAX_CLASS_CHAIN)
			return c->layout = -1; /* a cycle or absurd depth */
		if (!k->dumped)
			return 0;
		n += k->nfields;
		for (uint16_t i = 0; i < k->nfields; i++)
			total += type_size(r, k->fields[i].type);
		if (!k->super)
			break;
		class_info *s = class_get(r, k->super);
		if (!s)
			return 0;
		k = s;
	}
	if (r->flat_fields + n > FLAT_FIELDS_FREE + hf_input_offset(r->in))
		return c->layout = -2;
	c->flat = n ? malloc(n * sizeof *c->flat) : NULL;
	if (n && !c->flat)
		return 0;
	c->nflat = n;
	r->flat_fields += n;
	r->chain_work += (uint64_t)n * CHAIN_WORK_ENTRY;
	c->total = (uint32_t)(total > UINT32_MAX ? UINT32_MAX : total);
	c->str_value = c->str_coder = c->str_offset = c->str_count = -1;
	uint32_t off = 0, j = 0;
	/* The same chain as above: n entries (j < n only guards that). */
	for (k = c; k; k = k->super ? class_get(r, k->super) : NULL) {
		for (uint16_t i = 0; i < k->nfields && j < n; i++, j++) {
			flat_field *f = &c->flat[j];
			f->offset = off;
			f->type = k->fields[i].type;
			f->hname = k->fields[i].name;
			f->name = name_sid(r, f->hname);
			f->shadowed = 0;
			off += type_size(r, f->type);
			if (c->is_string && k == c) {
				if (f->type == T_OBJECT && name_is(r, f->hname, "value"))
					c->str_value = (int32_t)j;
				else if (f->type == T_BYTE && name_is(r, f->hname, "coder"))
					c->str_coder = (int32_t)j;
				else if (f->type == T_INT && name_is(r, f->hname, "offset"))
					c->str_offset = (int32_t)j;
				else if (f->type == T_INT && name_is(r, f->hname, "count"))
					c->str_count = (int32_t)j;
			}
		}
		if (j >= n)
			break;
	}
	c->nflat = j;
	/* The reference fields apart, for the instance loop; and a superclass
	 * field hidden by a subclass field of the same name: the values JSON
	 * gives the name once, with the subclass's value. */
	uint32_t nrefs = 0;
	for (uint32_t i = 0; i < c->nflat; i++)
		nrefs += c->flat[i].type == T_OBJECT;
	c->refs = nrefs ? malloc(nrefs * sizeof *c->refs) : NULL;
	if ((nrefs && !c->refs) || (c->nflat > 1 && !mark_shadowed(r, c->flat, c->nflat))) {
		free(c->flat);
		free(c->refs);
		c->flat = NULL;
		c->refs = NULL;
		c->nflat = 0;
		r->flat_fields -= n;
		return 0;
	}
	c->nrefs = 0;
	for (uint32_t i = 0; i < c->nflat; i++)
		if (c->flat[i].type == T_OBJECT)
			c->refs[c->nrefs++] = (ref_field){ c->flat[i].offset, c->flat[i].name };
	c->shallow = instance_model(r, c);
	return c->layout = 1;
}

/* The heap-dump record being read. */
typedef struct heap_ctx {
	unsigned tag;        /* 0x0C or 0x1C */
	uint64_t left;       /* bytes left in the record */
	uint64_t start;      /* the record's offset */
	uint64_t declared;   /* its declared length */
	int to_eof;          /* its length was never written (heap_length) */
	int wrapped;         /* 2^32 was added to its length (wrap) */
} heap_ctx;

/* ---- the size model ----------------------------------------------------------
 * A 64-bit HotSpot object's size depends on things the dump does not state:
 * the width of a reference (4 with compressed oops, else 8), of the object
 * header (12 with a compressed class pointer, 16 without, 8 with compact
 * object headers), where an array's elements start (the array header: 16,
 * 24 without compressed class pointers up to JDK 21 and 20 from JDK 22 on,
 * 12 with compact headers; 8-byte elements at the next multiple of 8), and
 * the alignment of objects (-XX:ObjectAlignmentInBytes: 8, the default, up
 * to 256, a power of two; compressed oops then reach a heap of 4 GiB times
 * the alignment).  The layouts the VM can have, with each alignment: */
typedef struct size_model {
	unsigned oop, obj_header, arr_header, align;
} size_model;
#define LAYOUTS(align) \
	{ 4, 12, 16, align },  /* compressed oops and class pointers (the default up to JDK 26) */ \
	{ 8, 12, 16, align },  /* no compressed oops, compressed class pointers (JDK 15+) */ \
	{ 8, 16, 24, align },  /* neither (JDK 14 or older without compressed oops) */ \
	{ 4, 16, 24, align },  /* compressed oops, -XX:-UseCompressedClassPointers */ \
	{ 4, 8, 12, align },   /* compact object headers (JDK 24+, JDK 27's default) */ \
	{ 8, 8, 12, align },   /* compact object headers, no compressed oops */ \
	/* JDK 22 to 26 with -XX:-UseCompressedClassPointers: elements narrower \
	 * than 8 bytes start right after the length, at 20 (JDK-8139457). \
	 * These two are the array variants of the third and fourth: they are \
	 * told apart by arrays only (see sniff_model). */ \
	{ 8, 16, 20, align }, \
	{ 4, 16, 20, align }
enum { NLAYOUTS = 8 };
static const size_model hotspot_models[] = {
	LAYOUTS(8), LAYOUTS(16), LAYOUTS(32), LAYOUTS(64), LAYOUTS(128), LAYOUTS(256)
};
#undef LAYOUTS
#define NMODELS (sizeof hotspot_models / sizeof *hotspot_models)

/* Which one, from the objects' spacing.  HotSpot allocates objects side by
 * side and its dumper walks the heap in address order, so an object's id
 * (its address) is most often the id of the object written before it plus
 * that one's size.  Before the first object, the sub-records of the next
 * SNIFF_WINDOW bytes are read ahead (the class dumps, which HotSpot writes
 * first, for the field lists; then objects), and each layout scores the
 * consecutive pairs it spaces exactly.  Reading ahead only informs: it stops
 * at anything it does not understand, and the records are read again, and
 * checked, as usual. */
#define SNIFF_WINDOW ((size_t)16 << 20)
#define SNIFF_PAIRS 65536
#define SNIFF_MIN 32            /* pairs the winner must space, at least */
/* A window whose objects are too few to decide (an array of 16 MiB or more
 * among the first objects, as the Parallel GC and ZGC place a program's
 * big arrays) is followed by the next one, past the big records: a plain
 * file is read at an offset, a gzip file a second time (whose inflation of
 * what comes before is the cost, hence its bound SNIFF_INFLATE_MAX), a
 * pipe is read ahead into a temporary file (the input's spool, of the
 * inflated bytes for a gzip pipe, which the reading then takes the bytes
 * from), up to SNIFF_INFLATE_MAX bytes ahead of the reading; a pipe where
 * no temporary file can be made is peeked further, up to SNIFF_PIPE_MAX
 * bytes ahead (memory that it holds until the reading has passed them).  Up to
 * SNIFF_WINDOWS windows in all.  (A window is moved on when less than an
 * eighth of it is left: 2 MiB, more than the largest class dump.) */
#define SNIFF_WINDOWS 16
#define SNIFF_INFLATE_MAX ((uint64_t)512 << 20)
#define SNIFF_PIPE_MAX ((uint64_t)48 << 20)
/* Tests (fuzz_hprof): windows of this many bytes instead (0: SNIFF_WINDOW),
 * so that small inputs reach the moves; (test_synthetic) a pipe's bound of
 * this many bytes instead (0: SNIFF_PIPE_MAX), and its spool's (0:
 * SNIFF_INFLATE_MAX). */
size_t hf_hprof_test_sniff_window;
uint64_t hf_hprof_test_pipe_max;
uint64_t hf_hprof_test_spool_max;

/* The bytes the look ahead reads: p[0, avail) at stream offset base. */
typedef struct sniff_win {
	const uint8_t *p;
	size_t avail;
	uint64_t base;
	uint64_t start;          /* the reading's offset (the first window's base) */
	int at_end;              /* the input ends in the window */
	int windows;             /* read so far */
	int lost;                /* a pipe's window that a failed peek may have moved */
	const char *bounded;     /* stopped by this bound (SNIFF_PIPE_MAX, SNIFF_INFLATE_MAX), not the input's end */
	int no_spool;            /* a pipe that cannot be spooled: peeked */
	size_t size;             /* of a window: SNIFF_WINDOW */
	uint8_t *buf;            /* a window read at an offset (a plain file, a spooled pipe) */
	hf_input *again;         /* a gzip file's second reading */
} sniff_win;

/* Moves the window to stream offset off (past the current one's start);
 * false when it cannot (the input can only be read once, a bound, a
 * failure): the look ahead then decides on what it has. */
static bool sniff_move(reader *r, sniff_win *w, uint64_t off)
{
	if (w->at_end || w->windows >= SNIFF_WINDOWS || off <= w->base)
		return false;
	hf_error ignored;
	memset(&ignored, 0, sizeof ignored);
	int spool = !hf_input_can_read_at(r->in) && hf_input_can_spool(r->in) && !w->no_spool;
	if (hf_input_can_read_at(r->in) || spool) {
		/* Into a window of its own: a plain file at the offset, a pipe
		 * through the input's spool. */
		if (!w->buf && !(w->buf = malloc(w->size)))
			return false;
		size_t got;
		hf_status st;
		if (spool) {
			uint64_t max = hf_hprof_test_spool_max ? hf_hprof_test_spool_max : SNIFF_INFLATE_MAX;
			uint64_t limit = w->start + max < w->start ? UINT64_MAX : w->start + max;
			int bounded = 0;
			st = hf_input_spool_read(r->in, off, w->buf, w->size, limit, &got, &bounded, &ignored);
			if (st == HF_ERR_UNSUPPORTED) {
				w->no_spool = 1;
				return sniff_move(r, w, off);
			}
			if (bounded && got < w->size)
				w->bounded = "512 MiB ahead of a pipe, or half of the temporary directory's free space";
		} else {
			st = hf_input_read_at(r->in, off, w->buf, w->size, &got, &ignored);
		}
		if (st || !got)
			return false;
		w->p = w->buf;
		w->avail = got;
	} else if (w->again || !hf_input_reopen(r->in, &w->again, &ignored)) {
		uint64_t at = hf_input_offset(w->again), skipped;
		if (off > SNIFF_INFLATE_MAX)
			w->bounded = "512 MiB into a gzip file";
		if (off < at || off > SNIFF_INFLATE_MAX ||
		    hf_input_skip(w->again, off - at, &skipped, &ignored) || skipped != off - at ||
		    hf_input_peek_some(w->again, w->size, &w->p, &w->avail, &ignored) || !w->avail)
			return false;
		if (w->avail > w->size)
			w->avail = w->size;
	} else {
		/* A pipe: the reading's own input, peeked further (which
		 * moves its buffer: the earlier windows are not looked at
		 * again). */
		uint64_t ahead = off - w->start, want = ahead + w->size;
		uint64_t bound = hf_hprof_test_pipe_max ? hf_hprof_test_pipe_max : SNIFF_PIPE_MAX;
		if (off < w->start)
			return false;
		if (ahead >= bound) {
			w->bounded = "48 MiB ahead of a pipe";
			return false;
		}
		bool capped = want > bound;
		if (capped)
			want = bound;
		const uint8_t *p;
		size_t got;
		if (hf_input_peek_some(r->in, (size_t)want, &p, &got, &ignored) || got <= ahead) {
			/* The peek may have moved the buffer before it failed
			 * (out of memory): the window is no longer to be read. */
			w->lost = 1;
			return false;
		}
		w->p = p + ahead;
		w->avail = got - ahead < w->size ? got - (size_t)ahead : w->size;
		w->base = off;
		/* Short of a window at the bound, not at the input's end: no
		 * further window. */
		w->at_end = 1;
		if (got >= want && w->avail == w->size)
			w->at_end = 0;
		else if (got >= want && capped)
			w->bounded = "48 MiB ahead of a pipe";
		w->windows++;
		return true;
	}
	w->base = off;
	w->at_end = w->avail < w->size;
	w->windows++;
	return true;
}

typedef struct sniff_class {
	uint64_t super;
	uint64_t refs, prim;     /* reference fields; bytes of the primitive ones */
	uint8_t prim8, prim_small; /* has 8-byte primitives; has narrower ones */
	uint8_t state;           /* 0 own fields only, 1 whole chain, 2 chain unknown, 3 in work */
} sniff_class;

typedef struct sniff_pair {
	uint64_t cls;            /* instance: its class; array: 0 */
	uint64_t count;          /* array: elements */
	uint32_t gap;            /* id of the next object minus this one's */
	uint8_t kind;            /* 0 instance, 1 object array, 2 primitive array */
	uint8_t width;           /* primitive array: element width */
} sniff_pair;

typedef struct sniffer {
	hf_map ix;               /* class id -> classes[] index */
	sniff_class *classes;
	size_t nclasses, cap;
	sniff_pair *pairs;
	size_t npairs, cap_pairs;
	int full;                /* no more pairs: SNIFF_PAIRS, or out of memory */
	int have_prev;
	uint64_t prev_id;
	sniff_pair prev;
	uint64_t ids_or;         /* every object's id or'ed: its lowest bit set bounds the alignment */
	uint64_t nobjects;
} sniffer;

static void sniff_object(sniffer *s, uint64_t id, const sniff_pair *o)
{
	s->ids_or |= id;
	s->nobjects++;
	if (s->have_prev && id > s->prev_id && id - s->prev_id <= UINT32_MAX && !s->full) {
		if (s->npairs == s->cap_pairs) {
			size_t nc = s->cap_pairs ? 2 * s->cap_pairs : 256;
			sniff_pair *g = realloc(s->pairs, nc * sizeof *g);
			if (!g) {
				s->full = 1;   /* decide on those */
				return;
			}
			s->pairs = g;
			s->cap_pairs = nc;
		}
		s->pairs[s->npairs] = s->prev;
		s->pairs[s->npairs++].gap = (uint32_t)(id - s->prev_id);
		s->full = s->npairs == SNIFF_PAIRS;
	}
	s->have_prev = 1;
	s->prev_id = id;
	s->prev = *o;
}

/* Adds to each class's fields those of its superclasses (state 1), or marks
 * it 2 when a class of its chain is not in the window or the chain loops.
 * Each class is done once: up to the first done class, then down. */
static void sniff_chains(sniffer *s)
{
	size_t *path = malloc((s->nclasses ? s->nclasses : 1) * sizeof *path);
	if (!path)
		return;     /* no instance is sized: the arrays still count */
	for (size_t i = 0; i < s->nclasses; i++) {
		size_t n = 0, at = i;
		int bad = 0;
		while (s->classes[at].state == 0) {
			sniff_class *k = &s->classes[at];
			path[n++] = at;
			k->state = 3;                /* on the path */
			if (!k->super)
				break;
			uint64_t *ix = hf_map_get(&s->ix, k->super);
			if (!ix || s->classes[*ix].state >= 2) {
				bad = 1;             /* absent, known bad, or a loop */
				break;
			}
			at = (size_t)*ix;
		}
		for (size_t j = n; j-- > 0;) {
			sniff_class *k = &s->classes[path[j]];
			if (bad) {
				k->state = 2;
				continue;
			}
			if (k->super) {
				const sniff_class *up = &s->classes[*hf_map_get(&s->ix, k->super)];
				k->refs += up->refs;
				k->prim += up->prim;
				k->prim8 |= up->prim8;
				k->prim_small |= up->prim_small;
			}
			k->state = 1;
		}
	}
	free(path);
}

/* The index of model m's array variant (the same reference width, object
 * header and alignment, another array header), or -1. */
static int model_twin(size_t m)
{
	const size_model *a = &hotspot_models[m];
	for (size_t k = 0; k < NMODELS; k++) {
		const size_model *b = &hotspot_models[k];
		if (k != m && b->oop == a->oop && b->obj_header == a->obj_header && b->align == a->align)
			return (int)k;
	}
	return -1;
}

/* The class of a pair's first object when it is an instance whose fields
 * are known, else NULL. */
static const sniff_class *sniff_class_of(sniffer *s, const sniff_pair *o)
{
	if (o->kind == 1 || o->kind == 2)
		return NULL;
	uint64_t *ix = hf_map_get(&s->ix, o->cls);
	return ix && s->classes[*ix].state == 1 ? &s->classes[*ix] : NULL;
}

/* The size of a pair's first object (an instance of k, if not an array)
 * under model m, or 0 when unknown. */
static uint64_t sniff_size(const sniff_pair *o, const sniff_class *k, const size_model *m)
{
	if (o->kind == 1 || o->kind == 2)
		return array_bytes(m->arr_header, m->align, o->count, o->kind == 1 ? m->oop : o->width);
	if (!k)
		return 0;
	int prim8 = k->prim8, small = k->prim_small;
	if (k->refs && m->oop == 8)
		prim8 = 1;
	else if (k->refs)
		small = 1;
	return object_size(m->obj_header, m->align, k->prim + k->refs * m->oop, prim8, small);
}

static bool reads_as_record(reader *r, size_t skip, bool unseen);

/* Whether the input can hold n more bytes from where it is read: always,
 * unless its size is known. */
static bool input_holds(reader *r, uint64_t n)
{
	uint64_t size = hf_input_size(r->in), at = hf_input_offset(r->in);
	return !size || (size >= at && size - at >= n);
}

/* Whether the end that a HEAP DUMP declares, skip bytes ahead of the
 * input's position (avail of them peeked), is a wrapped length's false end:
 * neither the input's end nor a top-level record (wrap_at's test, for
 * sniff_model's look ahead, but for its look at a sub-record's tag there:
 * a byte that is neither, the reading reports). */
static bool sniff_wraps(reader *r, size_t avail, uint64_t skip)
{
	return skip < avail && input_holds(r, skip + ((uint64_t)1 << 32)) &&
	       !reads_as_record(r, (size_t)skip, false);
}

/* Reads ahead from the body of the current sub-record (tag sub); returns
 * the index of the model that spaces the objects best, among those whose
 * references are oop bytes wide (0: all), or -1 when none stands out (too
 * few objects in the window, or addresses that do not follow each other). */
static int sniff_model(reader *r, heap_ctx *h, unsigned sub, unsigned oop, unsigned *align_hint,
                       const char **bounded)
{
	const unsigned I = r->idsize;
	const uint8_t *p;
	size_t avail;
	hf_error ignored;
	memset(&ignored, 0, sizeof ignored);
	const size_t win = hf_hprof_test_sniff_window ? hf_hprof_test_sniff_window : SNIFF_WINDOW;
	if (hf_input_peek_some(r->in, win, &p, &avail, &ignored) || I != 8)
		return -1;
	if (avail > win)  /* a peek may give more than asked */
		avail = win;
	sniff_win w = { p, avail, hf_input_offset(r->in), hf_input_offset(r->in), avail < win, 1, 0, NULL, 0, win,
	                NULL, NULL };
	sniffer s;
	memset(&s, 0, sizeof s);
	hf_map_init(&s.ix);
	int found = -1;
	size_t q = 0;
	uint64_t left = h->left;   /* of the record the reading is in */
	/* A HEAP DUMP's declared end in the window, looked at once, that the
	 * reading will find a wrapped length's (wrap_at): the objects go on. */
	bool may_wrap = h->tag == TAG_HEAP_DUMP && !h->to_eof;
	for (;;) {
		if (may_wrap && left < avail - q) {
			may_wrap = false;
			if (sniff_wraps(r, avail, q + left))
				left += (uint64_t)1 << 32;
			/* Its peek may have moved the input's buffer, where the
			 * window (not moved yet) is: the window again. */
			size_t again;
			if (hf_input_peek_some(r->in, avail, &p, &again, &ignored) || again < avail)
				goto decide;
			w.p = p;
		}
		/* Bytes of this sub-record's body that may be read: */
		uint64_t room = avail - q;
		if (room > left)
			room = left;
		uint64_t n;          /* its body's length */
		const uint8_t *b = p + q;
		switch (sub) {
		case SUB_ROOT_UNKNOWN: case SUB_ROOT_STICKY_CLASS: case SUB_ROOT_MONITOR_USED:
			n = I;
			break;
		case SUB_ROOT_JNI_GLOBAL: n = 2 * I; break;
		case SUB_ROOT_JNI_LOCAL: case SUB_ROOT_JAVA_FRAME: case SUB_ROOT_THREAD_OBJECT:
			n = I + 8;
			break;
		case SUB_ROOT_NATIVE_STACK: case SUB_ROOT_THREAD_BLOCK: n = I + 4; break;
		case SUB_CLASS_DUMP: {
			class_shape cs;
			class_shape_of(r, b, (size_t)room, &cs);
			if (cs.bad)
				goto decide;
			n = cs.len;
			sniff_class k = { hf_beid(b + I + 4, I), 0, 0, 0, 0, 0 };
			for (uint16_t i = 0; i < cs.nif; i++) {
				unsigned t = b[cs.if_start + i * (I + 1) + I], w = type_size(r, t);
				if (t == T_OBJECT)
					k.refs++;
				else {
					k.prim += w;
					if (w == 8)
						k.prim8 = 1;
					else
						k.prim_small = 1;
				}
			}
			if (s.nclasses == s.cap) {
				size_t nc = s.cap ? 2 * s.cap : 1024;
				sniff_class *g = realloc(s.classes, nc * sizeof *g);
				if (!g)
					goto decide;
				s.classes = g;
				s.cap = nc;
			}
			if (!hf_map_put(&s.ix, hf_beid(b, I), s.nclasses))
				goto decide;
			s.classes[s.nclasses++] = k;
			break;
		}
		case SUB_INSTANCE_DUMP: {
			n = 2 * I + 8;
			if (n > room)
				goto decide;
			n += hf_be32(b + 2 * I + 4);
			sniff_pair o = { hf_beid(b + I + 4, I), 0, 0, 0, 0 };
			sniff_object(&s, hf_beid(b, I), &o);
			break;
		}
		case SUB_OBJECT_ARRAY_DUMP: {
			n = 2 * I + 8;
			if (n > room)
				goto decide;
			uint64_t count = hf_be32(b + I + 4);
			n += count * I;
			sniff_pair o = { 0, count, 0, 1, 0 };
			sniff_object(&s, hf_beid(b, I), &o);
			break;
		}
		case SUB_PRIMITIVE_ARRAY_DUMP: {
			n = I + 9;
			if (n > room)
				goto decide;
			uint64_t count = hf_be32(b + I + 4);
			unsigned t = b[I + 8], w = t == T_OBJECT ? 0 : type_size(r, t);
			if (!w)
				goto decide;
			n += count * w;
			sniff_pair o = { 0, count, 0, 2, (uint8_t)w };
			sniff_object(&s, hf_beid(b, I), &o);
			break;
		}
		default:
			goto decide;
		}
		if (s.full)     /* enough pairs */
			break;
		if (n > left)   /* past its record: the reading will say */
			break;
		if (n > room || avail - q - n < win / 8) {
			/* Past the window, or near its end: the next one, if
			 * there is one (a record past the window ends in it). */
			if (n > room && w.at_end)
				break;
			if (!sniff_move(r, &w, w.base + q + n)) {
				if (n > room || w.lost)
					break;
			} else {
				p = w.p;
				avail = w.avail;
				q = 0;
				left -= n;
				n = 0;
				/* sniff_wraps looks at the reading's own input. */
				may_wrap = false;
			}
		}
		q += n;
		left -= n;
		/* The next sub-record's tag: in this record, or past the header of
		 * the HEAP DUMP SEGMENT that follows it. */
		if (!left) {
			if (avail - q < 10 || p[q] != TAG_HEAP_DUMP_SEGMENT)
				break;
			left = hf_be32(p + q + 5);
			q += 9;
			if (!left)
				break;
		}
		if (q >= avail)
			break;
		sub = p[q++];
		left--;
	}
decide:;
	sniff_chains(&s);
	/* A layout scores the pairs it spaces exactly.  A layout and its array
	 * variant (the same but for where small array elements start) compete
	 * as one, with the pairs that either spaces; the arrays then choose
	 * between the two, the first listed on a tie (a window without arrays
	 * of 4-byte or narrower elements). */
	uint64_t score[NMODELS] = { 0 }, joint[NMODELS] = { 0 };
	/* A pair whose second object starts before the first one ends in a
	 * layout refutes it: objects do not overlap.  The true layout has none
	 * (none in 60 dumps of HotSpot 6 to 17, every collector), a layout
	 * that sizes objects larger has some, wherever two objects lie side by
	 * side.  That matters most when the dump does not follow the heap (ZGC
	 * and Shenandoah walk the object graph, half the steps go down): few
	 * pairs are side by side there, many are two objects with a third
	 * between, and a layout that adds that third's size to the first
	 * spaced more pairs than the true one (-XX:ObjectAlignmentInBytes=32,
	 * a third is often one unit: 4,347 pairs against 3,686, 44 classes
	 * missized; 116 of the pairs overlapped in it).  A few are let pass,
	 * for the odd object the layouts size wrong. */
	uint64_t over[NMODELS] = { 0 };
	/* An object's address is a multiple of the alignment: the lowest bit
	 * set in any id bounds it.  Without the bound, a dump in the object
	 * graph's order could be read with a coarser alignment, which rounds
	 * many sizes alike (a ZGC dump of 90 MB read as aligned to 32, 298 of
	 * its 381 classes missized: 3,858 pairs spaced against the true
	 * layout's 3,671). */
	uint64_t id_align = s.ids_or & (0 - s.ids_or);
	bool addresses = id_align >= 8 && id_align <= 256;
	uint64_t max_align = addresses ? id_align : 256; /* else ids that are not addresses */
	int twin[NMODELS];
	bool allowed[NMODELS], refuted[NMODELS], out[NMODELS];
	for (size_t m = 0; m < NMODELS; m++) {
		twin[m] = model_twin(m);
		allowed[m] = (!oop || hotspot_models[m].oop == oop) && hotspot_models[m].align <= max_align;
	}
	for (size_t i = 0; i < s.npairs; i++) {
		const sniff_pair *o = &s.pairs[i];
		const sniff_class *k = sniff_class_of(&s, o);
		int hit[NMODELS];
		for (size_t m = 0; m < NMODELS; m++) {
			uint64_t size = sniff_size(o, k, &hotspot_models[m]);  /* 0: unknown */
			hit[m] = allowed[m] && size == o->gap;
			over[m] += size > o->gap;
		}
		for (size_t m = 0; m < NMODELS; m++) {
			score[m] += hit[m];
			joint[m] += hit[m] || (twin[m] >= 0 && hit[twin[m]]);
		}
	}
	/* The candidates: each layout but the later of a pair of variants,
	 * allowed and not refuted (a pair of variants is out when both are). */
	for (size_t m = 0; m < NMODELS; m++)
		refuted[m] = !allowed[m] || over[m] > 2 + score[m] / 128;
	for (size_t m = 0; m < NMODELS; m++)
		out[m] = (twin[m] >= 0 && twin[m] < (int)m) || (refuted[m] && (twin[m] < 0 || refuted[twin[m]]));
	size_t best = 0;
	for (size_t m = 1; m < NMODELS; m++)
		if (!out[m] && (out[best] || joint[m] > joint[best]))
			best = m;
	uint64_t runner = 0;
	for (size_t m = 0; m < NMODELS; m++)
		if (m != best && !out[m] && joint[m] > runner)
			runner = joint[m];
	/* The winner must space a good share of the pairs, and clearly more
	 * than any other layout: several space most objects alike (the same
	 * rounding), only some pairs tell them apart. */
	uint64_t margin = joint[best] / 16 > SNIFF_MIN / 2 ? joint[best] / 16 : SNIFF_MIN / 2;
	bool stands = !out[best] && joint[best] >= SNIFF_MIN && joint[best] >= s.npairs / 8, hinted = false;
	if (stands && joint[best] - runner < margin) {
		/* Layouts that come as close space the window's objects alike
		 * but for a few: when they all have one reference width, the
		 * best of them (the first listed on a tie) rather than the
		 * first address's guess at the width.  All 8-byte fields and
		 * short byte[] are spaced alike with 12- and 16-byte headers,
		 * not with 4- and 8-byte references.
		 * The width is weighed among the layouts of the best one's
		 * alignment: one of a coarser alignment comes as close when
		 * most objects are a multiple of it (32-byte objects in an
		 * 8-aligned heap), and says nothing of the width.  When the
		 * width stays open, the alignment stands (past 16 bytes, most
		 * small objects are one unit of it whatever their fields) and
		 * the first address guesses the width. */
		bool widths = false;
		for (size_t m = 0; m < NMODELS; m++)
			if (!out[m] && joint[best] - joint[m] < margin &&
			    hotspot_models[m].align == hotspot_models[best].align)
				widths |= hotspot_models[m].oop != hotspot_models[best].oop;
		if (widths) {
			stands = false;
			hinted = true;
			*align_hint = hotspot_models[best].align;
		}
	}
	if (stands) {
		/* Of the pair of variants, one not refuted; the arrays choose. */
		int t = twin[best];
		found = t >= 0 && !refuted[t] && (refuted[best] || score[t] > score[best]) ? t : (int)best;
	} else if (!hinted && addresses && s.nobjects >= SNIFF_MIN)
		/* Too few pairs spaced to decide: the bound from the ids is the
		 * alignment itself, but by a chance of one in 2^SNIFF_MIN (every
		 * id a multiple of twice it). */
		*align_hint = (unsigned)max_align;
	/* Undecided for want of objects the bound kept out of sight. */
	*bounded = !stands && !hinted ? w.bounded : NULL;
	hf_map_free(&s.ix);
	free(s.classes);
	free(s.pairs);
	free(w.buf);
	if (w.again)
		hf_input_close(w.again);
	return found;
}

/* Decides the size model at the first CLASS, INSTANCE or ARRAY DUMP, whose
 * body (tag sub) is next in the input (see schema/README.md). */
static hf_status decide_model(reader *r, heap_ctx *h, unsigned sub)
{
	if (r->coops_decided)
		return HF_OK;
	r->coops_decided = 1;
	/* hprof-conv turns an Android dump into a 1.0.2 file and leaves the
	 * rest as it was: 4-byte ids, ART's class names (LOAD CLASS comes
	 * before the heap). */
	if (!r->android && r->idsize == 4 && r->art_names && !r->agent_records)
		r->android = 1;
	r->obj_align = 8;
	if (r->android) {
		r->oop = 4;
		r->obj_header = 8;
		r->arr_header = 12;
		r->coops = 1;
		return HF_OK;
	}
	if (r->idsize == 4) {
		r->oop = 4;
		r->obj_header = 8;
		r->arr_header = 12;
		r->coops = 0;
		return HF_OK;
	}
	/* --compressed-oops=yes|no imposes the width of a reference; the
	 * headers and the alignment are still found from the spacing. */
	int coops = r->opt->compressed_oops;
	const size_model *m;
	unsigned align = 8;
	const char *bounded = NULL;
	int sniffed = sniff_model(r, h, sub, coops < 0 ? 0 : coops ? 4 : 8, &align, &bounded);
	if (sniffed >= 0) {
		m = &hotspot_models[sniffed];
		r->model_from = "spacing";
	} else {
		if (coops < 0) {
			/* The first object's id: the first field of every one of
			 * those sub-records. */
			const uint8_t *p;
			size_t avail;
			hf_error ignored;
			memset(&ignored, 0, sizeof ignored);
			uint64_t first = 0;
			if (!hf_input_peek(r->in, r->idsize, &p, &avail, &ignored) && avail >= r->idsize)
				first = hf_beid(p, r->idsize);
			/* Zero-based compressed oops reach 4 GiB times the
			 * alignment (32 GiB with the default 8). */
			coops = first < ((uint64_t)4 << 30) * align;
			r->model_from = "address";
		} else {
			r->model_from = "option";
		}
		/* The first layout of that width with the alignment found. */
		size_t group = 0;
		while (((unsigned)8 << group) < align)
			group++;
		m = &hotspot_models[group * NLAYOUTS + (coops ? 0 : 1)];
	}
	r->oop = m->oop;
	r->obj_header = m->obj_header;
	r->arr_header = m->arr_header;
	r->obj_align = m->align;
	r->coops = m->oop == 4;
	/* A layout the look ahead might have found in a plain file: said,
	 * as the sizes that follow from it may be wrong. */
	if (bounded && !strcmp(r->model_from, "address"))
		return warn(r, hf_input_offset(r->in),
		            "the objects' layout was not found before the look ahead's bound (%s), so it is "
		            "guessed from the first object's address: %s, %u-byte headers, aligned to %u; "
		            "convert the plain file, or choose with --compressed-oops",
		            bounded,
		            m->oop == 4 ? "compressed oops" : "8-byte references", m->obj_header, m->align);
	return HF_OK;
}

/* ---- output helpers ------------------------------------------------------ */

/* v[0, n) with no value present: field by field, since GCC makes the
 * memset of a few hf_values a "rep stos", whose start-up took a fifth of
 * the samples of the two calls of every object (instances, primitive
 * arrays) on an AMD EPYC (2026-12-02: hprof2ndjson of the Android-like 1 GB
 * dump to /dev/null, medians of five alternated runs, 2.34 -> 2.25 s, user
 * time 3.97 -> 3.79 s). */
static inline void vals_none(hf_value *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		v[i].i = 0;
		v[i].u = 0;
		v[i].d = 0;
		v[i].s = NULL;
		v[i].n = 0;
		v[i].present = 0;
	}
}
static void vals_clear(reader *r, size_t n)
{
	vals_none(r->vals, n);
}
static inline void val_int(hf_value *v, int64_t x) { v->i = x; v->present = 1; }
static inline void val_u(hf_value *v, uint64_t x) { v->u = x; v->present = 1; }
static inline void val_text(hf_value *v, const char *s, size_t n) { v->s = s; v->n = n; v->present = 1; }

static hf_status edge(reader *r, const hf_type *t, uint64_t src, uint64_t dst, uint64_t label)
{
	hf_edge e = { t, src, dst, label, r->dump };
	r->stats->edges++;
	return hf_sink_edge(r->sink, &e, r->err);
}

/* The edges of one object, gathered and given in one call (hf_sink_edges):
 * a call, a type lookup and a room check per object instead of per edge. */
#define EDGE_BATCH 64
typedef struct edge_batch {
	const hf_type *type;
	uint64_t src;
	size_t n;
	hf_edge_to to[EDGE_BATCH];
} edge_batch;

static inline void batch_start(edge_batch *b, const hf_type *type, uint64_t src)
{
	b->type = type;
	b->src = src;
	b->n = 0;
}

static hf_status batch_flush(reader *r, edge_batch *b)
{
	size_t n = b->n;
	b->n = 0;
	r->stats->edges += n;
	return n ? hf_sink_edges(r->sink, b->type, b->src, r->dump, n, b->to, r->err) : HF_OK;
}

static inline hf_status batch_add(reader *r, edge_batch *b, uint64_t dst, uint64_t label)
{
	b->to[b->n].dest = dst;
	b->to[b->n].label = label;
	return ++b->n == EDGE_BATCH ? batch_flush(r, b) : HF_OK;
}

static hf_status root(reader *r, const char *kind, uint64_t obj, int64_t thread, int64_t frame,
                      int64_t trace, uint64_t jni)
{
	if (!r->emit)
		return HF_OK;
	vals_clear(r, hprof_rec_root.nfields);
	val_int(&r->vals[0], r->dump);
	val_text(&r->vals[1], kind, strlen(kind));
	val_u(&r->vals[2], obj);
	if (thread >= 0) val_int(&r->vals[3], thread);
	if (frame != INT64_MIN) val_int(&r->vals[4], frame);
	if (trace >= 0) val_int(&r->vals[5], trace);
	if (jni != UINT64_MAX) val_u(&r->vals[6], jni);
	val_int(&r->vals[7], r->heap);
	r->stats->roots++;
	hf_record rec = { &hprof_rec_root, r->vals };
	return hf_sink_record(r->sink, &rec, r->err);
}

/* Appends one primitive value as JSON. */
static bool json_prim(hf_buf *b, unsigned t, const uint8_t *p)
{
	switch (t) {
	case T_BOOLEAN: return p[0] ? hf_buf_append(b, "true", 4) : hf_buf_append(b, "false", 5);
	case T_BYTE: return hf_buf_i64(b, (int8_t)p[0]);
	case T_CHAR: return hf_buf_u64(b, hf_be16(p));
	case T_SHORT: return hf_buf_i64(b, (int16_t)hf_be16(p));
	case T_INT: return hf_buf_i64(b, (int32_t)hf_be32(p));
	case T_LONG: return hf_buf_i64(b, (int64_t)hf_be64(p));
	case T_FLOAT: case T_DOUBLE: {
		double d;
		if (t == T_FLOAT) {
			uint32_t u = hf_be32(p);
			float f;
			memcpy(&f, &u, 4);
			d = f;
		} else {
			uint64_t u = hf_be64(p);
			memcpy(&d, &u, 8);
		}
		if (!isfinite(d))
			return hf_buf_append(b, isnan(d) ? "\"NaN\"" : d > 0 ? "\"Infinity\"" : "\"-Infinity\"",
			                     isnan(d) ? 5 : d > 0 ? 10 : 11);
		char tmp[40];
		int n = snprintf(tmp, sizeof tmp, t == T_FLOAT ? "%.9g" : "%.17g", d);
		return hf_buf_append(b, tmp, (size_t)n);
	}
	}
	return hf_buf_append(b, "null", 4);
}

/* At least the bytes json_key_name appends for hname with a value after it
 * ("name":0): a name is checked against the values limit before it is
 * formatted, since it can be long and escape to six times its length. */
static size_t key_min(reader *r, uint64_t hname)
{
	const name_entry *e = name_get(r, hname);
	return (e ? e->len : 5) + 4;
}

static bool json_key_name(reader *r, hf_buf *b, uint64_t hname)
{
	const name_entry *e = name_get(r, hname);
	if (e)
		return hf_buf_json_key(b, (const char *)r->name_arena.data + e->off, e->len);
	char tmp[40];
	int n = snprintf(tmp, sizeof tmp, "#name%" PRIu64, hname);
	return hf_buf_json_string(b, tmp, (size_t)n);
}

/* ---- string text ---------------------------------------------------------- */

static hf_status decode_text(reader *r, const pending_string *ps, unsigned type,
                             const uint8_t *data, uint64_t len)
{
	/* len is in elements. */
	uint64_t from = 0, to = len;
	if (ps->offset >= 0) {
		from = (uint64_t)ps->offset;
		to = ps->count >= 0 ? from + (uint64_t)ps->count : len;
		if (from > len) from = len;
		if (to > len || to < from) to = len;
	} else if (ps->count >= 0 && (uint64_t)ps->count < len && type == T_CHAR && r->android) {
		to = (uint64_t)ps->count;
	}
	uint64_t n = to - from;
	/* A char[] holds UTF-16 in HPROF's order (big-endian); a JDK 9+
	 * byte[] with the UTF16 coder two bytes per char in the VM's native
	 * order, little-endian on every realistic host; else Latin-1. */
	hf_text_encoding enc = HF_TEXT_LATIN1;
	const uint8_t *text = data + from;
	if (type == T_CHAR) {
		enc = HF_TEXT_UTF16BE;
		text = data + 2 * from;
	} else if (ps->coder == 1) {
		enc = HF_TEXT_UTF16LE;
		n /= 2;
	}
	r->stats->string_texts++;
	if (hf_sink_takes_encoded(r->sink)) {
		/* The sink decodes (the NDJSON writer on its own thread). */
		r->stats->strings++;
		return hf_sink_string_encoded(r->sink, ps->sid, enc, text, n, r->err);
	}
	r->text.len = 0;
	if (!hf_buf_reserve(&r->text, HF_TEXT_OUT_MAX(n)))
		return nomem(r);
	r->text.len = hf_text_decode(enc, text, n, (char *)r->text.data);
	return emit_string(r, ps->sid, (const char *)r->text.data, r->text.len);
}

static hf_status emit_string_node(reader *r, uint64_t obj, uint64_t cls, uint64_t size,
                                  uint32_t heap, uint32_t dump, uint64_t text_sid,
                                  const char *values, size_t values_len)
{
	hf_value v[2];
	memset(v, 0, sizeof v);
	if (text_sid)
		val_u(&v[0], text_sid);
	if (values)
		val_text(&v[1], values, values_len);
	r->stats->instances++;
	hf_node node = { &hprof_node_instance, obj, dump, cls, size, heap, v };
	return hf_sink_node(r->sink, &node, r->err);
}

/* Writes a waiting String's node, with its text when it was found. */
static hf_status finish_pending(reader *r, pending_string *ps, int resolved)
{
	if (!resolved)
		r->stats->unresolved_strings++;
	hf_status st = emit_string_node(r, ps->node, ps->cls, ps->size, ps->heap, ps->dump,
	                                resolved ? ps->sid : 0, ps->values, ps->values_len);
	free(ps->values);
	ps->values = NULL;
	return st;
}

/* ---- id filters ----------------------------------------------------------------
 * Every char[] and byte[] is looked up in pending_map (and, in later passes, in
 * late_map), nearly always in vain; a lookup in a map of some 10^5 entries is a
 * cache miss.  One bit per id in 1 MiB answers most of them first: a clear
 * bit means the id is not in the map.  Bits are set on every put and cleared
 * only with the whole map (pending_bits is rebuilt when stale bits pile up).
 *
 * The bit is the id modulo 2^23 after dropping the low bits that every array
 * id has had clear (id_shift: 3 for the 8-aligned addresses of HotSpot and
 * ART, 0 for ids that count up by one).  Ids come in address order, so the
 * filter is read in order too, where a hash of the id made each look a cache
 * miss (measured: 11% of hprof2ndjson's time on the 5 GB dump); the share of
 * bits set, hence of false answers, is the same for ids spread over the heap. */
#define FILTER_LOG2 23

static inline uint64_t filter_index(const reader *r, uint64_t id)
{
	return (id >> r->id_shift) & (((uint64_t)1 << FILTER_LOG2) - 1);
}

static bool filter_add(const reader *r, id_filter *f, uint64_t id)
{
	if (!f->bits && !(f->bits = calloc((size_t)1 << (FILTER_LOG2 - 6), sizeof *f->bits)))
		return false;
	uint64_t h = filter_index(r, id);
	uint64_t *w = &f->bits[h >> 6];
	if (!*w) {
		if (f->nset < FILTER_LOG)
			f->set[f->nset] = (uint32_t)(h >> 6);
		f->nset++;
	}
	*w |= (uint64_t)1 << (h & 63);
	return true;
}

static inline bool filter_may_have(const reader *r, const id_filter *f, uint64_t id)
{
	if (!f->bits)
		return false;
	uint64_t h = filter_index(r, id);
	return (f->bits[h >> 6] >> (h & 63)) & 1;
}

/* Every bit clear.  Only the words set since the last clear are non-zero:
 * when they are few, only they are written.  (A small dump cleared the
 * whole 1 MiB a few times: with the allocation, 20 % of fuzz_hprof's
 * time, perf.) */
static void filter_clear(id_filter *f)
{
	if (!f->bits)
		return;
	if (f->nset <= FILTER_LOG)
		for (uint32_t i = 0; i < f->nset; i++)
			f->bits[f->set[i]] = 0;
	else
		memset(f->bits, 0, ((size_t)1 << (FILTER_LOG2 - 6)) * sizeof *f->bits);
	f->nset = 0;
}

/* pending_bits again from pending_map, when most of its bits are stale. */
static void filter_rebuild(reader *r, id_filter *f, const hf_map *m)
{
	if (!f->bits)
		return; /* nothing was ever added */
	filter_clear(f);
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key != HF_MAP_EMPTY)
			filter_add(r, f, m->slots[i].key);
	if (m->has_empty_key)
		filter_add(r, f, HF_MAP_EMPTY);
}

static void pending_filter_refresh(reader *r)
{
	if (r->pending_puts < 4 * r->pending_map.count + 65536)
		return;
	filter_rebuild(r, &r->pending_bits, &r->pending_map);
	r->pending_puts = r->pending_map.count;
}

static void cache_clear(reader *r);

/* An array id with a low bit that every earlier one had clear: the filters
 * and the cache take fewer low bits from now on (a few times at most). */
static void note_array_id(reader *r, uint64_t id)
{
	if (!(id & ((1u << r->id_shift) - 1)))
		return;
	while (id & ((1u << r->id_shift) - 1))
		r->id_shift--;
	filter_rebuild(r, &r->pending_bits, &r->pending_map);
	filter_rebuild(r, &r->late_bits, &r->late_map);
	cache_clear(r);
}

/* Writes the nodes of a chain of waiting Strings without text. */
static hf_status finish_chain_without_text(reader *r, uint32_t ix)
{
	for (; ix != UINT32_MAX; ix = r->pending[ix].next) {
		hf_status st = finish_pending(r, &r->pending[ix], 0);
		if (st)
			return st;
	}
	return HF_OK;
}

static void pending_release(reader *r, uint32_t ix)
{
	r->pending[ix].next = (uint32_t)r->pending_free;
	r->pending_free = ix;
	r->pending_live--;
}

/* Every entry of pending[] free again (none is in a map any more). */
static void pending_clear(reader *r)
{
	for (size_t i = 0; i < r->npending; i++) {
		free(r->pending[i].values);
		r->pending[i].values = NULL;
	}
	r->npending = 0;
	r->pending_live = 0;
	r->pending_free = UINT32_MAX;
}

/* A free entry of pending[] in *ix. */
static hf_status pending_new(reader *r, uint32_t *ix)
{
	if (r->pending_free != UINT32_MAX) {
		*ix = (uint32_t)r->pending_free;
		r->pending_free = r->pending[*ix].next;
	} else {
		if (r->npending == r->cappending) {
			size_t nc = r->cappending ? r->cappending * 2 : 1024;
			if (nc >= UINT32_MAX)
				return hf_error_set(r->err, HF_ERR_LIMIT, "too many pending strings");
			pending_string *np = realloc(r->pending, nc * sizeof *np);
			if (!np)
				return nomem(r);
			r->pending = np;
			r->cappending = nc;
		}
		*ix = (uint32_t)r->npending++;
	}
	r->pending_live++;
	return HF_OK;
}

/* ---- parked Strings ------------------------------------------------------------
 * Waiting Strings are bounded in memory: past string_wait of them (input that
 * can be read again only), all that wait are written to a temporary file and
 * their arrays are looked for by later passes over the input, string_wait
 * Strings a pass (rescan_late).  Parked Strings' nodes come after the dump's
 * other records; the records are the same. */

typedef struct parked_string {
	uint64_t array, sid, node, cls, size, values_len;
	uint64_t seq;        /* its place in the order the Strings were parked */
	int64_t offset, count;
	int32_t coder;
	uint32_t dump, heap, pad;
} parked_string;

/* A temporary file failed: where it was, and why (errno). */
static hf_status tmp_io(reader *r, const char *what)
{
	return hf_error_set(r->err, HF_ERR_IO, "cannot use a temporary file in %s (TMPDIR) for %s: %s",
	                    hf_tmpdir(), what, strerror(errno));
}

static hf_status park_io(reader *r)
{
	return tmp_io(r, "waiting Strings");
}

/* A record of the park file could not be read whole: a read error, or
 * (errno then says nothing) the file ended. */
static hf_status park_short(reader *r)
{
	if (!ferror(r->park_file))
		errno = EIO;
	return park_io(r);
}

/*
 * The park file is written in sorted runs.  The pass reads a parked
 * String's record when its array comes, in the order of the index (by
 * dump, then by array id, as HotSpot and ART write arrays); records written
 * in the order the Strings came were read in about random order, a pread
 * each.  So parked Strings gather in memory, PARK_RUN at a time, and each
 * run is written sorted by dump and array (and, between equals, in the
 * order they came, seq).  A pass then reads each run forward, through a
 * window of its own that grows while its reads go forward (park_read_at).
 * What the passes write, and in what order, is as before: a pass takes the
 * next Strings in the order they came (unpark_some), and those of one array
 * of one dump in that order.  (A pass reads the whole runs that hold its
 * Strings: with a string_wait far below the default, whose passes take
 * fewer Strings than a run holds, that is more reading than before.)  Measured on the
 * 5 GB benchmark dump (1.7 M parked Strings, 1.6 M preads of 80 bytes before),
 * hprof2ndjson to /dev/null, alternated runs: see the closing note of issue
 * 5 and bench/HISTORY.md (2026-11-30).
 */
#define PARK_RUN ((size_t)32 << 10)          /* Strings a run (3 MiB) */
#define PARK_RUN_VALUES ((size_t)8 << 20)    /* with --values: their values' bytes */
#define PARK_WIN_MIN ((size_t)256)
#define PARK_WIN_MAX ((size_t)64 << 10)

size_t hf_hprof_test_park_run;

typedef struct run_item {
	parked_string p;
	uint64_t voff;  /* its values in run_vals (unpark_to_memory: its record in the file) */
} run_item;

/* A run's window on the park file: bytes [start, start + len) in buf; want
 * is the size of its next read. */
typedef struct park_win {
	uint8_t *buf;
	size_t cap, len, want;
	uint64_t start;
} park_win;

typedef struct park_runs park_runs;

static int run_cmp(const void *a, const void *b)
{
	const run_item *x = a, *y = b;
	if (x->p.dump != y->p.dump)
		return x->p.dump < y->p.dump ? -1 : 1;
	if (x->p.array != y->p.array)
		return x->p.array < y->p.array ? -1 : 1;
	return x->p.seq < y->p.seq ? -1 : x->p.seq > y->p.seq;
}

static int run_seq_cmp(const void *a, const void *b)
{
	const run_item *x = a, *y = b;
	return x->p.seq < y->p.seq ? -1 : x->p.seq > y->p.seq;
}

/* The windows' buffers go (they are made again as the reads need them). */
static void runs_drop_windows(park_runs *pr)
{
	if (pr->win)
		for (size_t k = 0; k < pr->n; k++)
			free(pr->win[k].buf);
	free(pr->win);
	pr->win = NULL;
}

static void runs_free(park_runs *pr)
{
	runs_drop_windows(pr);
	free(pr->start);
	free(pr->first);
	memset(pr, 0, sizeof *pr);
}

/* The Strings gathered are written at the end of the park file (which must
 * be open) as one run. */
static hf_status park_flush(reader *r)
{
	if (!r->nrun)
		return HF_OK;
	park_runs *pr = &r->runs;
	if (pr->n == pr->cap) {
		size_t nc = pr->cap ? 2 * pr->cap : 64;
		uint64_t *ns = realloc(pr->start, nc * sizeof *ns);
		if (ns)
			pr->start = ns;
		uint64_t *nf = ns ? realloc(pr->first, nc * sizeof *nf) : NULL;
		if (!nf)
			return nomem(r);
		pr->first = nf;
		pr->cap = nc;
	}
	runs_drop_windows(pr); /* (the file changes under them) */
	if (fseeko(r->park_file, (off_t)pr->end, SEEK_SET) != 0)
		return park_io(r);
	qsort(r->run, r->nrun, sizeof *r->run, run_cmp);
	uint64_t end = pr->end;
	for (size_t i = 0; i < r->nrun; i++) {
		const run_item *it = &r->run[i];
		if (fwrite(&it->p, sizeof it->p, 1, r->park_file) != 1 ||
		    (it->p.values_len &&
		     fwrite(r->run_vals.data + it->voff, 1, it->p.values_len, r->park_file) != it->p.values_len))
			return park_io(r); /* (the runs stand as they were) */
		end += sizeof it->p + it->p.values_len;
	}
	pr->start[pr->n] = pr->end;
	pr->first[pr->n++] = r->parked - r->nrun;
	pr->end = end;
	r->nrun = 0;
	hf_buf_reset(&r->run_vals);
	return HF_OK;
}

/* One waiting String goes to the park file (its run, for now); its values
 * are freed. */
static hf_status park_one(reader *r, uint64_t array, pending_string *ps)
{
	size_t run_cap = hf_hprof_test_park_run ? hf_hprof_test_park_run : PARK_RUN;
	hf_status st;
	if (r->nrun >= run_cap && (st = park_flush(r)))
		return st; /* (a flush that failed before) */
	if (r->nrun == r->caprun) {
		size_t nc = r->caprun ? 2 * r->caprun : 1024;
		if (nc > run_cap)
			nc = run_cap;
		run_item *n = realloc(r->run, nc * sizeof *n);
		if (!n)
			return nomem(r);
		r->run = n;
		r->caprun = nc;
	}
	run_item *it = &r->run[r->nrun];
	parked_string p = { .array = array, .sid = ps->sid, .node = ps->node, .cls = ps->cls,
	                    .size = ps->size, .values_len = ps->values ? ps->values_len : 0,
	                    .seq = r->parked, .offset = ps->offset, .count = ps->count,
	                    .coder = ps->coder, .dump = ps->dump, .heap = ps->heap,
	                    .pad = ps->values != NULL };
	it->p = p;
	it->voff = r->run_vals.len;
	if (p.values_len && !hf_buf_append(&r->run_vals, ps->values, p.values_len))
		return nomem(r);
	r->nrun++;
	free(ps->values);
	ps->values = NULL;
	r->parked++;
	r->stats->parked_strings++;
	if (r->nrun >= run_cap || r->run_vals.len >= PARK_RUN_VALUES)
		return park_flush(r);
	return HF_OK;
}

/* The last of the n ascending values v[] at most x (0 if none is). */
static size_t last_at_most(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The run of the park file that holds offset off. */
static size_t run_of(const park_runs *pr, uint64_t off)
{
	return last_at_most(pr->start, pr->n, off);
}

/* Where run k ends in the park file. */
static uint64_t run_end(const park_runs *pr, size_t k)
{
	return k + 1 < pr->n ? pr->start[k + 1] : pr->end;
}

/* n bytes at off in the park file fd, through the window of the run that
 * holds them: 0, an errno, or -1 if the file ends first.  The window's
 * reads double in size (to PARK_WIN_MAX) while each begins in the window
 * before or a little past its end, and fall back to PARK_WIN_MIN at a jump:
 * a run read out of order costs about what it did before (a read of 256
 * bytes a record; reads that keep landing just past the window, in a
 * sparse pass, may take up to PARK_WIN_MAX each). */
static int park_read_at(park_runs *pr, int fd, uint64_t off, void *out, size_t n)
{
	if (!pr->n || off >= pr->end || n > pr->end - off)
		return -1;
	if (!pr->win && !(pr->win = calloc(pr->n, sizeof *pr->win)))
		return ENOMEM;
	size_t k = run_of(pr, off);
	park_win *w = &pr->win[k];
	if (!w->buf || off < w->start || off - w->start > w->len || n > w->len - (size_t)(off - w->start)) {
		if (w->buf && off >= w->start && off - w->start <= 2 * (uint64_t)w->len)
			w->want = w->want < PARK_WIN_MAX ? 2 * w->want : PARK_WIN_MAX;
		else
			w->want = PARK_WIN_MIN;
		uint64_t end = run_end(pr, k);
		size_t want = w->want;
		if (want > end - off)
			want = (size_t)(end - off);
		if (want < n)
			want = n;
		if (want > w->cap) {
			uint8_t *nb = malloc(want);
			if (!nb)
				return ENOMEM;
			free(w->buf);
			w->buf = nb;
			w->cap = want;
		}
		w->start = off;
		w->len = 0;
		int e = hf_pread_full(fd, w->buf, want, off, &w->len);
		if (e)
			return e;
		if (w->len < n)
			return -1;
	}
	memcpy(out, w->buf + (off - w->start), n);
	return 0;
}

static hf_status park_chain(reader *r, uint64_t array, uint32_t ix)
{
	hf_status st;
	for (; ix != UINT32_MAX; ix = r->pending[ix].next)
		if ((st = park_one(r, array, &r->pending[ix])))
			return st;
	return HF_OK;
}

static hf_status park_map(reader *r, hf_map *m)
{
	hf_status st;
	/* An array id equal to the map's sentinel: cannot wait for it. */
	if (m->has_empty_key && (st = finish_chain_without_text(r, (uint32_t)m->empty_key_val)))
		return st;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key != HF_MAP_EMPTY &&
		    (st = park_chain(r, m->slots[i].key, (uint32_t)m->slots[i].val)))
			return st;
	hf_map_free(m);
	return HF_OK;
}

static hf_status rescan_late_without_input(reader *r);

/* The park file, made the first time. */
static hf_status park_open(reader *r)
{
	if (!r->park_file && !(r->park_file = hf_tmpfile()))
		return park_io(r);
	return HF_OK;
}

/* Every String waiting in memory goes to the park file. */
static hf_status park_all(reader *r)
{
	hf_status st;
	if ((st = park_open(r)))
		return st;
	if (r->late_refs && (st = rescan_late_without_input(r)))
		return st; /* these were parked already; only salvage gets here */
	/* (Strings a pass went by have no array left to wait for.) */
	if ((st = finish_chain_without_text(r, r->late_dead)))
		return st;
	r->late_dead = UINT32_MAX;
	if ((st = park_map(r, &r->pending_map)) || (st = park_map(r, &r->late_map)))
		return st;
	filter_clear(&r->pending_bits);
	filter_clear(&r->late_bits);
	r->pending_puts = 0;
	pending_clear(r);
	return HF_OK;
}

/*
 * The passes for late Strings read small records at offsets: the arrays in
 * the input, in file order, and the parked Strings waiting for them (their
 * runs' windows: park_read_at).  A window of the file read at once serves
 * the records that fall into it.  On the 5 GB benchmark dump (1.7 M parked
 * Strings) the pass over the text-array index took 2.85 s with a pread for
 * each record (three an array); with windows of 64 KiB on the input 1.9 s,
 * 4 KiB 1.7 s, 1 KiB 2.0 s.
 * in: read the input (hf_input_read_at), else fd (a pipe's text spool, read
 * in the input's window as the input would be).
 */
typedef struct read_window read_window;
#define INPUT_WINDOW ((size_t)4 << 10)

static hf_status window_read(reader *r, read_window *w, hf_input *in, int fd, uint64_t off,
                             size_t n, const uint8_t **p, size_t *got)
{
	*p = NULL;
	*got = 0;
	if (w->buf && off >= w->start && off - w->start <= w->len &&
	    n <= w->len - (size_t)(off - w->start)) {
		*p = w->buf + (off - w->start);
		*got = n;
		return HF_OK;
	}
	size_t want = n > INPUT_WINDOW ? n : INPUT_WINDOW;
	if (want > w->cap) {
		free(w->buf);
		w->cap = 0;
		if (!(w->buf = malloc(want)))
			return nomem(r);
		w->cap = want;
	}
	w->len = 0;
	w->start = off;
	if (in) {
		hf_status st = hf_input_read_at(in, off, w->buf, want, &w->len, r->err);
		if (st)
			return st;
		r->win_read += w->len;
	} else {
		int e = hf_pread_full(fd, w->buf, want, off, &w->len);
		if (e)
			return hf_error_set(r->err, HF_ERR_IO, "cannot read back the temporary file of text arrays: %s",
			                    strerror(e));
	}
	*p = w->buf;
	*got = n < w->len ? n : w->len;
	return HF_OK;
}

static void window_free(read_window *w)
{
	free(w->buf);
	memset(w, 0, sizeof *w);
}

/* The parked String p, read at off in the park file, as a waiting String
 * (its values read too). */
static hf_status parked_unpack(reader *r, uint64_t off, const parked_string *p,
                               pending_string *ps)
{
	int fd = fileno(r->park_file);
	memset(ps, 0, sizeof *ps);
	ps->sid = p->sid;
	ps->node = p->node;
	ps->cls = p->cls;
	ps->size = p->size;
	ps->offset = p->offset;
	ps->count = p->count;
	ps->coder = p->coder;
	ps->dump = p->dump;
	ps->heap = p->heap;
	ps->next = UINT32_MAX;
	if (p->pad) {
		if (p->values_len > ((uint64_t)1 << 40) || !(ps->values = malloc(p->values_len + 1)))
			return nomem(r);
		size_t vgot;
		if (hf_pread_full(fd, ps->values, p->values_len, off + sizeof *p, &vgot) || vgot != p->values_len) {
			free(ps->values);
			ps->values = NULL;
			return park_io(r);
		}
		ps->values_len = p->values_len;
	}
	return HF_OK;
}

/* A parked String back from the park file at off (its values too). */
static hf_status parked_load(reader *r, uint64_t off, pending_string *ps)
{
	parked_string p;
	int e = park_read_at(&r->runs, fileno(r->park_file), off, &p, sizeof p);
	if (e == ENOMEM)
		return nomem(r);
	if (e) {
		errno = e > 0 ? e : EIO;
		return park_io(r);
	}
	return parked_unpack(r, off, &p, ps);
}

/*
 * Loads parked Strings for the next pass.  Only each one's array id, dump
 * and place in the park file is kept (24 bytes, against some 130 for a
 * String waiting in memory), sorted by array id and dump: no map, and as
 * arrays come in id order the next one is looked for from where the last was
 * found.  The passes need no array cache (freed before them), so a pass
 * takes LATE_REFS_PER_WAIT times string_wait Strings (48 MiB of refs at the
 * default) in about the memory the first pass had for the cache (its 32 MiB
 * ring and 16 MiB table) and its waiting Strings: on the 5 GB benchmark
 * dump 1.6 M parked Strings took 7 passes over the input before, 1 now.  A
 * String is read back from the park file when its array comes.
 */
#define LATE_REFS_PER_WAIT 16

static int ref_cmp(const void *a, const void *b)
{
	const late_ref *x = a, *y = b;
	if (x->array != y->array)
		return x->array < y->array ? -1 : 1;
	if (x->dump != y->dump)
		return x->dump < y->dump ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The park file's next record (at r->park_pos, where the file stands) in
 * *p, its offset in *off; its values are skipped. */
static hf_status park_next(reader *r, parked_string *p, uint64_t *off)
{
	if (fread(p, sizeof *p, 1, r->park_file) != 1)
		return park_short(r);
	uint64_t vlen = p->pad ? p->values_len : 0;
	if (vlen > ((uint64_t)1 << 40) || (vlen && fseeko(r->park_file, (off_t)vlen, SEEK_CUR) != 0))
		return park_io(r);
	*off = r->park_pos;
	r->park_pos += sizeof *p + vlen;
	return HF_OK;
}

static hf_status unpark_some(reader *r)
{
	/* A pass's windows, only for the runs it reads. */
	runs_drop_windows(&r->runs);
	hf_status st = park_flush(r);
	if (st)
		return st;
	if (fflush(r->park_file) != 0)
		return park_io(r);
	if (r->park_read == 0) {
		/* Every String is parked by now: pending[] is empty for good. */
		pending_clear(r);
		free(r->pending);
		r->pending = NULL;
		r->cappending = 0;
	}
	r->late_refs = 1;
	r->nrefs = 0;
	r->ref_finger = 0;
	size_t limit = r->string_wait * LATE_REFS_PER_WAIT;
	if (limit < r->string_wait)
		limit = r->string_wait; /* overflow */
	/* The pass's Strings: the next limit of them in the order they were
	 * parked (seq lo to hi), as before the runs, so that the passes, and
	 * the order of what they write, do not depend on the runs.  They lie in
	 * consecutive runs, read forward; the first and the last may hold
	 * others, which are passed over. */
	uint64_t lo = r->park_read, hi = r->parked - lo < limit ? r->parked : lo + limit;
	if (lo >= hi)
		return HF_OK;
	park_runs *pr = &r->runs;
	size_t k = last_at_most(pr->first, pr->n, lo), m = last_at_most(pr->first, pr->n, hi - 1);
	uint64_t stop = run_end(pr, m);
	if (!pr->n)
		errno = EIO; /* (Strings counted but not in the file) */
	if (!pr->n || fseeko(r->park_file, (off_t)pr->start[k], SEEK_SET) != 0)
		return park_io(r);
	r->park_pos = pr->start[k];
	if (r->caprefs < hi - lo) {
		late_ref *nr = realloc(r->refs, (size_t)(hi - lo) * sizeof *nr);
		if (!nr)
			return nomem(r);
		r->refs = nr;
		r->caprefs = (size_t)(hi - lo);
	}
	while (r->park_pos < stop) {
		parked_string p;
		uint64_t off = 0;
		if ((st = park_next(r, &p, &off)))
			return st;
		if (p.seq < lo || p.seq >= hi)
			continue;
		if (r->nrefs == hi - lo) {
			errno = EIO; /* (the file is not as it was written) */
			return park_io(r);
		}
		r->refs[r->nrefs].array = p.array;
		r->refs[r->nrefs].dump = p.dump;
		r->refs[r->nrefs++].off = off;
		if (!filter_add(r, &r->late_bits, p.array))
			return nomem(r);
	}
	if (r->nrefs != hi - lo) {
		errno = EIO;
		return park_io(r);
	}
	r->park_read = hi;
	if (r->nrefs)
		qsort(r->refs, r->nrefs, sizeof *r->refs, ref_cmp);
	return HF_OK;
}

static inline bool ref_before(const late_ref *v, uint64_t id, uint32_t dump)
{
	return v->array < id || (v->array == id && v->dump < dump);
}

/* The first parked String of dump `dump` waiting for array id, or SIZE_MAX.
 * (By dump too: looking through every dump's Strings of an array, each
 * one's record read, at each array of that id made a crafted file's passes
 * take the square of its size; see resolve_late.) */
static size_t ref_find(reader *r, uint64_t id, uint32_t dump)
{
	const late_ref *v = r->refs;
	size_t n = r->nrefs, lo = 0, hi = n;
	size_t f = r->ref_finger;
	if (f < n && ref_before(&v[f], id, dump)) {
		/* Gallop forward from the last place: [lo, hi) holds the answer. */
		size_t step = 1;
		lo = f + 1;
		while (lo + step - 1 < n && ref_before(&v[lo + step - 1], id, dump)) {
			lo += step;
			step *= 2;
		}
		hi = lo + step - 1 < n ? lo + step : n;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ref_before(&v[mid], id, dump))
			lo = mid + 1;
		else
			hi = mid;
	}
	r->ref_finger = lo;
	return lo < n && v[lo].array == id && v[lo].dump == dump ? lo : SIZE_MAX;
}

/* Writes the nodes of the pass's parked Strings still waiting, without text. */
static hf_status finish_refs_without_text(reader *r)
{
	for (size_t i = 0; i < r->nrefs; i++) {
		if (r->refs[i].off & REF_DONE)
			continue;
		pending_string ps;
		hf_status st = parked_load(r, r->refs[i].off, &ps);
		if (!st)
			st = finish_pending(r, &ps, 0);
		if (st)
			return st;
		r->refs[i].off |= REF_DONE;
	}
	return HF_OK;
}

/* The parked String of refs[i], loaded in ps, and the array it waits for:
 * written with its text if it is of the array's dump (r->dump), else left
 * waiting. */
static hf_status resolve_ref(reader *r, size_t i, pending_string *ps, unsigned type,
                             const uint8_t *data, uint64_t len)
{
	if (ps->dump != r->dump) {
		free(ps->values);
		return HF_OK;
	}
	r->refs[i].off |= REF_DONE;
	hf_status st = decode_text(r, ps, type, data, len);
	if (!st)
		return finish_pending(r, ps, 1);
	free(ps->values);
	return st;
}

/* Second pass, parked Strings: those of this dump waiting for array id. */
static hf_status resolve_refs(reader *r, uint64_t id, unsigned type, const uint8_t *data,
                              uint64_t len)
{
	size_t i = ref_find(r, id, r->dump);
	if (i == SIZE_MAX)
		return HF_OK;
	for (; i < r->nrefs && r->refs[i].array == id && r->refs[i].dump == r->dump; i++) {
		r->late_walk++;
		if (r->refs[i].off & REF_DONE)
			continue;
		pending_string ps;
		hf_status st = parked_load(r, r->refs[i].off, &ps);
		if (st || (st = resolve_ref(r, i, &ps, type, data, len)))
			return st;
	}
	return HF_OK;
}

/* A char[] or byte[] arrived: resolve Strings waiting for it. */
static hf_status resolve_pending(reader *r, uint64_t id, unsigned type, const uint8_t *data,
                                 uint64_t len)
{
	uint64_t *first = hf_map_get(&r->pending_map, id);
	if (!first)
		return HF_OK;
	uint32_t ix = (uint32_t)*first;
	hf_map_remove(&r->pending_map, id);
	while (ix != UINT32_MAX) {
		uint32_t next = r->pending[ix].next;
		hf_status st = decode_text(r, &r->pending[ix], type, data, len);
		if (!st)
			st = finish_pending(r, &r->pending[ix], 1);
		pending_release(r, ix);
		if (st)
			return st;
		ix = next;
	}
	return HF_OK;
}

uint64_t hf_hprof_test_late_walk;

/*
 * Second pass: a char[] or byte[] some Strings of this dump still wait for.
 * The passes meet the arrays in the order of the dumps, and each chain of
 * late_map is in that order too (dump_close appends a dump's Strings after
 * the earlier dumps'; late_sort restores the order where Strings came back
 * from the park file): the Strings of earlier dumps at its head can no longer
 * find their array in this pass (their dump's arrays have gone by) and move
 * to late_dead; this dump's follow; a later dump's end the walk.  Each String
 * is so looked at once or twice a pass: walking whole chains, a crafted dump
 * of 100,000 Strings of one array and 20,000 dumps of that array alone
 * (2.6 MB) took 13.5 s, and with parked Strings, 300,000 and 3,000 dumps
 * (6.6 MB) 223 s (each of their records read again for every array).
 */
static hf_status resolve_late(reader *r, uint64_t id, unsigned type, const uint8_t *data,
                              uint64_t len)
{
	if (r->late_refs)
		return resolve_refs(r, id, type, data, len);
	uint64_t *first = hf_map_get(&r->late_map, id);
	if (!first)
		return HF_OK;
	uint32_t ix = (uint32_t)*first;
	uint64_t last = *first >> 32;
	while (ix != UINT32_MAX && r->pending[ix].dump < r->dump) {
		uint32_t next = r->pending[ix].next;
		r->pending[ix].next = r->late_dead;
		r->late_dead = ix;
		ix = next;
		r->late_walk++;
	}
	hf_status st = HF_OK;
	while (!st && ix != UINT32_MAX && r->pending[ix].dump == r->dump) {
		pending_string *ps = &r->pending[ix];
		ix = ps->next;
		st = decode_text(r, ps, type, data, len);
		if (!st)
			st = finish_pending(r, ps, 1);
		r->late_walk++;
	}
	if (ix == UINT32_MAX)
		hf_map_remove(&r->late_map, id);
	else
		*first = ix | last << 32;
	return st;
}

/* Each chain of late_map in the order of the dumps again, after Strings came
 * back from the park file (pending_wait puts them first): a merge sort of
 * the linked entries, stable (a dump's Strings keep their order). */
static uint32_t late_sort_chain(reader *r, uint32_t head, size_t n, uint32_t *rest)
{
	if (n == 1) {
		*rest = r->pending[head].next;
		r->pending[head].next = UINT32_MAX;
		return head;
	}
	uint32_t mid;
	uint32_t a = late_sort_chain(r, head, n / 2, &mid);
	uint32_t b = late_sort_chain(r, mid, n - n / 2, rest);
	uint32_t out = UINT32_MAX, *at = &out;
	while (a != UINT32_MAX && b != UINT32_MAX) {
		uint32_t *take = r->pending[b].dump < r->pending[a].dump ? &b : &a;
		*at = *take;
		at = &r->pending[*take].next;
		*take = r->pending[*take].next;
	}
	*at = a != UINT32_MAX ? a : b;
	return out;
}

static void late_sort(reader *r)
{
	if (!r->late_unsorted)
		return;
	r->late_unsorted = 0;
	for (size_t i = 0; i <= r->late_map.cap; i++) {
		uint64_t *v;
		if (i < r->late_map.cap)
			v = r->late_map.slots[i].key != HF_MAP_EMPTY ? &r->late_map.slots[i].val : NULL;
		else
			v = r->late_map.has_empty_key ? &r->late_map.empty_key_val : NULL;
		if (!v)
			continue;
		size_t n = 0;
		for (uint32_t ix = (uint32_t)*v; ix != UINT32_MAX; ix = r->pending[ix].next)
			n++;
		uint32_t rest, head = late_sort_chain(r, (uint32_t)*v, n, &rest), last = head;
		while (r->pending[last].next != UINT32_MAX)
			last = r->pending[last].next;
		*v = head | (uint64_t)last << 32;
	}
}

/*
 * Recent small char[]/byte[] contents, for Strings that come after their
 * array.  The bytes go to a ring; a 4-way set-associative table finds them
 * by id (its set: the id modulo the number of sets, as in the filters).
 * Measured on the 1 GB benchmark dump (2.4 M Strings): a hash map with an
 * eviction list cost a quarter of hprof2ndjson's time in cache misses; a set
 * is one cache line and nothing is evicted: a way is stale when
 * the ring has wrapped past its bytes, and a new array takes the stale or
 * oldest way of its set.  A lost entry costs only speed (the String waits
 * for its array in a later pass); test_synthetic checks that a 16-byte cache
 * gives the same records.
 */
static inline cached_array *cache_set(reader *r, uint64_t id)
{
	/* In id order, like the filters: neighbours share cache lines. */
	return &r->cache[(size_t)((id >> r->id_shift) & r->cache_setmask) * CACHE_WAYS];
}

static inline bool cache_live(const reader *r, const cached_array *a)
{
	return a->pos && r->cache_wpos <= a->pos - 1 + r->cache_cap;
}

static void cache_put(reader *r, uint64_t id, unsigned type, const uint8_t *data, size_t bytes)
{
	if (!r->cache || bytes > r->cache_cap / 16 || r->cache_cap < 16 * CACHE_HDR)
		return;
	size_t need = CACHE_HDR + bytes;
	size_t at = (size_t)(r->cache_wpos % r->cache_cap);
	if (at + need > r->cache_cap) {
		r->cache_wpos += r->cache_cap - at;
		at = 0;
	}
	uint32_t len = (uint32_t)bytes;
	uint8_t *h = r->cache_ring + at;
	memcpy(h, &len, 4);
	h[4] = (uint8_t)type;
	memcpy(h + CACHE_HDR, data, bytes);
	cached_array *set = cache_set(r, id), *victim = &set[0];
	for (int w = 0; w < CACHE_WAYS; w++) {
		cached_array *a = &set[w];
		if (!cache_live(r, a) || a->id == id) {
			victim = a;
			break;
		}
		if (a->pos < victim->pos)
			victim = a;
	}
	victim->id = id;
	victim->pos = r->cache_wpos + 1;
	r->cache_wpos += need;
}

/* The cached bytes of array id, or NULL; *type and *bytes describe them. */
static const uint8_t *cache_get(reader *r, uint64_t id, unsigned *type, size_t *bytes)
{
	if (!r->cache)
		return NULL;
	cached_array *set = cache_set(r, id);
	for (int w = 0; w < CACHE_WAYS; w++) {
		const cached_array *a = &set[w];
		if (a->id != id || !cache_live(r, a))
			continue;
		const uint8_t *h = r->cache_ring + (size_t)((a->pos - 1) % r->cache_cap);
		uint32_t len;
		memcpy(&len, h, 4);
		*type = h[4];
		*bytes = len;
		return h + CACHE_HDR;
	}
	return NULL;
}

static void cache_free(reader *r)
{
	hf_huge_free(r->cache_ring, r->cache_cap);
	hf_huge_free(r->cache, (r->cache_setmask + 1) * CACHE_WAYS * sizeof *r->cache);
	r->cache_ring = NULL;
	r->cache = NULL;
}

/* Forgets every entry (a later dump may reuse the ids). */
static void cache_clear(reader *r)
{
	r->cache_wpos += r->cache_cap + 1;
}

/* The String ps waits in memory for array value_id: in pending_map, or, a
 * String of a dump that has ended (late), in late_map. */
static hf_status pending_wait(reader *r, uint64_t value_id, pending_string ps, bool late)
{
	uint32_t ix = 0;
	hf_status st = pending_new(r, &ix);
	if (st) {
		free(ps.values);
		return st;
	}
	hf_map *m = late ? &r->late_map : &r->pending_map;
	uint64_t *first = hf_map_get(m, value_id);
	ps.next = first ? (uint32_t)*first : UINT32_MAX;
	uint64_t last = first ? *first >> 32 : ix;
	r->pending[ix] = ps;
	if (!late) {
		pending_filter_refresh(r);
		r->pending_puts++;
	} else {
		r->late_unsorted = 1; /* (put first: see late_sort) */
	}
	if (!filter_add(r, late ? &r->late_bits : &r->pending_bits, value_id) ||
	    !hf_map_put(m, value_id, ix | last << 32))
		return nomem(r);
	return HF_OK;
}

/* The text spool stopped (a write error, its budget) in the first pass
 * through a pipe: the arrays still to come will not be in it, so the Strings
 * parked for a pass wait in memory again, as without a spool (about 130
 * bytes each, no longer bounded by string_wait), where those arrays find
 * them; those of a dump that has ended wait for the pass over what the
 * spool holds (late_map). */
__attribute__((noinline, cold))
static hf_status unpark_to_memory(reader *r)
{
	r->spool_lost = 0;
	if (!r->parked)
		return HF_OK;
	hf_status st = park_flush(r);
	if (st)
		return st;
	if (fflush(r->park_file) != 0 || fseek(r->park_file, 0, SEEK_SET) != 0)
		return park_io(r);
	r->park_pos = 0;
	/* Run by run, each in the order its Strings came (the runs follow one
	 * another in that order): as they were parked. */
	uint64_t seen = 0;
	for (size_t k = 0; k < r->runs.n; k++) {
		uint64_t end = run_end(&r->runs, k);
		size_t n = 0;
		while (r->park_pos < end) {
			if (n == r->caprun) {
				size_t nc = r->caprun ? 2 * r->caprun : 1024;
				run_item *nr = realloc(r->run, nc * sizeof *nr);
				if (!nr)
					return nomem(r);
				r->run = nr;
				r->caprun = nc;
			}
			if ((st = park_next(r, &r->run[n].p, &r->run[n].voff)))
				return st;
			n++;
		}
		qsort(r->run, n, sizeof *r->run, run_seq_cmp);
		for (size_t i = 0; i < n; i++) {
			const parked_string *p = &r->run[i].p;
			pending_string ps;
			if ((st = parked_unpack(r, r->run[i].voff, p, &ps)))
				return st;
			bool late = !r->dump_open || ps.dump != r->dump;
			unsigned type;
			size_t bytes;
			const uint8_t *bits = late ? NULL : cache_get(r, p->array, &type, &bytes);
			if (bits) {
				/* Parked by a wrong guess, and its array came since. */
				if (!(st = decode_text(r, &ps, type, bits, bytes / (type == T_CHAR ? 2 : 1))))
					st = finish_pending(r, &ps, 1);
				else
					free(ps.values);
			} else {
				st = pending_wait(r, p->array, ps, late);
			}
			if (st)
				return st;
		}
		seen += n;
	}
	if (seen != r->parked) {
		errno = EIO; /* (the file is not as it was written) */
		return park_io(r);
	}
	r->parked = 0;
	runs_free(&r->runs);
	if (ftruncate(fileno(r->park_file), 0) != 0 || fseek(r->park_file, 0, SEEK_SET) != 0)
		return park_io(r);
	return HF_OK;
}

/* A String leaves the fresh list: decode it now if its array is cached
 * (or, for a writer that wants key order, if its array has passed: see
 * "Strings settled in place"), else it waits in pending_map or is parked.
 * Its values were already copied. */
static hf_status settle_in_place(reader *r, uint64_t value_id, pending_string *ps, bool *done);

static hf_status string_settle(reader *r, uint64_t value_id, pending_string ps)
{
	unsigned type;
	size_t bytes;
	hf_status st;
	if (r->spool_lost && (st = unpark_to_memory(r))) {
		free(ps.values);
		return st;
	}
	const uint8_t *bits = cache_get(r, value_id, &type, &bytes);
	if (bits) {
		st = decode_text(r, &ps, type, bits, bytes / (type == T_CHAR ? 2 : 1));
		if (!st)
			return finish_pending(r, &ps, 1);
		free(ps.values);
		return st;
	}
	/* Its array passed already, if arrays come in id order (as HotSpot and
	 * ART write them): straight to the park file, for a later pass.  On the
	 * 5 GB benchmark dump 1.3 M Strings wait so; in memory till the dump's
	 * end they filled string_wait five times over.  Guessed wrong, a String
	 * is found one pass later, never lost.  (A pass needs input that can be
	 * read again, or, on a pipe, the text spool; should the spool stop taking
	 * arrays, those parked go back to memory: tspool_freeze.) */
	bool ascending = r->text_array_descents * 64 <= r->text_arrays;
	if (r->in_place && r->tix_state == TIX_ON && r->park_read == 0 && ascending &&
	    value_id <= r->last_text_array && !r->stats->incomplete) {
		/* (in_place: input read at offsets, so the index points into it,
		 * not into a text spool.  Not after damage (salvage), where the
		 * last array may be cut.) */
		bool done;
		st = settle_in_place(r, value_id, &ps, &done);
		if (st || done) {
			free(ps.values);
			return st;
		}
	}
	int passes = hf_input_can_rewind(r->in) || (r->tspool && r->tix_state == TIX_ON);
	if (passes && r->park_read == 0 && value_id < r->last_text_array && ascending) {
		/* To the park file's run being gathered: nothing reads the file
		 * before the passes. */
		if (!(st = park_open(r)))
			st = park_one(r, value_id, &ps);
		free(ps.values);
		return st;
	}
	if (r->pending_live >= r->string_wait && passes && (st = park_all(r))) {
		free(ps.values);
		return st;
	}
	return pending_wait(r, value_id, ps, false);
}

/* Ring slot of the i-th oldest fresh String. */
static inline unsigned fresh_at(const reader *r, unsigned i)
{
	return (r->fresh_head + i) % FRESH_MAX;
}

/* The oldest fresh String settles. */
static hf_status fresh_settle_oldest(reader *r)
{
	unsigned k = r->fresh_head;
	r->fresh_head = fresh_at(r, 1);
	r->nfresh--;
	return string_settle(r, r->fresh_array[k], r->fresh[k]);
}

static hf_status fresh_settle_all(reader *r)
{
	hf_status st = HF_OK;
	while (r->nfresh && !st)
		st = fresh_settle_oldest(r);
	return st;
}

static bool fresh_has(const reader *r, uint64_t id)
{
	for (unsigned i = 0; i < r->nfresh; i++)
		if (r->fresh_array[fresh_at(r, i)] == id)
			return true;
	return false;
}

/* A char[] or byte[] arrived: the fresh Strings that use it get their text. */
static hf_status fresh_resolve(reader *r, uint64_t id, unsigned type, const uint8_t *data,
                               uint64_t len)
{
	unsigned keep = 0;
	hf_status st = HF_OK;
	for (unsigned i = 0; i < r->nfresh; i++) {
		unsigned k = fresh_at(r, i);
		if (r->fresh_array[k] != id || st) {
			/* Kept, in order (keep <= i). */
			unsigned to = fresh_at(r, keep++);
			r->fresh[to] = r->fresh[k];
			r->fresh_array[to] = r->fresh_array[k];
			continue;
		}
		st = decode_text(r, &r->fresh[k], type, data, len);
		if (!st)
			st = finish_pending(r, &r->fresh[k], 1);
		else
			free(r->fresh[k].values);
	}
	r->nfresh = keep;
	return st;
}

/* A String instance: it waits among the fresh ones for the next arrays;
 * its node is written with its text. */
static hf_status string_text(reader *r, uint64_t value_id, pending_string ps)
{
	if (ps.values) {
		char *copy = malloc(ps.values_len + 1);
		if (!copy)
			return nomem(r);
		memcpy(copy, ps.values, ps.values_len);
		ps.values = copy;
	}
	hf_status st;
	if (r->nfresh == FRESH_MAX && (st = fresh_settle_oldest(r))) {
		free(ps.values);
		return st;
	}
	unsigned k = fresh_at(r, r->nfresh++);
	r->fresh[k] = ps;
	r->fresh_array[k] = value_id;
	/* Its array is looked up in the cache when it settles, a few arrays
	 * later: fetch the set's line now (a cache miss was ~5% of the time). */
	if (r->cache)
		__builtin_prefetch(cache_set(r, value_id), 0);
	return HF_OK;
}

/* ---- instances ------------------------------------------------------------ */

#define SPOOL_HDR 36
static hf_status spool_instance(reader *r, uint64_t obj, uint64_t cls, const uint8_t *data,
                                uint32_t n, uint64_t off)
{
	uint8_t hdr[SPOOL_HDR];
	memcpy(hdr, &obj, 8);
	memcpy(hdr + 8, &cls, 8);
	memcpy(hdr + 16, &off, 8);
	memcpy(hdr + 24, &r->heap, 4);
	memcpy(hdr + 28, &r->dump, 4);
	memcpy(hdr + 32, &n, 4);
	size_t limit = r->opt->spool_memory ? r->opt->spool_memory : DEFAULT_SPOOL_MEMORY;
	if (!r->spool_file && r->spool.len + sizeof hdr + n > limit) {
		r->spool_file = hf_tmpfile();
		if (!r->spool_file)
			return tmp_io(r, "deferred instances");
	}
	if (r->spool_file) {
		if (r->spool.len) {
			if (fwrite(r->spool.data, 1, r->spool.len, r->spool_file) != r->spool.len)
				return tmp_io(r, "deferred instances");
			r->spool.len = 0;
		}
		if (fwrite(hdr, 1, sizeof hdr, r->spool_file) != sizeof hdr ||
		    (n && fwrite(data, 1, n, r->spool_file) != n))
			return tmp_io(r, "deferred instances");
	} else if (!hf_buf_append(&r->spool, hdr, sizeof hdr) || !hf_buf_append(&r->spool, data, n)) {
		return nomem(r);
	}
	r->spool_count++;
	r->stats->deferred_instances++;
	return HF_OK;
}

/* The values text of an instance or a class that would pass the limit (see
 * json_prims): the node goes without it.  The names of its fields make the
 * text, and a name can be long: 65,535 statics named by one UTF8 record of
 * 16 KB make 1 GB of text from a class dump of 800 KB. */
static hf_status object_values_omitted(reader *r, hf_buf *b, uint64_t off, const char *what, uint64_t id,
                                       size_t all)
{
	hf_buf_free(b);
	r->stats->values_omitted++;
	if (all)
		return warn(r, off, "%s 0x%" PRIx64 " written without its values: with those of the dump's other"
		            " classes, which wait for its end, their JSON text would pass %zu bytes", what, id, all);
	return warn(r, off, "%s 0x%" PRIx64 " written without its values: their JSON text would pass the values"
	            " limit of %zu bytes", what, id, r->values_limit);
}

size_t hf_hprof_test_class_values;

static hf_status emit_instance(reader *r, uint64_t obj, uint64_t cls, const uint8_t *data,
                               uint32_t n, uint32_t heap, int final, uint64_t off)
{
	class_info *c = class_get(r, cls);
	int lay = c ? class_layout(r, c) : 0;
	if (lay == 0 && !final)
		return spool_instance(r, obj, cls, data, n, off);
	hf_status st;
	hf_value v[2];
	vals_none(v, 2);
	uint64_t size = 0;
	int fields_ok = lay == 1 && n == c->total;
	if (lay == 1 && !fields_ok) {
		st = warn(r, off, "instance 0x%" PRIx64 " has %u field bytes but its class chain declares %u; fields not decoded",
		          obj, n, c->total);
		if (st)
			return st;
	} else if (lay == -1) {
		st = warn(r, off, "class 0x%" PRIx64 " has a superclass cycle or a chain deeper than %d", cls, MAX_CLASS_CHAIN);
		if (st)
			return st;
	} else if (lay == -2) {
		st = warn(r, off, "class 0x%" PRIx64 " not laid out: the classes' flattened fields would pass %" PRIu64
		          " at input byte %" PRIu64 "; fields not decoded", cls, r->flat_fields, hf_input_offset(r->in));
		if (st)
			return st;
	} else if (lay == -3) {
		st = warn(r, off, "class 0x%" PRIx64 " not laid out: the work on class chains passed %" PRIu64
		          " steps at input byte %" PRIu64 " (the same chains walked or built again and again); fields not decoded",
		          cls, r->chain_work, hf_input_offset(r->in));
		if (st)
			return st;
	} else if (lay == 0) {
		st = warn(r, off, "instance 0x%" PRIx64 " of class 0x%" PRIx64 " whose class dump (or a superclass's) is missing; fields not decoded",
		          obj, cls);
		if (st)
			return st;
	}
	if (lay == 1)
		size = c->shallow;
	else if (!r->android)
		size = align_obj(r, r->obj_header + n);
	else
		size = n;
	if (fields_ok) {
		edge_batch b;
		batch_start(&b, &hprof_edge_field, obj);
		for (uint32_t i = 0; i < c->nrefs; i++) {
			uint64_t ref = hf_beid(data + c->refs[i].offset, r->idsize);
			if (ref && (st = batch_add(r, &b, ref, c->refs[i].name)))
				return st;
		}
		if ((st = batch_flush(r, &b)))
			return st;
		if (r->opt->values) {
			hf_buf *b = &r->json;
			b->len = 0;
			bool ok = hf_buf_append(b, "{", 1);
			int first = 1, over = 0;
			for (uint32_t i = 0; i < c->nflat && ok && !over; i++) {
				const flat_field *f = &c->flat[i];
				if (f->type == T_OBJECT || f->shadowed)
					continue;
				over = key_min(r, f->hname) >= r->values_limit - b->len;
				if (over)
					break;
				ok = (first || hf_buf_append(b, ",", 1)) && json_key_name(r, b, f->hname) &&
				     hf_buf_append(b, ":", 1) && json_prim(b, f->type, data + f->offset);
				first = 0;
				over = b->len >= r->values_limit;
			}
			if (!ok)
				return nomem(r);
			if (over) {
				if ((st = object_values_omitted(r, b, off, "instance", obj, 0)))
					return st;
			} else {
				if (!hf_buf_append(b, "}", 1))
					return nomem(r);
				val_text(&v[1], (const char *)b->data, b->len);
			}
		}
		if (c->is_string && c->str_value >= 0) {
			uint64_t value = hf_beid(data + c->flat[c->str_value].offset, r->idsize);
			if (value) {
				pending_string ps = { r->next_sid++, -1, -1, -1, UINT32_MAX, r->dump,
				                      obj, cls, size, heap, NULL, 0 };
				if (c->str_coder >= 0)
					ps.coder = data[c->flat[c->str_coder].offset];
				if (c->str_offset >= 0)
					ps.offset = (int32_t)hf_be32(data + c->flat[c->str_offset].offset);
				if (c->str_count >= 0)
					ps.count = (int32_t)hf_be32(data + c->flat[c->str_count].offset);
				if (ps.offset < 0 && c->str_offset >= 0) ps.offset = 0;
				if (ps.count < 0 && c->str_count >= 0) ps.count = 0;
				if (v[1].present) {
					ps.values = (char *)v[1].s;
					ps.values_len = v[1].n;
				}
				/* The node is written with its text. */
				return string_text(r, value, ps);
			}
		}
	}
	r->stats->instances++;
	hf_node node = { &hprof_node_instance, obj, r->dump, cls, size, heap, v };
	return hf_sink_node(r->sink, &node, r->err);
}

/* Decodes every deferred instance of the dump that just ended. */
static hf_status replay_spool(reader *r)
{
	if (!r->spool_count)
		return HF_OK;
	hf_status st = HF_OK;
	uint32_t saved_dump = r->dump, saved_heap = r->heap;
	if (r->spool_file) {
		if (r->spool.len && fwrite(r->spool.data, 1, r->spool.len, r->spool_file) != r->spool.len)
			return tmp_io(r, "deferred instances");
		r->spool.len = 0;
		rewind(r->spool_file);
		uint8_t hdr[SPOOL_HDR];
		hf_buf data;
		hf_buf_init(&data);
		for (uint64_t i = 0; i < r->spool_count && !st; i++) {
			uint64_t obj, cls, off;
			uint32_t n;
			if (fread(hdr, 1, sizeof hdr, r->spool_file) != sizeof hdr) {
				st = hf_error_set(r->err, HF_ERR_IO, "cannot read the temporary file of deferred instances");
				break;
			}
			memcpy(&obj, hdr, 8);
			memcpy(&cls, hdr + 8, 8);
			memcpy(&off, hdr + 16, 8);
			memcpy(&r->heap, hdr + 24, 4);
			memcpy(&r->dump, hdr + 28, 4);
			memcpy(&n, hdr + 32, 4);
			data.len = 0;
			if (!hf_buf_reserve(&data, n)) {
				st = nomem(r);
				break;
			}
			if (n && fread(data.data, 1, n, r->spool_file) != n) {
				st = hf_error_set(r->err, HF_ERR_IO, "cannot read the temporary file of deferred instances");
				break;
			}
			st = emit_instance(r, obj, cls, data.data, n, r->heap, 1, off);
		}
		hf_buf_free(&data);
		fclose(r->spool_file);
		r->spool_file = NULL;
	} else {
		size_t p = 0;
		while (p + SPOOL_HDR <= r->spool.len && !st) {
			uint64_t obj, cls, off;
			uint32_t n;
			const uint8_t *hdr = r->spool.data + p;
			memcpy(&obj, hdr, 8);
			memcpy(&cls, hdr + 8, 8);
			memcpy(&off, hdr + 16, 8);
			memcpy(&r->heap, hdr + 24, 4);
			memcpy(&r->dump, hdr + 28, 4);
			memcpy(&n, hdr + 32, 4);
			st = emit_instance(r, obj, cls, hdr + SPOOL_HDR, n, r->heap, 1, off);
			p += SPOOL_HDR + (size_t)n;
		}
		r->spool.len = 0;
	}
	r->spool_count = 0;
	r->dump = saved_dump;
	r->heap = saved_heap;
	return st;
}

/* ---- class nodes ---------------------------------------------------------- */

/* Writes the class nodes of the dump that ends, now that every class of it,
 * java.lang.Class and its superclasses included, is known. */
static hf_status flush_class_nodes(reader *r)
{
	hf_status st = HF_OK;
	size_t n = r->pending_classes.len / sizeof(pending_class);
	class_info *jlc = r->class_class ? class_get(r, r->class_class) : NULL;
	int jlc_ok = jlc && class_layout(r, jlc) == 1;
	for (size_t i = 0; i < n && !st; i++) {
		pending_class pc;
		memcpy(&pc, r->pending_classes.data + i * sizeof pc, sizeof pc);
		uint64_t size = pc.static_bytes;
		if (r->android) {
			if (!pc.has_class_pseudo && jlc && jlc->dumped)
				size += jlc->instance_size;
		} else if (jlc_ok) {
			size = align_obj(r, jlc->shallow + pc.static_bytes);
		} else {
			size = align_obj(r, r->obj_header + pc.static_bytes);
		}
		hf_value v[9];
		memset(v, 0, sizeof v);
		uint64_t *hname = hf_map_get(&r->class_name, pc.id);
		if (hname) {
			val_u(&v[0], name_sid(r, *hname));
			uint64_t *jn = hf_map_get(&r->class_java_name, pc.id);
			if (jn)
				val_u(&v[1], *jn);
		}
		val_u(&v[2], pc.super);
		val_u(&v[3], pc.loader);
		val_int(&v[4], pc.isize);
		uint64_t *serial = hf_map_get(&r->class_serial, pc.id);
		if (serial)
			val_int(&v[5], (int64_t)*serial);
		val_int(&v[6], pc.nst);
		val_int(&v[7], pc.nif);
		if (pc.values_off >= 0)
			val_text(&v[8], (const char *)r->class_values.data + pc.values_off, (size_t)pc.values_len);
		r->stats->classes++;
		hf_node node = { &hprof_node_class, pc.id, r->dump, r->class_class, size, pc.heap, v };
		st = hf_sink_node(r->sink, &node, r->err);
	}
	r->pending_classes.len = 0;
	r->class_values.len = 0;
	return st;
}

/* ---- dumps ----------------------------------------------------------------- */

static void dump_open(reader *r)
{
	if (r->dump_open)
		return;
	r->dump_open = 1;
	r->heap = 0;
	r->emit = !r->rescan &&
	          (r->opt->dump_index < 0 || (uint64_t)r->opt->dump_index == r->dump);
}

static hf_status dump_close(reader *r)
{
	if (!r->dump_open)
		return HF_OK;
	hf_status st = r->spool_lost ? unpark_to_memory(r) : HF_OK;
	if (!st)
		st = flush_class_nodes(r);
	if (st)
		return st;
	st = replay_spool(r);
	if (st)
		return st;
	if ((st = fresh_settle_all(r)))
		return st;
	/* Strings still waiting: their array came before them and left the
	 * cache, or was never dumped.  A second pass may find them (late). */
	for (size_t i = 0; i < r->pending_map.cap; i++) {
		hf_map_slot *sl = &r->pending_map.slots[i];
		if (sl->key == HF_MAP_EMPTY)
			continue;
		/* After the earlier dumps' Strings of the same array, so that the
		 * chain stays in the order of the dumps. */
		uint64_t chain = sl->val;
		uint64_t *late = hf_map_get(&r->late_map, sl->key);
		if (late) {
			r->pending[(uint32_t)(*late >> 32)].next = (uint32_t)chain;
			chain = (uint32_t)*late | (chain >> 32) << 32;
		}
		if (!filter_add(r, &r->late_bits, sl->key) || !hf_map_put(&r->late_map, sl->key, chain))
			return nomem(r);
	}
	/* A value id equal to the map's sentinel: cannot wait for it. */
	if (r->pending_map.has_empty_key &&
	    (st = finish_chain_without_text(r, (uint32_t)r->pending_map.empty_key_val)))
		return st;
	hf_map_free(&r->pending_map);
	/* (Only when a String waited in this dump: clearing the 1 MiB filter at
	 * every end of a dump took 97 % of the time of a file of 100,000 small
	 * dumps, 2.7 MB: 6.3 s.) */
	if (r->pending_puts)
		filter_clear(&r->pending_bits);
	r->pending_puts = 0;
	/* Cached arrays belong to this dump: a later dump may reuse their ids. */
	cache_clear(r);
	r->last_text_array = 0;
	r->tix_dump_first = r->tix_flushed + r->tix_n;
	r->dump_open = 0;
	r->dump_segmented = 0;
	r->dump++;
	if (!r->rescan)
		r->stats->dumps++;
	return HF_OK;
}

/* ---- heap-dump sub-records --------------------------------------------------- */

static hf_status wrap(reader *r, heap_ctx *h, uint64_t n);

/* need's rare case: n bytes run past the record's declared end.  Apart, so
 * that need stays small enough to be inlined (with wrap's call in it, it
 * was not, and the reading took 1.6 % more instructions). */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static hf_status need_past_end(reader *r, heap_ctx *h, uint64_t start, int sub, size_t n)
{
	hf_status st = wrap(r, h, n);
	if (st || n <= h->left)
		return st;
	return fail(r, HF_ERR_FORMAT, start, h->tag, sub,
	            "needs %zu bytes but only %" PRIu64 " remain in the record", n, h->left);
}

/* Peeks exactly n bytes of the current sub-record; of the elements of the
 * array *array when it is given (a piece of them, maybe: a file that ends
 * first is said to end inside the elements, not to be short of the piece). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static hf_status need_slow(reader *r, heap_ctx *h, uint64_t start, int sub, size_t n,
                           const uint8_t **p, const uint64_t *array)
{
	hf_status st;
	if (n > h->left && (st = need_past_end(r, h, start, sub, n)))
		return st;
	size_t avail;
	if ((st = hf_input_peek(r->in, n, p, &avail, r->err)))
		return st;
	if (avail < n && array)
		return fail(r, HF_ERR_TRUNCATED, start, h->tag, sub,
		            "the file ends inside the elements of array 0x%" PRIx64, *array);
	if (avail < n)
		return fail(r, HF_ERR_TRUNCATED, start, h->tag, sub,
		            "the file ends inside this sub-record (needs %zu bytes, %zu left)", n, avail);
	return HF_OK;
}

/* need_slow's usual case inline: the bytes in the record and the window. */
static inline hf_status need_of(reader *r, heap_ctx *h, uint64_t start, int sub, size_t n,
                                const uint8_t **p, const uint64_t *array)
{
	if (n <= h->left && hf_input_window(r->in, n, p))
		return HF_OK;
	return need_slow(r, h, start, sub, n, p, array);
}

static inline hf_status need(reader *r, heap_ctx *h, uint64_t start, int sub, size_t n,
                             const uint8_t **p)
{
	return need_of(r, h, start, sub, n, p, NULL);
}

static inline void take(reader *r, heap_ctx *h, size_t n)
{
	hf_input_take(r->in, n);
	h->left -= n;
}

static hf_status class_dump(reader *r, heap_ctx *h, uint64_t start)
{
	const unsigned I = r->idsize;
	/* A class dump is at most ~2.5 MB (three u2-counted lists): peek it all. */
	uint64_t want;
	const uint8_t *p;
	size_t avail;
	hf_status st;
	class_shape k;
	for (;;) {
		/* Damage further on (a gzip stream cut short) is met by the sub-
		 * records before it first: only what this class dump needs. */
		want = h->left < ((uint64_t)4 << 20) ? h->left : ((uint64_t)4 << 20);
		if ((st = hf_input_peek_some(r->in, (size_t)want, &p, &avail, r->err)))
			return st;
		int cut = avail >= h->left; /* by the record's end (wrap looks further) */
		if (avail > h->left)
			avail = (size_t)h->left;
		class_shape_of(r, p, avail, &k);
		uint64_t left = h->left;
		if (k.bad != SHAPE_SHORT || !cut || (st = wrap(r, h, left + 1)) || h->left == left)
			break;
	}
	if (st)
		return st;
	if (k.bad == SHAPE_SHORT && avail < want) {
		/* The input's own failure there, if it failed rather than ended. */
		if ((st = hf_input_peek(r->in, (size_t)want, &p, &avail, r->err)))
			return st;
		return fail(r, HF_ERR_TRUNCATED, start, h->tag, SUB_CLASS_DUMP,
		            "the file ends inside this class dump");
	}
	if (k.bad == SHAPE_SHORT)
		return fail(r, HF_ERR_FORMAT, start, h->tag, SUB_CLASS_DUMP,
		            "the class dump runs past the end of its record");
	if (k.bad == SHAPE_BAD_TYPE) {
		static const char *const list[] = { "constant-pool entry", "static field", "instance field" };
		return fail(r, HF_ERR_FORMAT, start, h->tag, SUB_CLASS_DUMP, "%s %u has invalid basic type %u",
		            list[k.bad_list], k.bad_index, k.bad_type);
	}
	uint64_t id = hf_beid(p, I);
	uint64_t super = hf_beid(p + I + 4, I);
	uint64_t loader = hf_beid(p + 2 * I + 4, I);
	uint64_t signers = hf_beid(p + 3 * I + 4, I);
	uint64_t domain = hf_beid(p + 4 * I + 4, I);
	uint32_t isize = hf_be32(p + 7 * I + 4);
	uint16_t ncp = k.ncp, nst = k.nst, nif = k.nif;
	size_t cp_start = 7 * I + 10, st_start = k.st_start, if_start = k.if_start, q = k.len;

	class_info *c = class_new(r, id);
	if (!c)
		return nomem(r);
	c->super = super;
	c->loader = loader;
	c->instance_size = isize;
	c->dumped = 1;
	c->nfields = nif;
	if (nif) {
		c->fields = malloc(nif * sizeof *c->fields);
		if (!c->fields)
			return nomem(r);
		for (uint16_t i = 0; i < nif; i++) {
			c->fields[i].name = hf_beid(p + if_start + i * (I + 1), I);
			c->fields[i].type = p[if_start + i * (I + 1) + I];
		}
	}
	c->is_string = id == r->string_class;
	/* Layouts of subclasses computed before cannot exist (layout needs this
	 * class), but a class dumped twice resets its own. */

	if (!r->emit)
		goto done;
	/* Static and constant-pool references. */
	uint64_t static_bytes = 0;
	int has_class_pseudo = 0;
	size_t s = st_start;
	for (uint16_t i = 0; i < nst; i++) {
		uint64_t fname = hf_beid(p + s, I);
		unsigned t = p[s + I];
		if (t == T_OBJECT) {
			uint64_t ref = hf_beid(p + s + I + 1, I);
			if (ref && (st = edge(r, &hprof_edge_static, id, ref, name_sid(r, fname))))
				return st;
		}
		static_bytes += t == T_OBJECT ? r->oop : type_size(r, t);
		const name_entry *e = name_get(r, fname);
		if (e && e->len > 7 && !memcmp(r->name_arena.data + e->off, "$class$", 7))
			has_class_pseudo = 1;
		s += I + 1 + type_size(r, t);
	}
	s = cp_start;
	for (uint16_t i = 0; i < ncp; i++) {
		uint16_t idx = hf_be16(p + s);
		unsigned t = p[s + 2];
		if (t == T_OBJECT) {
			uint64_t ref = hf_beid(p + s + 3, I);
			if (ref && (st = edge(r, &hprof_edge_cpool, id, ref, idx)))
				return st;
		}
		s += 3 + type_size(r, t);
	}
	if (super && (st = edge(r, &hprof_edge_super, id, super, 0)))
		return st;
	if (loader && (st = edge(r, &hprof_edge_loader, id, loader, 0)))
		return st;
	if (signers && (st = edge(r, &hprof_edge_signers, id, signers, 0)))
		return st;
	if (domain && (st = edge(r, &hprof_edge_domain, id, domain, 0)))
		return st;

	/* The class node: written when the dump ends (see pending_class). */
	pending_class pc = { id, super, loader, static_bytes, isize, r->heap, nst, nif,
	                     has_class_pseudo, -1, 0 };
	if (r->opt->values) {
		/* The classes' texts wait for the end of the dump together: they
		 * have a limit in all too, the larger of the default and the
		 * limit for one. */
		size_t all = r->values_limit > HF_VALUES_LIMIT_DEFAULT ? r->values_limit : HF_VALUES_LIMIT_DEFAULT;
		if (hf_hprof_test_class_values)
			all = hf_hprof_test_class_values;
		size_t left = all > r->class_values.len ? all - r->class_values.len : 0;
		size_t room = left < r->values_limit ? left : r->values_limit;
		hf_buf *b = &r->json;
		b->len = 0;
		bool ok = hf_buf_append(b, "{", 1);
		int first = 1, over = 0;
		s = st_start;
		for (uint16_t i = 0; i < nst && ok && !over && b->len < room; i++) {
			uint64_t fname = hf_beid(p + s, I);
			unsigned t = p[s + I];
			if (t != T_OBJECT && (over = key_min(r, fname) >= room - b->len))
				break;
			if (t != T_OBJECT) {
				ok = (first || hf_buf_append(b, ",", 1)) && json_key_name(r, b, fname) &&
				     hf_buf_append(b, ":", 1) && json_prim(b, t, p + s + I + 1);
				first = 0;
			}
			s += I + 1 + type_size(r, t);
		}
		s = cp_start;
		for (uint16_t i = 0; i < ncp && ok && !over && b->len < room; i++) {
			unsigned t = p[s + 2];
			if (t != T_OBJECT) {
				ok = (first || hf_buf_append(b, ",", 1)) &&
				     hf_buf_printf(b, "\"#%u\":", hf_be16(p + s)) && json_prim(b, t, p + s + 3);
				first = 0;
			}
			s += 3 + type_size(r, t);
		}
		if (!ok)
			return nomem(r);
		if (over || b->len >= room) {
			if ((st = object_values_omitted(r, b, start, "class", id, room < r->values_limit ? all : 0)))
				return st;
		} else {
			if (!hf_buf_append(b, "}", 1))
				return nomem(r);
			pc.values_off = (int64_t)r->class_values.len;
			pc.values_len = b->len;
			if (!hf_buf_append(&r->class_values, b->data, b->len))
				return nomem(r);
		}
	}
	if (!hf_buf_append(&r->pending_classes, &pc, sizeof pc))
		return nomem(r);

	if (!c->fields_emitted) {
		c->fields_emitted = 1;
		s = st_start;
		for (uint16_t i = 0; i < nst; i++) {
			unsigned t = p[s + I];
			vals_clear(r, 5);
			val_u(&r->vals[0], id);
			val_int(&r->vals[1], i);
			val_int(&r->vals[2], 1);
			val_u(&r->vals[3], name_sid(r, hf_beid(p + s, I)));
			val_text(&r->vals[4], type_names[t], strlen(type_names[t]));
			hf_record rec = { &hprof_rec_class_field, r->vals };
			if ((st = hf_sink_record(r->sink, &rec, r->err)))
				return st;
			s += I + 1 + type_size(r, t);
		}
		for (uint16_t i = 0; i < nif; i++) {
			unsigned t = c->fields[i].type;
			vals_clear(r, 5);
			val_u(&r->vals[0], id);
			val_int(&r->vals[1], i);
			val_int(&r->vals[2], 0);
			val_u(&r->vals[3], name_sid(r, c->fields[i].name));
			val_text(&r->vals[4], type_names[t], strlen(type_names[t]));
			hf_record rec = { &hprof_rec_class_field, r->vals };
			if ((st = hf_sink_record(r->sink, &rec, r->err)))
				return st;
		}
	}
done:
	take(r, h, q);
	return HF_OK;
}

static hf_status instance_dump(reader *r, heap_ctx *h, uint64_t start)
{
	const unsigned I = r->idsize;
	const uint8_t *p;
	hf_status st = need(r, h, start, SUB_INSTANCE_DUMP, 2 * I + 8, &p);
	if (st)
		return st;
	uint64_t obj = hf_beid(p, I);
	uint64_t cls = hf_beid(p + I + 4, I);
	uint32_t n = hf_be32(p + 2 * I + 4);
	if ((uint64_t)n > h->left - (2 * I + 8) && (size_t)n + 2 * I + 8 <= HF_INPUT_MAX_PEEK &&
	    (st = wrap(r, h, 2 * I + 8 + (uint64_t)n)))
		return st;
	if ((uint64_t)n > h->left - (2 * I + 8))
		return fail(r, HF_ERR_FORMAT, start, h->tag, SUB_INSTANCE_DUMP,
		            "instance 0x%" PRIx64 " declares %u field bytes but only %" PRIu64 " remain in the record",
		            obj, n, h->left - (2 * I + 8));
	if ((size_t)n + 2 * I + 8 > HF_INPUT_MAX_PEEK)
		return fail(r, HF_ERR_LIMIT, start, h->tag, SUB_INSTANCE_DUMP,
		            "instance 0x%" PRIx64 " declares %u field bytes, more than any class can have", obj, n);
	if ((st = need(r, h, start, SUB_INSTANCE_DUMP, 2 * I + 8 + (size_t)n, &p)))
		return st;
	if (r->emit && (st = emit_instance(r, obj, cls, p + 2 * I + 8, n, r->heap, 0, start)))
		return st;
	take(r, h, 2 * I + 8 + (size_t)n);
	return HF_OK;
}

static hf_status object_array_dump(reader *r, heap_ctx *h, uint64_t start)
{
	const unsigned I = r->idsize;
	const uint8_t *p;
	hf_status st = need(r, h, start, SUB_OBJECT_ARRAY_DUMP, 2 * I + 8, &p);
	if (st)
		return st;
	uint64_t obj = hf_beid(p, I);
	uint32_t count = hf_be32(p + I + 4);
	uint64_t cls = hf_beid(p + I + 8, I);
	uint64_t bytes = (uint64_t)count * I;
	if (bytes > h->left - (2 * I + 8) && (st = wrap(r, h, 2 * I + 8 + bytes)))
		return st;
	if (bytes > h->left - (2 * I + 8))
		return fail(r, HF_ERR_FORMAT, start, h->tag, SUB_OBJECT_ARRAY_DUMP,
		            "array 0x%" PRIx64 " declares %u elements (%" PRIu64 " bytes) but only %" PRIu64 " remain in the record",
		            obj, count, bytes, h->left - (2 * I + 8));
	take(r, h, 2 * I + 8);
	uint64_t i = 0;
	while (i < count) {
		uint64_t chunk = count - i;
		if (chunk > 65536)
			chunk = 65536;
		if ((st = need_of(r, h, start, SUB_OBJECT_ARRAY_DUMP, (size_t)(chunk * I), &p, &obj)))
			return st;
		if (r->emit) {
			edge_batch b;
			batch_start(&b, &hprof_edge_element, obj);
			for (uint64_t k = 0; k < chunk; k++) {
				uint64_t ref = hf_beid(p + k * I, I);
				if (ref && (st = batch_add(r, &b, ref, i + k)))
					return st;
			}
			if ((st = batch_flush(r, &b)))
				return st;
		}
		take(r, h, (size_t)(chunk * I));
		i += chunk;
	}
	if (!r->emit)
		return HF_OK;
	hf_value v[1];
	memset(v, 0, sizeof v);
	val_int(&v[0], count);
	r->stats->object_arrays++;
	hf_node node = { &hprof_node_objarray, obj, r->dump, cls, array_size(r, count, r->oop),
	                 r->heap, v };
	return hf_sink_node(r->sink, &node, r->err);
}

static bool tix_add(reader *r, uint64_t id, uint64_t start, unsigned tag, uint32_t count, unsigned t);
static void tspool_put(reader *r, const void *p, size_t n);

/*
 * The values of n elements at p, appended to an array's JSON text in js (a
 * comma first unless they are its first).  1 when done, 0 out of memory,
 * -1 when the text (with its closing bracket) would pass r->values_limit:
 * it is then dropped and its memory given back, so that an array of a
 * billion elements costs no more than the limit (about twice that while the
 * text grows) instead of 2 to 25 bytes an element.
 */
static int json_prims(reader *r, hf_buf *js, unsigned t, const uint8_t *p, uint64_t n,
                      unsigned esz, int first)
{
	for (uint64_t k = 0; k < n; k++) {
		if (((!first || k) && !hf_buf_append(js, ",", 1)) || !json_prim(js, t, p + k * esz))
			return 0;
		if (js->len >= r->values_limit) {
			hf_buf_free(js);
			return -1;
		}
	}
	return 1;
}

/* A values text past the limit: the array's node goes without it. */
static hf_status values_omitted(reader *r, uint64_t start, uint64_t obj, uint32_t count, unsigned t)
{
	r->stats->values_omitted++;
	return warn(r, start, "array 0x%" PRIx64 " of %" PRIu32 " %s elements written without its values:"
	            " their JSON text would pass the values limit of %zu bytes",
	            obj, count, type_names[t], r->values_limit);
}

static hf_status primitive_array_dump(reader *r, heap_ctx *h, uint64_t start, int nodata)
{
	const unsigned I = r->idsize;
	const int sub = nodata ? SUB_PRIMITIVE_ARRAY_NODATA : SUB_PRIMITIVE_ARRAY_DUMP;
	const uint8_t *p;
	hf_status st = need(r, h, start, sub, I + 9, &p);
	if (st)
		return st;
	uint64_t obj = hf_beid(p, I);
	uint32_t count = hf_be32(p + I + 4);
	unsigned t = p[I + 8];
	unsigned esz = (t == T_OBJECT) ? 0 : type_size(r, t);
	if (!esz)
		return fail(r, HF_ERR_FORMAT, start, h->tag, sub,
		            "array 0x%" PRIx64 " has invalid element type %u", obj, t);
	if ((t == T_CHAR || t == T_BYTE) && r->cache)
		__builtin_prefetch(cache_set(r, obj), 1);
	uint64_t bytes = nodata ? 0 : (uint64_t)count * esz;
	if (bytes > h->left - (I + 9) && (st = wrap(r, h, I + 9 + bytes)))
		return st;
	if (bytes > h->left - (I + 9))
		return fail(r, HF_ERR_FORMAT, start, h->tag, sub,
		            "array 0x%" PRIx64 " declares %u %s elements (%" PRIu64 " bytes) but only %" PRIu64 " remain in the record",
		            obj, count, type_names[t], bytes, h->left - (I + 9));
	take(r, h, I + 9);
	bool spooled = false; /* its elements go to the text spool */
	if (t == T_CHAR || t == T_BYTE) {
		note_array_id(r, obj);
		if (!r->rescan) {
			if (!nodata && bytes <= HF_INPUT_MAX_PEEK)
				spooled = tix_add(r, obj, start, h->tag, count, t);
			r->text_arrays++;
			r->text_array_descents += obj < r->last_text_array;
			r->last_text_array = obj;
			if (r->spool_lost && (st = unpark_to_memory(r)))
				return st;
		}
	}
	if (r->rescan) {
		uint64_t skipped;
		if ((t == T_CHAR || t == T_BYTE) && !nodata && bytes <= HF_INPUT_MAX_PEEK &&
		    filter_may_have(r, &r->late_bits, obj) &&
		    (r->late_refs ? ref_find(r, obj, r->dump) != SIZE_MAX : hf_map_get(&r->late_map, obj) != NULL)) {
			if ((st = need_of(r, h, start, sub, (size_t)bytes, &p, &obj)))
				return st;
			if ((st = resolve_late(r, obj, t, p, count)))
				return st;
			take(r, h, (size_t)bytes);
			return HF_OK;
		}
		if ((st = hf_input_skip(r->in, bytes, &skipped, r->err)))
			return st;
		if (skipped < bytes)
			return fail(r, HF_ERR_TRUNCATED, start, h->tag, sub,
			            "the file ends inside the elements of array 0x%" PRIx64, obj);
		h->left -= bytes;
		return HF_OK;
	}
	/* A NODATA array (Android 0xC3) has unknown contents: it gives a
	 * String no text, and the Strings waiting for it stay unresolved. */
	int is_text = (t == T_CHAR || t == T_BYTE) && r->emit && !nodata;
	int want_values = r->opt->values && r->emit && !nodata;
	/* At least a character an element and a comma between: "[1,2]". */
	int omit = want_values && (count ? (uint64_t)count * 2 + 1 : 2) > r->values_limit;
	if (omit)
		want_values = 0;
	int fresh = is_text && fresh_has(r, obj);
	int waiting = is_text && filter_may_have(r, &r->pending_bits, obj) &&
	              hf_map_get(&r->pending_map, obj) != NULL;
	if (is_text && !fresh && r->nfresh && (st = fresh_settle_oldest(r)))
		return st;
	/* (The String settled above does not use this array: none of the
	 * fresh ones does.) */
	int pending = waiting || fresh;
	size_t cache_limit = r->cache_cap / 16;
	int whole = is_text && (pending || bytes <= cache_limit);
	hf_buf *js = &r->json;
	js->len = 0;
	if (want_values && !hf_buf_append(js, "[", 1))
		return nomem(r);
	if (whole && bytes <= HF_INPUT_MAX_PEEK) {
		if ((st = need_of(r, h, start, sub, (size_t)bytes, &p, &obj)))
			return st;
		if (spooled)
			tspool_put(r, p, (size_t)bytes);
		if (fresh && (st = fresh_resolve(r, obj, t, p, count)))
			return st;
		if (waiting && (st = resolve_pending(r, obj, t, p, count)))
			return st;
		cache_put(r, obj, t, p, (size_t)bytes);
		if (want_values) {
			int ok = json_prims(r, js, t, p, count, esz, 1);
			if (!ok)
				return nomem(r);
			if (ok < 0)
				want_values = 0, omit = 1;
		}
		take(r, h, (size_t)bytes);
	} else if (want_values || (pending && bytes > HF_INPUT_MAX_PEEK)) {
		/* Stream the contents in pieces. */
		uint64_t done = 0;
		/* A String whose array is larger than one peek: decode from a copy,
		 * which grows as the elements are read (the count is only a claim
		 * until they are there). */
		r->tmp.len = 0;
		while (done < bytes) {
			uint64_t chunk = bytes - done;
			if (chunk > ((uint64_t)1 << 20))
				chunk = (uint64_t)1 << 20;
			chunk -= chunk % esz;
			if ((st = need_of(r, h, start, sub, (size_t)chunk, &p, &obj)))
				return st;
			if (spooled)
				tspool_put(r, p, (size_t)chunk);
			if (want_values) {
				int ok = json_prims(r, js, t, p, chunk / esz, esz, !done);
				if (!ok)
					return nomem(r);
				if (ok < 0)
					want_values = 0, omit = 1;
			}
			if (pending && !hf_buf_append(&r->tmp, p, (size_t)chunk))
				return nomem(r);
			take(r, h, (size_t)chunk);
			done += chunk;
		}
		if (fresh && (st = fresh_resolve(r, obj, t, r->tmp.data, count)))
			return st;
		if (waiting && (st = resolve_pending(r, obj, t, r->tmp.data, count)))
			return st;
	} else if (spooled) {
		for (uint64_t done = 0; done < bytes;) {
			size_t chunk = bytes - done < ((uint64_t)1 << 20) ? (size_t)(bytes - done) : (size_t)1 << 20;
			if ((st = need_of(r, h, start, sub, chunk, &p, &obj)))
				return st;
			tspool_put(r, p, chunk);
			take(r, h, chunk);
			done += chunk;
		}
	} else {
		uint64_t skipped;
		if ((st = hf_input_skip(r->in, bytes, &skipped, r->err)))
			return st;
		if (skipped < bytes)
			return fail(r, HF_ERR_TRUNCATED, start, h->tag, sub,
			            "the file ends inside the elements of array 0x%" PRIx64, obj);
		h->left -= bytes;
	}
	if (!r->emit)
		return HF_OK;
	if (omit && (st = values_omitted(r, start, obj, count, t)))
		return st;
	hf_value v[4];
	vals_none(v, 4);
	val_int(&v[0], count);
	val_text(&v[1], type_names[t], strlen(type_names[t]));
	if (nodata)
		val_int(&v[2], 1);
	if (want_values) {
		if (!hf_buf_append(js, "]", 1))
			return nomem(r);
		val_text(&v[3], (const char *)js->data, js->len);
	}
	r->stats->primitive_arrays++;
	hf_node node = { &hprof_node_primarray, obj, r->dump, r->prim_array_class[t],
	                 array_size(r, count, esz), r->heap, v };
	st = hf_sink_node(r->sink, &node, r->err);
	/* A large array's text is not kept to the end of the run. */
	if (js->cap > ((size_t)4 << 20))
		hf_buf_free(js);
	return st;
}

static void progress(reader *r)
{
	if (!r->opt->progress)
		return;
	/* Throttled on bytes parsed (decompressed); reported as the share of
	 * the file read, which is what a total is known for. */
	uint64_t parsed = hf_input_offset(r->in);
	if (parsed - r->last_progress < ((uint64_t)16 << 20))
		return;
	r->last_progress = parsed;
	r->opt->progress(r->opt->progress_ctx, hf_input_raw_offset(r->in), hf_input_raw_size(r->in));
}

/* The body length a record of this tag must have, from the first `have`
 * bytes of its body (the counts of TRACE, ALLOC SITES and CPU SAMPLES; while
 * those are not seen, the fixed part before them); 0: any (UTF8, the heap
 * dumps, tags this reader does not know). */
static uint64_t record_length(unsigned tag, unsigned I, const uint8_t *b, uint64_t have)
{
	switch (tag) {
	case TAG_LOAD_CLASS: return 8 + 2 * (uint64_t)I;
	case TAG_UNLOAD_CLASS: case TAG_END_THREAD: return 4;
	case TAG_FRAME: return 4 * (uint64_t)I + 8;
	case TAG_TRACE: return have < 12 ? 12 : 12 + (uint64_t)hf_be32(b + 8) * I;
	case TAG_START_THREAD: return 8 + 4 * (uint64_t)I;
	case TAG_ALLOC_SITES: return have < 34 ? 34 : 34 + (uint64_t)hf_be32(b + 30) * 25;
	case TAG_HEAP_SUMMARY: return 24;
	case TAG_CPU_SAMPLES: return have < 8 ? 8 : 8 + (uint64_t)hf_be32(b + 4) * 8;
	case TAG_CONTROL_SETTINGS: return 6;
	default: return 0;
	}
}

/* Whether a record of tag 0x01-0x07 and a body of len bytes, whose first
 * `have` bytes are at b, has a length this reader accepts (record_length's;
 * a UTF8 of at least an id and at most MAX_SMALL_RECORD) and, for a UTF8,
 * no NUL in the text seen (modified UTF-8 has none; ids and counts most
 * often do). */
static bool record_shape_ok(const reader *r, unsigned tag, uint64_t len, const uint8_t *b, size_t have)
{
	const unsigned I = r->idsize;
	if (tag == TAG_UTF8) {
		if (len < I || len > MAX_SMALL_RECORD)
			return false;
		for (size_t i = I; i < have && i < len; i++)
			if (!b[i])
				return false;
		return true;
	}
	uint64_t want = record_length(tag, I, b, have);
	return !want || len == want;
}

/* Whether the bytes `skip` ahead (0, or up to WRAP_LOOK) read as a
 * top-level record (heap_length asks it of a byte that is both a top-level
 * tag and a sub-record tag, 0x01-0x07: UTF8 .. HEAP SUMMARY, or a root;
 * wrap of any byte): a header whose length the input can hold and the
 * record's type accepts (any, for a tag heapfmt does not know), whose time
 * is 0 when every record's so far was (HotSpot's and ART's are; a root's
 * first field is an object id), followed by the end of the input or another
 * top-level tag.  When that cannot be seen (a record longer than the
 * look-ahead in a stream of unknown size), the answer is `unseen`. */
#define RECORD_LOOK ((size_t)65536)
static bool reads_as_record(reader *r, size_t skip, bool unseen)
{
	const uint8_t *p;
	size_t avail, want = skip + 9 + RECORD_LOOK + 1;
	hf_error ignored;
	memset(&ignored, 0, sizeof ignored);
	int seen_end = 0;          /* avail runs to the end of the input */
	if (hf_input_peek(r->in, want, &p, &avail, &ignored)) {
		/* Damaged further on (a gzip stream cut short): decide on what
		 * is buffered; the reading proper reports the damage. */
		memset(&ignored, 0, sizeof ignored);
		if (hf_input_peek(r->in, skip + 9, &p, &avail, &ignored))
			return false;
	} else {
		seen_end = avail < want;
	}
	if (avail < skip + 9)
		return false;          /* no room for a record header */
	p += skip;
	avail -= skip;
	uint64_t len = hf_be32(p + 5), size = hf_input_size(r->in), at = hf_input_offset(r->in) + skip;
	if (size && (size < at + 9 || size - at - 9 < len))
		return false;
	if (!r->timed && hf_be32(p + 1))
		return false;          /* a time, where every record so far had 0 */
	if (!record_shape_ok(r, p[0], len, p + 9, avail - 9))
		return false;
	if (avail > 9 + len)
		return tag_name(p[9 + len]) != NULL;
	return seen_end ? avail == 9 + len : unseen;
}

/* A HEAP DUMP over 4 GiB whose u4 length HotSpot <= 8 stored modulo 2^32
 * (spec section 7), where heap_length cannot tell it: the input's size is
 * unknown (a pipe, gzip) or other records follow the dump.  When n bytes
 * from here would run past the record's declared end, h->left ahead, and
 * the bytes there are neither the end of the input nor a top-level record
 * (reads_as_record, of any tag, seen to its end), 2^32 is added to the
 * length as often as n takes, with a warning the first time.  At that end
 * between two sub-records (`between`: h->left 0, n 1) the byte there must
 * also be a sub-record's tag.  An input of known size must hold the longer
 * record.  Else nothing changes, and the caller reports a sub-record that
 * runs past its record: in a dump under 4 GiB that is damage.  The bytes at
 * the end are looked at when they are within WRAP_LOOK; past that (an array
 * of more than 16 MiB across the end), 2^32 is added without looking. */
#define WRAP_LOOK ((uint64_t)16 << 20)
static hf_status wrap_at(reader *r, heap_ctx *h, uint64_t n, bool between)
{
	const uint64_t W = (uint64_t)1 << 32;
	if (h->tag != TAG_HEAP_DUMP || h->to_eof || n <= h->left)
		return HF_OK;
	uint64_t grow = (n - h->left + W - 1) / W * W; /* n < 2^36: no overflow */
	if (!input_holds(r, h->left + grow))
		return HF_OK;
	hf_status st;
	if (h->left <= WRAP_LOOK) {
		const uint8_t *p;
		size_t avail;
		if ((st = hf_input_peek_some(r->in, (size_t)h->left + 1, &p, &avail, r->err)))
			return st;
		if (avail <= h->left) {
			/* The input ends there, or before; or fails (a gzip stream cut
			 * short), which is then the error to report. */
			return hf_input_peek(r->in, (size_t)h->left + 1, &p, &avail, r->err);
		}
		if ((between && !sub_name(p[h->left])) || reads_as_record(r, (size_t)h->left, false))
			return HF_OK;
	}
	if (!h->wrapped) {
		h->wrapped = 1;
		if ((st = warn(r, h->start, "HEAP DUMP record declares %" PRIu64 " bytes, but its sub-records run on past them: its real length is taken to have been stored modulo 2^32",
		               h->declared)))
			return st;
	}
	h->left += grow;
	return HF_OK;
}

static hf_status wrap(reader *r, heap_ctx *h, uint64_t n)
{
	return wrap_at(r, h, n, false);
}

/* A heap-dump record's declared length, corrected in the two cases real
 * readers recover from (spec section 7), each with a warning:
 *  - length 0 followed by heap-dump sub-records: the writer's placeholder
 *    was never patched (HotSpot writes 0 first and patches the length at the
 *    end): the record runs to the end of the input or to the next HEAP
 *    DUMP END or HEAP DUMP SEGMENT (*to_eof);
 *  - a HEAP DUMP over 4 GiB, whose u4 length HotSpot <= 8 stored modulo
 *    2^32: when the bytes to the end of the input exceed the length by a
 *    multiple of 2^32, the record runs to the end of the input.  Needs the
 *    input's size (a plain regular file). */
static hf_status heap_length(reader *r, unsigned tag, uint64_t start, uint64_t *len, int *to_eof)
{
	*to_eof = 0;
	if (*len == 0) {
		const uint8_t *p;
		size_t avail;
		hf_status st = hf_input_peek(r->in, 1, &p, &avail, r->err);
		if (st || !avail || !sub_name(p[0]) || (tag_name(p[0]) && reads_as_record(r, 0, true)))
			return st;
		*to_eof = 1;
		*len = UINT64_MAX;
		return warn(r, start, "%s record of length 0 is followed by heap-dump sub-records: its length was never written; read to the end of the input or to the next HEAP DUMP END or SEGMENT",
		            tag_name(tag));
	}
	uint64_t size = hf_input_size(r->in), body = start + 9;
	if (tag != TAG_HEAP_DUMP || size <= body || size - body <= *len)
		return HF_OK;
	uint64_t rest = size - body, extra = rest - *len;
	if (extra % ((uint64_t)1 << 32))
		return HF_OK;
	hf_status st = warn(r, start, "HEAP DUMP record declares %" PRIu64 " bytes, which is its real length (%" PRIu64 ") modulo 2^32: read to the end of the input",
	                    *len, rest);
	*len = rest;
	return st;
}

static hf_status heap_record(reader *r, unsigned tag, uint64_t length, int to_eof)
{
	const unsigned I = r->idsize;
	heap_ctx h = { tag, length, hf_input_offset(r->in) - 9, length, to_eof, 0 };
	hf_status st;
	if (tag == TAG_HEAP_DUMP) {
		if (r->dump_open && r->dump_segmented &&
		    (st = warn(r, hf_input_offset(r->in) - 9,
		               "HEAP DUMP SEGMENTs end at a HEAP DUMP record without HEAP DUMP END")))
			return st;
		if ((st = dump_close(r)))
			return st;
		dump_open(r);
	} else {
		dump_open(r);
		r->dump_segmented = 1;
		r->heap = 0; /* the current heap resets at every segment (Android) */
	}
	if (!r->rescan)
		r->stats->heap_records++;
	uint32_t since_progress = 0;
	for (;;) {
		/* At the declared end: unless the length wrapped (wrap). */
		if (!h.left && ((st = wrap_at(r, &h, 1, true)) || !h.left)) {
			if (st)
				return st;
			break;
		}
		if (++since_progress == 65536) {
			/* One segment can hold most of a dump. */
			since_progress = 0;
			progress(r);
		}
		uint64_t start = r->in->offset;
		const uint8_t *p;
		size_t avail = 1;
		if (!hf_input_window(r->in, 1, &p) && (st = hf_input_peek(r->in, 1, &p, &avail, r->err)))
			return st;
		if (!avail) {
			if (to_eof)
				break;
			return fail(r, HF_ERR_TRUNCATED, start, tag, -1,
			            "the file ends %" PRIu64 " bytes before the end of this record", h.left);
		}
		/* A record whose length was never written ends where the dump's
		 * end or next segment begins (neither tag is a sub-record's). */
		if (to_eof && (p[0] == TAG_HEAP_DUMP_END || p[0] == TAG_HEAP_DUMP_SEGMENT))
			break;
		unsigned sub = p[0];
		take(r, &h, 1);
		if (!r->coops_decided && (sub == SUB_CLASS_DUMP || sub == SUB_INSTANCE_DUMP ||
		                          sub == SUB_OBJECT_ARRAY_DUMP || sub == SUB_PRIMITIVE_ARRAY_DUMP ||
		                          sub == SUB_PRIMITIVE_ARRAY_NODATA))
			if ((st = decide_model(r, &h, sub)))
				return st;
		switch (sub) {
		case SUB_ROOT_UNKNOWN: case SUB_ROOT_STICKY_CLASS: case SUB_ROOT_MONITOR_USED:
		case SUB_ROOT_INTERNED_STRING: case SUB_ROOT_FINALIZING: case SUB_ROOT_DEBUGGER:
		case SUB_ROOT_REFERENCE_CLEANUP: case SUB_ROOT_VM_INTERNAL: case SUB_UNREACHABLE:
			if ((st = need(r, &h, start, (int)sub, I, &p)))
				return st;
			st = root(r, sub_name(sub), hf_beid(p, I), -1, INT64_MIN, -1, UINT64_MAX);
			take(r, &h, I);
			break;
		case SUB_ROOT_JNI_GLOBAL:
			if ((st = need(r, &h, start, (int)sub, 2 * I, &p)))
				return st;
			st = root(r, sub_name(sub), hf_beid(p, I), -1, INT64_MIN, -1, hf_beid(p + I, I));
			take(r, &h, 2 * I);
			break;
		case SUB_ROOT_JNI_LOCAL: case SUB_ROOT_JAVA_FRAME: case SUB_ROOT_JNI_MONITOR:
			if ((st = need(r, &h, start, (int)sub, I + 8, &p)))
				return st;
			st = root(r, sub_name(sub), hf_beid(p, I), hf_be32(p + I),
			          hf_be32(p + I + 4) == UINT32_MAX ? -1 : (int64_t)hf_be32(p + I + 4), -1,
			          UINT64_MAX);
			take(r, &h, I + 8);
			break;
		case SUB_ROOT_NATIVE_STACK: case SUB_ROOT_THREAD_BLOCK:
			if ((st = need(r, &h, start, (int)sub, I + 4, &p)))
				return st;
			st = root(r, sub_name(sub), hf_beid(p, I), hf_be32(p + I), INT64_MIN, -1, UINT64_MAX);
			take(r, &h, I + 4);
			break;
		case SUB_ROOT_THREAD_OBJECT:
			if ((st = need(r, &h, start, (int)sub, I + 8, &p)))
				return st;
			st = root(r, sub_name(sub), hf_beid(p, I), hf_be32(p + I), INT64_MIN,
			          hf_be32(p + I + 4), UINT64_MAX);
			take(r, &h, I + 8);
			break;
		case SUB_HEAP_DUMP_INFO: {
			if ((st = need(r, &h, start, (int)sub, 4 + I, &p)))
				return st;
			uint32_t heap = hf_be32(p);
			uint64_t sid = name_sid(r, hf_beid(p + 4, I));
			take(r, &h, 4 + I);
			r->heap = heap;
			uint64_t *seen = hf_map_get(&r->heaps_seen, heap);
			if (!r->rescan && (!seen || *seen != sid)) {
				if (!hf_map_put(&r->heaps_seen, heap, sid))
					return nomem(r);
				vals_clear(r, 2);
				val_int(&r->vals[0], heap);
				val_u(&r->vals[1], sid);
				hf_record rec = { &hprof_rec_heap, r->vals };
				st = hf_sink_record(r->sink, &rec, r->err);
			}
			break;
		}
		case SUB_CLASS_DUMP:
			st = class_dump(r, &h, start);
			break;
		case SUB_INSTANCE_DUMP:
			st = instance_dump(r, &h, start);
			break;
		case SUB_OBJECT_ARRAY_DUMP:
			st = object_array_dump(r, &h, start);
			break;
		case SUB_PRIMITIVE_ARRAY_DUMP:
			st = primitive_array_dump(r, &h, start, 0);
			break;
		case SUB_PRIMITIVE_ARRAY_NODATA:
			st = primitive_array_dump(r, &h, start, 1);
			break;
		default:
			return fail(r, HF_ERR_FORMAT, start, tag, (int)sub,
			            "unknown heap-dump sub-record tag 0x%02X (sub-records carry no length, so the rest of the record cannot be read)",
			            sub);
		}
		if (st)
			return st;
	}
	if (tag == TAG_HEAP_DUMP)
		return dump_close(r);
	return HF_OK;
}

/* ---- top-level records --------------------------------------------------------- */

static hf_status late_class_names(reader *r, uint64_t hid, const name_entry *e);

static hf_status utf8_record(reader *r, const uint8_t *p, uint64_t len, uint64_t start)
{
	const unsigned I = r->idsize;
	if (len < I)
		return fail(r, HF_ERR_FORMAT, start, TAG_UTF8, -1,
		            "body of %" PRIu64 " bytes is shorter than an identifier", len);
	uint64_t hid = hf_beid(p, I);
	size_t n = (size_t)(len - I);
	size_t off = r->name_arena.len;
	if (!hf_buf_reserve(&r->name_arena, HF_MUTF8_OUT_MAX(n)))
		return nomem(r);
	size_t out = hf_mutf8_decode(p + I, n, (char *)r->name_arena.data + off);
	r->name_arena.len += out;
	if (r->nnames == r->capnames) {
		size_t nc = r->capnames ? r->capnames * 2 : 4096;
		name_entry *ne = realloc(r->names, nc * sizeof *ne);
		if (!ne)
			return nomem(r);
		r->names = ne;
		r->capnames = nc;
	}
	uint64_t sid = r->next_sid++;
	if (r->missed_names.count && hf_map_get(&r->missed_names, hid))
		r->names_after_use++;
	if (hf_map_get(&r->name_map, hid)) {
		hf_status st = warn(r, start, "UTF8 id 0x%" PRIx64 " appears twice; the later one is used", hid);
		if (st)
			return st;
	}
	r->names[r->nnames] = (name_entry){ sid, off, out, 0 };
	if (!hf_map_put(&r->name_map, hid, r->nnames))
		return nomem(r);
	r->nnames++;
	hf_status st = emit_string(r, sid, (const char *)r->name_arena.data + off, out);
	if (st || !r->late_names.count)
		return st;
	return late_class_names(r, hid, &r->names[r->nnames - 1]);
}

/* What a class's name tells: java.lang.String, java.lang.Class, the
 * primitive array classes, and its Java-form name (*jsid). */
static hf_status class_named(reader *r, uint64_t cls, const name_entry *e, uint64_t *jsid)
{
	hf_status st;
	const char *s = (const char *)r->name_arena.data + e->off;
	if ((e->len == 16 && !memcmp(s, "java/lang/String", 16)) ||
	    (e->len == 16 && !memcmp(s, "java.lang.String", 16))) {
		r->string_class = cls;
		class_info *c = class_get(r, cls);
		if (c && !c->is_string) {
			/* Named after its CLASS DUMP (and perhaps after Strings were
			 * laid out without their text fields): lay it out again. */
			c->is_string = 1;
			class_unlayout(r, c);
		}
	}
	if ((e->len == 15 && !memcmp(s, "java/lang/Class", 15)) ||
	    (e->len == 15 && !memcmp(s, "java.lang.Class", 15)))
		r->class_class = cls;
	static const char *const prim_hs[12] = { 0, 0, 0, 0, "[Z", "[C", "[F", "[D", "[B", "[S", "[I", "[J" };
	static const char *const prim_an[12] = { 0, 0, 0, 0, "boolean[]", "char[]", "float[]", "double[]", "byte[]", "short[]", "int[]", "long[]" };
	for (int t = 4; t < 12; t++) {
		if (e->len == strlen(prim_hs[t]) && !memcmp(s, prim_hs[t], e->len))
			r->prim_array_class[t] = cls;
		if (e->len == strlen(prim_an[t]) && !memcmp(s, prim_an[t], e->len)) {
			r->prim_array_class[t] = cls;
			r->art_names = 1;
		}
	}
	if (e->len == 16 && !memcmp(s, "java.lang.Object", 16))
		r->art_names = 1;
	/* The Java source form, as its own string when it differs: written
	 * once for each UTF8 record, however many classes it names (several
	 * class loaders load a class of the same name; a crafted dump of one
	 * name of 100 KB and 2,000 LOAD CLASS records of it wrote 200 MB). */
	name_entry *me = &r->names[e - r->names];
	if (!me->jsid) {
		java_name(s, e->len, &r->tmp);
		me->jsid = e->sid;
		if (r->tmp.len != e->len || (e->len && memcmp(r->tmp.data, s, e->len))) {
			me->jsid = r->next_sid++;
			if ((st = emit_string(r, me->jsid, (const char *)r->tmp.data, r->tmp.len)))
				return st;
		}
	}
	*jsid = me->jsid;
	if (!hf_map_put(&r->class_java_name, cls, *jsid))
		return nomem(r);
	return HF_OK;
}

/* A UTF8 record came: the classes whose LOAD CLASS named it earlier. */
static hf_status late_class_names(reader *r, uint64_t hid, const name_entry *e)
{
	uint64_t *first = hf_map_get(&r->late_names, hid);
	if (!first)
		return HF_OK;
	uint64_t ix = *first, jsid;
	hf_map_remove(&r->late_names, hid);
	while (ix != UINT64_MAX) {
		late_class lc;
		memcpy(&lc, r->late_classes.data + ix * sizeof lc, sizeof lc);
		hf_status st = class_named(r, lc.cls, e, &jsid);
		if (st)
			return st;
		ix = lc.next;
	}
	return HF_OK;
}

static hf_status load_class_record(reader *r, const uint8_t *p, uint64_t start)
{
	const unsigned I = r->idsize;
	uint32_t serial = hf_be32(p);
	uint64_t cls = hf_beid(p + 4, I);
	uint32_t trace = hf_be32(p + 4 + I);
	uint64_t hname = hf_beid(p + 8 + I, I);
	(void)start;
	const uint64_t *prev = hf_map_get(&r->class_name, cls);
	class_info *old = class_get(r, cls);
	if (prev && old && old->dumped && !same_name(r, *prev, hname))
		class_forget(r, old);
	if (!hf_map_put(&r->class_name, cls, hname) || !hf_map_put(&r->serial_class, serial, cls) ||
	    !hf_map_put(&r->class_serial, cls, serial))
		return nomem(r);
	const name_entry *e = name_get(r, hname);
	hf_status st;
	uint64_t jsid = 0;
	if (e) {
		if ((st = class_named(r, cls, e, &jsid)))
			return st;
	} else if (hname && hname != HF_MAP_EMPTY) {
		/* Its UTF8 record may come later: see late_class_names. */
		uint64_t *first = hf_map_get(&r->late_names, hname);
		late_class lc = { cls, first ? *first : UINT64_MAX };
		uint64_t ix = r->late_classes.len / sizeof lc;
		if (!hf_buf_append(&r->late_classes, &lc, sizeof lc) || !hf_map_put(&r->late_names, hname, ix))
			return nomem(r);
	}
	vals_clear(r, 5);
	val_int(&r->vals[0], serial);
	val_u(&r->vals[1], cls);
	val_int(&r->vals[2], trace);
	val_u(&r->vals[3], e ? e->sid : 0); /* (a later UTF8 names the class: late_class_names) */
	if (jsid)
		val_u(&r->vals[4], jsid);
	hf_record rec = { &hprof_rec_load_class, r->vals };
	return hf_sink_record(r->sink, &rec, r->err);
}

static hf_status simple_record(reader *r, const hf_type *t, size_t n)
{
	hf_record rec = { t, r->vals };
	(void)n;
	return hf_sink_record(r->sink, &rec, r->err);
}

static hf_status body_record(reader *r, unsigned tag, const uint8_t *p, uint64_t len, uint64_t start)
{
	const unsigned I = r->idsize;
	hf_status st = HF_OK;
	char num[64];
	uint64_t want = record_length(tag, I, p, len);
	if (want && len != want)
		return fail(r, HF_ERR_FORMAT, start, tag, -1, "body is %" PRIu64 " bytes, expected %" PRIu64, len,
		            want);
	switch (tag) {
	case TAG_UTF8:
		return utf8_record(r, p, len, start);
	case TAG_LOAD_CLASS:
		return load_class_record(r, p, start);
	case TAG_UNLOAD_CLASS: {
		const uint64_t *cls = hf_map_get(&r->serial_class, hf_be32(p));
		class_info *c = cls ? class_get(r, *cls) : NULL;
		if (c && c->dumped)
			class_forget(r, c);
		vals_clear(r, 1);
		val_int(&r->vals[0], hf_be32(p));
		return simple_record(r, &hprof_rec_unload_class, 1);
	}
	case TAG_END_THREAD:
		vals_clear(r, 1);
		val_int(&r->vals[0], hf_be32(p));
		return simple_record(r, &hprof_rec_thread_end, 1);
	case TAG_FRAME:
		vals_clear(r, 6);
		val_u(&r->vals[0], hf_beid(p, I));
		val_u(&r->vals[1], name_sid(r, hf_beid(p + I, I)));
		val_u(&r->vals[2], name_sid(r, hf_beid(p + 2 * I, I)));
		val_u(&r->vals[3], name_sid(r, hf_beid(p + 3 * I, I)));
		val_int(&r->vals[4], hf_be32(p + 4 * I));
		val_int(&r->vals[5], (int32_t)hf_be32(p + 4 * I + 4));
		return simple_record(r, &hprof_rec_frame, 6);
	case TAG_TRACE: {
		uint32_t nframes = hf_be32(p + 8);
		uint32_t serial = hf_be32(p);
		vals_clear(r, 3);
		val_int(&r->vals[0], serial);
		val_int(&r->vals[1], hf_be32(p + 4));
		val_int(&r->vals[2], nframes);
		if ((st = simple_record(r, &hprof_rec_trace, 3)))
			return st;
		for (uint32_t i = 0; i < nframes; i++) {
			vals_clear(r, 3);
			val_int(&r->vals[0], serial);
			val_int(&r->vals[1], i);
			val_u(&r->vals[2], hf_beid(p + 12 + (uint64_t)i * I, I));
			if ((st = simple_record(r, &hprof_rec_trace_frame, 3)))
				return st;
		}
		return HF_OK;
	}
	case TAG_START_THREAD:
		r->agent_records = 1;
		vals_clear(r, 6);
		val_int(&r->vals[0], hf_be32(p));
		val_u(&r->vals[1], hf_beid(p + 4, I));
		val_int(&r->vals[2], hf_be32(p + 4 + I));
		val_u(&r->vals[3], name_sid(r, hf_beid(p + 8 + I, I)));
		val_u(&r->vals[4], name_sid(r, hf_beid(p + 8 + 2 * I, I)));
		val_u(&r->vals[5], name_sid(r, hf_beid(p + 8 + 3 * I, I)));
		return simple_record(r, &hprof_rec_thread, 6);
	case TAG_ALLOC_SITES: {
		uint32_t nsites = hf_be32(p + 30);
		uint16_t flags = hf_be16(p);
		snprintf(num, sizeof num, "%u", hf_be32(p + 2));
		if ((st = hf_sink_metadata(r->sink, "hprof.alloc_sites.cutoff_ratio", num, r->err)))
			return st;
		snprintf(num, sizeof num, "%u", hf_be32(p + 6));
		if ((st = hf_sink_metadata(r->sink, "hprof.alloc_sites.live_bytes", num, r->err)))
			return st;
		snprintf(num, sizeof num, "%u", hf_be32(p + 10));
		if ((st = hf_sink_metadata(r->sink, "hprof.alloc_sites.live_instances", num, r->err)))
			return st;
		snprintf(num, sizeof num, "%" PRIu64, hf_be64(p + 14));
		if ((st = hf_sink_metadata(r->sink, "hprof.alloc_sites.bytes_allocated", num, r->err)))
			return st;
		snprintf(num, sizeof num, "%" PRIu64, hf_be64(p + 22));
		if ((st = hf_sink_metadata(r->sink, "hprof.alloc_sites.instances_allocated", num, r->err)))
			return st;
		for (uint32_t i = 0; i < nsites; i++) {
			const uint8_t *q = p + 34 + (uint64_t)i * 25;
			vals_clear(r, 8);
			val_int(&r->vals[0], flags);
			val_int(&r->vals[1], q[0]);
			val_int(&r->vals[2], hf_be32(q + 1));
			val_int(&r->vals[3], hf_be32(q + 5));
			val_int(&r->vals[4], hf_be32(q + 9));
			val_int(&r->vals[5], hf_be32(q + 13));
			val_int(&r->vals[6], hf_be32(q + 17));
			val_int(&r->vals[7], hf_be32(q + 21));
			if ((st = simple_record(r, &hprof_rec_alloc_site, 8)))
				return st;
		}
		return HF_OK;
	}
	case TAG_HEAP_SUMMARY:
		snprintf(num, sizeof num, "%u", hf_be32(p));
		if ((st = hf_sink_metadata(r->sink, "hprof.heap_summary.live_bytes", num, r->err)))
			return st;
		snprintf(num, sizeof num, "%u", hf_be32(p + 4));
		if ((st = hf_sink_metadata(r->sink, "hprof.heap_summary.live_instances", num, r->err)))
			return st;
		snprintf(num, sizeof num, "%" PRIu64, hf_be64(p + 8));
		if ((st = hf_sink_metadata(r->sink, "hprof.heap_summary.bytes_allocated", num, r->err)))
			return st;
		snprintf(num, sizeof num, "%" PRIu64, hf_be64(p + 16));
		return hf_sink_metadata(r->sink, "hprof.heap_summary.instances_allocated", num, r->err);
	case TAG_CPU_SAMPLES: {
		uint32_t ntraces = hf_be32(p + 4);
		snprintf(num, sizeof num, "%u", hf_be32(p));
		if ((st = hf_sink_metadata(r->sink, "hprof.cpu_samples.total", num, r->err)))
			return st;
		for (uint32_t i = 0; i < ntraces; i++) {
			vals_clear(r, 2);
			val_int(&r->vals[0], hf_be32(p + 8 + (uint64_t)i * 8 + 4));
			val_int(&r->vals[1], hf_be32(p + 8 + (uint64_t)i * 8));
			if ((st = simple_record(r, &hprof_rec_cpu_sample, 2)))
				return st;
		}
		return HF_OK;
	}
	case TAG_CONTROL_SETTINGS:
		r->agent_records = 1;
		snprintf(num, sizeof num, "%u", hf_be32(p));
		if ((st = hf_sink_metadata(r->sink, "hprof.control_settings.flags", num, r->err)))
			return st;
		snprintf(num, sizeof num, "%u", hf_be16(p + 4));
		return hf_sink_metadata(r->sink, "hprof.control_settings.stack_depth", num, r->err);
	}
	return HF_OK;
}

static hf_status declare_all(reader *r, const char *source)
{
	hf_status st;
	char buf[64];
	char crtime[40];
	const hf_hprof_options *o = r->opt;
	if (o->crtime)
		snprintf(crtime, sizeof crtime, "%s", o->crtime);
	else
		hf_crtime_now(crtime, sizeof crtime);
	char gen[96];
	snprintf(gen, sizeof gen, "%s (heapfmt %s)", o->generator ? o->generator : "libheapfmt",
	         HEAPFMT_VERSION);
	char iso[40];
	hf_iso8601_ms(r->timestamp_ms, iso);
	struct { const char *k; const char *v; } meta[] = {
		{ "version_major", HEAPFMT_FORMAT_MAJOR },
		{ "generator", gen },
		{ "crtime", crtime },
		{ "target_source", "hprof" },
		{ "target_file", source },
		{ "heapfmt.schema", HEAPFMT_SCHEMA_VERSION },
		{ "hprof.header", r->version },
	};
	for (size_t i = 0; i < sizeof meta / sizeof *meta; i++)
		if ((st = hf_sink_metadata(r->sink, meta[i].k, meta[i].v, r->err)))
			return st;
	snprintf(buf, sizeof buf, "%u", r->idsize);
	if ((st = hf_sink_metadata(r->sink, "hprof.id_size", buf, r->err)))
		return st;
	snprintf(buf, sizeof buf, "%" PRIu64, r->timestamp_ms);
	if ((st = hf_sink_metadata(r->sink, "hprof.timestamp_ms", buf, r->err)))
		return st;
	if ((st = hf_sink_metadata(r->sink, "hprof.timestamp", iso, r->err)))
		return st;
	if (o->values && (st = hf_sink_metadata(r->sink, "heapfmt.values", "true", r->err)))
		return st;
	for (size_t i = 0; hprof_types[i]; i++)
		if ((st = hf_sink_declare(r->sink, hprof_types[i], r->err)))
			return st;
	return HF_OK;
}

static hf_status read_header(reader *r)
{
	const uint8_t *p;
	size_t avail;
	hf_status st = hf_refuse_empty(r->in, r->err);
	if (st || (st = hf_input_peek(r->in, 64, &p, &avail, r->err)))
		return st;
	size_t nul = 0;
	while (nul < avail && nul < 64 && p[nul])
		nul++;
	if (avail < 16 || memcmp(p, "JAVA PROFILE 1.0", 16) != 0) {
		const char *kind = hf_kind_name(hf_kind_of(p, avail));
		return hf_error_at(r->err, HF_ERR_FORMAT, 0, "header",
		                   "not an HPROF file (no \"JAVA PROFILE 1.0\" magic)%s%s", kind ? ": it is " : "",
		                   kind ? kind : "");
	}
	/* The old hprof agent's text output (-agentlib:hprof=format=a) starts
	 * "JAVA PROFILE 1.0.1, created <date>" and a line break. */
	bool text = false;
	for (size_t i = 16; i + 10 <= avail && i + 10 <= 64 && !text; i++)
		text = !memcmp(p + i, ", created ", 10);
	if ((nul >= 64 || nul >= avail) && text)
		return hf_error_at(r->err, HF_ERR_FORMAT, 0, "header",
		                   "a text profile of the hprof agent (format=a), not a binary dump:"
		                   " run the agent with format=b");
	if (nul >= 64 || nul >= avail)
		return hf_error_at(r->err, avail < 64 ? HF_ERR_TRUNCATED : HF_ERR_FORMAT, 0, "header",
		                   "the magic string is not NUL-terminated");
	if (avail < nul + 13)
		return hf_error_at(r->err, HF_ERR_TRUNCATED, nul + 1, "header",
		                   "the file ends inside the header");
	memcpy(r->version, p, nul < sizeof r->version ? nul : sizeof r->version - 1);
	for (char *c = r->version; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = '?';
	r->idsize = hf_be32(p + nul + 1);
	if (r->idsize != 4 && r->idsize != 8)
		return hf_error_at(r->err, HF_ERR_FORMAT, nul + 1, "header",
		                   "identifier size %u is not 4 or 8", r->idsize);
	r->timestamp_ms = hf_be64(p + nul + 5);
	r->android = !strcmp(r->version, "JAVA PROFILE 1.0.3");
	hf_input_consume(r->in, nul + 13);
	return HF_OK;
}


/* With salvage: the error in r->err is the damage, kept in the stats with
 * where the reader stopped, and the run goes on without it. */
static void keep_damage(reader *r)
{
	r->stats->incomplete = 1;
	r->stats->damage = *r->err;
	r->stats->stopped_at = r->err->has_offset ? r->err->offset : hf_input_offset(r->in);
	memset(r->err, 0, sizeof *r->err);
}

/* The input ends where the dump is not whole (what): an error at its end,
 * or with salvage the damage kept, the run going on. */
static hf_status damage_at_end(reader *r, const char *what)
{
	hf_status st = hf_error_at(r->err, HF_ERR_TRUNCATED, hf_input_offset(r->in), "end of file", "%s", what);
	if (!r->opt->salvage)
		return st;
	keep_damage(r);
	return HF_OK;
}

static hf_status read_records(reader *r)
{
	hf_status st;
	uint64_t heap_records = 0, profile_records = 0;
	for (;;) {
		progress(r);
		uint64_t start = hf_input_offset(r->in);
		const uint8_t *p;
		size_t avail;
		if ((st = hf_input_peek(r->in, 9, &p, &avail, r->err)))
			return st;
		if (avail == 0)
			break;
		if (avail < 9)
			return hf_error_at(r->err, HF_ERR_TRUNCATED, start, "record header",
			                   "the file ends inside a record header (%zu of 9 bytes)", avail);
		unsigned tag = p[0];
		uint64_t len = hf_be32(p + 5);
		r->timed |= hf_be32(p + 1) != 0;
		hf_input_consume(r->in, 9);
		r->last_to_eof = 0; /* a record follows: the last one did not run to the end */
		if (!r->rescan)
			r->stats->records++;
		if ((tag == TAG_HEAP_DUMP_SEGMENT || tag == TAG_HEAP_DUMP_END) && !r->warned_segments_101 &&
		    !strcmp(r->version, "JAVA PROFILE 1.0.1")) {
			/* 1.0.1 has no segments; accepted all the same. */
			r->warned_segments_101 = 1;
			if ((st = warn(r, start, "%s record in a JAVA PROFILE 1.0.1 file (segments came with 1.0.2)",
			               tag_name(tag))))
				return st;
		}
		profile_records += tag == TAG_CPU_SAMPLES || tag == TAG_ALLOC_SITES || tag == TAG_HEAP_SUMMARY;
		if (tag == TAG_HEAP_DUMP || tag == TAG_HEAP_DUMP_SEGMENT) {
			heap_records++;
			int to_eof;
			if ((st = heap_length(r, tag, start, &len, &to_eof)) ||
			    (st = heap_record(r, tag, len, to_eof)))
				return st;
			r->last_to_eof = to_eof;
			continue;
		}
		if (tag == TAG_HEAP_DUMP_END) {
			if (len && (st = warn(r, start, "HEAP DUMP END has a %" PRIu64 "-byte body", len)))
				return st;
			uint64_t skipped;
			if ((st = hf_input_skip(r->in, len, &skipped, r->err)))
				return st;
			if (skipped < len)
				return fail(r, HF_ERR_TRUNCATED, start, tag, -1, "the file ends inside the record");
			if (!r->dump_open && (st = warn(r, start, "HEAP DUMP END without a heap dump segment")))
				return st;
			if ((st = dump_close(r)))
				return st;
			continue;
		}
		if (!tag_name(tag) && !r->rescan) {
			/* Unknown top-level tag: skip it by its length and report it. */
			r->unknown_tags++;
			r->stats->unknown_tags++;
			char t[16];
			snprintf(t, sizeof t, "%s0x%02X", r->unknown_list.len ? "," : "", tag);
			if (r->unknown_tags <= 32)
				hf_buf_append(&r->unknown_list, t, strlen(t));
			if ((st = warn(r, start, "unknown record tag 0x%02X (%" PRIu64 " bytes) skipped", tag, len)))
				return st;
			uint64_t skipped;
			if ((st = hf_input_skip(r->in, len, &skipped, r->err)))
				return st;
			if (skipped < len)
				return hf_error_at(r->err, HF_ERR_TRUNCATED, start, "unknown record",
				                   "record tag 0x%02X declares %" PRIu64 " bytes but the file ends after %" PRIu64,
				                   tag, len, skipped);
			continue;
		}
		if (r->rescan) {
			uint64_t skipped;
			if ((st = hf_input_skip(r->in, len, &skipped, r->err)))
				return st;
			continue;
		}
		if (len > MAX_SMALL_RECORD)
			return fail(r, HF_ERR_LIMIT, start, tag, -1,
			            "body of %" PRIu64 " bytes is larger than this record type can be", len);
		if ((st = hf_input_peek(r->in, (size_t)len, &p, &avail, r->err)))
			return st;
		if (avail < len)
			return fail(r, HF_ERR_TRUNCATED, start, tag, -1,
			            "declares %" PRIu64 " bytes but the file ends after %zu", len, avail);
		if ((st = body_record(r, tag, p, len, start)))
			return st;
		hf_input_consume(r->in, (size_t)len);
	}
	/* A last heap-dump record whose length was never written (0, read to
	 * the end of the input: heap_length), one HEAP DUMP or a segment, is
	 * a dump its writer did not finish: the writer patches the length when
	 * the record ends (spec: hprof.md §7), so the file is as damaged as
	 * one cut at a record's end (below), and with salvage all it holds
	 * is kept likewise. */
	if (r->last_to_eof && !r->rescan &&
	    (st = damage_at_end(r, r->dump_segmented
	                           ? "the file ends inside a HEAP DUMP SEGMENT whose length was never written (0):"
	                             " the dump was not finished"
	                           : "the file ends inside a HEAP DUMP whose length was never written (0):"
	                             " the dump was not finished")))
		return st;
	if (r->dump_open) {
		/* Every writer (HotSpot, ART, the hprof agent) ends its segments
		 * with HEAP DUMP END: a file that ends without it was cut at a
		 * record's boundary (a dump not finished, a copy cut short), and
		 * its heap is partial, which a conversion must not pass off as
		 * whole (spec: hprof.md §10).  With salvage, what it holds is
		 * kept as after other damage, but the whole file was read: the
		 * Strings waiting for arrays are looked for as in a sound run. */
		if (r->dump_segmented && !r->last_to_eof && !r->rescan &&
		    (st = damage_at_end(r, "the file ends without the HEAP DUMP END that closes its HEAP DUMP"
		                           " SEGMENTs: it is cut short (the dump was not finished, or the copy"
		                           " was cut)")))
			return st;
		if ((st = dump_close(r)))
			return st;
	}
	/* The hprof agent's profiles (cpu=samples, cpu=times, heap=sites
	 * without heap=dump) hold no heap dump: their threads, traces, CPU
	 * samples and allocation sites are what they are for.  A file that
	 * has none of those results either (a dump cut before its heap dump,
	 * a file of other records) is still refused. */
	if (!heap_records && profile_records)
		return warn(r, hf_input_offset(r->in),
		            "no HEAP DUMP record: a profile of the hprof agent (its CPU SAMPLES, ALLOC SITES"
		            " or HEAP SUMMARY), converted without objects");
	if (!heap_records)
		return hf_error_at(r->err, HF_ERR_FORMAT, hf_input_offset(r->in), "end of file",
		                   "no HEAP DUMP or HEAP DUMP SEGMENT record: this file holds no heap dump%s",
		                   r->unknown_tags ? " (it has records with unknown tags)" : "");
	return HF_OK;
}

/* ---- the text-array index -----------------------------------------------------
 * Where each char[] and byte[] of the first pass is: its id, the offset of its
 * sub-record and its dump, 16 bytes an array in a temporary file.  The passes
 * for Strings whose array came before them and left the cache (rescan_late)
 * read this file instead of the whole input, and read from the input only the
 * arrays that Strings wait for, at their offsets.  In file order, so the
 * Strings are found in the order, and by the arrays, that a pass over the
 * input finds them.  Input that cannot be read at an offset (a pipe, gzip)
 * has each char[] and byte[] of up to 64 MiB written to a temporary file as
 * it is read (the text spool: the sub-record as the dump has it, but for its
 * stack serial), and the index points there.  (On a HotSpot 17 dump of
 * 1.9 GB with 7.2 M byte[] and G1's String deduplication, 131 K Strings
 * whose array had left the cache were written without text from a pipe
 * before; the text spool took 222 MB.  The 1 GB benchmark dump gzipped took
 * 12.1-12.8 s to convert when its pass inflated it again whole, 6.6 s with
 * the spool.)
 * Measured on the 1 GB benchmark dump (2.46 M arrays, 135 K Strings parked):
 * the pass took 0.47 s of hprof2ndjson's 2.2 s to /dev/null; on the 5 GB dump
 * (12.5 M arrays, 1.7 M parked) 3.06 s of 10.9 s.  Whatever stops the index
 * (no temporary file, a write error, an offset past 2^48, more than 2^15
 * dumps) turns it off, and the passes read the input again (gzip: inflate
 * it again whole).  On a pipe the index and spool keep what they hold
 * instead (tspool_freeze, also past the spool's budget of TMPDIR): the
 * Strings whose arrays are not there are written without text
 * (heapfmt.unresolved_strings counts them). */
typedef struct tix_entry {
	uint64_t id;
	uint64_t at; /* sub-record offset << 16 | in a HEAP DUMP SEGMENT << 15 | dump */
} tix_entry;

static inline uint32_t tix_dump(const tix_entry *e) { return (uint32_t)(e->at & 0x7FFF); }

#define TIX_BUF 4096 /* entries */

/* Tests: 1 makes the passes read the whole input again, as without an index. */
int hf_hprof_test_reread;

/* The text spool stops taking arrays: in the first pass through a pipe,
 * the Strings parked for a pass are to wait in memory (unpark_to_memory). */
static void spool_stopped(reader *r)
{
	r->spool_lost = !r->rescan && r->park_read == 0 && !hf_input_can_rewind(r->in);
}

static void tix_stop(reader *r)
{
	if (r->tix_file)
		fclose(r->tix_file);
	r->tix_file = NULL;
	if (r->tspool) {
		fclose(r->tspool);
		spool_stopped(r);
	}
	r->tspool = NULL;
	free(r->tix_buf);
	r->tix_buf = NULL;
	r->tix_n = 0;
	r->tix_state = TIX_OFF;
}

/* Writes the buffered entries to the index file.  On an error they are
 * dropped, some perhaps written: the file's whole entries stand. */
static bool tix_flush(reader *r)
{
	size_t n = r->tix_n;
	r->tix_n = 0;
	r->tix_flushed += n;
	return hf_write_full(fileno(r->tix_file), r->tix_buf, n * sizeof *r->tix_buf) == 0;
}

uint64_t hf_hprof_test_spool_limit;

/* A pipe's text spool could not be written (a full disk) or reached its
 * budget: it takes no more arrays, and the index no more entries, but the arrays that reached the
 * file whole stay there for the passes (tspool_end bounds them).  No pass will
 * see the arrays still to come, so the Strings parked for one wait in memory
 * again (unpark_to_memory, at the next String or array), where those arrays
 * find them, and no more are parked. */
static void tspool_freeze(reader *r)
{
	struct stat sb, tb;
	/* What each can: the files' sizes say what reached them. */
	(void)fflush(r->tspool);
	(void)tix_flush(r);
	if (fstat(fileno(r->tspool), &sb) != 0 || fstat(fileno(r->tix_file), &tb) != 0 ||
	    ftruncate(fileno(r->tix_file), tb.st_size - tb.st_size % (off_t)sizeof(tix_entry)) != 0) {
		tix_stop(r);
		return;
	}
	r->tspool_end = (uint64_t)sb.st_size < r->tspool_pos ? (uint64_t)sb.st_size : r->tspool_pos;
	r->tix_state = TIX_FULL;
	spool_stopped(r);
}

/* The index gives up: on a pipe it keeps what it has (tspool_freeze); from
 * a file or gzip the passes read the input again. */
static void tix_give_up(reader *r)
{
	if (r->tspool && !hf_input_can_rewind(r->in))
		tspool_freeze(r);
	else
		tix_stop(r);
}

/* Appends n bytes to the text spool, if there is one taking them: past its
 * budget (half of TMPDIR's free space when it began, less the index's 16
 * bytes an array), it takes no more, which leaves room for the other
 * temporary files (parked Strings, deferred instances). */
static void tspool_put(reader *r, const void *p, size_t n)
{
	if (!r->tspool || r->tix_state != TIX_ON)
		return;
	if ((hf_hprof_test_spool_limit && r->tspool_pos + n > hf_hprof_test_spool_limit) ||
	    r->tspool_pos + n + r->text_arrays * sizeof(tix_entry) > r->tspool_budget ||
	    fwrite(p, 1, n, r->tspool) != n) {
		tix_give_up(r);
		return;
	}
	r->tspool_pos += n;
}

/*
 * Strings settled in place.  A writer for which records out of key order
 * cost much more than work in the reader (hf_sink.key_order: the database
 * writer, where a String's node, its node_instance row and its text row
 * inserted late go into the middle of three b-trees, whose pages have left
 * the page cache on a large dump) gets a String whose array has passed
 * already, and has left the array cache, decoded at once: the array's
 * index entry is found (below) and the array read at its offset in the
 * input, as the passes would read it.  Without key_order, or when the
 * entry is not found (the index off, its spans past TIX_SPANS_MAX, ids
 * out of order), the String is parked as before, for a pass.
 *
 * The index is searched through its spans: for every TIX_CHUNK entries,
 * the lowest and the highest id (16 bytes per 256 arrays in memory), the
 * entries themselves read back from the index file a chunk at a time.
 * Arrays come in id order (parking at all needs fewer than one descent in
 * 64 arrays), so the spans of a dump ascend and a binary search over them
 * finds the chunk that can hold the id; where they do not ascend, the
 * search may miss and the String is parked.
 * Measured on the 5 GB benchmark dump, hprof2heapdb --no-analysis, two
 * alternated runs each (2026-11-29): 1.59 M Strings parked before; now
 * 1.33 M settled in place and 262 K parked (Strings waiting in memory for
 * arrays still to come, parked past string_wait).  The passes after the
 * dump 9.0-9.7 s -> 1.7 s, the first pass 2.4 s longer, the whole run
 * 107.1-111.5 s -> 103.7-105.2 s.  The 1 GB dump: 117 K in place, none
 * parked (0.6 s of passes before).  The database is the same, table by
 * table.
 */
#define TIX_CHUNK 256
#define TIX_SPANS_MAX ((size_t)1 << 20) /* 16 MiB of spans: 268 M arrays */
_Static_assert(TIX_BUF % TIX_CHUNK == 0, "a chunk is in the index file or in its buffer");
/* The arrays read again for Strings settled in place: at most this, plus
 * this many bytes a byte of input read (a String whose array is large and
 * far costs a read of the whole array; past the allowance it is parked, as
 * without key_order).  The 5 GB benchmark dump reads some 1.1 bytes a byte. */
#define IN_PLACE_FREE ((uint64_t)64 << 20)
#define IN_PLACE_PER_BYTE 4

typedef struct tix_span {
	uint64_t lo, hi;
} tix_span;

/* The entry about to be added (number tix_flushed + tix_n) has id. */
static void span_add(reader *r, uint64_t id)
{
	uint64_t k = r->tix_flushed + r->tix_n;
	if (k % TIX_CHUNK) {
		tix_span *sp = &r->spans[r->nspans - 1];
		if (id < sp->lo)
			sp->lo = id;
		if (id > sp->hi)
			sp->hi = id;
		return;
	}
	if (r->nspans == r->capspans) {
		size_t cap = r->capspans ? 2 * r->capspans : 1024;
		tix_span *n = cap <= TIX_SPANS_MAX ? realloc(r->spans, cap * sizeof *n) : NULL;
		if (!n) {
			r->in_place = false; /* parked as before */
			return;
		}
		r->spans = n;
		r->capspans = cap;
	}
	r->spans[r->nspans].lo = r->spans[r->nspans].hi = id;
	r->nspans++;
}

static bool chunk_find(reader *r, size_t c, uint64_t id, tix_entry *e);

/* The index entry of array id in the open dump, if found: *e. */
static bool tix_find(reader *r, uint64_t id, tix_entry *e)
{
	size_t lo = (size_t)(r->tix_dump_first / TIX_CHUNK), hi = r->nspans;
	/* The first span of the dump that ends at or above id: the first
	 * array of that id in the file, as a pass would take it (an id dumped
	 * twice), is there or in the next span. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->spans[mid].hi < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t c = lo; c < r->nspans && c < lo + 2 && r->spans[c].lo <= id; c++)
		if (chunk_find(r, c, id, e))
			return true;
	return false;
}

/* The entry of array id in chunk c of the index, in the open dump. */
static bool chunk_find(reader *r, size_t c, uint64_t id, tix_entry *e)
{
	uint64_t first = (uint64_t)c * TIX_CHUNK;
	const tix_entry *ents;
	size_t n;
	if (first >= r->tix_flushed) {
		/* Still in the buffer (the file takes whole buffers: a chunk is
		 * in one or the other), and growing. */
		ents = r->tix_buf + (first - r->tix_flushed);
		n = r->tix_n - (size_t)(first - r->tix_flushed);
		n = n < TIX_CHUNK ? n : TIX_CHUNK;
	} else {
		if (c != r->chunk_no) {
			if (!r->chunk && !(r->chunk = malloc(TIX_CHUNK * sizeof *r->chunk)))
				return false;
			size_t got = 0;
			uint64_t want = r->tix_flushed - first < TIX_CHUNK ? r->tix_flushed - first : TIX_CHUNK;
			r->chunk_no = SIZE_MAX;
			if (hf_pread_full(fileno(r->tix_file), r->chunk, (size_t)want * sizeof *r->chunk,
			                  (off_t)(first * sizeof *r->chunk), &got) || got % sizeof *r->chunk)
				return false;
			r->chunk_n = got / sizeof *r->chunk;
			r->chunk_no = c;
		}
		ents = r->chunk;
		n = r->chunk_n;
	}
	for (size_t i = 0; i < n; i++)
		if (ents[i].id == id && tix_dump(&ents[i]) == (r->dump & 0x7FFF) &&
		    first + i >= r->tix_dump_first) {
			*e = ents[i];
			return true;
		}
	return false;
}

/* A char[] or byte[] of the first pass whose contents a pass could use: of
 * count elements of type t, its sub-record at start.  Returns true when its
 * elements are to go to the text spool (tspool_put) after the header written
 * here. */
static bool tix_add(reader *r, uint64_t id, uint64_t start, unsigned tag, uint32_t count, unsigned t)
{
	if (r->tix_state == TIX_NONE) {
		int spool = !hf_input_can_read_at(r->in);
		if (hf_hprof_test_reread || !(r->tix_buf = malloc(TIX_BUF * sizeof *r->tix_buf)) ||
		    !(r->tix_file = hf_tmpfile()) || (spool && !(r->tspool = hf_tmpfile()))) {
			tix_stop(r);
			return false;
		}
		if (r->tspool) {
			setvbuf(r->tspool, NULL, _IOFBF, (size_t)1 << 20);
			struct statvfs vs;
			r->tspool_budget = fstatvfs(fileno(r->tspool), &vs) == 0
			                       ? (uint64_t)vs.f_bavail * vs.f_frsize / 2 : UINT64_MAX;
		}
		r->tix_state = TIX_ON;
	}
	if (r->tix_state != TIX_ON)
		return false;
	if (r->tspool)
		start = r->tspool_pos;
	if ((start >> 48) || (r->dump >> 15) || (r->tix_n == TIX_BUF && !tix_flush(r))) {
		tix_give_up(r);
		return false;
	}
	if (r->in_place)
		span_add(r, id);
	tix_entry *e = &r->tix_buf[r->tix_n++];
	e->id = id;
	e->at = start << 16 | (uint64_t)(tag == TAG_HEAP_DUMP_SEGMENT) << 15 | r->dump;
	if (!r->tspool)
		return false;
	uint8_t head[1 + 8 + 9];
	const unsigned I = r->idsize;
	head[0] = SUB_PRIMITIVE_ARRAY_DUMP;
	for (unsigned i = 0; i < I; i++)
		head[1 + i] = (uint8_t)(id >> (8 * (I - 1 - i)));
	memset(head + 1 + I, 0, 4);
	for (unsigned i = 0; i < 4; i++)
		head[1 + I + 4 + i] = (uint8_t)(count >> (8 * (3 - i)));
	head[1 + I + 8] = (uint8_t)t;
	tspool_put(r, head, 1 + I + 9);
	return r->tix_state == TIX_ON;
}

/* The array of entry e, read at its offset: its type, elements, count. */
static hf_status tix_read_array(reader *r, const tix_entry *e, unsigned *type,
                                const uint8_t **data, uint64_t *count)
{
	const unsigned I = r->idsize;
	uint64_t start = e->at >> 16;
	unsigned tag = (e->at >> 15 & 1) ? TAG_HEAP_DUMP_SEGMENT : TAG_HEAP_DUMP;
	const uint8_t *head;
	size_t hl = 1 + I + 9, got;
	hf_input *in = r->tspool ? NULL : r->in;
	int fd = r->tspool ? fileno(r->tspool) : -1;
	hf_status st = window_read(r, &r->input_win, in, fd, start, hl, &head, &got);
	if (st)
		return st;
	unsigned t = got == hl ? head[1 + I + 8] : 0;
	uint64_t n = got == hl ? hf_be32(head + 1 + I + 4) : 0;
	uint64_t bytes = (t == T_CHAR || t == T_BYTE) ? n * type_size(r, t) : 0;
	if (r->tix_state == TIX_FULL && r->tspool && start + hl + bytes > r->tspool_end) {
		*data = NULL; /* past what the spool holds whole */
		*type = 0;
		*count = 0;
		return HF_OK;
	}
	int bad = got < hl || head[0] != SUB_PRIMITIVE_ARRAY_DUMP || hf_beid(head + 1, I) != e->id ||
	          (t != T_CHAR && t != T_BYTE) || bytes > HF_INPUT_MAX_PEEK;
	/* The sub-record whole in one window, so that the next String of the
	 * same array finds header and elements there again. */
	const uint8_t *whole = NULL;
	if (!bad && (st = window_read(r, &r->input_win, in, fd, start, hl + (size_t)bytes, &whole, &got)))
		return st;
	got = got > hl ? got - hl : 0;
	*data = whole ? whole + hl : NULL;
	if (r->tspool && (bad || got < bytes))
		return hf_error_set(r->err, HF_ERR_IO, "the temporary file of text arrays is damaged at offset %" PRIu64,
		                    start);
	if (bad)
		return fail(r, HF_ERR_FORMAT, start, tag, SUB_PRIMITIVE_ARRAY_DUMP,
		            "the input changed while it was read: the char[] or byte[] 0x%" PRIx64 " of the first pass is no longer here",
		            e->id);
	if (got < bytes)
		return fail(r, HF_ERR_TRUNCATED, start, tag, SUB_PRIMITIVE_ARRAY_DUMP,
		            "the input changed while it was read: it ends inside the elements of array 0x%" PRIx64,
		            e->id);
	*type = t;
	*count = n;
	return HF_OK;
}

/* A String whose array passed, decoded now if the index finds the array
 * (see "Strings settled in place"): *done, and ps is finished. */
static hf_status settle_in_place(reader *r, uint64_t value_id, pending_string *ps, bool *done)
{
	tix_entry e;
	*done = false;
	if (r->in_place_read > IN_PLACE_FREE + IN_PLACE_PER_BYTE * hf_input_offset(r->in) ||
	    !tix_find(r, value_id, &e))
		return HF_OK;
	unsigned t = 0;
	const uint8_t *data = NULL;
	uint64_t count = 0, before = r->win_read;
	hf_status st = tix_read_array(r, &e, &t, &data, &count);
	r->in_place_read += r->win_read - before;
	if (st || !data)
		return st;
	*done = true;
	r->stats->strings_in_place++;
	if ((st = decode_text(r, ps, t, data, count)))
		return st;
	return finish_pending(r, ps, 1);
}

/* The array of entry e, read at its offset, for the Strings waiting for it. */
static hf_status tix_resolve(reader *r, const tix_entry *e)
{
	unsigned t = 0;
	const uint8_t *data = NULL;
	uint64_t count = 0;
	hf_status st = tix_read_array(r, e, &t, &data, &count);
	if (st || !data)
		return st;
	r->dump = tix_dump(e);
	return resolve_late(r, e->id, t, data, count);
}

/*
 * The pass over the index for parked Strings, on two threads.  Its work is
 * small reads: the arrays, in file order, which a window mostly serves, and
 * each String's record in the park file, forward in each of its runs
 * (park_read_at).  A worker reads the park records of the next batch of
 * Strings while this thread reads the arrays of the batch before and writes
 * its Strings (a batch: the Strings of consecutive index entries; without a
 * thread, pf_start reads each batch here).  The records and their order are
 * those of the pass on one thread (resolve_refs for each entry), but for
 * errors: an entry none of whose Strings is still waiting has its array
 * read no more, so the input changed there goes unnoticed, as it does not
 * matter.  The worker touches neither the reader nor refs[]: it gets the
 * offsets and the runs' windows (which this thread leaves alone till the
 * pass ends), gives back the records.  Measured on the 5 GB dump, three
 * alternated runs to /dev/null, when each record took a pread and both
 * threads shared them: the passes (with the loading of the parked Strings
 * and their sort) 2.18-2.25 s on one thread, 1.45-1.58 s so; the whole run
 * 12.3-12.7 s -> 10.7-11.1 s.
 */
#define PF_BATCH 2048

/* Tests: hf_hprof_test_pf_batch set, batches of that many records (at most
 * PF_BATCH); hf_hprof_test_pf_fail set, the read of the pass's record of
 * that number (from 1) fails. */
size_t hf_hprof_test_pf_batch;
uint64_t hf_hprof_test_pf_fail;

typedef struct pf_item {
	tix_entry e;  /* the array's index entry */
	uint64_t off; /* the String's record in the park file */
	size_t ref;   /* its index in refs[] */
} pf_item;

/* The first record the reading could not read, and why. */
typedef struct pf_fail {
	size_t at; /* SIZE_MAX: none */
	int err;   /* errno, 0: the park file ended */
} pf_fail;

typedef struct pf_batch {
	pf_item item[PF_BATCH];
	parked_string rec[PF_BATCH];
	size_t n;
	uint64_t first;        /* the pass's number of item[0], from 1 */
	pf_fail fail;
} pf_batch;

typedef struct park_fetch {
	int fd;
	park_runs *runs;
	pf_batch *job;
} park_fetch;

/* Reads the records of b, till one fails. */
static void pf_read(park_fetch *f, pf_batch *b)
{
	b->fail.at = SIZE_MAX;
	b->fail.err = 0;
	for (size_t i = 0; i < b->n; i++) {
		int e = park_read_at(f->runs, f->fd, b->item[i].off, &b->rec[i], sizeof b->rec[i]);
		if (!e && b->first + i == hf_hprof_test_pf_fail)
			e = EIO;
		if (e) {
			b->fail.at = i;
			b->fail.err = e > 0 ? e : 0;
			return;
		}
	}
}

/* The worker's job. */
static void pf_run(void *arg)
{
	park_fetch *f = arg;
	pf_read(f, f->job);
}

/* Where the gathering of batches stands in the index. */
typedef struct pf_cursor {
	uint64_t pos;  /* next read in the index file */
	size_t n, i;   /* entries in r->tix_buf, the one looked at */
	size_t ref;    /* the next of its Strings in refs[], SIZE_MAX: none yet */
	uint64_t items; /* gathered so far */
	int end;
} pf_cursor;

static hf_status tix_io(reader *r, int e)
{
	return hf_error_set(r->err, HF_ERR_IO, "cannot read back the temporary file of text arrays: %s",
	                    e ? strerror(e) : "short read");
}

/* The next batch: the parked Strings still waiting of the next entries. */
static hf_status pf_gather(reader *r, pf_cursor *c, pf_batch *b)
{
	size_t cap = PF_BATCH;
	if (hf_hprof_test_pf_batch && hf_hprof_test_pf_batch < PF_BATCH)
		cap = hf_hprof_test_pf_batch;
	b->first = c->items + 1;
	b->n = 0;
	while (b->n < cap && !c->end) {
		if (c->ref != SIZE_MAX) {
			uint64_t id = r->tix_buf[c->i].id;
			if (c->ref < r->nrefs && r->refs[c->ref].array == id &&
			    r->refs[c->ref].dump == tix_dump(&r->tix_buf[c->i])) {
				r->late_walk++;
				if (!(r->refs[c->ref].off & REF_DONE)) {
					pf_item *it = &b->item[b->n++];
					it->e = r->tix_buf[c->i];
					it->off = r->refs[c->ref].off;
					it->ref = c->ref;
					c->items++;
				}
				c->ref++;
				continue;
			}
			c->ref = SIZE_MAX;
			c->i++;
			continue;
		}
		if (c->i == c->n) {
			size_t got;
			int e = hf_pread_full(fileno(r->tix_file), r->tix_buf, TIX_BUF * sizeof *r->tix_buf,
			                      c->pos, &got);
			if (e || got % sizeof *r->tix_buf)
				return tix_io(r, e);
			c->pos += (uint64_t)got;
			c->n = got / sizeof *r->tix_buf;
			c->i = 0;
			c->end = got == 0;
			continue;
		}
		uint64_t id = r->tix_buf[c->i].id;
		size_t k;
		if (filter_may_have(r, &r->late_bits, id) &&
		    (k = ref_find(r, id, tix_dump(&r->tix_buf[c->i]))) != SIZE_MAX)
			c->ref = k;
		else
			c->i++;
	}
	return HF_OK;
}

/* A batch's Strings, their records read: as resolve_refs would. */
static hf_status pf_resolve(reader *r, const pf_batch *b)
{
	/* A record that could not be read: all before it were. */
	const pf_fail *fl = &b->fail;
	for (size_t i = 0; i < b->n; i++) {
		const pf_item *it = &b->item[i];
		if (r->refs[it->ref].off & REF_DONE)
			continue; /* an earlier entry of the same id had it */
		unsigned t = 0;
		const uint8_t *data = NULL;
		uint64_t count = 0;
		hf_status st = tix_read_array(r, &it->e, &t, &data, &count);
		if (st)
			return st;
		r->dump = tix_dump(&it->e);
		if (i >= fl->at) {
			if (fl->err == ENOMEM)
				return nomem(r);
			errno = fl->err ? fl->err : EIO;
			return park_io(r);
		}
		if (!data)
			continue; /* its String waits on, to be written without text */
		pending_string ps;
		if ((st = parked_unpack(r, it->off, &b->rec[i], &ps)) ||
		    (st = resolve_ref(r, it->ref, &ps, t, data, count)))
			return st;
	}
	return HF_OK;
}

/* The reading of batch b begins, on the worker (or here without one). */
static void pf_start(park_fetch *f, hf_worker *w, bool threaded, pf_batch *b)
{
	b->fail.at = SIZE_MAX;
	f->job = b;
	if (threaded)
		hf_worker_post(w);
	else
		pf_run(f);
}

/* tix_pass for parked Strings (r->late_refs). */
static hf_status tix_pass_refs(reader *r)
{
	park_fetch f = { fileno(r->park_file), &r->runs, NULL };
	pf_batch *b[2] = { malloc(sizeof *b[0]), malloc(sizeof *b[1]) };
	if (!b[0] || !b[1]) {
		free(b[0]);
		free(b[1]);
		return nomem(r);
	}
	hf_worker w;
	memset(&w, 0, sizeof w);
	bool threaded = hf_worker_start(&w, pf_run, &f);
	pf_cursor c = { 0, 0, 0, SIZE_MAX, 0, 0 };
	unsigned cur = 0;
	hf_status st = pf_gather(r, &c, b[cur]);
	if (!st && b[cur]->n)
		pf_start(&f, &w, threaded, b[cur]);
	while (!st && b[cur]->n) {
		pf_batch *next = b[cur ^ 1];
		st = pf_gather(r, &c, next);
		hf_worker_wait(&w);
		if (st)
			break;
		if (next->n)
			pf_start(&f, &w, threaded, next);
		st = pf_resolve(r, b[cur]);
		cur ^= 1;
	}
	hf_worker_stop(&w);
	free(b[0]);
	free(b[1]);
	return st;
}

/* A pass over the index instead of the input. */
static hf_status tix_pass(reader *r)
{
	hf_status st = HF_OK;
	uint32_t dump = r->dump;
	int fd = fileno(r->tix_file);
	uint64_t pos = 0;
	r->rescan = 1;
	if (r->late_refs) {
		st = tix_pass_refs(r);
		r->dump = dump;
		return st;
	}
	for (;;) {
		size_t got;
		int e = hf_pread_full(fd, r->tix_buf, TIX_BUF * sizeof *r->tix_buf, pos, &got);
		if (e || got % sizeof *r->tix_buf) {
			st = tix_io(r, e);
			break;
		}
		if (got == 0)
			break;
		size_t n = got / sizeof *r->tix_buf;
		pos += (uint64_t)got;
		for (size_t i = 0; i < n && !st; i++) {
			uint64_t id = r->tix_buf[i].id;
			if (filter_may_have(r, &r->late_bits, id) && hf_map_get(&r->late_map, id) != NULL)
				st = tix_resolve(r, &r->tix_buf[i]);
		}
		if (st)
			break;
	}
	r->dump = dump;
	return st;
}

static hf_status rescan_late_without_input(reader *r);

/* The Strings whose array came earlier and left the cache: read the input
 * again, looking only at the char[] and byte[] they wait for. */
static hf_status rescan_late(reader *r)
{
	hf_status st;
	/* Parked Strings back in memory, if the spool stopped after the last
	 * String or array that would have done it. */
	if (r->spool_lost && (st = unpark_to_memory(r)))
		return st;
	/* Once Strings were parked, all that wait are: a pass each string_wait. */
	if (r->parked && (st = park_all(r)))
		return st;
	/* The passes look up no cached array: its memory goes to late_map. */
	cache_free(r);
	for (;;) {
		if (r->parked && (st = unpark_some(r)))
			return st;
		if (!r->late_map.count && !r->nrefs)
			return HF_OK;
		late_sort(r);
		if (r->tix_state == TIX_ON && ((r->tix_n && !tix_flush(r)) || (r->tspool && fflush(r->tspool))))
			tix_give_up(r);
		r->spool_lost = 0; /* (parked Strings, if any, are being read) */
		if (r->tix_state == TIX_NONE && hf_input_can_read_at(r->in) && !hf_hprof_test_reread) {
			/* No char[] or byte[] with contents in the whole input: a
			 * pass would find nothing. */
			r->stats->string_passes++;
		} else if (r->tix_state == TIX_ON || r->tix_state == TIX_FULL) {
			r->stats->string_passes++;
			if ((st = tix_pass(r)))
				return st;
		} else if (hf_input_can_rewind(r->in)) {
			if ((st = hf_input_rewind(r->in, r->err)))
				return st;
			r->stats->string_passes++;
			r->rescan = 1;
			r->dump = 0;
			r->dump_open = 0;
			if ((st = read_header(r)))
				return st;
			if ((st = read_records(r)))
				return st;
		}
		/* Strings not found in a whole pass never will be. */
		if ((st = rescan_late_without_input(r)))
			return st;
	}
}

/* Writes the nodes of Strings still waiting, without text. */
static hf_status rescan_late_without_input(reader *r)
{
	hf_status st;
	/* What is left waits for arrays that were never dumped (or, on a pipe,
	 * that came first): their nodes are written without text, those the
	 * pass went by first. */
	if ((st = finish_chain_without_text(r, r->late_dead)))
		return st;
	r->late_dead = UINT32_MAX;
	for (size_t i = 0; i < r->late_map.cap; i++) {
		hf_map_slot *sl = &r->late_map.slots[i];
		if (sl->key == HF_MAP_EMPTY)
			continue;
		if ((st = finish_chain_without_text(r, (uint32_t)sl->val)))
			return st;
	}
	if (r->late_map.has_empty_key) {
		st = finish_chain_without_text(r, (uint32_t)r->late_map.empty_key_val);
		if (st)
			return st;
	}
	if (r->late_refs && (st = finish_refs_without_text(r)))
		return st;
	hf_map_free(&r->late_map);
	r->late_refs = 0;
	r->nrefs = 0;
	filter_clear(&r->late_bits);
	pending_clear(r); /* pending[] held only these (the dumps have ended) */
	return HF_OK;
}

/* After damage (salvage): parked Strings are written without text too. */
static hf_status finish_parked_without_input(reader *r)
{
	hf_status st;
	if (r->parked && (st = park_all(r)))
		return st;
	while (r->park_read < r->parked) {
		if ((st = unpark_some(r)) || (st = rescan_late_without_input(r)))
			return st;
	}
	return HF_OK;
}

static hf_status trailer(reader *r)
{
	hf_status st;
	char buf[64];
	/* The passes for late Strings are over: what is said now is said once. */
	r->rescan = 0;
	if (r->opt->dump_index >= 0 && (uint64_t)r->opt->dump_index >= r->stats->dumps)
		return hf_error_set(r->err, HF_ERR_USAGE,
		                    "heap dump %ld was asked for, but the file holds %" PRIu64 " (numbered from 0)",
		                    (long)r->opt->dump_index, r->stats->dumps);
	if (r->stats->texts_cut &&
	    (st = warn(r, hf_input_offset(r->in),
	               "%" PRIu64 " text(s) of Strings or UTF8 records longer than the writer stores"
	               " (%zu bytes) cut there", r->stats->texts_cut, r->sink->max_text)))
		return st;
	if (r->names_after_use &&
	    (st = warn(r, hf_input_offset(r->in),
	               "%" PRIu64 " UTF8 records came after records that used their ids: those uses have no name"
	               " (label 0, values key #name<id>)", r->names_after_use)))
		return st;
	/* Known once the first object came (decide_model). */
	if ((st = hf_sink_metadata(r->sink, "hprof.vm", r->android ? "android" : "hotspot", r->err)))
		return st;
	struct { const char *k; uint64_t v; } counts[] = {
		{ "hprof.dumps", r->stats->dumps },
		{ "hprof.warnings", r->warnings },
		{ "hprof.unknown_tags", r->unknown_tags },
		{ "heapfmt.deferred_instances", r->stats->deferred_instances },
		{ "heapfmt.unresolved_strings", r->stats->unresolved_strings },
	};
	for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
		snprintf(buf, sizeof buf, "%" PRIu64, counts[i].v);
		if ((st = hf_sink_metadata(r->sink, counts[i].k, buf, r->err)))
			return st;
	}
	if (r->opt->values) {
		snprintf(buf, sizeof buf, "%" PRIu64, r->stats->values_omitted);
		if ((st = hf_sink_metadata(r->sink, "heapfmt.values_omitted", buf, r->err)))
			return st;
	}
	/* Only when it happened: it is the writer's limit, not the dump's. */
	if (r->stats->texts_cut) {
		snprintf(buf, sizeof buf, "%" PRIu64, r->stats->texts_cut);
		if ((st = hf_sink_metadata(r->sink, "heapfmt.texts_cut", buf, r->err)))
			return st;
	}
	if (r->unknown_list.len) {
		hf_buf_append(&r->unknown_list, "", 1);
		if ((st = hf_sink_metadata(r->sink, "hprof.unknown_tag_list",
		                           (const char *)r->unknown_list.data, r->err)))
			return st;
	}
	/* The size model, once decided: a dump without objects has none. */
	if (!r->android && r->idsize == 8 && r->coops_decided) {
		char align_text[16];
		snprintf(align_text, sizeof align_text, "%u", r->obj_align);
		snprintf(buf, sizeof buf, "%u", r->arr_header);
		if ((st = hf_sink_metadata(r->sink, "hprof.compressed_oops", r->coops ? "true" : "false",
		                           r->err)) ||
		    (st = hf_sink_metadata(r->sink, "hprof.compressed_class_pointers",
		                           r->obj_header != 16 ? "true" : "false", r->err)) ||
		    (st = hf_sink_metadata(r->sink, "hprof.compact_object_headers",
		                           r->obj_header == 8 ? "true" : "false", r->err)) ||
		    (st = hf_sink_metadata(r->sink, "hprof.array_header", buf, r->err)) ||
		    (st = hf_sink_metadata(r->sink, "hprof.object_alignment", align_text, r->err)) ||
		    (st = hf_sink_metadata(r->sink, "hprof.size_model_from",
		                           r->model_from ? r->model_from : "address", r->err)))
			return st;
	}
	if (r->stats->incomplete) {
		char line[512];
		hf_error_format(&r->stats->damage, line, sizeof line);
		snprintf(buf, sizeof buf, "%" PRIu64, r->stats->stopped_at);
		if ((st = hf_sink_metadata(r->sink, "heapfmt.stopped_at", buf, r->err)) ||
		    (st = hf_sink_metadata(r->sink, "heapfmt.damage", line, r->err)))
			return st;
	}
	return hf_sink_metadata(r->sink, "heapfmt.complete", r->stats->incomplete ? "false" : "true",
	                        r->err);
}

void hf_hprof_options_init(hf_hprof_options *opt)
{
	memset(opt, 0, sizeof *opt);
	opt->dump_index = -1;
	opt->compressed_oops = -1;
}

hf_status hf_hprof_read(hf_input *in, hf_sink *sink, const hf_hprof_options *opt,
                        hf_hprof_stats *stats, hf_error *err)
{
	hf_hprof_options defaults;
	hf_hprof_stats local;
	if (!opt) {
		hf_hprof_options_init(&defaults);
		opt = &defaults;
	}
	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof *stats);
	reader *r = calloc(1, sizeof *r);
	if (!r)
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	r->in = in;
	r->sink = sink;
	r->opt = opt;
	r->stats = stats;
	r->err = err;
	r->next_sid = 1;
	r->last_class_ix = SIZE_MAX;
	r->obj_align = 8;        /* until the size model is decided */
	r->pending_free = UINT32_MAX;
	r->late_dead = UINT32_MAX;
	r->string_wait = opt->string_wait ? opt->string_wait : DEFAULT_STRING_WAIT;
	r->values_limit = opt->values_limit ? opt->values_limit : HF_VALUES_LIMIT_DEFAULT;
	if (sink->max_text && r->values_limit > sink->max_text)
		r->values_limit = sink->max_text;
	r->in_place = sink->key_order && hf_input_can_read_at(in);
	r->chunk_no = SIZE_MAX;
	r->cache_cap = opt->string_cache ? opt->string_cache : DEFAULT_STRING_CACHE;
	/* A way per 32 bytes of ring (the arrays of Strings are small). */
	unsigned setbits = 1;
	while (setbits < 40 && ((size_t)CACHE_WAYS * 32 << setbits) < r->cache_cap)
		setbits++;
	r->cache_setmask = ((size_t)1 << setbits) - 1;
	r->id_shift = 3;
	/* Looked up at random: on huge pages (bigmem.c), mapped when used. */
	r->cache_ring = hf_huge_alloc(r->cache_cap);
	r->cache = hf_huge_alloc(((size_t)CACHE_WAYS << setbits) * sizeof *r->cache);
	hf_status st;
	if (!r->cache_ring || !r->cache) {
		st = hf_error_set(err, HF_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((st = read_header(r)))
		goto out;
	const char *source = opt->source_name ? opt->source_name : hf_input_name(in);
	if ((st = declare_all(r, source)))
		goto out;
	if ((st = read_records(r))) {
		bool keep = st != HF_ERR_NOMEM && st != HF_ERR_IO && st != HF_ERR_USAGE;
		if (!opt->salvage || !keep) {
			stats->salvageable = keep;
			goto out;
		}
		/* Keep what came before the damage: close the dump (deferred
		 * instances, waiting Strings) and say where the reader stopped. */
		keep_damage(r);
		if ((st = dump_close(r)))
			goto out;
	} else if ((st = rescan_late(r))) {
		goto out;
	}
	if (stats->incomplete &&
	    ((st = rescan_late_without_input(r)) || (st = finish_parked_without_input(r))))
		goto out;
	st = trailer(r);
out:
	/* (Counted by the reader, added once: readers may run on threads.) */
	__atomic_fetch_add(&hf_hprof_test_late_walk, r->late_walk, __ATOMIC_RELAXED);
	if (r->spool_file)
		fclose(r->spool_file);
	if (r->park_file)
		fclose(r->park_file);
	tix_stop(r);
	free(r->spans);
	free(r->chunk);
	runs_free(&r->runs);
	free(r->run);
	hf_buf_free(&r->run_vals);
	window_free(&r->input_win);
	for (size_t i = 0; i < r->nclasses; i++) {
		free(r->classes[i].fields);
		free(r->classes[i].flat);
		free(r->classes[i].refs);
	}
	free(r->classes);
	free(r->names);
	for (size_t i = 0; i < r->npending; i++)
		free(r->pending[i].values);
	free(r->pending);
	free(r->refs);
	for (unsigned i = 0; i < r->nfresh; i++)
		free(r->fresh[fresh_at(r, i)].values);
	cache_free(r);
	hf_map_free(&r->name_map);
	hf_map_free(&r->class_map);
	hf_map_free(&r->class_name);
	hf_map_free(&r->class_java_name);
	hf_map_free(&r->serial_class);
	hf_map_free(&r->late_names);
	hf_map_free(&r->missed_names);
	hf_buf_free(&r->late_classes);
	hf_map_free(&r->class_serial);
	hf_map_free(&r->heaps_seen);
	hf_map_free(&r->pending_map);
	hf_map_free(&r->late_map);
	free(r->pending_bits.bits);
	free(r->late_bits.bits);
	hf_buf_free(&r->name_arena);
	hf_buf_free(&r->spool);
	hf_buf_free(&r->pending_classes);
	hf_buf_free(&r->class_values);
	hf_buf_free(&r->text);
	hf_buf_free(&r->json);
	hf_buf_free(&r->tmp);
	hf_buf_free(&r->unknown_list);
	free(r);
	return st;
}
