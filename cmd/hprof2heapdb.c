/* hprof2heapdb: an HPROF heap dump to an indexed SQLite heap database. */
#include "hprof_cli.h"
#include <stdio.h>
#include <string.h>

static const char help[] =
	"Usage: hprof2heapdb [OPTION]... IN|- OUT.db\n"
	"Convert an HPROF heap dump (HotSpot, Android; plain or gzip) to a SQLite\n"
	"database of the extensible heap-dump format, indexed for queries.\n"
	"OUT.db is written under a temporary name and renamed only when complete.\n"
	"\n"
	"  -f, --force            replace OUT.db if it exists\n"
	"      --no-index         skip the indexes (faster; queries will scan)\n"
	"      --no-analysis      skip the analysis (reachability, distance from the GC\n"
	"                         roots, dominators, retained sizes: node_analysis)\n"
	"      --salvage          on a damaged or truncated dump, keep what came before the\n"
	"                         damage (metadata heapfmt.complete=false; exit status 5)\n"
	"  --values               also store primitive field values and array contents\n"
	"  --dump=N|all           convert only heap dump N (0-based) of a file with several\n"
	"  --compressed-oops=auto|yes|no\n"
	"                         HotSpot 64-bit size model (default auto: see the man page)\n"
	"  -q, --quiet            no progress indicator\n"
	"      --progress         show progress on stderr even when it is not a terminal\n"
	"  -h, --help             show this help and exit\n"
	"  -V, --version          show the version and exit\n"
	"\n"
	"Examples:\n"
	"  hprof2heapdb dump.hprof out.db\n"
	"  sqlite3 out.db < schema/queries/class_histogram.sql\n"
	"  sqlite3 -header -column out.db < schema/queries/top_retained.sql\n"
	"\n"
	"Exit status: 0 success, 1 bad or truncated input, 2 usage error,\n"
	"3 I/O error (also: OUT.db exists without --force), 4 out of memory,\n"
	"5 salvaged a damaged input (--salvage).\n"
	"See hprof2heapdb(1).\n";

int main(int argc, char **argv)
{
	cli_init("hprof2heapdb");
	hprof_cli c;
	int rc = hprof_cli_parse(&c, argc, argv, 1, help);
	if (rc >= 0)
		return rc;
	if (c.nargs != 2) {
		cli_usage_error("needs an input dump and an output database");
		return EXIT_USAGE;
	}
	if (!strcmp(c.args[1], "-")) {
		cli_usage_error("a database cannot be written to standard output; name a file");
		return EXIT_USAGE;
	}
	hf_heapdb_options o = { c.force, c.no_index, !c.no_analysis };
	hf_sink *sink;
	hf_error err;
	hf_status st = hf_heapdb_sink_open(&sink, c.args[1], &o, &err);
	if (st) {
		cli_report(NULL, &err);
		return cli_exit_code(st);
	}
	return hprof_cli_run(&c, c.args[0], sink);
}
