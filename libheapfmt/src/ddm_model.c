/*
 * The DDM mapping of the extensible heap-dump format: the record types an
 * allocation report and a DDM heap-segment stream are written as, and what
 * the two readers share while writing them (interned strings, frames and
 * stacks, warnings, metadata).
 *
 * A DDM capture has no object graph: it is written with extra top-level
 * record types only (no nodes, no edges).  Class, method, file and thread
 * names are string records, referenced by id.  The SQLite writer makes one
 * table per type from these declarations (table names below); the docs of
 * the types and fields land in the database's record_types and type_fields.
 */
#define _POSIX_C_SOURCE 200809L
#include "ddm_model.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#define N(a) (sizeof(a) / sizeof *(a))

/* ---- types -------------------------------------------------------------- */

static const hf_field alloc_report_fields[] = {
	{ "report", HF_FIELD_INT, "report number in the input, from 0", 1 },
	{ "chunk", HF_FIELD_INT, "index of the REAL chunk it came in (ddm.chunk); absent for a bare .alloc file", 0 },
	{ "offset", HF_FIELD_INT, "input offset of the report's first byte; in a ZLIB chunk, the ZLIB chunk header's", 0 },
	{ "header_length", HF_FIELD_INT, "message header length as written (15)", 0 },
	{ "entry_header_length", HF_FIELD_INT, "entry header length as written (9)", 0 },
	{ "frame_length", HF_FIELD_INT, "stack frame length as written (8)", 0 },
	{ "entries", HF_FIELD_INT, "number of entries found (written as ddm.allocation)", 0 },
	{ "header_entries", HF_FIELD_INT, "the u2 entry count as written", 0 },
	{ "count_overflow", HF_FIELD_INT, "1 when the u2 count had wrapped (Dalvik 4.4 with 65,536 records writes 0) and the entries were counted by walking to the string tables", 0 },
	{ "string_table_offset", HF_FIELD_INT, "offset of the string tables from the report's first byte", 0 },
	{ "class_names", HF_FIELD_INT, "size of the class-name table", 0 },
	{ "method_names", HF_FIELD_INT, "size of the method-name table", 0 },
	{ "file_names", HF_FIELD_INT, "size of the source-file table", 0 },
	{ "order", HF_FIELD_TEXT, "entry order taken: newest-first (ART 7+) or oldest-first (Dalvik, ART 5-6)", 0 },
	{ "order_basis", HF_FIELD_TEXT, "why: option, HELO VM version, thread-id style, or default", 0 },
	{ "thread_ids", HF_FIELD_TEXT, "what the u2 thread ids are, following the order decision: vm (Dalvik/ART<=6: THCR ids) or linux-tid-16 (ART 7+: Linux tid mod 65536)", 0 },
	{ "max_depth", HF_FIELD_INT, "deepest stack in the report", 0 },
	{ "trailing_bytes", HF_FIELD_INT, "bytes after the third string table (ignored)", 0 },
};
const hf_type ddm_rec_alloc_report = { HF_TYPE_RECORD, 0, "ddm.alloc_report", "ddm_alloc_report",
	alloc_report_fields, N(alloc_report_fields), NULL,
	"an allocation-tracker report (REAL reply payload, Android Studio .alloc file)" };

