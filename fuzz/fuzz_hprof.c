/* libFuzzer harness: the HPROF reader on arbitrary bytes (plain or gzip). */
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
	hf_hprof_options opt;
	hf_hprof_options_init(&opt);
	/* Small buffers so the fuzzer reaches the spill and eviction paths. */
	opt.spool_memory = 4096;
	opt.string_cache = 4096;
	opt.values = size & 1;
	hf_status st = hf_hprof_read(in, sink, &opt, NULL, &err);
	if (st != HF_OK) {
		/* Every failure carries a message. */
		if (!err.message[0])
			abort();
	}
	hf_sink_destroy(sink, st == HF_OK);
	hf_input_close(in);
	return 0;
}
