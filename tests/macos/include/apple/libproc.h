/* Stub of macOS's <libproc.h> for make macos-check (tests/macos/poison.h):
 * the calls that list processes and read one's record, name, path, cwd. */
#ifndef STUB_LIBPROC_H
#define STUB_LIBPROC_H
#include <sys/proc_info.h>
#include <sys/types.h>
#define PROC_PIDPATHINFO_MAXSIZE 4096
int proc_pidinfo(int pid, int flavor, uint64_t arg, void *buffer, int buffersize);
int proc_pidpath(int pid, void *buffer, uint32_t buffersize);
int proc_listallpids(void *buffer, int buffersize);
int proc_name(int pid, void *buffer, uint32_t buffersize);
#endif
