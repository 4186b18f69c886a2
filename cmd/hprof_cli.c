/* The HPROF reader's options and run, for hprof2ndjson and hprof2heapdb. */
#define _POSIX_C_SOURCE 200809L
#include "hprof_cli.h"
#include "heapfmt/analysis.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int parse_long(const char *s, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < 0 || errno == ERANGE)
		return 0;
	*out = v;
	return 1;
}

/* A size in bytes: digits and an optional K, M or G (KiB, MiB, GiB). */
static int parse_size(const char *s, size_t *out)
{
	char *end;
	errno = 0;
	if (*s < '0' || *s > '9')
		return 0;
	unsigned long long v = strtoull(s, &end, 10);
	unsigned shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	else if (*end == 'G' || *end == 'g')
		shift = 30, end++;
	if (*end || errno == ERANGE || v > (unsigned long long)(SIZE_MAX >> shift))
		return 0;
	*out = (size_t)v << shift;
	return 1;
}

typedef struct hprof_args {
	hf_hprof_options opt;
	int heapdb;
	int analysis;        /* heapdb: on unless --no-analysis; NDJSON: --analysis */
	size_t analysis_memory; /* --analysis-memory, in bytes; 0: the default */
	int limit_warned;    /* --values-limit without --values, said once */
} hprof_args;

static int hprof_option(void *ctx, int argc, char **argv, int *i)
{
	hprof_args *h = ctx;
	hf_hprof_options *opt = &h->opt;
	const char *a = argv[*i], *v;
	int missing = 0;
	if (h->heapdb && !strcmp(a, "--no-analysis")) {
		h->analysis = 0;
	} else if (!h->heapdb && !strcmp(a, "--analysis")) {
		h->analysis = 1;
	} else if ((v = cli_opt_value("--analysis-memory", argc, argv, i, &missing))) {
		if (!(h->analysis_memory = cli_analysis_memory(v, missing)))
			return -1;
	} else if (!strcmp(a, "--values")) {
		opt->values = 1;
	} else if ((v = cli_opt_value("--values-limit", argc, argv, i, &missing))) {
		size_t limit;
		if (missing || !parse_size(v, &limit)) {
			cli_usage_error("--values-limit takes a size in bytes, with K, M or G (0: no limit)");
			return -1;
		}
		opt->values_limit = limit ? limit : SIZE_MAX;
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
	hprof_args *h = ctx;
	hf_hprof_options opt = h->opt;
	if (opt.values_limit && !opt.values && !h->limit_warned) {
		h->limit_warned = 1;
		fprintf(stderr, "%s: warning: --values-limit does nothing without --values\n", cli_prog);
	}
	hf_input *in = NULL;
	hf_status st = cli_run_open_input(r, &in, err);
	if (st)
		return st;
	opt.progress = cli_progress_cb;
	opt.progress_ctx = r->progress;
	opt.generator = cli_prog;
	opt.source_name = r->in;
	opt.crtime = r->crtime;
	opt.warning = cli_warning_cb;
	opt.warning_ctx = r;
	hf_hprof_stats stats;
	st = hf_hprof_read(in, r->sink, &opt, &stats, err);
	hf_input_close(in);
	r->warnings = stats.warnings;
	r->warning_key = "hprof.warning";
	if (st && stats.salvageable)
		cli_salvage_hint(err);
	if (!st && stats.incomplete) {
		r->salvaged = 1;
		r->damage = stats.damage;
	}
	return st;
}

static void hprof_db_options(void *ctx, hf_heapdb_options *o)
{
	o->analysis = ((const hprof_args *)ctx)->analysis;
	o->analysis_memory = ((const hprof_args *)ctx)->analysis_memory;
}

/* hprof2ndjson --analysis: the records also go to a temporary database,
 * beside the output file (or in $TMPDIR for standard output), analysed at
 * the end into heapfmt.node_analysis records (heapfmt/analysis.h). */
static hf_status hprof_wrap_sink(void *ctx, const char *out, hf_sink **sink, hf_error *err)
{
	if (!((const hprof_args *)ctx)->analysis)
		return HF_OK;
	char beside[4096];
	const char *tmpdir = getenv("TMPDIR");
	/* Not beside a device, a FIFO or a descriptor's name (/dev/stdout):
	 * in $TMPDIR, as for standard output. */
	struct stat sb;
	int file = strcmp(out, "-") && strncmp(out, "/dev/", 5) && strncmp(out, "/proc/", 6) &&
	           (stat(out, &sb) != 0 || S_ISREG(sb.st_mode));
	if (file)
		snprintf(beside, sizeof beside, "%s", out);
	else
		snprintf(beside, sizeof beside, "%s/heapfmt-analysis", tmpdir && *tmpdir ? tmpdir : "/tmp");
	hf_analysis_options ao;
	hf_analysis_options_init(&ao);
	ao.memory_limit = ((const hprof_args *)ctx)->analysis_memory;
	return hf_analysis_sink_open(sink, *sink, beside, &ao, err);
}

int hprof_cli_main(const char *name, int heapdb, const char *help, int argc, char **argv)
{
	static const char *const exts[] = { ".hprof", ".bin", NULL };
	hprof_args h = { .heapdb = heapdb, .analysis = heapdb };
	hf_hprof_options_init(&h.opt);
	cli_converter conv = {
		.name = name,
		.heapdb = heapdb,
		.help = help,
		.out_ext = heapdb ? ".db" : ".ndjson",
		.in_exts = exts,
		.option = hprof_option,
		.read = hprof_run,
		.ctx = &h,
	};
	if (heapdb)
		conv.db_options = hprof_db_options;
	else
		conv.wrap_sink = hprof_wrap_sink;
	return cli_converter_main(&conv, argc, argv);
}
