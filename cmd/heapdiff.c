/* heapdiff: what changed between two heap dumps or heap databases, per class
 * and per GC-root kind, with the largest new objects; text for people, NDJSON
 * for scripts, and thresholds that make CI fail. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "heapfmt/diff.h"
#include <errno.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { EXIT_THRESHOLD = 6 };

static const char help[] =
	"Usage: heapdiff [OPTION]... BEFORE AFTER\n"
	"Compare two heap databases (of any converter; V8 ones grouped by constructor)\n"
	"or two HPROF dumps (plain or gzip; converted to a temporary database first):\n"
	"per class, the change in instances and shallow bytes, and in retained bytes\n"
	"when both hold the analysis; GC-root kinds that are new or gone; the largest\n"
	"objects of AFTER that BEFORE does not hold.\n"
	"\n"
	"      --format=text|ndjson  a report for people (default), or one JSON record\n"
	"                         per line for scripts\n"
	"      --top=N            text: the N classes that grew most, (N+1)/2 that shrank\n"
	"                         most (default 20; 0 = every changed class)\n"
	"      --objects=N        list the N largest new objects (default 10)\n"
	"      --class=GLOB       only classes whose name matches GLOB (fnmatch, e.g.\n"
	"                         'com.example.*'); may be repeated\n"
	"      --fail-bytes=N     exit 6 if a class's shallow bytes grew by more than N\n"
	"      --fail-count=N     exit 6 if a class's instances grew by more than N\n"
	CLI_COMMON_HELP
	"\n"
	"Examples:\n"
	"  heapdiff before.hprof after.hprof\n"
	"  heapdiff --class='com.example.*' --fail-count=1000 base.db run.db\n"
	"  heapdiff --format=ndjson a.db b.db | jq -c 'select(.record==\"heapdiff.class\")'\n"
	"\n"
	"Exit status: 0 no threshold crossed, 1 bad input, 2 usage error, 3 I/O error,\n"
	"4 out of memory, 6 a --fail-bytes or --fail-count threshold was crossed.\n"
	"See heapdiff(1).\n";

typedef struct opts {
	int ndjson;
	long top, objects;
	long long fail_bytes, fail_count; /* -1: none */
	const char **globs;
	int nglobs;
	int progress_mode;
	const char *args[2];
	int nargs;
} opts;

static int parse_num(const char *s, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (!*s || *end || v < 0 || errno == ERANGE)
		return 0;
	*out = v;
	return 1;
}

/* Returns -1 to go on, else an exit status. */
static int parse(opts *o, int argc, char **argv)
{
	int only_args = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int missing = 0, c;
		long long n = 0;
		if (only_args || a[0] != '-' || !strcmp(a, "-")) {
			if (o->nargs == 2) {
				cli_usage_error("too many arguments");
				return EXIT_USAGE;
			}
			o->args[o->nargs++] = a;
		} else if (!strcmp(a, "--")) {
			only_args = 1;
		} else if ((c = cli_common_option(a, help, &o->progress_mode)) != 0) {
			if (c == 2)
				return EXIT_OK;
		} else if ((v = cli_opt_value("--format", argc, argv, &i, &missing))) {
			if (strcmp(v, "text") && strcmp(v, "ndjson")) {
				cli_usage_error("--format takes text or ndjson");
				return EXIT_USAGE;
			}
			o->ndjson = !strcmp(v, "ndjson");
		} else if ((v = cli_opt_value("--class", argc, argv, &i, &missing))) {
			o->globs[o->nglobs++] = v;
		} else if ((v = cli_opt_value("--top", argc, argv, &i, &missing)) ||
		           (v = cli_opt_value("--objects", argc, argv, &i, &missing)) ||
		           (v = cli_opt_value("--fail-bytes", argc, argv, &i, &missing)) ||
		           (v = cli_opt_value("--fail-count", argc, argv, &i, &missing))) {
			if (!missing && !parse_num(v, &n)) {
				cli_usage_error("%.*s takes a number, not '%s'", (int)strcspn(a, "="), a, v);
				return EXIT_USAGE;
			}
			if (!strncmp(a, "--top", 5))
				o->top = n > 1000000 ? 1000000 : (long)n;
			else if (!strncmp(a, "--objects", 9))
				o->objects = n > 1000000 ? 1000000 : (long)n;
			else if (!strncmp(a, "--fail-bytes", 12))
				o->fail_bytes = n;
			else
				o->fail_count = n;
		} else if (cli_split_short_group(&argc, &argv, i, "hVq", "")) {
			i--;
		} else {
			cli_usage_error("unknown option '%s'", a);
			return EXIT_USAGE;
		}
		if (missing) {
			cli_usage_error("%s needs a value", a);
			return EXIT_USAGE;
		}
	}
	if (o->nargs != 2) {
		cli_usage_error("needs two heap databases or dumps: BEFORE AFTER");
		return EXIT_USAGE;
	}
	if (!o->args[0][0] || !o->args[1][0]) {
		cli_usage_error("an empty file name");
		return EXIT_USAGE;
	}
	if (!strcmp(o->args[0], "-") && !strcmp(o->args[1], "-")) {
		cli_usage_error("standard input can be only one of the two");
		return EXIT_USAGE;
	}
	return -1;
}

