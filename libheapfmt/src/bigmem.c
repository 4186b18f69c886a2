/*
 * hf_bigmem: large arrays kept in temporary files, mapped, so that the
 * process's resident memory stays near a limit however large they grow.
 *
 * Each array of at least HF_BIGMEM_MIN bytes is an unlinked temporary file
 * of its own on a disk ($TMPDIR, else /var/tmp, else /tmp, the first that
 * is not tmpfs or ramfs: there a file is memory), its blocks reserved up
 * front (fallocate: a file system that cannot reserve them, or a full disk,
 * gives a malloc'd array, never a SIGBUS on a later write), mapped shared.
 * A watching thread reads the process's resident size (/proc/self/statm)
 * every 2 ms (0.5 ms above half the limit) and, above the limit, releases the mapped pages of the arrays
 * (madvise MADV_DONTNEED), a window at a time in turn, until the process is
 * a quarter under the limit.  The thread that walks the arrays takes the
 * same look itself whenever none was taken for 0.25 ms near the limit (2 ms
 * else), or waits for the watcher's to end: hf_bigmem_pace, called from its
 * long loops.  Released pages stay
 * in the kernel's page cache while memory is free, and come back on the
 * next access with a minor fault; when memory is short the kernel writes them to the file and reads
 * them back: the arrays are out of core only as far as the machine needs.
 * Nothing is lost by releasing a page of a shared file mapping.  The kernel
 * also writes the files' dirty pages to the disk in the background (after
 * 30 s, as for any file), whether or not anything was released.
 *
 * When a sweep over every array leaves the process above the target (the
 * memory is elsewhere: SQLite's cache, the caller's), the watcher waits for
 * the arrays' own resident pages to grow by BACKOFF before it sweeps again,
 * rather than releasing them 500 times a second for nothing.
 *
 * Smaller arrays, and every array when no temporary file can be made or
 * reserved, come from malloc, and an array whose file cannot grow moves
 * into memory; the caller does not tell them apart.  Other systems than
 * Linux: malloc for everything.
 */
#define _GNU_SOURCE
#include "internal.h"
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/mman.h>
#include <sys/vfs.h>
#endif

#define HF_BIGMEM_MIN ((size_t)1 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

#ifdef __linux__
/* An address range of len bytes that starts at a huge page's boundary,
 * reserved (no access, no memory), for the caller to map over with
 * MAP_FIXED or MREMAP_FIXED; NULL when none can be had.  Reserved a huge
 * page larger, then trimmed. */
