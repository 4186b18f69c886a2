#define _GNU_SOURCE /* F_GETPIPE_SZ */
#include "fuzz_sink.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_TYPES 256
typedef struct fsink {
	hf_sink sink;
	const hf_type *types[MAX_TYPES];
	size_t ntypes;
	int data_seen;
} fsink;

static void need(int cond)
{
	if (!cond)
		abort();
}

void fuzz_touch(const void *p, size_t n)
{
	const unsigned char *b = p;
	volatile unsigned sum = 0;
	for (size_t k = 0; k < n; k++)
		sum += b[k];
	(void)sum;
}

static int declared(fsink *f, const hf_type *t)
{
	for (size_t i = 0; i < f->ntypes; i++)
		if (f->types[i] == t)
			return 1;
	return 0;
}

static void check_values(const hf_type *t, const hf_value *v)
{
	for (size_t i = 0; i < t->nfields; i++) {
		if (!v[i].present)
			continue;
		if (t->fields[i].kind == HF_FIELD_TEXT || t->fields[i].kind == HF_FIELD_JSON) {
			need(v[i].s != NULL);
			fuzz_touch(v[i].s, v[i].n);
		}
	}
}

static hf_status f_meta(hf_sink *s, const char *k, const char *v, hf_error *e)
{
	(void)s; (void)e;
	need(k && v && strlen(k) > 0);
	return HF_OK;
}
static hf_status f_declare(hf_sink *s, const hf_type *t, hf_error *e)
{
	fsink *f = s->impl;
	(void)e;
	need(!f->data_seen && f->ntypes < MAX_TYPES);
	f->types[f->ntypes++] = t;
	return HF_OK;
}
static hf_status f_string(hf_sink *s, uint64_t id, const char *p, size_t n, hf_error *e)
{
	(void)s; (void)e;
	need(id != 0);
	fuzz_touch(p, n);
	return HF_OK;
}
static hf_status f_node(hf_sink *s, const hf_node *n, hf_error *e)
{
	fsink *f = s->impl;
	(void)e;
	f->data_seen = 1;
	need(declared(f, n->type) && n->type->cls == HF_TYPE_NODE);
	check_values(n->type, n->values);
	return HF_OK;
}
static hf_status f_edge(hf_sink *s, const hf_edge *ed, hf_error *e)
{
	fsink *f = s->impl;
	(void)e;
	f->data_seen = 1;
	need(declared(f, ed->type) && ed->type->cls == HF_TYPE_EDGE && ed->dest != 0);
	return HF_OK;
}
static hf_status f_record(hf_sink *s, const hf_record *r, hf_error *e)
{
	fsink *f = s->impl;
	(void)e;
	f->data_seen = 1;
	need(declared(f, r->type) && r->type->cls == HF_TYPE_RECORD);
	check_values(r->type, r->values);
	return HF_OK;
}
static hf_status f_finish(hf_sink *s, hf_error *e) { (void)s; (void)e; return HF_OK; }
static void f_destroy(hf_sink *s, int ok) { (void)ok; free(s->impl); }

static const hf_sink_ops ops = { f_meta, f_declare, f_string, f_node, f_edge, f_record,
	f_finish, f_destroy };

hf_sink *fuzz_sink_new(void)
{
	fsink *f = calloc(1, sizeof *f);
	if (!f)
		abort();
	f->sink.ops = &ops;
	f->sink.impl = f;
	return &f->sink;
}

/* Opens data as a pipe holding all of it (when the pipe can: 64 KiB, or
 * less where the user's pipe pages ran out), as standard input from a pipe
 * is: a stream of unknown size that cannot be read twice (the HPROF
 * reader's text spool, the length checks that cannot use a size).  Returns
 * the pipe's read end (to close after), or -1. */
static int open_pipe(hf_input **in, const uint8_t *data, size_t size, hf_error *err)
{
	int fds[2];
	if (pipe(fds) != 0)
		return -1;
	int cap = fcntl(fds[1], F_GETPIPE_SZ);
	if (cap < 0 || size > (size_t)cap) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	ssize_t w = size ? write(fds[1], data, size) : 0;
	close(fds[1]);
	char path[32];
	snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
	if (w != (ssize_t)size || hf_input_open(in, path, err) != HF_OK) {
		close(fds[0]);
		return -1;
	}
	return fds[0];
}

void fuzz_read(const uint8_t *data, size_t size, fuzz_read_fn fn, int need_offset)
{
	hf_input *in;
	hf_error err;
	/* One input in two (by the size's bit 2) is read from a pipe. */
	int pipe_fd = (size >> 2) & 1 ? open_pipe(&in, data, size, &err) : -1;
	if (pipe_fd < 0 && hf_input_open_memory(&in, data, size, &err) != HF_OK)
		return;
	hf_sink *sink = fuzz_sink_new();
	hf_status st = fn(in, sink, data, size, &err);
	if (st != HF_OK) {
		if (!err.message[0])
			abort();
		if (need_offset && (st == HF_ERR_FORMAT || st == HF_ERR_TRUNCATED) && !err.has_offset)
			abort();
	}
	hf_sink_destroy(sink, st == HF_OK);
	hf_input_close(in);
	if (pipe_fd >= 0)
		close(pipe_fd);
}
