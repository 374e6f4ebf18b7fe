/*
 * command-table: every command sandmux knows, one entry each (see
 * command.h for what an entry holds and who reads it).
 *
 * Adding a command: one entry here (name, usage, summary, options, the
 * request it becomes, its handler), the handler in cmd-*.c, and its line
 * in docs/protocol.md; docs/commands.md is generated (make docs) and the
 * docs check in make check fails until it is.
 */
#include <stddef.h>

#include "cli.h"
#include "cmd.h"
#include "command.h"
#include "native-inside/native-inside.h"

/* Options every command that starts a program shares. */
#define SPAWN_OPTIONS                                                                              \
	{ 'c', "cwd", CV_PATH, "cwd", .meta = "DIR", .help = "working directory" },                \
	    { 'e', "env", CV_ENV, "env", .meta = "NAME=VALUE",                                     \
	      .help = "an environment variable (repeatable)" },                                    \
	    { 'b', "backend", CV_BACKEND, "backend", .meta = "BACKEND",                            \
	      .help = "none, native or microvm (never falls back)" },                              \
	    { 'P', "profile", CV_PROFILE, "profile", .meta = "PROFILE",                            \
	      .help = "the sandbox profile (terminal, agent, the config's)" },                     \
	    { 'r', "remain", CV_FLAG, "remain", .help = "keep the pane when its program exits" }

#define PANE_TARGET(what)                                                                          \
	{ 't', "target", CV_PANE, "pane", .required = true, .meta = "PANE", .help = what }

#define END { 0 }

static const struct command_option new_options[] = {
	{ 'A', NULL, CV_FLAG, NULL, .help = "attach to session NAME instead if it exists" },
	{ 'd', NULL, CV_FLAG, NULL, .help = "do not attach" },
	{ 's', NULL, CV_STRING, "name", .meta = "NAME", .help = "the session's name" },
	{ 'x', NULL, CV_NUMBER, "cols", .min = 10, .max = 1000, .meta = "COLS", .help = "width" },
	{ 'y', NULL, CV_NUMBER, "rows", .min = 3, .max = 1000, .meta = "ROWS", .help = "height" },
	{ 0, "layout", CV_PATH, NULL, .meta = "FILE",
	  .help = "the session a layout file describes (docs/sessions.md)" },
	SPAWN_OPTIONS,
	END,
};

static const struct command_option attach_options[] = {
	{ 't', "target", CV_SESSION, "session", .meta = "SESSION", .help = "the session" },
	{ 0, "theme", CV_STRING, NULL, .meta = "NAME", .help = "a theme file's name" },
	END,
};

static const struct command_option profile_show_options[] = {
	{ 0, "platform", CV_STRING, "platform", .meta = "linux|macos",
	  .help = "whose rules: bwrap and the supervisor's, or Seatbelt's SBPL (default linux)" },
	{ 'c', "cwd", CV_PATH, "cwd", .meta = "DIR",
	  .help = "the work tree (default: the current directory, at the prompt $HOME)" },
	END,
};

static const struct command_option json_options[] = {
	{ 0, "json", CV_FLAG, NULL, .help = "print JSON" },
	END,
};

static const struct command_option split_options[] = {
	PANE_TARGET("the pane to split"),
	{ 'h', NULL, CV_FLAG, "direction", "h", .help = "side by side" },
	{ 'v', NULL, CV_FLAG, "direction", "v", .help = "stacked (the default)" },
	{ 'f', "full", CV_FLAG, "full", .help = "the window's full width (-v) or height (-h)" },
	{ 'l', "size", CV_PERCENT, "size", .meta = "PERCENT", .help = "the new pane's share" },
	{ 'p', NULL, CV_PERCENT, "size", .meta = "PERCENT", .help = "the same as -l" },
	{ 0, "float", CV_FLAG, "float", .help = "a floating pane over the tiled ones" },
	{ 'w', "width", CV_NUMBER, "width", .min = 1, .max = 1000, .meta = "COLS",
	  .help = "--float: the box's width (default half the window's)" },
	{ 0, "height", CV_NUMBER, "height", .min = 1, .max = 1000, .meta = "ROWS",
	  .help = "--float: the box's height (-h is side by side here)" },
	{ 'x', NULL, CV_NUMBER, "x", .min = 0, .max = 1000, .meta = "X",
	  .help = "--float: the box's column (default centred)" },
	{ 'y', NULL, CV_NUMBER, "y", .min = 0, .max = 1000, .meta = "Y",
	  .help = "--float: the box's row (default centred)" },
	SPAWN_OPTIONS,
	END,
};

