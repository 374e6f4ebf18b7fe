/* Stub of macOS's <TargetConditionals.h> for make macos-check. */
#define TARGET_OS_OSX 1
#define TARGET_OS_IPHONE 0
