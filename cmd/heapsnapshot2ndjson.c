/* heapsnapshot2ndjson: a V8 heap snapshot (Node.js, Chrome) to NDJSON
 * records of the extensible heap-dump format. */
#include "batch.h"
#include "v8_cli.h"

static const char help[] =
	"Usage: heapsnapshot2ndjson [OPTION]... [IN|-] [OUT|-]\n"
	"  or:  heapsnapshot2ndjson [OPTION]... -o DIR IN...\n"
	"Convert a V8 heap snapshot (.heapsnapshot from Node.js v8.writeHeapSnapshot(),\n"
	"node --heapsnapshot-signal, Chrome DevTools; plain or gzip) to NDJSON: one\n"
	"record of the extensible heap-dump format per line.  Node and edge types come\n"
	"from the snapshot's own meta; names are string records.  Read in one pass with\n"
	"bounded memory (8 bytes per node).\n"
	"IN defaults to standard input, OUT to standard output; '-' names them.\n"
	"\n"
	BATCH_HELP
	CLI_COMMON_HELP
	"\n"
	"Examples:\n"
	"  heapsnapshot2ndjson app.heapsnapshot | jq -c 'select(.record==\"node\")' | head\n"
	"  heapsnapshot2ndjson -o out/ *.heapsnapshot\n"
	"\n"
	"Exit status: 0 success, 1 bad or truncated input, 2 usage error,\n"
	"3 I/O error, 4 out of memory.  See heapsnapshot2ndjson(1).\n";

int main(int argc, char **argv)
{
	return v8_cli_main("heapsnapshot2ndjson", 0, help, argc, argv);
}
