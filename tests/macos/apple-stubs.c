/*
 * apple-stubs: definitions of the macOS calls the __APPLE__ branches
 * make, so that make macos-check can link the macOS build's objects on
 * Linux and so catch a call to a function that only a Linux-only file
 * defines.  Never run: the check only links.  Their declarations are
 * the stubs in tests/macos/include/apple/ and apple-extras.h.
 */
#include <stdint.h>
#include <sys/types.h>

#include <libproc.h>
#include <mach-o/dyld.h>

#include "apple-extras.h"

int proc_pidinfo(int pid, int flavor, uint64_t arg, void *buffer, int buffersize)
{
	return -1;
}

int proc_pidpath(int pid, void *buffer, uint32_t buffersize)
{
	return -1;
}

int proc_listallpids(void *buffer, int buffersize)
{
	return -1;
}

int proc_name(int pid, void *buffer, uint32_t buffersize)
{
	return -1;
}

int _NSGetExecutablePath(char *buf, uint32_t *bufsize)
{
	return -1;
}

int getpeereid(int fd, uid_t *uid, gid_t *gid)
{
	return -1;
}
