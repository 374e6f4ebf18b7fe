/* Hard links of secrets (linked-secret.h). */
#include "linked-secret.h"
#include "xalloc.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void add_file(struct linked_secrets *c, const struct stat *st)
{
	if (c->n == c->cap) {
		size_t cap = c->cap != 0 ? c->cap * 2 : 64;
		/* xalloc's: a file left out here would be a hard link of a
		 * secret let through. */
		c->v = xrealloc(c->v, cap * sizeof *c->v), c->cap = cap;
	}
	c->v[c->n++] = (struct linked_secret_file){st->st_ino, st->st_size, st->st_mtim};
}

/* Every regular file under the directory dfd (owned), symlinks not
 * followed, within the bounds. */
static void walk(struct linked_secrets *c, int dfd, int depth, size_t *seen)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;

	if (d == NULL) {
		close(dfd);
		return;
	}
	while ((e = readdir(d)) != NULL && *seen < LINKED_SECRET_FILES) {
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		++*seen;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (S_ISREG(st.st_mode)) {
			add_file(c, &st);
		} else if (S_ISDIR(st.st_mode) && depth < LINKED_SECRET_DEPTH) {
			int sub = openat(dirfd(d), e->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub >= 0)
				walk(c, sub, depth + 1, seen);
		}
	}
	closedir(d);
}

static void rebuild(struct linked_secrets *c, char *const *roots)
{
	size_t seen = 0;

	c->n = 0;
	for (size_t i = 0; roots != NULL && roots[i] != NULL; i++) {
		struct stat st;
		/* openat: the microvm guard, which compiles this in,
		 * interposes open() itself, and would refuse the root. */
		int fd = openat(AT_FDCWD, roots[i], O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

		if (fd < 0)
			continue;
		if (fstat(fd, &st) != 0) {
			close(fd);
		} else if (S_ISDIR(st.st_mode)) {
			walk(c, fd, 1, &seen);
		} else {
			if (S_ISREG(st.st_mode))
				add_file(c, &st);
			close(fd);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &c->at);
	c->built = true;
}

bool linked_secret(struct linked_secrets *c, char *const *roots, const struct stat *st)
{
	struct timespec now;

	if (!S_ISREG(st->st_mode) || st->st_nlink < 2 ||
	    (!c->fixed && (roots == NULL || roots[0] == NULL)))
		return false;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!c->fixed && (!c->built || now.tv_sec - c->at.tv_sec > 1 ||
			  (now.tv_sec - c->at.tv_sec == 1 && now.tv_nsec >= c->at.tv_nsec)))
		rebuild(c, roots);
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].ino == st->st_ino && c->v[i].size == st->st_size &&
		    c->v[i].mtime.tv_sec == st->st_mtim.tv_sec &&
		    c->v[i].mtime.tv_nsec == st->st_mtim.tv_nsec)
			return true;
	return false;
}

void linked_secrets_free(struct linked_secrets *c)
{
	free(c->v);
	*c = (struct linked_secrets){0};
}

void linked_secrets_collect(struct linked_secrets *c, char *const *roots)
{
	rebuild(c, roots);
}

size_t linked_secrets_format(const struct linked_secrets *c, char *out, size_t size)
{
	size_t used = 0;

	if (size == 0)
		return 0;
	out[0] = '\0';
	for (size_t i = 0; i < c->n; i++) {
		int n = snprintf(out + used, size - used, "%" PRIuMAX " %" PRIdMAX " %" PRIdMAX " %ld\n",
				 (uintmax_t)c->v[i].ino, (intmax_t)c->v[i].size,
				 (intmax_t)c->v[i].mtime.tv_sec, (long)c->v[i].mtime.tv_nsec);

		if (n < 0 || (size_t)n >= size - used) {
			out[0] = '\0';
			return 0;
		}
		used += (size_t)n;
	}
	return used;
}

int linked_secrets_parse(struct linked_secrets *c, const char *text)
{
	c->n = 0;
	c->built = c->fixed = true;
	for (const char *p = text; p != NULL && *p != '\0';) {
		uintmax_t ino;
		intmax_t size, sec;
		long nsec;
		struct stat st = {0};
		const char *nl = strchr(p, '\n');

		if (sscanf(p, "%" SCNuMAX " %" SCNdMAX " %" SCNdMAX " %ld", &ino, &size, &sec,
			   &nsec) != 4 ||
		    nsec < 0 || nsec > 999999999L)
			return -1;
		st.st_ino = (ino_t)ino;
		st.st_size = (off_t)size;
		st.st_mtim.tv_sec = (time_t)sec;
		st.st_mtim.tv_nsec = nsec;
		add_file(c, &st);
		p = nl != NULL ? nl + 1 : NULL;
	}
	return 0;
}
