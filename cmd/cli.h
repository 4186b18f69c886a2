/* What the heapfmt programs share: exit codes, error lines, progress. */
#ifndef HF_CLI_H
#define HF_CLI_H
#include "heapfmt/heapfmt.h"
#include <stdbool.h>
#include <stdio.h>

/* Exit codes, documented in every man page. */
enum {
	EXIT_OK = 0,
	EXIT_BAD_INPUT = 1,  /* the input is damaged, truncated or not of the format */
	EXIT_USAGE = 2,      /* wrong arguments */
	EXIT_IO = 3,         /* cannot read or write a file (includes an existing output without --force) */
	EXIT_NOMEM = 4,      /* out of memory */
	EXIT_SALVAGED = 5    /* --salvage: the input was damaged; the output holds what came before */
};

extern const char *cli_prog;
/* Sets the program name and the signal dispositions every program wants:
 * SIGXFSZ ignored, so that a file-size limit is a write error (EFBIG) with a
 * clean message instead of a silent kill. */
void cli_init(const char *prog);
/* A program's own cleanup for cli_init's handler of SIGINT, SIGTERM and
 * SIGHUP, which removes the outputs' temporary files
 * (hf_remove_partial_outputs) and then calls it: async-signal-safe calls
 * only (unlink, rmdir). */
void cli_on_fatal_signal(void (*cleanup)(void));
/* Blocks SIGINT, SIGTERM and SIGHUP in this thread around work that the
 * handler must not see half done, and puts the mask back (not nested). */
void cli_fatal_signals_hold(void);
void cli_fatal_signals_release(void);
/* In a child process of a batch: no program cleanup of the parent's, and
 * SIGTERM (which the batch sends its children when stopped) caught even if
 * the batch was started with it ignored. */
void cli_child_signals(void);
/* Whether the output path (renamed into place) is the input file itself
 * (in may be "-", standard input): if so, says so in one line on stderr,
 * and the program exits with EXIT_USAGE. */
int cli_refuse_output_over_input(const char *in, const char *out);
/* What every program returns from main: rc, unless what it wrote on
 * standard output (a report, the help, a summary) could not all be written
 * (a full disk, a closed descriptor): then, if rc was a success, an error
 * line and EXIT_IO.  A reader that went away (EPIPE) is not reported. */
int cli_exit(int rc);
/* fflush(stdout), remembering for cli_exit why it failed. */
void cli_flush_stdout(void);
/* Whether a flush of standard output failed because its reader went away
 * (EPIPE: SIGPIPE ignored, as in a batch). */
bool cli_stdout_gone(void);
int cli_exit_code(hf_status st);
/* A signal's name as a message gives it ("SIGKILL"; "a signal" for others
 * than those a killed program meets). */
const char *cli_signal_name(int sig);
/* An input cut short or damaged, read without --salvage, that salvage would
 * have kept (the reader's stats say so): says at the end of err's message
 * that --salvage converts what comes before (a truncated dump is what a
 * full disk or a killed jcmd leaves). */
void cli_salvage_hint(hf_error *err);
/* Prints "prog: input: offset N (TAG): message" on stderr. */
void cli_report(const char *input, const hf_error *err);
/* The error of work on one file (a database): one line that names it. */
void cli_report_about(const char *path, const hf_error *err);
void cli_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;
/* A progress callback that draws on stderr when it is a terminal. */
typedef struct cli_progress {
	int enabled;
	int drawn;
	int mode;
	int tty;            /* stderr is a terminal: one line redrawn; else a line
	                     * a second at most (a CI log) */
	double last;        /* when the last line was written (not a terminal) */
	const char *unit;   /* what done and total count: NULL bytes (shown in
	                     * MB), else a plural noun */
	uint64_t done, total;  /* as of the last call */
	uint64_t size;      /* the input's size, 0 unknown (cli_progress_for) */
	uint64_t shown_done, shown_total; /* in the last line written */
	int shown;          /* a line was written */
} cli_progress;
void cli_progress_init(cli_progress *p, int mode); /* mode: -1 never, 0 auto, 1 always */
void cli_progress_cb(void *ctx, uint64_t done, uint64_t total);
/* Ends the indicator: on a terminal, erases its line; else (--progress to a
 * log), after a run that succeeded (ok), writes the end's line unless the
 * last line was it, so that even a run too short for any other line leaves
 * one. */
void cli_progress_end(cli_progress *p, int ok);
/* On a terminal, after the input is read: the indicator at the input's end
 * says what the run does now ("building the indexes"), for the part of a
 * run whose progress is not counted. */
void cli_progress_phase(cli_progress *p, const char *what);
/* On a terminal, shows text (a whole line, the program's name first) until
 * cli_progress_end, redrawn each second with the seconds it has been shown:
 * for work with nothing to count.  cli_progress_phase shows the end of the
 * indicator and what comes next so. */
void cli_progress_status(cli_progress *p, const char *text);
void cli_version(void);
/* Writes s (UTF-8) as a JSON string. */
void cli_json_string(FILE *fp, const char *s);

/* The options every program takes, for --help. */
#define CLI_COMMON_HELP \
	"  -q, --quiet            no progress indicator\n" \
	"      --progress         show progress on stderr even when it is not a terminal\n" \
	"  -h, --help             show this help and exit\n" \
	"  -V, --version          show the version and exit\n"

