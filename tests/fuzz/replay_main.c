/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The driver that runs a fuzz target without libFuzzer: every file named on the
 * command line, or found in a folder named there, is passed once to
 * LLVMFuzzerTestOneInput, in name order. Linked with each tests/fuzz/fuzz_*.c in
 * every build, this replays the checked-in corpora as a regression test (suite
 * unit), so that the gcc build and the ASan+UBSan build (scripts/dev.sh test)
 * run every seed and every input a fuzzer once found. libFuzzer's own
 * StandaloneFuzzTargetMain.c does the same but is not in Debian's packages.
 *
 * Exit status: 0 when every input ran (a target reports a bad input by
 * aborting), 1 when a path could not be read or nothing was found.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long ran;

static int
run_file(const char *path)
{
	uint8_t *buf = NULL;
	long len;
	FILE *f = fopen(path, "rb");

	if (f == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "replay: %s: cannot size it\n", path);
		fclose(f);
		return -1;
	}
	/* an exact-size heap copy: ASan sees a read one past the input */
	buf = malloc(len > 0 ? (size_t)len : 1);
	if (buf == NULL || (len > 0 && fread(buf, 1, (size_t)len, f) != (size_t)len)) {
		fprintf(stderr, "replay: %s: cannot read it\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	ran++;
	return 0;
}

static int
name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int
run_path(const char *path)
{
	struct dirent **names;
	struct stat st;
	int n, i, rc = 0;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	n = scandir(path, &names, NULL, name_cmp);
	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		char full[4096];

		if (names[i]->d_name[0] != '.' && rc == 0) {
			snprintf(full, sizeof(full), "%s/%s", path, names[i]->d_name);
			rc = run_path(full);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int
main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...: run each input once through the target\n",
			argv[0]);
		return 1;
	}
	if (LLVMFuzzerInitialize != NULL)
		LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++)
		if (run_path(argv[i]) != 0)
			return 1;
	printf("replay: %lu inputs ran\n", ran);
	return ran > 0 ? 0 : 1;
}
