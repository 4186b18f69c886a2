/* Output files are built under a temporary name beside the final one and
 * renamed only when complete, so a failed or killed run never leaves a
 * half-written file at the output path. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int hf_make_temp_beside(const char *path, char **tmp_out);

int hf_make_temp_beside(const char *path, char **tmp_out)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
	const char *base = path + dirlen;
	size_t n = strlen(path) + 32;
	char *tmp = malloc(n);
	if (!tmp) {
		errno = ENOMEM;
		return -1;
	}
	snprintf(tmp, n, "%.*s.%s.tmp-XXXXXX", (int)dirlen, path, base);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		int e = errno;
		free(tmp);
		errno = e;
		return -1;
	}
	*tmp_out = tmp;
	return fd;
}