/* A floating box's place and size (display-popup, float-pane, feed). */
#define FLOAT_BOX_OPTIONS                                                                          \
	{ 'w', "width", CV_NUMBER, "width", .min = 1, .max = 1000, .meta = "COLS",                 \
	  .help = "the box's width, its border in" },                                              \
	    { 'h', "height", CV_NUMBER, "height", .min = 1, .max = 1000, .meta = "ROWS",           \
	      .help = "the box's height, its title and border in" },                               \
	    { 'x', NULL, CV_NUMBER, "x", .min = 0, .max = 1000, .meta = "X",                       \
	      .help = "the box's column" },                                                        \
	    { 'y', NULL, CV_NUMBER, "y", .min = 0, .max = 1000, .meta = "Y",                       \
	      .help = "the box's row" }

static const struct command_option display_popup_options[] = {
	{ 't', "target", CV_PANE, "pane", .meta = "PANE",
	  .help = "the pane whose window it opens over (default: active)" },
	FLOAT_BOX_OPTIONS,
	{ 'c', "cwd", CV_PATH, "cwd", .meta = "DIR", .help = "working directory" },
	{ 'e', "env", CV_ENV, "env", .meta = "NAME=VALUE",
	  .help = "an environment variable (repeatable)" },
	{ 'b', "backend", CV_BACKEND, "backend", .meta = "BACKEND",
	  .help = "none, native or microvm (never falls back)" },
	{ 'P', "profile", CV_PROFILE, "profile", .meta = "PROFILE",
	  .help = "the sandbox profile (terminal, agent, the config's)" },
	END,
};

static const struct command_option float_pane_options[] = {
	{ 't', "target", CV_PANE, "pane", .meta = "PANE",
	  .help = "the floating pane (default: active)" },
	FLOAT_BOX_OPTIONS,
	END,
};

static const struct command_option send_keys_options[] = {
	PANE_TARGET("the pane"),
	{ 'l', "literal", CV_FLAG, "literal", .help = "every word is text, not a key name" },
	{ 'X', NULL, CV_FLAG, "mode",
	  .help = "every word is a command for the pane's copy mode (cursor-up, cancel, ...), as tmux's" },
	END,
};

static const struct command_option capture_options[] = {
	PANE_TARGET("the pane"),
	{ 'S', NULL, CV_ROW, "start", "-1000000000", .min = -1000000000, .max = 1000000000,
	  .meta = "START", .help = "first row (negative: history; -: its start)" },
	{ 'E', NULL, CV_ROW, "end", NULL, .min = -1000000000, .max = 1000000000, .meta = "END",
	  .help = "last row (-: the screen's last)" },
	{ 'e', "ansi", CV_FLAG, "ansi", .help = "with colour and attribute sequences" },
	{ 0, "last-command", CV_FLAG, "last_command",
	  .help = "the last command's output, from the shell's OSC 133 marks" },
	{ 'p', NULL, CV_FLAG, NULL, .help = "print (always; as tmux spells it)" },
	END,
};

static const struct command_option resize_options[] = {
	PANE_TARGET("the pane"),
	{ 'x', NULL, CV_NUMBER, "cols", .min = 1, .max = 1000, .request = "resize", .meta = "COLS",
	  .help = "set the width" },
	{ 'y', NULL, CV_NUMBER, "rows", .min = 1, .max = 1000, .request = "resize", .meta = "ROWS",
	  .help = "set the height" },
	{ 'L', NULL, CV_FLAG, "dir", "left", .help = "move the left edge by AMOUNT" },
	{ 'R', NULL, CV_FLAG, "dir", "right", .help = "move the right edge" },
	{ 'U', NULL, CV_FLAG, "dir", "up", .help = "move the top edge" },
	{ 'D', NULL, CV_FLAG, "dir", "down", .help = "move the bottom edge" },
	{ 'Z', NULL, CV_FLAG, NULL, .request = "zoom", .help = "zoom or unzoom instead" },
	END,
};

static const struct command_option pane_options[] = {
	PANE_TARGET("the pane"),
	END,
};

static const struct command_option suspend_options[] = {
	PANE_TARGET("the pane"),
	{ 0, "to-disk", CV_FLAG, "to_disk",
	  .help = "save the VM's state to the state directory and end qemu (microvm)" },
	END,
};

static const struct command_option optional_pane_options[] = {
	{ 't', "target", CV_PANE, "pane", .meta = "PANE", .help = "the pane (default: active)" },
	END,
};

static const struct command_option session_options[] = {
	{ 't', "target", CV_SESSION, "session", .required = true, .meta = "SESSION",
	  .help = "the session" },
	END,
};

static const struct command_option optional_session_options[] = {
	{ 't', "target", CV_SESSION, "session", .meta = "SESSION",
	  .help = "the session (the attached one, else the first)" },
	END,
};

static const struct command_option feed_options[] = {
	{ 't', "target", CV_SESSION, "session", .meta = "SESSION", .help = "the session" },
	{ 0, "toggle", CV_FLAG, "toggle", .help = "close the feed if it has the focus" },
	{ 0, "float", CV_FLAG, "float", .help = "open it floating over the tiled panes" },
	FLOAT_BOX_OPTIONS,
	END,
};

