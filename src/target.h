/*
 * target: the one grammar of pane and session targets, as every command
 * writes them after -t (tmux's, without its special tokens):
 *
 *   %N or N              pane N (its id, as `sandmux ls` shows it)
 *   SESSION              that session's active window's active pane
 *   SESSION:W            window W's active pane
 *   SESSION:W.P          window W's P-th pane (0-based, layout order)
 *   :W, :W.P             the same in the attached session (else the first)
 *
 * Parsing is pure (this file); finding what a target names is the
 * server's (cmd_target_pane, cmd_target_session), so it is resolved in
 * one place whoever wrote it.  Session names may not contain ':', '.'
 * or '%' (new-session refuses them), so the grammar is unambiguous.
 */
#ifndef SANDMUX_TARGET_H
#define SANDMUX_TARGET_H

struct sm_error;

#define TARGET_SESSION_MAX 64

struct target {
	int pane_id;			  /* %N or N; -1 otherwise */
	char session[TARGET_SESSION_MAX]; /* "" : the attached (or first) session */
	int window;			  /* -1: the session's active window */
	int pane_index;			  /* -1: the window's active pane */
};

/* 0, or -1 with err (invalid_target) for text that is no target. */
int target_parse(const char *text, struct target *out, struct sm_error *err);

#endif
