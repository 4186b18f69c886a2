/* heapdb-analyze: the analysis of an existing heap database (reachability,
 * distance from the GC roots, dominators, retained sizes). */
#define _XOPEN_SOURCE 700 /* sigaction, waitid, kill */
#include "cli.h"
#include "heapfmt/analysis.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

static const char help[] =
	"Usage: heapdb-analyze [OPTION]... DB\n"
	"Analyse a heap database written by hprof2heapdb (with --no-analysis, or by an\n"
	"older heapfmt): for every object, whether it is reachable from the GC roots,\n"
	"its distance from the nearest root, its immediate dominator and its retained\n"
	"size, in the tables node_analysis and dump_analysis (see schema/README.md).\n"
	"An earlier analysis in DB is replaced; on failure DB is left as it was.\n"
	"\n"
	"      --no-index         do not index node_analysis\n"
	CLI_ANALYSIS_MEMORY_HELP
	"      --stats            print what was found, one key=value a line, on stdout\n"
	CLI_COMMON_HELP
	"\n"
	"Examples:\n"
	"  hprof2heapdb --no-analysis dump.hprof out.db && heapdb-analyze out.db\n"
	"  sqlite3 -header -column out.db < schema/queries/top_retained.sql\n"
	"\n"
	"Exit status: 0 success, 1 DB is not a heap database of an HPROF dump,\n"
	"2 usage error, 3 I/O error, 4 out of memory.\n"
	"See heapdb-analyze(1).\n";

static int analyse(const char *path, const hf_analysis_options *opt, int stats_out, int progress_mode);

/*
 * The analysis writes DB in place, in one transaction: a process killed in
 * the middle of it (Ctrl-C, a CI job's timeout, the kernel's OOM killer)
 * leaves the transaction's rollback journal beside DB, and DB unreadable by
 * the programs that open it read-only until something opens it for writing.
 * So the analysis runs in a child process, and this one, which only waits,
 * rolls the journal back when the child ends by a signal (SQLite's own
 * recovery, on opening DB), then ends as the signal it got would have ended
 * it, or says what killed the child.  Signals that end this process are
 * passed on to the child (Ctrl-C reaches both anyway); SIGKILL cannot be
 * caught, and the child, which then gets SIGKILL too, leaves the journal for
 * the next program that opens DB for writing (heapdb-analyze DB again).
 */
static volatile sig_atomic_t got_signal;
static volatile pid_t analyst;

static void pass_on(int sig)
{
	got_signal = sig;
	if (analyst > 0)
		kill(analyst, sig);
}

static int analyse_apart(const char *path, const hf_analysis_options *opt, int stats_out,
                         int progress_mode)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	/* Its end is waited for: a SIGCHLD ignored by whoever started this
	 * program (some supervisors do) would make the kernel reap it, and
	 * its exit status would be lost. */
	signal(SIGCHLD, SIG_DFL);
	fflush(NULL);
	cli_fatal_signals_hold();
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		cli_fatal_signals_release();
		/* No process to be had: the analysis runs here, unguarded. */
		return analyse(path, opt, stats_out, progress_mode);
	}
	if (pid == 0) {
#ifdef __linux__
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(EXIT_IO);
#endif
		cli_fatal_signals_release();
		exit(cli_exit(analyse(path, opt, stats_out, progress_mode)));
	}
	analyst = pid;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = pass_on;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
		struct sigaction old;
		/* A signal ignored when the program started stays ignored. */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
	cli_fatal_signals_release();
	/* Waited for without reaping it, then reaped with the signals held:
	 * the handler must not signal a pid that may already be another
	 * process's. */
	siginfo_t si;
	for (;;) {
		memset(&si, 0, sizeof si);
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) == 0)
			break;
		if (errno != EINTR) {
			fprintf(stderr, "%s: cannot wait for the analysis: %s\n", cli_prog, strerror(errno));
			return EXIT_IO;
		}
	}
	cli_fatal_signals_hold();
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	analyst = 0;
	cli_fatal_signals_release();
	if (WIFEXITED(status) && !got_signal)
		return WEXITSTATUS(status);
	/* Killed, or this process was stopped (the child passed it on, or
	 * ended first): what the child had not committed is rolled back,
	 * whatever ended it (after a commit there is nothing to roll back). */
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	hf_error err;
	hf_status st = hf_heapdb_recover(path, &err);
	if (isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr); /* the child's status line, cut */
	if (st)
		cli_report_about(path, &err);
	int end = got_signal ? got_signal : sig == SIGPIPE ? SIGPIPE : 0;
	if (end) {
		/* Ended as it would have been without the child. */
		signal(end, SIG_DFL);
		raise(end);
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (!st)
		fprintf(stderr, "%s: %s: the analysis was killed by signal %d (%s); what it had not committed"
		        " was rolled back\n", cli_prog, path, sig, cli_signal_name(sig));
	return EXIT_IO;
}

