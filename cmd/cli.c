/* Shared command-line plumbing for the heapfmt programs. */
#define _XOPEN_SOURCE 700
#include "cli.h"
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *cli_prog = "heapfmt";

/* SIGINT, SIGTERM, SIGHUP, SIGPIPE: the outputs' temporary files are
 * removed, then the signal ends the program as it would have (the shell sees
 * it killed; SIGPIPE: a reader of standard output or error that went away,
 * as `| head` does, which before left --analysis's temporary database in
 * $TMPDIR).
 * The handler stays in place while it cleans up: a second signal (timeout(1)
 * signals the command, then its process group) may arrive on another thread
 * meanwhile, and must not end the program before the files are gone; it
 * runs the handler there too (unlinking twice is harmless).  Only then is
 * the default action put back and the signal raised, blocked in this thread
 * until the handler returns. */
static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
static void (*volatile fatal_cleanup)(void);

void cli_on_fatal_signal(void (*cleanup)(void))
{
	fatal_cleanup = cleanup;
}

static void on_fatal_signal(int sig)
{
	int e = errno;
	hf_remove_partial_outputs();
	void (*cleanup)(void) = fatal_cleanup;
	if (cleanup)
		cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
	errno = e;
}

static void fatal_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++)
		sigaddset(set, fatal_signals[i]);
}

static void catch_fatal(int sig)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_fatal_signal;
	fatal_set(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static sigset_t held_mask;

void cli_fatal_signals_hold(void)
{
	sigset_t set;
	fatal_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, &held_mask);
}

void cli_fatal_signals_release(void)
{
	pthread_sigmask(SIG_SETMASK, &held_mask, NULL);
}

void cli_child_signals(void)
{
	fatal_cleanup = NULL;
	catch_fatal(SIGTERM);
}

void cli_init(const char *prog)
{
	cli_prog = prog;
	signal(SIGXFSZ, SIG_IGN);
	for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++) {
		struct sigaction old;
		/* One ignored when the program started (a background job of a
		 * script ignores SIGINT) stays ignored. */
		if (sigaction(fatal_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			catch_fatal(fatal_signals[i]);
	}
	/* SOURCE_DATE_EPOCH (hf_crtime_now): a value that is not a number of
	 * seconds is an error, as reproducible-builds.org asks, rather than a
	 * crtime of now that the user meant to fix. */
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	if (sde && *sde) {
		char *end;
		errno = 0;
		long long v = strtoll(sde, &end, 10);
		if (*end || v < 0 || errno == ERANGE) {
			fprintf(stderr, "%s: SOURCE_DATE_EPOCH must be a number of seconds since 1970-01-01 UTC, not '%s'\n",
			        prog, sde);
			exit(EXIT_USAGE);
		}
	}
	/* A standard descriptor that was closed (">&-") gets /dev/null opened
	 * the wrong way round, so that using it still fails (EBADF) and no file
	 * or pipe opened later takes its number. */
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY) < 0)
			break;
}

/* Whether the paths name one directory entry: in with its symbolic links
 * resolved, out with those of its directory (a rename replaces out's own
 * entry).  When a path cannot be resolved, yes. */
static int same_entry(const char *in, const char *out)
{
	char *rin = realpath(in, NULL);
	char *d = strdup(out), *b = strdup(out);
	char *rdir = d ? realpath(dirname(d), NULL) : NULL;
	int same = 1;
	if (rin && rdir && b) {
		/* rin is rdir, a slash (the root's own), then out's last name. */
		size_t n = strcmp(rdir, "/") ? strlen(rdir) : 0;
		same = strncmp(rin, rdir, n) == 0 && rin[n] == '/' && strcmp(rin + n + 1, basename(b)) == 0;
	}
	free(rin);
	free(rdir);
	free(d);
	free(b);
	return same;
}

/* An output is written under a temporary name and renamed over its path
 * (over the file its symbolic links lead to, when it is one), so an output
 * path that leads to the input's own directory entry would replace the dump
 * being converted (a slip of the fingers, a script's variable). */
