/*
 * hf_directdb: SQLite's database file written direct past a size (Linux).
 *
 * A SQLite VFS over the default one (unix) whose main database files, once
 * a write ends past the size at which the kernel would start writing back
 * on its own (hf_dirty_background_limit), take SQLite's page writes into
 * aligned buffers of this process and write them out with O_DIRECT, on a
 * second descriptor of the file, from a thread of their own.  SQLite's
 * thread copies a page and goes on; the disk reads it from the buffer.
 *
 * Why: the page cache.  dropbehind.c hands a large database to the disk
 * behind SQLite's writes and drops it, but each page SQLite writes is still
 * a page the page cache takes anew, and on a virtual machine whose host
 * takes freed memory back (free page reporting, as on the benchmark
 * machine) that page first comes back from the host.  A profile of
 * hprof2heapdb --no-analysis of the 5 GB dump (2026-12-01, 40 s of the
 * load, perf at 199 Hz) had SQLite's thread, the run's critical path,
 * spending 13 % of its samples in copy_folio_from_iter_atomic (its pwrite's
 * copy into new page-cache pages) and 19 % in the kernel; 4 GiB of 64 KiB
 * writes through the page cache took 15.9 s (13.8 s system) in that
 * minute, direct 5.5 s (2.3 s system), direct in 1 MiB writes 1.6 s.
 * writebehind.c does the same for the outputs heapfmt writes itself.
 *
 * The buffers (DD_BUFS of DD_BUF bytes) are filled in turn: a page that
 * continues the buffer being filled (or falls inside what it holds) is
 * copied there, any other starts the next buffer, and a buffer that is
 * full or left behind is queued.  One thread writes the queued buffers in
 * the order they were filled, so that a later write of a page lands after
 * an earlier one.  Reads see what is still in the buffers: a read takes
 * what the file has, then the bytes of every buffer not yet written over
 * it, in their order.  Only SQLite's thread fills buffers, so one that the
 * writing thread has finished keeps its bytes until that thread reuses it.
 * A read at an aligned offset past the switch is direct too (a read through
 * the page cache would put the page there anew); anything unaligned waits
 * for the buffers to be written and goes through the page cache, as does
 * every read and write before the switch.  Truncation, sync and file
 * controls that may touch the file wait for the buffers first.
 *
 * A file system that refuses O_DIRECT (at the open: nothing changes; with
 * EINVAL at a write: that buffer and the rest go through the page cache on
 * the same descriptor) is written as before.  An error of the disk (EIO,
 * ENOSPC) is kept: SQLite's next write, read or sync fails with it, and
 * hf_directdb_finish reports it before the file is renamed into place.
 * Nothing here changes the bytes of the file.
 */
#define _GNU_SOURCE
#include "internal.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <unistd.h>

#define DD_BUF ((size_t)1 << 20)
#define DD_BUFS 8
#define DD_ALIGN ((uint64_t)4096)

uint64_t hf_directdb_test_from;
unsigned hf_directdb_test_refuse;
unsigned hf_directdb_test_fail;
uint64_t hf_directdb_test_bytes;

#if defined(__linux__) && defined(O_DIRECT)

enum { DD_FREE, DD_FILLING, DD_QUEUED, DD_WRITING };

typedef struct dd_buf {
	uint8_t *p;
	uint64_t off;
	size_t len;
	uint64_t seq;            /* the order of filling */
	int state;
} dd_buf;

typedef struct dd_file {
	sqlite3_file base;       /* pMethods = &dd_methods */
	sqlite3_file *real;      /* the default VFS's file, after this struct */
	int dfd;                 /* O_DIRECT, or -1 */
	uint64_t from;           /* a write ending past this turns direct writing on */
	bool on;                 /* the buffers and the thread exist */
	uint64_t size;           /* the file's size with what the buffers hold */
	dd_buf buf[DD_BUFS];
	dd_buf *fill;            /* the buffer being filled, or NULL */
	uint64_t seq;
	uint8_t *bounce;         /* DD_BUF aligned, for direct reads */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t work;     /* hf_thread_start's: a buffer queued, or stop */
	pthread_cond_t freed;    /* a buffer written */
	int stop;
	int error;               /* the first errno of the disk's, under mu */
	_Atomic bool buffered;   /* O_DIRECT refused at a write: the page cache */
	uint64_t direct_bytes;   /* under mu */
	unsigned writes;         /* under mu: for the test knobs */
} dd_file;