static uint8_t *huge_window(size_t len)
{
	if (len > SIZE_MAX - HUGE_PAGE)
		return NULL;
	uint8_t *r = mmap(NULL, len + HUGE_PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		return NULL;
	uint8_t *a = (uint8_t *)(((uintptr_t)r + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	if (a > r)
		munmap(r, (size_t)(a - r));
	if (r + HUGE_PAGE > a)
		munmap(a + len, (size_t)(r + HUGE_PAGE - a));
	return a;
}
#endif
#define WINDOW ((size_t)8 << 20)      /* released in windows of this size */
#define WATCH_NS 2000000L             /* how often the resident size is read */
#define WATCH_NEAR_NS 500000L         /* and above half the limit */
#define BACKOFF ((size_t)16 << 20)    /* growth of the arrays' pages that ends a back-off */
#define PACE_NS 250000L               /* hf_bigmem_pace's looks near the limit */

typedef struct bigmap {
	void *p;
	size_t bytes;            /* mapped (a whole number of pages) */
	int fd;
} bigmap;

struct hf_bigmem {
	size_t limit;            /* resident bytes; 0: nothing is watched */
	size_t page;
	pthread_mutex_t mu;
	pthread_cond_t cv;       /* hf_thread_start/stop's; the watcher sleeps instead */
	pthread_t thread;
	int started, stop;
	bigmap *maps;
	size_t nmaps, cap;
	size_t hand, hand_off;   /* where the next release starts */
	uint64_t released;       /* bytes given to madvise, for the tests */
	uint64_t sweeps;         /* sweeps that could not reach the target, for the tests */
	int statm;               /* /proc/self/statm, or -1 */
	bool backing_off;        /* until shared pages pass floor + BACKOFF */
	bool near;               /* above half the limit at the last look */
	size_t floor;
	_Atomic uint64_t pace_at; /* CLOCK_MONOTONIC ns from which hf_bigmem_pace looks */
};

int hf_bigmem_test_manual;

#ifdef __linux__

/* Resident bytes of the process, or 0 when unknown; *shared: of which
 * shared (file pages mapped, the arrays' among them). */
static size_t resident(hf_bigmem *m, size_t *shared)
{
	char buf[128];
	*shared = 0;
	if (m->statm < 0)
		return 0;
	ssize_t got = pread(m->statm, buf, sizeof buf - 1, 0);
	if (got <= 0)
		return 0;
	buf[got] = 0;
	char *p = buf;
	strtoull(p, &p, 10);     /* size */
	unsigned long long pages = strtoull(p, &p, 10), sh = strtoull(p, NULL, 10);
	*shared = (size_t)sh * m->page;
	return (size_t)pages * m->page;
}

/* Releases the next window of the arrays, in turn; returns its size (0:
 * no arrays).  Called with the lock held. */
static size_t release_window(hf_bigmem *m)
{
	while (m->nmaps) {
		if (m->hand >= m->nmaps) {
			m->hand = 0;
			m->hand_off = 0;
		}
		bigmap *b = &m->maps[m->hand];
		if (m->hand_off >= b->bytes) {
			m->hand++;
			m->hand_off = 0;
			continue;
		}
		size_t len = b->bytes - m->hand_off < WINDOW ? b->bytes - m->hand_off : WINDOW;
		madvise((char *)b->p + m->hand_off, len, MADV_DONTNEED);
		m->hand_off += len;
		m->released += len;
		return len;
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Above the limit, releases windows until the process is a quarter under
 * it (so that the next round is not due at once), or every array was
 * released once; then backs off (above).  Called with the lock held. */
static void enforce(hf_bigmem *m)
{
	size_t shared, rss = resident(m, &shared);
	m->near = rss > m->limit / 2;
	atomic_store_explicit(&m->pace_at, now_ns() + (uint64_t)(m->near ? PACE_NS : WATCH_NS),
	                      memory_order_relaxed);
	if (rss <= m->limit) {
		m->backing_off = false;
		return;
	}
	if (m->backing_off && shared < m->floor + BACKOFF)
		return;
	size_t total = 0, swept = 0, target = m->limit - m->limit / 4;
	for (size_t i = 0; i < m->nmaps; i++)
		total += m->maps[i].bytes;
	while (rss > target && swept < total) {
		size_t len = release_window(m);
		if (!len)
			break;
		swept += len;
		rss = resident(m, &shared);
	}
	m->backing_off = rss > target;
	m->floor = shared;
	m->sweeps += m->backing_off;
}

/* Every WATCH_NS, or WATCH_NEAR_NS above half the limit (a relative sleep:
 * a change of the clock does not stop it), until told to stop.  Pages come
 * back fast: a read fault maps the 16 around it that the page cache holds,
 * so a random walk over released arrays brought 250 MB back within the 2 ms
 * between two looks (the 5 GB benchmark dump's analysis, heapdb-analyze:
 * 641 MiB against a limit of 512); looking every 0.5 ms near the limit, the
 * same run peaked at 575 MiB, the thread taking 5-9 % of a core while it
 * releases. */
static void *watch(void *arg)
{
	hf_bigmem *m = arg;
	for (;;) {
		pthread_mutex_lock(&m->mu);
		if (m->stop) {
			pthread_mutex_unlock(&m->mu);
			break;
		}
		if (m->nmaps)
			enforce(m);
		bool near = m->near;     /* (hf_bigmem_pace's looks write it too) */
		pthread_mutex_unlock(&m->mu);
		nanosleep(&(struct timespec){ 0, near ? WATCH_NEAR_NS : WATCH_NS }, NULL);
	}
	return NULL;
}

hf_bigmem *hf_bigmem_new(size_t limit)
{
	hf_bigmem *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	long page = sysconf(_SC_PAGESIZE);
	m->page = page > 0 ? (size_t)page : 4096;
	m->statm = -1;
	m->limit = limit;
	if (!limit)
		return m;
	m->statm = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	if (m->statm < 0) {
		m->limit = 0;            /* nothing to watch with: malloc */
		return m;
	}
	if (hf_bigmem_test_manual)
		return m;                /* the test looks with hf_bigmem_test_look */
	if (!hf_thread_start(&m->thread, &m->mu, &m->cv, watch, m)) {
		close(m->statm);         /* no thread to watch with: malloc */
		m->statm = -1;
		m->limit = 0;
		return m;
	}
	m->started = 1;
	return m;
}

static bigmap *find(hf_bigmem *m, const void *p)
{
	for (size_t i = 0; i < m->nmaps; i++)
		if (m->maps[i].p == p)
			return &m->maps[i];
	return NULL;
}

/* A temporary file on a disk (not tmpfs or ramfs); -1 when none. */
static int disk_tmpfd(void)
{
	const char *env = getenv("TMPDIR");
	const char *dirs[] = { env && *env ? env : NULL, "/var/tmp", "/tmp" };
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		if (!dirs[i])
			continue;
		int fd = hf_tmpfd_in(dirs[i]);
		struct statfs sf;
		if (fd < 0)
			continue;
		if (fstatfs(fd, &sf) == 0 && sf.f_type != 0x01021994 /* TMPFS_MAGIC */ &&
		    sf.f_type != (__typeof__(sf.f_type))0x858458f6 /* RAMFS_MAGIC */)
			return fd;
		close(fd);
	}
	return -1;
}

/* Maps fd's first `bytes` shared at an address aligned to a huge page (2 MiB),
 * moving the mapping old of old_bytes there when old is not NULL; NULL when
 * it cannot be done (old is then left as it was).
 *
 * Huge pages: the arrays are read and written at random, and each fault is a
 * trap; on the 5 GB benchmark dump's analysis (1.5 GB of arrays against the
 * 512 MiB limit) heapdb-analyze took 3.5 M faults on 4 KiB pages (1.34 M of
 * them counted major though nothing was read from the disk), 107-117 CPU-s
 * of user and 45-51 of system time, 130-148 s, on a VM where a fault costs
 * some 16 us.  With the mapping advised huge (MADV_HUGEPAGE; Linux gives a
 * file 2 MiB folios when its file system takes large folios, ext4 since
 * 6.16) and aligned so that a folio maps whole, a fault brings 2 MiB:
 * 0.11 M faults, 49-56 CPU-s of user and 22 of system time, 64-68 s, the
 * same results (peak 566-633 MiB against 527: the pages come back 2 MiB at
 * a time between two looks of the watcher).  Where no huge folio is made,
 * the mapping works on 4 KiB pages as before.
 *
 * No readahead besides (MADV_RANDOM): a read fault on a released page then
 * maps the pages around it that the page cache holds (fault-around, 16), not
 * a whole large folio beyond the huge one.  A random read of a released
 * 256 MiB array mapped 59 pages a fault without this advice and 14 with it
 * (Linux 6.18, before the huge pages), and the pages that come back between
 * two looks of the watcher are what takes the process past the limit: on the
 * 5 GB benchmark dump hprof2heapdb peaked at 674 MiB without it and 544 MiB
 * with it (158.1 s and 167.6 s, one run each), heapdb-analyze at 582-602 MiB
 * and 523-532 MiB (70-71 s and 78-83 s: more faults, 1.5 times the system
 * time); the 1 GB dump's analysis releases nothing and took the same time
 * (28.0-30.8 s and 27.8-29.0 s, 540 MiB). */
static void *map_aligned(void *old, size_t old_bytes, size_t bytes, int fd)
{
	uint8_t *a = huge_window(bytes);
	if (!a)
		return NULL;
	void *p = old ? mremap(old, old_bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, a)
	              : mmap(a, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED) {
		munmap(a, bytes);
		return NULL;
	}
#ifdef MADV_HUGEPAGE
	madvise(p, bytes, MADV_HUGEPAGE);
#endif
	madvise(p, bytes, MADV_RANDOM);
	return p;
}

/* A mapping of a new temporary file of `bytes` (rounded up to pages); NULL
 * when none can be made. */
static void *map_new(size_t bytes, int *fd_out)
{
	int fd = disk_tmpfd();
	if (fd < 0)
		return NULL;
	if (fallocate(fd, 0, 0, (off_t)bytes) != 0) {
		close(fd);
		return NULL;
	}
	void *p = map_aligned(NULL, 0, bytes, fd);
	if (!p) {
		close(fd);
		return NULL;
	}
	*fd_out = fd;
	return p;
}

static size_t round_page(hf_bigmem *m, size_t bytes)
{
	if (bytes > SIZE_MAX - m->page)
		return 0;
	return (bytes + m->page - 1) / m->page * m->page;
}

/* Adds a mapping to the list (under the lock); false when out of memory. */
static bool add_map(hf_bigmem *m, void *p, size_t bytes, int fd)
{
	if (m->nmaps == m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 16;
		bigmap *nm = realloc(m->maps, nc * sizeof *nm);
		if (!nm)
			return false;
		m->maps = nm;
		m->cap = nc;
	}
	m->maps[m->nmaps++] = (bigmap){ p, bytes, fd };
	return true;
}

static void lock(hf_bigmem *m)
{
	if (m->started)
		pthread_mutex_lock(&m->mu);
}

static void unlock(hf_bigmem *m)
{
	if (m->started)
		pthread_mutex_unlock(&m->mu);
}

void *hf_bigmem_alloc(hf_bigmem *m, size_t bytes)
{
	size_t len = round_page(m, bytes);
	if (!m->limit || bytes < HF_BIGMEM_MIN || !len)
		return malloc(bytes ? bytes : 1);
	int fd;
	void *p = map_new(len, &fd);
	if (!p)
		return malloc(bytes);
	lock(m);
	bool ok = add_map(m, p, len, fd);
	unlock(m);
	if (!ok) {
		munmap(p, len);
		close(fd);
		return NULL;
	}
	return p;
}

void *hf_bigmem_realloc(hf_bigmem *m, void *p, size_t old_bytes, size_t bytes)
{
	if (!p)
		return hf_bigmem_alloc(m, bytes);
	lock(m);
	bigmap *b = m->limit ? find(m, p) : NULL;
	bool mapped = b != NULL;
	if (b) {
		/* The file keeps the contents: grow or shrink it, map it again. */
		size_t len = round_page(m, bytes ? bytes : 1);
		if (len && (len <= b->bytes || fallocate(b->fd, 0, 0, (off_t)len) == 0)) {
			/* Grown, moved to an aligned window (shrunk, it stays where
			 * it is, aligned already). */
			void *np = len > b->bytes ? map_aligned(b->p, b->bytes, len, b->fd) : NULL;
			if (!np)
				np = mremap(b->p, b->bytes, len, MREMAP_MAYMOVE);
			if (np != MAP_FAILED) {
				if (len < b->bytes && ftruncate(b->fd, (off_t)len) != 0) {
					/* the file keeps its tail: harmless */
				}
				b->p = np;
				b->bytes = len;
				unlock(m);
				return np;
			}
		}
	}
	unlock(m);
	if (!mapped && !(m->limit && bytes >= HF_BIGMEM_MIN))
		return realloc(p, bytes ? bytes : 1);
	/* A new array and a copy: a malloc'd one grown past the minimum goes
	 * into a file, a file that cannot grow (no room) into memory. */
	void *np = mapped ? malloc(bytes ? bytes : 1) : hf_bigmem_alloc(m, bytes);
	if (!np)
		return NULL;
	memcpy(np, p, old_bytes < bytes ? old_bytes : bytes);
	hf_bigmem_release(m, p);
	return np;
}

void hf_bigmem_release(hf_bigmem *m, void *p)
{
	if (!p)
		return;
	lock(m);
	bigmap *b = m->limit ? find(m, p) : NULL;
	if (b) {
		munmap(b->p, b->bytes);
		close(b->fd);
		size_t i = (size_t)(b - m->maps);
		m->maps[i] = m->maps[--m->nmaps];
		if (m->hand == i || m->hand > m->nmaps) {
			m->hand = 0;
			m->hand_off = 0;
		}
	}
	unlock(m);
	if (!b)
		free(p);
}

uint64_t hf_bigmem_released(hf_bigmem *m, uint64_t *sweeps)
{
	lock(m);
	uint64_t r = m->released;
	if (sweeps)
		*sweeps = m->sweeps;
	unlock(m);
	return r;
}

void hf_bigmem_test_look(hf_bigmem *m)
{
	lock(m);
	if (m->limit && m->nmaps)
		enforce(m);
	unlock(m);
}

/* The computing thread's own look, when no look (its own or the watcher's)
 * was taken for PACE_NS (above half the limit; else WATCH_NS): near the
 * limit it looks between two of the watcher's, and when the watcher runs
 * late, in its stead.  The watcher alone did not keep up: a loop over
 * arrays released a moment before maps them back a 2 MiB folio a fault,
 * tens of MiB a millisecond, and with both cores busy the watcher sometimes
 * ran only milliseconds later.  On the 5 GB benchmark dump's analysis
 * (heapdb-analyze, limit 512 MiB, two other busy processes on the two
 * cores) the breadth-first search mapped 100-250 MiB between two looks and
 * the process peaked at 598-775 MiB (four runs); with these looks, 564 MiB.  The thread that faults the pages
 * back cannot outrun its own looks.  A look reads /proc/self/statm (about
 * 2 us); otherwise this reads the clock (about 30 ns), so long loops call
 * it every hundred steps or so (analysis.c, an_pace: 128).
 *
 * When the watcher is looking, this waits for it rather than going on: a
 * look that releases takes the lock for a while, and the watcher, one of
 * three busy threads on two cores (hprof2heapdb fills its indexes beside
 * the analysis), can lose its core in the middle.  Going on then, the
 * search mapped its arrays back for 25 ms with no look between, 515 ->
 * 693 MiB (hprof2heapdb of the 5 GB benchmark dump, each look logged with
 * the time; 16,000 of these calls found the lock taken in one run; eight
 * runs peaked at 567-693 MiB in the search, against 548 MiB for the load
 * before the analysis).  Waiting, two runs peaked in the load, 548 MiB. */
void hf_bigmem_pace(hf_bigmem *m)
{
	if (!m->limit || now_ns() < atomic_load_explicit(&m->pace_at, memory_order_relaxed))
		return;
	lock(m);                     /* waits for the watcher's look, if it is looking */
	if (m->nmaps && now_ns() >= atomic_load_explicit(&m->pace_at, memory_order_relaxed))
		enforce(m);
	unlock(m);
}

void hf_bigmem_free(hf_bigmem *m)
{
	if (!m)
		return;
	if (m->started)
		hf_thread_stop(m->thread, &m->mu, &m->cv, &m->stop);
	for (size_t i = 0; i < m->nmaps; i++) {
		munmap(m->maps[i].p, m->maps[i].bytes);
		close(m->maps[i].fd);
	}
	free(m->maps);
	if (m->statm >= 0)
		close(m->statm);
	free(m);
}

#else /* not Linux: malloc */

hf_bigmem *hf_bigmem_new(size_t limit)
{
	(void)limit;
	return calloc(1, sizeof(hf_bigmem));
}

void *hf_bigmem_alloc(hf_bigmem *m, size_t bytes)
{
	(void)m;
	return malloc(bytes ? bytes : 1);
}

void *hf_bigmem_realloc(hf_bigmem *m, void *p, size_t old_bytes, size_t bytes)
{
	(void)m;
	(void)old_bytes;
	return realloc(p, bytes ? bytes : 1);
}

void hf_bigmem_release(hf_bigmem *m, void *p)
{
	(void)m;
	free(p);
}

uint64_t hf_bigmem_released(hf_bigmem *m, uint64_t *sweeps)
{
	(void)m;
	if (sweeps)
		*sweeps = 0;
	return 0;
}

void hf_bigmem_test_look(hf_bigmem *m)
{
	(void)m;
}

void hf_bigmem_pace(hf_bigmem *m)
{
	(void)m;
}

void hf_bigmem_free(hf_bigmem *m)
{
	free(m);
}
#endif

/* ---- arrays on huge pages -------------------------------------------------------
 * The HPROF reader's array cache (a 16 MiB table of sets, a 32 MiB ring) is
 * looked up at random, an entry a page: on 4 KiB pages most looks were a
 * TLB miss as well as a cache miss (the prefetch of a String's set stalled
 * on the page walk: 43 % of emit_instance's samples, 11 % on huge pages).
 * On 2 MiB pages (Debian's default is "madvise": only advised memory gets
 * them) hprof2ndjson of the Android-like benchmark dump took 2.51-2.55 ->
 * 2.33-2.40 CPU-s of user time (medians of two sets of five and six
 * alternated runs, the same output); its time did not move (1.88-1.91 s
 * either way: the formatting thread, writing into the page cache, is as
 * busy).  Where the kernel gives no huge page the mapping works as any
 * other. */

/* Linux: every array of a huge page or more is a mapping of its own (NULL
 * when it cannot be made, as calloc would fail), so that hf_huge_free
 * tells them by the size alone. */
static bool huge_mapped(size_t bytes)
{
#ifdef __linux__
	return bytes >= HUGE_PAGE && bytes <= SIZE_MAX / 2;
#else
	(void)bytes;
	return false;
#endif
}

void *hf_huge_alloc(size_t bytes)
{
	if (!huge_mapped(bytes))
		return calloc(1, bytes ? bytes : 1);
#ifdef __linux__
	/* On a 2 MiB boundary. */
	size_t len = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
	uint8_t *p = huge_window(len);
	if (!p)
		return NULL;
	if (mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
		munmap(p, len);
		return NULL;
	}
#ifdef MADV_HUGEPAGE
	madvise(p, len, MADV_HUGEPAGE);
#endif
	return p;
#else
	return NULL;
#endif
}

void hf_huge_free(void *p, size_t bytes)
{
	if (!p)
		return;
	if (!huge_mapped(bytes)) {
		free(p);
		return;
	}
#ifdef __linux__
	munmap(p, (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE);
#endif
}
