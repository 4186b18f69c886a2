/*
 * Allocation-tracker reports: the payload of a DDM REAL reply, which is also
 * an Android Studio .alloc file byte for byte (../shared/spec/ddm-alloc.md).
 *
 * Layout: a header (length bytes 15/9/8, u2 entry count, u4 string-table
 * offset, u2 table sizes), the entries (u4 size, u2 thread, u2 class index,
 * u1 depth, then depth frames of u2 class, u2 method, u2 file, i2 line), and
 * three string tables of UTF-16BE strings.  Big-endian throughout.  The
 * header, entry and frame lengths are honoured: unknown trailing bytes of
 * each are skipped, as ddmlib does; lengths below 15/9/8 are refused.
 *
 * Every length, count, index and offset is checked before use: the string
 * offset must lie inside the report, each string inside the report, each
 * entry and frame before the string tables, every index inside its table,
 * and the entries must end exactly where the string tables begin.  A
 * failure is an hf_error naming the input offset and "REAL/<part>".
 *
 * Decisions where the format leaves a choice:
 *
 *  - Entry order.  Dalvik and ART 5-6 write the oldest allocation first,
 *    ART 7+ the newest first; nothing in the bytes says which.  Every
 *    allocation keeps both its position ("position", from 0) and ddmlib's
 *    number ("alloc_number" = entries - position, what Android Studio shows),
 *    which do not depend on the decision.  "sequence" is the chronological
 *    rank (1 = oldest) and follows the order taken: the caller's option
 *    (--order=newest-first|oldest-first), else, with --order=auto (the
 *    default): a HELO chunk earlier in the same stream naming "v1.x" (Dalvik)
 *    means oldest first; a wrapped entry count (only Dalvik wraps) means
 *    oldest first; else the thread-id style decides: ids above 255 can only be
 *    Linux tids (ART 7+, newest first), while VM thread ids (Dalvik, ART 5-6)
 *    are small and reused.  The order taken and why are in the report record
 *    (order, order_basis) and in metadata ddm.alloc.order.
 *
 *  - The 65,536-entry overflow.  Dalvik 4.4 with a full 65,536-record buffer
 *    writes the u2 count as 0 while all entries are present.  When the
 *    declared entries end before the string tables, the walk goes on, entry
 *    by entry, and the report is accepted if it lands exactly on the string
 *    offset after a number of entries congruent to the declared count modulo
 *    65,536; count_overflow = 1, header_entries keeps the count as written,
 *    a warning is recorded and alloc_number uses the true count.  Anything
 *    else (entries crossing the offset, bytes left over) is an error.
 *
 *  - Thread ids are u2 and written unsigned (0-65535); ddmlib shows them as a
 *    signed Java short.  What they mean follows the order decision (vm ids
 *    for Dalvik/ART 5-6, Linux tid mod 65536 for ART 7+): thread_ids in the
 *    report record.  Only "vm" ids can be joined with THCR thread records.
 *
 *  - Line numbers are i2: "line" keeps the signed value as written (equal to
 *    ddmlib's); -1 is no line information, -2 a native method (native = 1);
 *    values below -2 come from ART writing a line above 32767 truncated to 16
 *    bits, so "source_line" = line + 65536 for them, = line when >= 0, and
 *    is absent for -1 and -2.
 *
 *  - Class names: the allocated class and a frame's declaring class keep the
 *    descriptor as written (class_descriptor) and ddmlib's display form
 *    (class: "Ljava/lang/String;" -> "java.lang.String", "[I" -> "int[]").
 *    ddmlib also runs method and file names through that conversion (a
 *    method named "I" would show as "int"); heapfmt keeps them as written.
 *
 *  - Sizes are u4, written unsigned (ddmlib shows a signed int).
 *  - Equal strings are one string record (Dalvik's tables may repeat a
 *    name); equal frames are one ddm.stack_frame, equal stacks one ddm.stack.
 *  - Bytes after the third string table are ignored with a warning (an
 *    unmerged ddmlib change once appended a thread-name map there).
 *  - UTF-16 is decoded leniently: an unpaired surrogate becomes U+FFFD.
 */
#define _POSIX_C_SOURCE 200809L
#include "ddm_model.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#define DEFAULT_MAX_SIZE ((uint64_t)1 << 30)
#define VM_THREAD_ID_MAX 255

typedef struct str_ref {
	uint32_t pos, units;   /* position of the units in the report, count */
} str_ref;

