/* Batch conversion, shared by the converters: several inputs and an output
 * directory (-o DIR), converted in parallel (-j N), one child process per
 * file; a summary line per file, in input order, as text or JSON (--stats);
 * the batch carries on past a failed file and reports it in the exit status.
 *
 * Per input, the output is DIR/<name><ext>: <name> is the input's file name
 * without a ".gz" and then without the converter's input extension
 * (dump.hprof.gz -> DIR/dump.db for hprof2heapdb).
 *
 * Summary lines go to standard output, one per file in input order:
 *   text:  "dump.hprof: ok, 123456 records, 1.25 s -> out/dump.db"
 *          "bad.hprof: failed (exit 1), 0 records, 0.01 s"
 *   json:  {"input":"dump.hprof","output":"out/dump.db","status":"ok","exit":0,
 *           "records":123456,"seconds":1.25}
 *          (a failure adds "error": the last line the conversion wrote on stderr)
 * then one total line:
 *   text:  "3 files: 2 ok, 1 failed, 0 salvaged; 246912 records, 2.61 s"
 *   json:  {"total":true,"files":3,"ok":2,"failed":1,"salvaged":0,
 *           "records":246912,"seconds":2.61,"exit":1}
 * What each conversion writes on stderr (errors, warnings) is passed on to
 * stderr, also in input order.
 *
 * Exit status: 0 when every file converted; else the status of the first
 * file (in input order) that failed; 5 when none failed but some were
 * salvaged (--salvage); 2 for a usage error found before starting (no input,
 * '-' as an input, two inputs that would write the same output, an output
 * that is one of the inputs); 3 when DIR cannot be created.  A conversion
 * killed by a signal (SIGKILL: the OOM killer) fails with 3, and the batch
 * removes the temporary output the conversion could not. */
#ifndef HF_BATCH_H
#define HF_BATCH_H
#include "cli.h"

typedef struct batch_opts {
	const char *outdir;  /* -o DIR: batch mode when set */
	int jobs;            /* -j N; 0 = the number of cores */
	int stats_json;      /* --stats=json */
	const char *batch_only; /* the last of -j and --stats given, which need -o */
} batch_opts;

/* One conversion, run in a child process; returns an exit status (cli.h)
 * and sets *records to the number of records written. */
typedef int (*batch_convert_fn)(void *ctx, const char *in, const char *out, uint64_t *records);

typedef struct batch_spec {
	const char *out_ext;         /* ".db", ".ndjson" */
	const char *const *in_exts;  /* extensions dropped from input names, NULL-terminated */
	batch_convert_fn convert;
	void *ctx;
} batch_spec;

/* If argv[*i] is a batch option (-o DIR, --output-dir=DIR, -j N, --jobs=N,
 * --stats=json|text), parses it, advancing *i past a separate value, and
 * returns 1; returns 0 if it is not one; -1 after printing a usage error.
 * -j and --stats without -o are a usage error for the caller to report
 * (o->batch_only). */
int batch_parse_option(batch_opts *o, int argc, char **argv, int *i);

/* Converts inputs[0..n-1] into o->outdir; returns the exit status. */
int batch_run(const batch_spec *spec, const batch_opts *o, char *const *inputs, int n);

/* The options for --help. */
#define BATCH_HELP \
	"  -o, --output-dir=DIR   batch: convert every IN given into DIR, one output per\n" \
	"                         input named after it; a summary line per file\n" \
	"  -j, --jobs=N           batch: N conversions at a time (default: number of cores)\n" \
	"      --stats=json|text  batch: summary lines as JSON objects (default: text)\n"
#endif
