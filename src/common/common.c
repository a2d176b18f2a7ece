/* SPDX-License-Identifier: BSD-3-Clause */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dp_common.h"

RTE_LOG_REGISTER(dp_logtype_common, dpfwd.common, INFO);

int
dp_strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strlen(src);

	if (size == 0)
		return -ENAMETOOLONG;
	if (n >= size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return -ENAMETOOLONG;
	}
	memcpy(dst, src, n + 1);
	return 0;
}

void *
dp_array_grow(void *arr, uint32_t *cap, size_t elt, uint32_t first)
{
	uint32_t n = *cap ? *cap * 2 : first;
	void *a = realloc(arr, n * elt);

	if (a != NULL)
		*cap = n;
	return a;
}

bool
dp_args_has(int argc, char **argv, const char *const *opts)
{
	int i, j;

	for (i = 1; i < argc; i++)
		for (j = 0; opts[j] != NULL; j++) {
			size_t n = strlen(opts[j]);

			if (strncmp(argv[i], opts[j], n) != 0)
				continue;
			if (argv[i][n] == '\0' || argv[i][n] == '=' ||
				(n == 2 && opts[j][1] != '-'))
				return true;
		}
	return false;
}

static double
clock_sec(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double
dp_time_mono(void)
{
	return clock_sec(CLOCK_MONOTONIC);
}

double
dp_time_real(void)
{
	return clock_sec(CLOCK_REALTIME);
}

int
dp_args_eal_end(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			return i;
	return argc;
}

bool
dp_args_wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return true;
	return false;
}

int
dp_args_push(char **out, int *n, int max, const char *s)
{
	if (*n >= max)
		return -E2BIG;
	out[*n] = strdup(s);
	if (out[*n] == NULL)
		return -ENOMEM;
	(*n)++;
	return 0;
}

long
dp_hugepages_free_mb(void)
{
	char line[128];
	long pages = -1, kb = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		sscanf(line, "HugePages_Free: %ld", &pages);
		sscanf(line, "Hugepagesize: %ld kB", &kb);
	}
	fclose(f);
	return pages < 0 ? -1 : pages * kb / 1024;
}

void
dp_dir_remove_flat(const char *dir)
{
	char path[4096];
	struct dirent *de;
	DIR *d;

	if (dir == NULL || dir[0] == '\0' || (d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}
