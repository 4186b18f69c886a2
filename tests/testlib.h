/* A tiny test harness: CHECK records failures and goes on. */
#ifndef HF_TESTLIB_H
#define HF_TESTLIB_H
#include <stdio.h>
#include <string.h>

static int t_failures, t_checks;
#define CHECK(cond, ...) do { t_checks++; if (!(cond)) { t_failures++; \
	fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)
#define CHECK_EQ_U(a, b, what) do { unsigned long long _a = (a), _b = (b); \
	CHECK(_a == _b, "%s: got %llu, expected %llu", what, _a, _b); } while (0)
#define CHECK_STR(a, b, what) do { const char *_a = (a), *_b = (b); \
	CHECK(_a && _b && !strcmp(_a, _b), "%s: got \"%s\", expected \"%s\"", what, _a ? _a : "(null)", _b ? _b : "(null)"); } while (0)
#define TEST_SKIP 77
static inline int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}
static inline int t_done(const char *name)
{
	fprintf(stderr, "%s: %d checks, %d failed\n", name, t_checks, t_failures);
	return t_failures ? 1 : 0;
}
#endif
