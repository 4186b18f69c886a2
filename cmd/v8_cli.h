/* What heapsnapshot2ndjson and heapsnapshot2heapdb share: the V8 reader's run. */
#ifndef HF_V8_CLI_H
#define HF_V8_CLI_H
#include "cli.h"

/* Converts (one input, or a batch with -o DIR), reports; returns the exit status. */
int v8_cli_main(const char *name, int heapdb, const char *help, int argc, char **argv);
#endif
