/* The main of every converter (see cli.h): options they share, one
 * conversion or a batch of them. */
#define _POSIX_C_SOURCE 200809L
#include "batch.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct conv_args {
	const cli_converter *conv;
	int force, no_index, progress_mode;
	batch_opts batch;
	char **args;     /* positional arguments */
	int nargs;
} conv_args;

/* Returns -1 to go on, else an exit status. */
static int parse(conv_args *c, int argc, char **argv)
{
	const cli_converter *conv = c->conv;
	int only_args = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (only_args || a[0] != '-' || !strcmp(a, "-")) {
			c->args[c->nargs++] = argv[i];
			continue;
		}
		int r;
		if (!strcmp(a, "--")) {
			only_args = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(conv->help, stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			cli_version();
			return EXIT_OK;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			c->progress_mode = -1;
		} else if (!strcmp(a, "--progress")) {
			c->progress_mode = 1;
		} else if (conv->heapdb && (!strcmp(a, "-f") || !strcmp(a, "--force"))) {
			c->force = 1;
		} else if (conv->heapdb && !strcmp(a, "--no-index")) {
			c->no_index = 1;
		} else if ((r = batch_parse_option(&c->batch, argc, argv, &i)) != 0) {
			if (r < 0)
				return EXIT_USAGE;
		} else if (conv->option && (r = conv->option(conv->ctx, argc, argv, &i)) != 0) {
			if (r < 0)
				return EXIT_USAGE;
		} else if (cli_split_short_group(&argc, &argv, i, conv->heapdb ? "hVqf" : "hVq", "oj")) {
			i--;
		} else {
			cli_usage_error("unknown option '%s'", a);
			return EXIT_USAGE;
		}
	}
	return -1;
}

/* A database's options: the command line's, and the converter's own. */
static hf_heapdb_options db_options(const conv_args *c)
{
	hf_heapdb_options o = { .force = c->force, .no_index = c->no_index };
	if (c->conv->db_options)
		c->conv->db_options(c->conv->ctx, &o);
	return o;
}

static hf_status open_sink(const conv_args *c, const char *out, hf_sink **sink, hf_error *err)
{
	hf_status st;
	if (c->conv->heapdb) {
		hf_heapdb_options o = db_options(c);
		st = hf_heapdb_sink_open(sink, out, &o, err);
	} else if (!strcmp(out, "-")) {
		static char buf[1 << 16];
		setvbuf(stdout, buf, _IOFBF, sizeof buf);
		st = hf_ndjson_sink_new(sink, stdout, err);
	} else {
		st = hf_ndjson_sink_open(sink, out, err);
	}
	if (!st && c->conv->wrap_sink && (st = c->conv->wrap_sink(c->conv->ctx, out, sink, err)))
		*sink = NULL; /* the wrapper destroyed it */
	return st;
}

/* One conversion: in to out; returns the exit status and counts the records. */
static int convert_one(void *ctx, const char *in, const char *out, uint64_t *records)
{
	const conv_args *c = ctx;
	hf_error err;
	hf_sink *sink;
	if (cli_refuse_output_over_input(in, out))
		return EXIT_USAGE;
	hf_status st = open_sink(c, out, &sink, &err);
	if (st) {
		cli_report(NULL, &err);
		return cli_exit_code(st);
	}
	cli_progress pr;
	cli_progress_init(&pr, c->progress_mode);
	char crtime[40];
	hf_crtime_now(crtime, sizeof crtime);
	cli_run run = { .in = in, .sink = sink, .progress = &pr, .crtime = crtime };
	st = c->conv->read(c->conv->ctx, &run, &err);
	if (!st && c->conv->heapdb) {
		hf_heapdb_options o = db_options(c);
		cli_progress_phase(&pr, o.no_index ? "finishing the database"
		                        : o.analysis ? "building the indexes, then the analysis"
		                        : "building the indexes");
	}
	if (!st)
		st = hf_sink_finish(sink, &err);
	cli_progress_end(&pr, st == HF_OK && !run.salvaged); /* a salvage read not the whole input */
	*records = sink->n_metadata + sink->n_types + sink->n_strings + sink->n_nodes +
	           sink->n_edges + sink->n_records;
	hf_sink_destroy(sink, st == HF_OK);
	if (st) {
		cli_report(cli_input_name(in), &err);
		return cli_exit_code(st);
	}
	cli_warnings_tell(&run);
	if (run.salvaged) {
		char line[512];
		hf_error_format(&run.damage, line, sizeof line);
		fprintf(stderr, "%s: %s: %s; salvaged what came before (heapfmt.complete=false)\n",
		        cli_prog, cli_input_name(in), line);
		return EXIT_SALVAGED;
	}
	return EXIT_OK;
}

int cli_converter_main(const cli_converter *conv, int argc, char **argv)
{
	cli_init(conv->name);
	conv_args c = { .conv = conv };
	c.args = calloc((size_t)argc + 1, sizeof *c.args);
	if (!c.args) {
		fprintf(stderr, "%s: out of memory\n", cli_prog);
		return EXIT_NOMEM;
	}
	int rc = parse(&c, argc, argv);
	for (int i = 0; rc < 0 && i < c.nargs; i++)
		if (!c.args[i][0]) {
			cli_usage_error("an empty file name");
			rc = EXIT_USAGE;
		}
	if (rc < 0 && c.batch.outdir && !c.batch.outdir[0]) {
		cli_usage_error("an empty directory name");
		rc = EXIT_USAGE;
	}
	if (rc < 0 && !c.batch.outdir && c.batch.batch_only) {
		cli_usage_error("%s is for batch mode: it needs -o DIR", c.batch.batch_only);
		rc = EXIT_USAGE;
	} else if (rc < 0 && !c.batch.outdir && conv->needs_input && c.nargs == 0) {
		cli_usage_error("%s", conv->needs_input);
		rc = EXIT_USAGE;
	} else if (rc < 0 && !c.batch.outdir && conv->needs_input && !strcmp(c.args[0], "-")) {
		cli_usage_error("the input cannot be standard input; name the file");
		rc = EXIT_USAGE;
	} else if (rc < 0 && !c.batch.outdir && (c.nargs == 0 || !strcmp(c.args[0], "-")) &&
	           isatty(STDIN_FILENO)) {
		/* A dump typed at a terminal: there is nothing to wait for. */
		cli_usage_error("standard input is a terminal; name the input file, or pipe it in");
		rc = EXIT_USAGE;
	} else if (rc < 0 && c.batch.outdir) {
		batch_spec spec = { conv->out_ext, conv->in_exts, convert_one, &c };
		rc = batch_run(&spec, &c.batch, c.args, c.nargs);
	} else if (rc < 0 && conv->heapdb) {
		if (c.nargs != 2)
			cli_usage_error("needs an input and an output database (or -o DIR and inputs)");
		else if (!strcmp(c.args[1], "-"))
			cli_usage_error("a database cannot be written to standard output; name a file");
		else {
			uint64_t records;
			rc = convert_one(&c, c.args[0], c.args[1], &records);
		}
		if (rc < 0)
			rc = EXIT_USAGE;
	} else if (rc < 0) {
		if (c.nargs > 2) {
			cli_usage_error("too many arguments (several inputs need -o DIR)");
			rc = EXIT_USAGE;
		} else {
			uint64_t records;
			rc = convert_one(&c, c.nargs > 0 ? c.args[0] : "-", c.nargs > 1 ? c.args[1] : "-",
			                 &records);
		}
	}
	free(c.args);
	return cli_exit(rc);
}
