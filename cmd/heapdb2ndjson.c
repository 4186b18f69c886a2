/* heapdb2ndjson: a heap database back to NDJSON records, in the canonical
 * order (see heapfmt/translate.h). */
#include "batch.h"
#include "heapfmt/translate.h"
#include <string.h>

static const char help[] =
	"Usage: heapdb2ndjson [OPTION]... IN.db [OUT|-]\n"
	"  or:  heapdb2ndjson [OPTION]... -o DIR IN.db...\n"
	"Translate a heap database (from hprof2heapdb, alloc2heapdb, hpsg2heapdb,\n"
	"ndjson2heapdb) back into NDJSON records of the extensible heap-dump format,\n"
	"in the canonical order: metadata, declarations, strings by id, nodes by\n"
	"identifier, edges by source, then the other records type by type.  The same\n"
	"database always gives the same bytes.  OUT defaults to standard output.\n"
	"\n"
	BATCH_HELP
	CLI_COMMON_HELP
	"\n"
	"Examples:\n"
	"  heapdb2ndjson dump.db | jq -c 'select(.record==\"node\" and .size > 100000)'\n"
	"  ndjson2heapdb any.ndjson t.db && heapdb2ndjson t.db canonical.ndjson\n"
	"\n"
	"Exit status: 0 success, 1 bad input (not a heap database), 2 usage error,\n"
	"3 I/O error, 4 out of memory.  See heapdb2ndjson(1).\n";

static hf_status run(void *ctx, cli_run *r, hf_error *err)
{
	(void)ctx;
	if (!strcmp(r->in, "-"))
		return hf_error_set(err, HF_ERR_USAGE,
		                    "a database cannot be read from standard input; name the file");
	return hf_heapdb_read(r->in, r->sink, NULL, err);
}

int main(int argc, char **argv)
{
	static const char *const exts[] = { ".db", ".sqlite", ".heapdb", NULL };
	cli_converter conv = {
		.name = "heapdb2ndjson",
		.heapdb = 0,
		.help = help,
		.out_ext = ".ndjson",
		.in_exts = exts,
		.needs_input = "needs a heap database (and an output, default standard output)",
		.read = run,
	};
	return cli_converter_main(&conv, argc, argv);
}
