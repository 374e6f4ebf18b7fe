/*
 * hostrun: the host-run list (see hostrun.h).  Every entry says which
 * threat it stops; docs/security.md has the same list for users.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostrun.h"
#include "os.h"
#include "subpath.h"
#include "xalloc.h"

/* Anywhere inside a writable root, at any depth. */
const char *const hostrun_components[] = {
    /* Git hooks: the host's next commit, merge or checkout in that
     * repository runs them.  Native panes get an empty git template
     * (GIT_TEMPLATE_DIR=""), so git init and clone need none. */
    ".git/hooks",
    /* A repository's config: core.fsmonitor runs on the host's next
     * `git status`, core.hooksPath, core.sshCommand, core.pager,
     * diff/filter drivers, include.path all make git run or read
     * something else.  Replacing it is allowed only through the
     * supervisor's check of what changes (gitconfig.c), which is how
     * git init, clone and `git config` of plain keys keep working. */
    ".git/config",
    /* Read instead of .git/config's keys once extensions.worktreeConfig
     * is on; the worktrees' own gitdirs hold theirs.  A native pane's
     * supervisor judges .git/worktrees by gitdir.h instead (git
     * worktree add writes there), see native.c's write_deny_lists. */
    ".git/config.worktree",
    ".git/worktrees",
    /* Submodules' repositories, each with a config of its own that the
     * host's `git status` reads when it recurses into them. */
    ".git/modules",
    /* Submodule URLs: the host's next `git submodule update` fetches
     * (and checks out) from wherever the pane pointed them. */
    ".gitmodules",
    /* direnv's per-directory environment: the host's shell runs it on
     * entering the directory once it is allowed, and a prefix in
     * direnv.toml's [whitelist] allows every .envrc below it unseen. */
    ".envrc",
    /* Mercurial's repository config: [hooks] run on the host's next hg
     * command in that repository, as git's hooks do. */
    ".hg/hgrc",
    /* Editor and agent config in a project that runs code when the host
     * opens it: VS Code tasks and settings, JetBrains run
     * configurations, Claude Code commands and agents, MCP servers. */
    ".vscode",
    ".idea",
    ".claude/commands",
    ".claude/agents",
    ".claude/settings.json",
    ".mcp.json",
    NULL,
};

/* Under $HOME ("~/"), or under an XDG directory that replaces the part
 * of the path it names. */
