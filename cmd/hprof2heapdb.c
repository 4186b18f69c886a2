/* hprof2heapdb: an HPROF heap dump to an indexed SQLite heap database. */
#include "batch.h"
#include "hprof_cli.h"

static const char help[] =
	"Usage: hprof2heapdb [OPTION]... IN|- OUT.db\n"
	"  or:  hprof2heapdb [OPTION]... -o DIR IN...\n"
	"Convert an HPROF heap dump (HotSpot, Android; plain or gzip) to a SQLite\n"
	"database of the extensible heap-dump format, indexed for queries.\n"
	"OUT.db is written under a temporary name and renamed only when complete.\n"
	"\n"
	"  -f, --force            replace OUT.db if it exists\n"
	"      --no-index         skip the indexes (faster; queries will scan)\n"
	"      --no-analysis      skip the analysis (reachability, distance from the GC\n"
	"                         roots, dominators, retained sizes: node_analysis)\n"
	CLI_ANALYSIS_MEMORY_HELP
	"      --salvage          on a damaged or truncated dump, keep what came before the\n"
	"                         damage (metadata heapfmt.complete=false; exit status 5)\n"
	"      --values           also store primitive field values and array contents\n"
	"      --values-limit=SIZE  with --values, a node whose values text would pass\n"
	"                         SIZE bytes (K, M, G; default 64M) goes without it,\n"
	"                         with a warning (0: as large as SQLite takes)\n"
	"  --dump=N|all           convert only heap dump N (0-based) of a file with several\n"
	"  --compressed-oops=auto|yes|no\n"
	"                         HotSpot 64-bit size model (default auto: see the man page)\n"
	BATCH_HELP
	CLI_COMMON_HELP
	"\n"
	"Examples:\n"
	"  hprof2heapdb dump.hprof out.db\n"
	"  sqlite3 out.db < schema/queries/class_histogram.sql\n"
	"  hprof2heapdb -j 2 -o dbs/ captures/*.hprof.gz\n"
	"  sqlite3 -header -column out.db < schema/queries/top_retained.sql\n"
	"\n"
	"Exit status: 0 success, 1 bad or truncated input, 2 usage error,\n"
	"3 I/O error (also: OUT.db exists without --force), 4 out of memory,\n"
	"5 salvaged a damaged input (--salvage).\n"
	"See hprof2heapdb(1).\n";

int main(int argc, char **argv)
{
	return hprof_cli_main("hprof2heapdb", 1, help, argc, argv);
}
