/* Output files are built under a temporary name beside the final one and
 * renamed only when complete, so a failed or killed run never leaves a
 * half-written file at the output path.  The temporary file is created with
 * mode 0666 less the umask, as the output itself would be (mkstemp's 0600
 * would make every converted file private to its owner).  While it is
 * written its name is kept where hf_remove_partial_outputs, called from a
 * program's signal handler, can remove it: an interrupted run (Ctrl-C, a
 * CI job's timeout) leaves no hidden half-written file either. */
#define _GNU_SOURCE   /* mkostemp */
#include "internal.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The temporary outputs being written, for the signal handler: a slot is
 * free (0), being filled (1) or holds a name (2).  The names are copies in
 * static memory, which no free() can pull from under a handler that runs
 * on another thread.  A name past PATH_MAX, or past LIVE_MAX outputs at
 * once, is not kept: that file stays behind when a signal kills the run. */
#define LIVE_MAX 16
#ifndef PATH_MAX
#define PATH_MAX 4096
#endif
static atomic_int live_state[LIVE_MAX];
static char live_name[LIVE_MAX][PATH_MAX];

static void live_add(const char *name)
{
	size_t n = strlen(name);
	if (n >= PATH_MAX)
		return;
	for (int i = 0; i < LIVE_MAX; i++) {
		int expect = 0;
		if (atomic_compare_exchange_strong(&live_state[i], &expect, 1)) {
			memcpy(live_name[i], name, n + 1);
			atomic_store(&live_state[i], 2);
			return;
		}
	}
}

static void live_remove(const char *name)
{
	for (int i = 0; i < LIVE_MAX; i++) {
		int expect = 2;
		if (atomic_load(&live_state[i]) == 2 && strcmp(live_name[i], name) == 0 &&
		    atomic_compare_exchange_strong(&live_state[i], &expect, 0))
			return;
	}
}

/* Async-signal-safe: atomic loads and unlink(2). */
void hf_remove_partial_outputs(void)
{
	for (int i = 0; i < LIVE_MAX; i++)
		if (atomic_load(&live_state[i]) == 2)
			unlink(live_name[i]);
}

static void (*temp_hook)(const char *path, void *ctx);
static void *temp_hook_ctx;

void hf_on_temp_output(void (*fn)(const char *path, void *ctx), void *ctx)
{
	temp_hook = fn;
	temp_hook_ctx = ctx;
}

void hf_temp_kept(char **tmp)
{
	if (*tmp)
		live_remove(*tmp);
	free(*tmp);
	*tmp = NULL;
}

void hf_temp_drop(char **tmp)
{
	if (*tmp) {
		unlink(*tmp);
		live_remove(*tmp);
	}
	free(*tmp);
	*tmp = NULL;
}

