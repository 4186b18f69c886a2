/* hpsg2heapdb: a recorded DDM stream (heap info, heap segments, allocation
 * reports, threads) to an indexed SQLite heap database. */
#include "batch.h"
#include "ddm_cli.h"

static const char help[] =
	"Usage: hpsg2heapdb [OPTION]... IN|- OUT.db\n"
	"  or:  hpsg2heapdb [OPTION]... -o DIR IN...\n"
	"Convert a recorded DDM stream to a SQLite database of the extensible heap-dump\n"
	"format (tables ddm_heap_dump, ddm_heap_run, ddm_allocation, ...).  The input is\n"
	"JDWP traffic (with or without the handshake, both directions interleaved, a\n"
	"debugger's packets skipped), a sequence of bare DDM chunks, or the payload of\n"
	"one chunk; plain or gzip.\n"
	"OUT.db is written under a temporary name and renamed only when complete.\n"
	"\n"
	"  -f, --force            replace OUT.db if it exists\n"
	"      --no-index         skip the indexes (faster; queries will scan)\n"
	"  --shape=auto|jdwp|chunks|payload\n"
	"                         what the input is (default auto: told from the first bytes)\n"
	"  --payload=TYPE         the input is the payload of one TYPE chunk (HPSG, HPSO,\n"
	"                         NHSG, HPIF, REAL ...; any case); implies --shape=payload\n"
	"  --strict               fail on an unpaired HPST/HPEN or a segment outside a\n"
	"                         series (default: a warning, the series incomplete)\n"
	"  --lenient              accepted for compatibility; does nothing (the default)\n"
	"  --salvage              on a damaged or truncated stream, keep what came before\n"
	"                         the damage (heapfmt.complete=false; exit status 5)\n"
	"  --order=auto|newest-first|oldest-first\n"
	"                         entry order of REAL reports (default auto, see the man page)\n"
	BATCH_HELP
	CLI_COMMON_HELP
	"\n"
	"Examples:\n"
	"  hpsg2heapdb ddm-capture.bin out.db\n"
	"  sqlite3 out.db < schema/queries/heap_fragmentation.sql\n"
	"\n"
	"Exit status: 0 success, 1 bad or truncated input, 2 usage error,\n"
	"3 I/O error (also: OUT.db exists without --force), 4 out of memory,\n"
	"5 salvaged a damaged input (--salvage).  See hpsg2heapdb(1).\n";

int main(int argc, char **argv)
{
	static const ddm_cli_prog prog = { "hpsg2heapdb", 1, 1, help };
	return ddm_cli_main(&prog, argc, argv);
}
