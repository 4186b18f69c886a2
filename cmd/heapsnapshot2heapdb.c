/* heapsnapshot2heapdb: a V8 heap snapshot (Node.js, Chrome) to an indexed
 * SQLite heap database. */
#include "batch.h"
#include "v8_cli.h"

static const char help[] =
	"Usage: heapsnapshot2heapdb [OPTION]... IN|- OUT.db\n"
	"  or:  heapsnapshot2heapdb [OPTION]... -o DIR IN...\n"
	"Convert a V8 heap snapshot (.heapsnapshot from Node.js or Chrome; plain or\n"
	"gzip) to a SQLite heap database, indexed for queries.  heapdb2heapsnapshot\n"
	"writes it back as a snapshot.\n"
	"OUT.db is written under a temporary name and renamed only when complete.\n"
	"\n"
	"  -f, --force            replace OUT.db if it exists\n"
	"      --no-index         skip the indexes (faster; queries will scan)\n"
	BATCH_HELP
	CLI_COMMON_HELP
	"\n"
	"Examples:\n"
	"  heapsnapshot2heapdb app.heapsnapshot app.db\n"
	"  sqlite3 app.db \"SELECT s.data, count(*), sum(n.size) FROM node n\n"
	"    JOIN node_v8_object o ON o.node_identifier = n.identifier\n"
	"    JOIN strings s ON s.stringid = o.name GROUP BY 1 ORDER BY 3 DESC LIMIT 10\"\n"
	"\n"
	"Exit status: 0 success, 1 bad or truncated input, 2 usage error,\n"
	"3 I/O error (also: OUT.db exists without --force), 4 out of memory.\n"
	"See heapsnapshot2heapdb(1).\n";

int main(int argc, char **argv)
{
	return v8_cli_main("heapsnapshot2heapdb", 1, help, argc, argv);
}
