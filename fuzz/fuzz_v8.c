/* libFuzzer harness: the V8 heap-snapshot reader on arbitrary bytes (plain
 * or gzip), with a window of a few bytes so that every token, string and
 * escape gets cut at every place by a refill. */
#include "fuzz_sink.h"
#include "heapfmt/v8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static hf_status read_v8(hf_input *in, hf_sink *sink, const uint8_t *data, size_t size,
                         hf_error *err)
{
	(void)data;
	hf_v8_options opt;
	hf_v8_options_init(&opt);
	opt.window = 1 + size % 13;
	opt.max_string = 4096;
	hf_v8_stats stats;
	return hf_v8_read(in, sink, &opt, &stats, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Every failure carries a message, and input errors their offset. */
	fuzz_read(data, size, read_v8, 1);
	return 0;
}
