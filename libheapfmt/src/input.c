/*
 * The input layer: one peek/consume interface over a regular file, standard
 * input or a memory buffer, with gzip inflated underneath.  Readers ask for
 * "at least N contiguous bytes" and say how many they used; they never know
 * where the bytes come from.
 */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "input_impl.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <zlib.h>

#define CHUNK ((size_t)1 << 20)
/* A plain descriptor's window starts at this size and takes its regular
 * CHUNK * 4 the first time it needs room (hf_input_peek): a short input
 * (a pipe of a few KiB) never allocates 5 MiB.  Per input, under ASan, the
 * 1 MiB detection buffer and the 4 MiB window cost more than reading: they
 * were 89 % of fuzz_ddm's time and 39 % of fuzz_hprof's (perf), which ran
 * at 290 and 143 executions/s. */
#define WINDOW_FIRST ((size_t)64 << 10)

/*
 * A gzip file or pipe is inflated on a second thread, into a ring of
 * GZ_SLOTS blocks the reader copies from: inflating was two thirds of
 * hprof2ndjson's time on the 1 GB benchmark dump's .gz, on the parser's
 * thread.  The thread owns the raw side (fd, raw buffer, z_stream) until it
 * is stopped (rewind, close); the reader owns the decoded window.  A slot
 * ends with the stream's end or a failure, which the reader meets after the
 * slot's bytes, at the same offset and with the same message as when it
 * inflates on its own thread (memory input, or no thread to be had).
 */
#define GZ_SLOTS 4
#define GZ_SLOT ((size_t)1 << 20)

typedef struct gz_slot {
	uint8_t *data;
	size_t len, pos;     /* bytes in data; bytes the reader took */
	uint64_t raw_offset; /* compressed bytes read when it was filled */
	int eof;             /* the stream ends after these bytes */
	hf_status status;    /* or fails there, with err */
	hf_error err;
} gz_slot;

typedef struct gz_thread {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	gz_slot slot[GZ_SLOTS];
	unsigned head, count; /* the oldest filled slot; how many are filled */
	int stop;
	uint64_t produced;   /* decoded bytes so far (the thread's) */
} gz_thread;


static void gz_stop(hf_input *in);
static void spool_drop(hf_input *in);

/* Reads raw bytes into dst; returns count, 0 at EOF, -1 on error. */
static ssize_t raw_read(hf_input *in, uint8_t *dst, size_t n, hf_error *err)
{
	if (in->fd < 0) {
		size_t left = in->memsize - in->mempos;
		if (n > left)
			n = left;
		memcpy(dst, in->mem + in->mempos, n);
		in->mempos += n;
		in->raw_offset += n;
		return (ssize_t)n;
	}
	for (;;) {
		ssize_t r = read(in->fd, dst, n);
		if (r >= 0) {
			in->raw_offset += (uint64_t)r;
			return r;
		}
		if (errno == EINTR)
			continue;
		hf_error_at(err, HF_ERR_IO, in->raw_offset, NULL, "cannot read %s: %s",
		            in->name, strerror(errno));
		return -1;
	}
}

