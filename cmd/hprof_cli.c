/* Option parsing and the run loop shared by the HPROF converters. */
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

int hprof_cli_parse(hprof_cli *c, int argc, char **argv, int heapdb, const char *help)
{
	memset(c, 0, sizeof *c);
	hf_hprof_options_init(&c->opt);
	int only_args = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = NULL;
		if (only_args || a[0] != '-' || !strcmp(a, "-")) {
			if (c->nargs == 2) {
				cli_usage_error("too many arguments");
				return EXIT_USAGE;
			}
			c->args[c->nargs++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_args = 1;
			continue;
		}
		if (!strncmp(a, "--", 2) && strchr(a, '='))
			val = strchr(a, '=') + 1;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(help, stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			cli_version();
			return EXIT_OK;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			c->progress_mode = -1;
		} else if (!strcmp(a, "--progress")) {
			c->progress_mode = 1;
		} else if (!strcmp(a, "--values")) {
			c->opt.values = 1;
		} else if (!strcmp(a, "--salvage")) {
			c->opt.salvage = 1;
		} else if (!strncmp(a, "--dump", 6) && (a[6] == 0 || a[6] == '=')) {
			if (!val && i + 1 < argc)
				val = argv[++i];
			if (!val) {
				cli_usage_error("--dump needs a number or 'all'");
				return EXIT_USAGE;
			}
			if (!strcmp(val, "all"))
				c->opt.dump_index = -1;
			else if (!parse_long(val, &c->opt.dump_index)) {
				cli_usage_error("--dump takes a dump index (0, 1, ...) or 'all', not '%s'", val);
				return EXIT_USAGE;
			}
		} else if (!strncmp(a, "--compressed-oops", 17) && (a[17] == 0 || a[17] == '=')) {
			if (!val && i + 1 < argc)
				val = argv[++i];
			if (val && !strcmp(val, "auto"))
				c->opt.compressed_oops = -1;
			else if (val && !strcmp(val, "yes"))
				c->opt.compressed_oops = 1;
			else if (val && !strcmp(val, "no"))
				c->opt.compressed_oops = 0;
			else {
				cli_usage_error("--compressed-oops takes auto, yes or no");
				return EXIT_USAGE;
			}
		} else if (heapdb && (!strcmp(a, "-f") || !strcmp(a, "--force"))) {
			c->force = 1;
		} else if (heapdb && !strcmp(a, "--no-index")) {
			c->no_index = 1;
		} else if (heapdb && !strcmp(a, "--no-analysis")) {
			c->no_analysis = 1;
		} else if (!heapdb && !strcmp(a, "--analysis")) {
			c->analysis = 1;
		} else {
			cli_usage_error("unknown option '%s'", a);
			return EXIT_USAGE;
		}
	}
	return -1;
}

int hprof_cli_run(hprof_cli *c, const char *in_path, hf_sink *sink)
{
	hf_error err;
	hf_input *in = NULL;
	hf_status st = hf_input_open(&in, in_path, &err);
	if (st) {
		hf_sink_destroy(sink, 0);
		cli_report(in_path, &err);
		return cli_exit_code(st);
	}
	cli_progress pr;
	cli_progress_init(&pr, c->progress_mode);
	if (pr.enabled && c->progress_mode == 0 && hf_input_raw_size(in) < ((uint64_t)64 << 20))
		pr.enabled = 0; /* small inputs finish before a bar would help */
	c->opt.progress = cli_progress_cb;
	c->opt.progress_ctx = &pr;
	c->opt.generator = cli_prog;
	if (!c->opt.source_name)
		c->opt.source_name = strcmp(in_path, "-") ? in_path : "-";
	char crtime[40];
	hf_crtime_now(crtime, sizeof crtime);
	c->opt.crtime = crtime;
	hf_hprof_stats stats;
	st = hf_hprof_read(in, sink, &c->opt, &stats, &err);
	if (!st)
		st = hf_sink_finish(sink, &err);
	cli_progress_end(&pr);
	hf_sink_destroy(sink, st == HF_OK);
	hf_input_close(in);
	if (st) {
		cli_report(strcmp(in_path, "-") ? in_path : "<stdin>", &err);
		return cli_exit_code(st);
	}
	if (stats.incomplete) {
		char line[512];
		hf_error_format(&stats.damage, line, sizeof line);
		fprintf(stderr, "%s: %s: %s; salvaged what came before (heapfmt.complete=false)\n",
		        cli_prog, strcmp(in_path, "-") ? in_path : "<stdin>", line);
		return EXIT_SALVAGED;
	}
	return EXIT_OK;
}
