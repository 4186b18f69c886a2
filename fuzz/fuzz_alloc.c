/* libFuzzer harness: the DDM allocation-report (REAL) reader. */
#include "fuzz_sink.h"
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hf_input *in;
	hf_error err;
	if (hf_input_open_memory(&in, data, size, &err) != HF_OK)
		return 0;
	hf_sink *sink = fuzz_sink_new();
	hf_alloc_options opt;
	hf_alloc_options_init(&opt);
	opt.order = (hf_alloc_order)(size % 3);
	hf_status st = hf_alloc_read(in, sink, &opt, NULL, &err);
	if (st != HF_OK && !err.message[0])
		abort();
	hf_sink_destroy(sink, st == HF_OK);
	hf_input_close(in);
	return 0;
}
