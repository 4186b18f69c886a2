/* What hprof2ndjson and hprof2heapdb share: the HPROF reader's options. */
#ifndef HF_HPROF_CLI_H
#define HF_HPROF_CLI_H
#include "cli.h"

/* Parses the options, converts (one input, or a batch with -o DIR),
 * reports; returns the exit status. */
int hprof_cli_main(const char *name, int heapdb, const char *help, int argc, char **argv);
#endif
