/* A sink for fuzzing: stores nothing, checks the model's invariants
 * (types declared before use, metadata first, sane values) and aborts on a
 * violation so the fuzzer reports it. */
#ifndef HF_FUZZ_SINK_H
#define HF_FUZZ_SINK_H
#include "heapfmt/heapfmt.h"
hf_sink *fuzz_sink_new(void);
/* Reads every byte of p[0..n), so that ASan sees a length past the end. */
void fuzz_touch(const void *p, size_t n);

/* One reader on data, into a fuzz sink. */
typedef hf_status (*fuzz_read_fn)(hf_input *in, hf_sink *sink, const uint8_t *data, size_t size,
                                  hf_error *err);
/* What every harness does around its reader: opens data as an input, runs
 * fn into a fuzz sink, and aborts when a failure carries no message (and,
 * with need_offset, when an input error carries no offset). */
void fuzz_read(const uint8_t *data, size_t size, fuzz_read_fn fn, int need_offset);
#endif
