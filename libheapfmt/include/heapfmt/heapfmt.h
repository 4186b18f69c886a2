/*
 * heapfmt: heap dumps (HPROF, DDM) into the extensible node/edge/string format.
 *
 * The library never prints and never exits.  Every call that can fail returns
 * an hf_status and fills an hf_error that says where (input offset, record
 * tag) and what.  A reader turns input bytes into model records and hands them
 * to an hf_sink; a writer is an hf_sink that stores them (NDJSON, SQLite).
 *
 * The model follows the extensible heap-dump format: metadata, then declared
 * types (node subtypes, edge subtypes, extra record types with their fields),
 * then nodes, edges, strings and extra records in any order.
 */
#ifndef HEAPFMT_H
#define HEAPFMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Symbols of the public API are exported; everything else stays inside. */
#if defined(HEAPFMT_BUILDING) && defined(__GNUC__)
#define HF_API __attribute__((visibility("default")))
#else
#define HF_API
#endif

#define HEAPFMT_VERSION "0.1.0"
/* Version of the file format written (metadata key version_major). */
#define HEAPFMT_FORMAT_MAJOR "1"
/* Version of the heapfmt schema on top of it (metadata key heapfmt.schema). */
#define HEAPFMT_SCHEMA_VERSION "1"

/* ---- errors ------------------------------------------------------------ */

typedef enum hf_status {
	HF_OK = 0,
	HF_ERR_FORMAT = 1,   /* input is not what it claims, or is damaged */
	HF_ERR_TRUNCATED = 2,/* input ends inside a record */
	HF_ERR_IO = 3,       /* cannot read or write a file */
	HF_ERR_NOMEM = 4,    /* allocation failed */
	HF_ERR_LIMIT = 5,    /* a declared size exceeds a resource limit */
	HF_ERR_UNSUPPORTED = 6, /* a format we recognise but do not read */
	HF_ERR_USAGE = 7     /* the caller passed something wrong */
} hf_status;

typedef struct hf_error {
	hf_status status;
	int has_offset;
	uint64_t offset;     /* byte offset in the (decompressed) input */
	char tag[48];        /* record or chunk tag, e.g. "HEAP DUMP SEGMENT/INSTANCE DUMP" */
	char message[320];
} hf_error;

