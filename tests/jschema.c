#define _POSIX_C_SOURCE 200809L
#include "jschema.h"
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rx { char *pattern; regex_t re; struct rx *next; } rx;
struct jschema { json_t *root; rx *regexes; };

static const char *const known[] = { "$schema", "$id", "$defs", "$ref", "$comment", "title",
	"description", "type", "properties", "required", "additionalProperties", "enum", "const",
	"items", "anyOf", "oneOf", "allOf", "not", "minimum", "maximum", "pattern", "minLength",
	"examples", "default", NULL };

static int check_keywords(json_t *s, char *err, size_t n, const char *where)
{
	if (json_is_boolean(s))
		return 1;
	if (!json_is_object(s)) {
		snprintf(err, n, "%s: schema is not an object", where);
		return 0;
	}
	const char *k;
	json_t *v;
	json_object_foreach(s, k, v) {
		int ok = 0;
		for (int i = 0; known[i]; i++)
			if (!strcmp(k, known[i]))
				ok = 1;
		if (!ok) {
			snprintf(err, n, "%s: keyword '%s' is not supported by the validator", where, k);
			return 0;
		}
		char sub[512];
		snprintf(sub, sizeof sub, "%s/%s", where, k);
		if (!strcmp(k, "properties") || !strcmp(k, "$defs")) {
			const char *pk;
			json_t *pv;
			json_object_foreach(v, pk, pv) {
				char sub2[600];
				snprintf(sub2, sizeof sub2, "%s/%s", sub, pk);
				if (!check_keywords(pv, err, n, sub2))
					return 0;
			}
		} else if (!strcmp(k, "anyOf") || !strcmp(k, "oneOf") || !strcmp(k, "allOf")) {
			size_t i;
			json_t *e;
			json_array_foreach(v, i, e)
				if (!check_keywords(e, err, n, sub))
					return 0;
		} else if (!strcmp(k, "items") || !strcmp(k, "not") ||
		           (!strcmp(k, "additionalProperties") && json_is_object(v))) {
			if (!check_keywords(v, err, n, sub))
				return 0;
		}
	}
	return 1;
}

jschema *jschema_load(const char *path, char *err, size_t errsize)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!root) {
		snprintf(err, errsize, "%s:%d: %s", path, je.line, je.text);
		return NULL;
	}
	if (!check_keywords(root, err, errsize, "#")) {
		json_decref(root);
		return NULL;
	}
	jschema *s = calloc(1, sizeof *s);
	s->root = root;
	return s;
}

void jschema_free(jschema *s)
{
	if (!s)
		return;
	for (rx *r = s->regexes; r;) {
		rx *n = r->next;
		regfree(&r->re);
		free(r->pattern);
		free(r);
		r = n;
	}
	json_decref(s->root);
	free(s);
}

static regex_t *get_regex(jschema *s, const char *pattern)
{
	for (rx *r = s->regexes; r; r = r->next)
		if (!strcmp(r->pattern, pattern))
			return &r->re;
	rx *r = calloc(1, sizeof *r);
	if (regcomp(&r->re, pattern, REG_EXTENDED | REG_NOSUB)) {
		free(r);
		return NULL;
	}
	r->pattern = strdup(pattern);
	r->next = s->regexes;
	s->regexes = r;
	return &r->re;
}

static int type_is(json_t *v, const char *t)
{
	if (!strcmp(t, "object")) return json_is_object(v);
	if (!strcmp(t, "array")) return json_is_array(v);
	if (!strcmp(t, "string")) return json_is_string(v);
	if (!strcmp(t, "integer")) return json_is_integer(v);
	if (!strcmp(t, "number")) return json_is_number(v);
	if (!strcmp(t, "boolean")) return json_is_boolean(v);
	if (!strcmp(t, "null")) return json_is_null(v);
	return 0;
}

static int validate(jschema *s, json_t *sc, json_t *v, char *why, size_t n, int depth);

static json_t *resolve(jschema *s, const char *ref)
{
	if (strncmp(ref, "#/$defs/", 8))
		return NULL;
	return json_object_get(json_object_get(s->root, "$defs"), ref + 8);
}

