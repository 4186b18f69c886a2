/* libFuzzer harness: the V8 heap-snapshot reader on arbitrary bytes (plain
 * or gzip), with a window of a few bytes so that every token, string and
 * escape gets cut at every place by a refill. */
#include "fuzz_sink.h"
#include "heapfmt/v8.h"
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hf_input *in;
	hf_error err;
	if (hf_input_open_memory(&in, data, size, &err) != HF_OK)
		return 0;
	hf_sink *sink = fuzz_sink_new();
	hf_v8_options opt;
	hf_v8_options_init(&opt);
	opt.window = 1 + size % 13;
	opt.max_string = 4096;
	hf_v8_stats stats;
	hf_status st = hf_v8_read(in, sink, &opt, &stats, &err);
	if (st != HF_OK) {
		/* Every failure carries a message, and input errors their offset. */
		if (!err.message[0])
			abort();
		if ((st == HF_ERR_FORMAT || st == HF_ERR_TRUNCATED) && !err.has_offset)
			abort();
	}
	hf_sink_destroy(sink, st == HF_OK);
	hf_input_close(in);
	return 0;
}