static const struct command_option select_pane_options[] = {
	{ 't', "target", CV_PANE, "pane", .meta = "PANE", .help = "the pane to focus" },
	{ 'L', NULL, CV_FLAG, "dir", "left", .help = "the pane to the left" },
	{ 'R', NULL, CV_FLAG, "dir", "right", .help = "to the right" },
	{ 'U', NULL, CV_FLAG, "dir", "up", .help = "above" },
	{ 'D', NULL, CV_FLAG, "dir", "down", .help = "below" },
	{ 'n', NULL, CV_FLAG, "dir", "next", .help = "the next in layout order" },
	{ 'p', NULL, CV_FLAG, "dir", "prev", .help = "the previous" },
	END,
};

static const struct command_option new_window_options[] = {
	{ 't', "target", CV_SESSION, "session", .meta = "SESSION", .help = "the session" },
	{ 'd', NULL, CV_FLAG, "detached", .help = "do not make it the current window" },
	SPAWN_OPTIONS,
	END,
};

static const struct command_option select_window_options[] = {
	{ 't', "target", CV_WINDOW, "index", .meta = "INDEX", .help = "the window's index" },
	{ 'n', NULL, CV_FLAG, "next", .help = "the next window" },
	{ 'p', NULL, CV_FLAG, "prev", .help = "the previous window" },
	END,
};

static const struct command_option copy_mode_options[] = {
	{ 'u', NULL, CV_FLAG, NULL, .help = "start a page up" },
	END,
};

static const struct command_option prompt_options[] = {
	{ 'p', NULL, CV_STRING, NULL, .meta = "PROMPT", .help = "the prompt's label" },
	{ 'I', NULL, CV_STRING, NULL, .meta = "TEXT", .help = "initial text (formats: #W)" },
	END,
};

static const struct command_option list_keys_options[] = {
	{ 'T', NULL, CV_STRING, NULL, .meta = "TABLE",
	  .help = "only this key table: prefix, copy-mode, choose-mode, prompt, help-mode, "
		   "display-panes, ask-mode" },
	END,
};

static const struct command_option key_table_options[] = {
	{ 'T', NULL, CV_STRING, NULL, .meta = "TABLE",
	  .help = "the key table: prefix (the default) or a mode's (copy-mode, choose-mode, "
		   "prompt, help-mode, display-panes, ask-mode)" },
	END,
};

static const struct command_option confirm_options[] = {
	{ 'p', NULL, CV_STRING, NULL, .meta = "PROMPT", .help = "the question" },
	END,
};

static const struct command_option events_options[] = {
	{ 't', "target", CV_PANE, "pane", .meta = "PANE", .help = "only this pane's events" },
	{ 0, "session", CV_STRING, "session", .meta = "SESSION", .help = "only this session's" },
	{ 0, "action", CV_STRING, "action", .meta = "ACTION", .help = "only this action" },
	{ 'f', "follow", CV_FLAG, NULL, .help = "keep printing new events" },
	{ 0, "json", CV_FLAG, NULL, .help = "one JSON object per line" },
	{ 0, "pretty", CV_FLAG, NULL, .help = "coloured by action (implies --follow)" },
	{ 0, "feed", CV_FLAG, NULL,
	  .help = "the interactive feed (implies --follow); what the feed pane runs" },
	END,
};

static const struct command_option record_options[] = {
	PANE_TARGET("the pane to record"),
	{ 0, "stop", CV_FLAG, "stop", .help = "end the pane's recording" },
	END,
};

static const struct command_option list_commands_options[] = {
	{ 0, "markdown", CV_FLAG, NULL, .help = "the table of docs/commands.md" },
	END,
};

static const struct command_option respawn_options[] = {
	{ 't', "target", CV_PANE, "pane", .meta = "PANE", .help = "the pane (default: active)" },
	{ 'k', "kill", CV_FLAG, "kill", .help = "kill its program first if it still runs" },
	{ 'c', "cwd", CV_PATH, "cwd", .meta = "DIR", .help = "working directory (default: the pane's)" },
	{ 'e', "env", CV_ENV, "env", .meta = "NAME=VALUE", .help = "an environment variable (repeatable)" },
	END,
};

static const struct command_option buffer_name_options[] = {
	{ 'b', "buffer", CV_STRING, "name", .meta = "NAME", .help = "the buffer (default: the top one)" },
	END,
};

static const struct command_option set_buffer_options[] = {
	{ 'b', "buffer", CV_STRING, "name", .meta = "NAME", .help = "the buffer's name (default: a new one)" },
	END,
};

static const struct command_option paste_buffer_options[] = {
	{ 'b', "buffer", CV_STRING, "name", .meta = "NAME", .help = "the buffer (default: the top one)" },
	{ 't', "target", CV_PANE, "pane", .meta = "PANE", .help = "the pane (default: active)" },
	{ 0, "confirmed", CV_FLAG, "confirmed", .help = "the paste across backends was confirmed" },
	END,
};