static hf_status detect(hf_input *in, hf_error *err)
{
	/* Look at the first raw bytes without losing them. */
	uint8_t head[6] = {0};
	size_t got = 0;
	if (in->fd < 0) {
		got = in->memsize < sizeof head ? in->memsize : sizeof head;
		memcpy(head, in->mem, got);
	} else {
		/* Into the (small) first window, where a plain input's bytes stay;
		 * only [0, end) is read (malloc: nothing to clear).  The head's
		 * bytes are cleared all the same: GCC cannot tell that read()
		 * wrote the `got` copied below (-Wmaybe-uninitialized). */
		in->cap = WINDOW_FIRST;
		in->buf = malloc(in->cap);
		if (!in->buf)
			return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
		memset(in->buf, 0, sizeof head);
		while (in->end < sizeof head) {
			ssize_t r = raw_read(in, in->buf + in->end, in->cap - in->end, err);
			if (r < 0)
				return HF_ERR_IO;
			if (r == 0)
				break;
			in->end += (size_t)r;
		}
		got = in->end < sizeof head ? in->end : sizeof head;
		memcpy(head, in->buf, got);
	}
	if (got >= 2 && head[0] == 0x1F && head[1] == 0x8B) {
		in->comp = HF_COMPRESSION_GZIP;
		if (inflateInit2(&in->zs, 15 + 16) != Z_OK)
			return hf_error_set(err, HF_ERR_NOMEM, "cannot initialise zlib");
		in->z_init = 1;
		if (in->fd < 0) {
			in->zs.next_in = (Bytef *)in->mem;
			in->zs.avail_in = (uInt)(in->memsize > UINT32_MAX ? UINT32_MAX : in->memsize);
			in->mempos = in->zs.avail_in;
			in->raw_offset = in->mempos;
		} else {
			/* What detection read is raw input: it moves to the raw
			 * buffer, and the window is made by the first peek, as
			 * before.  zlib reads only zs.next_in[0, avail_in), bytes
			 * raw_read wrote (here and in gz_inflate): malloc. */
			in->raw = malloc(CHUNK);
			if (!in->raw)
				return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
			memcpy(in->raw, in->buf, in->end);
			in->zs.next_in = in->raw;
			in->zs.avail_in = (uInt)in->end;
			free(in->buf);
			in->buf = NULL;
			in->cap = in->end = 0;
		}
		return HF_OK;
	}
	if (got >= 3 && head[0] == 'B' && head[1] == 'Z' && head[2] == 'h')
		return hf_error_at(err, HF_ERR_UNSUPPORTED, 0, NULL,
		                   "the input is bzip2-compressed; decompress it first (bunzip2 -c)");
	if (got >= 6 && !memcmp(head, "\xFD" "7zXZ\0", 6))
		return hf_error_at(err, HF_ERR_UNSUPPORTED, 0, NULL,
		                   "the input is xz-compressed; decompress it first (xz -dc)");
	if (got >= 4 && !memcmp(head, "\x28\xB5\x2F\xFD", 4))
		return hf_error_at(err, HF_ERR_UNSUPPORTED, 0, NULL,
		                   "the input is zstd-compressed; decompress it first (zstd -dc)");
	if (in->fd < 0) {
		in->zc = in->mem;
		in->end = in->memsize;
		in->eof = 1;
		in->size = in->memsize;
	} else {
		/* What detection read is in the window already. */
		if (in->seekable)
			in->size = in->raw_size;
	}
	return HF_OK;
}

static hf_input *input_new(const char *name)
{
	hf_input *in = calloc(1, sizeof *in);
	if (!in)
		return NULL;
	in->name = strdup(name);
	if (!in->name) {
		free(in);
		return NULL;
	}
	in->fd = -1;
	return in;
}

