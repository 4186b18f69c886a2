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
 * own for the writes (the formatting thread swapping buffers with it) was
 * slower, 18.8/19.0 s, and 2.9 s against 2.7 s for the 1 GB Android-like
 * dump: tried and dropped.
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
#include <sys/stat.h>
#include <unistd.h>

#define WB_CHUNK ((uint64_t)8 << 20)

uint64_t hf_writebehind_test_start;

/* Bytes the kernel lets be dirty before its background writeback starts. */
static uint64_t background_limit(void)
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

void hf_writebehind_init(hf_writebehind *wb, int fd)
{
	memset(wb, 0, sizeof *wb);
	wb->fd = -1;
#ifdef __linux__
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
		return;
	off_t at = lseek(fd, 0, SEEK_CUR);
	if (at < 0)
		return;
	wb->fd = fd;
	wb->pos = wb->flushed = (uint64_t)at;
	wb->start = (uint64_t)at + (hf_writebehind_test_start ? hf_writebehind_test_start
	                                                       : background_limit());
#else
	(void)fd;
#endif
}

void hf_writebehind_wrote(hf_writebehind *wb, size_t n)
{
	if (wb->fd < 0)
		return;
	wb->pos += n;
	if (wb->pos < wb->start) {
		wb->flushed = wb->pos;
		return;
	}
	if (wb->pos - wb->flushed < WB_CHUNK)
		return;
#ifdef __linux__
	uint64_t from = wb->flushed, len = wb->pos - from;
	int rc = sync_file_range(wb->fd, (off_t)from, (off_t)len, SYNC_FILE_RANGE_WRITE);
	if (!rc && wb->count == HF_WB_DEPTH) {
		unsigned old = wb->head;
		rc = sync_file_range(wb->fd, (off_t)wb->from[old], (off_t)wb->len[old],
		                     SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
		                     SYNC_FILE_RANGE_WAIT_AFTER);
		posix_fadvise(wb->fd, (off_t)wb->from[old], (off_t)wb->len[old], POSIX_FADV_DONTNEED);
		wb->head = (old + 1) % HF_WB_DEPTH;
		wb->count--;
	}
	if (rc) {
		if (errno == EIO || errno == ENOSPC || errno == EDQUOT)
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
