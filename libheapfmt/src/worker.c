/*
 * One background job at a time (see internal.h, hf_worker), and the queue of
 * records built on it (hf_queue): the NDJSON writer formats and writes one
 * block of records while the next is parsed, the database writer inserts
 * one while the next is parsed.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

static void *worker_main(void *arg)
{
	hf_worker *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->busy && !w->stop)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->busy)
			break;
		pthread_mutex_unlock(&w->mu);
		w->run(w->arg);
		pthread_mutex_lock(&w->mu);
		w->busy = 0;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

bool hf_worker_start(hf_worker *w, void (*run)(void *arg), void *arg)
{
	if (w->started)
		return true;
	w->run = run;
	w->arg = arg;
	w->busy = w->stop = 0;
	if (pthread_mutex_init(&w->mu, NULL) != 0)
		return false;
	if (pthread_cond_init(&w->cv, NULL) != 0) {
		pthread_mutex_destroy(&w->mu);
		return false;
	}
	if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		return false;
	}
	w->started = 1;
	return true;
}

void hf_worker_wait(hf_worker *w)
{
	if (!w->started)
		return;
	pthread_mutex_lock(&w->mu);
	while (w->busy)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

void hf_worker_post(hf_worker *w)
{
	pthread_mutex_lock(&w->mu);
	w->busy = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

void hf_worker_stop(hf_worker *w)
{
	if (!w->started)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	w->started = 0;
}

/* ---- hf_queue ------------------------------------------------------------ */

void hf_queue_init(hf_queue *qu, size_t block, hf_queue_run run, void *ctx)
{
	memset(qu, 0, sizeof *qu);
	qu->block = block;
	qu->run = run;
	qu->ctx = ctx;
}

/* The thread's job: run qw (not after a failure). */
static void queue_job(void *arg)
{
	hf_queue *qu = arg;
	if (!qu->status) {
		hf_error e;
		memset(&e, 0, sizeof e);
		hf_status st = qu->run(qu->ctx, qu->qw.data, qu->qw.data + qu->qw.len, &e);
		if (st) {
			qu->status = st;
			qu->err = e;
		}
	}
	qu->qw.len = 0;
}

/* Waits for the thread to be idle; returns the first failure. */
static hf_status queue_wait(hf_queue *qu, hf_error *err)
{
	hf_worker_wait(&qu->worker);
	if (qu->status && err)
		*err = qu->err;
	return qu->status;
}

/* Runs q on this thread (the thread, if any, is idle). */
static hf_status queue_run_here(hf_queue *qu, hf_error *err)
{
	hf_status st = queue_wait(qu, err);
	if (!st && qu->q.len) {
		st = qu->run(qu->ctx, qu->q.data, qu->q.data + qu->q.len, &qu->err);
		if (st) {
			qu->status = st;
			if (err)
				*err = qu->err;
		}
	}
	qu->q.len = 0;
	return st;
}

/* Hands q to the thread (started the first time). */
static hf_status queue_hand_off(hf_queue *qu, hf_error *err)
{
	if (!hf_worker_start(&qu->worker, queue_job, qu))
		return queue_run_here(qu, err);
	hf_status st = queue_wait(qu, err);
	if (st)
		return st;
	hf_buf t = qu->q;
	qu->q = qu->qw;
	qu->qw = t;
	hf_worker_post(&qu->worker);
	return HF_OK;
}

hf_status hf_queue_room(hf_queue *qu, size_t n, hf_error *err)
{
	if (qu->q.len && qu->q.len + n > qu->block) {
		hf_status st = queue_hand_off(qu, err);
		if (st)
			return st;
	}
	if (!hf_buf_reserve(&qu->q, n))
		return hf_error_set(err, HF_ERR_NOMEM, "out of memory");
	return HF_OK;
}

hf_status hf_queue_drain(hf_queue *qu, hf_error *err)
{
	hf_status st = HF_OK;
	if (qu->q.len)
		st = qu->worker.started || qu->q.len >= qu->block ? queue_hand_off(qu, err)
		                                                 : queue_run_here(qu, err);
	hf_status st2 = queue_wait(qu, err);
	return st ? st : st2;
}

void hf_queue_free(hf_queue *qu)
{
	hf_worker_stop(&qu->worker);
	hf_buf_free(&qu->q);
	hf_buf_free(&qu->qw);
}