static const hf_field allocation_fields[] = {
	{ "report", HF_FIELD_INT, "report number (ddm.alloc_report)", 0 },
	{ "position", HF_FIELD_INT, "position of the entry in the report, from 0", 0 },
	{ "alloc_number", HF_FIELD_INT, "ddmlib's allocation number: entries - position (the first entry gets the highest)", 0 },
	{ "sequence", HF_FIELD_INT, "chronological rank in the report: 1 = oldest allocation, entries = newest (follows the report's order)", 0 },
	{ "class", HF_FIELD_STRREF, "allocated class, display form as ddmlib shows it (java.lang.String, int[])", 1 },
	{ "class_descriptor", HF_FIELD_STRREF, "allocated class as the VM wrote it (Ljava/lang/String;, [I)", 0 },
	{ "size", HF_FIELD_INT, "allocation size in bytes (u4; Dalvik: requested size, ART: object size)", 0 },
	{ "thread", HF_FIELD_INT, "u2 thread id, unsigned (see ddm.alloc_report.thread_ids)", 1 },
	{ "stack", HF_FIELD_INT, "stack id (ddm.stack; equal stacks share one id, the empty stack too)", 1 },
	{ "depth", HF_FIELD_INT, "number of frames", 0 },
	{ "top_frame", HF_FIELD_INT, "innermost frame id (ddm.stack_frame); absent when depth is 0", 1 },
};
const hf_type ddm_rec_allocation = { HF_TYPE_RECORD, 0, "ddm.allocation", "ddm_allocation",
	allocation_fields, N(allocation_fields), NULL, "one entry of an allocation report" };

static const hf_field stack_fields[] = {
	{ "stack", HF_FIELD_INT, "stack id, from 1", 1 },
	{ "depth", HF_FIELD_INT, "number of frames", 0 },
	{ "top_frame", HF_FIELD_INT, "innermost frame id; absent for the empty stack", 0 },
};
const hf_type ddm_rec_stack = { HF_TYPE_RECORD, 0, "ddm.stack", "ddm_stack", stack_fields,
	N(stack_fields), NULL, "a distinct allocation stack" };

static const hf_field stack_element_fields[] = {
	{ "stack", HF_FIELD_INT, "stack id", 1 },
	{ "depth", HF_FIELD_INT, "position, 0 = innermost (the allocating method)", 0 },
	{ "frame", HF_FIELD_INT, "frame id (ddm.stack_frame)", 0 },
};
const hf_type ddm_rec_stack_element = { HF_TYPE_RECORD, 0, "ddm.stack_element",
	"ddm_stack_element", stack_element_fields, N(stack_element_fields), NULL,
	"links a stack to its frames by depth" };

static const hf_field stack_frame_fields[] = {
	{ "frame", HF_FIELD_INT, "frame id, from 1", 1 },
	{ "class", HF_FIELD_STRREF, "declaring class, display form as ddmlib shows it", 0 },
	{ "class_descriptor", HF_FIELD_STRREF, "declaring class as the VM wrote it", 0 },
	{ "method", HF_FIELD_STRREF, "method name as written (no signature)", 0 },
	{ "file", HF_FIELD_STRREF, "source file name as written (empty string: unknown)", 0 },
	{ "line", HF_FIELD_INT, "line number as written, signed 16 bits: -1 no line information, -2 native method, below -2 ART's truncation of a line above 32767", 0 },
	{ "source_line", HF_FIELD_INT, "the source line: line when >= 0, line + 65536 when below -2; absent for -1 and -2", 0 },
	{ "native", HF_FIELD_INT, "1 for a native method (line -2)", 0 },
};
const hf_type ddm_rec_stack_frame = { HF_TYPE_RECORD, 0, "ddm.stack_frame", "ddm_stack_frame",
	stack_frame_fields, N(stack_frame_fields), NULL,
	"a distinct stack frame of allocation stacks (class, method, file, line)" };

static const hf_field heap_info_fields[] = {
	{ "chunk", HF_FIELD_INT, "index of the HPIF chunk (ddm.chunk)", 0 },
	{ "heap", HF_FIELD_INT, "heap id (always 1 as written)", 0 },
	{ "timestamp_ms", HF_FIELD_INT, "milliseconds since the Unix epoch", 0 },
	{ "timestamp", HF_FIELD_TEXT, "the same as ISO-8601 UTC, with the milliseconds unless 0", 0 },
	{ "reason", HF_FIELD_INT, "the 'when' that fired: 1 now, 2 next GC, 3 every GC", 0 },
	{ "max_bytes", HF_FIELD_INT, "maximum heap size (-Xmx)", 0 },
	{ "footprint_bytes", HF_FIELD_INT, "current heap size", 0 },
	{ "allocated_bytes", HF_FIELD_INT, "bytes allocated", 0 },
	{ "allocated_objects", HF_FIELD_INT, "objects allocated", 0 },
};
const hf_type ddm_rec_heap_info = { HF_TYPE_RECORD, 0, "ddm.heap_info", "ddm_heap_info",
	heap_info_fields, N(heap_info_fields), NULL, "heap summary of one HPIF chunk, per heap" };

