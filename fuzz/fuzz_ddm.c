/* libFuzzer harness: the DDM stream reader (JDWP, bare chunks, one payload;
 * heap segments, ZLIB chunks, allocation reports inside). */
#include "fuzz_sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static hf_status read_ddm(hf_input *in, hf_sink *sink, const uint8_t *data, size_t size,
                          hf_error *err)
{
	hf_ddm_options opt;
	hf_ddm_options_init(&opt);
	/* The last byte picks the mode so every path is reachable. */
	if (size) {
		opt.strict = data[size - 1] & 1;
		opt.shape = (hf_ddm_shape)((data[size - 1] >> 1) & 3);
		opt.salvage = (data[size - 1] >> 3) & 1;
	}
	opt.max_chunk = 1 << 20;
	return hf_ddm_read(in, sink, &opt, NULL, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_read(data, size, read_ddm, 0);
	return 0;
}
