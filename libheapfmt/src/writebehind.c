/*
 * hf_writebehind: a large output file written behind (Linux).
 *
 * The kernel keeps what a program writes in the page cache, dirty, and
 * writes it to the disk later; past its dirty limits (vm.dirty_ratio of the
 * memory) it makes the writer wait, page by page, while its flusher catches
 * up.  For an output of many gigabytes that is much slower than the disk:
 * on the benchmark machine 15 GB of 256 KiB writes took 18.8 s written
 * plainly and 5.2 s written behind as below (2.9 GB/s), and hprof2ndjson of
 * the 5 GB dump (15 GB of NDJSON) took 35.97/35.84 s before and
 * 19.01/18.65 s after (alternated runs; to /dev/null it takes 13.9 s).
 * Chunks of 2 to 64 MiB, 2 to 16 in flight, gave 16.9-18.6 s: the
 * machine's two cores are the limit there, not the disk.  A thread of its
 * own for these writes through the page cache (the formatting thread
 * swapping buffers with it) was slower, 18.8/19.0 s, and 2.9 s against
 * 2.7 s for the 1 GB Android-like dump: tried and dropped (the direct
 * writes below have threads: there the copy is the disk's, not a core's).
 *
 * So once an output has passed the size at which the kernel would start
 * writing back on its own (vm.dirty_background_bytes, or
 * vm.dirty_background_ratio of the available memory), every WB_CHUNK
 * written is handed to the disk at once (sync_file_range), and the chunk
 * WB_DEPTH behind it is waited for and dropped from the page cache
 * (posix_fadvise): a few chunks are in flight, the rest of the memory is
 * left alone.  A smaller output stays in the page cache as before, where the
 * next program of a pipeline (jq) finds it.  Nothing here changes what is
 * written.  An error of the disk that the waits see (EIO, ENOSPC) is kept
 * for the writer to report (the kernel reports it once per open file, so a
 * later close would not); any other failure (a file system without
 * sync_file_range) just ends the writing behind.
 */
#define _GNU_SOURCE
#include "internal.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WB_CHUNK ((uint64_t)8 << 20)

uint64_t hf_writebehind_test_start;
uint64_t hf_writebehind_test_cache;
int hf_writebehind_test_direct = 1;
unsigned hf_writebehind_test_refuse;
int hf_writebehind_test_wait;

/*
 * Direct writes.  Written behind, the output still passes through the page
 * cache: copied into it, its pages allocated, marked, written and dropped,
 * which cost the 5 GB dump's run about a third of its CPU time (system time
 * 10 of 28 CPU-s), on a machine whose two cores are the limit.  So past the
 * same size the output bypasses the page cache (O_DIRECT, on a second
 * descriptor of the same file): the writing thread copies its text into
 * buffers of WB_DIRECT_BUF bytes, aligned, and HF_WB_DIRECT_THREADS threads
 * write them out at their offsets, HF_WB_DIRECT_BUFS in flight at most; the
 * disk reads them from the buffers.  The last bytes short of a block are
 * written through the page cache at the end.  A file system that refuses
 * O_DIRECT (at the open, or with EINVAL at a write: the buffers in flight
 * are then written through the page cache) goes back to the writing behind
 * above.  An output file whose open file description standard error (or
 * output) shares is not written direct: what else went there would land
 * at the frozen offset.
 * Measured (alternated runs, the same bytes): hprof2ndjson of the 5 GB dump
 * to a file 16.69/15.60 s -> 13.56/14.39 s, system time 9.4/8.7 s ->
 * 4.0/4.4 s, user time +1.5-3.5 s (the copy into the buffers), peak RSS
 * 82 -> 99 MiB (the buffers); the 1 GB Android-like dump (3.07 GB out, the
 * last 0.7 GB direct) 4.22/3.56/3.54 s -> 3.37/3.28/3.26 s.  Direct from the
 * first byte instead gained nothing more there (2.9-3.0 s), and would leave
 * a smaller output out of the page cache, where the next program of a
 * pipeline finds it.
 */
#define WB_DIRECT_BUF ((size_t)4 << 20)
#define WB_ALIGN ((size_t)4096)

