/* The string-churn scenario's contents, shared by testdata/hprofgen.c (which
 * writes them) and tests/test_synthetic.c (which checks the texts read). */
#ifndef HEAPFMT_STRING_CHURN_H
#define HEAPFMT_STRING_CHURN_H
#include <stdint.h>

#define CHURN_N 3000

/* Length in chars of char[] k. */
static inline unsigned churn_len(unsigned k) { return 1 + (k * 7919u + 13u) % 40u; }

/* Char j of char[] k. */
static inline uint16_t churn_char(unsigned k, unsigned j) { return (uint16_t)('a' + (k * 31u + j) % 26u); }

/* The char[] of String k: up to 119 arrays back, every fifth the next one. */
static inline unsigned churn_ref(unsigned k)
{
	if (k % 5 == 0)
		return k + 1 < CHURN_N ? k + 1 : k;
	unsigned back = (k * 104729u) % 120u;
	return back > k ? 0 : k - back;
}

/* many-arrays: MANY_DUMPS dumps of MANY_N char[] each (the same ids in
 * each; array k of dump d holds the contents of char[] k + 1000 d above),
 * then MANY_STRINGS Strings, String s of array many_ref(d, s) (String 7 of
 * an id that no array has). */
#define MANY_DUMPS 3
#define MANY_N 6000
#define MANY_STRINGS 600
static inline unsigned many_ref(unsigned d, unsigned s) { return (s * 7919u + d * 1237u) % MANY_N; }

/* late-across-dumps: dump 0 of ACROSS_WAITING Strings of a char[] that it
 * does not hold, then ACROSS_DUMPS dumps of that char[] alone (the contents
 * of churn char[] d in dump d, from 1) and a String of it after it. */
#define ACROSS_WAITING 2000
#define ACROSS_DUMPS 300
#endif
