/*
 * native-inside: the programs a native pane's sandbox runs before its
 * command (docs/design.md, "Processes"), each the main of a hidden verb
 * of sandmux (src/command-table.c) and the shim also a static binary of
 * its own (build/sandmux-shim).  What runs here uses nothing of the
 * server's: its own headers, backends/ and the base only, and the shim
 * libc alone (tests/integration/layers.sh).
 */
#ifndef SANDMUX_NATIVE_INSIDE_H
#define SANDMUX_NATIVE_INSIDE_H

/* `sandmux shim ...` (shim.c): install the filter, hand the listener
 * over, exec the command. */
int shim_main(int argc, char **argv);
/* `sandmux egress-bridge SOCAT -- CMD...` (egress-bridge.c): the bridges
 * to the egress proxies, then exec the command. */
int verb_egress_bridge(int argc, char **argv);

#endif