static int run(int argc, char **argv)
{
	hf_analysis_options opt;
	hf_analysis_options_init(&opt);
	const char *path = NULL;
	int stats_out = 0, only_args = 0, missing = 0, progress_mode = 0, c;
	const char *v;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (only_args || a[0] != '-' || !strcmp(a, "-")) {
			if (path) {
				cli_usage_error("too many arguments");
				return EXIT_USAGE;
			}
			path = a;
		} else if (!strcmp(a, "--")) {
			only_args = 1;
		} else if ((c = cli_common_option(a, help, &progress_mode)) != 0) {
			if (c == 2)
				return EXIT_OK;
		} else if (!strcmp(a, "--no-index")) {
			opt.no_index = 1;
		} else if (!strcmp(a, "--stats")) {
			stats_out = 1;
		} else if ((v = cli_opt_value("--analysis-memory", argc, argv, &i, &missing))) {
			if (!(opt.memory_limit = cli_analysis_memory(v, missing)))
				return EXIT_USAGE;
		} else if (cli_split_short_group(&argc, &argv, i, "hVq", "")) {
			i--;
		} else {
			cli_usage_error("unknown option '%s'", a);
			return EXIT_USAGE;
		}
	}
	if (!path) {
		cli_usage_error("needs a heap database");
		return EXIT_USAGE;
	}
	if (!path[0]) {
		cli_usage_error("an empty file name");
		return EXIT_USAGE;
	}
	if (!strcmp(path, "-")) {
		cli_usage_error("a database cannot be read from standard input; name the file");
		return EXIT_USAGE;
	}
	return analyse_apart(path, &opt, stats_out, progress_mode);
}

static int analyse(const char *path, const hf_analysis_options *opt, int stats_out, int progress_mode)
{
	hf_analysis_stats s;
	hf_error err;
	/* Its phases are not counted: on a terminal, a line says what runs,
	 * with the seconds it has run (erased at the end); --progress in a log,
	 * the end's line. */
	cli_progress pr;
	cli_progress_init(&pr, progress_mode);
	struct stat sb;
	cli_progress_for(&pr, stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0);
	pr.size = 0; /* nothing is counted in bytes: the end's line says "done" */
	char line[512];
	snprintf(line, sizeof line, "%s: analysing %s", cli_prog, path);
	cli_progress_status(&pr, line);
	hf_status st = hf_heapdb_analyze(path, opt, &s, &err);
	cli_progress_end(&pr, st == HF_OK);
	if (st) {
		cli_report_about(path, &err);
		return cli_exit_code(st);
	}
	if (stats_out)
		printf("dumps=%llu\nnodes=%llu\nroots=%llu\nmissing_roots=%llu\nedges=%llu\n"
		       "class_edges=%llu\nreferent_edges=%llu\ndangling_edges=%llu\nreachable=%llu\n"
		       "weakly_reachable=%llu\nunreachable=%llu\nreachable_bytes=%llu\n"
		       "max_distance=%llu\npeak_memory=%llu\n",
		       (unsigned long long)s.dumps, (unsigned long long)s.nodes,
		       (unsigned long long)s.roots, (unsigned long long)s.missing_roots,
		       (unsigned long long)s.edges, (unsigned long long)s.class_edges,
		       (unsigned long long)s.referent_edges, (unsigned long long)s.dangling_edges,
		       (unsigned long long)s.reachable, (unsigned long long)s.weakly_reachable,
		       (unsigned long long)s.unreachable, (unsigned long long)s.reachable_bytes,
		       (unsigned long long)s.max_distance, (unsigned long long)s.peak_memory);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	cli_init("heapdb-analyze");
	return cli_exit(run(argc, argv));
}