/*
 * Where the direct writes begin: at 512 MiB, or the background limit if
 * that is less.  A page the page cache takes is a page the kernel must find
 * and fill first, and on a virtual machine whose host takes freed memory
 * back (free page reporting, as on the benchmark machine) that page comes
 * back from the host, at a price that varies tenfold from hour to hour:
 * hprof2ndjson of the Android-like 1 GB dump (3.07 GB out) spent 0.8 to
 * 5.5 s of system time there, almost all of it in the copy into the page
 * cache.  Direct, the disk reads the text from buffers this process keeps.
 * Alternated runs, medians of five (2026-11-30, 21:20 UTC): past the
 * background limit (2.2 GB there) 3.06 s, past 512 MiB 2.54 s, and with
 * the page cache taking what the disk cannot (below) 2.45 s; from the first
 * byte 2.67 s, bound by the disk (1.3 GB/s there).  An output below 512 MiB
 * stays in the page cache, where the next program of a pipeline finds it.
 *
 * When the disk is behind (every buffer still being written), the text goes
 * through the page cache instead of waiting for it, as long as what went
 * there in all stays below the background limit: then a slow disk costs no
 * more than before direct writes began early, and a fast one takes almost
 * everything direct.  Each such write ends at a block, so that the direct
 * writes after it start at one; the bytes past it wait in `carry`.
 */
#define WB_DIRECT_FROM ((uint64_t)512 << 20)
/* The disk is behind when a buffer is not free this long after the one
 * before it was handed off: a 4 MiB buffer takes 3 ms at 1.3 GB/s (the
 * benchmark machine's disk), 27 ms at 150 MB/s.  Taking the page cache at
 * once when the buffer was not yet free sent more there once the text went
 * without a copy, and cost more than the wait on that machine: the
 * Android-like copy 2.29 -> 3.52 s (medians of six alternated runs), system
 * time 0.69 -> 1.61 s. */
#define WB_DISK_WAIT_MS 10

/*
 * Direct, a writer's buffer of text goes to the disk without a copy
 * (hf_writebehind_write_buf): its whole blocks are written from where the
 * writer put them, and it gets a free direct buffer in exchange, with the
 * bytes past the last block at its start.  Copying the text into the
 * direct buffers was the user time the direct writes added.  Alternated
 * runs (2026-11-30, 21:50 UTC), the copy against none: the 5 GB dump's
 * 15 GB 13.52 -> 12.90 s (medians of three; user time 17.5 -> 16.5 CPU-s),
 * the Android-like 1 GB copy 2.54 -> 2.37 s (of six; the same output
 * byte for byte).  The writer fills a buffer up to WB_BATCH_SLACK short of
 * a direct buffer's size (hf_writebehind_batch), so that its last line
 * seldom makes it grow (a buffer that grew is no longer aligned, and is
 * copied once).
 */
#define WB_BATCH_SLACK ((size_t)64 << 10)

struct hf_wb_direct {
	int dfd;                         /* O_DIRECT */
	uint8_t *buf[HF_WB_DIRECT_BUFS];
	uint64_t off[HF_WB_DIRECT_BUFS];
	size_t len[HF_WB_DIRECT_BUFS];
	int state[HF_WB_DIRECT_BUFS];    /* FREE, QUEUED, WRITING */
	size_t lead;                     /* bytes before the first block, plainly */
	unsigned fill;                   /* the buffer being filled (the writer's) */
	size_t fill_len;
	uint64_t fill_off;
	unsigned nthreads;
	pthread_t thread[HF_WB_DIRECT_THREADS];
	pthread_mutex_t mu;
	pthread_cond_t work, freed;
	int stop;
	int error;                       /* the first errno of a write */
	int buffered;                    /* O_DIRECT refused: through the page cache */
	uint64_t direct_bytes;           /* under mu */
	unsigned direct_writes;          /* under mu: for hf_writebehind_test_refuse */
	int nofill;                      /* no buffer being filled: the disk is behind */
	int disk_behind;                 /* tests: as if it always were */
	int sync;                        /* tests (refuse): each hand-off waits for its write */
	uint64_t cache_left;             /* bytes the page cache may still take */
	uint8_t carry[WB_ALIGN];         /* past the last block written through it */
	size_t carry_len;
};
enum { WB_FREE, WB_QUEUED, WB_WRITING };

