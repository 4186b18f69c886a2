/*
 * One background job at a time (see internal.h, hf_worker): the NDJSON
 * writer writes one buffer while the next is formatted, the database writer
 * inserts one block of rows while the next is parsed.
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