/* Fills err (if status != HF_OK) and returns status. */
HF_API hf_status hf_error_set(hf_error *err, hf_status status, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
HF_API hf_status hf_error_at(hf_error *err, hf_status status, uint64_t offset,
                      const char *tag, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;
HF_API const char *hf_status_name(hf_status status);
/* One line, no newline: "offset 1234 (HEAP DUMP SEGMENT): message". */
HF_API void hf_error_format(const hf_error *err, char *buf, size_t size);

/* ---- input layer ------------------------------------------------------- */

typedef enum hf_compression {
	HF_COMPRESSION_NONE = 0,
	HF_COMPRESSION_GZIP = 1
} hf_compression;

typedef struct hf_input hf_input;

/* Opens path ("-" = standard input).  gzip is detected by its magic and
 * inflated while streaming; bzip2, xz and zstd get an HF_ERR_UNSUPPORTED
 * naming the format. */
HF_API hf_status hf_input_open(hf_input **out, const char *path, hf_error *err);
/* Wraps a caller-owned memory buffer (no copy); used by tests and fuzzers. */
HF_API hf_status hf_input_open_memory(hf_input **out, const void *data, size_t size,
                               hf_error *err);
HF_API void hf_input_close(hf_input *in);

/* Makes at least `want` contiguous bytes available at *p unless the input
 * ends first; *avail says how many there are (may exceed want).  want is
 * capped by HF_INPUT_MAX_PEEK. */
#define HF_INPUT_MAX_PEEK ((size_t)64 << 20)
HF_API hf_status hf_input_peek(hf_input *in, size_t want, const uint8_t **p,
                        size_t *avail, hf_error *err);
/* For a look ahead that can do with less: as hf_input_peek, but when the
 * input fails (a gzip stream cut short, a read error) after some bytes, it
 * gives those (*avail < want, as at the end of the input) and keeps the
 * failure for the next peek that needs more; the error only when no byte
 * is left before it. */
HF_API hf_status hf_input_peek_some(hf_input *in, size_t want, const uint8_t **p,
                             size_t *avail, hf_error *err);
HF_API void hf_input_consume(hf_input *in, size_t n);
/* Starts again from the first byte (regular files, gzip files, memory);
 * HF_ERR_UNSUPPORTED for pipes and terminals. */
HF_API hf_status hf_input_rewind(hf_input *in, hf_error *err);
HF_API int hf_input_can_rewind(const hf_input *in);
/* Skips n bytes; *skipped < n means the input ended. */
HF_API hf_status hf_input_skip(hf_input *in, uint64_t n, uint64_t *skipped,
                        hf_error *err);
HF_API uint64_t hf_input_offset(const hf_input *in);
/* Size of the uncompressed input when known (regular uncompressed file),
 * else 0.  Bytes of the raw file read so far, for progress. */
HF_API uint64_t hf_input_size(const hf_input *in);
HF_API uint64_t hf_input_raw_offset(const hf_input *in);
HF_API uint64_t hf_input_raw_size(const hf_input *in);
HF_API hf_compression hf_input_compression(const hf_input *in);
HF_API const char *hf_input_name(const hf_input *in);

/* ---- model: declared types --------------------------------------------- */

typedef enum hf_field_kind {
	HF_FIELD_INT = 0,    /* signed 64-bit integer */
	HF_FIELD_ID = 1,     /* unsigned 64-bit object identifier (0 = none) */
	HF_FIELD_STRREF = 2, /* id of a string record (0 = none) */
	HF_FIELD_TEXT = 3,   /* inline UTF-8 text */
	HF_FIELD_REAL = 4,   /* double */
	HF_FIELD_JSON = 5    /* a JSON value, as UTF-8 JSON text (NULL = absent) */
} hf_field_kind;

HF_API const char *hf_field_kind_name(hf_field_kind kind);
HF_API int hf_field_kind_parse(const char *name, hf_field_kind *kind);

typedef struct hf_field {
	const char *name;
	hf_field_kind kind;
	const char *doc;
	int indexed;         /* the SQLite writer indexes this column */
} hf_field;

typedef enum hf_type_class {
	HF_TYPE_NODE = 0,    /* a node subtype: extra fields beyond the node's own */
	HF_TYPE_EDGE = 1,    /* an edge subtype: no extra fields; label meaning */
	HF_TYPE_RECORD = 2   /* an extra top-level record type */
} hf_type_class;

typedef struct hf_type {
	hf_type_class cls;
	int id;              /* numeric subtype for nodes and edges; 0 for records */
	const char *name;    /* "instance", "hprof.gc_root" */
	const char *table;   /* SQL table name */
	const hf_field *fields;
	size_t nfields;
	/* edges: what the label holds: "string" (a string id), "index", "none" */
	const char *label;
	const char *doc;
} hf_type;

/* A field value; which member is used follows the field kind.  For TEXT and
 * JSON, s may be NULL (absent). */
typedef struct hf_value {
	int64_t i;
	uint64_t u;
	double d;
	const char *s;
	size_t n;
	int present;         /* 0: the field is absent (SQL NULL, omitted in JSON) */
} hf_value;

/* Common node fields; `values` follows type->fields. */
typedef struct hf_node {
	const hf_type *type;
	uint64_t id;         /* the dump's own object id */
	uint32_t dump;       /* index of the heap dump within the file, from 0 */
	uint64_t class_id;   /* id of the class node (0 = unknown) */
	uint64_t size;       /* shallow size in bytes (see schema docs) */
	uint32_t heap;       /* Android heap id (0 = default / not Android) */
	const hf_value *values;
} hf_node;

typedef struct hf_edge {
	const hf_type *type;
	uint64_t source;
	uint64_t dest;
	uint64_t label;      /* string id or index, per type->label */
	uint32_t dump;
} hf_edge;

typedef struct hf_record {
	const hf_type *type;
	const hf_value *values;
} hf_record;

/* ---- sinks (writers) ---------------------------------------------------- *
 * A record names its type by address.  A writer may keep what it needs of a
 * type from the first record that uses it, found again by that address (the
 * NDJSON writer formats on a second thread): while a sink is in use, do not
 * change a type's name or fields in place, nor give a freed type's memory
 * to another type.  The built-in readers keep their types unchanged until
 * they return. */

typedef struct hf_sink hf_sink;
typedef struct hf_sink_ops {
	hf_status (*metadata)(hf_sink *s, const char *key, const char *value,
	                      hf_error *err);
	hf_status (*declare)(hf_sink *s, const hf_type *type, hf_error *err);
	hf_status (*string)(hf_sink *s, uint64_t id, const char *utf8, size_t len,
	                    hf_error *err);
	hf_status (*node)(hf_sink *s, const hf_node *node, hf_error *err);
	hf_status (*edge)(hf_sink *s, const hf_edge *edge, hf_error *err);
	hf_status (*record)(hf_sink *s, const hf_record *rec, hf_error *err);
	/* Called once after the last record when everything succeeded. */
	hf_status (*finish)(hf_sink *s, hf_error *err);
	/* Always called last; frees; on failure leaves no output behind. */
	void (*destroy)(hf_sink *s, int success);
} hf_sink_ops;

struct hf_sink {
	const hf_sink_ops *ops;
	void *impl;
	/* Counts of what went through, by record class (filled by hf_sink_*). */
	uint64_t n_metadata, n_types, n_strings, n_nodes, n_edges, n_records;
	/* The longest TEXT or JSON value the writer can store, in bytes (0: no
	 * limit); a reader keeps its optional values under it (the HPROF
	 * reader's values_limit) and cuts longer strings.  The database
	 * writer's is SQLite's SQLITE_LIMIT_LENGTH less 64 KiB (a row's other
	 * columns). */
	size_t max_text;
	/* Set by a writer for which records out of key order (a node whose id
	 * is below one written before) cost much more than some extra work in
	 * the reader: the database writer, where such a row goes into the middle
	 * of its tables.  A reader that can give its records in a better order
	 * at some cost of its own then does (the HPROF reader decodes a String
	 * whose array has passed at once, reading the array again, instead of
	 * writing it in a later pass).  The records are the same either way,
	 * but for damaged input read with salvage, where no pass runs: there a
	 * String settled so before the damage keeps the text that a parked one
	 * goes without. */
	int key_order;
};

HF_API hf_status hf_sink_metadata(hf_sink *s, const char *key, const char *value,
                           hf_error *err);
HF_API hf_status hf_sink_declare(hf_sink *s, const hf_type *type, hf_error *err);
HF_API hf_status hf_sink_string(hf_sink *s, uint64_t id, const char *utf8, size_t len,
                         hf_error *err);
HF_API hf_status hf_sink_node(hf_sink *s, const hf_node *node, hf_error *err);
HF_API hf_status hf_sink_edge(hf_sink *s, const hf_edge *edge, hf_error *err);
HF_API hf_status hf_sink_record(hf_sink *s, const hf_record *rec, hf_error *err);
HF_API hf_status hf_sink_finish(hf_sink *s, hf_error *err);
HF_API void hf_sink_destroy(hf_sink *s, int success);

/* NDJSON to a stream the caller owns (not closed). */
HF_API hf_status hf_ndjson_sink_new(hf_sink **out, FILE *fp, hf_error *err);
/* NDJSON to a path, written to a temporary name and renamed by finish. */
HF_API hf_status hf_ndjson_sink_open(hf_sink **out, const char *path, hf_error *err);

typedef struct hf_heapdb_options {
	int force;           /* replace an existing output file */
	int no_index;        /* skip index creation (faster, for bulk pipelines) */
	int analysis;        /* on finish, analyse the graph into node_analysis and
	                      * dump_analysis (heapfmt/analysis.h; needs GC roots) */
	size_t analysis_memory; /* the analysis's memory_limit (heapfmt/analysis.h) */
} hf_heapdb_options;
/* SQLite database at path, built under a temporary name, renamed on finish. */
HF_API hf_status hf_heapdb_sink_open(hf_sink **out, const char *path,
                              const hf_heapdb_options *opt, hf_error *err);

/* Removes the temporary files of the outputs being written (those of
 * hf_ndjson_sink_open, hf_heapdb_sink_open and the other writers to a path,
 * until they are renamed into place or dropped).  Async-signal-safe: for a
 * program's handler of SIGINT or SIGTERM, so that an interrupted run leaves
 * nothing behind; the writers themselves still hold the files open. */
HF_API void hf_remove_partial_outputs(void);

/* Calls fn(path, ctx) each time a writer creates the temporary file it will
 * rename into place (the names hf_remove_partial_outputs knows), on the
 * creating thread; NULL stops it.  For a supervising process: a conversion
 * killed by SIGKILL, which no handler sees, leaves that file behind, and the
 * supervisor that was told its name can remove it.  Set it before any writer
 * is opened. */
HF_API void hf_on_temp_output(void (*fn)(const char *path, void *ctx), void *ctx);

/* ---- readers ------------------------------------------------------------ */

typedef void (*hf_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* A reader's warning as it is met: the text of the metadata record it
 * writes (hprof.warning, ddm.warning: "offset N (...): what"), for a caller
 * that tells its user (the programs print the first few on stderr).  The
 * first HF_WARNINGS_KEPT of a run are written and passed on; the others are
 * only counted (the stats' warnings). */
typedef void (*hf_warning_fn)(void *ctx, const char *text);
#define HF_WARNINGS_KEPT 20

typedef struct hf_hprof_options {
	int values;          /* also write primitive field values and array contents */
	long dump_index;     /* -1: every dump; else only this one (0-based) */
	int compressed_oops; /* HotSpot 64-bit size model: -1 auto, 0 no, 1 yes */
	const char *source_name; /* for metadata target_file; NULL = input name */
	const char *crtime;  /* ISO-8601; NULL = now (or SOURCE_DATE_EPOCH) */
	const char *generator; /* program name for metadata; NULL = "heapfmt" */
	hf_progress_fn progress;
	void *progress_ctx;
	size_t spool_memory; /* bytes of deferred instances kept in memory (0 = default) */
	size_t string_cache; /* bytes of recent char/byte arrays kept to decode Strings */
	int salvage;         /* on damaged input keep what came before (see stats) */
	size_t string_wait;  /* Strings kept waiting for their array in memory before
	                      * they are parked on disk for another pass (0 = default) */
	size_t values_limit; /* with values: the longest values JSON text of one node
	                      * (array, instance, class), in bytes; a longer one is
	                      * not written, with a warning (0 = HF_VALUES_LIMIT_DEFAULT,
	                      * SIZE_MAX = no limit but the sink's max_text).  A
	                      * dump's classes, which wait for its end, also have
	                      * the larger of this and the default in all. */
	hf_warning_fn warning; /* NULL: the warnings go only into the output */
	void *warning_ctx;
} hf_hprof_options;
#define HF_VALUES_LIMIT_DEFAULT ((size_t)64 << 20)

HF_API void hf_hprof_options_init(hf_hprof_options *opt);

typedef struct hf_hprof_stats {
	uint64_t records, heap_records, dumps;
	uint64_t classes, instances, object_arrays, primitive_arrays;
	uint64_t roots, strings, string_texts, edges;
	uint64_t unknown_tags, deferred_instances, unresolved_strings;
	uint64_t warnings;
	uint64_t parked_strings, string_passes; /* Strings parked on disk; passes over the
	                                         * input for waiting Strings */
	/* With salvage: the input was damaged; everything before stopped_at was
	 * converted and the output's metadata says heapfmt.complete=false.
	 * damage holds the error that stopped the reader. */
	int incomplete;
	uint64_t stopped_at;
	hf_error damage;
	uint64_t values_omitted; /* with values: nodes whose values text passed values_limit,
	                          * written without it */
	uint64_t texts_cut;      /* strings longer than the sink's max_text, cut there */
	uint64_t strings_in_place; /* Strings whose array had passed, decoded at once from
	                            * the input instead of parked (hf_sink.key_order) */
	int salvageable;         /* without salvage: the error returned is damage that
	                          * salvage would have kept what came before */
} hf_hprof_stats;

/* Reads an HPROF dump from in and writes the model into sink. */
HF_API hf_status hf_hprof_read(hf_input *in, hf_sink *sink,
                        const hf_hprof_options *opt, hf_hprof_stats *stats,
                        hf_error *err);

/* ---- small shared helpers ----------------------------------------------- */

/* Decodes modified UTF-8 / CESU-8 leniently into standard UTF-8: 0xC0 0x80
 * becomes U+0000, surrogate pairs written as two 3-byte sequences are
 * joined, anything invalid becomes U+FFFD.  out must hold 2*len+4 bytes
 * (the worst case: every byte invalid, 3 bytes out).  Returns bytes written. */
HF_API size_t hf_mutf8_decode(const uint8_t *in, size_t len, char *out);
#define HF_MUTF8_OUT_MAX(len) ((len) * 3 + 4)
/* UTF-16 code units (big- or little-endian) to UTF-8; unpaired surrogates
 * become U+FFFD.  out must hold 3*nunits+4 bytes. */
HF_API size_t hf_utf16_decode(const uint8_t *in, size_t nunits, int little_endian,
                       char *out);
/* Latin-1 bytes to UTF-8; out must hold 2*len+4 bytes. */
HF_API size_t hf_latin1_decode(const uint8_t *in, size_t len, char *out);

/* The current time as ISO-8601 UTC, or SOURCE_DATE_EPOCH when set. */
HF_API void hf_crtime_now(char *buf, size_t size);

/* ---- DDM readers (allocation reports, heap-segment streams) ---------------
 * See ddm_alloc.c and ddm_stream.c for the decisions taken where the format
 * leaves a choice, and man/alloc2ndjson.1, man/hpsg2ndjson.1. */

/* Order of the entries of an allocation report (nothing in the bytes tells). */
typedef enum hf_alloc_order {
	HF_ALLOC_ORDER_AUTO = 0,         /* guess: HELO VM version, else thread-id style */
	HF_ALLOC_ORDER_NEWEST_FIRST = 1, /* ART 7.0 and later (ddmlib's numbering) */
	HF_ALLOC_ORDER_OLDEST_FIRST = 2  /* Dalvik, ART 5.x-6.0 */
} hf_alloc_order;

typedef struct hf_alloc_options {
	hf_alloc_order order;
	uint64_t max_size;       /* largest report accepted in bytes (0 = 1 GiB) */
	const char *source_name; /* metadata target_file; NULL = input name */
	const char *crtime;      /* ISO-8601; NULL = now (or SOURCE_DATE_EPOCH) */
	const char *generator;   /* program name for metadata; NULL = "libheapfmt" */
	hf_warning_fn warning;   /* NULL: the warnings go only into the output */
	void *warning_ctx;
} hf_alloc_options;

HF_API void hf_alloc_options_init(hf_alloc_options *opt);

typedef struct hf_alloc_stats {
	uint64_t reports;        /* REAL reports decoded */
	uint64_t entries;        /* allocations written */
	uint64_t header_entries; /* sum of the counts the headers declare */
	uint64_t count_overflows;/* reports whose u2 count had wrapped (Dalvik) */
	uint64_t frames, stacks; /* distinct frames and stacks written */
	uint64_t strings;        /* string records written */
	uint64_t trailing_bytes; /* bytes after the third string table (ignored) */
	uint64_t warnings;
} hf_alloc_stats;

/* Reads one allocation-tracker report (the REAL reply payload; an Android
 * Studio .alloc file) and writes it into sink. */
HF_API hf_status hf_alloc_read(hf_input *in, hf_sink *sink,
                               const hf_alloc_options *opt, hf_alloc_stats *stats,
                               hf_error *err);

/* What a DDM stream file is (ddm-stream.md 3.2). */
typedef enum hf_ddm_shape {
	HF_DDM_SHAPE_AUTO = 0,   /* told apart from the first bytes */
	HF_DDM_SHAPE_JDWP = 1,   /* JDWP packets, optionally after JDWP-Handshake */
	HF_DDM_SHAPE_CHUNKS = 2, /* bare chunks: 4-letter type, u4 length, payload */
	HF_DDM_SHAPE_PAYLOAD = 3 /* the payload of a single chunk (see payload_type) */
} hf_ddm_shape;

typedef struct hf_ddm_options {
	hf_ddm_shape shape;
	uint32_t payload_type;   /* shape PAYLOAD: chunk type ('HPSG' ...); 0 = guess */
	hf_alloc_order order;    /* for REAL reports in the stream */
	int lenient;             /* ignored (kept for source compatibility): an
	                          * unpaired HPST/HPEN or a segment outside a series
	                          * is a warning unless strict is set */
	uint64_t max_chunk;      /* largest chunk payload decoded, also after
	                          * inflating a ZLIB chunk (0 = 1 GiB) */
	const char *source_name; /* metadata target_file; NULL = input name */
	const char *crtime;      /* ISO-8601; NULL = now (or SOURCE_DATE_EPOCH) */
	const char *generator;   /* program name for metadata; NULL = "libheapfmt" */
	hf_progress_fn progress;
	void *progress_ctx;
	int salvage;             /* on damaged input keep what came before: open
	                          * series end incomplete (see stats) */
	int strict;              /* an unpaired HPST/HPEN (NHST/NHEN), a segment
	                          * outside a series or a series still open at the
	                          * end is an error, not a warning */
	hf_warning_fn warning;   /* NULL: the warnings go only into the output */
	void *warning_ctx;
} hf_ddm_options;

HF_API void hf_ddm_options_init(hf_ddm_options *opt);

typedef struct hf_ddm_stats {
	uint64_t packets, ddm_packets, other_packets, handshakes;
	uint64_t chunks, zlib_chunks, unknown_chunks, request_chunks;
	uint64_t heap_infos, heap_dumps, segments, runs, zero_unit_runs;
	uint64_t thread_events;
	hf_alloc_stats alloc;    /* REAL reports found in the stream */
	uint64_t warnings;
	/* With salvage: the input was damaged; everything before stopped_at was
	 * written, and metadata heapfmt.complete is false; damage holds the error
	 * that stopped the reader. */
	int incomplete;
	uint64_t stopped_at;
	hf_error damage;
	int salvageable;         /* as hf_hprof_stats' */
} hf_ddm_stats;

/* Reads a recorded DDM stream (JDWP bytes, bare chunks or one chunk payload)
 * and writes heap info, heap segments and runs, allocation reports, threads
 * and process information into sink. */
HF_API hf_status hf_ddm_read(hf_input *in, hf_sink *sink, const hf_ddm_options *opt,
                             hf_ddm_stats *stats, hf_error *err);

/* "HPSG" -> 0x48505347; 0 if s is not four characters from 0x20-0x7E. */
HF_API uint32_t hf_ddm_chunk_type(const char *s);
/* 1 when hf_ddm_read decodes the payload of chunks of this type (HPIF, HPSG,
 * REAL, ZLIB ...); 0 when it only records them (HPGC, unknown types). */
HF_API int hf_ddm_chunk_decoded(uint32_t type);

#ifdef __cplusplus
}
#endif
#endif
