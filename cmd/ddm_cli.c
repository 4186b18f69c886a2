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
	int shape_given;
	uint32_t payload;
	int strict, salvage;
} ddm_args;

/* The options that take a value, as the stream converters have them (the
 * allocation-report ones have only the first). */
enum { OPT_ORDER, OPT_SHAPE, OPT_PAYLOAD, OPT_VALUED };
static const char *const valued[OPT_VALUED] = { "--order", "--shape", "--payload" };
static const char *const shape_names[] = { "auto", "jdwp", "chunks", "payload" };

/* --shape and --payload must agree: --payload means --shape=payload. */
static int shape_payload_conflict(const ddm_args *c)
{
	if (!c->payload || !c->shape_given || c->shape == HF_DDM_SHAPE_PAYLOAD ||
	    c->shape == HF_DDM_SHAPE_AUTO)
		return 0;
	cli_usage_error("--payload (the input is one chunk's payload) conflicts with --shape=%s",
	                shape_names[c->shape]);
	return 1;
}

/* One option with its value v. */
static int ddm_valued(ddm_args *c, int which, const char *v)
{
	if (which == OPT_ORDER) {
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
		return 1;
	}
	if (which == OPT_SHAPE) {
		int found = -1;
		for (int k = 0; k < 4; k++)
			if (!strcmp(v, shape_names[k]))
				found = k;
		if (found < 0) {
			cli_usage_error("--shape takes auto, jdwp, chunks or payload");
			return -1;
		}
		c->shape = (hf_ddm_shape)found;
		c->shape_given = 1;
		return shape_payload_conflict(c) ? -1 : 1;
	}
	/* --payload: chunk types are upper case; the option takes any case. */
	char type[5] = "";
	if (strlen(v) == 4)
		for (int k = 0; k < 5; k++)
			type[k] = (char)(v[k] >= 'a' && v[k] <= 'z' ? v[k] - 'a' + 'A' : v[k]);
	if (!(c->payload = hf_ddm_chunk_type(type))) {
		cli_usage_error("--payload takes a four-character chunk type (HPSG, HPSO, NHSG, HPIF, REAL ...)");
		return -1;
	}
	/* A payload that would only be recorded, never read, is a mistake in
	 * the command (a misspelt type, a chunk heapfmt does not decode): the
	 * output would hold nothing of it. */
	if (!hf_ddm_chunk_decoded(c->payload)) {
		cli_usage_error("--payload=%s: heapfmt does not decode %s chunks (the types it decodes: "
		                "man hpsg2ndjson, --payload)", type, type);
		return -1;
	}
	return shape_payload_conflict(c) ? -1 : 1;
}

/* The DDM readers' own options. */
static int ddm_option(void *ctx, int argc, char **argv, int *i)
{
	ddm_args *c = ctx;
	const char *a = argv[*i];
	if (c->prog->stream && !strcmp(a, "--strict")) {
		c->strict = 1;
		return 1;
	}
	/* --lenient: what it allowed is the default now; kept for old command
	 * lines. */
	if (c->prog->stream && !strcmp(a, "--lenient"))
		return 1;
	if (c->prog->stream && !strcmp(a, "--salvage")) {
		c->salvage = 1;
		return 1;
	}
	for (int k = 0; k < (c->prog->stream ? OPT_VALUED : OPT_ORDER + 1); k++) {
		int missing = 0;
		const char *v = cli_opt_value(valued[k], argc, argv, i, &missing);
		if (!v)
			continue;
		if (missing) {
			cli_usage_error("%s needs a value", valued[k]);
			return -1;
		}
		return ddm_valued(c, k, v);
	}
	return 0;
}

/* The options both readers share, from the command line and the run. */
#define RUN_OPTIONS(o, c, r) \
	((o).order = (c)->order, (o).source_name = (r)->in, (o).crtime = (r)->crtime, \
	 (o).generator = cli_prog, (o).warning = cli_warning_cb, (o).warning_ctx = (r))

static hf_status ddm_run(void *ctx, cli_run *r, hf_error *err)
{
	const ddm_args *c = ctx;
	hf_input *in = NULL;
	hf_status st = cli_run_open_input(r, &in, err);
	if (st)
		return st;
	r->warning_key = "ddm.warning";
	if (c->prog->stream) {
		hf_ddm_options o;
		hf_ddm_options_init(&o);
		o.shape = c->payload ? HF_DDM_SHAPE_PAYLOAD : c->shape;
		o.payload_type = c->payload;
		RUN_OPTIONS(o, c, r);
		o.strict = c->strict;
		o.salvage = c->salvage;
		o.progress = cli_progress_cb;
		o.progress_ctx = r->progress;
		hf_ddm_stats stats;
		st = hf_ddm_read(in, r->sink, &o, &stats, err);
		r->warnings = stats.warnings;
		if (st && stats.salvageable)
			cli_salvage_hint(err);
		if (!st && stats.incomplete) {
			r->salvaged = 1;
			r->damage = stats.damage;
		}
	} else {
		hf_alloc_options o;
		hf_alloc_options_init(&o);
		RUN_OPTIONS(o, c, r);
		hf_alloc_stats stats;
		st = hf_alloc_read(in, r->sink, &o, &stats, err);
		r->warnings = stats.warnings;
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
