/* validate_ndjson SCHEMA FILE: checks every line of an NDJSON file against
 * schema/heapfmt.schema.json (tests/jschema.c) and prints one line:
 * "N lines, N invalid" (the first few reasons on stderr).  Exit 0 when all
 * lines validate, 1 otherwise, 2 on usage or I/O errors.  Used by the Python
 * tests, which have no JSON Schema validator of their own. */
#define _POSIX_C_SOURCE 200809L
#include "jschema.h"
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: validate_ndjson SCHEMA FILE\n");
		return 2;
	}
	char err[512];
	jschema *s = jschema_load(argv[1], err, sizeof err);
	if (!s) {
		fprintf(stderr, "validate_ndjson: %s\n", err);
		return 2;
	}
	FILE *f = fopen(argv[2], "r");
	if (!f) {
		perror(argv[2]);
		jschema_free(s);
		return 2;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long long lines = 0, invalid = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		lines++;
		json_error_t je;
		json_t *r = json_loadb(line, (size_t)n, JSON_ALLOW_NUL, &je);
		char why[512];
		if (!r) {
			if (invalid++ < 5)
				fprintf(stderr, "line %lld: not JSON: %s\n", lines, je.text);
			continue;
		}
		if (!jschema_validate(s, r, why, sizeof why) && invalid++ < 5)
			fprintf(stderr, "line %lld does not validate: %s: %.200s\n", lines, why, line);
		json_decref(r);
	}
	free(line);
	fclose(f);
	jschema_free(s);
	printf("%lld lines, %lld invalid\n", lines, invalid);
	return invalid ? 1 : 0;
}