static const char *const home_entries[] = {
    /* Shell startup files: every new host shell runs them.  bash
     * (interactive, login, logout, Debian's aliases file, Fedora's
     * drop-in directory), POSIX sh and dash login shells, zsh, fish,
     * ksh/mksh, csh/tcsh; readline's key bindings can type commands. */
    "~/.bashrc",
    "~/.bash_profile",
    "~/.bash_login",
    "~/.bash_logout",
    "~/.bash_aliases",
    "~/.bashrc.d",
    "~/.profile",
    "~/.zshrc",
    "~/.zshenv",
    "~/.zprofile",
    "~/.zlogin",
    "~/.zlogout",
    "~/.oh-my-zsh",
    "~/.config/fish",
    "~/.kshrc",
    "~/.mkshrc",
    "~/.cshrc",
    "~/.tcshrc",
    "~/.login",
    "~/.inputrc",
    /* bash-completion (installed by default on Debian) sources
     * ~/.bash_completion in every interactive bash, and a user
     * completion file (completions/git) the first time a command's
     * arguments are completed. */
    "~/.bash_completion",
    "~/.local/share/bash-completion",
    /* A prompt that runs configured commands at every prompt
     * (starship's [custom] modules). */
    "~/.config/starship.toml",
    /* Terminal multiplexers run commands from their config. */
    "~/.tmux.conf",
    "~/.config/tmux",
    "~/.screenrc",
    /* Git's global config (aliases, core.hooksPath, core.fsmonitor,
     * credential helpers, url rewrites), its XDG twin (config,
     * attributes, ignore), and direnv's list of allowed .envrc files. */
    "~/.gitconfig",
    "~/.config/git",
    "~/.local/share/direnv",
    /* PATH directories that Debian's ~/.profile and rustup's ~/.cargo/env
     * put first: a `git` or `ls` dropped there is what the host runs.
     * Python's user site-packages (.pth files run code at every host
     * python start). */
    "~/.local/bin",
    "~/bin",
    "~/.cargo/bin",
    "~/.cargo/env",
    "~/.local/lib",
    /* Per-user services, timers, autostart and session environment:
     * systemd --user units and generators, environment.d, XDG autostart,
     * X session scripts, PAM's environment, desktop entries and MIME
     * handlers (run when a file is opened), KDE's env and shutdown
     * scripts.  (crontab and at spools are root-owned, outside every
     * writable root.) */
    "~/.config/systemd",
    "~/.local/share/systemd",
    "~/.config/environment.d",
    "~/.config/autostart",
    "~/.config/plasma-workspace",
    "~/.local/share/applications",
    "~/.config/mimeapps.list",
    "~/.pam_environment",
    "~/.xprofile",
    "~/.xsessionrc",
    "~/.xsession",
    "~/.xinitrc",
    /* lesspipe runs ~/.lessfilter on every `less` of a file; mailcap
     * entries are the commands `see`, `edit`, mutt and run-mailcap
     * run to open a file. */
    "~/.lessfilter",
    "~/.mailcap",
    /* Window managers and terminal emulators run commands from their
     * config at the next login or window: i3 and sway `exec`, Hyprland
     * `exec-once`, openbox's autostart, xbindkeys' bound commands,
     * kitty, alacritty and wezterm's shell and startup programs
     * (wezterm's config is Lua). */
    "~/.config/i3",
    "~/.i3",
    "~/.config/sway",
    "~/.config/hypr",
    "~/.config/openbox",
    "~/.xbindkeysrc",
    "~/.config/kitty",
    "~/.config/alacritty",
    "~/.config/wezterm",
    "~/.wezterm.lua",
    /* Editor config and plugins (code the editor runs at start); their
     * caches (~/.viminfo, ~/.cache, nvim's ~/.local/state, emacs'
     * auto-save list) stay writable. */
    "~/.vimrc",
    "~/.vim",
    "~/.config/vim",
    "~/.exrc",
    "~/.config/nvim",
    "~/.local/share/nvim",
    "~/.emacs",
    "~/.emacs.el",
    "~/.emacs.d/init.el",
    "~/.emacs.d/early-init.el",
    "~/.emacs.d/elpa",
    "~/.config/emacs",
    "~/.config/Code/User",
    "~/.vscode",
    /* Debuggers, REPLs and database shells run their start-up file's
     * commands, and each can run a shell command: gdb and lldb init
     * files (`shell`), IPython's startup scripts and config, irb, pry,
     * R, ghci (`:!`), psql (`\!`) and sqlite3 (`.shell`). */
    "~/.gdbinit",
    "~/.config/gdb",
    "~/.lldbinit",
    "~/.ipython/profile_default/startup",
    "~/.ipython/profile_default/ipython_config.py",
    "~/.irbrc",
    "~/.pryrc",
    "~/.Rprofile",
    "~/.ghci",
    "~/.psqlrc",
    "~/.sqliterc",
    /* Version control other than git: Mercurial's [hooks] and
     * Subversion's diff-cmd, editor-cmd and [tunnels] run commands. */
    "~/.hgrc",
    "~/.config/hg",
    "~/.subversion/config",
    "~/.subversion/servers",
    /* Download tools' config: a proxy or output setting redirects the
     * host's next `curl ... | sh` or wget (curl also reads
     * $XDG_CONFIG_HOME/.curlrc). */
    "~/.curlrc",
    "~/.config/.curlrc",
    "~/.wgetrc",
    /* Coding agents' own config: hooks, MCP servers and commands run
     * with the user's rights the next time the agent starts. */
    "~/.claude",
    "~/.claude.json",
    "~/.codex",
    "~/.gemini",
    "~/.cursor",
    /* Package managers: scripts they run and where they fetch from.
     * npm's script-shell and node-options, yarn's yarnPath, pip's index,
     * cargo's rustc-wrapper and runners, gradle init scripts, maven
     * mirrors, gem sources.  Their caches (~/.npm, ~/.cache/pip,
     * ~/.cargo/registry) stay writable. */
    "~/.npmrc",
    "~/.yarnrc",
    "~/.yarnrc.yml",
    "~/.config/pip",
    "~/.pip",
    "~/.pydistutils.cfg",
    "~/.cargo/config",
    "~/.cargo/config.toml",
    "~/.gradle/init.d",
    "~/.gradle/init.gradle",
    "~/.gradle/gradle.properties",
    "~/.m2/settings.xml",
    "~/.gemrc",
    /* sandmux itself: its config (profiles, default backend) and its
     * state (events log, stored sessions).  Their XDG locations are
     * added below.  The runtime directory (the socket) is masked
     * unreadable by native.c. */
    "~/.config/sandmux",
    "~/.local/state/sandmux",
    NULL,
};