uint64_t hf_dirty_background_limit(void)
{
	uint64_t fallback = (uint64_t)1 << 30;
	unsigned long long bytes = 0, ratio = 10, avail_kb = 0;
	FILE *f = fopen("/proc/sys/vm/dirty_background_bytes", "r");
	if (f) {
		if (fscanf(f, "%llu", &bytes) != 1)
			bytes = 0;
		fclose(f);
	}
	if (bytes)
		return bytes;
	if ((f = fopen("/proc/sys/vm/dirty_background_ratio", "r"))) {
		if (fscanf(f, "%llu", &ratio) != 1)
			ratio = 10;
		fclose(f);
	}
	if (!(f = fopen("/proc/meminfo", "r")))
		return fallback;
	char line[128];
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "MemAvailable: %llu kB", &avail_kb) == 1)
			break;
	fclose(f);
	if (!avail_kb)
		return fallback;
	return (uint64_t)avail_kb * 1024 / 100 * ratio;
}

#ifdef __linux__
int hf_flush_and_drop(int fd, uint64_t from, uint64_t len)
{
	if (sync_file_range(fd, (off_t)from, (off_t)len,
	                    SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) != 0)
		return -1;
	posix_fadvise(fd, (off_t)from, (off_t)len, POSIX_FADV_DONTNEED);
	return 0;
}
#endif

/*
 * Pipes.  A pipe of the default 16 pages holds 64 KiB (on 4 KiB pages):
 * 3 GB of text pass in 47,000 fills or more, each one waking the other
 * side.  Widened to 1 MiB (2026-12-02, the Android-like 1 GB dump, medians
 * of five alternated runs): "hprof2ndjson dump - | cat > /dev/null" 3.53
 * -> 3.26 s, and "cat dump | hprof2ndjson - /dev/null" (the input's pipe)
 * 3.47 -> 3.19 s.
 */
void hf_pipe_widen(int fd)
{
#if defined(__linux__) && defined(F_SETPIPE_SZ) && defined(F_GETPIPE_SZ)
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISFIFO(sb.st_mode))
		return;
	int have = fcntl(fd, F_GETPIPE_SZ);
	if (have >= 0 && (size_t)have < HF_PIPE_SIZE)
		(void)fcntl(fd, F_SETPIPE_SZ, (int)HF_PIPE_SIZE);
#else
	(void)fd;
#endif
}

void hf_writebehind_init(hf_writebehind *wb, int fd)
{
	memset(wb, 0, sizeof *wb);
	wb->out = fd;
	wb->fd = -1;
	hf_pipe_widen(fd);
#ifdef __linux__
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
		return;
	off_t at = lseek(fd, 0, SEEK_CUR);
	if (at < 0)
		return;
	wb->fd = fd;
	wb->pos = wb->flushed = (uint64_t)at;
	uint64_t limit = hf_dirty_background_limit();
	wb->cached_to = (uint64_t)at + (hf_writebehind_test_cache ? hf_writebehind_test_cache : limit);
	wb->disk_behind = hf_writebehind_test_cache != 0;
	if (hf_writebehind_test_start)
		wb->start = wb->behind = (uint64_t)at + hf_writebehind_test_start;
	else {
		wb->behind = (uint64_t)at + limit;
		wb->start = (uint64_t)at + (limit < WB_DIRECT_FROM ? limit : WB_DIRECT_FROM);
	}
#else
	(void)fd;
#endif
}

static bool direct_start(hf_writebehind *wb);

static void wrote(hf_writebehind *wb, size_t n)
{
	if (wb->fd < 0)
		return;
	wb->pos += n;
	if (wb->pos < wb->start) {
		wb->flushed = wb->pos;
		return;
	}
	if (!wb->direct_tried) {
		wb->direct_tried = 1;
		if (hf_writebehind_test_direct && direct_start(wb))
			return;
		/* Written behind, as the kernel would, from its limit on. */
		if (wb->start < wb->behind)
			wb->start = wb->behind;
		if (wb->pos < wb->start) {
			wb->flushed = wb->pos;
			return;
		}
	}
	if (wb->pos - wb->flushed < WB_CHUNK)
		return;
#ifdef __linux__
	uint64_t from = wb->flushed, len = wb->pos - from;
	int rc = sync_file_range(wb->fd, (off_t)from, (off_t)len, SYNC_FILE_RANGE_WRITE);
	if (!rc && wb->count == HF_WB_DEPTH) {
		unsigned old = wb->head;
		rc = hf_flush_and_drop(wb->fd, wb->from[old], wb->len[old]);
		wb->head = (old + 1) % HF_WB_DEPTH;
		wb->count--;
	}
	if (rc) {
		if (hf_disk_error(errno))
			wb->error = errno;
		wb->fd = -1;
		return;
	}
	unsigned slot = (wb->head + wb->count) % HF_WB_DEPTH;
	wb->from[slot] = from;
	wb->len[slot] = len;
	wb->count++;
	wb->written_behind += len;
#endif
	wb->flushed = wb->pos;
}

