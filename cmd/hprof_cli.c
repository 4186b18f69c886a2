/* The HPROF reader's options and run, for hprof2ndjson and hprof2heapdb. */
#define _POSIX_C_SOURCE 200809L
#include "hprof_cli.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_long(const char *s, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < 0)
		return 0;
	*out = v;
	return 1;
}

static int hprof_option(void *ctx, int argc, char **argv, int *i)
{
	hf_hprof_options *opt = ctx;
	const char *a = argv[*i], *v;
	int missing = 0;
	if (!strcmp(a, "--values")) {
		opt->values = 1;
	} else if (!strcmp(a, "--salvage")) {
		opt->salvage = 1;
	} else if ((v = cli_opt_value("--dump", argc, argv, i, &missing))) {
		if (missing) {
			cli_usage_error("--dump needs a number or 'all'");
			return -1;
		}
		if (!strcmp(v, "all"))
			opt->dump_index = -1;
		else if (!parse_long(v, &opt->dump_index)) {
			cli_usage_error("--dump takes a dump index (0, 1, ...) or 'all', not '%s'", v);
			return -1;
		}
	} else if ((v = cli_opt_value("--compressed-oops", argc, argv, i, &missing))) {
		if (!strcmp(v, "auto"))
			opt->compressed_oops = -1;
		else if (!strcmp(v, "yes"))
			opt->compressed_oops = 1;
		else if (!strcmp(v, "no"))
			opt->compressed_oops = 0;
		else {
			cli_usage_error("--compressed-oops takes auto, yes or no");
			return -1;
		}
	} else {
		return 0;
	}
	return 1;
}

static hf_status hprof_run(void *ctx, cli_run *r, hf_error *err)
{
	hf_hprof_options opt = *(const hf_hprof_options *)ctx;
	hf_input *in = NULL;
	hf_status st = cli_run_open_input(r, &in, err);
	if (st)
		return st;
	opt.progress = cli_progress_cb;
	opt.progress_ctx = r->progress;
	opt.generator = cli_prog;
	opt.source_name = r->in;
	opt.crtime = r->crtime;
	hf_hprof_stats stats;
	st = hf_hprof_read(in, r->sink, &opt, &stats, err);
	hf_input_close(in);
	if (!st && stats.incomplete) {
		r->salvaged = 1;
		r->damage = stats.damage;
	}
	return st;
}

int hprof_cli_main(const char *name, int heapdb, const char *help, int argc, char **argv)
{
	static const char *const exts[] = { ".hprof", ".bin", NULL };
	hf_hprof_options opt;
	hf_hprof_options_init(&opt);
	cli_converter conv = { name, heapdb, help, heapdb ? ".db" : ".ndjson", exts,
		                   hprof_option, hprof_run, &opt };
	return cli_converter_main(&conv, argc, argv);
}