/* An entry's prefix, the XDG variable that replaces it, and what goes
 * after the variable's value. */
static const struct xdg_base {
	const char *prefix;
	const char *var;
} xdg_bases[] = {
    {"~/.config/", "XDG_CONFIG_HOME"},
    {"~/.local/share/", "XDG_DATA_HOME"},
    {"~/.local/state/", "XDG_STATE_HOME"},
};

static int push_new(struct strvec *out, const char *path)
{
	return strvec_contains(out, path) ? 0 : strvec_push(out, path);
}

/* BASE/REST onto out; searched for first unless it is known to be new. */
static int push_joined_as(struct strvec *out, const char *base, const char *rest, bool known_new)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof path, "%s/%s", base, rest) >= (int)sizeof path)
		return 0; /* longer than any path the pane could use */
	return known_new ? strvec_push(out, path) : push_new(out, path);
}

static int push_joined(struct strvec *out, const char *base, const char *rest)
{
	return push_joined_as(out, base, rest, false);
}

/* ~/REST, and $XDG/REST where the server's environment moves it. */
static int push_entry(struct strvec *out, const char *entry, const char *home)
{
	/* The fixed entries differ from each other (test_hostrun checks),
	 * so their $HOME spelling needs no search of the list; the XDG one
	 * may be the same path (XDG_CONFIG_HOME=$HOME/.config). */
	if (push_joined_as(out, home, entry + 2, true) != 0)
		return -1;
	for (size_t i = 0; i < sizeof xdg_bases / sizeof xdg_bases[0]; i++) {
		size_t n = strlen(xdg_bases[i].prefix);
		const char *value;

		if (strncmp(entry, xdg_bases[i].prefix, n) != 0)
			continue;
		value = getenv(xdg_bases[i].var);
		if (value != NULL && value[0] == '/' && push_joined(out, value, entry + n) != 0)
			return -1;
	}
	return 0;
}

static bool strictly_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && path[n] == '/' && path[n + 1] != '\0';
}

/* Directories of a PATH value that lie under home (not home itself:
 * that would make all of it read-only; nor relative entries, which name
 * the working directory of whoever runs a command). */
static int push_path_dirs(struct strvec *out, const char *path_value, const char *home)
{
	char *copy, *save = NULL;
	int rc = 0;

	if (path_value == NULL)
		return 0;
	copy = xstrdup(path_value);
	for (char *dir = strtok_r(copy, ":", &save); dir != NULL && rc == 0;
	     dir = strtok_r(NULL, ":", &save)) {
		size_t n = strlen(dir);

		while (n > 1 && dir[n - 1] == '/')
			dir[--n] = '\0';
		if (dir[0] == '/' && strictly_under(dir, home))
			rc = push_new(out, dir);
	}
	free(copy);
	return rc;
}

/* Threat: a pane replacing a sandmux binary that the host user, the
 * server's next start or the next pane runs: the server's own binary
 * and the sandmux and sandmux-shim next to it (build/, PREFIX/bin). */
static int push_binaries(struct strvec *out)
{
	char self[PATH_MAX];
	char *slash;

	if (os_self_exe(self, sizeof self) != 0)
		return 0;
	if (strstr(self, " (deleted)") != NULL || (slash = strrchr(self, '/')) == NULL)
		return 0;
	if (push_new(out, self) != 0)
		return -1;
	*slash = '\0';
	if (push_joined(out, self[0] != '\0' ? self : "/", "sandmux") != 0 ||
	    push_joined(out, self[0] != '\0' ? self : "/", "sandmux-shim") != 0)
		return -1;
	return 0;
}