static const hf_field heap_dump_fields[] = {
	{ "dump", HF_FIELD_INT, "series number, from 0", 1 },
	{ "heap", HF_FIELD_INT, "heap id from HPST/NHST", 0 },
	{ "native", HF_FIELD_INT, "1 for a native heap (NHST..NHEN), 0 for the VM heap (HPST..HPEN)", 0 },
	{ "start_chunk", HF_FIELD_INT, "index of the HPST/NHST chunk; absent when the series had none (a capture started late)", 0 },
	{ "end_chunk", HF_FIELD_INT, "index of the HPEN/NHEN chunk; absent when it never came (a capture stopped early)", 0 },
	{ "segments", HF_FIELD_INT, "number of HPSG/HPSO/NHSG chunks", 0 },
	{ "runs", HF_FIELD_INT, "number of runs (ddm.heap_run)", 0 },
	{ "used_bytes", HF_FIELD_INT, "bytes in runs that are not free", 0 },
	{ "free_bytes", HF_FIELD_INT, "bytes in free runs", 0 },
	{ "largest_free_bytes", HF_FIELD_INT, "the largest free run", 0 },
	{ "complete", HF_FIELD_INT, "1 when the series had its start and its end", 0 },
};
const hf_type ddm_rec_heap_dump = { HF_TYPE_RECORD, 0, "ddm.heap_dump", "ddm_heap_dump",
	heap_dump_fields, N(heap_dump_fields), NULL,
	"one heap picture: HPST, HPSG/HPSO chunks, HPEN (or NHST, NHSG, NHEN)" };

static const hf_field heap_segment_fields[] = {
	{ "segment", HF_FIELD_INT, "segment number, from 0", 1 },
	{ "dump", HF_FIELD_INT, "series (ddm.heap_dump)", 0 },
	{ "chunk", HF_FIELD_INT, "index of the chunk (ddm.chunk)", 0 },
	{ "type", HF_FIELD_TEXT, "HPSG (merged runs), HPSO (runs end at objects) or NHSG (native)", 0 },
	{ "heap", HF_FIELD_INT, "heap id", 0 },
	{ "unit_size", HF_FIELD_INT, "allocation unit in bytes (8)", 0 },
	{ "address", HF_FIELD_INT, "segment start address as written (u4)", 0 },
	{ "offset", HF_FIELD_INT, "piece offset as written, in allocation units (0 from every producer)", 0 },
	{ "units", HF_FIELD_INT, "length of the piece in allocation units as written", 0 },
	{ "pairs", HF_FIELD_INT, "number of (state, length) pairs", 0 },
	{ "zero_unit_pairs", HF_FIELD_INT, "free 0xFF pairs taken as zero units (producer bug, ddm-stream.md 4.7)", 0 },
	{ "start", HF_FIELD_INT, "address of the first run: address + offset * unit_size", 0 },
	{ "end", HF_FIELD_INT, "address after the last run", 0 },
};
const hf_type ddm_rec_heap_segment = { HF_TYPE_RECORD, 0, "ddm.heap_segment", "ddm_heap_segment",
	heap_segment_fields, N(heap_segment_fields), NULL, "one HPSG, HPSO or NHSG chunk" };

