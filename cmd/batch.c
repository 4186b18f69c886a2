/* Batch conversion: see batch.h.  Each file is converted in a child process
 * of its own (fork), so that files proceed in parallel with nothing shared,
 * a failure of one cannot disturb the others, and each child's stderr can be
 * collected and passed on in input order. */
#define _POSIX_C_SOURCE 200809L
#include "batch.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int parse_jobs(const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < 1 || v > 1024)
		return 0;
	*out = (int)v;
	return 1;
}

int batch_parse_option(batch_opts *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	const char *val = NULL;
	int which;
	if (!strcmp(a, "-o") || !strcmp(a, "--output-dir"))
		which = 'o';
	else if (!strncmp(a, "--output-dir=", 13))
		which = 'o', val = a + 13;
	else if (!strcmp(a, "-j") || !strcmp(a, "--jobs"))
		which = 'j';
	else if (!strncmp(a, "--jobs=", 7))
		which = 'j', val = a + 7;
	else if (!strncmp(a, "-j", 2) && a[2] >= '0' && a[2] <= '9')
		which = 'j', val = a + 2;
	else if (!strcmp(a, "--stats"))
		which = 's';
	else if (!strncmp(a, "--stats=", 8))
		which = 's', val = a + 8;
	else
		return 0;
	if (!val) {
		if (*i + 1 >= argc) {
			cli_usage_error("%s needs a value", a);
			return -1;
		}
		val = argv[++*i];
	}
	if (which != 'o')
		o->batch_only = which == 'j' ? "-j" : "--stats";
	switch (which) {
	case 'o':
		if (!*val) {
			cli_usage_error("-o needs a directory");
			return -1;
		}
		o->outdir = val;
		break;
	case 'j':
		if (!parse_jobs(val, &o->jobs)) {
			cli_usage_error("-j takes a number of jobs from 1 to 1024, not '%s'", val);
			return -1;
		}
		break;
	default:
		if (!strcmp(val, "json"))
			o->stats_json = 1;
		else if (!strcmp(val, "text"))
			o->stats_json = 0;
		else {
			cli_usage_error("--stats takes json or text, not '%s'", val);
			return -1;
		}
	}
	return 1;
}

/* ---- output names ------------------------------------------------------------- */

static int ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n > k && !strcmp(s + n - k, suffix);
}

static char *output_name(const batch_spec *spec, const char *dir, const char *in)
{
	const char *base = strrchr(in, '/');
	base = base ? base + 1 : in;
	size_t n = strlen(base);
	if (ends_with(base, n, ".gz"))
		n -= 3;
	char *stem = strndup(base, n);
	if (!stem)
		return NULL;
	for (const char *const *e = spec->in_exts; e && *e; e++)
		if (ends_with(stem, n, *e)) {
			stem[n - strlen(*e)] = 0;
			break;
		}
	size_t len = strlen(dir) + strlen(stem) + strlen(spec->out_ext) + 2;
	char *out = malloc(len);
	if (out)
		snprintf(out, len, "%s%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", stem,
		         spec->out_ext);
	free(stem);
	return out;
}

/* ---- jobs ---------------------------------------------------------------------- */

typedef struct job {
	const char *in;
	char *out;
	pid_t pid;
	int errfd, resfd;
	char *text;          /* what the child wrote on stderr */
	size_t len, cap;
	uint64_t records;
	double t0, secs;
	int state;           /* 0 waiting, 1 running, 2 done */
	int code;
	char why[96];        /* how a child ended other than by exit() */
	int removed;         /* temporary outputs of a killed child removed */
	int stopping;        /* signalled by stop_children */
} job;

/* What a child tells its parent on the result pipe: 'T', a 2-byte length
 * and the name of each temporary output it creates (hf_on_temp_output),
 * then 'R' and its record count, 8 bytes.  A child killed by SIGKILL (the
 * kernel's OOM killer, kill -9) cannot remove its temporary output; the
 * parent, told its name, does.  The parent reads the pipe only once the
 * child has ended, so everything a child writes fits in the least a pipe
 * holds (one page: a user past pipe-user-pages-soft gets no more), the
 * count last: names past that budget go untold.  Each message is one write
 * of at most PIPE_BUF bytes, whole whatever thread sends it. */