/* --- what the shell startup files source ---------------------------------
 *
 * Threat: a file that ~/.bashrc (or another startup file) sources or
 * runs, which the fixed list cannot name because every user's differs:
 * nvm's `\. "$NVM_DIR/nvm.sh"`, `[ -f ~/.fzf.bash ] && source ~/.fzf.bash`,
 * sdkman's init script, `source ~/proj/.venv/bin/activate`, a prompt
 * script run as `~/bin/prompt.sh`.  What the pane writes there, the
 * host's next shell runs.
 *
 * The startup files are read, never run, and each line is cut into
 * shell words.  A word in command position that is `.` or `source`
 * names a file; so does a command word spelled as a path (`~/x`,
 * `$HOME/x`, `/x`).  Words expand `~/`, `$HOME`, `${HOME}` and the
 * variables the files assigned a path to before (`export
 * NVM_DIR="$HOME/.nvm"`), also through `${VAR:-default}`; a word with
 * anything else to expand ($(...), an unknown variable, a glob) is left
 * alone: the list only grows by what is certain.  A sourced file under
 * $HOME that exists is read the same way (RC_MAX_FILES files in all,
 * RC_MAX_DEPTH deep, the first RC_MAX_BYTES of each); files elsewhere
 * are the read-only host's and are only named.
 */
#define RC_MAX_FILES 24
#define RC_MAX_DEPTH 3
#define RC_MAX_BYTES (128 * 1024)
#define RC_MAX_VARS 32
#define RC_VALUE_MAX 512
#define RC_LINE_MAX 4096

static const char *const rc_files[] = {
    ".bashrc", ".bash_profile", ".bash_login", ".bash_aliases", ".profile", ".zshrc",
    ".zshenv", ".zprofile",	".zlogin",     ".kshrc",	".mkshrc",  NULL,
};

struct rc_scan {
	const char *home;
	struct strvec *out;
	bool nomem;
	unsigned files;
	struct {
		dev_t dev;
		ino_t ino;
	} read[RC_MAX_FILES]; /* each file is read once */
	size_t nvars;
	char names[RC_MAX_VARS][64];
	char values[RC_MAX_VARS][RC_VALUE_MAX];
};

static bool rc_name_char(char c, bool first)
{
	return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (!first && c >= '0' && c <= '9');
}

static const char *rc_var(const struct rc_scan *s, const char *name, size_t len)
{
	if (len == 4 && strncmp(name, "HOME", 4) == 0)
		return s->home;
	for (size_t i = s->nvars; i-- > 0;)
		if (strlen(s->names[i]) == len && strncmp(s->names[i], name, len) == 0)
			return s->values[i];
	return NULL;
}

/* Expand word (its quotes already gone) into out: 0, or -1 when it
 * holds anything this reader does not know for certain. */
static int rc_expand(const struct rc_scan *s, const char *word, char *out, size_t size, int depth)
{
	size_t n = 0;

	if (depth > 2)
		return -1;
	out[0] = '\0';
	if (word[0] == '~' && (word[1] == '/' || word[1] == '\0')) {
		n = (size_t)snprintf(out, size, "%s", s->home);
		word++;
	}
	for (const char *p = word; *p != '\0' && n < size; p++) {
		char expanded[RC_VALUE_MAX];
		const char *name, *end, *value;
		bool braced;

		if (strchr("`*?[\\", *p) != NULL)
			return -1;
		if (*p != '$') {
			out[n++] = *p;
			continue;
		}
		name = p + 1;
		braced = *name == '{';
		name += braced;
		for (end = name; rc_name_char(*end, end == name); end++)
			;
		if (end == name)
			return -1;
		value = rc_var(s, name, (size_t)(end - name));
		if (braced && strncmp(end, ":-", 2) == 0) {
			/* ${VAR:-default}: the default only when VAR is not
			 * known here. */
			const char *close = strchr(end, '}');
			char def[RC_VALUE_MAX];
			size_t len = close != NULL ? (size_t)(close - end - 2) : sizeof def;

			if (len >= sizeof def)
				return -1;
			memcpy(def, end + 2, len);
			def[len] = '\0';
			if (value == NULL &&
			    rc_expand(s, def, expanded, sizeof expanded, depth + 1) == 0)
				value = expanded;
			end = close;
		} else if (braced && *end != '}') {
			return -1;
		}
		if (value == NULL)
			return -1;
		n += (size_t)snprintf(out + n, size - n, "%s", value);
		p = braced ? end : end - 1;
	}
	if (n >= size)
		return -1;
	out[n] = '\0';
	if (out[0] != '/' || strstr(out, "/../") != NULL || strstr(out, "/./") != NULL)
		return -1;
	return 0;
}

