/*
 * shim-home: the step before bwrap that mounts a pane's copy-on-write
 * home (shim-home.c).
 */
#ifndef SANDMUX_SHIM_HOME_H
#define SANDMUX_SHIM_HOME_H

/* sandmux-shim --home-layer HOME LAYER WORK [--real PATH]... -- COMMAND...:
 * returns only on a usage error (2); any other failure exits 126. */
int shim_home_main(int argc, char **argv);

#endif