int hf_make_temp_beside(const char *path, int mode, char **tmp_out)
{
	static const char letters[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
	const char *base = path + dirlen;
	size_t n = strlen(path) + 32;
	char *tmp = malloc(n);
	if (!tmp) {
		errno = ENOMEM;
		return -1;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t v = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec ^
	             (uint64_t)(uintptr_t)tmp;
	int fd = -1;
	for (int attempt = 0; attempt < 1000; attempt++) {
		char suffix[7];
		uint64_t x = v;
		for (int i = 0; i < 6; i++, x /= 62)
			suffix[i] = letters[x % 62];
		suffix[6] = 0;
		snprintf(tmp, n, "%.*s.%s.tmp-%s", (int)dirlen, path, base, suffix);
		fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			break;
		v = v * 6364136223846793005u + 1442695040888963407u;
	}
	if (fd < 0) {
		int e = errno;
		free(tmp);
		errno = e;
		return -1;
	}
	if (mode >= 0)
		(void)fchmod(fd, (mode_t)mode);
	live_add(tmp);
	if (temp_hook)
		temp_hook(tmp, temp_hook_ctx);
	*tmp_out = tmp;
	return fd;
}

/* A link's target that names an open file by its descriptor. */
static int descriptor_name(const char *target)
{
	return !strncmp(target, "/proc/", 6) || !strncmp(target, "/dev/fd/", 8) ||
	       !strncmp(target, "/dev/std", 8);
}

int hf_out_descriptor(const char *path)
{
	const char *num = NULL;
	char own[48];
	snprintf(own, sizeof own, "/proc/%ld/fd/", (long)getpid());
	if (!strcmp(path, "/dev/stdout"))
		return 1;
	if (!strcmp(path, "/dev/stderr"))
		return 2;
	if (!strncmp(path, "/dev/fd/", 8))
		num = path + 8;
	else if (!strncmp(path, "/proc/self/fd/", 14))
		num = path + 14;
	else if (!strncmp(path, own, strlen(own)))
		num = path + strlen(own);
	if (!num || *num < '0' || *num > '9')
		return -1;
	char *end;
	long n = strtol(num, &end, 10);
	return *end || n > INT_MAX ? -1 : (int)n;
}

FILE *hf_out_open_in_place(const char *path)
{
	int n = hf_out_descriptor(path);
	if (n < 0)
		return fopen(path, "wb");
	int fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return NULL;
	FILE *fp = fdopen(fd, "wb");
	if (!fp) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return fp;
}

int hf_out_resolve(const char *path, hf_out_target *t)
{
	memset(t, 0, sizeof *t);
	t->mode = -1;
	char *cur = strdup(path);
	if (!cur)
		return ENOMEM;
	struct stat sb;
	if (hf_out_descriptor(path) >= 0)
		t->in_place = t->is_fd = 1;
	/* Follow the links one by one (as the kernel would, up to 40). */
	for (int hop = 0; !t->in_place && lstat(cur, &sb) == 0 && S_ISLNK(sb.st_mode); hop++) {
		char target[PATH_MAX];
		ssize_t n = hop < 40 ? readlink(cur, target, sizeof target - 1) : -1;
		if (n <= 0 || descriptor_name(cur)) {
			/* Too deep, unreadable, or a descriptor's name: what
			 * the link is, the open will find out. */
			t->in_place = 1;
			t->is_fd = n > 0;
			break;
		}
		target[n] = 0;
		if (descriptor_name(target)) {
			t->in_place = t->is_fd = 1;
			break;
		}
		char *next;
		const char *slash = strrchr(cur, '/');
		if (target[0] == '/' || !slash) {
			next = strdup(target);
		} else {
			size_t dl = (size_t)(slash - cur) + 1;
			next = malloc(dl + (size_t)n + 1);
			if (next) {
				memcpy(next, cur, dl);
				memcpy(next + dl, target, (size_t)n + 1);
			}
		}
		free(cur);
		if (!(cur = next))
			return ENOMEM;
	}
	if (t->in_place) {
		free(cur);
		if (!(t->path = strdup(path)))
			return ENOMEM;
		t->is_dir = stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
		return 0;
	}
	if (lstat(cur, &sb) == 0) {
		if (S_ISDIR(sb.st_mode))
			t->is_dir = 1;
		else if (S_ISREG(sb.st_mode))
			t->mode = (int)(sb.st_mode & 07777);
		else
			t->in_place = 1;
	}
	t->path = cur;
	return 0;
}

/* An unlinked temporary file in dir, closed on exec; -1 when none. */
int hf_tmpfd_in(const char *dir)
{
	size_t n = strlen(dir) + 32;
	char *path = malloc(n);
	if (!path)
		return -1;
	snprintf(path, n, "%s/heapfmt-XXXXXX", dir);
#ifdef __linux__
	int fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
#else
	int fd = mkstemp(path);
	if (fd >= 0) {
		unlink(path);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
#endif
	free(path);
	return fd;
}

/* Where hf_tmpfile puts its files, for messages: $TMPDIR, unless it cannot
 * be written (hf_tmpfile then falls back to tmpfile()'s directory). */
const char *hf_tmpdir(void)
{
	const char *dir = getenv("TMPDIR");
	return dir && *dir && access(dir, W_OK | X_OK) == 0 ? dir : P_tmpdir;
}

/* Where SQLite (its unix VFS) puts its temporary files, for messages: the
 * first of $SQLITE_TMPDIR, $TMPDIR, /var/tmp, /usr/tmp and /tmp that is a
 * directory it can write to. */
const char *hf_sqlite_tmpdir(void)
{
	const char *env[] = { getenv("SQLITE_TMPDIR"), getenv("TMPDIR") };
	for (int i = 0; i < 2; i++)
		if (env[i] && *env[i] && access(env[i], W_OK | X_OK) == 0)
			return env[i];
	static const char *const fixed[] = { "/var/tmp", "/usr/tmp", "/tmp" };
	for (int i = 0; i < 3; i++)
		if (access(fixed[i], W_OK | X_OK) == 0)
			return fixed[i];
	return ".";
}

/* A temporary file for the library's own scratch data (parked Strings,
 * sorted index keys, the analysis's distances), opened "w+b" and already
 * unlinked: in $TMPDIR when it is set, as SQLite's temporary files are
 * (glibc's tmpfile() always uses /tmp), else where tmpfile() puts it. */
FILE *hf_tmpfile(void)
{
	const char *dir = getenv("TMPDIR");
	int fd = dir && *dir ? hf_tmpfd_in(dir) : -1;
	if (fd >= 0) {
		FILE *f = fdopen(fd, "w+b");
		if (!f)
			close(fd);
		return f;
	}
	return tmpfile();
}
