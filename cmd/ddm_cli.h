/* What alloc2ndjson, alloc2heapdb, hpsg2ndjson and hpsg2heapdb share. */
#ifndef HF_DDM_CLI_H
#define HF_DDM_CLI_H
#include "cli.h"

typedef struct ddm_cli_prog {
	const char *name;    /* program name */
	int heapdb;          /* 1: SQLite output (IN OUT.db), 0: NDJSON ([IN] [OUT]) */
	int stream;          /* 1: DDM stream reader, 0: allocation report reader */
	const char *help;
} ddm_cli_prog;

/* Parses the options, opens the output, converts, reports; returns the exit
 * status. */
int ddm_cli_main(const ddm_cli_prog *prog, int argc, char **argv);
#endif
