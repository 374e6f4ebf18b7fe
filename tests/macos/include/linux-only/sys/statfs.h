/* A Linux-only header (tests/macos/poison.h): guard its #include with __linux__. */
#error "Linux-only header <sys/statfs.h> in the macOS build"
