/* Options shared by hprof2ndjson and hprof2heapdb. */
#ifndef HF_HPROF_CLI_H
#define HF_HPROF_CLI_H
#include "cli.h"

typedef struct hprof_cli {
	hf_hprof_options opt;
	int progress_mode;   /* -1 quiet, 0 auto, 1 always */
	int force, no_index, no_analysis;
	int analysis;        /* hprof2ndjson --analysis */
	const char *args[2];
	int nargs;
} hprof_cli;

/* Parses argv; returns -1 to continue, else an exit code (help, version,
 * usage error).  heapdb: also accept --force, --no-index and --no-analysis. */
int hprof_cli_parse(hprof_cli *c, int argc, char **argv, int heapdb, const char *help);
/* Opens the input, runs the reader into sink (which it destroys), reports. */
int hprof_cli_run(hprof_cli *c, const char *in_path, hf_sink *sink);
#endif
