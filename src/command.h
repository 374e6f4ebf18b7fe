/*
 * command: one declaration per command, as tmux declares a cmd_entry.
 *
 * Every command sandmux knows is one entry of command_table[]
 * (command-table.c): its name and aliases, its usage and help line, an
 * option spec (flags, options with typed values, the words after them),
 * the protocol request it becomes, and the parts that run it — the
 * server's handler for that request, and, where a command needs more
 * than "send the request", what the command line does around it, or
 * that it is the attached terminal's own (a mode, the prompt: run by the
 * server, which owns that terminal).
 *
 * The command line (`sandmux split -t work -h`), the ":" prompt and key
 * bindings ("split -h") all parse through command_parse() into the same
 * request, a cJSON object such as {"cmd":"split","target":"work",
 * "direction":"h"} (a pane id goes as a number: "pane":3).  Values are checked by type where they are typed, so
 * `split -l abc` is a usage error (invalid_command) everywhere, never 50%.
 * Targets are passed on as written and resolved by the server, in one
 * place (cmd_target_pane, cmd_target_session), so `-t work`, `-t %3` and
 * `-t work:1.2` mean the same from every caller.
 *
 * `--help`, `sandmux list-commands`, the help overlay's summaries, the
 * prompt's completion and docs/commands.md are all read from the table.
 */
#ifndef SANDMUX_COMMAND_H
#define SANDMUX_COMMAND_H

#include <stdbool.h>
#include <stdio.h>

struct cJSON;
struct conn;
struct sm_error;

/* What an option's value is, and so how it is checked and where it goes. */
enum command_value {
	CV_FLAG,    /* no value: the field gets `constant`, or true */
	CV_STRING,  /* any text */
	CV_NUMBER,  /* a whole number in [min, max], strictly: "12x" is an error */
	CV_PERCENT, /* a whole number 1..99 */
	CV_PANE,    /* a pane target: %N, N, SESSION, SESSION:W, SESSION:W.P, :W.P */
	CV_SESSION, /* a session target: SESSION (or any pane target, for its session) */
	CV_WINDOW,  /* a window index: N or :N, into a number */
	CV_BACKEND, /* none, native or microvm */
	CV_PROFILE, /* a profile name (the server knows which exist) */
	CV_PATH,    /* a file or directory */
	CV_ENV,     /* NAME=VALUE, repeatable, into one object */
	CV_ROW,     /* a row number (negative: history) or "-": the end that way */
};

/* Where the words after the options go. */
enum command_rest {
	REST_NONE,   /* none allowed */
	REST_ARGV,   /* the command to run: an array of strings */
	REST_KEYS,   /* key names or text: an array of strings */
	REST_WORDS,  /* words for the client itself (display-message TEXT) */
	REST_NUMBER, /* one optional whole number >= 1 */
	REST_WINDOW, /* one optional window index */
	REST_STRING, /* exactly one word, as a string */
	REST_PAIR,   /* exactly two words, into rest_field "FIRST,SECOND" */
	REST_RAW,    /* the command takes its own argv (internal verbs) */
};

struct command_option {
	char letter;		/* 0: a long spelling only */
	const char *long_name;	/* without "--"; NULL: the letter only */
	enum command_value type;
	const char *field;	/* the request field; NULL: only for the caller (-d, --json) */
	const char *constant;	/* CV_FLAG: the string the field gets (-h: "h"); NULL: true */
	int min, max;		/* CV_NUMBER */
	const char *request;	/* given: the request becomes this command (-x: "resize") */
	bool required;		/* a target the command line must give (the prompt fills it in) */
	const char *meta;	/* the value's name in usage ("PANE") */
	const char *help;	/* one line for --help */
};

/* Which front ends offer a command. */
#define CMD_CLI 0x01	      /* `sandmux NAME ...` */
#define CMD_PROMPT 0x02	      /* the ":" prompt and key bindings */
#define CMD_BEFORE_HELLO 0x04 /* protocol: may run before hello */
#define CMD_START_SERVER 0x08 /* CLI: start the server when none runs */
#define CMD_HIDDEN 0x10	      /* CLI: internal, left out of the verb list */
#define CMD_SHOW 0x20	      /* prompt: what the command line prints is shown */
#define CMD_TERMINAL 0x40     /* prompt: the attached terminal's own (server-tty.c) */

struct command_parsed;

