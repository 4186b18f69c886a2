/* libFuzzer harness: the DDM stream reader (JDWP, bare chunks, one payload;
 * heap segments, ZLIB chunks, allocation reports inside). */
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
	hf_ddm_options opt;
	hf_ddm_options_init(&opt);
	/* The last byte picks the mode so every path is reachable. */
	if (size) {
		opt.lenient = data[size - 1] & 1;
		opt.shape = (hf_ddm_shape)((data[size - 1] >> 1) & 3);
	}
	opt.max_chunk = 1 << 20;
	hf_status st = hf_ddm_read(in, sink, &opt, NULL, &err);
	if (st != HF_OK && !err.message[0])
		abort();
	hf_sink_destroy(sink, st == HF_OK);
	hf_input_close(in);
	return 0;
}
