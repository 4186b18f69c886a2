/* heapdb2heapsnapshot: a heap database (from a V8 snapshot, HPROF, or any
 * producer) as a V8 heap snapshot that Chrome DevTools and Node.js tools
 * open. */
#include "cli.h"
#include "heapfmt/v8.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
	"Usage: heapdb2heapsnapshot [OPTION]... IN.db [OUT.heapsnapshot|-]\n"
	"Write heap dump N (default 0) of a heap database as a V8 heap snapshot\n"
	"(.heapsnapshot) for Chrome DevTools (Memory tab, Load) and Node.js tools.\n"
	"A database made by heapsnapshot2heapdb gives back its snapshot's nodes,\n"
	"edges, types and names; one made from HPROF or DDM gets objects named by\n"
	"class, arrays as \"array\", references as properties and elements, and\n"
	"synthetic nodes for the root, \"(GC roots)\" and each GC-root kind.\n"
	"OUT defaults to standard output; a file is written under a temporary name\n"
	"and renamed only when complete.\n"
	"\n"
	"      --dump=N           export heap dump N of the database (default 0)\n"
	CLI_COMMON_HELP
	"\n"
	"Examples:\n"
	"  hprof2heapdb dump.hprof dump.db && heapdb2heapsnapshot dump.db dump.heapsnapshot\n"
	"  heapsnapshot2heapdb app.heapsnapshot app.db && heapdb2heapsnapshot app.db copy.heapsnapshot\n"
	"\n"
	"Exit status: 0 success, 1 bad input (not a heap database), 2 usage error,\n"
	"3 I/O error, 4 out of memory.  See heapdb2heapsnapshot(1).\n";

static int run(int argc, char **argv)
{
	hf_v8_export_options opt;
	hf_v8_export_options_init(&opt);
	const char *args[2];
	int nargs = 0, progress_mode = 0, only_args = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int missing = 0, c;
		if (only_args || a[0] != '-' || !strcmp(a, "-")) {
			if (nargs == 2) {
				cli_usage_error("too many arguments");
				return EXIT_USAGE;
			}
			args[nargs++] = a;
		} else if (!strcmp(a, "--")) {
			only_args = 1;
		} else if ((c = cli_common_option(a, help, &progress_mode)) != 0) {
			if (c == 2)
				return EXIT_OK;
		} else if ((v = cli_opt_value("--dump", argc, argv, &i, &missing))) {
			char *end;
			errno = 0;
			long d = missing ? -1 : strtol(v, &end, 10);
			if (missing || !*v || *end || d < 0 || errno == ERANGE) {
				cli_usage_error("--dump takes a dump index (0, 1, ...)");
				return EXIT_USAGE;
			}
			opt.dump = d;
		} else if (cli_split_short_group(&argc, &argv, i, "hVq", "")) {
			i--;
		} else {
			cli_usage_error("unknown option '%s'", a);
			return EXIT_USAGE;
		}
	}
	if (nargs < 1) {
		cli_usage_error("needs a heap database (and an output, default standard output)");
		return EXIT_USAGE;
	}
	if (!args[0][0] || (nargs > 1 && !args[1][0])) {
		cli_usage_error("an empty file name");
		return EXIT_USAGE;
	}
	if (!strcmp(args[0], "-")) {
		cli_usage_error("a database cannot be read from standard input; name the file");
		return EXIT_USAGE;
	}
	if (nargs > 1 && cli_refuse_output_over_input(args[0], args[1]))
		return EXIT_USAGE;
	cli_progress pr;
	cli_progress_init(&pr, progress_mode);
	pr.unit = "nodes and edges";
	opt.progress = cli_progress_cb;
	opt.progress_ctx = &pr;
	opt.generator = cli_prog;
	hf_error err;
	hf_status st = hf_v8_export(args[0], nargs > 1 ? args[1] : "-", &opt, NULL, &err);
	cli_progress_end(&pr, st == HF_OK);
	if (st) {
		cli_report(args[0], &err);
		return cli_exit_code(st);
	}
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	cli_init("heapdb2heapsnapshot");
	return cli_exit(run(argc, argv));
}
