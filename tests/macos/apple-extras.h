/*
 * apple-extras.h: read at the end of poison.h, for make macos-check.
 * What macOS declares in headers that Linux has too (<unistd.h>,
 * <sys/un.h>, <fcntl.h>), but glibc's copies lack: declared here,
 * so the __APPLE__ branches compile.  Values are macOS's.
 */
#ifndef STUB_APPLE_EXTRAS_H
#define STUB_APPLE_EXTRAS_H
int getpeereid(int fd, uid_t *uid, gid_t *gid);
#define SOL_LOCAL 0
#define LOCAL_PEERPID 0x002
#define F_GETPATH 50
#endif