typedef struct report {
	ddm_ctx *c;
	const uint8_t *p;
	size_t n;
	uint64_t base;
	unsigned hl, ehl, fl;
	uint32_t declared, soff;
	uint32_t ntab[3];
	uint64_t *sids[3];       /* string id per table index */
	uint64_t *dots;          /* class table: display form ids */
} report;

static const char *const table_names[3] = { "class names", "method names", "file names" };

static hf_status bad(report *r, hf_status st, uint64_t rel, const char *part, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;
static hf_status bad(report *r, hf_status st, uint64_t rel, const char *part, const char *fmt, ...)
{
	char tag[48], msg[320];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(tag, sizeof tag, "REAL/%s", part);
	return hf_error_at(r->c->err, st, r->base + rel, tag, "%s", msg);
}

static hf_status read_header(report *r)
{
	const uint8_t *p = r->p;
	if (r->n < 15)
		return bad(r, HF_ERR_TRUNCATED, 0, "header",
		           "the report has %zu bytes, fewer than its 15-byte header", r->n);
	r->hl = p[0];
	r->ehl = p[1];
	r->fl = p[2];
	if (r->hl < 15)
		return bad(r, HF_ERR_FORMAT, 0, "header", "header length %u is below 15", r->hl);
	if (r->ehl < 9)
		return bad(r, HF_ERR_FORMAT, 1, "header", "entry header length %u is below 9", r->ehl);
	if (r->fl < 8)
		return bad(r, HF_ERR_FORMAT, 2, "header", "stack frame length %u is below 8", r->fl);
	if (r->hl > r->n)
		return bad(r, HF_ERR_TRUNCATED, 0, "header",
		           "header length %u is past the end of the %zu-byte report", r->hl, r->n);
	r->declared = hf_be16(p + 3);
	r->soff = hf_be32(p + 5);
	for (int t = 0; t < 3; t++)
		r->ntab[t] = hf_be16(p + 9 + 2 * t);
	if (r->soff < r->hl)
		return bad(r, HF_ERR_FORMAT, 5, "header",
		           "string-table offset %" PRIu32 " is inside the %u-byte header", r->soff, r->hl);
	if (r->soff > r->n)
		return bad(r, HF_ERR_TRUNCATED, 5, "header",
		           "string-table offset %" PRIu32 " is past the end of the %zu-byte report",
		           r->soff, r->n);
	return HF_OK;
}

/* Reads the three tables; returns the offset where they end in *end. */
static hf_status read_tables(report *r, size_t *end)
{
	ddm_ctx *c = r->c;
	hf_status st;
	size_t pos = r->soff;
	for (int t = 0; t < 3; t++) {
		r->sids[t] = malloc(((size_t)r->ntab[t] + 1) * sizeof *r->sids[t]);
		if (!r->sids[t])
			return ddm_nomem(c);
	}
	r->dots = malloc(((size_t)r->ntab[0] + 1) * sizeof *r->dots);
	if (!r->dots)
		return ddm_nomem(c);
	for (int t = 0; t < 3; t++) {
		for (uint32_t i = 0; i < r->ntab[t]; i++) {
			char part[40];
			snprintf(part, sizeof part, "%s %" PRIu32, table_names[t], i);
			if (r->n - pos < 4)
				return bad(r, HF_ERR_TRUNCATED, pos, part,
				           "the report ends inside the string tables (%" PRIu32 " %s declared)",
				           r->ntab[t], table_names[t]);
			uint64_t units = hf_be32(r->p + pos);
			if (units * 2 > r->n - pos - 4)
				return bad(r, HF_ERR_TRUNCATED, pos, part,
				           "a string of %" PRIu64 " UTF-16 units runs past the end of the report",
				           units);
			if ((st = ddm_intern_utf16(c, r->p + pos + 4, (size_t)units, &r->sids[t][i])))
				return st;
			if (t == 0) {
				size_t len;
				const char *s = ddm_str_text(c, r->sids[t][i], &len);
				if (!ddm_descriptor_to_dot(s, len, &c->text2))
					return ddm_nomem(c);
				if ((st = ddm_intern(c, c->text2.data ? (const char *)c->text2.data : "",
				                     c->text2.len, &r->dots[i])))
					return st;
			}
			pos += 4 + (size_t)units * 2;
		}
	}
	*end = pos;
	return HF_OK;
}

/* Checks entry i at *pos (relative); on success *pos moves past it. */
static hf_status check_entry(report *r, uint64_t i, size_t *pos, unsigned *depth_out,
                             uint16_t *thread_out)
{
	char part[40];
	size_t at = *pos;
	snprintf(part, sizeof part, "entry %" PRIu64, i);
	if (r->soff - at < r->ehl)
		return bad(r, HF_ERR_FORMAT, at, part,
		           "the %u-byte entry header crosses the string tables at %" PRIu32, r->ehl,
		           r->soff);
	const uint8_t *e = r->p + at;
	uint16_t cls = hf_be16(e + 6);
	unsigned depth = e[8];
	if (cls >= r->ntab[0])
		return bad(r, HF_ERR_FORMAT, at + 6, part,
		           "class index %u is outside the %" PRIu32 "-entry class table", cls, r->ntab[0]);
	at += r->ehl;
	if ((uint64_t)depth * r->fl > r->soff - at)
		return bad(r, HF_ERR_FORMAT, at, part,
		           "%u frames of %u bytes cross the string tables at %" PRIu32, depth, r->fl,
		           r->soff);
	for (unsigned f = 0; f < depth; f++, at += r->fl) {
		const uint8_t *q = r->p + at;
		for (int t = 0; t < 3; t++) {
			uint16_t ix = hf_be16(q + 2 * t);
			if (ix >= r->ntab[t]) {
				snprintf(part, sizeof part, "entry %" PRIu64 "/frame %u", i, f);
				return bad(r, HF_ERR_FORMAT, at + 2 * (uint64_t)t, part,
				           "%s index %u is outside the %" PRIu32 "-entry table",
				           t == 0 ? "class" : t == 1 ? "method" : "file", ix, r->ntab[t]);
			}
		}
	}
	*pos = at;
	*depth_out = depth;
	*thread_out = hf_be16(e + 4);
	return HF_OK;
}

hf_status ddm_alloc_report(ddm_ctx *c, const uint8_t *p, size_t n, uint64_t base, int64_t chunk)
{
	report r;
	memset(&r, 0, sizeof r);
	r.c = c;
	r.p = p;
	r.n = n;
	r.base = base;
	hf_status st;
	if ((st = read_header(&r)))
		goto out;
	size_t end = 0;
	if ((st = read_tables(&r, &end)))
		goto out;

	/* Pass 1: walk and check every entry, count them, find the thread ids. */
	uint64_t found = 0;
	size_t pos = r.hl;
	unsigned max_depth = 0, depth = 0;
	uint16_t max_thread = 0, thread = 0;
	while (found < r.declared) {
		if (pos >= r.soff) {
			st = bad(&r, HF_ERR_FORMAT, 3, "header",
			         "%" PRIu32 " entries declared, but the string tables at %" PRIu32
			         " begin after %" PRIu64, r.declared, r.soff, found);
			goto out;
		}
		if ((st = check_entry(&r, found, &pos, &depth, &thread)))
			goto out;
		found++;
		max_depth = depth > max_depth ? depth : max_depth;
		max_thread = thread > max_thread ? thread : max_thread;
	}
	if (pos < r.soff) {
		/* The declared entries end early: a wrapped count (Dalvik) if more
		 * entries fill the gap exactly. */
		size_t stop = pos;
		while (pos < r.soff) {
			if (check_entry(&r, found, &pos, &depth, &thread) != HF_OK) {
				char msg[256];
				hf_error_format(c->err, msg, sizeof msg);
				st = bad(&r, HF_ERR_FORMAT, stop, "header",
				         "the %" PRIu32 " entries declared end %zu bytes before the string "
				         "tables at %" PRIu32 ", and what follows is not more entries: %s",
				         r.declared, r.soff - stop, r.soff, msg);
				goto out;
			}
			found++;
			max_depth = depth > max_depth ? depth : max_depth;
			max_thread = thread > max_thread ? thread : max_thread;
		}
		if ((found - r.declared) % 65536 != 0) {
			st = bad(&r, HF_ERR_FORMAT, stop, "header",
			         "the %" PRIu32 " entries declared end %zu bytes before the string "
			         "tables at %" PRIu32 "; %" PRIu64 " entries fill that space, which is "
			         "not the declared count modulo 65536",
			         r.declared, r.soff - stop, r.soff, found);
			goto out;
		}
	}
	int overflow = found != r.declared;
	if (overflow && (st = ddm_warn(c, base + 3, "REAL/header",
	                               "entry count %" PRIu32 " had wrapped: %" PRIu64
	                               " entries fill the report up to the string tables",
	                               r.declared, found)))
		goto out;
	if (end < n && (st = ddm_warn(c, base + end, "REAL/string tables",
	                              "%zu bytes after the third string table ignored", n - end)))
		goto out;

	/* Order. */
	hf_alloc_order order = c->order;
	char basis[80];
	if (order != HF_ALLOC_ORDER_AUTO) {
		snprintf(basis, sizeof basis, "option");
	} else if (c->vm_dalvik == 1) {
		order = HF_ALLOC_ORDER_OLDEST_FIRST;
		snprintf(basis, sizeof basis, "HELO VM version (Dalvik v1.x)");
	} else if (overflow) {
		order = HF_ALLOC_ORDER_OLDEST_FIRST;
		snprintf(basis, sizeof basis, "count overflow (only Dalvik wraps)");
	} else if (found == 0) {
		order = HF_ALLOC_ORDER_NEWEST_FIRST;
		snprintf(basis, sizeof basis, "default (no entries)");
	} else if (max_thread > VM_THREAD_ID_MAX) {
		order = HF_ALLOC_ORDER_NEWEST_FIRST;
		snprintf(basis, sizeof basis, "thread ids up to %u: Linux tids (ART 7+)", max_thread);
	} else {
		order = HF_ALLOC_ORDER_OLDEST_FIRST;
		snprintf(basis, sizeof basis, "thread ids up to %u: VM thread ids (Dalvik, ART 5-6)",
		         max_thread);
	}
	int newest = order == HF_ALLOC_ORDER_NEWEST_FIRST;
	const char *order_name = newest ? "newest-first" : "oldest-first";
	uint64_t report_no = c->reports++;
	if ((st = ddm_meta(c, "ddm.alloc.order", order_name)))
		goto out;
	ddm_vals_clear(c, 18);
	ddm_val_u(&c->vals[0], report_no);
	if (chunk >= 0)
		ddm_val_i(&c->vals[1], chunk);
	/* In a ZLIB chunk, base is in the inflated bytes: the chunk's offset. */
	ddm_val_u(&c->vals[2], c->inflated ? c->zlib_off : base);
	ddm_val_u(&c->vals[3], r.hl);
	ddm_val_u(&c->vals[4], r.ehl);
	ddm_val_u(&c->vals[5], r.fl);
	ddm_val_u(&c->vals[6], found);
	ddm_val_u(&c->vals[7], r.declared);
	ddm_val_i(&c->vals[8], overflow);
	ddm_val_u(&c->vals[9], r.soff);
	ddm_val_u(&c->vals[10], r.ntab[0]);
	ddm_val_u(&c->vals[11], r.ntab[1]);
	ddm_val_u(&c->vals[12], r.ntab[2]);
	ddm_val_s(&c->vals[13], order_name, strlen(order_name));
	ddm_val_s(&c->vals[14], basis, strlen(basis));
	const char *tids = newest ? "linux-tid-16" : "vm";
	ddm_val_s(&c->vals[15], tids, strlen(tids));
	ddm_val_u(&c->vals[16], max_depth);
	ddm_val_u(&c->vals[17], n - end);
	if ((st = ddm_record(c, &ddm_rec_alloc_report)))
		goto out;

	/* Pass 2: the allocations. */
	uint32_t frames[256];
	pos = r.hl;
	for (uint64_t i = 0; i < found; i++) {
		const uint8_t *e = p + pos;
		uint32_t size = hf_be32(e);
		uint16_t thread = hf_be16(e + 4);
		uint16_t cls = hf_be16(e + 6);
		unsigned depth = e[8];
		pos += r.ehl;
		for (unsigned f = 0; f < depth; f++, pos += r.fl) {
			const uint8_t *q = p + pos;
			uint16_t fc = hf_be16(q), fm = hf_be16(q + 2), ff = hf_be16(q + 4);
			int16_t line = (int16_t)hf_be16(q + 6);
			uint64_t id;
			if ((st = ddm_frame_id(c, r.dots[fc], r.sids[0][fc], r.sids[1][fm], r.sids[2][ff],
			                       line, &id)))
				goto out;
			frames[f] = (uint32_t)id;
		}
		uint64_t stack;
		if ((st = ddm_stack_id(c, frames, depth, &stack)))
			goto out;
		ddm_vals_clear(c, 11);
		ddm_val_u(&c->vals[0], report_no);
		ddm_val_u(&c->vals[1], i);
		ddm_val_u(&c->vals[2], found - i);
		ddm_val_u(&c->vals[3], newest ? found - i : i + 1);
		ddm_val_u(&c->vals[4], r.dots[cls]);
		ddm_val_u(&c->vals[5], r.sids[0][cls]);
		ddm_val_u(&c->vals[6], size);
		ddm_val_u(&c->vals[7], thread);
		ddm_val_u(&c->vals[8], stack);
		ddm_val_u(&c->vals[9], depth);
		if (depth)
			ddm_val_u(&c->vals[10], frames[0]);
		if ((st = ddm_record(c, &ddm_rec_allocation)))
			goto out;
	}
	if (c->astats) {
		c->astats->reports++;
		c->astats->entries += found;
		c->astats->header_entries += r.declared;
		c->astats->count_overflows += (uint64_t)overflow;
		c->astats->trailing_bytes += n - end;
	}
out:
	for (int t = 0; t < 3; t++)
		free(r.sids[t]);
	free(r.dots);
	return st;
}

/* ---- bare reports ------------------------------------------------------- */

void hf_alloc_options_init(hf_alloc_options *opt)
{
	memset(opt, 0, sizeof *opt);
}

/* Whether the 4 bytes at p read as a chunk type (capitals and digits). */
static bool chunk_letters(const uint8_t *p)
{
	for (int i = 0; i < 4; i++)
		if (!((p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9')))
			return false;
	return true;
}

/* A hint for a file that is not a report but looks like a DDM stream. */
static const char *stream_hint(const uint8_t *p, size_t n)
{
	if (n >= 14 && !memcmp(p, "JDWP-Handshake", 14))
		return " (it starts with the JDWP handshake: a DDM stream; use hpsg2ndjson)";
	/* A JDWP packet (length, id, flags, then the DDM command set 0xC7 and
	 * command 1, or a reply's error code 0) that carries a chunk. */
	if (n >= 19 && hf_be32(p) >= 19 &&
	    ((p[8] == 0 && p[9] == 0xC7 && p[10] == 1) || (p[8] == 0x80 && p[9] == 0 && p[10] == 0)) &&
	    chunk_letters(p + 11))
		return " (it starts like a JDWP packet of DDM: a DDM stream; use hpsg2ndjson)";
	if (n >= 8 && chunk_letters(p))
		return " (it starts like a DDM chunk: a DDM stream; use hpsg2ndjson)";
	return "";
}

hf_status hf_alloc_read(hf_input *in, hf_sink *sink, const hf_alloc_options *opt,
                        hf_alloc_stats *stats, hf_error *err)
{
	hf_alloc_options defaults;
	hf_alloc_stats local;
	if (!opt) {
		hf_alloc_options_init(&defaults);
		opt = &defaults;
	}
	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof *stats);
	uint64_t max = opt->max_size ? opt->max_size : DEFAULT_MAX_SIZE;
	ddm_ctx c;
	ddm_ctx_init(&c, sink, err);
	c.astats = stats;
	c.stats_warnings = &stats->warnings;
	c.order = opt->order;
	c.warn_key = "ddm.warning";
	c.warning = opt->warning;
	c.warning_ctx = opt->warning_ctx;
	hf_buf all;
	hf_buf_init(&all);
	hf_status st;
	/* What is surely another format is named as such, not read as a report. */
	if ((st = hf_refuse_empty(in, err)) ||
	    (st = hf_kind_refuse(in, HF_KIND_BIT(HF_KIND_HPROF) | HF_KIND_BIT(HF_KIND_SQLITE) | HF_KIND_BIT(HF_KIND_V8) |
	                         HF_KIND_BIT(HF_KIND_NDJSON) | HF_KIND_BIT(HF_KIND_ZIP), "an allocation report", err)))
		goto out;
	/* The string tables come after the entries: the report is read whole. */
	if ((st = ddm_read_all(in, max, &all, "REAL", err)))
		goto out;
	const uint8_t *data = all.data ? all.data : (const uint8_t *)"";
	const char *source = opt->source_name ? opt->source_name : hf_input_name(in);
	if ((st = ddm_begin(&c, "ddm-alloc", source, opt->crtime, opt->generator)))
		goto out;
	if ((st = ddm_alloc_report(&c, data, all.len, 0, -1))) {
		/* A report usually starts with its header length (15), but one of
		 * 0x41 or more starts with letters as a DDM chunk does: the hint
		 * comes only once the bytes have failed as a report. */
		const char *hint = stream_hint(data, all.len);
		if (*hint && st != HF_ERR_NOMEM && st != HF_ERR_IO) {
			char msg[sizeof err->message + 80];
			hf_error_format(err, msg, sizeof msg);
			st = hf_error_at(err, st, 0, "REAL/header", "not an allocation report%s; as one, %s",
			                 hint, msg);
		}
		goto out;
	}
	if ((st = ddm_meta_u(&c, "ddm.warnings", c.warnings)))
		goto out;
	st = ddm_meta(&c, "heapfmt.complete", "true");
out:
	hf_buf_free(&all);
	ddm_ctx_free(&c);
	return st;
}
