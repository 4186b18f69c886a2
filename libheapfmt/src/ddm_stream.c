/*
 * DDM streams: recorded Dalvik Debug Monitor traffic
 * (../shared/spec/ddm-stream.md), in one of three shapes told apart from the
 * first bytes (section 3.2; sniff(): the handshake, or the first few packet
 * or chunk headers chaining, each ending where the next starts, or an
 * allocation report's header):
 *   - JDWP: packets (u4 length, u4 id, u1 flags, u1 command set / error, u1
 *     command / error), optionally after "JDWP-Handshake" (once or twice, in
 *     a capture of both directions);
 *   - bare chunks: a 4-character type, a u4 length, the payload, repeated;
 *   - one chunk payload without its header (--payload=TYPE names its type;
 *     otherwise it is guessed: an allocation report, HPSG data or HPIF data).
 *
 * JDWP: command packets of set 0xC7 command 0x01 are DDM; replies are DDM
 * when their id answers a DDM command seen earlier, and, when the command was
 * not captured, when their data starts like a chunk.  Other packets (a
 * debugger's traffic) are skipped by their length and counted.  A packet may
 * carry several chunks: they are read while 8 bytes remain, each length
 * checked against what is left of the packet; leftover bytes are a warning.
 *
 * ZLIB chunks (design only; no producer is known): the outer length is the
 * extent; the payload is u4 original type, u4 uncompressed length, then
 * deflate data, zlib-wrapped (RFC 1950) or raw (RFC 1951), told apart by the
 * zlib header check.  The declared length is bounded (max_chunk, and what
 * the deflate data can give, 1032 to 1) before any allocation; inflating
 * stops at the declared length and a stream that would give more, or less,
 * is an error.  The result is read as a chunk of the original type (a ZLIB
 * inside a ZLIB is refused).
 *
 * Chunk types are recognised by type and length, as requests from the host
 * or data from the VM (the same type serves both): HPIF of 1 byte, HPSG and
 * NHSG of 2, REAL, REAQ and FEAT of 0, HELO of 4 are requests.  Decoded:
 *   HPIF -> ddm.heap_info; HPST/HPEN, NHST/NHEN -> ddm.heap_dump;
 *   HPSG/HPSO/NHSG -> ddm.heap_segment + ddm.heap_run; REAL -> the records of
 *   an allocation report (ddm_alloc.c); THCR/THNM/THDE/THST -> ddm.thread;
 *   HELO, APNM, WAIT, FEAT, FAIL, STAG, REAQ -> metadata (target_pid,
 *   ddm.vm_ident, ddm.app_name, ...).
 * Every chunk, decoded or not, is one ddm.chunk record; unknown types are
 * skipped by their length, counted and listed (metadata ddm.unknown_types).
 *
 * Heap segments (section 4.4), decisions:
 *   - A run is a (state, length) pair plus the partial pairs before it that
 *     it continues: one ddm.heap_run per region, so HPSO runs are objects
 *     (object_boundary = 1) even when longer than 256 units.  A partial pair
 *     followed by a pair of another state, or a partial last pair, is an
 *     error.
 *   - The piece offset is taken in allocation units, as the design note's
 *     example reads (ddmlib adds it in bytes; every producer writes 0).
 *     Addresses are computed in 64 bits.
 *   - Runs must end with the payload and add up to the declared units.  The
 *     one tolerated exception is the producers' zero-unit run (4.7): a free
 *     gap under 8 bytes written as (0x00, 0xFF), claiming 256 units.  When
 *     the runs exceed the declared count by k * 256 units and at least k
 *     free 256-unit pairs exist, k of them are taken as zero units (the last
 *     k when there are more candidates: the bytes cannot tell which), left
 *     out of the runs, counted in zero_unit_pairs and reported as a warning.
 *     Any other excess ("runs overrunning the declared length") or shortfall
 *     is an error.
 *   - HPST/HPEN (and NHST/NHEN) pair by heap id; a segment belongs to the
 *     open series of its kind.  An unpaired start or end, a segment outside
 *     a series and a series still open at the end are warnings, and the
 *     series is written with complete = 0 (section 7 item 7: "reportable,
 *     not fatal"; a capture of a live process starts and stops where it
 *     will); the strict option makes them errors.  A capture that ends
 *     inside a packet or chunk is an error (section 7 item 2: "report,
 *     stop"); salvage keeps what came before it.
 *   - Kinds 6 (unknown) and 7 (native) in HPSG are the VMs' error markers and
 *     are kept.  Bit 6 of the state (unused) is ignored.
 */
#define _POSIX_C_SOURCE 200809L
#include "ddm_model.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <zlib.h>

#define DEFAULT_MAX_CHUNK ((uint64_t)1 << 30)

enum {
	T_HELO = DDM_TYPE('H', 'E', 'L', 'O'), T_APNM = DDM_TYPE('A', 'P', 'N', 'M'),
	T_WAIT = DDM_TYPE('W', 'A', 'I', 'T'), T_FEAT = DDM_TYPE('F', 'E', 'A', 'T'),
	T_FAIL = DDM_TYPE('F', 'A', 'I', 'L'), T_STAG = DDM_TYPE('S', 'T', 'A', 'G'),
	T_THCR = DDM_TYPE('T', 'H', 'C', 'R'), T_THNM = DDM_TYPE('T', 'H', 'N', 'M'),
	T_THDE = DDM_TYPE('T', 'H', 'D', 'E'), T_THST = DDM_TYPE('T', 'H', 'S', 'T'),
	T_HPIF = DDM_TYPE('H', 'P', 'I', 'F'), T_HPST = DDM_TYPE('H', 'P', 'S', 'T'),
	T_HPEN = DDM_TYPE('H', 'P', 'E', 'N'), T_HPSG = DDM_TYPE('H', 'P', 'S', 'G'),
	T_HPSO = DDM_TYPE('H', 'P', 'S', 'O'), T_NHST = DDM_TYPE('N', 'H', 'S', 'T'),
	T_NHEN = DDM_TYPE('N', 'H', 'E', 'N'), T_NHSG = DDM_TYPE('N', 'H', 'S', 'G'),
	T_REAL = DDM_TYPE('R', 'E', 'A', 'L'), T_REAQ = DDM_TYPE('R', 'E', 'A', 'Q'),
	T_REAE = DDM_TYPE('R', 'E', 'A', 'E'), T_ZLIB = DDM_TYPE('Z', 'L', 'I', 'B'),
};

/* Known types that are not decoded (skipped by length, status "skipped"). */
static const char *const skipped_types[] = {
	"HPGC", "HPDU", "HPDS", "THEN", "EXIT", "STKL", "MPRS", "MPRE", "MPSS", "MPSE", "SPSS",
	"SPSE", "MPRQ", "NHGT", "VULW", "VURT", "VUOP", "TEST", "DBGD", "REAE",
};

typedef struct series {
	int native;
	int closed;              /* written: the slot waits for compact_series */
	uint32_t heap;
	uint64_t dump;
	int64_t start_chunk;
	uint64_t segments, runs, used, free, largest_free;
} series;

typedef struct type_count {
	uint32_t type;
	uint64_t n;
} type_count;

typedef struct pkt_info {
	int in_packet;
	uint64_t packet, id;
	int reply;
} pkt_info;

typedef struct stream {
	ddm_ctx c;
	hf_input *in;
	const hf_ddm_options *opt;
	hf_ddm_stats *stats;
	hf_error *err;
	uint64_t max_chunk;
	uint64_t chunk_no, packet_no, dump_no, segment_no;
	/* The series in the order they opened, which is the order the ones
	 * still open at the end are written in.  A closed one is marked, not
	 * taken out (each memmove cost the length of the list: 80,000 series
	 * took 13 s), and its slot is reused when the list is compacted, once
	 * half of it is closed; open_by_key finds a series from its key. */
	series *open;
	size_t nopen, capopen, nclosed; /* slots in use, of them closed */
	hf_map open_by_key;      /* series_key -> index in open, for the open ones */
	hf_map cmd_ids;          /* JDWP command id -> 1 DDM, 2 other */
	hf_buf payload, inflated, text;
	type_count counts[128];
	size_t ncounts;
	hf_buf unknown_list;
	int stop;                /* salvage: the reader stopped at the damage */
	int not_ddm;             /* the input is not DDM data at all: nothing to salvage */
	uint64_t last_progress;
	int bit6_warned;
	int payload_mode;        /* shape payload: a lone segment is its own series */
} stream;

/* ---- errors ------------------------------------------------------------- */

/* Where a place in a chunk payload at relative offset rel (payload at base)
 * is reported: its input offset and the chunk type; for an inflated payload,
 * the ZLIB chunk's offset, "ZLIB/TYPE" and, in *prefix, where in the
 * inflated bytes. */
