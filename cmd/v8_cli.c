/* The V8 reader's run, for heapsnapshot2ndjson and heapsnapshot2heapdb. */
#include "v8_cli.h"
#include "heapfmt/v8.h"

static hf_status v8_run(void *ctx, cli_run *r, hf_error *err)
{
	(void)ctx;
	hf_input *in = NULL;
	hf_status st = cli_run_open_input(r, &in, err);
	if (st)
		return st;
	hf_v8_options opt;
	hf_v8_options_init(&opt);
	opt.progress = cli_progress_cb;
	opt.progress_ctx = r->progress;
	opt.generator = cli_prog;
	opt.source_name = r->in;
	opt.crtime = r->crtime;
	st = hf_v8_read(in, r->sink, &opt, NULL, err);
	hf_input_close(in);
	return st;
}

int v8_cli_main(const char *name, int heapdb, const char *help, int argc, char **argv)
{
	static const char *const exts[] = { ".heapsnapshot", ".json", NULL };
	cli_converter conv = {
		.name = name,
		.heapdb = heapdb,
		.help = help,
		.out_ext = heapdb ? ".db" : ".ndjson",
		.in_exts = exts,
		.read = v8_run,
	};
	return cli_converter_main(&conv, argc, argv);
}
