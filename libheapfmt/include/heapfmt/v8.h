/*
 * heapfmt: V8 heap snapshots (.heapsnapshot, written by Node.js
 * v8.writeHeapSnapshot() and Chrome DevTools) to and from the extensible
 * node/edge/string heap-dump format.
 *
 * hf_v8_read streams a snapshot into any hf_sink (NDJSON, SQLite) in one
 * pass with bounded memory; hf_v8_export writes a heap database (from a
 * snapshot, from HPROF, from any producer) as a .heapsnapshot.  See
 * man/heapsnapshot2ndjson.1 and man/heapdb2heapsnapshot.1 for the mapping
 * both ways and what it loses.
 */
#ifndef HEAPFMT_V8_H
#define HEAPFMT_V8_H

#include "heapfmt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Node subtype numbers are HF_V8_NODE_BASE + the type's index in the
 * snapshot's meta.node_types[type], edge subtype numbers HF_V8_EDGE_BASE +
 * the index in meta.edge_types[type] (1-4 and 1-8 belong to the JVM
 * mapping). */
#define HF_V8_NODE_BASE 32
#define HF_V8_EDGE_BASE 32

typedef struct hf_v8_options {
	const char *source_name; /* metadata target_file; NULL = input name */
	const char *crtime;      /* ISO-8601; NULL = now (or SOURCE_DATE_EPOCH) */
	const char *generator;   /* program name for metadata; NULL = "libheapfmt" */
	uint64_t max_string;     /* longest string accepted, bytes of UTF-8 (0 = 64 MiB) */
	hf_progress_fn progress;
	void *progress_ctx;
	size_t window;           /* bytes looked at per refill (0 = 64 KiB; tests use tiny ones) */
} hf_v8_options;

HF_API void hf_v8_options_init(hf_v8_options *opt);

typedef struct hf_v8_stats {
	uint64_t nodes, edges, strings;
	uint64_t trace_function_infos, trace_nodes, samples, locations;
	uint64_t ignored_keys;   /* top-level keys heapfmt does not know (kept as metadata) */
	uint64_t node_table_bytes; /* memory held for the node index -> id table */
} hf_v8_stats;

/* Reads a V8 heap snapshot from in (plain or gzip) and writes the model
 * into sink.  Memory: 8 bytes per node (the id and edge count of each node
 * index, needed to turn the edges' to_node indexes into ids; 12 when an id
 * needs more than 32 bits), the longest string, the "snapshot" header
 * object (at most 1 MiB) and the depth of the trace tree. */
HF_API hf_status hf_v8_read(hf_input *in, hf_sink *sink, const hf_v8_options *opt,
                            hf_v8_stats *stats, hf_error *err);

typedef struct hf_v8_export_options {
	long dump;               /* heap dump of the database to export (default 0) */
	const char *generator;   /* unused in the output; for messages */
	hf_progress_fn progress; /* called with nodes+edges written of the total */
	void *progress_ctx;
} hf_v8_export_options;

HF_API void hf_v8_export_options_init(hf_v8_export_options *opt);

typedef struct hf_v8_export_stats {
	uint64_t nodes, edges, strings;      /* as written */
	uint64_t synthetic_nodes, synthetic_edges; /* the root and GC-root groups heapfmt made */
	uint64_t dangling_edges;  /* edges whose source or dest is not a node of the dump: left out */
	uint64_t dangling_roots;  /* GC roots holding an object not in the dump: left out */
	uint64_t trace_function_infos, trace_nodes, samples, locations;
	int v8_origin;            /* 1: the database was made from a V8 snapshot */
} hf_v8_export_stats;

/* Writes heap dump opt->dump of the heap database at db_path as a V8 heap
 * snapshot to out_path ("-" = standard output).  A file is written under a
 * temporary name beside out_path and renamed when complete; a device or FIFO
 * is written in place.  Memory: 12 bytes per node of the dump (its id, in
 * order, and its edge count), a map entry per distinct string used as a
 * name (about 32 bytes), one per class (class names) and per GC-root kind. */
HF_API hf_status hf_v8_export(const char *db_path, const char *out_path,
                              const hf_v8_export_options *opt, hf_v8_export_stats *stats,
                              hf_error *err);

#ifdef __cplusplus
}
#endif
#endif
