/* Error values: what went wrong and where in the input. */
#include "internal.h"
#undef hf_error_set /* (the analyzer's wrappers, internal.h) */
#undef hf_error_at
#include <stdarg.h>
#include <stdio.h>

static void set_message(hf_error *err, const char *fmt, va_list ap)
{
	vsnprintf(err->message, sizeof err->message, fmt, ap);
}

hf_status hf_error_set(hf_error *err, hf_status status, const char *fmt, ...)
{
	if (err && status != HF_OK) {
		va_list ap;
		memset(err, 0, sizeof *err);
		err->status = status;
		va_start(ap, fmt);
		set_message(err, fmt, ap);
		va_end(ap);
	}
	return status;
}

hf_status hf_error_at(hf_error *err, hf_status status, uint64_t offset,
                      const char *tag, const char *fmt, ...)
{
	if (err && status != HF_OK) {
		va_list ap;
		memset(err, 0, sizeof *err);
		err->status = status;
		err->has_offset = 1;
		err->offset = offset;
		if (tag)
			snprintf(err->tag, sizeof err->tag, "%s", tag);
		va_start(ap, fmt);
		set_message(err, fmt, ap);
		va_end(ap);
	}
	return status;
}

const char *hf_status_name(hf_status status)
{
	switch (status) {
	case HF_OK: return "ok";
	case HF_ERR_FORMAT: return "bad input";
	case HF_ERR_TRUNCATED: return "truncated input";
	case HF_ERR_IO: return "I/O error";
	case HF_ERR_NOMEM: return "out of memory";
	case HF_ERR_LIMIT: return "resource limit";
	case HF_ERR_UNSUPPORTED: return "unsupported input";
	case HF_ERR_USAGE: return "usage error";
	}
	return "unknown error";
}

void hf_error_format(const hf_error *err, char *buf, size_t size)
{
	if (!err || err->status == HF_OK) {
		snprintf(buf, size, "no error");
		return;
	}
	if (err->has_offset && err->tag[0])
		snprintf(buf, size, "offset %llu (%s): %s",
		         (unsigned long long)err->offset, err->tag, err->message);
	else if (err->has_offset)
		snprintf(buf, size, "offset %llu: %s",
		         (unsigned long long)err->offset, err->message);
	else
		snprintf(buf, size, "%s", err->message);
}