static sqlite3_vfs dd_vfs;
static sqlite3_vfs *dd_base;
static const sqlite3_io_methods dd_methods;

static int dd_code(int e)
{
	return e == ENOSPC || e == EDQUOT ? SQLITE_FULL : SQLITE_IOERR_WRITE;
}

static bool aligned(sqlite3_int64 off, int n)
{
	return off >= 0 && n > 0 && ((uint64_t)off | (uint64_t)n) % DD_ALIGN == 0;
}

/* Writes one buffer out (the writing thread, without the lock): 0 or an
 * errno.  EINVAL from a direct write (the file system's alignment is not
 * ours) sends it and the rest through the page cache. */
static int dd_write_out(dd_file *d, const dd_buf *b, unsigned nth)
{
	size_t done = 0;
	while (done < b->len) {
		ssize_t k;
		if (hf_directdb_test_fail && nth >= hf_directdb_test_fail) {
			k = -1;
			errno = EIO;
		} else if (hf_directdb_test_refuse && nth >= hf_directdb_test_refuse && !d->buffered) {
			k = -1;
			errno = EINVAL;
		} else {
			k = pwrite(d->dfd, b->p + done, b->len - done, (off_t)(b->off + done));
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EINVAL && !d->buffered) {
			int fl = fcntl(d->dfd, F_GETFL);
			if (fl == -1 || fcntl(d->dfd, F_SETFL, fl & ~O_DIRECT) == -1)
				return EINVAL;
			d->buffered = true;
			continue;
		}
		if (k < 0)
			return errno;
		if (k == 0)
			return EIO;
		done += (size_t)k;
	}
	return 0;
}