static int validate(jschema *s, json_t *sc, json_t *v, char *why, size_t n, int depth)
{
	if (depth > 64) {
		snprintf(why, n, "schema recursion too deep");
		return 0;
	}
	if (json_is_true(sc))
		return 1;
	if (json_is_false(sc)) {
		snprintf(why, n, "nothing is allowed here");
		return 0;
	}
	json_t *k;
	if ((k = json_object_get(sc, "$ref"))) {
		json_t *t = resolve(s, json_string_value(k));
		if (!t) {
			snprintf(why, n, "unresolvable $ref %s", json_string_value(k));
			return 0;
		}
		if (!validate(s, t, v, why, n, depth + 1))
			return 0;
	}
	if ((k = json_object_get(sc, "type"))) {
		int ok = 0;
		if (json_is_string(k))
			ok = type_is(v, json_string_value(k));
		else {
			size_t i;
			json_t *e;
			json_array_foreach(k, i, e) if (type_is(v, json_string_value(e))) ok = 1;
		}
		if (!ok) {
			snprintf(why, n, "wrong type");
			return 0;
		}
	}
	if ((k = json_object_get(sc, "const")) && !json_equal(k, v)) {
		snprintf(why, n, "not the constant value");
		return 0;
	}
	if ((k = json_object_get(sc, "enum"))) {
		size_t i;
		json_t *e;
		int ok = 0;
		json_array_foreach(k, i, e) if (json_equal(e, v)) ok = 1;
		if (!ok) {
			snprintf(why, n, "not one of the enumerated values");
			return 0;
		}
	}
	if (json_is_number(v)) {
		double d = json_number_value(v);
		if ((k = json_object_get(sc, "minimum")) && d < json_number_value(k)) {
			snprintf(why, n, "below minimum");
			return 0;
		}
		if ((k = json_object_get(sc, "maximum")) && d > json_number_value(k)) {
			snprintf(why, n, "above maximum");
			return 0;
		}
	}
	if (json_is_string(v)) {
		if ((k = json_object_get(sc, "minLength")) &&
		    json_string_length(v) < (size_t)json_integer_value(k)) {
			snprintf(why, n, "string too short");
			return 0;
		}
		if ((k = json_object_get(sc, "pattern"))) {
			regex_t *re = get_regex(s, json_string_value(k));
			if (!re || regexec(re, json_string_value(v), 0, NULL, 0)) {
				snprintf(why, n, "string does not match %s", json_string_value(k));
				return 0;
			}
		}
	}
	if (json_is_object(v)) {
		json_t *props = json_object_get(sc, "properties");
		if ((k = json_object_get(sc, "required"))) {
			size_t i;
			json_t *e;
			json_array_foreach(k, i, e) {
				if (!json_object_get(v, json_string_value(e))) {
					snprintf(why, n, "missing required property '%s'", json_string_value(e));
					return 0;
				}
			}
		}
		json_t *addl = json_object_get(sc, "additionalProperties");
		const char *pk;
		json_t *pv;
		json_object_foreach(v, pk, pv) {
			json_t *ps = props ? json_object_get(props, pk) : NULL;
			char sub[400];
			if (ps) {
				if (!validate(s, ps, pv, sub, sizeof sub, depth + 1)) {
					snprintf(why, n, "property '%s': %s", pk, sub);
					return 0;
				}
			} else if (addl && !validate(s, addl, pv, sub, sizeof sub, depth + 1)) {
				snprintf(why, n, "property '%s' not allowed: %s", pk, sub);
				return 0;
			}
		}
	}
	if (json_is_array(v) && (k = json_object_get(sc, "items"))) {
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e) {
			char sub[400];
			if (!validate(s, k, e, sub, sizeof sub, depth + 1)) {
				snprintf(why, n, "item %zu: %s", i, sub);
				return 0;
			}
		}
	}
	if ((k = json_object_get(sc, "allOf"))) {
		size_t i;
		json_t *e;
		json_array_foreach(k, i, e) if (!validate(s, e, v, why, n, depth + 1)) return 0;
	}
	if ((k = json_object_get(sc, "anyOf")) || (k = json_object_get(sc, "oneOf"))) {
		int one = json_object_get(sc, "oneOf") != NULL && !json_object_get(sc, "anyOf");
		size_t i, matches = 0;
		json_t *e;
		char first[400] = "";
		json_array_foreach(k, i, e) {
			char sub[400];
			if (validate(s, e, v, sub, sizeof sub, depth + 1))
				matches++;
			else if (!first[0])
				snprintf(first, sizeof first, "%s", sub);
		}
		if (!matches || (one && matches > 1)) {
			if (matches)
				snprintf(why, n, "matches %zu oneOf branches", matches);
			else
				snprintf(why, n, "matches no branch (first reason: %.300s)", first);
			return 0;
		}
	}
	if ((k = json_object_get(sc, "not"))) {
		char sub[400];
		if (validate(s, k, v, sub, sizeof sub, depth + 1)) {
			snprintf(why, n, "matches a 'not' schema");
			return 0;
		}
	}
	return 1;
}

int jschema_validate(jschema *s, json_t *value, char *why, size_t whysize)
{
	why[0] = 0;
	return validate(s, s->root, value, why, whysize, 0);
}