static void rc_scan_file(struct rc_scan *s, const char *path, int depth);

/* A file the startup files source or run: on the list, and read in turn
 * when it lies under $HOME. */
static void rc_named(struct rc_scan *s, const char *word, int depth)
{
	char path[RC_VALUE_MAX];
	struct stat st;

	if (rc_expand(s, word, path, sizeof path, 0) != 0 || strcmp(path, "/") == 0 ||
	    strcmp(path, s->home) == 0)
		return;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return; /* nothing sources a directory */
	if (push_new(s->out, path) != 0) {
		s->nomem = true;
		return;
	}
	if (depth < RC_MAX_DEPTH && strictly_under(path, s->home))
		rc_scan_file(s, path, depth + 1);
}

/* NAME=VALUE with VALUE a certain path: kept for the words after it. */
static void rc_assign(struct rc_scan *s, const char *word)
{
	const char *eq = strchr(word, '=');
	size_t len = eq != NULL ? (size_t)(eq - word) : 0;
	char value[RC_VALUE_MAX];

	if (len == 0 || len >= sizeof s->names[0] || s->nvars >= RC_MAX_VARS)
		return;
	for (size_t i = 0; i < len; i++)
		if (!rc_name_char(word[i], i == 0))
			return;
	if (rc_expand(s, eq + 1, value, sizeof value, 0) != 0)
		return;
	memcpy(s->names[s->nvars], word, len);
	s->names[s->nvars][len] = '\0';
	snprintf(s->values[s->nvars++], RC_VALUE_MAX, "%s", value);
}

/* Cut line into words, copied into buf with their quotes removed;
 * `;`, `&`, `|` (doubled or not), parentheses and braces are words of
 * their own, ";" standing for all of them.  The number of words. */
static size_t rc_words(const char *line, char *buf, size_t size, char **words, size_t max)
{
	size_t n = 0, used = 0;
	const char *r = line;

	while (*r != '\0' && n < max) {
		while (*r == ' ' || *r == '\t' || *r == '\r')
			r++;
		if (*r == '\0' || *r == '#')
			break;
		if (strchr(";&|(){}", *r) != NULL) {
			words[n++] = ";";
			r += 1 + (r[1] == r[0] && strchr(";&|", *r) != NULL);
			continue;
		}
		if (used >= size)
			break;
		words[n++] = buf + used;
		while (*r != '\0' && strchr(" \t\r;&|()", *r) == NULL && used + 1 < size) {
			if (*r == '"' || *r == '\'') {
				char q = *r++;

				while (*r != '\0' && *r != q && used + 1 < size)
					buf[used++] = *r++;
				r += *r == q;
			} else {
				buf[used++] = *r++;
			}
		}
		buf[used++] = '\0';
	}
	return n;
}

/* Does w put the word after it in command position? */
static bool rc_separator(const char *w)
{
	static const char *const keywords[] = {
	    ";", "then", "do",	 "else",    "if",      "elif", "while", "until",
	    "!", "time", "exec", "command", "builtin", "eval", NULL,
	};

	for (size_t i = 0; keywords[i] != NULL; i++)
		if (strcmp(w, keywords[i]) == 0)
			return true;
	return false;
}

static bool rc_declares(const char *w)
{
	return strcmp(w, "export") == 0 || strcmp(w, "local") == 0 || strcmp(w, "declare") == 0 ||
	       strcmp(w, "typeset") == 0 || strcmp(w, "readonly") == 0;
}

