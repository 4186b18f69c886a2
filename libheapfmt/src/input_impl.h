/*
 * The input's state (input.c), for the inline fast paths of the readers
 * that peek and consume for every record (hprof.c): a call of
 * hf_input_peek and one of hf_input_consume for each sub-record were 15 %
 * of the instructions of hprof2ndjson's parsing thread.  Nothing but
 * input.c changes these fields.
 */
#ifndef HEAPFMT_INPUT_IMPL_H
#define HEAPFMT_INPUT_IMPL_H

#include "internal.h"
#include <stdio.h>
#include <zlib.h>

typedef struct gz_thread gz_thread;

struct hf_input {
	char *name;
	int fd;              /* -1 for memory input */
	int owns_fd;
	int seekable;
	uint64_t base;       /* where a regular file's stream starts (stdin may be past 0) */
	/* Raw (possibly compressed) bytes. */
	const uint8_t *mem;  /* memory input: the whole raw input */
	size_t memsize, mempos;
	uint8_t *raw;        /* fd input: raw read buffer (gzip only) */
	int raw_eof;
	uint64_t raw_offset, raw_size;
	/* Decoded window: buf[start, end) starts at stream offset `offset`. */
	uint8_t *buf;
	size_t cap, start, end;
	const uint8_t *zc;   /* zero-copy window (plain memory input) */
	uint64_t offset;
	int eof;
	hf_compression comp;
	z_stream zs;
	int z_init, z_member_done;
	uint64_t size;
	gz_thread *gz;       /* running: the thread's (input.c) */
	int gz_failed;       /* no thread could be made: inflate here */
	uint64_t raw_seen;   /* raw_offset as of the slot taken last */
	/* A pipe's decoded bytes read ahead of the window (hf_input_spool_read):
	 * stream bytes [sp_base, sp_base + sp_len) in sp; the window takes them
	 * from there until it has passed them, then reads on from the source. */
	FILE *sp;
	uint64_t sp_base, sp_len, sp_budget;
	int sp_failed;       /* could not be made: not tried again */
	uint8_t *sp_pend;    /* read but not written to it (a full disk): next after it */
	size_t sp_pend_len, sp_pend_pos;
	int sp_eof;          /* the stream ends after those bytes */
	hf_status sp_status; /* or fails there, with sp_err */
	hf_error sp_err;
};

/* hf_input_peek's usual case: when the window holds n bytes, *p their
 * start and true; else false, and hf_input_peek reads on. */
static inline bool hf_input_window(const hf_input *in, size_t n, const uint8_t **p)
{
	if (in->end - in->start < n)
		return false;
	*p = (in->zc ? in->zc : in->buf) + in->start;
	return true;
}

/* hf_input_consume, inline. */
static inline void hf_input_take(hf_input *in, size_t n)
{
	size_t have = in->end - in->start;
	if (n > have)
		n = have;
	in->start += n;
	in->offset += n;
}

#endif