hf_status hf_input_open(hf_input **out, const char *path, hf_error *err)
{
	*out = NULL;
	int is_stdin = !strcmp(path, "-");
	hf_input *in = input_new(is_stdin ? "<stdin>" : path);
	if (!in)
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	if (is_stdin) {
		in->fd = 0;
	} else {
		in->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0) {
			hf_status st = hf_error_set(err, HF_ERR_IO, "cannot open %s: %s", path,
			                            strerror(errno));
			hf_input_close(in);
			return st;
		}
		in->owns_fd = 1;
	}
	/* Standard input, a named pipe or a shell's <(zcat ...): widened. */
	hf_pipe_widen(in->fd);
	struct stat sb;
	if (fstat(in->fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
		/* Standard input may be a file already partly read ("(head -c 9;
		 * prog) < f"): its stream, and a rewind, start where it stands. */
		off_t at = is_stdin ? lseek(in->fd, 0, SEEK_CUR) : 0;
		in->base = at > 0 ? (uint64_t)at : 0;
		in->seekable = 1;
		in->raw_size = (uint64_t)sb.st_size > in->base ? (uint64_t)sb.st_size - in->base : 0;
	} else if (!is_stdin && fstat(in->fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		hf_input_close(in);
		return hf_error_set(err, HF_ERR_IO, "cannot read %s: it is a directory", path);
	}
#ifdef POSIX_FADV_SEQUENTIAL
	if (in->seekable)
		posix_fadvise(in->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	hf_status st = detect(in, err);
	if (st != HF_OK) {
		hf_input_close(in);
		return st;
	}
	*out = in;
	return HF_OK;
}

hf_status hf_input_open_memory(hf_input **out, const void *data, size_t size,
                               hf_error *err)
{
	*out = NULL;
	hf_input *in = input_new("<memory>");
	if (!in)
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	in->mem = data;
	in->memsize = size;
	in->raw_size = size;
	hf_status st = detect(in, err);
	if (st != HF_OK) {
		hf_input_close(in);
		return st;
	}
	*out = in;
	return HF_OK;
}

void hf_input_close(hf_input *in)
{
	if (!in)
		return;
	gz_stop(in);
	if (in->z_init)
		inflateEnd(&in->zs);
	spool_drop(in);
	if (in->owns_fd && in->fd >= 0)
		close(in->fd);
	free(in->raw);
	free(in->buf);
	free(in->name);
	free(in);
}

/* Inflates more gzip data into dst[0..room), whose first byte is decoded
 * byte `base` of the stream: returns with *produced > 0, or *eof set, or a
 * failure (the bytes of the inflate call that failed are not counted). */
static hf_status gz_inflate(hf_input *in, uint8_t *dst, size_t room, uint64_t base,
                            size_t *produced, int *eof, hf_error *err)
{
	*produced = 0;
	*eof = 0;
	for (;;) {
		if (in->zs.avail_in == 0 && in->fd >= 0 && !in->raw_eof) {
			ssize_t r = raw_read(in, in->raw, CHUNK, err);
			if (r < 0)
				return HF_ERR_IO;
			if (r == 0)
				in->raw_eof = 1;
			in->zs.next_in = in->raw;
			in->zs.avail_in = (uInt)r;
		} else if (in->zs.avail_in == 0 && in->fd < 0 && in->mempos < in->memsize) {
			size_t left = in->memsize - in->mempos;
			in->zs.next_in = (Bytef *)in->mem + in->mempos;
			in->zs.avail_in = (uInt)(left > UINT32_MAX ? UINT32_MAX : left);
			in->mempos += in->zs.avail_in;
			in->raw_offset = in->mempos;
		}
		int no_more_raw = in->zs.avail_in == 0 &&
		                  (in->fd >= 0 ? in->raw_eof : in->mempos >= in->memsize);
		if (in->z_member_done) {
			/* Another gzip member may follow (HotSpot's -gz writer makes many). */
			if (no_more_raw) {
				*eof = 1;
				return HF_OK;
			}
			if (in->zs.next_in[0] != 0x1F) {
				/* Trailing zero padding is tolerated, as by gzip(1). */
				while (in->zs.avail_in && in->zs.next_in[0] == 0) {
					in->zs.next_in++;
					in->zs.avail_in--;
				}
				if (in->zs.avail_in == 0)
					continue;
				return hf_error_at(err, HF_ERR_FORMAT, base, "gzip",
				                   "garbage after the end of the gzip stream");
			}
			inflateReset(&in->zs);
			in->z_member_done = 0;
		}
		if (no_more_raw)
			return hf_error_at(err, HF_ERR_TRUNCATED, base, "gzip",
			                   "gzip stream ends before its end marker");
		in->zs.next_out = dst;
		in->zs.avail_out = (uInt)(room > UINT32_MAX ? UINT32_MAX : room);
		uInt before = in->zs.avail_out;
		int zr = inflate(&in->zs, Z_NO_FLUSH);
		size_t n = before - in->zs.avail_out;
		if (zr == Z_STREAM_END)
			in->z_member_done = 1;
		else if (zr != Z_OK && zr != Z_BUF_ERROR)
			return hf_error_at(err, HF_ERR_FORMAT, base + n, "gzip", "corrupt gzip data: %s",
			                   in->zs.msg ? in->zs.msg : "inflate failed");
		if (n) {
			*produced = n;
			return HF_OK;
		}
	}
}

/* The thread: fills slots until the stream ends or fails, or it is stopped. */
static void *gz_main(void *arg)
{
	hf_input *in = arg;
	gz_thread *g = in->gz;
	for (int last = 0; !last;) {
		pthread_mutex_lock(&g->mu);
		while (g->count == GZ_SLOTS && !g->stop)
			pthread_cond_wait(&g->cv, &g->mu);
		if (g->stop) {
			pthread_mutex_unlock(&g->mu);
			break;
		}
		gz_slot *s = &g->slot[(g->head + g->count) % GZ_SLOTS];
		pthread_mutex_unlock(&g->mu);
		/* Not the reader's until count covers it. */
		s->len = s->pos = 0;
		s->eof = 0;
		s->status = HF_OK;
		while (s->len < GZ_SLOT && !s->eof && !s->status) {
			size_t n;
			s->status = gz_inflate(in, s->data + s->len, GZ_SLOT - s->len, g->produced + s->len,
			                       &n, &s->eof, &s->err);
			s->len += n;
		}
		g->produced += s->len;
		s->raw_offset = in->raw_offset;
		last = s->eof || s->status;
		pthread_mutex_lock(&g->mu);
		g->count++;
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
	}
	return NULL;
}

/* Stops and frees the thread (the raw side is the caller's again). */
static void gz_stop(hf_input *in)
{
	gz_thread *g = in->gz;
	if (!g)
		return;
	pthread_mutex_lock(&g->mu);
	g->stop = 1;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	pthread_join(g->thread, NULL);
	pthread_cond_destroy(&g->cv);
	pthread_mutex_destroy(&g->mu);
	for (int i = 0; i < GZ_SLOTS; i++)
		free(g->slot[i].data);
	free(g);
	in->gz = NULL;
}

/* Starts the thread; false when it cannot (the caller inflates itself). */
static bool gz_start(hf_input *in, uint64_t produced)
{
	gz_thread *g = calloc(1, sizeof *g);
	if (!g)
		return false;
	bool ok = true;
	for (int i = 0; i < GZ_SLOTS && ok; i++)
		ok = (g->slot[i].data = malloc(GZ_SLOT)) != NULL;
	/* The decoded bytes so far: everything the window (and the spool) has seen. */
	g->produced = produced;
	if (ok && pthread_mutex_init(&g->mu, NULL) != 0)
		ok = false;
	else if (ok && pthread_cond_init(&g->cv, NULL) != 0) {
		pthread_mutex_destroy(&g->mu);
		ok = false;
	}
	in->gz = g;
	if (ok && pthread_create(&g->thread, NULL, gz_main, in) != 0) {
		pthread_cond_destroy(&g->cv);
		pthread_mutex_destroy(&g->mu);
		ok = false;
	}
	if (!ok) {
		for (int i = 0; i < GZ_SLOTS; i++)
			free(g->slot[i].data);
		free(g);
		in->gz = NULL;
	}
	return ok;
}

/* Decoded gzip bytes into dst[0..room), the first of them decoded byte
 * base of the stream: from the thread's slots, else by inflating here;
 * *got of them, *eof set at the stream's end. */
static hf_status gz_take(hf_input *in, uint8_t *dst, size_t room, uint64_t base, size_t *got, int *eof,
                         hf_error *err)
{
	*got = 0;
	*eof = 0;
	if (in->fd >= 0 && !in->gz && !in->gz_failed && !gz_start(in, base))
		in->gz_failed = 1;
	gz_thread *g = in->gz;
	if (!g)
		return gz_inflate(in, dst, room, base, got, eof, err);
	pthread_mutex_lock(&g->mu);
	while (g->count == 0)
		pthread_cond_wait(&g->cv, &g->mu);
	gz_slot *s = &g->slot[g->head];
	pthread_mutex_unlock(&g->mu);
	size_t n = s->len - s->pos;
	if (n > room)
		n = room;
	memcpy(dst, s->data + s->pos, n);
	*got = n;
	s->pos += n;
	in->raw_seen = s->raw_offset;
	if (s->pos < s->len || n)
		return HF_OK;
	/* Taken whole: the end or the failure after it stays for every later call. */
	if (s->status) {
		*err = s->err;
		return s->status;
	}
	if (s->eof) {
		*eof = 1;
		return HF_OK;
	}
	pthread_mutex_lock(&g->mu);
	g->head = (g->head + 1) % GZ_SLOTS;
	g->count--;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	return HF_OK;
}

/* More decoded bytes into buf[end..cap). */
static hf_status fill_gzip(hf_input *in, hf_error *err)
{
	size_t n;
	int eof;
	hf_status st = gz_take(in, in->buf + in->end, in->cap - in->end, in->offset + (in->end - in->start), &n,
	                       &eof, err);
	in->end += n;
	if (eof)
		in->eof = 1;
	return st;
}

/* The window's next bytes from the spool: what its file holds, then what a
 * full disk left in memory, then the end or the failure met after them;
 * past all that the spool is dropped (and the caller reads the source). */
static hf_status spool_take(hf_input *in, hf_error *err)
{
	uint64_t wend = in->offset + (in->end - in->start), at = wend - in->sp_base;
	size_t room = in->cap - in->end;
	if (at < in->sp_len) {
		size_t n = in->sp_len - at < room ? (size_t)(in->sp_len - at) : room, got = 0;
		int e = hf_pread_full(fileno(in->sp), in->buf + in->end, n, at, &got);
		if (e || got < n)
			return hf_error_at(err, HF_ERR_IO, wend, NULL,
			                   "cannot read back the temporary file of %s's look ahead: %s", in->name,
			                   e ? strerror(e) : "short read");
		in->end += n;
		return HF_OK;
	}
	if (in->sp_pend_pos < in->sp_pend_len) {
		size_t n = in->sp_pend_len - in->sp_pend_pos < room ? in->sp_pend_len - in->sp_pend_pos : room;
		memcpy(in->buf + in->end, in->sp_pend + in->sp_pend_pos, n);
		in->sp_pend_pos += n;
		in->end += n;
		return HF_OK;
	}
	if (in->sp_status) {
		/* Stays for every later call, as the source's would. */
		*err = in->sp_err;
		return in->sp_status;
	}
	if (in->sp_eof)
		in->eof = 1;
	/* Passed: the space goes back; a later look ahead makes another. */
	spool_drop(in);
	return HF_OK;
}

/* hf_input_peek when the window must take more bytes (want at most
 * HF_INPUT_MAX_PEEK; not a memory input).  A function of its own: with it
 * inline, every peek saved and restored the registers this loop needs,
 * half of the peek's instructions (cachegrind: 39 a call, 3.1 M calls
 * for the 100 MB benchmark dump). */
static __attribute__((noinline)) hf_status peek_more(hf_input *in, size_t want, const uint8_t **p,
                                                     size_t *avail, hf_error *err)
{
	while (in->end - in->start < want && !in->eof) {
		/* Make room: slide the window to the front, grow if needed.  The
		 * buffer doubles as bytes arrive rather than taking `want` at its
		 * word: a length declared in a short stream costs no more memory
		 * than the stream holds. */
		if (in->cap - in->start < want || in->end == in->cap) {
			size_t have = in->end - in->start;
			if (in->start)
				memmove(in->buf, in->buf + in->start, have);
			in->start = 0;
			in->end = have;
			/* Past twice what this peek needs, give back what a larger
			 * one grew (the size model's read ahead at the start of a
			 * HotSpot dump, a long array): the buffer would otherwise
			 * keep its largest size to the end.  have < want, so the
			 * smaller buffer still has room to read into. */
			size_t floor = want + CHUNK > CHUNK * 4 ? want + CHUNK : CHUNK * 4;
			if (in->cap > 2 * floor) {
				uint8_t *nb = realloc(in->buf, floor);
				if (nb) {
					in->buf = nb;
					in->cap = floor;
				}
			}
			size_t need = in->cap > CHUNK * 2 ? in->cap * 2 : CHUNK * 4;
			if (need > want + CHUNK)
				need = want + CHUNK;
			/* A plain input's first window (WINDOW_FIRST) takes the
			 * size it always had, CHUNK * 4, the first time it needs
			 * room, full or not: from then on as before (a window
			 * kept small would be slid and refilled a little at a
			 * time). */
			bool first = in->comp == HF_COMPRESSION_NONE && in->cap < CHUNK * 4;
			if (first && need < CHUNK * 4)
				need = CHUNK * 4;
			if ((in->end == in->cap || first) && in->cap < need) {
				uint8_t *nb = realloc(in->buf, need);
				if (!nb)
					return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
				in->buf = nb;
				in->cap = need;
			}
		}
		if (in->sp) {
			hf_status st = spool_take(in, err);
			if (st != HF_OK)
				return st;
		} else if (in->comp == HF_COMPRESSION_GZIP) {
			hf_status st = fill_gzip(in, err);
			if (st != HF_OK)
				return st;
		} else {
			ssize_t r = raw_read(in, in->buf + in->end, in->cap - in->end, err);
			if (r < 0)
				return HF_ERR_IO;
			if (r == 0)
				in->eof = 1;
			in->end += (size_t)r;
		}
	}
	*p = in->buf + in->start;
	*avail = in->end - in->start;
	return HF_OK;
}

hf_status hf_input_peek(hf_input *in, size_t want, const uint8_t **p,
                        size_t *avail, hf_error *err)
{
	if (want > HF_INPUT_MAX_PEEK)
		want = HF_INPUT_MAX_PEEK;
	if (in->zc) {
		*p = in->zc + in->start;
		*avail = in->end - in->start;
		return HF_OK;
	}
	if (in->end - in->start < want && !in->eof)
		return peek_more(in, want, p, avail, err);
	*p = in->buf + in->start;
	*avail = in->end - in->start;
	return HF_OK;
}

hf_status hf_input_peek_some(hf_input *in, size_t want, const uint8_t **p,
                             size_t *avail, hf_error *err)
{
	hf_error e;
	memset(&e, 0, sizeof e);
	hf_status st = hf_input_peek(in, want, p, avail, &e);
	if (st == HF_OK)
		return HF_OK;
	if (st == HF_ERR_NOMEM) {
		if (err)
			*err = e;
		return st;
	}
	/* What came before the failure stays in the window: a peek of one
	 * byte gives it without reading (or meets the failure again). */
	return hf_input_peek(in, 1, p, avail, err);
}

void hf_input_consume(hf_input *in, size_t n)
{
	hf_input_take(in, n);
}

hf_status hf_input_skip(hf_input *in, uint64_t n, uint64_t *skipped, hf_error *err)
{
	uint64_t done = 0;
	*skipped = 0;
	size_t have = in->end - in->start;
	size_t take = n < have ? (size_t)n : have;
	hf_input_consume(in, take);
	done += take;
	if (done < n && !in->zc && in->comp == HF_COMPRESSION_NONE && in->seekable &&
	    !in->eof) {
		/* Seek over the rest of a plain regular file. */
		uint64_t left = n - done;
		uint64_t file_left = in->raw_size > in->raw_offset ? in->raw_size - in->raw_offset : 0;
		uint64_t jump = left < file_left ? left : file_left;
		if (jump && lseek(in->fd, (off_t)jump, SEEK_CUR) >= 0) {
			in->raw_offset += jump;
			in->offset += jump;
			done += jump;
		}
	}
	while (done < n) {
		const uint8_t *p;
		size_t avail;
		hf_status st = hf_input_peek(in, 1, &p, &avail, err);
		if (st != HF_OK)
			return st;
		if (avail == 0)
			break;
		size_t t = (n - done) < avail ? (size_t)(n - done) : avail;
		hf_input_consume(in, t);
		done += t;
	}
	*skipped = done;
	return HF_OK;
}

int hf_input_can_rewind(const hf_input *in)
{
	return in->fd < 0 || in->seekable;
}

hf_status hf_input_rewind(hf_input *in, hf_error *err)
{
	if (!hf_input_can_rewind(in))
		return hf_error_set(err, HF_ERR_UNSUPPORTED, "%s cannot be read twice (it is not a regular file)",
		                    in->name);
	if (in->zc) {
		in->start = 0;
		in->offset = 0;
		return HF_OK;
	}
	gz_stop(in);
	in->raw_seen = 0;
	if (in->fd >= 0 && lseek(in->fd, (off_t)in->base, SEEK_SET) < 0)
		return hf_error_set(err, HF_ERR_IO, "cannot seek in %s: %s", in->name, strerror(errno));
	in->raw_offset = 0;
	in->raw_eof = 0;
	in->mempos = 0;
	in->start = in->end = 0;
	in->offset = 0;
	in->eof = 0;
	if (in->comp == HF_COMPRESSION_GZIP) {
		inflateReset(&in->zs);
		in->z_member_done = 0;
		in->zs.avail_in = 0;
		in->zs.next_in = in->raw;
		if (in->fd < 0) {
			in->zs.next_in = (Bytef *)in->mem;
			in->zs.avail_in = (uInt)(in->memsize > UINT32_MAX ? UINT32_MAX : in->memsize);
			in->mempos = in->zs.avail_in;
			in->raw_offset = in->mempos;
		}
	}
	return HF_OK;
}

hf_status hf_input_reopen(const hf_input *in, hf_input **out, hf_error *err)
{
	*out = NULL;
	if (in->fd < 0 || !in->seekable || in->base || in->comp == HF_COMPRESSION_NONE)
		return hf_error_set(err, HF_ERR_UNSUPPORTED, "%s cannot be read twice at once", in->name);
	/* The file the descriptor reads, even renamed since or standard input,
	 * through a description of its own (a dup would share the offset). */
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", in->fd);
	hf_status st = hf_input_open(out, path, err);
	if (st && in->owns_fd)
		st = hf_input_open(out, in->name, err);
	if (!st && hf_input_compression(*out) != in->comp) {
		hf_input_close(*out);
		*out = NULL;
		st = hf_error_set(err, HF_ERR_UNSUPPORTED, "%s changed", in->name);
	}
	return st;
}

int hf_input_can_read_at(const hf_input *in)
{
	return in->comp == HF_COMPRESSION_NONE && (in->fd < 0 || in->seekable);
}

hf_status hf_input_read_at(hf_input *in, uint64_t off, void *dst, size_t n, size_t *got,
                           hf_error *err)
{
	*got = 0;
	if (!hf_input_can_read_at(in))
		return hf_error_set(err, HF_ERR_UNSUPPORTED, "%s cannot be read at an offset", in->name);
	if (in->fd < 0) {
		if (off < in->memsize) {
			size_t left = in->memsize - (size_t)off;
			*got = n < left ? n : left;
			memcpy(dst, in->mem + off, *got);
		}
		return HF_OK;
	}
	uint64_t at = in->base + off;
	int e = at < off ? 0 : hf_pread_full(in->fd, dst, n, at, got);
	if (e)
		return hf_error_at(err, HF_ERR_IO, off + *got, NULL, "cannot read %s: %s", in->name,
		                   strerror(e));
	return HF_OK;
}

/*
 * The spool.  A pipe can be read only once, so a look ahead past what the
 * window holds (the size model's, over big arrays at a dump's start) would
 * otherwise hold all it passes in memory: here it goes to a temporary file,
 * and the reading takes it back from there.  Only what the window has not
 * read yet is spooled, so the window and the spool never hold the same byte.
 */
int hf_input_test_spool_fail;

int hf_input_can_spool(const hf_input *in)
{
	return in->fd >= 0 && !in->seekable && !in->zc &&
	       (in->comp == HF_COMPRESSION_NONE || in->comp == HF_COMPRESSION_GZIP);
}

static void spool_drop(hf_input *in)
{
	if (in->sp)
		fclose(in->sp);
	in->sp = NULL;
	free(in->sp_pend);
	in->sp_pend = NULL;
	in->sp_pend_len = in->sp_pend_pos = 0;
	in->sp_eof = 0;
	in->sp_status = HF_OK;
}

/* Reads the source (the descriptor, or the gzip stream) into the spool up
 * to stream offset upto, within the budget (*bounded: it stopped there), to
 * the stream's end, or to a failure, which the spool keeps for the reading
 * to meet after the bytes before it. */
static hf_status spool_fill(hf_input *in, uint64_t upto, int *bounded)
{
	uint64_t end = in->sp_base + in->sp_len;
	if (end >= upto || in->sp_eof || in->sp_status)
		return HF_OK;
	if (in->sp_pend) {
		*bounded = 1;
		return HF_OK;
	}
	uint8_t *chunk = malloc(CHUNK);
	if (!chunk)
		return HF_ERR_NOMEM;
	while (end < upto) {
		size_t want = upto - end < CHUNK ? (size_t)(upto - end) : CHUNK;
		if (in->sp_len >= in->sp_budget) {
			*bounded = 1;
			break;
		}
		if (want > in->sp_budget - in->sp_len)
			want = (size_t)(in->sp_budget - in->sp_len);
		size_t n = 0;
		int eof = 0;
		hf_status st = HF_OK;
		if (in->comp == HF_COMPRESSION_GZIP) {
			st = gz_take(in, chunk, want, end, &n, &eof, &in->sp_err);
		} else {
			ssize_t r = raw_read(in, chunk, want, &in->sp_err);
			if (r < 0)
				st = HF_ERR_IO;
			else
				n = (size_t)r;
			eof = r == 0;
		}
		if (n) {
			int e = hf_input_test_spool_fail == 2 && in->sp_len ? ENOSPC
			        : hf_pwrite_full(fileno(in->sp), chunk, n, in->sp_len);
			if (e) {
				/* The bytes are taken and must not be lost: the
				 * window takes them from memory after the file,
				 * which grows no more (it may hold part of them: not
				 * counted). */
				in->sp_pend = chunk;
				in->sp_pend_len = n;
				chunk = NULL;
				in->sp_budget = in->sp_len;
				*bounded = 1;
			} else {
				in->sp_len += n;
				end += n;
			}
		}
		if (st)
			in->sp_status = st;
		else if (eof)
			in->sp_eof = 1;
		if (st || eof || !chunk)
			break;
	}
	free(chunk);
	return HF_OK;
}

hf_status hf_input_spool_read(hf_input *in, uint64_t off, void *dst, size_t n, uint64_t limit,
                              size_t *got, int *bounded, hf_error *err)
{
	*got = 0;
	if (!hf_input_can_spool(in) || in->sp_failed)
		return hf_error_set(err, HF_ERR_UNSUPPORTED, "%s cannot be read ahead into a file", in->name);
	uint64_t wend = in->offset + (in->end - in->start);
	if (off < in->offset)
		return HF_OK;
	uint8_t *d = dst;
	if (off < wend) {
		size_t k = wend - off < n ? (size_t)(wend - off) : n;
		memcpy(d, in->buf + in->start + (off - in->offset), k);
		*got = k;
		if (k == n)
			return HF_OK;
		off += k;
		d += k;
		n -= k;
	}
	uint64_t upto = n > UINT64_MAX - off ? UINT64_MAX : off + n;
	if (upto > limit) {
		upto = limit;
		*bounded = 1;
	}
	if (off >= upto)
		return HF_OK;
	if (!in->sp) {
		struct statvfs vs;
		if (hf_input_test_spool_fail == 1 || !(in->sp = hf_tmpfile())) {
			in->sp_failed = 1;
			return hf_error_set(err, HF_ERR_UNSUPPORTED, "no temporary file for %s's look ahead", in->name);
		}
		/* What the window has not read yet goes there. */
		in->sp_base = wend;
		in->sp_len = 0;
		in->sp_budget = fstatvfs(fileno(in->sp), &vs) == 0
		                ? (uint64_t)vs.f_bavail * vs.f_frsize / 2 : 0;
	}
	hf_status st = spool_fill(in, upto, bounded);
	if (st == HF_ERR_NOMEM)
		return hf_error_set(err, st, "out of memory");
	uint64_t end = in->sp_base + in->sp_len;
	if (end > off) {
		size_t k = end - off < n ? (size_t)(end - off) : n, g = 0;
		int e = hf_pread_full(fileno(in->sp), d, k, off - in->sp_base, &g);
		*got += g;
		if (e)
			return hf_error_set(err, HF_ERR_IO, "cannot read back the temporary file of %s's look ahead: %s",
			                    in->name, strerror(e));
	}
	return HF_OK;
}

uint64_t hf_input_offset(const hf_input *in) { return in->offset; }
uint64_t hf_input_size(const hf_input *in) { return in->comp ? 0 : in->size; }
uint64_t hf_input_raw_offset(const hf_input *in)
{
	if (in->zc)
		return in->offset;
	return in->gz ? in->raw_seen : in->raw_offset;
}
uint64_t hf_input_raw_size(const hf_input *in) { return in->raw_size; }
hf_compression hf_input_compression(const hf_input *in) { return in->comp; }
const char *hf_input_name(const hf_input *in) { return in->name; }
