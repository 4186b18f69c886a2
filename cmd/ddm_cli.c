/* Options and the run of the DDM converters (allocation reports and DDM
 * streams, to NDJSON or SQLite). */
#define _POSIX_C_SOURCE 200809L
#include "ddm_cli.h"
#include <stdio.h>
#include <string.h>

typedef struct ddm_args {
	const ddm_cli_prog *prog;
	hf_alloc_order order;
	hf_ddm_shape shape;
	uint32_t payload;
	int strict, salvage;
} ddm_args;

/* The DDM readers' own options. */
static int ddm_option(void *ctx, int argc, char **argv, int *i)
{
	ddm_args *c = ctx;
	const char *a = argv[*i], *v;
	int missing = 0;
	if ((v = cli_opt_value("--order", argc, argv, i, &missing))) {
		if (!strcmp(v, "auto"))
			c->order = HF_ALLOC_ORDER_AUTO;
		else if (!strcmp(v, "newest-first"))
			c->order = HF_ALLOC_ORDER_NEWEST_FIRST;
		else if (!strcmp(v, "oldest-first"))
			c->order = HF_ALLOC_ORDER_OLDEST_FIRST;
		else {
			cli_usage_error("--order takes auto, newest-first or oldest-first");
			return -1;
		}
	} else if (c->prog->stream && (v = cli_opt_value("--shape", argc, argv, i, &missing))) {
		static const char *const names[] = { "auto", "jdwp", "chunks", "payload" };
		int found = -1;
		for (int k = 0; k < 4; k++)
			if (!strcmp(v, names[k]))
				found = k;
		if (found < 0) {
			cli_usage_error("--shape takes auto, jdwp, chunks or payload");
			return -1;
		}
		c->shape = (hf_ddm_shape)found;
	} else if (c->prog->stream && (v = cli_opt_value("--payload", argc, argv, i, &missing))) {
		if (!(c->payload = hf_ddm_chunk_type(v))) {
			cli_usage_error("--payload takes a four-character chunk type (HPSG, HPSO, NHSG, HPIF, REAL ...)");
			return -1;
		}
		if (c->shape == HF_DDM_SHAPE_AUTO)
			c->shape = HF_DDM_SHAPE_PAYLOAD;
	} else if (c->prog->stream && !strcmp(a, "--strict")) {
		c->strict = 1;
	} else if (c->prog->stream && !strcmp(a, "--lenient")) {
		/* The default since unpaired series became warnings: accepted so
		 * that old command lines still run. */
	} else if (c->prog->stream && !strcmp(a, "--salvage")) {
		c->salvage = 1;
	} else {
		return 0;
	}
	if (missing) {
		cli_usage_error("%s needs a value", a);
		return -1;
	}
	return 1;
}

static hf_status ddm_run(void *ctx, cli_run *r, hf_error *err)
{
	const ddm_args *c = ctx;
	hf_input *in = NULL;
	hf_status st = cli_run_open_input(r, &in, err);
	if (st)
		return st;
	if (c->prog->stream) {
		hf_ddm_options o;
		hf_ddm_options_init(&o);
		o.shape = c->shape;
		o.payload_type = c->payload;
		o.order = c->order;
		o.strict = c->strict;
		o.salvage = c->salvage;
		o.source_name = r->in;
		o.crtime = r->crtime;
		o.generator = cli_prog;
		o.progress = cli_progress_cb;
		o.progress_ctx = r->progress;
		hf_ddm_stats stats;
		st = hf_ddm_read(in, r->sink, &o, &stats, err);
		if (!st && stats.incomplete) {
			r->salvaged = 1;
			r->damage = stats.damage;
		}
	} else {
		hf_alloc_options o;
		hf_alloc_options_init(&o);
		o.order = c->order;
		o.source_name = r->in;
		o.crtime = r->crtime;
		o.generator = cli_prog;
		st = hf_alloc_read(in, r->sink, &o, NULL, err);
	}
	hf_input_close(in);
	return st;
}

int ddm_cli_main(const ddm_cli_prog *prog, int argc, char **argv)
{
	static const char *const alloc_exts[] = { ".alloc", ".real", ".bin", NULL };
	static const char *const stream_exts[] = { ".bin", ".ddm", ".trace", ".alloc", NULL };
	ddm_args c = { .prog = prog };
	cli_converter conv = {
		.name = prog->name,
		.heapdb = prog->heapdb,
		.help = prog->help,
		.out_ext = prog->heapdb ? ".db" : ".ndjson",
		.in_exts = prog->stream ? stream_exts : alloc_exts,
		.option = ddm_option,
		.read = ddm_run,
		.ctx = &c,
	};
	return cli_converter_main(&conv, argc, argv);
}