static const struct command_option window_target_options[] = {
	{ 't', "target", CV_PANE, "pane", .meta = "PANE", .help = "a pane of the window (default: active)" },
	END,
};

static const struct command_option choose_tree_options[] = {
	{ 's', NULL, CV_FLAG, NULL, .help = "start with the sessions collapsed" },
	{ 'w', NULL, CV_FLAG, NULL, .help = "start on the current window" },
	END,
};

static const struct command_option switch_client_options[] = {
	{ 't', "target", CV_PANE, "pane", .required = true, .meta = "PANE",
	  .help = "the session, window or pane to show" },
	END,
};

static const struct command_option display_panes_options[] = {
	{ 'd', NULL, CV_NUMBER, NULL, .min = 0, .max = CONFIG_DISPLAY_PANES_TIME_MAX, .meta = "MS",
	  .help = "how long the numbers stay (default display_panes_time; 0 until a key)" },
	END,
};

static const struct command_option swap_pane_options[] = {
	{ 't', "target", CV_PANE, "pane", .meta = "PANE", .help = "the pane (default: active)" },
	{ 's', "source", CV_STRING, "source", .meta = "PANE", .help = "swap with this pane" },
	{ 'U', NULL, CV_FLAG, "dir", "up", .help = "with the previous pane" },
	{ 'D', NULL, CV_FLAG, "dir", "down", .help = "with the next pane" },
	END,
};

static const struct command_option join_pane_options[] = {
	{ 't', "target", CV_PANE, "pane", .meta = "PANE", .help = "the pane to split (default: active)" },
	{ 's', "source", CV_STRING, "source", .required = true, .meta = "PANE",
	  .help = "the pane to move" },
	{ 'h', NULL, CV_FLAG, "direction", "h", .help = "side by side" },
	{ 'v', NULL, CV_FLAG, "direction", "v", .help = "stacked (the default)" },
	END,
};

static const struct command_option allow_options[] = {
	PANE_TARGET("the pane whose session (or profile) gets the host"),
	{ 0, "persist", CV_FLAG, "persist",
	  .help = "in the pane's profile, written to the config (shows the diff, asks)" },
	{ 'y', "yes", CV_FLAG, NULL,
	  .help = "with --persist: write without asking (required when stdin is no terminal)" },
	END,
};

static const struct command_option list_windows_options[] = {
	{ 't', "target", CV_SESSION, "session", .meta = "SESSION",
	  .help = "the session (default: the current one, else every one)" },
	END,
};

static const struct command_option list_panes_options[] = {
	{ 's', NULL, CV_FLAG, "all_windows", .help = "every window of the session, not only the current" },
	{ 't', "target", CV_SESSION, "session", .meta = "SESSION",
	  .help = "the session (default: the current one, else every one)" },
	END,
};

static const struct command_option rename_session_options[] = {
	{ 't', "target", CV_SESSION, "session", .required = true, .meta = "SESSION",
	  .help = "the session to rename" },
	END,
};

static const struct command_option set_option_options[] = {
	{ 'g', NULL, CV_FLAG, NULL, .help = "global (the only scope; accepted as tmux spells it)" },
	END,
};

static const struct command_option display_message_options[] = {
	{ 't', "target", CV_PANE, "pane", .meta = "PANE", .help = "the pane (default: active)" },
	{ 'p', NULL, CV_FLAG, NULL, .help = "print to stdout (always on the command line)" },
	END,
};

#define BOTH (CMD_CLI | CMD_PROMPT)

