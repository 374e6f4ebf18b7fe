/*
 * subpath: whether a path lies at or below a directory, by whole
 * components ("/a/bc" is not below "/a/b").  The sandbox's rules, the
 * learned profiles and the recorder's refusals all ask this of resolved
 * paths; one definition keeps them agreeing on it.
 */
#ifndef SANDMUX_SUBPATH_H
#define SANDMUX_SUBPATH_H

#include <stdbool.h>

#include "strvec.h"

/* path is dir or inside it.  Both absolute and resolved; "/" holds every
 * absolute path. */
bool subpath_of(const char *path, const char *dir);
/* path is inside one of the roots. */
bool subpath_of_any(const char *path, const struct strvec *roots);

#endif
