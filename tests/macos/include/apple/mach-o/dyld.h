/* Stub of macOS's <mach-o/dyld.h> for make macos-check (tests/macos/poison.h). */
#ifndef STUB_MACH_O_DYLD_H
#define STUB_MACH_O_DYLD_H
#include <stdint.h>
int _NSGetExecutablePath(char *buf, uint32_t *bufsize);
#endif