int cli_refuse_output_over_input(const char *in, const char *out)
{
	struct stat so, si;
	if (!in || !out || !strcmp(out, "-") || stat(out, &so) != 0 || !S_ISREG(so.st_mode))
		return 0;
	if (strcmp(in, "-") ? stat(in, &si) != 0 : fstat(STDIN_FILENO, &si) != 0)
		return 0;
	if (so.st_dev != si.st_dev || so.st_ino != si.st_ino)
		return 0;
	/* The same file: under the same name (or a link to it), or a hard
	 * link, which the rename replaces alone (the input keeps its name and
	 * contents). */
	struct stat sl;
	char *target = lstat(out, &sl) == 0 && S_ISLNK(sl.st_mode) ? realpath(out, NULL) : NULL;
	int same = !strcmp(in, "-") || same_entry(in, target ? target : out);
	free(target);
	if (!same)
		return 0;
	/* One line, no "Try --help": a batch's summary quotes the last. */
	fprintf(stderr, "%s: the output %s is the input%s%s; it would be replaced (name another output)\n",
	        cli_prog, out, strcmp(in, "-") ? " " : "", strcmp(in, "-") ? in : " (standard input)");
	return 1;
}

/* The error of the first flush of standard output that failed. */
static int stdout_errno;

void cli_flush_stdout(void)
{
	errno = 0;
	if (fflush(stdout) != 0 && !stdout_errno)
		stdout_errno = errno ? errno : EIO;
}

bool cli_stdout_gone(void)
{
	return stdout_errno == EPIPE;
}

int cli_exit(int rc)
{
	cli_flush_stdout();
	int e = stdout_errno;
	if (!(e || ferror(stdout)) || e == EPIPE || (rc != EXIT_OK && rc != EXIT_SALVAGED))
		return rc;
	fprintf(stderr, "%s: cannot write standard output%s%s\n", cli_prog, e ? ": " : "",
	        e ? strerror(e) : "");
	return EXIT_IO;
}

