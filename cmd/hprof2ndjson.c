/* hprof2ndjson: an HPROF heap dump to NDJSON records of the extensible
 * heap-dump format. */
#include "batch.h"
#include "hprof_cli.h"

static const char help[] =
	"Usage: hprof2ndjson [OPTION]... [IN|-] [OUT|-]\n"
	"  or:  hprof2ndjson [OPTION]... -o DIR IN...\n"
	"Convert an HPROF heap dump (HotSpot, Android; plain or gzip) to NDJSON:\n"
	"one record of the extensible heap-dump format per line.\n"
	"IN defaults to standard input, OUT to standard output; '-' names them.\n"
	"\n"
	"      --analysis         also write the analysis (reachability, distance from the\n"
	"                         GC roots, dominator, retained size) as heapfmt.node_analysis\n"
	"                         records; builds a temporary database beside OUT (or in\n"
	"                         $TMPDIR for standard output)\n"
	CLI_ANALYSIS_MEMORY_HELP
	"      --salvage          on a damaged or truncated dump, keep what came before the\n"
	"                         damage (metadata heapfmt.complete=false; exit status 5)\n"
	"      --values           also write primitive field values and array contents\n"
	"      --values-limit=SIZE  with --values, a node whose values text would pass\n"
	"                         SIZE bytes (K, M, G; default 64M) goes without it,\n"
	"                         with a warning (0: no limit)\n"
	"  --dump=N|all           convert only heap dump N (0-based) of a file with several\n"
	"                         (default: all, told apart by each record's \"dump\")\n"
	"  --compressed-oops=auto|yes|no\n"
	"                         HotSpot 64-bit size model (default auto: see the man page)\n"
	BATCH_HELP
	CLI_COMMON_HELP
	"\n"
	"Examples:\n"
	"  hprof2ndjson dump.hprof | jq -c 'select(.record==\"node\")' | head\n"
	"  zcat dump.hprof.gz | hprof2ndjson - dump.ndjson\n"
	"  hprof2ndjson --stats=json -o out/ a.hprof b.hprof.gz\n"
	"  hprof2ndjson --analysis dump.hprof | jq -c 'select(.record==\"heapfmt.node_analysis\")'\n"
	"\n"
	"Exit status: 0 success, 1 bad or truncated input, 2 usage error,\n"
	"3 I/O error, 4 out of memory, 5 salvaged a damaged input.  See hprof2ndjson(1).\n";

int main(int argc, char **argv)
{
	return hprof_cli_main("hprof2ndjson", 0, help, argc, argv);
}
