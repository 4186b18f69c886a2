/* alloc2ndjson: an Android allocation-tracker report (.alloc, REAL payload)
 * to NDJSON records of the extensible heap-dump format. */
#include "batch.h"
#include "ddm_cli.h"

static const char help[] =
	"Usage: alloc2ndjson [OPTION]... [IN|-] [OUT|-]\n"
	"  or:  alloc2ndjson [OPTION]... -o DIR IN...\n"
	"Convert an Android allocation-tracker report (an Android Studio .alloc file,\n"
	"the payload of a DDM REAL reply; plain or gzip) to NDJSON: one record of the\n"
	"extensible heap-dump format per line (ddm.allocation, ddm.stack_frame, ...).\n"
	"IN defaults to standard input, OUT to standard output; '-' names them.\n"
	"\n"
	"  --order=auto|newest-first|oldest-first\n"
	"                         entry order of the report (ART 7+ newest first,\n"
	"                         Dalvik and ART 5-6 oldest first; default auto: guessed\n"
	"                         from the thread ids, see the man page); sets 'sequence'\n"
	BATCH_HELP
	CLI_COMMON_HELP
	"\n"
	"Examples:\n"
	"  alloc2ndjson capture.alloc | jq -c 'select(.record==\"ddm.allocation\") | {class, size, thread}'\n"
	"  alloc2ndjson --order=oldest-first dalvik.alloc out.ndjson\n"
	"\n"
	"Exit status: 0 success, 1 bad or truncated input, 2 usage error,\n"
	"3 I/O error, 4 out of memory.  See alloc2ndjson(1).\n";

int main(int argc, char **argv)
{
	static const ddm_cli_prog prog = { "alloc2ndjson", 0, 0, help };
	return ddm_cli_main(&prog, argc, argv);
}
