/* Options and the run of the DDM converters (allocation reports and DDM
 * streams, to NDJSON or SQLite). */
#define _POSIX_C_SOURCE 200809L
#include "ddm_cli.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ddm_args {
	hf_alloc_order order;
	hf_ddm_shape shape;
	uint32_t payload;
	int lenient, force, no_index, progress_mode;
	const char *args[2];
	int nargs;
} ddm_args;

/* "--name=value" or "--name value"; NULL when a is not --name. */
static const char *opt_value(const char *a, const char *name, int argc, char **argv, int *i,
                             int *missing)
{
	size_t n = strlen(name);
	if (strncmp(a, name, n) || (a[n] && a[n] != '='))
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (*i + 1 < argc)
		return argv[++*i];
	*missing = 1;
	return "";
}

/* Returns -1 to go on, else an exit status. */
static int parse(const ddm_cli_prog *prog, ddm_args *c, int argc, char **argv)
{
	memset(c, 0, sizeof *c);
	int only_args = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int missing = 0;
		if (only_args || a[0] != '-' || !strcmp(a, "-")) {
			if (c->nargs == 2) {
				cli_usage_error("too many arguments");
				return EXIT_USAGE;
			}
			c->args[c->nargs++] = a;
		} else if (!strcmp(a, "--")) {
			only_args = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(prog->help, stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			cli_version();
			return EXIT_OK;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			c->progress_mode = -1;
		} else if (!strcmp(a, "--progress")) {
			c->progress_mode = 1;
		} else if ((v = opt_value(a, "--order", argc, argv, &i, &missing))) {
			if (!strcmp(v, "auto"))
				c->order = HF_ALLOC_ORDER_AUTO;
			else if (!strcmp(v, "newest-first"))
				c->order = HF_ALLOC_ORDER_NEWEST_FIRST;
			else if (!strcmp(v, "oldest-first"))
				c->order = HF_ALLOC_ORDER_OLDEST_FIRST;
			else {
				cli_usage_error("--order takes auto, newest-first or oldest-first");
				return EXIT_USAGE;
			}
		} else if (prog->stream && (v = opt_value(a, "--shape", argc, argv, &i, &missing))) {
			static const char *const names[] = { "auto", "jdwp", "chunks", "payload" };
			int found = -1;
			for (int k = 0; k < 4; k++)
				if (!strcmp(v, names[k]))
					found = k;
			if (found < 0) {
				cli_usage_error("--shape takes auto, jdwp, chunks or payload");
				return EXIT_USAGE;
			}
			c->shape = (hf_ddm_shape)found;
		} else if (prog->stream && (v = opt_value(a, "--payload", argc, argv, &i, &missing))) {
			if (!(c->payload = hf_ddm_chunk_type(v))) {
				cli_usage_error("--payload takes a four-character chunk type (HPSG, HPSO, NHSG, HPIF, REAL ...)");
				return EXIT_USAGE;
			}
			if (c->shape == HF_DDM_SHAPE_AUTO)
				c->shape = HF_DDM_SHAPE_PAYLOAD;
		} else if (prog->stream && !strcmp(a, "--lenient")) {
			c->lenient = 1;
		} else if (prog->heapdb && (!strcmp(a, "-f") || !strcmp(a, "--force"))) {
			c->force = 1;
		} else if (prog->heapdb && !strcmp(a, "--no-index")) {
			c->no_index = 1;
		} else {
			cli_usage_error("unknown option '%s'", a);
			return EXIT_USAGE;
		}
		if (missing) {
			cli_usage_error("%s needs a value", a);
			return EXIT_USAGE;
		}
	}
	return -1;
}

int ddm_cli_main(const ddm_cli_prog *prog, int argc, char **argv)
{
	cli_init(prog->name);
	ddm_args c;
	int rc = parse(prog, &c, argc, argv);
	if (rc >= 0)
		return rc;
	const char *in_path = c.nargs > 0 ? c.args[0] : "-";
	const char *out = c.nargs > 1 ? c.args[1] : "-";
	hf_sink *sink;
	hf_error err;
	hf_status st;
	if (prog->heapdb) {
		if (c.nargs != 2) {
			cli_usage_error("needs an input and an output database");
			return EXIT_USAGE;
		}
		if (!strcmp(out, "-")) {
			cli_usage_error("a database cannot be written to standard output; name a file");
			return EXIT_USAGE;
		}
		hf_heapdb_options o = { c.force, c.no_index };
		st = hf_heapdb_sink_open(&sink, out, &o, &err);
	} else if (!strcmp(out, "-")) {
		static char buf[1 << 16];
		setvbuf(stdout, buf, _IOFBF, sizeof buf);
		st = hf_ndjson_sink_new(&sink, stdout, &err);
	} else {
		st = hf_ndjson_sink_open(&sink, out, &err);
	}
	if (st) {
		cli_report(NULL, &err);
		return cli_exit_code(st);
	}
	hf_input *in = NULL;
	if ((st = hf_input_open(&in, in_path, &err))) {
		hf_sink_destroy(sink, 0);
		cli_report(in_path, &err);
		return cli_exit_code(st);
	}
	cli_progress pr;
	cli_progress_init(&pr, c.progress_mode);
	if (pr.enabled && c.progress_mode == 0 && hf_input_raw_size(in) < ((uint64_t)64 << 20))
		pr.enabled = 0;
	char crtime[40];
	hf_crtime_now(crtime, sizeof crtime);
	const char *source = strcmp(in_path, "-") ? in_path : "-";
	if (prog->stream) {
		hf_ddm_options o;
		hf_ddm_options_init(&o);
		o.shape = c.shape;
		o.payload_type = c.payload;
		o.order = c.order;
		o.lenient = c.lenient;
		o.source_name = source;
		o.crtime = crtime;
		o.generator = prog->name;
		o.progress = cli_progress_cb;
		o.progress_ctx = &pr;
		st = hf_ddm_read(in, sink, &o, NULL, &err);
	} else {
		hf_alloc_options o;
		hf_alloc_options_init(&o);
		o.order = c.order;
		o.source_name = source;
		o.crtime = crtime;
		o.generator = prog->name;
		st = hf_alloc_read(in, sink, &o, NULL, &err);
	}
	if (!st)
		st = hf_sink_finish(sink, &err);
	cli_progress_end(&pr);
	hf_sink_destroy(sink, st == HF_OK);
	hf_input_close(in);
	if (st) {
		cli_report(strcmp(in_path, "-") ? in_path : "<stdin>", &err);
		return cli_exit_code(st);
	}
	return EXIT_OK;
}
