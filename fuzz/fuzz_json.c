/* libFuzzer harness: hf_json_check (json_check.c) against jansson's verdict
 * on the same bytes, as the NDJSON reader asks for it (integers past 2^63-1
 * tried again as reals; a NUL byte refused first, which jansson drops after
 * a number or a word).  Aborts when they differ. */
#include "../libheapfmt/src/internal.h"
#include <jansson.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	bool theirs = false;
	if (!memchr(s, 0, size)) {
		json_error_t je;
		json_t *j = json_loadb(s, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
		if (!j && json_error_code(&je) == json_error_numeric_overflow)
			j = json_loadb(s, size, JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &je);
		theirs = j != NULL;
		json_decref(j);
	}
	size_t at = SIZE_MAX;
	bool mine = hf_json_check(s, size, 1 + (size & 3), &at);
	/* At a depth of 1 + (size & 3): jansson's count is for a whole document
	 * (depth 1); deeper starts only take away levels. */
	if (mine && !theirs)
		abort();
	if ((size & 3) == 0 && mine != theirs)
		abort();
	if (!mine && at > size)
		abort();
	return 0;
}
