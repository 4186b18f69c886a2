/*
 * What an input is, told from its first bytes, for the error of a reader
 * that it is not for: an HPROF dump given to the NDJSON reader is named as
 * one, with the programs that read it, instead of failing as bad JSON at
 * its first byte (or, read as DDM chunks, as a chunk "JAVA" too long).
 * Only formats whose first bytes say so for certain are named.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include <fcntl.h>
#include <unistd.h>

/* Skips a UTF-8 byte order mark and JSON white space from i. */
static size_t json_ws(const uint8_t *p, size_t n, size_t i)
{
	if (i == 0 && n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF)
		i = 3;
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	return i;
}

/* Whether an object starts at p whose first key is key (quoted). */
static bool object_key(const uint8_t *p, size_t n, const char *key)
{
	size_t i = json_ws(p, n, 0), k = strlen(key);
	if (i >= n || p[i] != '{')
		return false;
	i = json_ws(p, n, i + 1);
	return n - i >= k && !memcmp(p + i, key, k);
}

hf_kind hf_kind_of(const uint8_t *p, size_t n)
{
	if (n >= 16 && !memcmp(p, "JAVA PROFILE 1.0", 16))
		return HF_KIND_HPROF;
	if (n >= 16 && !memcmp(p, "SQLite format 3", 16))
		return HF_KIND_SQLITE;
	if (n >= 14 && !memcmp(p, "JDWP-Handshake", 14))
		return HF_KIND_DDM;
	if (n >= 4 && !memcmp(p, "PK\3\4", 4))
		return HF_KIND_ZIP;
	if (object_key(p, n, "\"snapshot\""))
		return HF_KIND_V8;
	if (object_key(p, n, "\"record\""))
		return HF_KIND_NDJSON;
	return HF_KIND_UNKNOWN;
}

const char *hf_kind_name(hf_kind k)
{
	switch (k) {
	case HF_KIND_HPROF: return "an HPROF heap dump (hprof2ndjson and hprof2heapdb read it)";
	case HF_KIND_SQLITE:
		return "an SQLite database (a heap database: heapdb2ndjson, heapdb2heapsnapshot and "
		       "heapdb-analyze read it)";
	case HF_KIND_DDM: return "a recorded DDM stream (hpsg2ndjson and hpsg2heapdb read it)";
	case HF_KIND_ZIP: return "a zip archive (unzip it first)";
	case HF_KIND_V8: return "a V8 heap snapshot (heapsnapshot2ndjson and heapsnapshot2heapdb read it)";
	case HF_KIND_NDJSON: return "NDJSON of the heap-dump format (ndjson2heapdb reads it)";
	case HF_KIND_UNKNOWN: break;
	}
	return NULL;
}

hf_status hf_refuse_empty(hf_input *in, hf_error *err)
{
	const uint8_t *p;
	size_t avail;
	hf_status st = hf_input_peek(in, 1, &p, &avail, err);
	if (st || avail)
		return st;
	return hf_error_at(err, HF_ERR_FORMAT, 0, "input", "the input is empty");
}

hf_status hf_kind_refuse(hf_input *in, unsigned refused, const char *what, hf_error *err)
{
	const uint8_t *p;
	size_t avail;
	hf_error ignored;
	memset(&ignored, 0, sizeof ignored);
	/* Failing to peek is the reading's to report, at its place. */
	if (hf_input_offset(in) != 0 || hf_input_peek_some(in, 64, &p, &avail, &ignored))
		return HF_OK;
	hf_kind k = hf_kind_of(p, avail);
	if (k == HF_KIND_UNKNOWN || !(refused & (1u << k)))
		return HF_OK;
	return hf_error_at(err, HF_ERR_FORMAT, 0, "header", "not %s: it is %s", what, hf_kind_name(k));
}

const char *hf_kind_of_path(const char *path)
{
	uint8_t head[64];
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	int e = hf_pread_full(fd, head, sizeof head, 0, &got);
	close(fd);
	return e ? NULL : hf_kind_name(hf_kind_of(head, got));
}