static void rc_scan_line(struct rc_scan *s, const char *line, int depth)
{
	char buf[RC_LINE_MAX], *words[128];
	size_t n = rc_words(line, buf, sizeof buf, words, sizeof words / sizeof words[0]);
	bool command = true;

	for (size_t i = 0; i < n && !s->nomem; i++) {
		const char *w = words[i];

		if (rc_separator(w)) {
			command = true;
		} else if (!command) {
			continue;
		} else if (rc_declares(w)) {
			for (; i + 1 < n && !rc_separator(words[i + 1]); i++)
				rc_assign(s, words[i + 1]);
			command = false;
		} else if (rc_name_char(w[0], true) && strchr(w, '=') != NULL) {
			rc_assign(s, w); /* VAR=value, maybe before a command */
		} else if (strcmp(w, ".") == 0 || strcmp(w, "\\.") == 0 ||
			   strcmp(w, "source") == 0) {
			if (i + 1 < n && !rc_separator(words[i + 1]))
				rc_named(s, words[++i], depth);
			command = false;
		} else {
			if (w[0] == '/' || w[0] == '~' || w[0] == '$')
				rc_named(s, w, depth);
			command = false;
		}
	}
}

static void rc_scan_file(struct rc_scan *s, const char *path, int depth)
{
	struct stat st;
	char *text = NULL;
	ssize_t got = -1;
	int fd;

	if (s->files >= RC_MAX_FILES || (fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	for (unsigned i = 0; i < s->files; i++) {
		if (s->read[i].dev == st.st_dev && s->read[i].ino == st.st_ino) {
			close(fd);
			return;
		}
	}
	s->read[s->files].dev = st.st_dev;
	s->read[s->files++].ino = st.st_ino;
	/* Each file's text lives while the files it sources are read: a
	 * buffer its size (startup files are a few KiB). */
	if (st.st_size > 0) {
		size_t size = st.st_size < RC_MAX_BYTES ? (size_t)st.st_size : RC_MAX_BYTES;

		text = xmalloc(size + 1);
		got = read(fd, text, size);
	}
	close(fd);
	if (got > 0 && memchr(text, '\0', (size_t)got) == NULL) {
		text[got] = '\0';
		for (char *line = text, *next; line != NULL && !s->nomem; line = next) {
			if ((next = strchr(line, '\n')) != NULL)
				*next++ = '\0';
			rc_scan_line(s, line, depth);
		}
	}
	free(text);
}

/* Every file the startup files under home source or run, onto out. */
static int push_sourced(struct strvec *out, const char *home)
{
	struct rc_scan *s = xmalloc(sizeof *s);
	int rc;

	s->home = home;
	s->out = out;
	s->nomem = false;
	s->files = 0;
	s->nvars = 0;
	for (size_t i = 0; rc_files[i] != NULL && !s->nomem; i++) {
		char path[PATH_MAX];

		if (snprintf(path, sizeof path, "%s/%s", home, rc_files[i]) < (int)sizeof path)
			rc_scan_file(s, path, 1);
	}
	rc = s->nomem ? -1 : 0;
	free(s);
	return rc;
}

int hostrun_paths(const char *home, char *const *envp, struct strvec *out)
{
	const char *pane_path = NULL;

	for (size_t i = 0; home_entries[i] != NULL; i++)
		if (push_entry(out, home_entries[i], home) != 0)
			return -1;
	for (size_t i = 0; envp != NULL && envp[i] != NULL; i++)
		if (strncmp(envp[i], "PATH=", 5) == 0)
			pane_path = envp[i] + 5;
	/* Threat: an executable dropped into a PATH directory under $HOME
	 * that the list above does not name (~/go/bin, ~/.npm-global/bin):
	 * the pane's PATH is the one its user's shells use, the server's
	 * the one it was started with. */
	if (push_path_dirs(out, pane_path, home) != 0 ||
	    push_path_dirs(out, getenv("PATH"), home) != 0 || push_sourced(out, home) != 0)
		return -1;
	return push_binaries(out);
}

bool hostrun_covers(const struct strvec *paths, const char *path)
{
	if (subpath_of_any(path, paths))
		return true;
	for (size_t i = 0; hostrun_components[i] != NULL; i++) {
		size_t n = strlen(hostrun_components[i]);

		for (const char *at = strstr(path, hostrun_components[i]); at != NULL;
		     at = strstr(at + 1, hostrun_components[i]))
			if (at > path && at[-1] == '/' && (at[n] == '/' || at[n] == '\0'))
				return true;
	}
	return false;
}

void hostrun_sessions_dir(char *out, size_t size)
{
	const char *state = getenv("XDG_STATE_HOME");

	if (state != NULL && state[0] == '/')
		snprintf(out, size, "%s/sandmux/sessions", state);
	else
		snprintf(out, size, "~/.local/state/sandmux/sessions");
}
