/* hf_map: the hash map from 64-bit keys to 64-bit values; the random seeds
 * of hashes that an input must not be able to predict. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

/*
 * Open addressing with linear probing over murmur3's finalizer of the key.
 * The finalizer can be run backwards, so a crafted input can choose ids that
 * all fall in one slot (an HPROF of 40,000 such UTF8 records, 909 KB, took
 * 2.0 s against 0.02 s; the time grows with the square of the records).  A
 * map counts its probes: when they pass MAP_PROBES_PER_OP for each lookup,
 * insertion or removal since the last rehash, plus MAP_PROBES_FREE, the next
 * insertion rehashes it with a random seed, which the input cannot know.
 * Ordinary keys average one to three probes, so their maps keep seed 0 and
 * the slot order the readers walk in a few places (hprof.c: park_map,
 * dump_close, rescan_late_without_input), and with it the order of the
 * records written, stays the same from run to run; only a map that was
 * attacked gets an order of its own.
 */
#define MAP_PROBES_PER_OP 32
#define MAP_PROBES_FREE 4096

static inline size_t map_hash(const hf_map *m, uint64_t k)
{
	k ^= m->seed;
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return (size_t)k;
}

void hf_map_init(hf_map *m) { memset(m, 0, sizeof *m); }

void hf_map_free(hf_map *m)
{
	free(m->slots);
	memset(m, 0, sizeof *m);
}

uint64_t hf_random_u64(void)
{
	uint64_t seed = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, &seed, sizeof seed) != (ssize_t)sizeof seed)
			seed = 0;
		close(fd);
	}
	if (!seed) {
		/* No /dev/urandom: the clock and addresses (ASLR). */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		static uint64_t calls;
		seed = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^
		       ((uint64_t)(uintptr_t)&ts << 17) ^ (uint64_t)(uintptr_t)&calls ^ ++calls * 0x9E3779B97F4A7C15ULL;
	}
	return seed;
}

/* Rehashes into ncap slots (a power of two); with reseed, with a new seed. */
static bool map_rehash(hf_map *m, size_t ncap, bool reseed)
{
	hf_map_slot *ns = malloc(ncap * sizeof *ns);
	if (!ns)
		return false;
	memset(ns, 0xFF, ncap * sizeof *ns); /* every key HF_MAP_EMPTY (all ones) */
	if (reseed) {
		m->seed = hf_random_u64() | 1;
		m->ops = m->probes = 0;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key != HF_MAP_EMPTY) {
			size_t j = map_hash(m, m->slots[i].key) & (ncap - 1);
			while (ns[j].key != HF_MAP_EMPTY)
				j = (j + 1) & (ncap - 1);
			ns[j] = m->slots[i];
		}
	free(m->slots);
	m->slots = ns;
	m->cap = ncap;
	return true;
}

bool hf_map_put(hf_map *m, uint64_t key, uint64_t val)
{
	if (key == HF_MAP_EMPTY) {
		if (!m->has_empty_key)
			m->count++;
		m->has_empty_key = 1;
		m->empty_key_val = val;
		return true;
	}
	if ((m->count + 1) * 4 > m->cap * 3 && !map_rehash(m, m->cap ? m->cap * 2 : 64, false))
		return false;
	/* (A failed rehash leaves the map as it was: slow, not wrong.) */
	if (m->probes > MAP_PROBES_PER_OP * m->ops + MAP_PROBES_FREE)
		map_rehash(m, m->cap, true);
	m->ops++;
	size_t j = map_hash(m, key) & (m->cap - 1);
	while (m->slots[j].key != HF_MAP_EMPTY) {
		if (m->slots[j].key == key) {
			m->slots[j].val = val;
			return true;
		}
		j = (j + 1) & (m->cap - 1);
		m->probes++;
	}
	m->slots[j].key = key;
	m->slots[j].val = val;
	m->count++;
	return true;
}

uint64_t *hf_map_get(hf_map *m, uint64_t key)
{
	if (key == HF_MAP_EMPTY)
		return m->has_empty_key ? &m->empty_key_val : NULL;
	if (!m->cap)
		return NULL;
	/* (Counted here, acted on by the next insertion: a pointer a lookup
	 * returned stays valid until the map is changed.) */
	m->ops++;
	size_t j = map_hash(m, key) & (m->cap - 1);
	for (;;) {
		uint64_t k = m->slots[j].key;
		if (k == key)
			return &m->slots[j].val;
		if (k == HF_MAP_EMPTY)
			return NULL;
		j = (j + 1) & (m->cap - 1);
		m->probes++;
	}
}

bool hf_map_remove(hf_map *m, uint64_t key)
{
	if (key == HF_MAP_EMPTY) {
		if (!m->has_empty_key)
			return false;
		m->has_empty_key = 0;
		m->count--;
		return true;
	}
	if (!m->cap)
		return false;
	m->ops++;
	size_t mask = m->cap - 1;
	size_t j = map_hash(m, key) & mask;
	while (m->slots[j].key != key) {
		if (m->slots[j].key == HF_MAP_EMPTY)
			return false;
		j = (j + 1) & mask;
		m->probes++;
	}
	/* Backward-shift deletion keeps probe chains intact. */
	size_t i = j;
	for (;;) {
		m->slots[i].key = HF_MAP_EMPTY;
		size_t k = i;
		for (;;) {
			k = (k + 1) & mask;
			m->probes++;
			if (m->slots[k].key == HF_MAP_EMPTY) {
				m->count--;
				return true;
			}
			size_t home = map_hash(m, m->slots[k].key) & mask;
			/* Move k to i if its home is not cyclically in (i, k]. */
			if (i <= k ? (home <= i || home > k) : (home <= i && home > k))
				break;
		}
		m->slots[i] = m->slots[k];
		i = k;
	}
}