#define RESULT_BUDGET 4096
#define RESULT_MSG 9
static int child_resfd = -1;
static atomic_size_t child_told;

static void tell_temp(const char *path, void *ctx)
{
	(void)ctx;
	size_t n = strlen(path);
	if (n > RESULT_BUDGET - RESULT_MSG - 3 ||
	    atomic_fetch_add(&child_told, 3 + n) + 3 + n > RESULT_BUDGET - RESULT_MSG)
		return;
	char msg[RESULT_BUDGET];
	msg[0] = 'T';
	msg[1] = (char)(n >> 8);
	msg[2] = (char)(n & 0xff);
	memcpy(msg + 3, path, n);
	ssize_t w = write(child_resfd, msg, 3 + n);
	(void)w;
}

/* mkdir -p: DIR and the directories above it that are missing. */
static int make_dirs(const char *dir)
{
	if (mkdir(dir, 0777) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return -1;
	char *p = strdup(dir);
	if (!p)
		return -1;
	int rc = 0;
	for (char *s = p + 1; *s && !rc; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			rc = -1;
		*s = '/';
	}
	if (!rc && mkdir(p, 0777) != 0 && errno != EEXIST)
		rc = -1;
	int e = errno;
	free(p);
	errno = e;
	return rc;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void append(job *j, const char *p, size_t n)
{
	if (j->len + n + 1 > j->cap) {
		size_t nc = (j->len + n + 1) * 2;
		char *t = realloc(j->text, nc);
		if (!t)
			return; /* lose the text rather than the batch */
		j->text = t;
		j->cap = nc;
	}
	memcpy(j->text + j->len, p, n);
	j->len += n;
	j->text[j->len] = 0;
}

static void start(const batch_spec *spec, job *j, job *all, int n)
{
	int ep[2], rp[2];
	j->t0 = now();
	j->state = 1;
	if (pipe(ep) != 0) {
		j->state = 2;
		j->code = EXIT_IO;
		snprintf(j->why, sizeof j->why, "cannot start: %s", strerror(errno));
		return;
	}
	if (pipe(rp) != 0) {
		close(ep[0]);
		close(ep[1]);
		j->state = 2;
		j->code = EXIT_IO;
		snprintf(j->why, sizeof j->why, "cannot start: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	fflush(stderr);
	/* No stopping signal between the fork and the notes of the pid and the
	 * pipes (the handler would not know the child, or would read a pipe
	 * whose writing end is still open here), nor in the child before it has
	 * its own. */
	cli_fatal_signals_hold();
	pid_t pid = fork();
	if (pid < 0) {
		cli_fatal_signals_release();
		close(ep[0]);
		close(ep[1]);
		close(rp[0]);
		close(rp[1]);
		j->state = 2;
		j->code = EXIT_NOMEM;
		snprintf(j->why, sizeof j->why, "cannot start: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		/* The child: its stdout and stderr go to the parent, which passes
		 * them on in input order.  A signal ends it alone. */
		cli_child_signals();
		cli_fatal_signals_release();
		for (int k = 0; k < n; k++)
			if (all[k].state == 1 && &all[k] != j) {
				close(all[k].errfd);
				close(all[k].resfd);
			}
		close(ep[0]);
		close(rp[0]);
		dup2(ep[1], STDERR_FILENO);
		dup2(ep[1], STDOUT_FILENO);
		close(ep[1]);
		child_resfd = rp[1];
		hf_on_temp_output(tell_temp, NULL);
		uint64_t records = 0;
		int code = spec->convert(spec->ctx, j->in, j->out, &records);
		fflush(stdout);
		fflush(stderr);
		char msg[9];
		msg[0] = 'R';
		memcpy(msg + 1, &records, sizeof records);
		ssize_t w = write(rp[1], msg, sizeof msg);
		(void)w;
		_exit(code);
	}
	/* The pipes' ends noted before the signals come again: stop_children
	 * reads the result pipe of a child it stopped, to its end. */
	j->pid = pid;
	close(ep[1]);
	close(rp[1]);
	j->errfd = ep[0];
	j->resfd = rp[0];
	cli_fatal_signals_release();
}

/* The child's messages (tell_temp): whether it sent its record count (a
 * child that returns from its conversion always does).  When it did not, or
 * was killed, the temporary outputs it named are removed. */
static int read_result(job *j, int killed)
{
	static char buf[RESULT_BUDGET];
	size_t len = 0;
	for (;;) {
		ssize_t r = read(j->resfd, buf + len, sizeof buf - len);
		if (r > 0 && (len += (size_t)r) < sizeof buf)
			continue;
		if (r < 0 && errno == EINTR)
			continue;
		break;
	}
	close(j->resfd);
	int got = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < len;) {
			if (buf[i] == 'R' && len - i >= RESULT_MSG) {
				memcpy(&j->records, buf + i + 1, sizeof j->records);
				got = 1;
				i += RESULT_MSG;
			} else if (buf[i] == 'T' && len - i >= 3) {
				size_t n = (size_t)(unsigned char)buf[i + 1] << 8 | (unsigned char)buf[i + 2];
				if (len - i - 3 < n)
					break;
				/* Renamed into place, the name no longer exists. */
				if (pass && (killed || !got)) {
					char name[RESULT_BUDGET];
					memcpy(name, buf + i + 3, n);
					name[n] = 0;
					if (unlink(name) == 0)
						j->removed++;
				}
				i += 3 + n;
			} else {
				break;
			}
		}
	}
	return got;
}

/* The jobs, for the handler of SIGINT, SIGTERM and SIGHUP (cli_init): a
 * batch that is stopped (Ctrl-C, a CI job's timeout, which signals only the
 * batch's own process) stops its running conversions, each of which then
 * removes its temporary output, rather than leave them running on. */
static job *volatile batch_jobs;
static volatile int batch_njobs;

/* Sends sig to the running conversions (marked stopping) that have not
 * ended yet; how many it reached. */
static int signal_children(job *jobs, int n, int sig)
{
	int left = 0;
	for (int i = 0; jobs && i < n; i++)
		if (jobs[i].state == 1 && jobs[i].pid > 0 && kill(jobs[i].pid, sig) == 0) {
			jobs[i].stopping = 1;
			left++;
		}
	return left;
}

/* Waits up to tries x 50 ms for the stopping conversions to end; how many
 * have not. */
static int wait_children(job *jobs, int n, int left, int tries)
{
	for (; left && tries > 0; tries--) {
		left = 0;
		for (int i = 0; i < n; i++) {
			if (jobs[i].state != 1 || jobs[i].pid <= 0)
				continue;
			pid_t w = waitpid(jobs[i].pid, NULL, WNOHANG);
			if (w == 0)
				left++;
			else
				jobs[i].pid = 0; /* ended (or not ours to wait for) */
		}
		if (left) {
			struct timespec ts = { 0, 50 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
	}
	return left;
}

/* Only async-signal-safe calls (kill, waitpid, nanosleep, and read_result's
 * read, unlink and close): it runs in the handler. */
static void stop_children(void)
{
	job *jobs = batch_jobs;
	int n = batch_njobs;
	/* SIGTERM, then a few seconds, so that when the batch is seen to end,
	 * its conversions have ended and removed their files. */
	int left = wait_children(jobs, n, signal_children(jobs, n, SIGTERM), 100);
	/* One still running (stopped by SIGSTOP, or in a wait no signal ends)
	 * is killed, as the OOM killer would. */
	if (left)
		wait_children(jobs, n, signal_children(jobs, n, SIGKILL), 40);
	/* And the temporary outputs that the conversions told of removed: one
	 * killed could not; one that ended on SIGTERM did, and the names no
	 * longer exist.  (read_result's buffer is the reaping's too; the
	 * process ends after this handler.) */
	for (int i = 0; jobs && i < n; i++)
		if (jobs[i].state == 1 && jobs[i].stopping && jobs[i].pid == 0)
			read_result(&jobs[i], 1);
}

/* The child closed its stderr: collect its result and its exit status. */
static void reap(job *j)
{
	close(j->errfd);
	int status = 0;
	/* Reaped and marked at once: the handler must not signal a pid that
	 * may already be another process's. */
	cli_fatal_signals_hold();
	while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
		;
	j->state = 2;
	cli_fatal_signals_release();
	j->secs = now() - j->t0;
	int killed = !WIFEXITED(status);
	int got = read_result(j, killed);
	if (!killed) {
		j->code = WEXITSTATUS(status);
		if (!got && j->code == 0) {
			j->code = EXIT_IO;
			snprintf(j->why, sizeof j->why, "the conversion ended without a result%s",
			         j->removed ? "; its temporary output removed" : "");
		}
	} else {
		j->code = EXIT_IO;
		int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
		snprintf(j->why, sizeof j->why, "killed by signal %d (%s)%s", sig, cli_signal_name(sig),
		         j->removed ? "; its temporary output removed" : "");
	}
}

static const char *status_word(int code)
{
	return code == EXIT_OK ? "ok" : code == EXIT_SALVAGED ? "salvaged" : "failed";
}

/* The last line of what the child wrote, without the program-name prefix. */
static void last_line(const job *j, char *buf, size_t size)
{
	buf[0] = 0;
	if (j->why[0]) {
		snprintf(buf, size, "%s", j->why);
		return;
	}
	if (!j->len)
		return;
	size_t end = j->len;
	while (end && j->text[end - 1] == '\n')
		end--;
	size_t b = end;
	while (b && j->text[b - 1] != '\n')
		b--;
	const char *s = j->text + b;
	size_t n = end - b;
	size_t pl = strlen(cli_prog);
	if (n > pl + 2 && !strncmp(s, cli_prog, pl) && s[pl] == ':' && s[pl + 1] == ' ') {
		s += pl + 2;
		n -= pl + 2;
	}
	snprintf(buf, size, "%.*s", (int)n, s);
}

static void report(const batch_opts *o, const job *j)
{
	if (j->len) {
		fwrite(j->text, 1, j->len, stderr);
		if (j->text[j->len - 1] != '\n')
			fputc('\n', stderr);
	}
	if (j->why[0])
		fprintf(stderr, "%s: %s: %s\n", cli_prog, j->in, j->why);
	fflush(stderr);
	if (o->stats_json) {
		fputs("{\"input\":", stdout);
		cli_json_string(stdout, j->in);
		fputs(",\"output\":", stdout);
		cli_json_string(stdout, j->out ? j->out : "");
		printf(",\"status\":\"%s\",\"exit\":%d,\"records\":%llu,\"seconds\":%.3f",
		       status_word(j->code), j->code, (unsigned long long)j->records, j->secs);
		if (j->code != EXIT_OK) {
			char line[600];
			last_line(j, line, sizeof line);
			fputs(",\"error\":", stdout);
			cli_json_string(stdout, line);
		}
		fputs("}\n", stdout);
	} else if (j->code == EXIT_OK) {
		printf("%s: ok, %llu records, %.2f s -> %s\n", j->in, (unsigned long long)j->records,
		       j->secs, j->out);
	} else {
		printf("%s: %s (exit %d), %llu records, %.2f s%s%s\n", j->in, status_word(j->code),
		       j->code, (unsigned long long)j->records, j->secs,
		       j->code == EXIT_SALVAGED ? " -> " : "", j->code == EXIT_SALVAGED ? j->out : "");
	}
	cli_flush_stdout();
}

/* The reader of standard output went away (a report's write failed with
 * EPIPE): the batch ends as a single conversion does, killed by SIGPIPE
 * through the handler cli_init put in place, which stops the conversions
 * still running (stop_children) and removes their temporary files.  Not
 * when SIGPIPE was ignored before the batch began: then the reports are
 * lost and the conversions go on, as a single one's would. */
static void sigpipe_if_gone(const struct sigaction *pipe_was)
{
	if (!cli_stdout_gone() || pipe_was->sa_handler == SIG_IGN)
		return;
	sigaction(SIGPIPE, pipe_was, NULL);
	raise(SIGPIPE);
}

int batch_run(const batch_spec *spec, const batch_opts *o, char *const *inputs, int n)
{
	if (n < 1) {
		cli_usage_error("-o needs at least one input");
		return EXIT_USAGE;
	}
	for (int i = 0; i < n; i++)
		if (!strcmp(inputs[i], "-")) {
			cli_usage_error("standard input cannot be one of a batch's inputs");
			return EXIT_USAGE;
		}
	/* "-o out.db" read as "write to out.db" (as with cc and most tools)
	 * would make a directory out.db holding IN's output, and sqlite3
	 * out.db would then fail far from the cause.  A DIR that does not
	 * exist yet and is named like an output is taken for that mistake; an
	 * existing directory of that name is used as it is. */
	struct stat ob;
	size_t olen = strlen(o->outdir);
	if (stat(o->outdir, &ob) != 0 && errno == ENOENT && ends_with(o->outdir, olen, spec->out_ext)) {
		cli_usage_error("-o takes the directory of a batch's outputs, and %s looks like a file's"
		                " name: to convert one input to it, give it after the input"
		                " (%s IN %s), or make the directory first",
		                o->outdir, cli_prog, o->outdir);
		return EXIT_USAGE;
	}
	/* Children are waited for: a SIGCHLD ignored by whoever started the
	 * batch (some supervisors do) would make the kernel reap them, and
	 * their exit statuses would be lost. */
	signal(SIGCHLD, SIG_DFL);
	job *jobs = calloc((size_t)n, sizeof *jobs);
	struct pollfd *pfd = calloc((size_t)n, sizeof *pfd);
	int *which = calloc((size_t)n, sizeof *which);
	if (!jobs || !pfd || !which) {
		free(jobs);
		free(pfd);
		free(which);
		fprintf(stderr, "%s: out of memory\n", cli_prog);
		return EXIT_NOMEM;
	}
	int rc = EXIT_OK;
	for (int i = 0; i < n && rc == EXIT_OK; i++) {
		jobs[i].in = inputs[i];
		if (!(jobs[i].out = output_name(spec, o->outdir, inputs[i]))) {
			fprintf(stderr, "%s: out of memory\n", cli_prog);
			rc = EXIT_NOMEM;
		}
		for (int k = 0; k < i && rc == EXIT_OK; k++)
			if (!strcmp(jobs[k].out, jobs[i].out)) {
				cli_usage_error("%s and %s would both be written to %s", jobs[k].in, jobs[i].in,
				                jobs[i].out);
				rc = EXIT_USAGE;
			}
	}
	/* An output that is one of the inputs (an existing file): that input
	 * would be replaced, before or while it is converted (the inodes, as
	 * cli_refuse_output_over_input compares them, each file stat'ed once). */
	struct stat *ins = rc == EXIT_OK ? calloc((size_t)n, sizeof *ins) : NULL;
	for (int i = 0; ins && i < n; i++)
		if (stat(inputs[i], &ins[i]) != 0)
			memset(&ins[i], 0, sizeof ins[i]);
	for (int i = 0; ins && i < n && rc == EXIT_OK; i++) {
		struct stat so;
		if (lstat(jobs[i].out, &so) != 0 || !S_ISREG(so.st_mode))
			continue;
		for (int k = 0; k < n && rc == EXIT_OK; k++)
			if (ins[k].st_ino == so.st_ino && ins[k].st_dev == so.st_dev &&
			    cli_refuse_output_over_input(inputs[k], jobs[i].out))
				rc = EXIT_USAGE;
	}
	if (rc == EXIT_OK && !ins) {
		fprintf(stderr, "%s: out of memory\n", cli_prog);
		rc = EXIT_NOMEM;
	}
	free(ins);
	/* DIR is made once the batch is known to be sound: a refused one
	 * leaves no new directory. */
	struct stat sb;
	if (rc == EXIT_OK && make_dirs(o->outdir) != 0) {
		fprintf(stderr, "%s: cannot create %s: %s\n", cli_prog, o->outdir, strerror(errno));
		rc = EXIT_IO;
	} else if (rc == EXIT_OK && (stat(o->outdir, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
		fprintf(stderr, "%s: %s is not a directory\n", cli_prog, o->outdir);
		rc = EXIT_IO;
	}
	if (rc != EXIT_OK) {
		for (int i = 0; i < n; i++)
			free(jobs[i].out);
		free(jobs);
		free(pfd);
		free(which);
		return rc;
	}
	int max = o->jobs;
	if (max <= 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		max = c > 0 ? (int)c : 1;
	}
	/* A child that dies must not take the batch with it through SIGPIPE.
	 * The reader of the summaries that goes away still ends it, after a
	 * report finds it gone (sigpipe_if_gone). */
	struct sigaction ign, pipe_was;
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &pipe_was);
	batch_jobs = jobs;
	batch_njobs = n;
	cli_on_fatal_signal(stop_children);
	double t0 = now();
	int next = 0, printed = 0, running = 0;
	int nok = 0, nfail = 0, nsalv = 0, first_fail = 0;
	uint64_t total = 0;
	while (printed < n) {
		while (running < max && next < n) {
			start(spec, &jobs[next], jobs, n);
			if (jobs[next].state == 1)
				running++;
			next++;
		}
		int k = 0;
		for (int i = 0; i < next; i++)
			if (jobs[i].state == 1) {
				pfd[k].fd = jobs[i].errfd;
				pfd[k].events = POLLIN;
				pfd[k].revents = 0;
				which[k++] = i;
			}
		if (k && poll(pfd, (nfds_t)k, -1) < 0 && errno != EINTR)
			break;
		for (int x = 0; x < k; x++) {
			if (!pfd[x].revents)
				continue;
			job *j = &jobs[which[x]];
			char buf[4096];
			ssize_t r = read(j->errfd, buf, sizeof buf);
			if (r > 0) {
				append(j, buf, (size_t)r);
			} else if (r == 0 || errno != EINTR) {
				reap(j);
				running--;
			}
		}
		while (printed < n && jobs[printed].state == 2) {
			job *j = &jobs[printed++];
			report(o, j);
			sigpipe_if_gone(&pipe_was);
			total += j->records;
			if (j->code == EXIT_OK)
				nok++;
			else if (j->code == EXIT_SALVAGED)
				nsalv++;
			else {
				nfail++;
				if (!first_fail)
					first_fail = j->code;
			}
		}
	}
	rc = first_fail ? first_fail : nsalv ? EXIT_SALVAGED : EXIT_OK;
	double secs = now() - t0;
	if (o->stats_json)
		printf("{\"total\":true,\"files\":%d,\"ok\":%d,\"failed\":%d,\"salvaged\":%d,"
		       "\"records\":%llu,\"seconds\":%.3f,\"exit\":%d}\n",
		       n, nok, nfail, nsalv, (unsigned long long)total, secs, rc);
	else
		printf("%d file%s: %d ok, %d failed, %d salvaged; %llu records, %.2f s\n", n,
		       n == 1 ? "" : "s", nok, nfail, nsalv, (unsigned long long)total, secs);
	cli_flush_stdout();
	sigpipe_if_gone(&pipe_was);
	sigaction(SIGPIPE, &pipe_was, NULL);
	cli_on_fatal_signal(NULL);
	batch_jobs = NULL;
	for (int i = 0; i < n; i++) {
		free(jobs[i].out);
		free(jobs[i].text);
	}
	free(jobs);
	free(pfd);
	free(which);
	return rc;
}
