/* ndjson2heapdb: NDJSON records of the extensible heap-dump format (from any
 * heapfmt converter, or any other producer of the format) to an indexed
 * SQLite heap database. */
#include "batch.h"
#include "heapfmt/translate.h"
#include <stdio.h>
#include <string.h>

static const char help[] =
	"Usage: ndjson2heapdb [OPTION]... IN|- OUT.db\n"
	"  or:  ndjson2heapdb [OPTION]... -o DIR IN...\n"
	"Translate NDJSON records of the extensible heap-dump format (plain or gzip)\n"
	"into a SQLite heap database, indexed for queries.  Every declared type passes\n"
	"through, also record types this version does not know.  heapdb2ndjson\n"
	"translates back without loss.\n"
	"OUT.db is written under a temporary name and renamed only when complete.\n"
	"\n"
	"  -f, --force            replace OUT.db if it exists\n"
	"      --no-index         skip the indexes (faster; queries will scan)\n"
	"      --ignore-unknown-keys\n"
	"                         drop keys that no declaration names (counted in the\n"
	"                         metadata key heapdb.unknown_keys) instead of failing\n"
	BATCH_HELP
	CLI_COMMON_HELP
	"\n"
	"Examples:\n"
	"  hprof2ndjson dump.hprof | jq -c 'select(.record!=\"edge\")' | ndjson2heapdb - small.db\n"
	"  ndjson2heapdb dump.ndjson.gz dump.db\n"
	"\n"
	"Exit status: 0 success, 1 bad input (not NDJSON of the format), 2 usage error,\n"
	"3 I/O error (also: OUT.db exists without --force), 4 out of memory.\n"
	"See ndjson2heapdb(1).\n";

static int option(void *ctx, int argc, char **argv, int *i)
{
	(void)argc;
	if (strcmp(argv[*i], "--ignore-unknown-keys"))
		return 0;
	((hf_ndjson_read_options *)ctx)->ignore_unknown_keys = 1;
	return 1;
}

static hf_status run(void *ctx, cli_run *r, hf_error *err)
{
	hf_ndjson_read_options opt = *(const hf_ndjson_read_options *)ctx;
	hf_input *in = NULL;
	hf_status st = cli_run_open_input(r, &in, err);
	if (st)
		return st;
	opt.progress = cli_progress_cb;
	opt.progress_ctx = r->progress;
	hf_read_stats stats;
	st = hf_ndjson_read(in, r->sink, &opt, &stats, err);
	hf_input_close(in);
	if (!st && !stats.metadata && !stats.types && !stats.strings && !stats.nodes && !stats.edges &&
	    !stats.records)
		fprintf(stderr, "%s: %s: warning: no records (did the program that should have written "
		        "them fail?); the database is empty\n", cli_prog, cli_input_name(r->in));
	else if (!st) {
		/* Joined streams (cat a.ndjson b.ndjson): each cut short is told,
		 * not only the last. */
		if (stats.cut_line)
			fprintf(stderr, "%s: %s: warning: a stream ends without heapfmt.complete before line %llu, "
			        "where another begins (heapfmt.schema): the program that wrote it stopped early, and "
			        "the database holds what it wrote\n",
			        cli_prog, cli_input_name(r->in), (unsigned long long)stats.cut_line);
		if (stats.after_complete)
			fprintf(stderr, "%s: %s: warning: records from line %llu on follow heapfmt.complete (line %llu), "
			        "which ends a stream (were streams joined or lines appended?); the database holds them all\n",
			        cli_prog, cli_input_name(r->in), (unsigned long long)stats.after_complete,
			        (unsigned long long)stats.complete_line);
		if (stats.unfinished)
			fprintf(stderr, "%s: %s: warning: the records end without heapfmt.complete: the program that "
			        "wrote them stopped early, and the database holds what it wrote\n",
			        cli_prog, cli_input_name(r->in));
	}
	if (!st && stats.unknown_keys) {
		char num[32];
		snprintf(num, sizeof num, "%llu", (unsigned long long)stats.unknown_keys);
		st = hf_sink_metadata(r->sink, "heapdb.unknown_keys", num, err);
	}
	return st;
}

int main(int argc, char **argv)
{
	static const char *const exts[] = { ".ndjson", ".jsonl", ".json", NULL };
	hf_ndjson_read_options opt;
	hf_ndjson_read_options_init(&opt);
	cli_converter conv = {
		.name = "ndjson2heapdb",
		.heapdb = 1,
		.help = help,
		.out_ext = ".db",
		.in_exts = exts,
		.option = option,
		.read = run,
		.ctx = &opt,
	};
	return cli_converter_main(&conv, argc, argv);
}
