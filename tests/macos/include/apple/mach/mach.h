/* Stub of macOS's <mach/mach.h> for make macos-check (tests/macos/poison.h):
 * only what libuv's uv/darwin.h needs. */
#ifndef STUB_MACH_MACH_H
#define STUB_MACH_MACH_H
typedef unsigned int mach_port_t;
typedef mach_port_t semaphore_t;
typedef mach_port_t task_t;
#endif
