/*
 * hostrun: the host-run list (see hostrun.h).  Every entry says which
 * threat it stops; docs/security.md has the same list for users.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostrun.h"

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
     * is on; the worktrees' own gitdirs hold theirs. */
    ".git/config.worktree",
    ".git/worktrees",
    /* Submodules' repositories, each with a config of its own that the
     * host's `git status` reads when it recurses into them. */
    ".git/modules",
    /* Submodule URLs: the host's next `git submodule update` fetches
     * (and checks out) from wherever the pane pointed them. */
    ".gitmodules",
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
    /* lesspipe runs ~/.lessfilter on every `less` of a file. */
    "~/.lessfilter",
    /* Editor config and plugins (code the editor runs at start); their
     * caches (~/.viminfo, ~/.cache, nvim's ~/.local/state, emacs'
     * auto-save list) stay writable. */
    "~/.vimrc",
    "~/.vim",
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

static int push_joined(struct strvec *out, const char *base, const char *rest)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof path, "%s/%s", base, rest) >= (int)sizeof path)
		return 0; /* longer than any path the pane could use */
	return push_new(out, path);
}

/* ~/REST, and $XDG/REST where the server's environment moves it. */
static int push_entry(struct strvec *out, const char *entry, const char *home)
{
	if (push_joined(out, home, entry + 2) != 0)
		return -1;
	for (size_t i = 0; i < sizeof xdg_bases / sizeof xdg_bases[0]; i++) {
		const char *value = getenv(xdg_bases[i].var);
		size_t n = strlen(xdg_bases[i].prefix);

		if (strncmp(entry, xdg_bases[i].prefix, n) == 0 && value != NULL && value[0] == '/' &&
		    push_joined(out, value, entry + n) != 0)
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

	if (path_value == NULL || (copy = strdup(path_value)) == NULL)
		return path_value == NULL ? 0 : -1;
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
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	char *slash;

	if (n <= 0)
		return 0;
	self[n] = '\0';
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
	    push_path_dirs(out, getenv("PATH"), home) != 0)
		return -1;
	return push_binaries(out);
}
