/* Whole reads and writes: loops over short counts and EINTR. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include <errno.h>
#include <unistd.h>

/* Writes all n bytes at *off (advanced), or at the descriptor's offset
 * when off is NULL; 0 or an errno value. */
static int write_loop(int fd, const void *p, size_t n, uint64_t *off)
{
	const uint8_t *c = p;
	while (n) {
		ssize_t r = off ? pwrite(fd, c, n, (off_t)*off) : write(fd, c, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno;
		if (r == 0)
			return EIO;
		c += r;
		n -= (size_t)r;
		if (off)
			*off += (uint64_t)r;
	}
	return 0;
}

int hf_write_full(int fd, const void *p, size_t n)
{
	return write_loop(fd, p, n, NULL);
}

int hf_pwrite_full(int fd, const void *p, size_t n, uint64_t off)
{
	return write_loop(fd, p, n, &off);
}

int hf_pread_full(int fd, void *p, size_t n, uint64_t off, size_t *got)
{
	*got = 0;
	while (*got < n) {
		uint64_t at = off + *got;
		if (at < off || at > (uint64_t)INT64_MAX)
			break; /* past any file's end */
		ssize_t r = pread(fd, (uint8_t *)p + *got, n - *got, (off_t)at);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno;
		if (r == 0)
			break;
		*got += (size_t)r;
	}
	return 0;
}