static const hf_field heap_run_fields[] = {
	{ "dump", HF_FIELD_INT, "series (ddm.heap_dump)", 1 },
	{ "segment", HF_FIELD_INT, "segment (ddm.heap_segment)", 0 },
	{ "heap", HF_FIELD_INT, "heap id", 0 },
	{ "address", HF_FIELD_INT, "start address (64-bit arithmetic)", 0 },
	{ "length", HF_FIELD_INT, "length in bytes (units * unit_size)", 0 },
	{ "units", HF_FIELD_INT, "length in allocation units", 0 },
	{ "solidity", HF_FIELD_INT, "0 free, 1 hard, 2 soft, 3 weak, 4 phantom, 5 pending finalization, 6 unreachable", 0 },
	{ "kind", HF_FIELD_INT, "0 object, 1 class object, 2 array of 1-byte, 3 of 2-byte, 4 of 4-byte (and references), 5 of 8-byte elements, 6 unknown, 7 native", 0 },
	{ "object_boundary", HF_FIELD_INT, "1: the run is exactly one object or one free gap (HPSO); 0: not known (HPSG, NHSG)", 0 },
	{ "pairs", HF_FIELD_INT, "pairs the run was written as (a run longer than 256 units continues over partial pairs)", 0 },
};
const hf_type ddm_rec_heap_run = { HF_TYPE_RECORD, 0, "ddm.heap_run", "ddm_heap_run",
	heap_run_fields, N(heap_run_fields), NULL,
	"a run of allocation units with one state; partial pairs are merged into the run they continue" };

static const hf_field thread_fields[] = {
	{ "chunk", HF_FIELD_INT, "index of the chunk (ddm.chunk)", 0 },
	{ "event", HF_FIELD_TEXT, "create (THCR), rename (THNM), death (THDE) or status (one THST entry)", 0 },
	{ "thread", HF_FIELD_INT, "VM thread id", 1 },
	{ "name", HF_FIELD_STRREF, "thread name (create, rename)", 0 },
	{ "tid", HF_FIELD_INT, "Linux thread id (status)", 0 },
	{ "state", HF_FIELD_INT, "thread state (status): 1 running, 2 sleeping, 3 monitor, 4 waiting, 5 initializing, 6 starting, 7 native, 8 vmwait ...", 0 },
	{ "utime", HF_FIELD_INT, "user time in clock ticks (status)", 0 },
	{ "stime", HF_FIELD_INT, "system time in clock ticks (status)", 0 },
	{ "daemon", HF_FIELD_INT, "1 for a daemon thread (status)", 0 },
};
const hf_type ddm_rec_thread = { HF_TYPE_RECORD, 0, "ddm.thread", "ddm_thread", thread_fields,
	N(thread_fields), NULL, "a thread event: THCR, THNM, THDE, or one entry of THST" };

static const hf_field chunk_fields[] = {
	{ "chunk", HF_FIELD_INT, "chunk number, from 0, in input order", 1 },
	{ "offset", HF_FIELD_INT, "input offset of the chunk header", 0 },
	{ "type", HF_FIELD_TEXT, "the four-character type (after inflating a ZLIB chunk: the inner type)", 0 },
	{ "length", HF_FIELD_INT, "payload length (after inflating a ZLIB chunk: the inflated length)", 0 },
	{ "packet", HF_FIELD_INT, "JDWP packet number, from 0 (absent outside JDWP)", 0 },
	{ "packet_id", HF_FIELD_INT, "JDWP packet id", 0 },
	{ "reply", HF_FIELD_INT, "1 in a JDWP reply packet, 0 in a command packet", 0 },
	{ "zlib", HF_FIELD_INT, "1 when it arrived as a ZLIB chunk", 0 },
	{ "status", HF_FIELD_TEXT, "decoded, request (host to VM), empty, skipped (known, not decoded) or unknown", 0 },
};
const hf_type ddm_rec_chunk = { HF_TYPE_RECORD, 0, "ddm.chunk", "ddm_chunk", chunk_fields,
	N(chunk_fields), NULL, "one DDM chunk of the stream, whatever its type" };

