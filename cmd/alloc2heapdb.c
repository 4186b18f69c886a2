/* alloc2heapdb: an Android allocation-tracker report (.alloc, REAL payload)
 * to an indexed SQLite heap database. */
#include "batch.h"
#include "ddm_cli.h"

static const char help[] =
	"Usage: alloc2heapdb [OPTION]... IN|- OUT.db\n"
	"  or:  alloc2heapdb [OPTION]... -o DIR IN...\n"
	"Convert an Android allocation-tracker report (an Android Studio .alloc file,\n"
	"the payload of a DDM REAL reply; plain or gzip) to a SQLite database of the\n"
	"extensible heap-dump format (tables ddm_allocation, ddm_stack_frame, ...).\n"
	"OUT.db is written under a temporary name and renamed only when complete.\n"
	"\n"
	"  -f, --force            replace OUT.db if it exists\n"
	"      --no-index         skip the indexes (faster; queries will scan)\n"
	"  --order=auto|newest-first|oldest-first\n"
	"                         entry order of the report (ART 7+ newest first,\n"
	"                         Dalvik and ART 5-6 oldest first; default auto: guessed\n"
	"                         from the thread ids, see the man page); sets 'sequence'\n"
	BATCH_HELP
	CLI_COMMON_HELP
	"\n"
	"Examples:\n"
	"  alloc2heapdb capture.alloc out.db\n"
	"  sqlite3 out.db < schema/queries/alloc_sites.sql\n"
	"\n"
	"Exit status: 0 success, 1 bad or truncated input, 2 usage error,\n"
	"3 I/O error (also: OUT.db exists without --force), 4 out of memory.\n"
	"See alloc2heapdb(1).\n";

int main(int argc, char **argv)
{
	static const ddm_cli_prog prog = { "alloc2heapdb", 1, 0, help };
	return ddm_cli_main(&prog, argc, argv);
}
