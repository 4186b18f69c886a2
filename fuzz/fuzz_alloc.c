/* libFuzzer harness: the DDM allocation-report (REAL) reader. */
#include "fuzz_sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static hf_status read_alloc(hf_input *in, hf_sink *sink, const uint8_t *data, size_t size,
                            hf_error *err)
{
	(void)data;
	hf_alloc_options opt;
	hf_alloc_options_init(&opt);
	opt.order = (hf_alloc_order)(size % 3);
	return hf_alloc_read(in, sink, &opt, NULL, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_read(data, size, read_alloc, 0);
	return 0;
}
