/*
 * Replays saved fuzz inputs without a fuzzer: every file named on the
 * command line, or every file in a directory named there, goes through
 * LLVMFuzzerTestOneInput once.  The ordinary test suite runs this over
 * testdata/fuzz/ so every input that ever crashed or hung stays fixed.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: cannot open %s\n", path);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
	if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
		fclose(f);
		free(buf);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int files = 0, errors = 0;
	for (int i = 1; i < argc; i++) {
		struct stat sb;
		if (stat(argv[i], &sb) != 0) {
			fprintf(stderr, "replay: %s: not found\n", argv[i]);
			errors++;
			continue;
		}
		if (!S_ISDIR(sb.st_mode)) {
			errors += replay_file(argv[i]);
			files++;
			continue;
		}
		DIR *d = opendir(argv[i]);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			char p[4096];
			snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
			if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode)) {
				errors += replay_file(p);
				files++;
			}
		}
		if (d)
			closedir(d);
	}
	printf("replayed %d inputs, %d unreadable\n", files, errors);
	return errors ? 1 : 0;
}