static void *dd_thread(void *arg)
{
	dd_file *d = arg;
	pthread_mutex_lock(&d->mu);
	for (;;) {
		dd_buf *b = NULL;
		for (int i = 0; i < DD_BUFS; i++)
			if (d->buf[i].state == DD_QUEUED && (!b || d->buf[i].seq < b->seq))
				b = &d->buf[i];
		if (!b) {
			if (d->stop)
				break;
			pthread_cond_wait(&d->work, &d->mu);
			continue;
		}
		b->state = DD_WRITING;
		unsigned nth = ++d->writes;
		int failed = d->error;
		pthread_mutex_unlock(&d->mu);
		/* After an error nothing more is written: the file is bad. */
		int e = failed ? 0 : dd_write_out(d, b, nth);
		pthread_mutex_lock(&d->mu);
		if (e && !d->error)
			d->error = e;
		if (!e && !failed && !d->buffered)
			d->direct_bytes += b->len;
		b->state = DD_FREE;
		pthread_cond_broadcast(&d->freed);
	}
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

/* The buffer being filled goes to the writing thread. */
static void dd_queue(dd_file *d)
{
	if (!d->fill)
		return;
	pthread_mutex_lock(&d->mu);
	d->fill->state = DD_QUEUED;
	pthread_cond_signal(&d->work);
	pthread_mutex_unlock(&d->mu);
	d->fill = NULL;
}

/* Waits until every buffer is written: SQLITE_OK or the error's code. */
static int dd_drain(dd_file *d)
{
	if (!d->on)
		return SQLITE_OK;
	dd_queue(d);
	pthread_mutex_lock(&d->mu);
	for (;;) {
		bool busy = false;
		for (int i = 0; i < DD_BUFS; i++)
			busy |= d->buf[i].state != DD_FREE;
		if (!busy)
			break;
		pthread_cond_wait(&d->freed, &d->mu);
	}
	int e = d->error;
	pthread_mutex_unlock(&d->mu);
	return e ? dd_code(e) : SQLITE_OK;
}

/* The buffers and the thread; false (and direct writing never again) when
 * they cannot be had. */
static bool dd_turn_on(dd_file *d)
{
	sqlite3_int64 size = 0;
	if (d->real->pMethods->xFileSize(d->real, &size) != SQLITE_OK)
		return false;
	bool ok = posix_memalign((void **)&d->bounce, DD_ALIGN, DD_BUF) == 0;
	for (int i = 0; ok && i < DD_BUFS; i++)
		ok = posix_memalign((void **)&d->buf[i].p, DD_ALIGN, DD_BUF) == 0;
	if (ok && pthread_cond_init(&d->freed, NULL) != 0)
		ok = false;
	else if (ok && !hf_thread_start(&d->thread, &d->mu, &d->work, dd_thread, d)) {
		pthread_cond_destroy(&d->freed);
		ok = false;
	}
	if (!ok) {
		free(d->bounce);
		d->bounce = NULL;
		for (int i = 0; i < DD_BUFS; i++) {
			free(d->buf[i].p);
			d->buf[i].p = NULL;
		}
		close(d->dfd);
		d->dfd = -1;
		return false;
	}
	d->size = (uint64_t)size;
	d->on = true;
	return true;
}

/* A free buffer to fill from off, waiting for one if need be; NULL after an
 * error of the disk. */
static dd_buf *dd_take(dd_file *d, uint64_t off)
{
	dd_queue(d);
	pthread_mutex_lock(&d->mu);
	dd_buf *b = NULL;
	while (!d->error) {
		for (int i = 0; i < DD_BUFS && !b; i++)
			if (d->buf[i].state == DD_FREE)
				b = &d->buf[i];
		if (b)
			break;
		pthread_cond_wait(&d->freed, &d->mu);
	}
	if (b) {
		b->state = DD_FILLING;
		b->off = off;
		b->len = 0;
		b->seq = ++d->seq;
	}
	pthread_mutex_unlock(&d->mu);
	return d->fill = b;
}

static int dd_error(dd_file *d)
{
	pthread_mutex_lock(&d->mu);
	int e = d->error;
	pthread_mutex_unlock(&d->mu);
	return e;
}

static int dd_write(sqlite3_file *f, const void *data, int n, sqlite3_int64 off)
{
	dd_file *d = (dd_file *)f;
	if (!d->on) {
		if (d->dfd < 0 || !aligned(off, n) || (uint64_t)off + (uint64_t)n <= d->from || !dd_turn_on(d))
			return d->real->pMethods->xWrite(d->real, data, n, off);
	}
	int e = dd_error(d);
	if (e)
		return dd_code(e);
	if (!aligned(off, n)) {
		int rc = dd_drain(d);
		if (rc == SQLITE_OK)
			rc = d->real->pMethods->xWrite(d->real, data, n, off);
		if (rc == SQLITE_OK && (uint64_t)off + (uint64_t)n > d->size)
			d->size = (uint64_t)off + (uint64_t)n;
		return rc;
	}
	const uint8_t *p = data;
	uint64_t at = (uint64_t)off, left = (uint64_t)n;
	while (left) {
		dd_buf *b = d->fill;
		/* Into the buffer being filled when it holds or continues at. */
		if (!b || at < b->off || at > b->off + b->len || at - b->off >= DD_BUF)
			if (!(b = dd_take(d, at)))
				return dd_code(dd_error(d));
		size_t in = (size_t)(at - b->off), k = DD_BUF - in;
		if (k > left)
			k = (size_t)left;
		memcpy(b->p + in, p, k);
		if (in + k > b->len)
			b->len = in + k;
		if (b->len == DD_BUF)
			dd_queue(d);
		p += k;
		at += k;
		left -= k;
	}
	if (at > d->size)
		d->size = at;
	return SQLITE_OK;
}

/* The file's bytes at [off, off + n), direct: the count read (short at the
 * end of the file), or -1 and errno. */
static ssize_t dd_pread(dd_file *d, uint8_t *p, size_t n, uint64_t off)
{
	size_t done = 0;
	while (done < n) {
		size_t k = n - done < DD_BUF ? n - done : DD_BUF;
		ssize_t got = pread(d->dfd, d->bounce, k, (off_t)(off + done));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -1;
		memcpy(p + done, d->bounce, (size_t)got);
		done += (size_t)got;
		if ((size_t)got < k)
			break;
	}
	return (ssize_t)done;
}

static int dd_read(sqlite3_file *f, void *data, int n, sqlite3_int64 off)
{
	dd_file *d = (dd_file *)f;
	if (!d->on)
		return d->real->pMethods->xRead(d->real, data, n, off);
	uint64_t lo = (uint64_t)off, hi = lo + (uint64_t)n;
	/* The buffers over the range, in the order they were filled.  No
	 * buffer is filled but by this thread, so their bytes stay as they
	 * are until it returns. */
	dd_buf *over[DD_BUFS];
	int nover = 0;
	pthread_mutex_lock(&d->mu);
	int e = d->error;
	for (int i = 0; i < DD_BUFS; i++) {
		dd_buf *b = &d->buf[i];
		if (b->state != DD_FREE && b->off < hi && b->off + b->len > lo) {
			int j = nover++;
			for (; j > 0 && over[j - 1]->seq > b->seq; j--)
				over[j] = over[j - 1];
			over[j] = b;
		}
	}
	pthread_mutex_unlock(&d->mu);
	if (e)
		return SQLITE_IOERR_READ;
	bool direct = !d->buffered && aligned(off, n) && (nover || lo >= d->from);
	ssize_t got = direct ? dd_pread(d, data, (size_t)n, lo) : -1;
	if (got < 0) {
		/* Through the page cache, once the buffers over the range are
		 * written. */
		int rc = nover ? dd_drain(d) : SQLITE_OK;
		if (rc == SQLITE_OK)
			rc = d->real->pMethods->xRead(d->real, data, n, off);
		if (rc == SQLITE_IOERR_SHORT_READ && hi <= d->size)
			rc = SQLITE_OK;   /* a hole before bytes written: zeros */
		return rc;
	}
	memset((uint8_t *)data + got, 0, (size_t)n - (size_t)got);
	for (int i = 0; i < nover; i++) {
		const dd_buf *b = over[i];
		uint64_t s = b->off > lo ? b->off : lo, t = b->off + b->len < hi ? b->off + b->len : hi;
		memcpy((uint8_t *)data + (s - lo), b->p + (s - b->off), (size_t)(t - s));
	}
	return hi <= d->size ? SQLITE_OK : SQLITE_IOERR_SHORT_READ;
}

static int dd_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	dd_file *d = (dd_file *)f;
	int rc = dd_drain(d);
	if (rc == SQLITE_OK)
		rc = d->real->pMethods->xTruncate(d->real, size);
	if (rc == SQLITE_OK && d->on)
		d->size = (uint64_t)size;
	return rc;
}

