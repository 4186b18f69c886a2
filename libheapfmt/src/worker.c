/*
 * One background job at a time (see internal.h, hf_worker), and the queue of
 * records handed to a thread of its own in blocks, several waiting at once
 * (hf_queue): the NDJSON writer formats and writes blocks of records while
 * the next are parsed, the database writer inserts them.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

/* A thread with its lock and condition (internal.h). */
bool hf_thread_start(pthread_t *t, pthread_mutex_t *mu, pthread_cond_t *cv,
                     void *(*main)(void *), void *arg)
{
	if (pthread_mutex_init(mu, NULL) != 0)
		return false;
	if (pthread_cond_init(cv, NULL) != 0) {
		pthread_mutex_destroy(mu);
		return false;
	}
	if (pthread_create(t, NULL, main, arg) != 0) {
		pthread_cond_destroy(cv);
		pthread_mutex_destroy(mu);
		return false;
	}
	return true;
}

/* Sets *stop under the lock, wakes the thread, waits for it to end. */
void hf_thread_stop(pthread_t t, pthread_mutex_t *mu, pthread_cond_t *cv, int *stop)
{
	pthread_mutex_lock(mu);
	*stop = 1;
	pthread_cond_broadcast(cv);
	pthread_mutex_unlock(mu);
	pthread_join(t, NULL);
	pthread_cond_destroy(cv);
	pthread_mutex_destroy(mu);
}

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
	if (!hf_thread_start(&w->thread, &w->mu, &w->cv, worker_main, w))
		return false;
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
	hf_thread_stop(w->thread, &w->mu, &w->cv, &w->stop);
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

/* The thread: runs the block at the head (not after a failure), then gives
 * it back empty, until told to stop with nothing left. */
static void *queue_main(void *arg)
{
	hf_queue *qu = arg;
	pthread_mutex_lock(&qu->mu);
	for (;;) {
		while (!qu->nfull && !qu->stop)
			pthread_cond_wait(&qu->cv, &qu->mu);
		if (!qu->nfull)
			break;
		hf_buf *b = &qu->ring[qu->head];
		bool failed = qu->status != HF_OK;
		pthread_mutex_unlock(&qu->mu);
		hf_error e;
		hf_status st = HF_OK;
		if (!failed) {
			memset(&e, 0, sizeof e);
			st = qu->run(qu->ctx, b->data, b->data + b->len, &e);
		}
		b->len = 0;
		pthread_mutex_lock(&qu->mu);
		if (st && !qu->status) {
			qu->status = st;
			qu->err = e;
		}
		qu->head = (qu->head + 1) % HF_QUEUE_DEPTH;
		qu->nfull--;
		pthread_cond_broadcast(&qu->cv);
	}
	pthread_mutex_unlock(&qu->mu);
	return NULL;
}

static bool queue_start(hf_queue *qu)
{
	if (qu->started)
		return true;
	qu->stop = 0;
	if (!hf_thread_start(&qu->thread, &qu->mu, &qu->cv, queue_main, qu))
		return false;
	qu->started = 1;
	return true;
}

/* The first failure, with its error in *err (when err). */
static hf_status queue_status(hf_queue *qu, hf_error *err)
{
	if (qu->status && err)
		*err = qu->err;
	return qu->status;
}

/* Waits until at most `most` blocks wait or run (the thread's lock held
 * on return when it runs). */
static void queue_wait_locked(hf_queue *qu, unsigned most)
{
	pthread_mutex_lock(&qu->mu);
	while (qu->nfull > most)
		pthread_cond_wait(&qu->cv, &qu->mu);
}

/* Runs q on this thread (no thread runs). */
static hf_status queue_run_here(hf_queue *qu, hf_error *err)
{
	hf_status st = queue_status(qu, err);
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

/* Hands q to the thread (started the first time); q becomes an empty block. */
static hf_status queue_hand_off(hf_queue *qu, hf_error *err)
{
	if (!queue_start(qu))
		return queue_run_here(qu, err);
	queue_wait_locked(qu, HF_QUEUE_DEPTH - 1);
	hf_status st = queue_status(qu, err);
	if (!st) {
		unsigned tail = (qu->head + qu->nfull) % HF_QUEUE_DEPTH;
		hf_buf t = qu->ring[tail];
		qu->ring[tail] = qu->q;
		qu->q = t;
		qu->nfull++;
		pthread_cond_broadcast(&qu->cv);
	}
	pthread_mutex_unlock(&qu->mu);
	qu->q.len = 0;
	return st;
}

hf_status hf_queue_room_slow(hf_queue *qu, size_t n, hf_error *err)
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
		st = qu->started || qu->q.len >= qu->block ? queue_hand_off(qu, err)
		                                          : queue_run_here(qu, err);
	if (qu->started) {
		queue_wait_locked(qu, 0);
		hf_status st2 = queue_status(qu, st ? NULL : err);
		pthread_mutex_unlock(&qu->mu);
		if (!st)
			st = st2;
		return st;
	}
	/* No thread (never started, or stopped): an earlier failure still is. */
	return st ? st : queue_status(qu, err);
}

void hf_queue_stop(hf_queue *qu)
{
	if (!qu->started)
		return;
	hf_thread_stop(qu->thread, &qu->mu, &qu->cv, &qu->stop);
	qu->started = 0;
}

void hf_queue_free(hf_queue *qu)
{
	hf_queue_stop(qu);
	hf_buf_free(&qu->q);
	for (unsigned i = 0; i < HF_QUEUE_DEPTH; i++)
		hf_buf_free(&qu->ring[i]);
}
