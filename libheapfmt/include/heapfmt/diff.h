/*
 * heapfmt heap diff: what changed between two heap databases (two dumps of
 * the same program, taken before and after something).
 *
 *  - classes: per class name (Java source form, as in
 *    schema/queries/class_histogram.sql), instances and shallow bytes in each
 *    database.  Classes are matched by name, not by object id (ids are
 *    addresses and change between dumps); several classes of one name (other
 *    class loaders) are counted together.  Where both databases hold the
 *    analysis (table node_analysis), retained bytes per class too, added up
 *    as schema/queries/retained_by_class.sql does (an object dominated by
 *    one of its own class is counted inside that one).
 *  - GC roots: the number of roots of each kind in each database (a kind with
 *    none before is new, one with none after has vanished).
 *  - new objects: the largest objects of the second database whose
 *    (identifier, dump) the first does not hold.  Identifiers are addresses
 *    on most VMs: an object the collector moved between the dumps counts as
 *    new too, so this list is where to look, not a proof.
 *
 * Memory is bounded by the number of classes and root kinds (the object
 * lists are top-N); everything else is done by SQLite over the two files.
 */
#ifndef HEAPFMT_DIFF_H
#define HEAPFMT_DIFF_H

#include "heapfmt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hf_diff_class {
	const char *name;
	int64_t count_before, count_after;
	int64_t bytes_before, bytes_after;
	int64_t retained_before, retained_after; /* -1: not analysed */
} hf_diff_class;

typedef struct hf_diff_root {
	const char *kind;
	int64_t before, after;
} hf_diff_root;

typedef struct hf_diff_object {
	uint64_t identifier;
	int64_t dump;
	int64_t size;
	const char *class_name;
} hf_diff_object;

typedef struct hf_diff {
	hf_diff_class *classes;  /* every class in either, by bytes_after - bytes_before, largest first */
	size_t nclasses;
	hf_diff_root *roots;     /* every root kind in either, by name */
	size_t nroots;
	hf_diff_object *new_objects; /* largest first */
	size_t nnew;
	int64_t objects_before, objects_after, bytes_before, bytes_after;
	int retained;            /* both databases hold the analysis */
	int mixed;               /* 1 (before) or 2 (after): that one alone is of a V8
	                          * heap snapshot; their classes are named apart
	                          * (constructors, Java classes), so every one reads as
	                          * new or gone.  0: both of the same kind */
} hf_diff;

/* Compares the heap databases at before and after (opened read-only);
 * new_objects is the length of the new-object list (0: none).  On success
 * fills *out, to be released with hf_diff_free.  HF_ERR_FORMAT when a file
 * is not a heap database. */
HF_API hf_status hf_diff_compute(const char *before, const char *after, size_t new_objects,
                                 hf_diff *out, hf_error *err);
HF_API void hf_diff_free(hf_diff *d);

#ifdef __cplusplus
}
#endif
#endif