/* ---- inputs: a database as it is, a dump converted to a temporary one ---- */

static char tmpdir[64], tmp_before[96], tmp_after[96];

/* Async-signal-safe (cli_init's handler calls it too): the names were made
 * with the directory. */
static void remove_temporaries(void)
{
	if (!tmpdir[0])
		return;
	unlink(tmp_before);
	unlink(tmp_after);
	rmdir(tmpdir);
}

/* A database is a regular file that starts with SQLite's magic; '-'
 * (standard input) and a pipe are dumps, and are not read here (what was
 * read of a pipe would be lost to the dump's reader). */
static int is_database(const char *path)
{
	char magic[16];
	struct stat sb;
	if (!strcmp(path, "-") || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
		return 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t n = fread(magic, 1, sizeof magic, f);
	fclose(f);
	return n == sizeof magic && !memcmp(magic, "SQLite format 3", 16);
}

/* Sets *db to the database to compare; returns an exit status. */
static int prepare_input(const opts *o, const char *path, const char *which, char *db, size_t size)
{
	if (is_database(path)) {
		snprintf(db, size, "%s", path);
		return EXIT_OK;
	}
	if (!tmpdir[0]) {
		const char *t = getenv("TMPDIR");
		snprintf(tmpdir, sizeof tmpdir, "%s/heapdiff-XXXXXX", t && *t && strlen(t) < 40 ? t : "/tmp");
		if (!mkdtemp(tmpdir)) {
			tmpdir[0] = 0;
			perror("heapdiff: cannot make a temporary directory");
			return EXIT_IO;
		}
		snprintf(tmp_before, sizeof tmp_before, "%s/before.db", tmpdir);
		snprintf(tmp_after, sizeof tmp_after, "%s/after.db", tmpdir);
	}
	snprintf(db, size, "%s/%s.db", tmpdir, which);
	hf_error err;
	hf_input *in = NULL;
	hf_sink *sink = NULL;
	/* The diff needs only the keys; the analysis gives retained bytes. */
	hf_heapdb_options dbo = { .force = 1, .no_index = 1, .analysis = 1 };
	hf_status st = hf_input_open(&in, path, &err);
	/* A database through a pipe (heapdiff - b.db < a.db) cannot be read:
	 * SQLite needs its file.  A usage error, as for the other programs that
	 * read databases, not a dump that will not parse. */
	const uint8_t *head;
	size_t have;
	if (!st && !hf_input_peek_some(in, 16, &head, &have, &err) && have >= 16 &&
	    !memcmp(head, "SQLite format 3", 16)) {
		hf_input_close(in);
		cli_usage_error("%s: a heap database cannot be read from standard input or a pipe; name the file",
		                path);
		return EXIT_USAGE;
	}
	if (!st)
		st = hf_heapdb_sink_open(&sink, db, &dbo, &err);
	if (!st) {
		cli_progress pr;
		cli_progress_init(&pr, o->progress_mode);
		cli_progress_for(&pr, hf_input_raw_size(in));
		hf_hprof_options ho;
		hf_hprof_options_init(&ho);
		ho.generator = cli_prog;
		ho.source_name = path;
		ho.progress = cli_progress_cb;
		ho.progress_ctx = &pr;
		/* What the reader met is told as the converters tell it (the
		 * database it went into is a temporary one). */
		cli_run warned = { .in = path };
		ho.warning = cli_warning_cb;
		ho.warning_ctx = &warned;
		hf_hprof_stats hs;
		st = hf_hprof_read(in, sink, &ho, &hs, &err);
		warned.warnings = hs.warnings;
		/* An hprof agent's profile converts, without objects: nothing to
		 * compare, where every class would read as gone. */
		if (!st && !hs.dumps)
			st = hf_error_at(&err, HF_ERR_FORMAT, hf_input_offset(in), "end of file",
			                 "this file holds no heap dump (a profile of the hprof agent): nothing to compare");
		if (!st)
			st = hf_sink_finish(sink, &err);
		cli_progress_end(&pr, st == HF_OK);
		if (!st)
			cli_warnings_tell(&warned);
	}
	hf_sink_destroy(sink, st == HF_OK);
	hf_input_close(in);
	if (st) {
		/* Named whatever the error (which of the two inputs?). */
		cli_report_about(path, &err);
		return cli_exit_code(st);
	}
	return EXIT_OK;
}

/* ---- the report ---------------------------------------------------------- */

static int selected(const opts *o, const char *name)
{
	if (!o->nglobs)
		return 1;
	for (int i = 0; i < o->nglobs; i++)
		if (fnmatch(o->globs[i], name, 0) == 0)
			return 1;
	return 0;
}

static int changed(const hf_diff_class *c)
{
	return c->count_before != c->count_after || c->bytes_before != c->bytes_after;
}

/* Counts what crossed a threshold; with emit, also says so on stderr (and
 * as NDJSON records with --format=ndjson). */
static int thresholds(const opts *o, const hf_diff *d, int emit)
{
	int crossed = 0;
	for (size_t i = 0; i < d->nclasses; i++) {
		const hf_diff_class *c = &d->classes[i];
		if (!selected(o, c->name))
			continue;
		long long db = c->bytes_after - c->bytes_before, dc = c->count_after - c->count_before;
		for (int k = 0; k < 2; k++) {
			long long change = k ? dc : db, limit = k ? o->fail_count : o->fail_bytes;
			if (limit < 0 || change <= limit)
				continue;
			crossed++;
			if (!emit)
				continue;
			if (o->ndjson) {
				fputs("{\"record\":\"heapdiff.exceeded\",\"class\":", stdout);
				cli_json_string(stdout, c->name);
				printf(",\"what\":\"%s\",\"change\":%lld,\"limit\":%lld}\n", k ? "count" : "bytes",
				       change, limit);
			}
			fprintf(stderr, "%s: %s grew by %lld %s (limit %lld)\n", cli_prog, c->name, change,
			        k ? "instances" : "bytes", limit);
		}
	}
	return crossed;
}

static void print_ndjson(const opts *o, const hf_diff *d, int crossed)
{
	size_t nchanged = 0;
	for (size_t i = 0; i < d->nclasses; i++)
		nchanged += selected(o, d->classes[i].name) && changed(&d->classes[i]);
	fputs("{\"record\":\"heapdiff.summary\",\"before\":", stdout);
	cli_json_string(stdout, o->args[0]);
	fputs(",\"after\":", stdout);
	cli_json_string(stdout, o->args[1]);
	printf(",\"objects_before\":%lld,\"objects_after\":%lld,\"bytes_before\":%lld,"
	       "\"bytes_after\":%lld,\"classes_changed\":%zu,\"retained\":%s,\"exceeded\":%d}\n",
	       (long long)d->objects_before, (long long)d->objects_after, (long long)d->bytes_before,
	       (long long)d->bytes_after, nchanged, d->retained ? "true" : "false", crossed);
	for (size_t i = 0; i < d->nclasses; i++) {
		const hf_diff_class *c = &d->classes[i];
		if (!selected(o, c->name) || !changed(c))
			continue;
		fputs("{\"record\":\"heapdiff.class\",\"class\":", stdout);
		cli_json_string(stdout, c->name);
		printf(",\"count_before\":%lld,\"count_after\":%lld,\"count_change\":%lld,"
		       "\"bytes_before\":%lld,\"bytes_after\":%lld,\"bytes_change\":%lld",
		       (long long)c->count_before, (long long)c->count_after,
		       (long long)(c->count_after - c->count_before), (long long)c->bytes_before,
		       (long long)c->bytes_after, (long long)(c->bytes_after - c->bytes_before));
		if (d->retained)
			printf(",\"retained_before\":%lld,\"retained_after\":%lld,\"retained_change\":%lld",
			       (long long)c->retained_before, (long long)c->retained_after,
			       (long long)(c->retained_after - c->retained_before));
		fputs("}\n", stdout);
	}
	for (size_t i = 0; i < d->nroots; i++) {
		const hf_diff_root *r = &d->roots[i];
		fputs("{\"record\":\"heapdiff.root_kind\",\"kind\":", stdout);
		cli_json_string(stdout, r->kind);
		printf(",\"before\":%lld,\"after\":%lld,\"status\":\"%s\"}\n", (long long)r->before,
		       (long long)r->after,
		       !r->before ? "new" : !r->after ? "vanished" : r->before != r->after ? "changed" : "same");
	}
	for (size_t i = 0; i < d->nnew; i++) {
		const hf_diff_object *n = &d->new_objects[i];
		if (!selected(o, n->class_name))
			continue;
		printf("{\"record\":\"heapdiff.new_object\",\"identifier\":%llu,\"dump\":%lld,\"size\":%lld,"
		       "\"class\":", (unsigned long long)n->identifier, (long long)n->dump, (long long)n->size);
		cli_json_string(stdout, n->class_name);
		fputs("}\n", stdout);
	}
}

static void class_header(const hf_diff *d)
{
	printf("  %10s %10s  %13s %13s", "instances", "change", "bytes", "change");
	if (d->retained)
		printf("  %13s %13s", "retained", "change");
	printf("  class\n");
}

static void class_line(const hf_diff *d, const hf_diff_class *c)
{
	printf("  %10lld %+10lld  %13lld %+13lld", (long long)c->count_after,
	       (long long)(c->count_after - c->count_before), (long long)c->bytes_after,
	       (long long)(c->bytes_after - c->bytes_before));
	if (d->retained)
		printf("  %13lld %+13lld", (long long)c->retained_after,
		       (long long)(c->retained_after - c->retained_before));
	printf("  %s\n", c->name);
}

static void print_text(const opts *o, const hf_diff *d)
{
	printf("%s -> %s\n", o->args[0], o->args[1]);
	printf("objects: %lld -> %lld (%+lld); shallow bytes: %lld -> %lld (%+lld)\n",
	       (long long)d->objects_before, (long long)d->objects_after,
	       (long long)(d->objects_after - d->objects_before), (long long)d->bytes_before,
	       (long long)d->bytes_after, (long long)(d->bytes_after - d->bytes_before));
	/* d->classes is sorted by byte growth: the growers from the front, the
	 * shrinkers from the back. */
	size_t grew = 0, shrank = 0;
	for (size_t i = 0; i < d->nclasses; i++)
		if (selected(o, d->classes[i].name) && changed(&d->classes[i])) {
			if (d->classes[i].bytes_after > d->classes[i].bytes_before ||
			    (d->classes[i].bytes_after == d->classes[i].bytes_before &&
			     d->classes[i].count_after > d->classes[i].count_before))
				grew++;
			else
				shrank++;
		}
	size_t show_grew = o->top && (size_t)o->top < grew ? (size_t)o->top : grew;
	size_t half = o->top ? (size_t)(o->top + 1) / 2 : shrank;
	size_t show_shrank = half < shrank ? half : shrank;
	printf("\nClasses that grew: %zu%s\n", grew,
	       show_grew < grew ? " (the largest growth in bytes first; --top=0 for all)" : "");
	if (show_grew)
		class_header(d);
	for (size_t i = 0, k = 0; i < d->nclasses && k < show_grew; i++)
		if (selected(o, d->classes[i].name) && changed(&d->classes[i]))
			class_line(d, &d->classes[i]), k++;
	printf("\nClasses that shrank: %zu\n", shrank);
	if (show_shrank)
		class_header(d);
	for (size_t i = d->nclasses, k = 0; i-- > 0 && k < show_shrank;)
		if (selected(o, d->classes[i].name) && changed(&d->classes[i]))
			class_line(d, &d->classes[i]), k++;
	printf("\nGC roots by kind:\n");
	if (!d->nroots)
		printf("  (none in either)\n");
	for (size_t i = 0; i < d->nroots; i++) {
		const hf_diff_root *r = &d->roots[i];
		const char *what = !r->before ? "  new kind" : !r->after ? "  vanished" : "";
		printf("  %-18s %8lld -> %lld%s\n", r->kind, (long long)r->before, (long long)r->after, what);
	}
	if (o->objects) {
		printf("\nLargest new objects (identifier not in %s; an object the GC moved counts too):\n",
		       o->args[0]);
		size_t shown = 0;
		for (size_t i = 0; i < d->nnew; i++) {
			const hf_diff_object *n = &d->new_objects[i];
			if (selected(o, n->class_name)) {
				printf("  0x%-16llx %12lld bytes  %s\n", (unsigned long long)n->identifier,
				       (long long)n->size, n->class_name);
				shown++;
			}
		}
		if (!shown)
			printf("  (none)\n");
	}
}

int main(int argc, char **argv)
{
	cli_init("heapdiff");
	cli_on_fatal_signal(remove_temporaries);
	opts o = { .top = 20, .objects = 10, .fail_bytes = -1, .fail_count = -1 };
	o.globs = calloc((size_t)argc, sizeof *o.globs);
	if (!o.globs)
		return EXIT_NOMEM;
	int rc = parse(&o, argc, argv);
	if (rc >= 0) {
		free(o.globs);
		return cli_exit(rc);
	}
	char before[4200], after[4200];
	rc = prepare_input(&o, o.args[0], "before", before, sizeof before);
	if (rc == EXIT_OK)
		rc = prepare_input(&o, o.args[1], "after", after, sizeof after);
	hf_diff d;
	hf_error err;
	if (rc == EXIT_OK) {
		/* With a class filter, look further down the list for matches. */
		size_t want = o.nglobs && o.objects ? (size_t)o.objects * 100 : (size_t)o.objects;
		hf_status st = hf_diff_compute(before, after, want, &d, &err);
		if (st) {
			cli_report(NULL, &err);
			rc = cli_exit_code(st);
		} else if (d.mixed) {
			/* Compared as asked (a heap exported to a snapshot and read back
			 * may be meant), but hardly what anyone wants to read. */
			fprintf(stderr, "%s: warning: %s is of a V8 heap snapshot and %s of a Java heap: their"
			        " classes are named apart, so every one reads as new or gone\n", cli_prog,
			        cli_input_name(o.args[d.mixed - 1]), cli_input_name(o.args[2 - d.mixed]));
		}
	}
	remove_temporaries();
	if (rc == EXIT_OK) {
		static char buf[1 << 16];
		setvbuf(stdout, buf, _IOFBF, sizeof buf);
		/* NDJSON: the summary (with the count) first, then the records,
		 * then what crossed; text: the report, then what crossed. */
		int crossed = thresholds(&o, &d, 0);
		if (o.ndjson)
			print_ndjson(&o, &d, crossed);
		else
			print_text(&o, &d);
		thresholds(&o, &d, 1);
		errno = 0;
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "%s: cannot write the report: %s\n", cli_prog, errno ? strerror(errno) : "write error");
			rc = EXIT_IO;
		} else if (crossed) {
			rc = EXIT_THRESHOLD;
		}
		hf_diff_free(&d);
	}
	free(o.globs);
	return cli_exit(rc);
}