const hf_type *const ddm_types[] = {
	&ddm_rec_alloc_report, &ddm_rec_allocation, &ddm_rec_stack, &ddm_rec_stack_element,
	&ddm_rec_stack_frame, &ddm_rec_heap_info, &ddm_rec_heap_dump, &ddm_rec_heap_segment,
	&ddm_rec_heap_run, &ddm_rec_thread, &ddm_rec_chunk, NULL
};

/* ---- small things ------------------------------------------------------- */

void ddm_type_name(uint32_t type, char out[5])
{
	for (int i = 0; i < 4; i++) {
		unsigned ch = (type >> (24 - 8 * i)) & 0xFF;
		out[i] = (ch >= 0x20 && ch < 0x7F) ? (char)ch : '?';
	}
	out[4] = 0;
}

uint32_t hf_ddm_chunk_type(const char *s)
{
	if (!s || strlen(s) != 4)
		return 0;
	uint32_t t = 0;
	for (int i = 0; i < 4; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch < 0x20 || ch >= 0x7F)
			return 0;
		t = (t << 8) | ch;
	}
	return t;
}

void ddm_ctx_init(ddm_ctx *c, hf_sink *sink, hf_error *err)
{
	memset(c, 0, sizeof *c);
	c->sink = sink;
	c->err = err;
	c->warn_key = "ddm.warning";
	c->vm_dalvik = -1;
	c->next_sid = 1;
	hf_map_init(&c->str_map);
	hf_map_init(&c->frame_map);
	hf_map_init(&c->stack_map);
}

void ddm_ctx_free(ddm_ctx *c)
{
	hf_map_free(&c->str_map);
	hf_map_free(&c->frame_map);
	hf_map_free(&c->stack_map);
	free(c->strs);
	free(c->frames);
	free(c->stacks);
	free(c->stack_arena);
	hf_buf_free(&c->str_arena);
	hf_buf_free(&c->text);
	hf_buf_free(&c->text2);
}

hf_status ddm_nomem(ddm_ctx *c)
{
	return hf_error_set(c->err, HF_ERR_NOMEM, "out of memory");
}

hf_status ddm_meta(ddm_ctx *c, const char *key, const char *value)
{
	return hf_sink_metadata(c->sink, key, value, c->err);
}

hf_status ddm_meta_u(ddm_ctx *c, const char *key, uint64_t value)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%" PRIu64, value);
	return ddm_meta(c, key, buf);
}

hf_status ddm_begin(ddm_ctx *c, const char *target_source, const char *target_file,
                    const char *crtime, const char *generator)
{
	hf_status st;
	char now[40], gen[96];
	if (!crtime) {
		hf_crtime_now(now, sizeof now);
		crtime = now;
	}
	snprintf(gen, sizeof gen, "%s (heapfmt %s)", generator ? generator : "libheapfmt",
	         HEAPFMT_VERSION);
	const char *meta[][2] = {
		{ "version_major", HEAPFMT_FORMAT_MAJOR },
		{ "generator", gen },
		{ "crtime", crtime },
		{ "target_source", target_source },
		{ "target_file", target_file ? target_file : "-" },
		{ "heapfmt.schema", HEAPFMT_SCHEMA_VERSION },
	};
	for (size_t i = 0; i < N(meta); i++)
		if ((st = ddm_meta(c, meta[i][0], meta[i][1])))
			return st;
	for (size_t i = 0; ddm_types[i]; i++)
		if ((st = hf_sink_declare(c->sink, ddm_types[i], c->err)))
			return st;
	return HF_OK;
}