const struct command_entry command_table[] = {
	/* Sessions and the server. */
	{ "new", { "new-session" }, "[-A] [-d] [-s NAME] [-x COLS -y ROWS] [--layout FILE] [-c DIR] [-e NAME=VALUE] "
	  "[-b|--backend BACKEND] [-P|--profile PROFILE] [--remain] [-- COMMAND...]",
	  "create a session (and attach unless -d)", new_options, REST_ARGV, "argv",
	  .request = "new-session", .flags = CMD_CLI | CMD_START_SERVER, .exec = cmd_new_session,
	  .cli = cli_new },
	{ "attach", { "attach-session", "a" }, "[-t SESSION] [--theme NAME]", "attach to a session",
	  attach_options, .request = "attach", .flags = CMD_CLI | CMD_START_SERVER,
	  .exec = cmd_attach, .cli = cli_attach },
	{ "ls", { "list-sessions" }, "[--json]", "list sessions, windows and panes",
	  json_options, .request = "list", .flags = BOTH | CMD_SHOW, .exec = cmd_list,
	  .print = cli_print_list },
	{ "list-windows", { "lsw" }, "[-t SESSION]", "list a session's windows", list_windows_options,
	  .request = "list", .flags = BOTH | CMD_SHOW, .print = cli_print_windows },
	{ "list-panes", { "lsp" }, "[-s] [-t SESSION]",
	  "list the current window's panes (-s: the session's)", list_panes_options,
	  .request = "list", .fixed = "{\"active_window\":true}", .flags = BOTH | CMD_SHOW,
	  .print = cli_print_panes },
	{ "has-session", { "has" }, "-t SESSION", "whether a session exists (the exit status)",
	  session_options, .request = "has-session", .flags = BOTH, .exec = cmd_has_session },
	{ "rename-session", { "rename" }, "[-t SESSION] NAME", "rename a session",
	  rename_session_options, REST_STRING, "name", .request = "rename-session", .flags = BOTH,
	  .exec = cmd_rename_session },
	{ "set-option", { "set" }, "[-g] OPTION VALUE",
	  "set a server option: window-size (latest, smallest or largest), renumber-windows (on or off)",
	  set_option_options, REST_PAIR, "option,value", .request = "set-option", .flags = BOTH,
	  .exec = cmd_set_option },
	{ "source-file", { "source" }, "PATH", "run the commands in a file, one per line",
	  NULL, REST_STRING, "path", .flags = BOTH | CMD_TERMINAL, .cli = cli_source_file },
	{ "kill-session", { 0 }, "-t SESSION", "kill a session", session_options,
	  .request = "kill-session", .flags = BOTH, .exec = cmd_kill_session },
	{ "kill-server", { 0 }, "", "kill every pane and stop the server", NULL,
	  .request = "kill-server", .flags = BOTH, .exec = cmd_kill_server },
	{ "new-window", { "neww" }, "[-d] [-t SESSION] [-c DIR] [-e NAME=VALUE] [-b|--backend BACKEND] "
	  "[-P|--profile PROFILE] [--remain] [COMMAND...]", "open a new window",
	  new_window_options, REST_ARGV, "argv", .request = "new-window", .flags = BOTH,
	  .exec = cmd_new_window, .print = cli_print_pane_created },
	{ "probe", { 0 }, "[--json]", "what sandboxing this host offers", json_options,
	  .request = "probe", .flags = CMD_CLI | CMD_START_SERVER, .exec = cmd_probe,
	  .print = cli_print_probe },

	/* Panes. */
	{ "split", { "split-window", "splitw" }, "[-t PANE] [-h|-v] [-f] [-l|-p PERCENT] "
	  "[--float [-w COLS] [--height ROWS] [-x X] [-y Y]] [-c DIR] "
	  "[-e NAME=VALUE] [-b|--backend BACKEND] [-P|--profile PROFILE] [--remain] [-- COMMAND...]",
	  "split a pane (-h side by side, -v stacked)", split_options, REST_ARGV, "argv",
	  .request = "split", .flags = BOTH, .exec = cmd_split, .print = cli_print_pane_created },
	{ "send-keys", { "send" }, "[-t PANE] [-l|-X] KEY...", "send key names (Enter, C-c, Up) or text",
	  send_keys_options, REST_KEYS, "keys", .request = "send-keys", .flags = BOTH,
	  .exec = cmd_send_keys },
	{ "capture", { "capture-pane" }, "[-t PANE] [-S START|-] [-E END|-] [--last-command] [-e|--ansi] [-p]",
	  "print a pane's screen and scrollback", capture_options, .request = "capture",
	  .flags = CMD_CLI, .exec = cmd_capture, .print = cli_print_capture },
	{ "resize-pane", { "resizep", "resize" },
	  "[-t PANE] -L|-R|-U|-D [AMOUNT] | -x COLS -y ROWS | -Z", "resize a pane",
	  resize_options, REST_NUMBER, "amount", "xyLRUDZ", .request = "resize-pane",
	  .flags = BOTH, .exec = cmd_resize_pane },
	{ "kill-pane", { "killp" }, "[-t PANE]", "kill a pane and its processes", pane_options,
	  .request = "kill-pane", .flags = BOTH, .exec = cmd_kill_pane },
	{ "select-pane", { "selectp" }, "[-t PANE] [-L|-R|-U|-D|-n|-p]", "move the focus",
	  select_pane_options, .request = "select-pane", .flags = BOTH, .exec = cmd_select_pane },
	{ "zoom", { 0 }, "[-t PANE]", "zoom or unzoom a pane", optional_pane_options,
	  .request = "zoom", .flags = BOTH, .exec = cmd_zoom },
	{ "suspend", { "suspend-pane" }, "[-t PANE] [--to-disk]",
	  "stop a pane's whole process tree (--to-disk: save a microvm to a file and end it)",
	  suspend_options, .request = "suspend", .flags = BOTH, .exec = cmd_suspend },
	{ "resume", { "resume-pane" }, "[-t PANE]", "continue a suspended pane", pane_options,
	  .request = "resume", .flags = BOTH, .exec = cmd_resume },
	{ "display-popup", { "popup" }, "[-t PANE] [-w COLS] [-h ROWS] [-x X] [-y Y] [-c DIR] "
	  "[-e NAME=VALUE] [-b|--backend BACKEND] [-P|--profile PROFILE] [COMMAND...]",
	  "a floating pane that closes when its command exits", display_popup_options, REST_ARGV,
	  "argv", .request = "display-popup", .flags = BOTH, .exec = cmd_display_popup,
	  .print = cli_print_pane_created },
	{ "toggle-floating", { 0 }, "[-t PANE]", "hide or show a window's floating panes",
	  optional_pane_options, .request = "toggle-floating", .flags = BOTH,
	  .exec = cmd_toggle_floating },
	{ "float-pane", { 0 }, "[-t PANE] [-x X] [-y Y] [-w COLS] [-h ROWS]",
	  "move or size a floating pane", float_pane_options, .request = "float-pane",
	  .flags = BOTH, .exec = cmd_float_pane },
	{ "feed", { 0 }, "[-t SESSION] [--toggle] [--float [-w COLS] [-h ROWS] [-x X] [-y Y]]",
	  "open the violation feed beside a session's pane, or focus it",
	  feed_options, .request = "feed", .flags = BOTH, .exec = cmd_feed,
	  .print = cli_print_feed },
	{ "respawn-pane", { "respawnp" }, "[-t PANE] [-k] [-c DIR] [-e NAME=VALUE] [COMMAND...]",
	  "start a pane's program again, under the same backend and profile", respawn_options,
	  REST_ARGV, "argv", .request = "respawn-pane", .flags = BOTH, .exec = cmd_respawn_pane },
	{ "last-pane", { "lastp" }, "[-t PANE]", "focus the pane used before", window_target_options,
	  .request = "last-pane", .flags = BOTH, .exec = cmd_last_pane },
	{ "swap-pane", { "swapp" }, "[-t PANE] -U|-D|-s PANE", "swap two panes of a window",
	  swap_pane_options, .request = "swap-pane", .flags = BOTH, .exec = cmd_swap_pane },
	{ "break-pane", { "breakp" }, "[-t PANE]", "move a pane into a new window of its own",
	  window_target_options, .request = "break-pane", .flags = BOTH, .exec = cmd_break_pane },
	{ "join-pane", { "joinp" }, "-s PANE [-t PANE] [-h|-v]",
	  "move a pane into another window, splitting the target", join_pane_options,
	  .request = "join-pane", .flags = BOTH, .exec = cmd_join_pane },
	{ "select-layout", { "selectl" }, "[-t PANE] LAYOUT",
	  "arrange a window: even-horizontal, even-vertical, main-horizontal, main-vertical, tiled",
	  window_target_options, REST_STRING, "layout", .request = "select-layout", .flags = BOTH,
	  .exec = cmd_select_layout },
	{ "next-layout", { "nextl" }, "[-t PANE]", "arrange a window the next preset's way",
	  window_target_options, .request = "next-layout", .flags = BOTH, .exec = cmd_next_layout },
	{ "allow", { 0 }, "-t PANE [--persist [-y|--yes]] HOST|PATH",
	  "allow a denied host for the pane's session (--persist: in its profile; a path: writable)",
	  allow_options,
	  REST_STRING, "host", .request = "allow", .flags = BOTH, .exec = cmd_allow,
	  .cli = cli_allow, .print = cli_print_allow },
	{ "record", { 0 }, "-t PANE FILE | -t PANE --stop",
	  "record a pane's output as asciicast v2, one marker per violation", record_options,
	  REST_WORDS, .request = "record", .flags = BOTH, .exec = cmd_record,
	  .cli = cli_record, .print = record_print },
	{ "events", { 0 }, "[-f|--follow] [-t PANE] [--session SESSION] [--action ACTION] [--json] "
	  "[--pretty|--feed]", "print sandbox events", events_options, .request = "subscribe",
	  .flags = CMD_CLI, .exec = cmd_subscribe, .cli = cli_events },

	/* Windows and the attached client. */
	{ "select-window", { "selectw" }, "-t INDEX | INDEX | -n | -p", "switch window",
	  select_window_options, REST_WINDOW, "index", "tnp@", .request = "select-window",
	  .flags = CMD_PROMPT, .exec = cmd_select_window },
	{ "last-window", { "last" }, "[-t SESSION]", "switch to the window used before",
	  optional_session_options, .request = "last-window", .flags = BOTH, .exec = cmd_last_window },
	{ "rename-window", { "renamew" }, "[-t PANE] NAME",
	  "name a window (an empty name: follow the program again)", window_target_options,
	  REST_STRING, "name", .request = "rename-window", .flags = BOTH,
	  .exec = cmd_rename_window },
	{ "kill-window", { "killw" }, "[-t PANE]", "kill a window and every pane in it",
	  window_target_options, .request = "kill-window", .flags = BOTH, .exec = cmd_kill_window },
	{ "next-window", { "next" }, "", "switch to the next window", NULL,
	  .request = "select-window", .fixed = "{\"next\":true}", .flags = CMD_PROMPT },
	{ "previous-window", { "prev" }, "", "switch to the previous window", NULL,
	  .request = "select-window", .fixed = "{\"prev\":true}", .flags = CMD_PROMPT },
	{ "display-panes", { "displayp" }, "[-d MS]",
	  "number the panes on screen; a digit then focuses that pane", display_panes_options,
	  .flags = CMD_PROMPT | CMD_TERMINAL },
	{ "choose-tree", { 0 }, "[-s|-w]",
	  "pick a session, window or pane from a tree (labels, violations) and show it",
	  choose_tree_options, .flags = CMD_PROMPT | CMD_TERMINAL },
	{ "switch-client", { "switchc" }, "-t PANE",
	  "show a session, window or pane (it becomes the current one)", switch_client_options,
	  .request = "switch-client", .flags = CMD_PROMPT, .exec = cmd_switch_client },
	{ "detach", { "detach-client" }, "", "detach, leaving the session running", NULL,
	  .request = "detach", .flags = CMD_PROMPT, .exec = cmd_detach },
	{ "copy-mode", { 0 }, "[-u]", "scroll, search and copy history", copy_mode_options,
	  .flags = CMD_PROMPT | CMD_TERMINAL },
	{ "paste-buffer", { "pasteb" }, "[-b NAME] [-t PANE] [--confirmed]",
	  "paste a buffer (the top one: the last copied)", paste_buffer_options,
	  .request = "paste-buffer", .flags = BOTH, .exec = cmd_paste_buffer },
	{ "set-buffer", { "setb" }, "[-b NAME] TEXT", "set a paste buffer (a new one at the top)",
	  set_buffer_options, REST_STRING, "text", .request = "set-buffer", .flags = BOTH,
	  .exec = cmd_set_buffer },
	{ "list-buffers", { "lsb" }, "", "list the paste buffers, newest first", NULL,
	  .request = "list-buffers", .flags = CMD_CLI, .exec = cmd_list_buffers,
	  .print = cli_print_buffers },
	{ "save-buffer", { "saveb" }, "[-b NAME] PATH", "write a buffer to a file (- for stdout)",
	  buffer_name_options, REST_STRING, "path", .request = "show-buffer", .flags = CMD_CLI,
	  .exec = cmd_show_buffer, .cli = cli_save_buffer },
	{ "choose-buffer", { 0 }, "", "pick a paste buffer: Enter pastes it, d deletes it", NULL,
	  .flags = CMD_PROMPT | CMD_TERMINAL },
	{ "delete-buffer", { "deleteb" }, "[-b NAME]", "delete a buffer (the top one)",
	  buffer_name_options, .request = "delete-buffer", .flags = BOTH,
	  .exec = cmd_delete_buffer },
	{ "send-prefix", { 0 }, "", "send the prefix key to the pane", NULL, .flags = CMD_PROMPT | CMD_TERMINAL },
	{ "command-prompt", { 0 }, "[-p PROMPT] [-I TEXT] [TEMPLATE]",
	  "type a command (or the text TEMPLATE's %% stands for)", prompt_options, REST_WORDS,
	  .flags = CMD_PROMPT | CMD_TERMINAL },
	{ "bind-key", { "bind" }, "[-T TABLE] KEY COMMAND...",
	  "bind a key in a key table, for this client until it detaches (the config's key_tables "
	  "for good)",
	  key_table_options, REST_WORDS, .flags = CMD_PROMPT | CMD_TERMINAL },
	{ "unbind-key", { "unbind" }, "[-T TABLE] KEY", "remove a key's binding from a key table",
	  key_table_options, REST_WORDS, .flags = CMD_PROMPT | CMD_TERMINAL },
	{ "list-keys", { "lsk" }, "[-T TABLE]", "show the key bindings", list_keys_options,
	  .flags = CMD_PROMPT | CMD_TERMINAL },
	{ "confirm-before", { "confirm" }, "[-p PROMPT] COMMAND", "run a command after y",
	  confirm_options, REST_WORDS, .flags = CMD_PROMPT | CMD_TERMINAL },
	{ "display-message", { "display" }, "[-p] [-t PANE] TEXT",
	  "show a message, formats (#{pane_current_path}...) expanded (the command line prints it)",
	  display_message_options, REST_WORDS, .request = "format", .flags = BOTH | CMD_TERMINAL, .exec = cmd_format,
	  .cli = cli_display_message },

	/* The command line's own. */
	{ "ctl", { 0 }, "JSON", "send a raw protocol request, print the reply", NULL, REST_RAW,
	  .flags = CMD_CLI, .raw = verb_ctl },
	{ "layout", { 0 }, "FILE", "build a session from a layout file (JSON, docs/sessions.md)",
	  NULL, REST_RAW, .flags = CMD_CLI, .raw = verb_layout },
	{ "save", { 0 }, "[-t SESSION] [--layout] [FILE]",
	  "save a session: into the state directory for restore, or to FILE (--layout: a layout "
	  "file, without screens)",
	  NULL, REST_RAW, .flags = CMD_CLI, .raw = verb_save },
	{ "restore", { 0 }, "[-d] [-s NAME] [--rerun ask|all|none] [NAME|FILE]",
	  "rebuild a saved session (shells run again; other commands after a yes)", NULL,
	  REST_RAW, .flags = CMD_CLI, .raw = verb_restore },
	{ "demo", { 0 }, "[--no-attach] [--record FILE]",
	  "the isolation demo: none, native and microvm side by side, the feed below; "
	  "--no-attach (or no terminal) prints the panes and the verdict instead; "
	  "--record FILE writes all of it as asciicast v2", NULL, REST_RAW, .flags = CMD_CLI,
	  .raw = verb_demo },
	{ "profile", { 0 },
	  "suggest -t PANE | --session SESSION [--since TIME] [--apply NAME [--yes]] | show NAME "
	  "[--platform linux|macos] [-c DIR]",
	  "propose a profile from the violation log (learn mode), or show one's rules "
	  "(profile-show)",
	  NULL, REST_RAW, .flags = CMD_CLI, .raw = verb_profile },
	{ "profile-show", { 0 }, "[--platform linux|macos] [-c DIR] NAME",
	  "a profile's effective rules: the bwrap argv and supervisor rules, or the SBPL",
	  profile_show_options, REST_STRING, "name", .request = "profile-show",
	  .flags = BOTH | CMD_SHOW | CMD_START_SERVER, .exec = cmd_profile_show,
	  .print = cli_print_profile_show },
	{ "changes", { 0 }, "[-t PANE | --profile NAME] [--json | --diff PATH | --discard [--yes]]",
	  "what a profile's copy-on-write home holds against the host's $HOME", NULL, REST_RAW,
	  .flags = CMD_CLI, .raw = verb_changes },
	{ "keep", { 0 }, "[-t PANE | --profile NAME] [-y|--yes] PATH...",
	  "copy files from a profile's home layer to the host (asks first)", NULL, REST_RAW,
	  .flags = CMD_CLI, .raw = verb_keep },
	{ "list-commands", { "lscm" }, "[--markdown]", "list every command (this table)",
	  list_commands_options, .flags = CMD_CLI, .cli = cli_list_commands },
	{ "server", { 0 }, "[--foreground] [--sandbox on|off] [--config FILE] [-v]",
	  "run the server (started automatically)", NULL, REST_RAW, .flags = CMD_CLI,
	  .raw = verb_server },
	{ "egress-bridge", { 0 }, "SOCAT -- COMMAND...",
	  "(inside a restricted sandbox) bridge to the egress proxies, run COMMAND", NULL,
	  REST_RAW, .flags = CMD_CLI, .raw = verb_egress_bridge },
#ifdef __linux__
	/* Linux's native sandbox only (src/shim.c). */
	{ "shim", { 0 }, "--fd N [--nproc L] [--ro PATH | --ro-try PATH | --ro-mount PATH]... (-- COMMAND... | --wait)",
	  "(inside a native sandbox) make the read-only binds it is given and drop its "
	  "capabilities, install the seccomp filter, run COMMAND", NULL, REST_RAW,
	  .flags = CMD_CLI, .raw = shim_main },
#endif
	{ "--check-config", { 0 }, "[FILE]", "validate the config file without starting", NULL,
	  REST_RAW, .flags = CMD_CLI, .raw = verb_check_config },

	/* The protocol's own: what clients send that no one types. */
	{ "hello", { 0 }, "version", "open a connection: say the protocol version", NULL,
	  .request = "hello", .flags = CMD_BEFORE_HELLO, .exec = cmd_hello },
	{ "resize", { 0 }, "pane cols rows", "set a pane's size", NULL, .request = "resize",
	  .exec = cmd_resize },
	{ "send-text", { 0 }, "pane text", "type text into a pane", NULL, .request = "send-text",
	  .exec = cmd_send_text },
	{ "history", { 0 }, "pane start end", "rows of a pane with their styles", NULL,
	  .request = "history", .exec = cmd_history },
	{ "client-size", { 0 }, "cols rows", "the attached client's size", NULL,
	  .request = "client-size", .exec = cmd_client_size },
	{ "key", { 0 }, "key | text", "a key pressed in the attached client", NULL,
	  .request = "key", .exec = cmd_key },
	{ "refuse", { 0 }, "pane host", "ask mode: refuse the held connections to a host now",
	  NULL, .request = "refuse", .exec = cmd_refuse },
	{ "clipboard", { 0 }, "pane allow",
	  "set_clipboard ask: write (allow true) or drop a pane's held clipboard write", NULL,
	  .request = "clipboard", .exec = cmd_clipboard },
	{ "save-session", { 0 }, "session layout store",
	  "a session as a session file (docs/sessions.md), and with store written to the state "
	  "directory", NULL, .request = "save", .exec = cmd_save },
	{ "complete", { 0 }, "kind", "the words the prompt's Tab completes: target, backend or profile",
	  NULL, .request = "complete", .exec = cmd_complete },
	{ 0 },
};