const char *cli_signal_name(int sig)
{
	return sig == SIGKILL ? "SIGKILL" : sig == SIGSEGV ? "SIGSEGV" : sig == SIGABRT ? "SIGABRT"
	       : sig == SIGBUS ? "SIGBUS" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

int cli_exit_code(hf_status st)
{
	switch (st) {
	case HF_OK: return EXIT_OK;
	case HF_ERR_FORMAT:
	case HF_ERR_TRUNCATED:
	case HF_ERR_LIMIT:
	case HF_ERR_UNSUPPORTED: return EXIT_BAD_INPUT;
	case HF_ERR_USAGE: return EXIT_USAGE;
	case HF_ERR_NOMEM: return EXIT_NOMEM;
	case HF_ERR_IO: return EXIT_IO;
	}
	return EXIT_IO;
}

/* Out of memory under a limit of the address space (ulimit -v), which the
 * programs' threads and buffers reach long before their resident memory:
 * the line says so. */
static void nomem_limit(const hf_error *err, char *line, size_t size)
{
	struct rlimit rl;
	if (err->status != HF_ERR_NOMEM || getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return;
	size_t n = strlen(line);
	snprintf(line + n, size - n, " (the address space is limited to %llu MiB: ulimit -v)",
	         (unsigned long long)(rl.rlim_cur >> 20));
}

void cli_report(const char *input, const hf_error *err)
{
	char line[600];
	hf_error_format(err, line, 512);
	nomem_limit(err, line, sizeof line);
	if (input && err->has_offset)
		fprintf(stderr, "%s: %s: %s\n", cli_prog, input, line);
	else
		fprintf(stderr, "%s: %s\n", cli_prog, line);
}

/* Whether line names path as a word of its own ("cannot open PATH: ...",
 * "PATH: ..."), not as a piece of another (an input named "dump" in "heap
 * dump"). */
static int names_path(const char *line, const char *path)
{
	size_t n = strlen(path);
	for (const char *p = strstr(line, path); n && p; p = strstr(p + 1, path)) {
		char after = p[n];
		if ((p == line || p[-1] == ' ') && (after == ':' || after == ' ' || after == ',' || !after))
			return 1;
	}
	return 0;
}

void cli_report_about(const char *path, const hf_error *err)
{
	char line[600];
	hf_error_format(err, line, 512);
	nomem_limit(err, line, sizeof line);
	/* An error at an offset is about the input's bytes, whose messages do
	 * not name the file (cli_report names it for them too): a word of the
	 * message may be the file's name ("the file ends after 0" of a dump
	 * named "after", "the input is empty" of one named "empty"). */
	if (!err->has_offset && names_path(line, path))
		fprintf(stderr, "%s: %s\n", cli_prog, line);
	else
		fprintf(stderr, "%s: %s: %s\n", cli_prog, path, line);
}

void cli_salvage_hint(hf_error *err)
{
	static const char hint[] = "; --salvage converts what comes before";
	size_t n = strlen(err->message);
	if (n + sizeof hint <= sizeof err->message)
		memcpy(err->message + n, hint, sizeof hint);
}

void cli_usage_error(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", cli_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", cli_prog);
}

void cli_progress_init(cli_progress *p, int mode)
{
	p->drawn = 0;
	p->mode = mode;
	p->tty = isatty(STDERR_FILENO);
	p->last = -1;
	p->enabled = mode > 0 || (mode == 0 && p->tty);
	p->unit = NULL;
	p->done = p->total = p->size = 0;
	p->shown = 0;
}

/* The indicator's text: "prog: 42% (100 of 238 MB)". */
static void progress_text(const cli_progress *p, char *buf, size_t size)
{
	unsigned long long done = p->done, total = p->total;
	const char *unit = p->unit;
	if (!unit) {
		/* kB below 16 MiB, where MB would read 0 */
		int shift = (p->total ? p->total : p->done) < ((uint64_t)16 << 20) ? 10 : 20;
		unit = shift == 10 ? "kB" : "MB";
		done >>= shift;
		total >>= shift;
	}
	if (!p->total && !p->done)
		snprintf(buf, size, "%s: done", cli_prog);
	else if (p->total)
		snprintf(buf, size, "%s: %3d%% (%llu of %llu %s)", cli_prog,
		         (int)(p->done * 100 / p->total), done, total, unit);
	else
		snprintf(buf, size, "%s: %llu %s read", cli_prog, done, unit);
}

static void progress_line(const cli_progress *p, const char *lead, const char *tail)
{
	char text[256];
	progress_text(p, text, sizeof text);
	fprintf(stderr, "%s%s%s", lead, text, tail);
}

void cli_progress_cb(void *ctx, uint64_t done, uint64_t total)
{
	cli_progress *p = ctx;
	if (!p->enabled)
		return;
	p->done = done;
	p->total = total;
	const char *lead = "\r", *tail = "";
	if (!p->tty) {
		/* A file or a pipe (--progress): whole lines, no terminal codes. */
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		double now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
		if (p->last >= 0 && now - p->last < 1)
			return;
		p->last = now;
		lead = "";
		tail = "\n";
	}
	progress_line(p, lead, tail);
	p->shown = 1;
	p->shown_done = done;
	p->shown_total = total;
	p->drawn = 1;
}

/* The indicator at the end of what was read: the whole input when its
 * size is known (the reader's last call may be 16 MiB before it). */
static void progress_at_end(cli_progress *p)
{
	if (!p->unit && p->size)
		p->done = p->total = p->size;
	else if (p->total)
		p->done = p->total;
}

/* A line that stays while the library works with nothing to count (the
 * indexes, the analysis): on a terminal, a thread redraws it each second
 * with the seconds it has been there, so that a long phase is seen to run.
 * Only that thread writes to stderr until cli_progress_end stops it. */
static struct {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int running, stop;
	char text[512];
	struct timespec t0;
} ticker = { .mu = PTHREAD_MUTEX_INITIALIZER };

static void *tick(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&ticker.mu);
	while (!ticker.stop) {
		struct timespec now, until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += 1;
		if (pthread_cond_timedwait(&ticker.cv, &ticker.mu, &until) == 0 || ticker.stop)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long secs = (long)(now.tv_sec - ticker.t0.tv_sec);
		if (secs >= 60)
			fprintf(stderr, "\r%s (%ld min %02ld s)\033[K", ticker.text, secs / 60, secs % 60);
		else
			fprintf(stderr, "\r%s (%ld s)\033[K", ticker.text, secs);
		fflush(stderr);
	}
	pthread_mutex_unlock(&ticker.mu);
	return NULL;
}

/* The widest status line that still fits the terminal with the seconds
 * after it: a line wider than the terminal wraps, and "\r" goes back only
 * to the start of its last row, so each redraw would leave a row behind.
 * Room is kept for " (59 min 59 s)". */
