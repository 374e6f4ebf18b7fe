/* Stub for make macos-check: see mach/mach.h. */
#include <mach/mach.h>
