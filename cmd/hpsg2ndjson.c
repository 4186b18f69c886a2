/* hpsg2ndjson: a recorded DDM stream (heap info, heap segments, allocation
 * reports, threads) to NDJSON records of the extensible heap-dump format. */
#include "batch.h"
#include "ddm_cli.h"

static const char help[] =
	"Usage: hpsg2ndjson [OPTION]... [IN|-] [OUT|-]\n"
	"  or:  hpsg2ndjson [OPTION]... -o DIR IN...\n"
	"Convert a recorded DDM stream to NDJSON: one record of the extensible heap-dump\n"
	"format per line.  The input is JDWP traffic (with or without the handshake,\n"
	"both directions interleaved, a debugger's packets skipped), a sequence of bare\n"
	"DDM chunks, or the payload of one chunk; plain or gzip.  HPIF, HPST/HPSG/HPSO/\n"
	"HPEN, NHST/NHSG/NHEN, REAL, THCR/THNM/THDE/THST, HELO, APNM ... are decoded,\n"
	"ZLIB chunks inflated, other chunks counted.\n"
	"IN defaults to standard input, OUT to standard output; '-' names them.\n"
	"\n"
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
	"  hpsg2ndjson ddm-capture.bin | jq -c 'select(.record==\"ddm.heap_dump\")'\n"
	"  hpsg2ndjson --payload=HPSO segment.bin out.ndjson\n"
	"\n"
	"Exit status: 0 success, 1 bad or truncated input, 2 usage error,\n"
	"3 I/O error, 4 out of memory, 5 salvaged a damaged input (--salvage).\n"
	"See hpsg2ndjson(1).\n";

int main(int argc, char **argv)
{
	static const ddm_cli_prog prog = { "hpsg2ndjson", 0, 1, help };
	return ddm_cli_main(&prog, argc, argv);
}