static int dd_sync(sqlite3_file *f, int flags)
{
	dd_file *d = (dd_file *)f;
	int rc = dd_drain(d);
	return rc == SQLITE_OK ? d->real->pMethods->xSync(d->real, flags) : rc;
}

static int dd_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
	dd_file *d = (dd_file *)f;
	int rc = d->real->pMethods->xFileSize(d->real, size);
	if (rc == SQLITE_OK && d->on && d->size > (uint64_t)*size)
		*size = (sqlite3_int64)d->size;
	return rc;
}

/* Stops the thread and frees the buffers: the first error of the disk's. */
static int dd_stop(dd_file *d)
{
	if (!d->on) {
		if (d->dfd >= 0)
			close(d->dfd);
		d->dfd = -1;
		return d->error;
	}
	dd_drain(d);
	hf_thread_stop(d->thread, &d->mu, &d->work, &d->stop);
	pthread_cond_destroy(&d->freed);
	for (int i = 0; i < DD_BUFS; i++) {
		free(d->buf[i].p);
		d->buf[i].p = NULL;
	}
	free(d->bounce);
	d->bounce = NULL;
	close(d->dfd);
	d->dfd = -1;
	d->on = false;
	hf_directdb_test_bytes += d->direct_bytes;
	return d->error;
}

static int dd_close(sqlite3_file *f)
{
	dd_file *d = (dd_file *)f;
	dd_stop(d);
	return d->real->pMethods->xClose(d->real);
}

