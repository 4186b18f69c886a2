/* hf_id_index: a directory over sorted ids, for lookups by id. */
#include "internal.h"

void hf_id_index_build(hf_id_index *x, const int64_t *ids, size_t n)
{
	memset(x, 0, sizeof *x);
	x->ids = ids;
	x->n = n;
	if (n < 64 || n >= UINT32_MAX)
		return;
	/* About four ids a bucket: the fewest buckets, a power of two wide,
	 * that cover min..max with at most n / 4 of them. */
	uint64_t range = (uint64_t)ids[n - 1] - (uint64_t)ids[0];
	uint64_t want = n / 4;
	unsigned shift = 0;
	while (shift < 63 && (range >> shift) >= want)
		shift++;
	uint64_t nb = (range >> shift) + 1;
	x->dir = malloc((size_t)(nb + 1) * sizeof *x->dir);
	if (!x->dir)
		return;
	x->nb = nb;
	x->min = ids[0];
	x->shift = shift;
	size_t i = 0;
	for (uint64_t b = 0; b < nb; b++) {
		while (i < n && (((uint64_t)ids[i] - (uint64_t)x->min) >> shift) < b)
			i++;
		x->dir[b] = (uint32_t)i;
	}
	x->dir[nb] = (uint32_t)n;
}

size_t hf_id_index_bytes(const hf_id_index *x)
{
	return x->dir ? (size_t)(x->nb + 1) * sizeof *x->dir : 0;
}

void hf_id_index_free(hf_id_index *x)
{
	free(x->dir);
	memset(x, 0, sizeof *x);
}
