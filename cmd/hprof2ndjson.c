/* hprof2ndjson: an HPROF heap dump to NDJSON records of the extensible
 * heap-dump format. */
#include "hprof_cli.h"
#include "heapfmt/analysis.h"
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static const char help[] =
	"Usage: hprof2ndjson [OPTION]... [IN|-] [OUT|-]\n"
	"Convert an HPROF heap dump (HotSpot, Android; plain or gzip) to NDJSON:\n"
	"one record of the extensible heap-dump format per line.\n"
	"IN defaults to standard input, OUT to standard output; '-' names them.\n"
	"\n"
	"      --salvage          on a damaged or truncated dump, keep what came before the\n"
	"                         damage (metadata heapfmt.complete=false; exit status 5)\n"
	"  --values               also write primitive field values and array contents\n"
	"      --analysis         also write the analysis (reachability, distance from the\n"
	"                         GC roots, dominator, retained size) as heapfmt.node_analysis\n"
	"                         records; builds a temporary database beside OUT (or in\n"
	"                         $TMPDIR for standard output)\n"
	"  --dump=N|all           convert only heap dump N (0-based) of a file with several\n"
	"                         (default: all, told apart by each record's \"dump\")\n"
	"  --compressed-oops=auto|yes|no\n"
	"                         HotSpot 64-bit size model (default auto: see the man page)\n"
	"  -q, --quiet            no progress indicator\n"
	"      --progress         show progress on stderr even when it is not a terminal\n"
	"  -h, --help             show this help and exit\n"
	"  -V, --version          show the version and exit\n"
	"\n"
	"Examples:\n"
	"  hprof2ndjson dump.hprof | jq -c 'select(.record==\"node\")' | head\n"
	"  zcat dump.hprof.gz | hprof2ndjson - dump.ndjson\n"
	"  hprof2ndjson --analysis dump.hprof | jq -c 'select(.record==\"heapfmt.node_analysis\")'\n"
	"\n"
	"Exit status: 0 success, 1 bad or truncated input, 2 usage error,\n"
	"3 I/O error, 4 out of memory, 5 salvaged a damaged input.  See hprof2ndjson(1).\n";

int main(int argc, char **argv)
{
	cli_init("hprof2ndjson");
	hprof_cli c;
	int rc = hprof_cli_parse(&c, argc, argv, 0, help);
	if (rc >= 0)
		return rc;
	const char *in = c.nargs > 0 ? c.args[0] : "-";
	const char *out = c.nargs > 1 ? c.args[1] : "-";
	hf_sink *sink;
	hf_error err;
	hf_status st;
	if (!strcmp(out, "-")) {
		static char buf[1 << 16];
		setvbuf(stdout, buf, _IOFBF, sizeof buf);
		st = hf_ndjson_sink_new(&sink, stdout, &err);
	} else {
		st = hf_ndjson_sink_open(&sink, out, &err);
	}
	if (!st && c.analysis) {
		/* The temporary database goes beside the output file, else into
		 * $TMPDIR. */
		char beside[4096];
		const char *tmpdir = getenv("TMPDIR");
		if (strcmp(out, "-"))
			snprintf(beside, sizeof beside, "%s", out);
		else
			snprintf(beside, sizeof beside, "%s/heapfmt-analysis",
			         tmpdir && *tmpdir ? tmpdir : "/tmp");
		st = hf_analysis_sink_new(&sink, sink, beside, &err);
	}
	if (st) {
		cli_report(NULL, &err);
		return cli_exit_code(st);
	}
	return hprof_cli_run(&c, in, sink);
}