typedef int (*command_server_fn)(struct conn *c, const struct cJSON *req, struct cJSON *result,
				 struct sm_error *err);
/* The command line's own part, given the parsed request.  Returns the
 * exit status. */
typedef int (*command_cli_fn)(struct command_parsed *parsed);
/* An internal verb that reads its own argv (REST_RAW). */
typedef int (*command_raw_fn)(int argc, char **argv);
/* The command line prints the request's result (the generic path). */
typedef void (*command_print_fn)(struct command_parsed *parsed, const struct cJSON *result,
				 FILE *out);

struct command_entry {
	const char *name;
	const char *aliases[3];
	const char *usage;   /* after the name */
	const char *summary; /* one line */
	const struct command_option *options; /* terminated by an empty entry; may be NULL */
	enum command_rest rest;
	const char *rest_field; /* REST_ARGV/KEYS/NUMBER/WINDOW/STRING: its request field */
	const char *need_one_of; /* option letters, '@' for the words: one must be given */
	const char *request;	 /* the protocol command; NULL: the client's own */
	const char *fixed;	 /* JSON object merged into the request ({"next":true}) */
	int flags;
	command_server_fn exec;	 /* the server's handler for `request`, in one entry */
	command_cli_fn cli;
	command_raw_fn raw;
	command_print_fn print;
};

/* Who is parsing: the command line has no defaults; the prompt and key
 * bindings fill a missing pane or session target from the client. */
struct command_context {
	int flags;	     /* CMD_CLI or CMD_PROMPT: which names are visible */
	int active_pane;     /* -1: none */
	const char *session; /* NULL: none */
};

struct command_parsed {
	const struct command_entry *entry;
	struct cJSON *request; /* NULL for a command of the client's own */
	struct cJSON *local;   /* options with no field, by long (or letter) name */
	char **words;	       /* REST_WORDS / REST_RAW: the words after the options */
	int nwords;
	char *buffer;	       /* command_parse_line: the words point into it */
};

extern const struct command_entry command_table[];

/* The entry called name (or an alias) among those visible to flags. */
const struct command_entry *command_find(const char *name, int flags);
/* The entry that serves protocol command name (its exec), or NULL. */
const struct command_entry *command_for_request(const char *name);
/* argv[0] is the command's name.  0, or -1 with err (invalid_command
 * with the reason and the usage).  The caller frees with
 * command_parsed_free. */
int command_parse(const struct command_entry *entry, int argc, char **argv,
		  const struct command_context *ctx, struct command_parsed *out,
		  struct sm_error *err);
/* A command line as typed at the prompt or bound to a key: split into
 * words, looked up among ctx's names, parsed. */
int command_parse_line(const char *line, const struct command_context *ctx,
		       struct command_parsed *out, struct sm_error *err);
void command_parsed_free(struct command_parsed *parsed);
/* True if line is a command a key binding may run; otherwise err says
 * why.  For the config's bindings, read where no client is. */
bool command_binding_valid(const char *line, struct sm_error *err);
/* command-prompt's template with every %% replaced by text, quoted for
 * the double quotes the template puts around it (tmux's "%%"). */
void command_fill_template(const char *template, const char *text, char *out, size_t size);
/* Tab at the prompt (both clients): a target's level as typed (0 a
 * session, 1 "SESSION:W", 2 "SESSION:W.P", 3 "%ID"), and the kind of
 * words the value after option completes from ("target", "backend",
 * "profile"), as entry declares the option; NULL if none. */
int command_target_level(const char *word, size_t len);
const char *command_option_value_kind(const struct command_entry *entry, const char *option);
/* What a key's command line does, in a few words (the help overlay). */
const char *command_summary(const char *line);
/* A local option given on the command line (by long name, else the
 * letter as a one-character string): its value, "" for a flag, or NULL. */
const char *command_local(const struct command_parsed *parsed, const char *name);

/* "usage: sandmux NAME USAGE" plus the options' help lines. */
void command_print_help(const struct command_entry *entry, FILE *out);
/* The list of commands: plain, those visible to flags (`sandmux
 * list-commands`, `sandmux --help`), or the markdown table of
 * docs/commands.md (every entry). */
void command_print_list(FILE *out, bool markdown, int flags);
/* Prompt completion: the visible command names starting with prefix,
 * one at a time (index 0, 1, ...); NULL when there are no more. */
const char *command_complete(const char *prefix, int flags, int index);

#endif
