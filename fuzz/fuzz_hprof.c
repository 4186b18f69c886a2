/* libFuzzer harness: the HPROF reader on arbitrary bytes (plain or gzip). */
#include "fuzz_sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern uint64_t hf_hprof_test_spool_limit;
extern size_t hf_hprof_test_sniff_window;

static hf_status read_hprof(hf_input *in, hf_sink *sink, const uint8_t *data, size_t size,
                            hf_error *err)
{
	(void)data;
	hf_hprof_options opt;
	hf_hprof_options_init(&opt);
	/* Small buffers so the fuzzer reaches the spill, eviction and parking paths. */
	opt.spool_memory = 4096;
	opt.string_cache = 4096;
	opt.string_wait = 2;
	opt.values = size & 1;
	opt.salvage = (size >> 1) & 1;
	/* Read from a pipe (size bit 2, fuzz_read), a text spool that fills
	 * half-way, as in a full TMPDIR. */
	hf_hprof_test_spool_limit = (size >> 3) & 1 ? size / 2 + 1 : 0;
	/* Look-ahead windows of a few hundred bytes (size bit 4), so that the
	 * size model's look ahead moves from one to the next. */
	hf_hprof_test_sniff_window = (size >> 4) & 1 ? 256 + (size & 0xE0) : 0;
	/* The database writer's order (size bit 5): Strings whose array has
	 * passed settled in place, their arrays read again at an offset. */
	sink->key_order = (size >> 5) & 1;
	return hf_hprof_read(in, sink, &opt, NULL, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_read(data, size, read_hprof, 0);
	return 0;
}