static int dd_lock(sqlite3_file *f, int level)
{
	sqlite3_file *r = ((dd_file *)f)->real;
	return r->pMethods->xLock(r, level);
}

static int dd_unlock(sqlite3_file *f, int level)
{
	sqlite3_file *r = ((dd_file *)f)->real;
	return r->pMethods->xUnlock(r, level);
}

static int dd_reserved(sqlite3_file *f, int *out)
{
	sqlite3_file *r = ((dd_file *)f)->real;
	return r->pMethods->xCheckReservedLock(r, out);
}

static int dd_control(sqlite3_file *f, int op, void *arg)
{
	dd_file *d = (dd_file *)f;
	switch (op) {
	/* The ones that touch no byte of the file (SIZE_HINT grows it only
	 * with a chunk size, never set here, and only past its end); any
	 * other waits for the buffers first. */
	case SQLITE_FCNTL_SIZE_HINT:
	case SQLITE_FCNTL_PRAGMA:
	case SQLITE_FCNTL_BUSYHANDLER:
	case SQLITE_FCNTL_LOCKSTATE:
	case SQLITE_FCNTL_VFSNAME:
	case SQLITE_FCNTL_HAS_MOVED:
	case SQLITE_FCNTL_MMAP_SIZE:
	case SQLITE_FCNTL_SYNC_OMITTED:
	case SQLITE_FCNTL_SYNC:              /* xSync follows, and waits */
	case SQLITE_FCNTL_COMMIT_PHASETWO:   /* at every commit */
	case SQLITE_FCNTL_TEMPFILENAME:
	case SQLITE_FCNTL_DATA_VERSION:
	case SQLITE_FCNTL_LOCK_TIMEOUT:
		break;
	default: {
		int rc = dd_drain(d);
		if (rc != SQLITE_OK)
			return rc;
	}
	}
	return d->real->pMethods->xFileControl(d->real, op, arg);
}

static int dd_sector_size(sqlite3_file *f)
{
	sqlite3_file *r = ((dd_file *)f)->real;
	return r->pMethods->xSectorSize(r);
}

static int dd_device(sqlite3_file *f)
{
	sqlite3_file *r = ((dd_file *)f)->real;
	return r->pMethods->xDeviceCharacteristics(r);
}

/* Version 1: no shared memory (no WAL) and no memory mapping, so that
 * every byte goes through dd_read and dd_write. */
static const sqlite3_io_methods dd_methods = {
	1, dd_close, dd_read, dd_write, dd_truncate, dd_sync, dd_file_size, dd_lock, dd_unlock,
	dd_reserved, dd_control, dd_sector_size, dd_device, NULL, NULL, NULL, NULL, NULL, NULL
};

#define DD_HEAD ((sizeof(dd_file) + 15) & ~(size_t)15)

static int dd_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
	(void)vfs;
	/* Anything but a main database opened to write is the default VFS's
	 * own file, in the space SQLite made for ours. */
	if (!name || !(flags & SQLITE_OPEN_MAIN_DB) || !(flags & SQLITE_OPEN_READWRITE))
		return dd_base->xOpen(dd_base, name, f, flags, out);
	dd_file *d = (dd_file *)f;
	memset(d, 0, sizeof *d);
	d->real = (sqlite3_file *)((uint8_t *)f + DD_HEAD);
	d->dfd = -1;
	int rc = dd_base->xOpen(dd_base, name, d->real, flags, out);
	if (rc != SQLITE_OK) {
		if (d->real->pMethods)
			d->real->pMethods->xClose(d->real);
		d->base.pMethods = NULL;
		return rc;
	}
	d->base.pMethods = &dd_methods;
	d->from = hf_directdb_test_from ? hf_directdb_test_from : hf_dirty_background_limit();
	d->dfd = open(name, O_RDWR | O_DIRECT | O_CLOEXEC);
	return SQLITE_OK;
}

static int dd_delete(sqlite3_vfs *v, const char *name, int sync)
{
	(void)v;
	return dd_base->xDelete(dd_base, name, sync);
}