static uint64_t place(const stream *s, uint32_t type, uint64_t base, uint64_t rel, char tag[48],
                      char prefix[64])
{
	char tn[5];
	ddm_type_name(type, tn);
	prefix[0] = 0;
	if (!s->c.inflated) {
		snprintf(tag, 48, "%s", tn);
		return base + rel;
	}
	snprintf(tag, 48, "ZLIB/%s", tn);
	snprintf(prefix, 64, "byte %" PRIu64 " of the inflated payload: ", rel);
	return s->c.zlib_off;
}

/* An error at relative offset rel of a chunk payload. */
static hf_status cfail(stream *s, hf_status st, uint32_t type, uint64_t base, uint64_t rel,
                       const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 6, 7)))
#endif
	;
static hf_status cfail(stream *s, hf_status st, uint32_t type, uint64_t base, uint64_t rel,
                       const char *fmt, ...)
{
	char tag[48], prefix[64], msg[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	uint64_t off = place(s, type, base, rel, tag, prefix);
	return hf_error_at(s->err, st, off, tag, "%s%s", prefix, msg);
}

/* A warning at relative offset rel of a chunk payload (ddm_warn points one
 * in an inflated payload at its ZLIB chunk). */
static hf_status cwarn(stream *s, uint32_t type, uint64_t base, uint64_t rel, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;
static hf_status cwarn(stream *s, uint32_t type, uint64_t base, uint64_t rel, const char *fmt, ...)
{
	char msg[300], tn[5];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	ddm_type_name(type, tn);
	return ddm_warn(&s->c, base + rel, tn, "%s", msg);
}

/* An unpaired series start or end, or a segment outside a series: a
 * warning (section 7 item 7), an error with the strict option. */
static hf_status unpaired(stream *s, uint32_t type, uint64_t base, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;
static hf_status unpaired(stream *s, uint32_t type, uint64_t base, const char *fmt, ...)
{
	char msg[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!s->opt->strict || s->stats->incomplete)
		return cwarn(s, type, base, 0, "%s", msg);
	return cfail(s, HF_ERR_FORMAT, type, base, 0, "%s (an error under --strict)", msg);
}

/* ---- helpers ------------------------------------------------------------ */

/* UTF-16BE string of units code units at p as a NUL-terminated UTF-8 text in
 * s->text. */
static const char *utf16_cstr(stream *s, const uint8_t *p, uint64_t units)
{
	hf_buf_reset(&s->text);
	if (!hf_buf_reserve(&s->text, (size_t)units * 3 + 8))
		return NULL;
	size_t n = hf_utf16_decode(p, (size_t)units, 0, (char *)s->text.data);
	for (size_t i = 0; i < n; i++)
		if (s->text.data[i] == 0)
			s->text.data[i] = '?'; /* metadata values are C strings */
	s->text.data[n] = 0;
	s->text.len = n;
	return (const char *)s->text.data;
}

/* Reads "u4 units + UTF-16" at *pos of p[0..n); checks the lengths. */
static hf_status get_string(stream *s, uint32_t type, const uint8_t *p, size_t n, uint64_t base,
                            size_t *pos, const char *what, const char **out)
{
	*out = NULL;
	if (n - *pos < 4)
		return cfail(s, HF_ERR_TRUNCATED, type, base, *pos,
		             "the chunk ends before the length of the %s", what);
	uint64_t units = hf_be32(p + *pos);
	if (units * 2 > n - *pos - 4)
		return cfail(s, HF_ERR_FORMAT, type, base, *pos,
		             "the %s of %" PRIu64 " UTF-16 units runs past the end of the %zu-byte chunk",
		             what, units, n);
	*out = utf16_cstr(s, p + *pos + 4, units);
	if (!*out)
		return ddm_nomem(&s->c);
	*pos += 4 + (size_t)units * 2;
	return HF_OK;
}

static hf_status meta_u(stream *s, const char *key, uint64_t v)
{
	return ddm_meta_u(&s->c, key, v);
}

static void count_type(stream *s, uint32_t type)
{
	for (size_t i = 0; i < s->ncounts; i++)
		if (s->counts[i].type == type) {
			s->counts[i].n++;
			return;
		}
	if (s->ncounts < sizeof s->counts / sizeof *s->counts)
		s->counts[s->ncounts++] = (type_count){ type, 1 };
}

static int is_skipped_type(uint32_t type)
{
	char tn[5];
	ddm_type_name(type, tn);
	for (size_t i = 0; i < sizeof skipped_types / sizeof *skipped_types; i++)
		if (!strcmp(tn, skipped_types[i]))
			return 1;
	return 0;
}

int hf_ddm_chunk_decoded(uint32_t type)
{
	switch (type) {
	case T_HELO: case T_APNM: case T_WAIT: case T_FEAT: case T_FAIL: case T_STAG:
	case T_THCR: case T_THNM: case T_THDE: case T_THST: case T_HPIF: case T_HPST:
	case T_HPEN: case T_HPSG: case T_HPSO: case T_NHST: case T_NHEN: case T_NHSG:
	case T_REAL: case T_REAQ: case T_ZLIB:
		return 1;
	}
	return 0;
}

/* What a chunk is, from its type and length. */
static const char *classify(uint32_t type, size_t n)
{
	if (!hf_ddm_chunk_decoded(type))
		return is_skipped_type(type) ? (n ? "skipped" : "empty") : "unknown";
	switch (type) {
	case T_HELO: return n == 4 ? "request" : "decoded";
	case T_HPIF: return n == 1 ? "request" : "decoded";
	case T_HPSG: case T_NHSG: return n == 2 ? "request" : "decoded";
	case T_REAL: case T_FEAT: return n == 0 ? "request" : "decoded";
	case T_REAQ: return n == 0 ? "request" : "decoded";
	/* The host's THST is empty: any bytes are the VM's reply, whose
	 * header do_thread checks (a damaged one was taken for a request and
	 * its threads dropped without a word). */
	case T_THST: return n == 0 ? "request" : "decoded";
	}
	return "decoded";
}

/* Optional trailing fields: present only when bytes remain for them. */
static hf_status opt_u4(stream *s, const uint8_t *p, size_t n, size_t *pos, const char *key)
{
	if (n - *pos < 4)
		return HF_OK;
	*pos += 4;
	return meta_u(s, key, hf_be32(p + *pos - 4));
}

static hf_status opt_string(stream *s, uint32_t type, const uint8_t *p, size_t n, uint64_t base,
                            size_t *pos, const char *what, const char *key)
{
	const char *txt;
	hf_status st;
	if (n - *pos < 4)
		return HF_OK;
	if ((st = get_string(s, type, p, n, base, pos, what, &txt)))
		return st;
	return ddm_meta(&s->c, key, txt);
}

static hf_status trailing(stream *s, uint32_t type, uint64_t base, size_t pos, size_t n)
{
	if (pos < n)
		return cwarn(s, type, base, pos, "%zu unknown bytes at the end ignored", n - pos);
	return HF_OK;
}

/* ---- chunk decoders ----------------------------------------------------- */

static hf_status exact_len(stream *s, uint32_t type, uint64_t base, size_t n, size_t want)
{
	if (n != want)
		return cfail(s, n < want ? HF_ERR_TRUNCATED : HF_ERR_FORMAT, type, base, 0,
		             "payload of %zu bytes, expected %zu", n, want);
	return HF_OK;
}

static hf_status do_helo(stream *s, const uint8_t *p, size_t n, uint64_t base)
{
	hf_status st;
	if (n < 16)
		return cfail(s, HF_ERR_TRUNCATED, T_HELO, base, 0,
		             "a HELO reply of %zu bytes is shorter than its 16-byte header", n);
	uint64_t ilen = hf_be32(p + 8), alen = hf_be32(p + 12);
	if ((ilen + alen) * 2 > n - 16)
		return cfail(s, HF_ERR_FORMAT, T_HELO, base, 8,
		             "VM ident (%" PRIu64 " units) and app name (%" PRIu64
		             " units) run past the end of the %zu-byte chunk", ilen, alen, n);
	if ((st = meta_u(s, "ddm.vm_protocol", hf_be32(p))) ||
	    (st = meta_u(s, "target_pid", hf_be32(p + 4))))
		return st;
	const char *ident = utf16_cstr(s, p + 16, ilen);
	if (!ident)
		return ddm_nomem(&s->c);
	/* "Dalvik v1.6.0" from Dalvik, "Dalvik v2.1.0" from ART. */
	const char *v = strstr(ident, " v");
	if (v && v[2] >= '0' && v[2] <= '9')
		s->c.vm_dalvik = v[2] == '1' && v[3] == '.';
	if ((st = ddm_meta(&s->c, "ddm.vm_ident", ident)))
		return st;
	const char *app = utf16_cstr(s, p + 16 + ilen * 2, alen);
	if (!app)
		return ddm_nomem(&s->c);
	if ((st = ddm_meta(&s->c, "ddm.app_name", app)))
		return st;
	size_t pos = 16 + (size_t)(ilen + alen) * 2;
	/* Optional fields, each present only if bytes remain. */
	if ((st = opt_u4(s, p, n, &pos, "ddm.user_id")) ||
	    (st = opt_string(s, T_HELO, p, n, base, &pos, "ABI", "ddm.abi")) ||
	    (st = opt_string(s, T_HELO, p, n, base, &pos, "JVM flags", "ddm.jvm_flags")))
		return st;
	if (n - pos >= 1) {
		if ((st = meta_u(s, "ddm.native_debuggable", p[pos])))
			return st;
		pos++;
	}
	if ((st = opt_string(s, T_HELO, p, n, base, &pos, "package name", "ddm.package_name")))
		return st;
	return trailing(s, T_HELO, base, pos, n);
}

static hf_status do_apnm(stream *s, const uint8_t *p, size_t n, uint64_t base)
{
	hf_status st;
	size_t pos = 0;
	const char *txt;
	if ((st = get_string(s, T_APNM, p, n, base, &pos, "app name", &txt)) ||
	    (st = ddm_meta(&s->c, "ddm.app_name", txt)) ||
	    (st = opt_u4(s, p, n, &pos, "ddm.user_id")) ||
	    (st = opt_string(s, T_APNM, p, n, base, &pos, "package name", "ddm.package_name")))
		return st;
	return trailing(s, T_APNM, base, pos, n);
}

static hf_status do_feat(stream *s, const uint8_t *p, size_t n, uint64_t base)
{
	hf_status st;
	if (n < 4)
		return cfail(s, HF_ERR_TRUNCATED, T_FEAT, base, 0, "no feature count");
	uint32_t count = hf_be32(p);
	if ((uint64_t)count * 4 > n - 4)
		return cfail(s, HF_ERR_FORMAT, T_FEAT, base, 0,
		             "%" PRIu32 " features cannot fit in %zu bytes", count, n);
	size_t pos = 4;
	for (uint32_t i = 0; i < count; i++) {
		const char *txt;
		if ((st = get_string(s, T_FEAT, p, n, base, &pos, "feature name", &txt)) ||
		    (st = ddm_meta(&s->c, "ddm.feature", txt)))
			return st;
	}
	return HF_OK;
}

static hf_status do_fail(stream *s, const uint8_t *p, size_t n, uint64_t base)
{
	hf_status st;
	if (n < 4)
		return cfail(s, HF_ERR_TRUNCATED, T_FAIL, base, 0, "no error code");
	uint32_t code = hf_be32(p);
	size_t pos = 4;
	const char *txt;
	if ((st = get_string(s, T_FAIL, p, n, base, &pos, "message", &txt)))
		return st;
	char line[400];
	snprintf(line, sizeof line, "code %" PRIu32 ": %s", code, txt);
	if ((st = ddm_meta(&s->c, "ddm.fail", line)))
		return st;
	return cwarn(s, T_FAIL, base, 0, "the VM reported a failure: %s", line);
}

static hf_status thread_rec(stream *s, uint64_t chunk, const char *event, uint32_t id,
                            uint64_t name, const uint8_t *status)
{
	ddm_ctx *c = &s->c;
	ddm_vals_clear(c, 9);
	ddm_val_u(&c->vals[0], chunk);
	ddm_val_s(&c->vals[1], event, strlen(event));
	ddm_val_u(&c->vals[2], id);
	if (name)
		ddm_val_u(&c->vals[3], name);
	if (status) {
		ddm_val_u(&c->vals[4], hf_be32(status + 5));
		ddm_val_u(&c->vals[5], status[4]);
		ddm_val_u(&c->vals[6], hf_be32(status + 9));
		ddm_val_u(&c->vals[7], hf_be32(status + 13));
		ddm_val_u(&c->vals[8], status[17]);
	}
	s->stats->thread_events++;
	return ddm_record(c, &ddm_rec_thread);
}

static hf_status do_thread(stream *s, uint32_t type, const uint8_t *p, size_t n, uint64_t base,
                           uint64_t chunk)
{
	hf_status st;
	if (type == T_THDE) {
		if ((st = exact_len(s, type, base, n, 4)))
			return st;
		return thread_rec(s, chunk, "death", hf_be32(p), 0, NULL);
	}
	if (type == T_THST) {
		if (n < 4)
			return cfail(s, HF_ERR_TRUNCATED, type, base, 0, "a header of %zu bytes, not 4", n);
		unsigned hl = p[0], el = p[1];
		uint32_t count = hf_be16(p + 2);
		if (hl < 4 || el < 18)
			return cfail(s, HF_ERR_FORMAT, type, base, hl < 4 ? 0 : 1,
			             "%s length %u is below %u", hl < 4 ? "header" : "entry", hl < 4 ? hl : el,
			             hl < 4 ? 4u : 18u);
		if ((uint64_t)hl + (uint64_t)count * el > n)
			return cfail(s, HF_ERR_FORMAT, type, base, 2,
			             "%" PRIu32 " entries of %u bytes after a %u-byte header run past the "
			             "end of the %zu-byte chunk", count, el, hl, n);
		for (uint32_t i = 0; i < count; i++) {
			const uint8_t *e = p + hl + (size_t)i * el;
			if ((st = thread_rec(s, chunk, "status", hf_be32(e), 0, e)))
				return st;
		}
		return HF_OK;
	}
	/* THCR, THNM */
	if (n < 4)
		return cfail(s, HF_ERR_TRUNCATED, type, base, 0, "no thread id");
	size_t pos = 4;
	if (n - pos < 4)
		return cfail(s, HF_ERR_TRUNCATED, type, base, pos, "no name length");
	uint64_t units = hf_be32(p + pos);
	if (units * 2 > n - pos - 4)
		return cfail(s, HF_ERR_FORMAT, type, base, pos,
		             "a thread name of %" PRIu64 " UTF-16 units runs past the end of the "
		             "%zu-byte chunk", units, n);
	uint64_t sid;
	if ((st = ddm_intern_utf16(&s->c, p + pos + 4, (size_t)units, &sid)))
		return st;
	pos += 4 + (size_t)units * 2;
	if (pos < n && (st = cwarn(s, type, base, pos, "%zu bytes after the name ignored", n - pos)))
		return st;
	return thread_rec(s, chunk, type == T_THCR ? "create" : "rename", hf_be32(p), sid, NULL);
}

static hf_status do_hpif(stream *s, const uint8_t *p, size_t n, uint64_t base, uint64_t chunk)
{
	hf_status st;
	if (n < 4)
		return cfail(s, HF_ERR_TRUNCATED, T_HPIF, base, 0, "no heap count");
	uint64_t heaps = hf_be32(p);
	if (4 + heaps * 29 != n)
		return cfail(s, HF_ERR_FORMAT, T_HPIF, base, 0,
		             "a heap count of %" PRIu64 " needs %" PRIu64 " bytes (4 + 29 a heap), the chunk has %zu",
		             heaps, 4 + heaps * 29, n);
	for (uint64_t i = 0; i < heaps; i++) {
		const uint8_t *h = p + 4 + i * 29;
		ddm_ctx *c = &s->c;
		uint64_t ms = hf_be64(h + 4);
		char iso[40];
		hf_iso8601_ms(ms, iso);
		ddm_vals_clear(c, 9);
		ddm_val_u(&c->vals[0], chunk);
		ddm_val_u(&c->vals[1], hf_be32(h));
		/* A u8, but a time past 2^63 ms (292 million years) is no time:
		 * left out, with a warning, rather than written negative. */
		if (ms <= INT64_MAX)
			ddm_val_u(&c->vals[2], ms);
		else if ((st = cwarn(s, T_HPIF, base, 4 + i * 29 + 4,
		                     "heap %" PRIu32 "'s timestamp %" PRIu64 " ms is out of range: left out",
		                     hf_be32(h), ms)))
			return st;
		if (iso[0])
			ddm_val_s(&c->vals[3], iso, strlen(iso));
		ddm_val_u(&c->vals[4], h[12]);
		ddm_val_u(&c->vals[5], hf_be32(h + 13));
		ddm_val_u(&c->vals[6], hf_be32(h + 17));
		ddm_val_u(&c->vals[7], hf_be32(h + 21));
		ddm_val_u(&c->vals[8], hf_be32(h + 25));
		s->stats->heap_infos++;
		if ((st = ddm_record(c, &ddm_rec_heap_info)))
			return st;
	}
	return HF_OK;
}

static uint64_t series_key(int native, uint32_t heap)
{
	return (uint64_t)(native != 0) << 32 | heap;
}

static series *find_series(stream *s, int native, uint32_t heap)
{
	uint64_t *i = hf_map_get(&s->open_by_key, series_key(native, heap));
	return i ? &s->open[*i] : NULL;
}

/* Drops the closed slots, keeping the open series in their order. */
static void compact_series(stream *s)
{
	size_t o = 0;
	for (size_t i = 0; i < s->nopen; i++) {
		if (s->open[i].closed)
			continue;
		if (o != i) {
			s->open[o] = s->open[i];
			/* The key is in the map: no allocation. */
			*hf_map_get(&s->open_by_key, series_key(s->open[o].native, s->open[o].heap)) = o;
		}
		o++;
	}
	s->nopen = o;
	s->nclosed = 0;
}

/*
 * Series open at once, at most: a capture has few heaps (the VMs write heap
 * id 1 only, ddm-stream.md), but each HPST/NHST of a new heap id opens one that
 * lives to its end or the input's, about 150 bytes with its map entry, for
 * a 12-byte chunk (and gzip makes a file of them small).  Past the limit the
 * input is refused, as a limit of the reader, not taken to the memory's end.
 */
#define MAX_OPEN_SERIES 65536

/* A new series at the end of the list (*out); pointers into the list are
 * stale after it.  type and base: the chunk that opens it, for the error. */
static hf_status open_series(stream *s, uint32_t type, uint64_t base, int native, uint32_t heap,
                             int64_t start_chunk, series **out)
{
	if (s->nopen - s->nclosed >= MAX_OPEN_SERIES)
		return cfail(s, HF_ERR_LIMIT, type, base, 0,
		             "heap %" PRIu32 " would make %d heap series open at once, more than any"
		             " capture has (an HPEN or NHEN closes one)", heap, MAX_OPEN_SERIES + 1);
	if (s->nopen == s->capopen && s->nclosed * 2 >= s->nopen && s->nclosed)
		compact_series(s);
	if (s->nopen == s->capopen) {
		size_t nc = s->capopen ? s->capopen * 2 : 4;
		series *n = realloc(s->open, nc * sizeof *n);
		if (!n)
			return ddm_nomem(&s->c);
		s->open = n;
		s->capopen = nc;
	}
	if (!hf_map_put(&s->open_by_key, series_key(native, heap), s->nopen))
		return ddm_nomem(&s->c);
	series *x = &s->open[s->nopen++];
	memset(x, 0, sizeof *x);
	x->native = native;
	x->heap = heap;
	x->dump = s->dump_no++;
	x->start_chunk = start_chunk;
	*out = x;
	return HF_OK;
}

/* Writes the ddm.heap_dump record of x and takes it out of the open ones
 * (marked closed: the slots keep their places until compact_series). */
static hf_status close_series(stream *s, series *x, int64_t end_chunk)
{
	ddm_ctx *c = &s->c;
	ddm_vals_clear(c, 11);
	ddm_val_u(&c->vals[0], x->dump);
	ddm_val_u(&c->vals[1], x->heap);
	ddm_val_i(&c->vals[2], x->native);
	if (x->start_chunk >= 0)
		ddm_val_i(&c->vals[3], x->start_chunk);
	if (end_chunk >= 0)
		ddm_val_i(&c->vals[4], end_chunk);
	ddm_val_u(&c->vals[5], x->segments);
	ddm_val_u(&c->vals[6], x->runs);
	ddm_val_u(&c->vals[7], x->used);
	ddm_val_u(&c->vals[8], x->free);
	ddm_val_u(&c->vals[9], x->largest_free);
	ddm_val_i(&c->vals[10], x->start_chunk >= 0 && end_chunk >= 0);
	s->stats->heap_dumps++;
	hf_status st = ddm_record(c, &ddm_rec_heap_dump);
	x->closed = 1;
	s->nclosed++;
	hf_map_remove(&s->open_by_key, series_key(x->native, x->heap));
	return st;
}

static hf_status do_start_end(stream *s, uint32_t type, const uint8_t *p, size_t n,
                              uint64_t base, uint64_t chunk)
{
	hf_status st;
	if ((st = exact_len(s, type, base, n, 4)))
		return st;
	int native = type == T_NHST || type == T_NHEN;
	int start = type == T_HPST || type == T_NHST;
	uint32_t heap = hf_be32(p);
	series *x = find_series(s, native, heap);
	if (start) {
		if (x) {
			/* A series that segments outside any opened (start_chunk
			 * -1) was not started: they were warned about already. */
			if (x->start_chunk >= 0 &&
			    (st = unpaired(s, type, base, "heap %" PRIu32 " is started again before its %s",
			                   heap, native ? "NHEN" : "HPEN")))
				return st;
			if ((st = close_series(s, x, -1)))
				return st;
		}
		return open_series(s, type, base, native, heap, (int64_t)chunk, &x);
	}
	if (!x) {
		if ((st = unpaired(s, type, base, "heap %" PRIu32 " ends without an %s", heap,
		                   native ? "NHST" : "HPST")))
			return st;
		if ((st = open_series(s, type, base, native, heap, -1, &x)))
			return st;
	}
	return close_series(s, x, (int64_t)chunk);
}

static hf_status do_segment(stream *s, uint32_t type, const uint8_t *p, size_t n, uint64_t base,
                            uint64_t chunk)
{
	hf_status st;
	ddm_ctx *c = &s->c;
	if (n < 17)
		return cfail(s, HF_ERR_TRUNCATED, type, base, 0,
		             "segment data of %zu bytes is shorter than its 17-byte header", n);
	uint32_t heap = hf_be32(p);
	unsigned unit = p[4];
	uint32_t addr = hf_be32(p + 5), offs = hf_be32(p + 9), units = hf_be32(p + 13);
	if (unit == 0)
		return cfail(s, HF_ERR_FORMAT, type, base, 4, "allocation unit size 0");
	if ((n - 17) % 2)
		return cfail(s, HF_ERR_FORMAT, type, base, 17,
		             "%zu bytes of runs: not a whole number of (state, length) pairs", n - 17);
	size_t npairs = (n - 17) / 2;
	const uint8_t *r = p + 17;

	/* Pass 1: regions, units, zero-unit candidates. */
	uint64_t sum = 0, candidates = 0;
	int partial = 0;
	unsigned cur = 0;
	for (size_t i = 0; i < npairs; i++) {
		unsigned state = r[2 * i], len = r[2 * i + 1];
		if ((state & 0x40) && !s->bit6_warned) {
			s->bit6_warned = 1;
			if ((st = cwarn(s, type, base, 17 + 2 * i, "state byte 0x%02X has the unused bit 6 set",
			                state)))
				return st;
		}
		if (partial && (state & 0x3F) != cur)
			return cfail(s, HF_ERR_FORMAT, type, base, 17 + 2 * i,
			             "a partial run of state 0x%02X is continued by state 0x%02X", cur,
			             state & 0x3F);
		if (!partial && !(state & 0x80) && (state & 0x3F) == 0 && len == 0xFF)
			candidates++;
		partial = (state & 0x80) != 0;
		cur = state & 0x3F;
		sum += (uint64_t)len + 1;
	}
	if (partial)
		return cfail(s, HF_ERR_FORMAT, type, base, n - 2,
		             "the last pair is partial: the run continues past the end of the chunk");
	uint64_t zero = 0;
	if (sum > units) {
		uint64_t excess = sum - units;
		if (excess % 256 || excess / 256 > candidates)
			return cfail(s, HF_ERR_FORMAT, type, base, 13,
			             "the runs add up to %" PRIu64 " units, past the %" PRIu32
			             " units the segment declares", sum, units);
		zero = excess / 256;
		if ((st = cwarn(s, type, base, 13,
		                "the runs add up to %" PRIu64 " units for %" PRIu32 " declared: %" PRIu64
		                " free 256-unit pair(s) taken as zero-unit runs (producer bug)%s",
		                sum, units, zero,
		                candidates > zero ? "; which ones cannot be told, the last are taken" : "")))
			return st;
	} else if (sum < units) {
		return cfail(s, HF_ERR_FORMAT, type, base, 13,
		             "the runs add up to %" PRIu64 " units, short of the %" PRIu32
		             " units the segment declares", sum, units);
	}

	int native = type == T_NHSG;
	series *x = find_series(s, native, heap);
	if (!x) {
		if (!s->payload_mode &&
		    (st = unpaired(s, type, base, "segment of heap %" PRIu32 " outside %s", heap,
		                   native ? "NHST..NHEN" : "HPST..HPEN")))
			return st;
		if ((st = open_series(s, type, base, native, heap, -1, &x)))
			return st;
	}
	uint64_t seg = s->segment_no++;
	uint64_t start = (uint64_t)addr + (uint64_t)offs * unit;
	uint64_t end = start + (sum - zero * 256) * unit;
	char tn[5];
	ddm_type_name(type, tn);
	ddm_vals_clear(c, 13);
	ddm_val_u(&c->vals[0], seg);
	ddm_val_u(&c->vals[1], x->dump);
	ddm_val_u(&c->vals[2], chunk);
	ddm_val_s(&c->vals[3], tn, 4);
	ddm_val_u(&c->vals[4], heap);
	ddm_val_u(&c->vals[5], unit);
	ddm_val_u(&c->vals[6], addr);
	ddm_val_u(&c->vals[7], offs);
	ddm_val_u(&c->vals[8], units);
	ddm_val_u(&c->vals[9], npairs);
	ddm_val_u(&c->vals[10], zero);
	ddm_val_u(&c->vals[11], start);
	ddm_val_u(&c->vals[12], end);
	if ((st = ddm_record(c, &ddm_rec_heap_segment)))
		return st;
	x->segments++;
	s->stats->segments++;

	/* Pass 2: one run per region. */
	uint64_t at = start, cand_seen = 0, region_units = 0, region_pairs = 0;
	for (size_t i = 0; i < npairs; i++) {
		unsigned state = r[2 * i], len = r[2 * i + 1];
		region_units += (uint64_t)len + 1;
		region_pairs++;
		if (state & 0x80)
			continue;
		if (region_pairs == 1 && (state & 0x3F) == 0 && len == 0xFF &&
		    cand_seen++ >= candidates - zero) {
			s->stats->zero_unit_runs++;
			region_units = region_pairs = 0;
			continue;
		}
		uint64_t bytes = region_units * unit;
		unsigned sol = state & 7, kind = (state >> 3) & 7;
		ddm_vals_clear(c, 10);
		ddm_val_u(&c->vals[0], x->dump);
		ddm_val_u(&c->vals[1], seg);
		ddm_val_u(&c->vals[2], heap);
		ddm_val_u(&c->vals[3], at);
		ddm_val_u(&c->vals[4], bytes);
		ddm_val_u(&c->vals[5], region_units);
		ddm_val_u(&c->vals[6], sol);
		ddm_val_u(&c->vals[7], kind);
		ddm_val_i(&c->vals[8], type == T_HPSO);
		ddm_val_u(&c->vals[9], region_pairs);
		if ((st = ddm_record(c, &ddm_rec_heap_run)))
			return st;
		if (sol == 0) {
			x->free += bytes;
			if (bytes > x->largest_free)
				x->largest_free = bytes;
		} else {
			x->used += bytes;
		}
		x->runs++;
		s->stats->runs++;
		at += bytes;
		region_units = region_pairs = 0;
	}
	return HF_OK;
}

/* ---- chunks ------------------------------------------------------------- */

static hf_status handle(stream *s, uint32_t type, const uint8_t *p, size_t n, uint64_t base,
                        uint64_t hdr_off, const pkt_info *pk);

/* The most n bytes of deflate data can inflate to: a stored length of 258
 * costs at least 2 bits, so 1032 to 1 plus a block's worth of slack. */
#define DEFLATE_MAX_OUT(n) ((uint64_t)(n) * 1032 + 1024)

static hf_status do_zlib(stream *s, const uint8_t *p, size_t n, uint64_t base, uint64_t hdr_off,
                         const pkt_info *pk)
{
	if (s->c.inflated)
		return cfail(s, HF_ERR_FORMAT, T_ZLIB, base, 0, "a ZLIB chunk inside a ZLIB chunk");
	if (n < 8)
		return cfail(s, HF_ERR_TRUNCATED, T_ZLIB, base, 0,
		             "a ZLIB chunk of %zu bytes has no inner type and length", n);
	uint32_t inner = hf_be32(p);
	uint64_t want = hf_be32(p + 4);
	char tn[5];
	ddm_type_name(inner, tn);
	if (want > s->max_chunk)
		return cfail(s, HF_ERR_LIMIT, T_ZLIB, base, 4,
		             "declares %" PRIu64 " inflated bytes of %s, over the %" PRIu64 "-byte limit",
		             want, tn, s->max_chunk);
	/* Nothing is allocated for more than the deflate data can give. */
	if (want > DEFLATE_MAX_OUT(n - 8))
		return cfail(s, HF_ERR_FORMAT, T_ZLIB, base, 4,
		             "declares %" PRIu64 " inflated bytes of %s, more than %zu bytes of "
		             "deflate data can hold", want, tn, n - 8);
	hf_buf_reset(&s->inflated);
	if (!hf_buf_reserve(&s->inflated, (size_t)want + 1))
		return ddm_nomem(&s->c);
	const uint8_t *d = p + 8;
	size_t dn = n - 8;
	int wrapped = dn >= 2 && (d[0] & 0x0F) == 8 && (d[0] >> 4) <= 7 &&
	              ((unsigned)d[0] * 256 + d[1]) % 31 == 0;
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	if (inflateInit2(&zs, wrapped ? 15 : -15) != Z_OK)
		return ddm_nomem(&s->c);
	zs.next_in = (Bytef *)d;
	zs.avail_in = (uInt)(dn > UINT32_MAX ? UINT32_MAX : dn);
	zs.next_out = s->inflated.data;
	/* One byte more than declared, to see a stream that goes on. */
	zs.avail_out = (uInt)want + 1;
	int rc = inflate(&zs, Z_FINISH);
	uint64_t got = zs.total_out;
	size_t used = dn - zs.avail_in;
	inflateEnd(&zs);
	if (got > want)
		return cfail(s, HF_ERR_FORMAT, T_ZLIB, base, 8,
		             "the %s data inflates past its declared %" PRIu64 " bytes", tn, want);
	if (rc != Z_STREAM_END) {
		if (rc == Z_BUF_ERROR || rc == Z_OK)
			return cfail(s, HF_ERR_TRUNCATED, T_ZLIB, base, 8,
			             "the deflate data of %s ends after %" PRIu64 " of %" PRIu64
			             " declared bytes", tn, got, want);
		return cfail(s, HF_ERR_FORMAT, T_ZLIB, base, 8, "corrupt deflate data of %s: %s", tn,
		             zs.msg ? zs.msg : "inflate failed");
	}
	if (got != want)
		return cfail(s, HF_ERR_FORMAT, T_ZLIB, base, 8,
		             "the %s data inflates to %" PRIu64 " bytes, not the %" PRIu64 " declared",
		             tn, got, want);
	hf_status st;
	if (used < dn && (st = cwarn(s, T_ZLIB, base, 8 + used,
	                             "%zu bytes after the end of the deflate data ignored", dn - used)))
		return st;
	s->stats->zlib_chunks++;
	s->c.inflated = 1;
	s->c.zlib_off = hdr_off;
	st = handle(s, inner, s->inflated.data, (size_t)got, 0, hdr_off, pk);
	s->c.inflated = 0;
	return st;
}

/* Writes the ddm.chunk record and decodes the payload p[0..n) of a chunk
 * whose header is at hdr_off and payload at base. */
static hf_status handle(stream *s, uint32_t type, const uint8_t *p, size_t n, uint64_t base,
                        uint64_t hdr_off, const pkt_info *pk)
{
	hf_status st;
	if (type == T_ZLIB)
		return do_zlib(s, p, n, base, hdr_off, pk);
	ddm_ctx *c = &s->c;
	uint64_t chunk = s->chunk_no++;
	s->stats->chunks++;
	count_type(s, type);
	const char *status = classify(type, n);
	char tn[5];
	ddm_type_name(type, tn);
	ddm_vals_clear(c, 9);
	ddm_val_u(&c->vals[0], chunk);
	ddm_val_u(&c->vals[1], hdr_off);
	ddm_val_s(&c->vals[2], tn, 4);
	ddm_val_u(&c->vals[3], n);
	if (pk && pk->in_packet) {
		ddm_val_u(&c->vals[4], pk->packet);
		ddm_val_u(&c->vals[5], pk->id);
		ddm_val_i(&c->vals[6], pk->reply);
	}
	ddm_val_i(&c->vals[7], s->c.inflated);
	ddm_val_s(&c->vals[8], status, strlen(status));
	if ((st = ddm_record(c, &ddm_rec_chunk)))
		return st;
	if (!strcmp(status, "unknown")) {
		s->stats->unknown_chunks++;
		if (s->unknown_list.len < 200 && !strstr((const char *)s->unknown_list.data ?
		                                         (const char *)s->unknown_list.data : "", tn)) {
			if (s->unknown_list.len)
				s->unknown_list.len--; /* drop the NUL */
			if (!hf_buf_printf(&s->unknown_list, "%s%s", s->unknown_list.len ? "," : "", tn) ||
			    !hf_buf_append(&s->unknown_list, "", 1))
				return ddm_nomem(c);
		}
		return HF_OK;
	}
	if (!strcmp(status, "request")) {
		s->stats->request_chunks++;
		if (type == T_HELO)
			return meta_u(s, "ddm.host_protocol", hf_be32(p));
		return HF_OK;
	}
	if (strcmp(status, "decoded"))
		return HF_OK;
	switch (type) {
	case T_HELO: return do_helo(s, p, n, base);
	case T_APNM: return do_apnm(s, p, n, base);
	case T_WAIT:
		if (n < 1)
			return cfail(s, HF_ERR_TRUNCATED, type, base, 0, "no reason byte");
		return meta_u(s, "ddm.wait", p[0]);
	case T_STAG:
		if ((st = exact_len(s, type, base, n, 4)))
			return st;
		return meta_u(s, "ddm.boot_stage", hf_be32(p));
	case T_FEAT: return do_feat(s, p, n, base);
	case T_FAIL: return do_fail(s, p, n, base);
	case T_REAQ:
		if ((st = exact_len(s, type, base, n, 1)))
			return st;
		return ddm_meta(c, "ddm.alloc_tracking", p[0] ? "on" : "off");
	case T_THCR: case T_THNM: case T_THDE: case T_THST:
		return do_thread(s, type, p, n, base, chunk);
	case T_HPIF: return do_hpif(s, p, n, base, chunk);
	case T_HPST: case T_HPEN: case T_NHST: case T_NHEN:
		return do_start_end(s, type, p, n, base, chunk);
	case T_HPSG: case T_HPSO: case T_NHSG: return do_segment(s, type, p, n, base, chunk);
	case T_REAL:
		st = ddm_alloc_report(c, p, n, base, (int64_t)chunk);
		if (st && s->c.inflated && s->err->has_offset) {
			/* Offsets inside inflated bytes are not input offsets. */
			char msg[sizeof s->err->message], tag[sizeof s->err->tag + 8];
			snprintf(msg, sizeof msg, "%s", s->err->message);
			snprintf(tag, sizeof tag, "ZLIB/%.40s", s->err->tag);
			hf_error_at(s->err, st, s->c.zlib_off, tag, "byte %" PRIu64 " of the inflated payload: %s",
			            s->err->offset, msg);
		}
		return st;
	}
	return HF_OK;
}

/* A chunk read from the input: its 8-byte header at hdr_off has been
 * consumed; the payload of len bytes follows.  limit: bytes left in the
 * enclosing JDWP packet (UINT64_MAX outside one). */
static hf_status stream_chunk(stream *s, uint32_t type, uint64_t len, uint64_t hdr_off,
                              const pkt_info *pk)
{
	hf_status st;
	uint64_t base = hf_input_offset(s->in);
	char tn[5];
	ddm_type_name(type, tn);
	if (!hf_ddm_chunk_decoded(type)) {
		/* Not decoded: the record, then skip by length. */
		if ((st = handle(s, type, NULL, (size_t)(len > SIZE_MAX ? SIZE_MAX : len), base, hdr_off, pk)))
			return st;
		uint64_t skipped;
		if ((st = hf_input_skip(s->in, len, &skipped, s->err)))
			return st;
		if (skipped < len)
			return hf_error_at(s->err, HF_ERR_TRUNCATED, hdr_off, tn,
			                   "chunk length %" PRIu64 " is past the end of the input (%" PRIu64
			                   " bytes left)", len, skipped);
		return HF_OK;
	}
	if (len > s->max_chunk)
		return hf_error_at(s->err, HF_ERR_LIMIT, hdr_off + 4, tn,
		                   "chunk of %" PRIu64 " bytes is over the %" PRIu64 "-byte limit", len,
		                   s->max_chunk);
	const uint8_t *p;
	uint64_t got;
	if ((st = ddm_take(s->in, len, &s->payload, &p, &got, s->err)))
		return st;
	if (got < len)
		return hf_error_at(s->err, HF_ERR_TRUNCATED, hdr_off + 4, tn,
		                   "chunk length %" PRIu64 " is past the end of the input (%" PRIu64
		                   " bytes left)", len, got);
	/* The payload view stays valid: handle() does not touch the input. */
	return handle(s, type, p, (size_t)len, base, hdr_off, pk);
}

static int printable_type(const uint8_t *p)
{
	for (int i = 0; i < 4; i++)
		if (p[i] < 0x20 || p[i] >= 0x7F)
			return 0;
	return 1;
}

static int chunk_like(const uint8_t *p)
{
	for (int i = 0; i < 4; i++)
		if (!((p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9')))
			return 0;
	return 1;
}

static hf_status truncated(stream *s, uint64_t off, const char *tag, const char *what,
                           size_t have, size_t want)
{
	return hf_error_at(s->err, HF_ERR_TRUNCATED, off, tag,
	                   "the input ends inside %s (%zu of %zu bytes)", what, have, want);
}

static void progress(stream *s)
{
	if (!s->opt->progress)
		return;
	uint64_t done = hf_input_raw_offset(s->in);
	if (done - s->last_progress < ((uint64_t)16 << 20))
		return;
	s->last_progress = done;
	s->opt->progress(s->opt->progress_ctx, done, hf_input_raw_size(s->in));
}

static hf_status read_chunks(stream *s)
{
	hf_status st;
	while (!s->stop) {
		progress(s);
		uint64_t off = hf_input_offset(s->in);
		const uint8_t *p;
		size_t avail;
		if ((st = hf_input_peek(s->in, 8, &p, &avail, s->err)))
			return st;
		if (avail == 0)
			break;
		if (avail < 8)
			return truncated(s, off, "chunk header", "a chunk header", avail, 8);
		if (!printable_type(p))
			return hf_error_at(s->err, HF_ERR_FORMAT, off, "chunk header",
			                   "bytes %02X %02X %02X %02X are not a chunk type", p[0], p[1], p[2],
			                   p[3]);
		uint32_t type = hf_be32(p);
		uint64_t len = hf_be32(p + 4);
		hf_input_consume(s->in, 8);
		if ((st = stream_chunk(s, type, len, off, NULL)))
			return st;
	}
	return HF_OK;
}

static const char HANDSHAKE[] = "JDWP-Handshake";

/* Command ids kept for their replies, at most (about 32 MiB of map). */
#define MAX_PENDING_COMMANDS ((size_t)1 << 20)

static hf_status read_jdwp(stream *s)
{
	hf_status st;
	while (!s->stop) {
		progress(s);
		uint64_t off = hf_input_offset(s->in);
		const uint8_t *p;
		size_t avail;
		if ((st = hf_input_peek(s->in, 14, &p, &avail, s->err)))
			return st;
		if (avail == 0)
			break;
		if (avail >= 14 && !memcmp(p, HANDSHAKE, 14)) {
			hf_input_consume(s->in, 14);
			s->stats->handshakes++;
			continue;
		}
		if (avail >= 4 && !memcmp(p, "JDWP", 4))
			return hf_error_at(s->err, HF_ERR_FORMAT, off, "JDWP handshake",
			                   "an incomplete or damaged \"JDWP-Handshake\"");
		if (avail < 11)
			return truncated(s, off, "JDWP header", "a JDWP packet header", avail, 11);
		uint32_t len = hf_be32(p), id = hf_be32(p + 4);
		unsigned flags = p[8], cs = p[9], cmd = p[10];
		if (len < 11)
			return hf_error_at(s->err, HF_ERR_FORMAT, off, "JDWP header",
			                   "packet length %" PRIu32 " is below the 11-byte header", len);
		if (flags & 0x7F)
			return hf_error_at(s->err, HF_ERR_FORMAT, off + 8, "JDWP header",
			                   "flags 0x%02X: neither a command (0x00) nor a reply (0x80)", flags);
		uint64_t pkt = s->packet_no++;
		s->stats->packets++;
		int reply = (flags & 0x80) != 0;
		uint64_t data = len - 11;
		int ddm;
		if (!reply) {
			ddm = cs == 0xC7 && cmd == 0x01;
			/* Commands whose replies are not in the capture would
			 * keep their ids to its end, some 30 bytes each for an
			 * 11-byte packet: past MAX_PENDING_COMMANDS the ids are
			 * forgotten, and a reply to one of them is told by its
			 * data, as when its command was not captured. */
			if (s->cmd_ids.count >= MAX_PENDING_COMMANDS) {
				hf_map_free(&s->cmd_ids);
				hf_map_init(&s->cmd_ids);
			}
			if (!hf_map_put(&s->cmd_ids, id, ddm ? 1 : 2))
				return ddm_nomem(&s->c);
		} else {
			uint64_t *known = hf_map_get(&s->cmd_ids, id);
			if (known) {
				ddm = *known == 1;
				hf_map_remove(&s->cmd_ids, id); /* one reply a command */
			} else if (data >= 8) {
				/* The command was not captured: look at the data. */
				const uint8_t *q;
				size_t qa;
				if ((st = hf_input_peek(s->in, 19, &q, &qa, s->err)))
					return st;
				ddm = qa >= 19 && chunk_like(q + 11) && hf_be32(q + 15) <= data - 8;
			} else {
				ddm = 0;
			}
			if ((cs || cmd) && ddm)
				ddm = 0; /* an error reply carries no chunks */
		}
		hf_input_consume(s->in, 11);
		if (!ddm || data == 0) {
			if (!ddm)
				s->stats->other_packets++;
			else
				s->stats->ddm_packets++;
			uint64_t skipped;
			if ((st = hf_input_skip(s->in, data, &skipped, s->err)))
				return st;
			if (skipped < data)
				return truncated(s, off, "JDWP packet", "a JDWP packet", (size_t)skipped + 11,
				                 (size_t)len);
			continue;
		}
		s->stats->ddm_packets++;
		pkt_info pk = { 1, pkt, id, reply };
		uint64_t left = data;
		while (left >= 8 && !s->stop) {
			uint64_t hoff = hf_input_offset(s->in);
			if ((st = hf_input_peek(s->in, 8, &p, &avail, s->err)))
				return st;
			if (avail == 0)
				/* Not checked against the input's size before: the chunks
				 * of a capture cut inside its last packet are read (and
				 * kept by --salvage). */
				return hf_error_at(s->err, HF_ERR_TRUNCATED, off, "JDWP packet",
				                   "the input ends %" PRIu64 " bytes into a packet of length %" PRIu32,
				                   hoff - off, len);
			if (avail < 8)
				return truncated(s, hoff, "chunk header", "a chunk header", avail, 8);
			uint32_t type = hf_be32(p);
			uint64_t clen = hf_be32(p + 4);
			char tn[5];
			ddm_type_name(type, tn);
			if (clen > left - 8)
				return hf_error_at(s->err, HF_ERR_FORMAT, hoff + 4, tn,
				                   "chunk length %" PRIu64 " is past the end of its JDWP packet "
				                   "(%" PRIu64 " bytes left)", clen, left - 8);
			hf_input_consume(s->in, 8);
			if ((st = stream_chunk(s, type, clen, hoff, &pk)))
				return st;
			left -= 8 + clen;
		}
		if (left && !s->stop) {
			uint64_t hoff = hf_input_offset(s->in), skipped;
			if ((st = ddm_warn(&s->c, hoff, "JDWP packet",
			                   "%" PRIu64 " bytes after the last chunk of the packet ignored", left)))
				return st;
			if ((st = hf_input_skip(s->in, left, &skipped, s->err)))
				return st;
			if (skipped < left)
				return truncated(s, hoff, "JDWP packet", "a JDWP packet", (size_t)skipped,
				                 (size_t)left);
		}
	}
	return HF_OK;
}

/* How much of the input sniff() looks at: room for a few packet or chunk
 * headers after the first. */
#define SNIFF_WINDOW ((size_t)64 << 10)

/* A header at h: whether it reads as one, and the length of its packet or
 * chunk, header included. */
typedef int (*sniff_header)(const uint8_t *h, uint64_t *total);

static int jdwp_header(const uint8_t *h, uint64_t *total)
{
	*total = hf_be32(h);
	return *total >= 11 && (h[8] == 0x00 || h[8] == 0x80);
}

static int chunk_header(const uint8_t *h, uint64_t *total)
{
	*total = 8 + (uint64_t)hf_be32(h + 4);
	return chunk_like(h);
}

enum { CHAIN_NO, CHAIN_MAYBE, CHAIN_YES };

/* Whether a chunk header names a type heapfmt decodes or knows to skip. */
static int known_chunk(const uint8_t *h)
{
	uint32_t type = hf_be32(h);
	return hf_ddm_chunk_decoded(type) || is_skipped_type(type);
}

/* Walks the first few headers of hlen bytes in p[0..avail): each must read
 * as one, and each packet or chunk must end exactly where the next header
 * starts or where the buffered bytes end.  end: the input's size (0 if not
 * known).  YES: two or more headers chained (the last of them may run past
 * the end of the input, a capture cut short, when known(header) says it
 * is one; known may be NULL), or the ones seen end exactly
 * at the end of the buffered bytes; NO: the first header does not read as
 * one, or its length runs past the end of the input; MAYBE: only the first
 * header could be told (what follows it is past the buffered bytes, or not
 * a header). */
static int header_chain(const uint8_t *p, size_t avail, uint64_t end, size_t hlen,
                        sniff_header hdr, int (*known)(const uint8_t *h))
{
	uint64_t pos = 0, total;
	int n = 0;
	while (n < 4) {
		if (pos == avail)
			return n ? CHAIN_YES : CHAIN_NO;
		if (avail - pos < hlen || !hdr(p + pos, &total))
			break;
		if (end && total > end - pos) {
			/* Cut short: the first header says nothing; a later one
			 * chains when known says it is one (a capture cut in its
			 * second chunk), not four letters and a length that any
			 * allocation report may hold. */
			n += n > 0 && known && known(p + pos);
			break;
		}
		n++;
		pos += total;
		if (pos > avail)
			break;
	}
	return n >= 2 ? CHAIN_YES : n ? CHAIN_MAYBE : CHAIN_NO;
}

/* An allocation report by ddm-alloc.md section 5: header length >= 15,
 * entry header length >= 9, frame length >= 8, string offset between the
 * header length and the end of the input (end; 0 if not known); and, when
 * all of the input is in p[0..avail) (whole), the three string tables fit in
 * it. */
static int real_like(const uint8_t *p, size_t avail, uint64_t end, int whole)
{
	if (avail < 15 || p[0] < 15 || p[1] < 9 || p[2] < 8)
		return 0;
	uint64_t soff = hf_be32(p + 5);
	if (soff < p[0] || (end && soff > end))
		return 0;
	if (!whole)
		return 1;
	uint64_t pos = soff;
	for (int t = 0; t < 3; t++)
		for (uint32_t i = hf_be16(p + 9 + 2 * t); i > 0; i--) {
			if (pos > avail || avail - pos < 4)
				return 0;
			uint64_t units = hf_be32(p + pos);
			if (units * 2 > avail - pos - 4)
				return 0;
			pos += 4 + units * 2;
		}
	return 1;
}

/* Guesses the chunk type of a bare payload. */
static uint32_t guess_payload(const uint8_t *p, size_t n)
{
	if (real_like(p, n, n, 0))
		return T_REAL;
	if (n >= 17 && p[4] != 0 && (n - 17) % 2 == 0)
		return T_HPSG;
	if (n >= 4 && 4 + (uint64_t)hf_be32(p) * 29 == n)
		return T_HPIF;
	return 0;
}

static hf_status read_payload(stream *s)
{
	hf_status st;
	hf_buf all;
	hf_buf_init(&all);
	if ((st = ddm_read_all(s->in, s->max_chunk, &all, "payload", s->err)))
		goto out;
	uint32_t type = s->opt->payload_type;
	const uint8_t *data = all.data ? all.data : (const uint8_t *)"";
	if (!type)
		type = guess_payload(data, all.len);
	if (!type) {
		s->not_ddm = 1;
		/* Guessed, not named: a JDWP capture whose first packet is a long
		 * reply that does not look like one (hpsg2ndjson(1)) ends here too. */
		bool guessed = s->opt->shape == HF_DDM_SHAPE_AUTO;
		st = hf_error_at(s->err, HF_ERR_FORMAT, 0, "payload",
		                 "neither JDWP packets nor chunks, and the %zu bytes do not read as an "
		                 "allocation report, HPSG or HPIF data: name the chunk type (--payload=TYPE)%s",
		                 all.len,
		                 guessed ? ", or the shape (--shape=jdwp for a capture that starts with a "
		                           "long packet)" : "");
		goto out;
	}
	s->payload_mode = 1;
	st = handle(s, type, data, all.len, 0, 0, NULL);
	/* The lone segment's series: no HPST/HPEN to pair, so no complaint. */
	for (size_t i = 0; !st && i < s->nopen; i++)
		if (!s->open[i].closed)
			st = close_series(s, &s->open[i], -1);
out:
	hf_buf_free(&all);
	return st;
}

static hf_ddm_shape sniff(stream *s, hf_status *st)
{
	const uint8_t *p;
	size_t avail;
	/* Damage within the window (a gzip stream cut short) is met later, by
	 * the reading, after what comes before it. */
	*st = hf_input_peek_some(s->in, SNIFF_WINDOW, &p, &avail, s->err);
	if (*st)
		return HF_DDM_SHAPE_AUTO;
	int whole = avail < SNIFF_WINDOW;
	uint64_t end = whole ? avail : hf_input_size(s->in);
	/* The handshake, or what is left of it (the JDWP reader says it is
	 * damaged): no chunk type is "JDWP". */
	if (avail >= 4 && !memcmp(p, HANDSHAKE, 4))
		return HF_DDM_SHAPE_JDWP;
	/* A report may start with four letters (header lengths of 0x41 ...):
	 * bare chunks must chain, or start with a chunk type heapfmt knows
	 * whose length runs past the window (an HPDS of a whole hprof file),
	 * or the bytes must not read as a report. */
	if (avail >= 8 && chunk_like(p)) {
		int chain = header_chain(p, avail, end, 8, chunk_header, known_chunk);
		if (chain == CHAIN_YES ||
		    (chain == CHAIN_MAYBE && 8 + (uint64_t)hf_be32(p + 4) > avail && known_chunk(p)) ||
		    !real_like(p, avail, end, whole))
			return HF_DDM_SHAPE_CHUNKS;
	}
	if (avail >= 11) {
		/* Packets without the handshake: their headers chain. */
		int chain = header_chain(p, avail, end, 11, jdwp_header, NULL);
		if (chain == CHAIN_YES)
			return HF_DDM_SHAPE_JDWP;
		/* One packet longer than what is buffered: by its header. */
		uint32_t len = hf_be32(p);
		unsigned flags = p[8], cs = p[9], cmd = p[10];
		if (chain == CHAIN_MAYBE) {
			if (flags == 0 && cs == 0xC7 && cmd == 1)
				return HF_DDM_SHAPE_JDWP;
			if (flags == 0x80 && avail >= 19 && chunk_like(p + 11))
				return HF_DDM_SHAPE_JDWP;
			/* A debugger's command first: a standard JDWP command set. */
			if (flags == 0 && ((cs >= 1 && cs <= 18) || cs == 64) && cmd >= 1 &&
			    len < (1u << 20))
				return HF_DDM_SHAPE_JDWP;
		}
	}
	return HF_DDM_SHAPE_PAYLOAD;
}

void hf_ddm_options_init(hf_ddm_options *opt)
{
	memset(opt, 0, sizeof *opt);
}

/* Series still open at the end: written incomplete, with a warning (an
 * error under strict, which salvage can then keep). */
static hf_status end_series(stream *s)
{
	hf_status st;
	/* Once through the list, in order (close_series moves nothing). */
	for (size_t i = 0; i < s->nopen; i++) {
		series *x = &s->open[i];
		if (x->closed)
			continue;
		if (x->start_chunk >= 0 &&
		    (st = unpaired(s, x->native ? T_NHST : T_HPST, hf_input_offset(s->in),
		                   "heap %" PRIu32 " started but the input ends before its %s", x->heap,
		                   x->native ? "NHEN" : "HPEN")))
			return st;
		if ((st = close_series(s, x, -1)))
			return st;
	}
	return HF_OK;
}

static hf_status trailer(stream *s)
{
	hf_status st;
	if ((st = end_series(s)))
		return st;
	hf_buf list;
	hf_buf_init(&list);
	for (size_t i = 0; i < s->ncounts; i++) {
		char tn[5];
		ddm_type_name(s->counts[i].type, tn);
		if (!hf_buf_printf(&list, "%s%s:%" PRIu64, i ? "," : "", tn, s->counts[i].n)) {
			hf_buf_free(&list);
			return ddm_nomem(&s->c);
		}
	}
	if (!hf_buf_append(&list, "", 1)) {
		hf_buf_free(&list);
		return ddm_nomem(&s->c);
	}
	st = ddm_meta(&s->c, "ddm.chunk_types", (const char *)list.data);
	hf_buf_free(&list);
	if (st)
		return st;
	if (s->unknown_list.len && (st = ddm_meta(&s->c, "ddm.unknown_types",
	                                          (const char *)s->unknown_list.data)))
		return st;
	const hf_ddm_stats *x = s->stats;
	struct { const char *k; uint64_t v; } counts[] = {
		{ "ddm.jdwp_packets", x->packets }, { "ddm.jdwp_ddm_packets", x->ddm_packets },
		{ "ddm.jdwp_other_packets", x->other_packets }, { "ddm.jdwp_handshakes", x->handshakes },
		{ "ddm.chunks", x->chunks }, { "ddm.zlib_chunks", x->zlib_chunks },
		{ "ddm.unknown_chunks", x->unknown_chunks }, { "ddm.heap_dumps", x->heap_dumps },
		{ "ddm.segments", x->segments }, { "ddm.runs", x->runs },
		{ "ddm.zero_unit_runs", x->zero_unit_runs }, { "ddm.alloc_reports", x->alloc.reports },
		{ "ddm.warnings", s->c.warnings },
	};
	for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
		if ((st = meta_u(s, counts[i].k, counts[i].v)))
			return st;
	if (s->stats->incomplete) {
		char line[512], at[24];
		hf_error_format(&s->stats->damage, line, sizeof line);
		snprintf(at, sizeof at, "%" PRIu64, s->stats->stopped_at);
		if ((st = ddm_meta(&s->c, "heapfmt.stopped_at", at)) ||
		    (st = ddm_meta(&s->c, "heapfmt.damage", line)))
			return st;
	}
	return ddm_meta(&s->c, "heapfmt.complete", s->stop ? "false" : "true");
}

hf_status hf_ddm_read(hf_input *in, hf_sink *sink, const hf_ddm_options *opt,
                      hf_ddm_stats *stats, hf_error *err)
{
	hf_ddm_options defaults;
	hf_ddm_stats local;
	if (!opt) {
		hf_ddm_options_init(&defaults);
		opt = &defaults;
	}
	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof *stats);
	stream *s = calloc(1, sizeof *s);
	if (!s)
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	ddm_ctx_init(&s->c, sink, err);
	s->c.astats = &stats->alloc;
	s->c.stats_warnings = &stats->warnings;
	s->c.order = opt->order;
	s->c.warning = opt->warning;
	s->c.warning_ctx = opt->warning_ctx;
	s->in = in;
	s->opt = opt;
	s->stats = stats;
	s->err = err;
	s->max_chunk = opt->max_chunk ? opt->max_chunk : DEFAULT_MAX_CHUNK;
	hf_map_init(&s->cmd_ids);
	hf_map_init(&s->open_by_key);
	hf_status st = HF_OK;
	hf_ddm_shape shape = opt->shape;
	if ((st = hf_refuse_empty(in, err)))
		goto out;
	int shown_ddm = shape != HF_DDM_SHAPE_AUTO || opt->payload_type;
	/* What is surely another format is named as such, not read as chunks
	 * ("JAVA" of an HPROF file, 542 MB long). */
	if (shape == HF_DDM_SHAPE_AUTO &&
	    (st = hf_kind_refuse(in, HF_KIND_BIT(HF_KIND_HPROF) | HF_KIND_BIT(HF_KIND_SQLITE) | HF_KIND_BIT(HF_KIND_V8) |
	                         HF_KIND_BIT(HF_KIND_NDJSON) | HF_KIND_BIT(HF_KIND_ZIP), "a DDM stream", err)))
		goto out;
	if (shape == HF_DDM_SHAPE_AUTO && (shape = sniff(s, &st)) == HF_DDM_SHAPE_AUTO)
		goto out;
	hf_error scratch;
	const uint8_t *p;
	size_t avail;
	if (shape == HF_DDM_SHAPE_JDWP)
		shown_ddm = 1;
	else if (shape == HF_DDM_SHAPE_CHUNKS && !hf_input_peek(in, 4, &p, &avail, &scratch) && avail >= 4 &&
	         (known_chunk(p) || hf_be32(p) == T_ZLIB))
		shown_ddm = 1;
	const char *source = opt->source_name ? opt->source_name : hf_input_name(in);
	if ((st = ddm_begin(&s->c, "ddm-stream", source, opt->crtime, opt->generator)))
		goto out;
	static const char *const shape_names[] = { "auto", "jdwp", "chunks", "payload" };
	if ((st = ddm_meta(&s->c, "ddm.shape", shape_names[shape])))
		goto out;
	if (shape == HF_DDM_SHAPE_JDWP) {
		st = read_jdwp(s);
		/* The handshake and nothing after it holds no more than an empty
		 * input does, and is refused as one is (--salvage too). */
		if (!st && !stats->packets) {
			st = hf_error_at(err, HF_ERR_FORMAT, hf_input_offset(in), "input",
			                 "the input holds only the JDWP handshake, no packet after it");
			goto out;
		}
		/* A debugger's session without DDM's traffic converts to nothing
		 * but its counts: told, as a capture of the wrong process would
		 * otherwise pass for an empty heap. */
		if (!st && !stats->chunks)
			st = ddm_warn(&s->c, hf_input_offset(in), "input",
			              "the capture holds JDWP packets (%" PRIu64 ") but no DDM chunk: nothing of the"
			              " heap to convert", stats->packets);
	} else if (shape == HF_DDM_SHAPE_CHUNKS)
		st = read_chunks(s);
	else
		st = read_payload(s);
	if (!st)
		st = end_series(s);
	/* Damage in input that never showed itself DDM is the wrong input,
	 * not a damaged stream: shown by the shape the caller named, the
	 * JDWP handshake or packets, a chunk type heapfmt knows (first, or
	 * read before the damage), or a payload type named; not by a guess
	 * at a payload's type from its bytes, nor by four letters ("JAVA" of
	 * an HPROF file read as chunks). */
	if (!shown_ddm && !(shape == HF_DDM_SHAPE_CHUNKS && stats->chunks > stats->unknown_chunks))
		s->not_ddm = 1;
	bool keep = st && !s->not_ddm && st != HF_ERR_NOMEM && st != HF_ERR_IO && st != HF_ERR_USAGE;
	stats->salvageable = keep && !opt->salvage;
	if (keep && opt->salvage) {
		/* Keep what came before the damage: the open series end
		 * incomplete, and the trailer says where the reader stopped. */
		stats->incomplete = 1;
		stats->damage = *err;
		stats->stopped_at = err->has_offset ? err->offset : hf_input_offset(in);
		memset(err, 0, sizeof *err);
		s->stop = 1;
		st = HF_OK;
	}
	if (!st)
		st = trailer(s);
out:
	hf_map_free(&s->cmd_ids);
	hf_map_free(&s->open_by_key);
	hf_buf_free(&s->payload);
	hf_buf_free(&s->inflated);
	hf_buf_free(&s->text);
	hf_buf_free(&s->unknown_list);
	free(s->open);
	ddm_ctx_free(&s->c);
	free(s);
	return st;
}