hf_status ddm_warn(ddm_ctx *c, uint64_t off, const char *tag, const char *fmt, ...)
{
	c->warnings++;
	if (c->stats_warnings)
		(*c->stats_warnings)++;
	if (c->warnings > HF_WARNINGS_KEPT)
		return HF_OK;
	char msg[300], line[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (c->inflated)
		snprintf(line, sizeof line, "offset %" PRIu64 " (ZLIB/%s): byte %" PRIu64
		         " of the inflated payload: %s", c->zlib_off, tag, off, msg);
	else
		snprintf(line, sizeof line, "offset %" PRIu64 " (%s): %s", off, tag, msg);
	if (c->warning)
		c->warning(c->warning_ctx, line);
	return ddm_meta(c, c->warn_key, line);
}

hf_status ddm_fail(ddm_ctx *c, hf_status st, uint64_t off, const char *tag, const char *fmt, ...)
{
	char msg[320];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return hf_error_at(c->err, st, off, tag, "%s", msg);
}

hf_status ddm_record(ddm_ctx *c, const hf_type *t)
{
	hf_record rec = { t, c->vals };
	return hf_sink_record(c->sink, &rec, c->err);
}

/* ---- interning ---------------------------------------------------------- */


/* Adds index ix to the chain of hash h; *next gets the previous head. */
static bool chain_put(hf_map *m, uint64_t h, size_t ix, uint32_t *next)
{
	uint64_t *head = hf_map_get(m, h);
	*next = head ? (uint32_t)*head : UINT32_MAX;
	return hf_map_put(m, h, ix);
}

static bool grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return true;
	size_t nc = *cap ? *cap : 64;
	while (nc < need)
		nc *= 2;
	void *n = realloc(*arr, nc * elem);
	if (!n)
		return false;
	*arr = n;
	*cap = nc;
	return true;
}

hf_status ddm_intern(ddm_ctx *c, const char *s, size_t n, uint64_t *sid)
{
	uint64_t h = hf_fnv1a(HF_FNV_BASIS, s, n);
	uint64_t *head = hf_map_get(&c->str_map, h);
	for (uint32_t i = head ? (uint32_t)*head : UINT32_MAX; i != UINT32_MAX; i = c->strs[i].next) {
		const ddm_str *e = &c->strs[i];
		/* n == 0: the arena may still be NULL, and memcmp wants pointers. */
		if (e->len == n && (n == 0 || !memcmp(c->str_arena.data + e->off, s, n))) {
			*sid = e->sid;
			return HF_OK;
		}
	}
	if (c->nstrs >= UINT32_MAX - 1 ||
	    !grow((void **)&c->strs, &c->capstrs, c->nstrs + 1, sizeof *c->strs))
		return ddm_nomem(c);
	ddm_str *e = &c->strs[c->nstrs];
	e->sid = c->next_sid++;
	e->off = c->str_arena.len;
	e->len = n;
	if (!hf_buf_append(&c->str_arena, s, n) || !chain_put(&c->str_map, h, c->nstrs, &e->next))
		return ddm_nomem(c);
	c->nstrs++;
	*sid = e->sid;
	if (c->astats)
		c->astats->strings++;
	return hf_sink_string(c->sink, e->sid, s, n, c->err);
}

hf_status ddm_intern_utf16(ddm_ctx *c, const uint8_t *p, size_t n, uint64_t *sid)
{
	hf_buf_reset(&c->text);
	if (!hf_buf_reserve(&c->text, n * 3 + 4))
		return ddm_nomem(c);
	size_t len = hf_utf16_decode(p, n, 0, (char *)c->text.data);
	return ddm_intern(c, (const char *)c->text.data, len, sid);
}

const char *ddm_str_text(const ddm_ctx *c, uint64_t sid, size_t *len)
{
	/* String ids are handed out in order from 1, one per entry. */
	if (sid == 0 || sid > c->nstrs) {
		*len = 0;
		return "";
	}
	const ddm_str *e = &c->strs[sid - 1];
	*len = e->len;
	if (!e->len)
		return ""; /* the arena may be NULL while only empty strings were seen */
	return (const char *)c->str_arena.data + e->off;
}