/* ---- direct writes ------------------------------------------------------------ */

#ifdef __linux__
/* Writes buffer i (a writing thread's, unlocked; refuse: act as if the
 * file system refused O_DIRECT); *direct: the bytes written direct. */
static int direct_write(hf_wb_direct *d, unsigned i, int out, int refuse, uint64_t *direct)
{
	const uint8_t *p = d->buf[i];
	size_t n = d->len[i];
	uint64_t off = d->off[i];
	*direct = 0;
	while (n && !__atomic_load_n(&d->buffered, __ATOMIC_RELAXED)) {
		ssize_t r = refuse ? -1 : pwrite(d->dfd, p, n, (off_t)off);
		if (refuse)
			errno = EINVAL;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EINVAL) {
			/* The file system will not: the page cache from here on. */
			__atomic_store_n(&d->buffered, 1, __ATOMIC_RELAXED);
			break;
		}
		if (r < 0)
			return errno;
		if (r == 0)
			return EIO;
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
		*direct += (uint64_t)r;
		if (n % WB_ALIGN || (size_t)r % WB_ALIGN)
			break; /* a short write left the rest unaligned */
	}
	return hf_pwrite_full(out, p, n, off);
}

static void *direct_main(void *arg)
{
	hf_writebehind *wb = arg;
	hf_wb_direct *d = wb->direct;
	pthread_mutex_lock(&d->mu);
	for (;;) {
		unsigned i = HF_WB_DIRECT_BUFS;
		/* The oldest queued buffer first: they were queued in order. */
		for (unsigned k = 1; k <= HF_WB_DIRECT_BUFS; k++) {
			unsigned j = (d->fill + k) % HF_WB_DIRECT_BUFS;
			if (d->state[j] == WB_QUEUED) {
				i = j;
				break;
			}
		}
		if (i == HF_WB_DIRECT_BUFS) {
			if (d->stop)
				break;
			pthread_cond_wait(&d->work, &d->mu);
			continue;
		}
		d->state[i] = WB_WRITING;
		int refuse = hf_writebehind_test_refuse && ++d->direct_writes > hf_writebehind_test_refuse;
		pthread_mutex_unlock(&d->mu);
		uint64_t direct;
		int e = direct_write(d, i, wb->out, refuse, &direct);
		pthread_mutex_lock(&d->mu);
		d->direct_bytes += direct;
		if (e && !d->error)
			d->error = e;
		d->state[i] = WB_FREE;
		pthread_cond_broadcast(&d->freed);
	}
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

static void direct_free(hf_writebehind *wb)
{
	hf_wb_direct *d = wb->direct;
	if (!d)
		return;
	if (d->nthreads) {
		pthread_mutex_lock(&d->mu);
		d->stop = 1;
		pthread_cond_broadcast(&d->work);
		pthread_mutex_unlock(&d->mu);
		for (unsigned t = 0; t < d->nthreads; t++)
			pthread_join(d->thread[t], NULL);
	}
	pthread_cond_destroy(&d->freed);
	pthread_cond_destroy(&d->work);
	pthread_mutex_destroy(&d->mu);
	for (unsigned i = 0; i < HF_WB_DIRECT_BUFS; i++)
		free(d->buf[i]);
	if (d->dfd >= 0)
		close(d->dfd);
	free(d);
	wb->direct = NULL;
}

/* Past the start, from a write's end (nothing in flight): the rest goes
 * direct. */
static bool direct_start(hf_writebehind *wb)
{
	int fl = fcntl(wb->fd, F_GETFL);
	if (fl < 0 || (fl & O_APPEND))
		return false; /* every write at the end: the offsets are not ours */
	/* "prog > out 2>&1": what goes to standard error would land at the
	 * offset direct writes leave behind them, over the output. */
	struct stat so, se;
	if (fstat(wb->fd, &so) != 0)
		return false;
	for (int std = 1; std <= 2; std++)
		if (std != wb->fd && fstat(std, &se) == 0 && se.st_dev == so.st_dev && se.st_ino == so.st_ino)
			return false;
	hf_wb_direct *d = calloc(1, sizeof *d);
	if (!d)
		return false;
	d->dfd = -1;
	if (pthread_mutex_init(&d->mu, NULL) != 0) {
		free(d);
		return false;
	}
	pthread_cond_init(&d->work, NULL);
	pthread_cond_init(&d->freed, NULL);
	wb->direct = d;
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", wb->fd);
	d->dfd = open(path, O_WRONLY | O_DIRECT | O_CLOEXEC);
	bool ok = d->dfd >= 0;
	for (unsigned i = 0; ok && i < HF_WB_DIRECT_BUFS; i++) {
		void *b = NULL;
		ok = posix_memalign(&b, WB_ALIGN, WB_DIRECT_BUF) == 0;
		d->buf[i] = b;
	}
	/* Direct writes start at a block: the bytes before it still go through
	 * the page cache. */
	d->fill_off = (wb->pos + WB_ALIGN - 1) / WB_ALIGN * WB_ALIGN;
	d->lead = (size_t)(d->fill_off - wb->pos);
	d->disk_behind = wb->disk_behind;
	d->sync = hf_writebehind_test_refuse != 0;
	d->cache_left = wb->cached_to > wb->pos ? wb->cached_to - wb->pos : 0;
	for (unsigned t = 0; ok && t < HF_WB_DIRECT_THREADS; t++) {
		ok = pthread_create(&d->thread[t], NULL, direct_main, wb) == 0;
		d->nthreads += ok;
	}
	if (!ok) {
		direct_free(wb);
		return false;
	}
	wb->flushed = wb->pos;
	return true;
}

/* The next buffer, once free, becomes the one filled (under mu). */
static void next_fill(hf_wb_direct *d)
{
	unsigned next = (d->fill + 1) % HF_WB_DIRECT_BUFS;
	while (d->state[next] != WB_FREE)
		pthread_cond_wait(&d->freed, &d->mu);
	d->fill = next;
	d->fill_len = 0;
	d->nofill = 0;
}

/* Whether the next buffer is free within WB_DISK_WAIT_MS (under mu). */
static bool next_free_soon(hf_wb_direct *d)
{
	unsigned next = (d->fill + 1) % HF_WB_DIRECT_BUFS;
	if (d->state[next] == WB_FREE)
		return true;
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_nsec += WB_DISK_WAIT_MS * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	while (d->state[next] != WB_FREE)
		if (pthread_cond_timedwait(&d->freed, &d->mu, &t) == ETIMEDOUT)
			return d->state[next] == WB_FREE;
	return true;
}

/* The filled buffer goes to the threads (len bytes of it); the next one is
 * waited for, or with may_defer, if it is not free within WB_DISK_WAIT_MS
 * while the page cache may take a buffer's worth, left for later (nofill).
 * 0 or the threads' first error. */
static int direct_hand_off(hf_wb_direct *d, size_t len, bool may_defer)
{
	pthread_mutex_lock(&d->mu);
	unsigned i = d->fill;
	d->len[i] = len;
	d->off[i] = d->fill_off;
	d->state[i] = WB_QUEUED;
	pthread_cond_signal(&d->work);
	while (d->sync && d->state[i] != WB_FREE)
		pthread_cond_wait(&d->freed, &d->mu);
	d->fill_off += len;
	d->fill_len = 0;
	if (may_defer && !hf_writebehind_test_wait && d->cache_left >= WB_DIRECT_BUF &&
	    (d->disk_behind || !next_free_soon(d)))
		d->nofill = 1;
	else
		next_fill(d);
	int e = d->error;
	pthread_mutex_unlock(&d->mu);
	return e;
}

/* Out of nofill (under mu): the next buffer, once free, is filled, the
 * carry at its start. */
static void fill_from_carry(hf_wb_direct *d)
{
	next_fill(d);
	memcpy(d->buf[d->fill], d->carry, d->carry_len);
	d->fill_len = d->carry_len;
	d->carry_len = 0;
}

/* With no buffer being filled (nofill): a free one if there is one, else
 * p[0, n) through the page cache up to a block's end, the rest carried (or,
 * when the page cache has taken its share, the next buffer waited for).
 * *used: the bytes of p taken. */
static int direct_nofill(hf_writebehind *wb, const uint8_t *p, size_t n, size_t *used)
{
	hf_wb_direct *d = wb->direct;
	*used = 0;
	pthread_mutex_lock(&d->mu);
	bool cache = d->cache_left >= n + d->carry_len &&
	             (d->state[(d->fill + 1) % HF_WB_DIRECT_BUFS] != WB_FREE || d->disk_behind);
	if (!cache)
		fill_from_carry(d);
	pthread_mutex_unlock(&d->mu);
	if (!cache)
		return 0;
	uint64_t end = (d->fill_off + d->carry_len + n) / WB_ALIGN * WB_ALIGN;
	size_t k = 0;
	if (end > d->fill_off) {
		k = (size_t)(end - d->fill_off) - d->carry_len;
		int e = hf_pwrite_full(wb->out, d->carry, d->carry_len, d->fill_off);
		if (!e)
			e = hf_pwrite_full(wb->out, p, k, d->fill_off + d->carry_len);
		if (e)
			return e;
		d->cache_left -= end - d->fill_off;
		wb->written_cached += end - d->fill_off;
		d->fill_off = end;
		d->carry_len = 0;
	}
	memcpy(d->carry + d->carry_len, p + k, n - k);
	d->carry_len += n - k;
	*used = n;
	return 0;
}

/* Everything to the file: the whole blocks of the buffer being filled
 * direct, the rest through the page cache, all of it waited for; the
 * descriptor then stands at the output's end, after an error too (with what
 * could be written). */
static int direct_drain(hf_writebehind *wb)
{
	hf_wb_direct *d = wb->direct;
	if (d->nofill) {
		/* The carry is the rest. */
		pthread_mutex_lock(&d->mu);
		fill_from_carry(d);
		pthread_mutex_unlock(&d->mu);
	}
	size_t whole = d->fill_len / WB_ALIGN * WB_ALIGN, rest = d->fill_len - whole;
	unsigned last = d->fill;
	int e = 0;
	if (whole) {
		/* The rest moves to the next buffer, which hand-off waits for. */
		e = direct_hand_off(d, whole, false);
		if (rest)
			memcpy(d->buf[d->fill], d->buf[last] + whole, rest);
	}
	pthread_mutex_lock(&d->mu);
	for (unsigned i = 0; i < HF_WB_DIRECT_BUFS; i++)
		while (i != d->fill && d->state[i] != WB_FREE)
			pthread_cond_wait(&d->freed, &d->mu);
	if (!e)
		e = d->error;
	wb->written_direct += d->direct_bytes;
	wb->written_behind += d->direct_bytes;
	d->direct_bytes = 0;
	pthread_mutex_unlock(&d->mu);
	if (rest) {
		int er = hf_pwrite_full(wb->out, d->buf[d->fill], rest, d->fill_off);
		if (!e)
			e = er;
	}
	d->fill_off += rest;
	d->fill_len = 0;
	if (lseek(wb->out, (off_t)wb->pos, SEEK_SET) < 0 && !e)
		e = errno;
	return e;
}

/* The file system refused O_DIRECT (EINVAL): everything through the page
 * cache from here, written behind as without it. */
static int direct_give_up(hf_writebehind *wb)
{
	int e = direct_drain(wb);
	direct_free(wb);
	wb->flushed = wb->pos;
	return e;
}

static int direct_write_text(hf_writebehind *wb, const uint8_t *p, size_t n)
{
	hf_wb_direct *d = wb->direct;
	if (d->lead) {
		size_t k = n < d->lead ? n : d->lead;
		int e = hf_pwrite_full(wb->out, p, k, wb->pos);
		if (e)
			return e;
		d->lead -= k;
		wb->pos += k;
		p += k;
		n -= k;
	}
	while (n) {
		if (d->nofill) {
			size_t k;
			int e = direct_nofill(wb, p, n, &k);
			if (e)
				return e;
			wb->pos += k;
			p += k;
			n -= k;
			continue;
		}
		size_t k = WB_DIRECT_BUF - d->fill_len;
		if (k > n)
			k = n;
		memcpy(d->buf[d->fill] + d->fill_len, p, k);
		d->fill_len += k;
		wb->pos += k;
		p += k;
		n -= k;
		if (d->fill_len < WB_DIRECT_BUF)
			continue;
		int e = direct_hand_off(d, WB_DIRECT_BUF, true);
		if (e)
			return e;
		if (__atomic_load_n(&d->buffered, __ATOMIC_RELAXED)) {
			e = direct_give_up(wb);
			return e ? e : hf_writebehind_write(wb, p, n);
		}
	}
	return 0;
}

/* A buffer the disk can read from: aligned, and as large as a direct one. */
static bool lendable(const hf_buf *b)
{
	return b->data && (uintptr_t)b->data % WB_ALIGN == 0 && b->cap >= WB_DIRECT_BUF;
}

/* hf_writebehind_write_buf past the start of direct writes. */
static int direct_write_buf(hf_writebehind *wb, hf_buf *b)
{
	hf_wb_direct *d = wb->direct;
	if (!d->lead && !d->nofill && d->fill_len && lendable(b)) {
		/* Bytes copied into the buffer being filled before: its whole
		 * blocks go as they are, the rest moves in front of b's. */
		size_t whole = d->fill_len / WB_ALIGN * WB_ALIGN, r = d->fill_len - whole;
		if (b->len + r <= b->cap) {
			memmove(b->data + r, b->data, b->len);
			memcpy(b->data, d->buf[d->fill] + whole, r);
			b->len += r;
			wb->pos -= r;
			d->fill_len = 0;
			int e = whole ? direct_hand_off(d, whole, true) : 0;
			if (e)
				return e;
		}
	}
	if (d->lead || d->nofill || d->fill_len || !lendable(b) || b->len < WB_ALIGN ||
	    __atomic_load_n(&d->buffered, __ATOMIC_RELAXED)) {
		int e = direct_write_text(wb, b->data, b->len);
		b->len = 0;
		if (!e && wb->direct && !lendable(b)) {
			/* An aligned one for the next time. */
			void *n = NULL;
			if (posix_memalign(&n, WB_ALIGN, WB_DIRECT_BUF) == 0) {
				free(b->data);
				b->data = n;
				b->cap = WB_DIRECT_BUF;
			}
		}
		return e;
	}
	/* b's whole blocks to the disk as they are: its storage becomes the
	 * buffer being filled, handed off at once, and the buffer that was
	 * (free, aligned) becomes b's, with the bytes past the last block. */
	size_t whole = b->len / WB_ALIGN * WB_ALIGN, rest = b->len - whole;
	unsigned i = d->fill;
	uint8_t *text = b->data;
	b->data = d->buf[i];
	b->cap = WB_DIRECT_BUF;
	d->buf[i] = text;
	int e = direct_hand_off(d, whole, true);
	/* The writing threads read [0, whole) of it meanwhile. */
	memcpy(b->data, text + whole, rest);
	b->len = rest;
	wb->pos += whole;
	wb->written_lent += whole;
	if (!e && __atomic_load_n(&d->buffered, __ATOMIC_RELAXED))
		e = direct_give_up(wb);
	return e;
}
#else
static bool direct_start(hf_writebehind *wb) { (void)wb; return false; }
static void direct_free(hf_writebehind *wb) { (void)wb; }
static int direct_write_text(hf_writebehind *wb, const uint8_t *p, size_t n)
{ (void)wb; (void)p; (void)n; return ENOSYS; }
static int direct_drain(hf_writebehind *wb) { (void)wb; return 0; }
static int direct_write_buf(hf_writebehind *wb, hf_buf *b) { (void)wb; (void)b; return ENOSYS; }
#endif

int hf_writebehind_write(hf_writebehind *wb, const void *p, size_t n)
{
	if (wb->direct)
		return direct_write_text(wb, p, n);
	int e = hf_write_full(wb->out, p, n);
	if (!e)
		wrote(wb, n);
	return e;
}

int hf_writebehind_write_buf(hf_writebehind *wb, hf_buf *b)
{
	if (wb->direct)
		return direct_write_buf(wb, b);
	int e = hf_writebehind_write(wb, b->data, b->len);
	b->len = 0;
	return e;
}

size_t hf_writebehind_batch(const hf_writebehind *wb, size_t plain)
{
	return wb->direct ? WB_DIRECT_BUF - WB_BATCH_SLACK : plain;
}

int hf_writebehind_finish(hf_writebehind *wb)
{
	int e = wb->direct ? direct_drain(wb) : 0;
	direct_free(wb);
	return e ? e : wb->error;
}

/* Without finish (a failed run): what was written still goes to the file,
 * and the descriptor ends after it, as plain writes would leave them. */
void hf_writebehind_free(hf_writebehind *wb)
{
	if (wb->direct)
		direct_drain(wb);
	direct_free(wb);
}
