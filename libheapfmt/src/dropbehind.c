/*
 * hf_dropbehind: a large file that another writer fills (SQLite, through
 * its own descriptor) handed to the disk and dropped from the page cache
 * behind it (Linux).
 *
 * hf_writebehind (writebehind.c) does this for an output whose writes go
 * through heapfmt's hands.  SQLite writes its database itself, so here a
 * thread looks at the file's size every DROP_TICK_NS: once the file has
 * passed the size at which the kernel would start writing back on its own
 * (hf_dirty_background_limit), what was added since the last look is
 * handed to the disk (sync_file_range), and what lies more than DROP_KEEP
 * below the end is waited for and dropped from the page cache
 * (posix_fadvise).  A smaller database stays in the page cache, where the
 * queries that follow a conversion find it.
 *
 * Why: past the dirty limits every page the writer adds is a new page of
 * the page cache, and on the benchmark machine growing the page cache by
 * many gigabytes costs far more system time than the copy itself (8 GB of
 * 64 KiB writes: 6.7 s of system time plainly, 5.7 s written behind alone,
 * 2.8 s written behind and dropped; 4 GB: 1.0 s).  SQLite appends nearly
 * everything it writes during a conversion (tables in key order, indexes
 * from sorted keys) and keeps the pages it comes back to (the b-trees'
 * upper levels) in its own cache; a page dropped here that it reads again
 * comes from the disk, which is slower but the same bytes: nothing here
 * changes what is written.  Pages rewritten after their drop are dirty
 * again and written back as the kernel sees fit.
 *
 * An error of the disk that a wait sees (hf_disk_error) is kept and
 * reported by hf_dropbehind_stop (SQLite, writing without sync, would
 * never hear of it); any other failure just ends the dropping.  The last
 * DROP_KEEP of the file, and a file that never passes the limit, are
 * written back by the kernel as any file is, unwaited, as before.
 */
#define _GNU_SOURCE
#include "internal.h"
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DROP_TICK_NS 20000000L              /* how often the size is looked at */
#define DROP_CHUNK ((uint64_t)8 << 20)      /* handed to the disk at least this much at once */
#define DROP_KEEP ((uint64_t)64 << 20)      /* left in the page cache below the end */

uint64_t hf_dropbehind_test_start;

#ifdef __linux__
/* One look; false ends the dropping. */
static bool look(hf_dropbehind *d)
{
	struct stat sb;
	if (fstat(d->fd, &sb) != 0)
		return false;
	uint64_t size = (uint64_t)sb.st_size & ~(uint64_t)4095;
	if (size < d->start || size < d->behind + d->chunk)
		return true;
	if (d->behind < d->start)
		d->behind = d->dropped = d->start & ~(uint64_t)4095;
	if (sync_file_range(d->fd, (off_t)d->behind, (off_t)(size - d->behind), SYNC_FILE_RANGE_WRITE) != 0) {
		if (hf_disk_error(errno))
			d->error = errno;
		return false;
	}
	d->written_behind += size - d->behind;
	d->behind = size;
	if (size < d->dropped + d->keep + d->chunk)
		return true;
	uint64_t end = size - d->keep;
	if (hf_flush_and_drop(d->fd, d->dropped, end - d->dropped) != 0) {
		if (hf_disk_error(errno))
			d->error = errno;
		return false;
	}
	d->dropped_bytes += end - d->dropped;
	d->dropped = end;
	return true;
}

/* Looks every DROP_TICK_NS until stopped or a look fails (d->on). */
static void *watch(void *arg)
{
	hf_dropbehind *d = arg;
	for (;;) {
		pthread_mutex_lock(&d->mu);
		int stop = d->stop;
		pthread_mutex_unlock(&d->mu);
		if (stop || !(d->on = look(d)))
			break;
		nanosleep(&(struct timespec){ 0, DROP_TICK_NS }, NULL);
	}
	return NULL;
}
#endif

void hf_dropbehind_start(hf_dropbehind *d, int fd)
{
	memset(d, 0, sizeof *d);
	d->fd = fd;
#ifdef __linux__
	d->start = hf_dropbehind_test_start ? hf_dropbehind_test_start : hf_dirty_background_limit();
	d->chunk = hf_dropbehind_test_start ? 65536 : DROP_CHUNK;
	d->keep = hf_dropbehind_test_start ? 65536 : DROP_KEEP;
	d->on = true;
	if (fd >= 0 && hf_thread_start(&d->thread, &d->mu, &d->cv, watch, d))
		d->started = 1;
#endif
}

int hf_dropbehind_stop(hf_dropbehind *d)
{
#ifdef __linux__
	if (d->started) {
		hf_thread_stop(d->thread, &d->mu, &d->cv, &d->stop);
		/* What the writer added since the thread's last look. */
		if (d->on)
			d->on = look(d);
	}
#endif
	d->started = 0;
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
	return d->error;
}