hf_status ddm_frame_id(ddm_ctx *c, uint64_t cls, uint64_t desc, uint64_t method, uint64_t file,
                       int32_t line, uint64_t *id)
{
	uint64_t key[5] = { cls, desc, method, file, (uint64_t)(int64_t)line };
	uint64_t h = hf_fnv1a(HF_FNV_BASIS, key, sizeof key);
	uint64_t *head = hf_map_get(&c->frame_map, h);
	for (uint32_t i = head ? (uint32_t)*head : UINT32_MAX; i != UINT32_MAX; i = c->frames[i].next) {
		const ddm_frame *f = &c->frames[i];
		if (f->cls == cls && f->desc == desc && f->method == method && f->file == file &&
		    f->line == line) {
			*id = (uint64_t)i + 1;
			return HF_OK;
		}
	}
	if (c->nframes >= UINT32_MAX - 1 ||
	    !grow((void **)&c->frames, &c->capframes, c->nframes + 1, sizeof *c->frames))
		return ddm_nomem(c);
	ddm_frame *f = &c->frames[c->nframes];
	f->cls = cls;
	f->desc = desc;
	f->method = method;
	f->file = file;
	f->line = line;
	if (!chain_put(&c->frame_map, h, c->nframes, &f->next))
		return ddm_nomem(c);
	*id = ++c->nframes;
	if (c->astats)
		c->astats->frames++;
	ddm_vals_clear(c, 8);
	ddm_val_u(&c->vals[0], *id);
	ddm_val_u(&c->vals[1], cls);
	ddm_val_u(&c->vals[2], desc);
	ddm_val_u(&c->vals[3], method);
	ddm_val_u(&c->vals[4], file);
	ddm_val_i(&c->vals[5], line);
	if (line >= 0)
		ddm_val_i(&c->vals[6], line);
	else if (line < -2)
		ddm_val_i(&c->vals[6], line + 65536);
	ddm_val_i(&c->vals[7], line == -2);
	return ddm_record(c, &ddm_rec_stack_frame);
}

hf_status ddm_stack_id(ddm_ctx *c, const uint32_t *frames, uint32_t depth, uint64_t *id)
{
	uint64_t h = hf_fnv1a(HF_FNV_BASIS ^ depth, frames, depth * sizeof *frames);
	uint64_t *head = hf_map_get(&c->stack_map, h);
	for (uint32_t i = head ? (uint32_t)*head : UINT32_MAX; i != UINT32_MAX; i = c->stacks[i].next) {
		const ddm_stack *s = &c->stacks[i];
		if (s->depth == depth &&
		    !memcmp(c->stack_arena + s->off, frames, depth * sizeof *frames)) {
			*id = (uint64_t)i + 1;
			return HF_OK;
		}
	}
	if (c->nstacks >= UINT32_MAX - 1 ||
	    !grow((void **)&c->stacks, &c->capstacks, c->nstacks + 1, sizeof *c->stacks) ||
	    !grow((void **)&c->stack_arena, &c->capstack_arena, c->nstack_arena + depth + 1,
	          sizeof *c->stack_arena))
		return ddm_nomem(c);
	ddm_stack *s = &c->stacks[c->nstacks];
	s->off = c->nstack_arena;
	s->depth = depth;
	if (depth)
		memcpy(c->stack_arena + s->off, frames, depth * sizeof *frames);
	c->nstack_arena += depth;
	if (!chain_put(&c->stack_map, h, c->nstacks, &s->next))
		return ddm_nomem(c);
	*id = ++c->nstacks;
	if (c->astats)
		c->astats->stacks++;
	hf_status st;
	ddm_vals_clear(c, 3);
	ddm_val_u(&c->vals[0], *id);
	ddm_val_u(&c->vals[1], depth);
	if (depth)
		ddm_val_u(&c->vals[2], frames[0]);
	if ((st = ddm_record(c, &ddm_rec_stack)))
		return st;
	for (uint32_t d = 0; d < depth; d++) {
		ddm_vals_clear(c, 3);
		ddm_val_u(&c->vals[0], *id);
		ddm_val_u(&c->vals[1], d);
		ddm_val_u(&c->vals[2], frames[d]);
		if ((st = ddm_record(c, &ddm_rec_stack_element)))
			return st;
	}
	return HF_OK;
}