static int dd_access(sqlite3_vfs *v, const char *name, int flags, int *out)
{
	(void)v;
	return dd_base->xAccess(dd_base, name, flags, out);
}

static int dd_full_path(sqlite3_vfs *v, const char *name, int n, char *out)
{
	(void)v;
	return dd_base->xFullPathname(dd_base, name, n, out);
}

static void *dd_dl_open(sqlite3_vfs *v, const char *name)
{
	(void)v;
	return dd_base->xDlOpen(dd_base, name);
}

static void dd_dl_error(sqlite3_vfs *v, int n, char *out)
{
	(void)v;
	dd_base->xDlError(dd_base, n, out);
}

static void (*dd_dl_sym(sqlite3_vfs *v, void *h, const char *name))(void)
{
	(void)v;
	return dd_base->xDlSym(dd_base, h, name);
}

static void dd_dl_close(sqlite3_vfs *v, void *h)
{
	(void)v;
	dd_base->xDlClose(dd_base, h);
}

static int dd_randomness(sqlite3_vfs *v, int n, char *out)
{
	(void)v;
	return dd_base->xRandomness(dd_base, n, out);
}

static int dd_sleep(sqlite3_vfs *v, int us)
{
	(void)v;
	return dd_base->xSleep(dd_base, us);
}

static int dd_time(sqlite3_vfs *v, double *t)
{
	(void)v;
	return dd_base->xCurrentTime(dd_base, t);
}

static int dd_last_error(sqlite3_vfs *v, int n, char *out)
{
	(void)v;
	return dd_base->xGetLastError ? dd_base->xGetLastError(dd_base, n, out) : 0;
}

static int dd_time64(sqlite3_vfs *v, sqlite3_int64 *t)
{
	(void)v;
	return dd_base->xCurrentTimeInt64(dd_base, t);
}

static const char *dd_name;
static char dd_name_buf[48];

static void dd_register(void)
{
	sqlite3_vfs *base = sqlite3_vfs_find(NULL);
	if (!base || base->iVersion < 2 || !base->xCurrentTimeInt64 ||
	    (size_t)base->szOsFile > (size_t)INT_MAX - DD_HEAD)
		return;
	dd_base = base;
	/* Named by its address: a second copy of the library in the process
	 * registers a VFS of its own, with dd_methods of its own. */
	snprintf(dd_name_buf, sizeof dd_name_buf, "heapfmt-direct-%p", (void *)&dd_vfs);
	dd_vfs = (sqlite3_vfs){
		.iVersion = 2,
		.szOsFile = (int)(DD_HEAD + (size_t)base->szOsFile),
		.mxPathname = base->mxPathname,
		.zName = dd_name_buf,
		.xOpen = dd_open,
		.xDelete = dd_delete,
		.xAccess = dd_access,
		.xFullPathname = dd_full_path,
		.xDlOpen = dd_dl_open,
		.xDlError = dd_dl_error,
		.xDlSym = dd_dl_sym,
		.xDlClose = dd_dl_close,
		.xRandomness = dd_randomness,
		.xSleep = dd_sleep,
		.xCurrentTime = dd_time,
		.xGetLastError = dd_last_error,
		.xCurrentTimeInt64 = dd_time64,
	};
	if (sqlite3_vfs_register(&dd_vfs, 0) == SQLITE_OK)
		dd_name = dd_vfs.zName;
}

const char *hf_directdb_vfs(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, dd_register);
	return dd_name;
}

int hf_directdb_finish(sqlite3 *db, uint64_t *direct_bytes)
{
	sqlite3_file *f = NULL;
	if (direct_bytes)
		*direct_bytes = 0;
	if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &f) != SQLITE_OK || !f ||
	    f->pMethods != &dd_methods)
		return 0;
	dd_file *d = (dd_file *)f;
	int e = dd_stop(d);
	if (direct_bytes)
		*direct_bytes = d->direct_bytes;
	return e;
}

#else

const char *hf_directdb_vfs(void)
{
	return NULL;
}

int hf_directdb_finish(sqlite3 *db, uint64_t *direct_bytes)
{
	(void)db;
	if (direct_bytes)
		*direct_bytes = 0;
	return 0;
}

#endif