/* The options every program shares (-h, -V, -q, --progress) at a:
 * 0 if a is none of them; 1 handled (*progress_mode set); 2 after printing
 * the help or the version (exit 0). */
int cli_common_option(const char *a, const char *help, int *progress_mode);

/* Opens r->in (a file, "-", gzip: see hf_input_open) and turns an automatic
 * progress indicator off for inputs too small to need one. */
struct cli_run;
hf_status cli_run_open_input(struct cli_run *r, hf_input **in, hf_error *err);

/* Turns off an automatic progress indicator for inputs too small to need one. */
void cli_progress_for(cli_progress *p, uint64_t input_size);
/* A name for the input in messages: "<stdin>" for "-". */
const char *cli_input_name(const char *path);

/* "--name=value" or "--name value" at argv[*i] (advancing *i past a
 * separate value); NULL when argv[*i] is not --name.  *missing is set when
 * the value is absent. */
const char *cli_opt_value(const char *name, int argc, char **argv, int *i, int *missing);

/* Short options given together, as getopt takes them: when argv[i] is such
 * a group ("-fq", "-qj4", "-qo DIR"), replaces it in *argv (a copy, kept
 * until exit) by one argument an option ("-f", "-q", "-j", "4", ...) and
 * returns 1; the caller parses argv[i] again.  noarg lists the program's
 * short options without a value, witharg those that take one (the rest of
 * the group, or the next argument).  0, *argv untouched, when argv[i] is
 * not a group of those options. */
int cli_split_short_group(int *argc, char ***argv, int i, const char *noarg, const char *witharg);

/* --analysis-memory=MIB: the analysis's memory_limit in bytes (MIB 0: no
 * limit, SIZE_MAX); 0 after a usage error, reported. */
size_t cli_analysis_memory(const char *v, int missing);
#define CLI_ANALYSIS_MEMORY_HELP \
	"      --analysis-memory=MIB  resident memory above which the analysis gives\n" \
	"                         back the pages of its arrays, kept in temporary files\n" \
	"                         in $TMPDIR (default 512; 0: no limit, all in memory)\n"

/* ---- converters --------------------------------------------------------------
 * Every program reads one input and writes it as NDJSON or as a heap
 * database; cli_converter_main does what they share: --help, --version,
 * --quiet/--progress, --force/--no-index for databases, the arguments
 * (IN OUT.db; or [IN] [OUT] for NDJSON), the output sink (a temporary name
 * renamed on success), the error line and exit status, and batch mode
 * (-o DIR with several inputs, see batch.h). */
typedef struct cli_run {
	const char *in;          /* input path, "-" for standard input */
	hf_sink *sink;           /* where the records go (the caller finishes it) */
	cli_progress *progress;
	const char *crtime;      /* creation time for the metadata */
	int salvaged;            /* set by read: the input was damaged, what came before kept */
	hf_error damage;         /* with salvaged: what the damage was */
	/* The reader's warnings (cli_warning_cb, and read sets the count and
	 * the metadata key that holds them): told on stderr after a run that
	 * did not fail (cli_warnings_tell). */
#define CLI_WARNINGS_SHOWN 3
	char warning[CLI_WARNINGS_SHOWN][400];
	unsigned nwarning;
	uint64_t warnings;
	const char *warning_key; /* "hprof.warning", "ddm.warning"; NULL: no output keeps them */
} cli_run;

/* hf_warning_fn (ctx: the cli_run): keeps the first CLI_WARNINGS_SHOWN. */
void cli_warning_cb(void *ctx, const char *text);
/* Tells the run's warnings on stderr, a line each for the first ones, and
 * a line for how many there were in all when that is more. */
void cli_warnings_tell(const cli_run *r);

typedef struct cli_converter {
	const char *name;
	int heapdb;                 /* 1: writes a heap database (IN OUT.db) */
	/* Set when the input cannot be standard input: the usage error for no
	 * arguments ("needs a heap database ..."). */
	const char *needs_input;
	const char *help;
	const char *out_ext;        /* batch output extension (".db", ".ndjson") */
	const char *const *in_exts; /* extensions dropped from input names in batch mode */
	/* The program's own options: returns 1 if argv[*i] was one, 0 if not,
	 * -1 after a usage error.  NULL: none. */
	int (*option)(void *ctx, int argc, char **argv, int *i);
	/* Reads r->in into r->sink; on failure returns the status with err set
	 * (an error naming the input offset). */
	hf_status (*read)(void *ctx, cli_run *r, hf_error *err);
	void *ctx;
	/* Optional: sets the database options beyond --force and --no-index
	 * (hprof2heapdb: the analysis) before the output is opened. */
	void (*db_options)(void *ctx, hf_heapdb_options *o);
	/* Optional: wraps the output sink once it is open (hprof2ndjson
	 * --analysis); out is the output path ("-": standard output).  On
	 * failure it has destroyed *sink. */
	hf_status (*wrap_sink)(void *ctx, const char *out, hf_sink **sink, hf_error *err);
} cli_converter;

int cli_converter_main(const cli_converter *conv, int argc, char **argv);
#endif
