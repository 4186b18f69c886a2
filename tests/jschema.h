/* A small JSON Schema validator over jansson for the keyword subset that
 * schema/heapfmt.schema.json uses: $defs, local $ref, type, properties,
 * required, additionalProperties, enum, const, items, anyOf, oneOf, allOf,
 * not, minimum, maximum, pattern (POSIX ERE), minLength. */
#ifndef HF_JSCHEMA_H
#define HF_JSCHEMA_H
#include <jansson.h>
#include <stddef.h>

typedef struct jschema jschema;
/* Loads a schema; NULL with a message in err on failure or on a keyword
 * outside the subset (so the schema cannot silently mean more than is checked). */
jschema *jschema_load(const char *path, char *err, size_t errsize);
/* 1 if valid; else 0 with the first reason in why. */
int jschema_validate(jschema *s, json_t *value, char *why, size_t whysize);
void jschema_free(jschema *s);
#endif
