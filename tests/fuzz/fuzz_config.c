/*
 * fuzz_config: config_load, the user's settings file, on arbitrary bytes.
 * The loader only reads from a path, so each input is written to a
 * memfd and loaded through /proc/self/fd/N: the real read path, no
 * temporary files.  A bad file must give an error, never a crash or a
 * leak, and must leave the defaults standing.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-config", 0);
	char path[64];
	struct config config;
	struct sm_error err = { 0 };

	if (fd < 0)
		abort();
	if (size > 0 && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	config_defaults(&config);
	if (config_load(path, &config, &err) == 0)
		config_free(&config);
	close(fd);
	return 0;
}
