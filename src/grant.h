/*
 * grant: allowing from the feed and `sandmux allow` (see grant.c).  The
 * request's handler is cmd_allow (cmd.h).
 */
#ifndef SANDMUX_GRANT_H
#define SANDMUX_GRANT_H

/* The config file the server read (NULL: the default path), which a
 * grant in a profile rewrites. */
void grant_use_config(const char *path);

#endif
