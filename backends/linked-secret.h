/*
 * linked-secret: is this file a hard link of a file under a deny-read
 * root?
 *
 * A mask hides a directory's names, not its inodes.  A hard link made
 * before launch from outside the denied directories (`ln ~/.ssh/id_ed25519
 * ~/backup/k`, by the user or a tool that hard-links into a store) is the
 * same file under a name no mask covers.  Threat: reading a secret (or
 * writing `authorized_keys`) through such a name.  The native supervisor
 * (every read and write it opens) and the microvm shares' guard (every
 * open diod makes) ask this of each regular file with more than one
 * link: a name list cannot close this, the inode can.
 */
#ifndef SANDMUX_LINKED_SECRET_H
#define SANDMUX_LINKED_SECRET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <time.h>

/* The regular files found under the roots, rebuilt when older than a
 * second (a secret the host adds later is seen by the next check). */
struct linked_secrets {
	struct linked_secret_file {
		ino_t ino;
		off_t size;
		struct timespec mtime;
	} *v;
	size_t n, cap;
	bool built;
	bool fixed; /* given whole (linked_secrets_parse): never walked again */
	struct timespec at; /* CLOCK_MONOTONIC */
};

/* Files walked under all roots at most, and directories deep.  Threat: a
 * huge deny-read root making every check slow; what lies past the bound
 * is not compared (the mask still hides its names). */
#define LINKED_SECRET_FILES 8192
#define LINKED_SECRET_DEPTH 8

/* True when st (of a file opened anywhere, through any mount: its
 * st_dev is not compared, since an overlay gives its own) is a regular
 * file with more than one link whose inode number, size and
 * modification time are those of a regular file under one of roots (a
 * NULL-terminated list of absolute host paths; NULL for none). */
bool linked_secret(struct linked_secrets *cache, char *const *roots, const struct stat *st);

void linked_secrets_free(struct linked_secrets *cache);

/* For a process that cannot see the roots (the microvm work tree's
 * file server): the server walks them at launch (collect), writes the
 * files as text, one "INO SIZE SEC NSEC" line each (format: the bytes
 * written, or 0 when they do not fit in size), and the other side reads
 * them back as a fixed cache (parse: 0, or -1 on a malformed line). */
void linked_secrets_collect(struct linked_secrets *cache, char *const *roots);
size_t linked_secrets_format(const struct linked_secrets *cache, char *out, size_t size);
int linked_secrets_parse(struct linked_secrets *cache, const char *text);

#endif
