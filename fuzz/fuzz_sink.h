/* A sink for fuzzing: stores nothing, checks the model's invariants
 * (types declared before use, metadata first, sane values) and aborts on a
 * violation so the fuzzer reports it. */
#ifndef HF_FUZZ_SINK_H
#define HF_FUZZ_SINK_H
#include "heapfmt/heapfmt.h"
hf_sink *fuzz_sink_new(void);
#endif
