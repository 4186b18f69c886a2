/*
 * heapfmt translators: the two physical forms of the format read back into
 * any sink, so that NDJSON and the SQLite heap database translate into each
 * other (ndjson2heapdb, heapdb2ndjson) without loss.
 *
 * hf_ndjson_read() reads NDJSON lines (as written by hf_ndjson_sink, or by
 * any other producer of the format) and rebuilds every declared type from its
 * node_type, edge_type and record_type line, so record types this version
 * does not know pass through like the ones it does.
 *
 * hf_heapdb_read() reads a heap database (as written by hf_heapdb_sink) in
 * the CANONICAL ORDER, which is a function of the records alone:
 *
 *   1. metadata, in the order it was written (file order), but for
 *      heapfmt.complete, which comes last of all (7.), as its writer wrote it;
 *   2. declarations: node_type by subtype number, then edge_type by subtype
 *      number, then record_type in declaration order;
 *   3. string records by id;
 *   4. nodes by (identifier, dump);
 *   5. edges by (source, dump, seq): the references out of one object
 *      together, in the order they were written;
 *   6. extra records, type by type in declaration order, the records of one
 *      type in the order they were written;
 *   7. metadata heapfmt.complete, when the database has it: a reader of the
 *      NDJSON takes a stream that does not end with it as cut short.
 *
 * Ids are ordered as SQLite stores them, as signed 64-bit integers (an id of
 * 2^63 or more, which no dump seen so far has, sorts before the others).
 * This is the order of the database's own keys, so it is read with plain
 * index scans: no sort, memory bounded whatever the size.
 *
 * NDJSON -> database -> NDJSON gives the same records; and when the first
 * NDJSON was in canonical order, byte-identical NDJSON.  Converting any
 * NDJSON to a database and back (heapdb2ndjson) is how to canonicalise it.
 *
 * What a heap database does not keep, and so the canonical form does not
 * either: where metadata lines stood among the other records (all metadata
 * comes first, heapfmt.complete last), the order of records of different types relative to each
 * other, a "table" key on an edge_type line, keys on lines that no
 * declaration names (refused by default, see ignore_unknown_keys), and a
 * second node with the same (identifier, dump) or a second string with the
 * same id (the database keeps the first and counts the others in metadata
 * heapdb.duplicate_nodes / heapdb.duplicate_strings).  A real field that is
 * not finite (written as null) comes back absent.  Tables a database holds
 * beyond the declared ones (node_analysis, sqlite_stat1) are results derived
 * from the records, not records, and are not read.
 */
#ifndef HEAPFMT_TRANSLATE_H
#define HEAPFMT_TRANSLATE_H

#include "heapfmt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a reader handed to the sink. */
typedef struct hf_read_stats {
	uint64_t lines;          /* NDJSON: lines read, blank ones included */
	uint64_t metadata, types, strings, nodes, edges, records;
	uint64_t unknown_keys;   /* NDJSON with ignore_unknown_keys: keys dropped */
	uint64_t orphan_rows;    /* database: subtype rows without their node (skipped) */
	int unfinished;          /* NDJSON: a heapfmt writer's records (metadata
	                          * heapfmt.schema) that do not end with its last
	                          * line, heapfmt.complete: it stopped early (of
	                          * joined streams, the last) */
	uint64_t after_complete; /* NDJSON: the line of the first record after a
	                          * heapfmt.complete (which ends a stream), or 0 */
	uint64_t complete_line;  /* NDJSON: the line of that heapfmt.complete */
	uint64_t cut_line;       /* NDJSON: the line of the first heapfmt.schema
	                          * that begins a stream while the one before has
	                          * had no heapfmt.complete (it stopped early), or 0 */
} hf_read_stats;

typedef struct hf_ndjson_read_options {
	size_t max_line;         /* longest line accepted, in bytes (0 = 1 GiB) */
	int ignore_unknown_keys; /* drop keys no declaration names (counted) instead
	                          * of failing with HF_ERR_FORMAT */
	hf_progress_fn progress; /* done/total in bytes of the raw input */
	void *progress_ctx;
} hf_ndjson_read_options;

HF_API void hf_ndjson_read_options_init(hf_ndjson_read_options *opt);

/* Reads NDJSON records from in (plain or gzip, see hf_input_open) and hands
 * them to sink in file order.  Types must be declared before their records,
 * as the format requires.  Errors name the byte offset of the line and
 * "line N".  The caller finishes and destroys the sink. */
HF_API hf_status hf_ndjson_read(hf_input *in, hf_sink *sink,
                                const hf_ndjson_read_options *opt,
                                hf_read_stats *stats, hf_error *err);

/* Reads the heap database at path (opened read-only) and hands its records
 * to sink in the canonical order above.  HF_ERR_FORMAT when the file is not
 * a SQLite database or not a heap database.  The caller finishes and
 * destroys the sink. */
HF_API hf_status hf_heapdb_read(const char *path, hf_sink *sink, hf_read_stats *stats,
                                hf_error *err);

#ifdef __cplusplus
}
#endif
#endif