/* ---- descriptors -------------------------------------------------------- */

bool ddm_descriptor_to_dot(const char *s, size_t n, hf_buf *out)
{
	static const char *const prim[][2] = {
		{ "C", "char" }, { "B", "byte" }, { "Z", "boolean" }, { "S", "short" },
		{ "I", "int" }, { "J", "long" }, { "F", "float" }, { "D", "double" },
	};
	size_t dims = 0;
	while (dims < n && s[dims] == '[')
		dims++;
	if (dims) { /* s may be NULL when n is 0 */
		s += dims;
		n -= dims;
	}
	hf_buf_reset(out);
	bool ok = true;
	if (n >= 2 && s[0] == 'L' && s[n - 1] == ';') {
		size_t at = out->len;
		ok = hf_buf_append(out, s + 1, n - 2);
		for (size_t i = at; i < out->len; i++)
			if (out->data[i] == '/')
				out->data[i] = '.';
	} else {
		const char *name = NULL;
		for (size_t i = 0; n == 1 && i < N(prim); i++)
			if (s[0] == prim[i][0][0])
				name = prim[i][1];
		ok = name ? hf_buf_append(out, name, strlen(name)) : hf_buf_append(out, s, n);
	}
	for (size_t i = 0; ok && i < dims; i++)
		ok = hf_buf_append(out, "[]", 2);
	return ok;
}

/* ---- input -------------------------------------------------------------- */

hf_status ddm_take(hf_input *in, uint64_t n, hf_buf *buf, const uint8_t **p, uint64_t *got,
                   hf_error *err)
{
	const uint8_t *q;
	size_t avail;
	hf_status st;
	*got = 0;
	if (n <= HF_INPUT_MAX_PEEK) {
		if ((st = hf_input_peek(in, (size_t)n, &q, &avail, err)))
			return st;
		*p = q;
		*got = avail < n ? avail : n;
		hf_input_consume(in, (size_t)*got);
		return HF_OK;
	}
	hf_buf_reset(buf);
	if (n > SIZE_MAX / 2)
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory (%" PRIu64 " bytes)", n);
	while (buf->len < n) {
		if ((st = hf_input_peek(in, 1 << 20, &q, &avail, err)))
			return st;
		if (!avail)
			break;
		size_t t = n - buf->len < avail ? (size_t)(n - buf->len) : avail;
		/* Grown as the payload comes: a length past the end of the
		 * input costs no more memory than the input holds. */
		if (!hf_buf_append(buf, q, t))
			return hf_error_set(err, HF_ERR_NOMEM, "out of memory (%zu bytes)", buf->len + t);
		hf_input_consume(in, t);
	}
	*p = buf->data;
	*got = buf->len;
	return HF_OK;
}

hf_status ddm_read_all(hf_input *in, uint64_t max, hf_buf *buf, const char *tag, hf_error *err)
{
	hf_status st;
	for (;;) {
		const uint8_t *p;
		size_t avail;
		if ((st = hf_input_peek(in, 1 << 20, &p, &avail, err)))
			return st;
		if (!avail)
			return HF_OK;
		if (buf->len + avail > max)
			return hf_error_at(err, HF_ERR_LIMIT, buf->len, tag,
			                   "the input is larger than the %" PRIu64 "-byte limit", max);
		if (!hf_buf_append(buf, p, avail))
			return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
		hf_input_consume(in, avail);
	}
}
