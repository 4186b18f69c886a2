/*
 * heapfmt analysis: reachability, distance from the GC roots, dominator tree
 * and retained sizes of every object of a heap database (schema/README.md
 * "Analysis"; the tables node_analysis and dump_analysis of
 * schema/heapdb.sql).
 *
 * The graph is read from the database with plain scans (node, edge,
 * hprof_gc_root, node_class, hprof_class_field), held in compact integer
 * arrays (CSR successor and predecessor lists of uint32), and the dominator
 * tree is computed with the Lengauer-Tarjan algorithm (semidominators by
 * link-eval with path compression), iteratively: no recursion, no
 * allocation per object.  Each heap dump of the file is analysed on its own,
 * one after the other.
 *
 * What counts as a reference (strong edge): every edge of the database
 * (instance and static fields, array elements, superclass, class loader,
 * signers, protection domain, constant pool), plus the reference from every
 * object to its class (node.class), except the `referent` field of an
 * instance of java.lang.ref.Reference or of a subclass (WeakReference,
 * SoftReference, PhantomReference, FinalReference and theirs): the collector
 * does not treat it as a strong reference.
 */
#ifndef HEAPFMT_ANALYSIS_H
#define HEAPFMT_ANALYSIS_H

#include "heapfmt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hf_analysis_options {
	int no_index;            /* do not index node_analysis (queries will scan) */
	/* Resident memory of the process, in bytes, above which the analysis
	 * releases the pages of its arrays, which then live in temporary files
	 * ($TMPDIR) and come back from the page cache (or the disk) when used:
	 * 0 for HF_ANALYSIS_MEMORY_DEFAULT, SIZE_MAX for plain memory. */
	size_t memory_limit;
} hf_analysis_options;

#define HF_ANALYSIS_MEMORY_DEFAULT ((size_t)512 << 20)

HF_API void hf_analysis_options_init(hf_analysis_options *opt);

typedef struct hf_analysis_stats {
	uint64_t dumps;          /* heap dumps analysed */
	uint64_t nodes;          /* objects (node rows) */
	uint64_t roots;          /* distinct GC root objects found among the nodes */
	uint64_t missing_roots;  /* hprof_gc_root rows naming an object not in the dump */
	uint64_t edges;          /* strong references between objects of the dump */
	uint64_t class_edges;    /* of which object -> its class (node.class) */
	uint64_t referent_edges; /* Reference.referent fields, not counted as strong */
	uint64_t dangling_edges; /* edges to (or from) an object not in the dump */
	uint64_t reachable;      /* objects strongly reachable from a GC root */
	uint64_t weakly_reachable; /* reachable only through a Reference.referent */
	uint64_t unreachable;    /* the others */
	uint64_t reachable_bytes;/* shallow bytes of the strongly reachable objects */
	uint64_t max_distance;   /* longest shortest path from a root, in references */
	uint64_t peak_memory;    /* bytes of the largest set of arrays held at once */
} hf_analysis_stats;

/* Analyses the heap database at path in place: (re)creates node_analysis
 * and dump_analysis in one transaction (an earlier analysis is replaced; on
 * failure the database is left as it was).  HF_ERR_FORMAT when the file is
 * not a heap database of an HPROF dump (no node, edge or hprof_gc_root
 * table). */
HF_API hf_status hf_heapdb_analyze(const char *path, const hf_analysis_options *opt,
                                   hf_analysis_stats *stats, hf_error *err);

/* Puts back the database at path as it was before a write that was cut
 * short (hf_heapdb_analyze in a process killed before it ended): opened for
 * writing, SQLite rolls back the journal such a write leaves beside it,
 * which the programs that only read a database cannot do.  A journal the
 * write left before it changed anything (its header not yet written, so
 * not one SQLite plays back) is removed. */
HF_API hf_status hf_heapdb_recover(const char *path, hf_error *err);

/* The declared record type heapfmt.node_analysis: the fields of a
 * node_analysis row (absent where the column is NULL). */
HF_API extern const hf_type hf_node_analysis_type;

/* A sink that passes everything to next (which it then owns) and builds a
 * temporary heap database beside the path `beside` (a file name; its
 * directory is used); on finish it analyses that database and writes a
 * heapfmt.node_analysis record per node into next, after the records and
 * before the metadata that followed the first record, then finishes next.
 * The declaration of heapfmt.node_analysis goes out right before the first
 * record.  The temporary database is deleted by destroy.  Memory: that of
 * the database's page cache and of the analysis, no longer bounded by the
 * size of the dump. */
HF_API hf_status hf_analysis_sink_new(hf_sink **out, hf_sink *next, const char *beside,
                                      hf_error *err);
/* The same with the analysis's options (opt NULL: the defaults). */
HF_API hf_status hf_analysis_sink_open(hf_sink **out, hf_sink *next, const char *beside,
                                       const hf_analysis_options *opt, hf_error *err);

#ifdef __cplusplus
}
#endif
#endif