static size_t status_width(void)
{
	struct winsize ws;
	size_t cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
	return cols > 16 + 8 ? cols - 16 - 1 : 8;
}

void cli_progress_status(cli_progress *p, const char *text)
{
	if (!p->enabled || !p->tty || ticker.running)
		return;
	size_t keep = status_width();
	snprintf(ticker.text, sizeof ticker.text, "%s", text);
	if (strlen(ticker.text) > keep) {
		while (keep && ((unsigned char)ticker.text[keep] & 0xC0) == 0x80)
			keep--; /* not inside a UTF-8 character */
		ticker.text[keep] = 0;
	}
	static int clock_set;
	if (!clock_set) {
		pthread_condattr_t ca;
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&ticker.cv, &ca);
		pthread_condattr_destroy(&ca);
		clock_set = 1;
	}
	fprintf(stderr, "\r%s\033[K", ticker.text);
	p->drawn = 1;
	clock_gettime(CLOCK_MONOTONIC, &ticker.t0);
	ticker.stop = 0;
	/* The signals go to the main thread, whose handler removes the
	 * temporary outputs. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ticker.running = pthread_create(&ticker.thread, NULL, tick, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void ticker_stop(void)
{
	if (!ticker.running)
		return;
	pthread_mutex_lock(&ticker.mu);
	ticker.stop = 1;
	pthread_cond_signal(&ticker.cv);
	pthread_mutex_unlock(&ticker.mu);
	pthread_join(ticker.thread, NULL);
	ticker.running = 0;
}

void cli_progress_end(cli_progress *p, int ok)
{
	ticker_stop();
	if (p->drawn && p->tty)
		fprintf(stderr, "\r\033[K");
	else if (ok && p->enabled && !p->tty) {
		progress_at_end(p);
		if (!p->shown || p->done != p->shown_done || p->total != p->shown_total)
			progress_line(p, "", "\n");
	}
	p->drawn = 0;
}

void cli_progress_phase(cli_progress *p, const char *what)
{
	if (!p->enabled || !p->tty)
		return;
	progress_at_end(p);
	char text[256], line[512];
	progress_text(p, text, sizeof text);
	snprintf(line, sizeof line, "%s; %s", text, what);
	/* Where the line and its seconds do not fit, what runs now is the
	 * part kept: the input has been read. */
	if (strlen(line) > status_width())
		snprintf(line, sizeof line, "%s: %s", cli_prog, what);
	cli_progress_status(p, line);
}

void cli_version(void)
{
	printf("%s (heapfmt) %s\n", cli_prog, HEAPFMT_VERSION);
}

void cli_progress_for(cli_progress *p, uint64_t input_size)
{
	/* Small inputs finish before a bar would help; --progress still shows it. */
	p->size = input_size;
	if (p->enabled && p->mode == 0 && input_size < ((uint64_t)64 << 20))
		p->enabled = 0;
}

const char *cli_input_name(const char *path)
{
	return strcmp(path, "-") ? path : "<stdin>";
}

/* A conversion that met something odd in its input says so where its user
 * looks, not only in the output's metadata: a dump whose fields were not
 * decoded, or a capture with a series left open, is not what it seemed.
 * After the run, not as they come: a failed run's one line is its error. */
void cli_warning_cb(void *ctx, const char *text)
{
	cli_run *r = ctx;
	if (r->nwarning < CLI_WARNINGS_SHOWN)
		snprintf(r->warning[r->nwarning++], sizeof r->warning[0], "%s", text);
}

void cli_warnings_tell(const cli_run *r)
{
	const char *in = cli_input_name(r->in);
	for (unsigned i = 0; i < r->nwarning; i++)
		fprintf(stderr, "%s: %s: warning: %s\n", cli_prog, in, r->warning[i]);
	if (r->warnings <= r->nwarning)
		return;
	if (r->warning_key)
		fprintf(stderr, "%s: %s: warning: %llu warnings in all, %u shown; the output holds the first %llu"
		        " (metadata %s) and their count (%ss)\n", cli_prog, in, (unsigned long long)r->warnings,
		        r->nwarning, (unsigned long long)(r->warnings < HF_WARNINGS_KEPT ? r->warnings : HF_WARNINGS_KEPT),
		        r->warning_key, r->warning_key);
	else
		fprintf(stderr, "%s: %s: warning: %llu warnings in all, %u shown\n", cli_prog, in,
		        (unsigned long long)r->warnings, r->nwarning);
}

