/* What the heapfmt programs share: exit codes, error lines, progress. */
#ifndef HF_CLI_H
#define HF_CLI_H
#include "heapfmt/heapfmt.h"

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
int cli_exit_code(hf_status st);
/* Prints "prog: input: offset N (TAG): message" on stderr. */
void cli_report(const char *input, const hf_error *err);
void cli_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;
/* A progress callback that draws on stderr when it is a terminal. */
typedef struct cli_progress {
	int enabled;
	int drawn;
} cli_progress;
void cli_progress_init(cli_progress *p, int mode); /* mode: -1 never, 0 auto, 1 always */
void cli_progress_cb(void *ctx, uint64_t done, uint64_t total);
void cli_progress_end(cli_progress *p);
void cli_version(void);
#endif
