/*
 * subpath: path containment by components (see subpath.h).
 */
#include <string.h>

#include "subpath.h"

bool subpath_of(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

bool subpath_of_any(const char *path, const struct strvec *roots)
{
	for (size_t i = 0; i < roots->n; i++)
		if (subpath_of(path, roots->v[i]))
			return true;
	return false;
}