int cli_common_option(const char *a, const char *help, int *progress_mode)
{
	if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
		fputs(help, stdout);
		return 2;
	}
	if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
		cli_version();
		return 2;
	}
	if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
		*progress_mode = -1;
	else if (!strcmp(a, "--progress"))
		*progress_mode = 1;
	else
		return 0;
	return 1;
}

const char *cli_opt_value(const char *name, int argc, char **argv, int *i, int *missing)
{
	const char *a = argv[*i];
	size_t n = strlen(name);
	if (strncmp(a, name, n) || (a[n] && a[n] != '='))
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (*i + 1 < argc)
		return argv[++*i];
	*missing = 1;
	return "";
}

int cli_split_short_group(int *argc, char ***argv, int i, const char *noarg, const char *witharg)
{
	static char **owned; /* the copy made last (reachable, for the leak checker) */
	const char *a = (*argv)[i];
	size_t len = strlen(a);
	if (len < 3 || a[0] != '-' || a[1] == '-')
		return 0;
	/* Check the whole group first: nothing changes for an unknown letter. */
	size_t pieces = 0;
	for (size_t k = 1; k < len; k++) {
		if (strchr(witharg, a[k])) {
			pieces += k + 1 < len ? 2 : 1;
			break;
		}
		if (!strchr(noarg, a[k]))
			return 0;
		pieces++;
	}
	char **nv = calloc((size_t)*argc + pieces + 1, sizeof *nv);
	char *text = malloc(3 * pieces + len + 1);
	if (!nv || !text) {
		free(nv);
		free(text);
		return 0;
	}
	int n = 0;
	for (int k = 0; k < i; k++)
		nv[n++] = (*argv)[k];
	char *t = text;
	for (size_t k = 1; k < len; k++) {
		t[0] = '-';
		t[1] = a[k];
		t[2] = 0;
		nv[n++] = t;
		t += 3;
		if (strchr(witharg, a[k])) {
			if (k + 1 < len) {
				memcpy(t, a + k + 1, len - k);
				nv[n++] = t;
			}
			break;
		}
	}
	for (int k = i + 1; k < *argc; k++)
		nv[n++] = (*argv)[k];
	nv[n] = NULL;
	/* The strings of an earlier copy stay in use; only its array goes. */
	if (owned)
		free(owned);
	owned = nv;
	*argv = nv;
	*argc = n;
	return 1;
}

hf_status cli_run_open_input(cli_run *r, hf_input **in, hf_error *err)
{
	hf_status st = hf_input_open(in, r->in, err);
	if (!st)
		cli_progress_for(r->progress, hf_input_raw_size(*in));
	return st;
}

void cli_json_string(FILE *fp, const char *s)
{
	/* A path is bytes: each byte that is not UTF-8 becomes U+FFFD, so that
	 * the line stays JSON. */
	size_t len = strlen(s);
	char *text = malloc(HF_MUTF8_OUT_MAX(len));
	if (text)
		len = hf_mutf8_decode((const uint8_t *)s, len, text);
	const unsigned char *p = (const unsigned char *)(text ? text : s);
	fputc('"', fp);
	for (size_t i = 0; i < len; i++) {
		if (p[i] == '"' || p[i] == '\\')
			fprintf(fp, "\\%c", p[i]);
		else if (p[i] == '\n')
			fputs("\\n", fp);
		else if (p[i] < 0x20 || (!text && p[i] >= 0x80))
			fprintf(fp, "\\u%04x", p[i] < 0x20 ? p[i] : 0xFFFD);
		else
			fputc(p[i], fp);
	}
	fputc('"', fp);
	free(text);
}

size_t cli_analysis_memory(const char *v, int missing)
{
	char *end = NULL;
	errno = 0;
	unsigned long long mib = missing ? 0 : strtoull(v, &end, 10);
	if (missing || !*v || *end || *v == '-' || errno == ERANGE || mib > (unsigned long long)(SIZE_MAX >> 20)) {
		cli_usage_error("--analysis-memory takes a number of MiB (0: no limit)");
		return 0;
	}
	return mib ? (size_t)mib << 20 : SIZE_MAX;
}
