/*
 * shim-filter: the seccomp filter every native pane runs under, built by
 * the server and handed to the shim (backends/native-inside/shim.c) as BPF.
 *
 * The server builds the program once with libseccomp and sends it over
 * the shim's handshake socket before bwrap starts; the shim only loads
 * it.  That keeps the shim a small static binary (no libseccomp, no
 * libvterm, ncurses or libuv to map) whose exec costs little on the
 * path from `split` to the pane's first output.  The rules, and the
 * threat each one stops, are below and in docs/supervisor.md.
 */
#ifndef SANDMUX_SHIM_FILTER_H
#define SANDMUX_SHIM_FILTER_H

#include <linux/filter.h>

/* The handshake's version: "sandmux-shim 2 ..." both ways. */
#define SHIM_HELLO "sandmux-shim 2"
/* A prepared sandbox's command (sandmux-shim --fd N --wait): one message
 * "sandmux-shim 2 run", a NUL, then the argv strings each ending in a
 * NUL, an empty string, and the environment strings each ending in a
 * NUL.  At most this many bytes. */
#define SHIM_RUN_MAX (256 * 1024)

/* The program, built on first use and kept for the server's life; NULL
 * when libseccomp cannot build it (err says why, in at most size bytes). */
const struct sock_fprog *shim_filter_program(char *err, size_t size);

#endif
