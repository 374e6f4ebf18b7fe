/*
 * secret-env: the rules that decide which variables a sandboxed pane
 * does not inherit (see secret-env.h and docs/security.md).
 *
 * Names are compared in upper case, split into words at "_": a name is
 * secret when
 *   - it is one of the agent sockets and credential caches below,
 *   - it contains a word that only credentials use anywhere in it
 *     (PASSWORD, PASSWD, PASSPHRASE, SECRET, CREDENTIAL, APIKEY: also
 *     glued to others, PGPASSWORD, CLIENTSECRET),
 *   - one of its words names a credential (TOKEN, KEY, AUTH, PASS, ...),
 *     or it ends in TOKEN (NPMTOKEN);
 * and a value is secret when it is a URL that carries a password
 * (postgres://user:pw@host: DATABASE_URL, PIP_INDEX_URL, a proxy's).
 * A false positive costs a variable the profile can pass back
 * ("pass_env"), a false negative a credential: the rules lean wide.
 * They judge what a request names itself (-e); what a pane inherits
 * from the server's environment is an allowlist (inherited_names).
 */
#include <fnmatch.h>
#include <stdbool.h>
#include <string.h>

#include "secret-env.h"

#define NAME_MAX_LEN 256

/* Threat: a process inside using the host's agents and caches to act as
 * the user elsewhere: the ssh agent signs logins to any host the key
 * opens, gpg-agent signs and decrypts, a Kerberos cache is a ticket,
 * SSHPASS is a password for ssh. */
static const char *const secret_names[] = {
    "SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "SSHPASS", "KRB5CCNAME", NULL,
};

/* Threat: a password, key or token exported for a tool (PGPASSWORD,
 * TWINE_PASSWORD, AWS_SECRET_ACCESS_KEY, AZURE_CLIENT_SECRET,
 * GOOGLE_APPLICATION_CREDENTIALS, OPENAI_APIKEY) read from inside. */
static const char *const secret_parts[] = {
    "PASSWORD", "PASSWD", "PASSPHRASE", "SECRET", "CREDENTIAL", "APIKEY", NULL,
};

/* Threat: the same through the conventional "_WORD" names:
 * GITHUB_TOKEN, GH_TOKEN, NPM_TOKEN, AWS_SESSION_TOKEN, AWS_ACCESS_KEY_ID,
 * OPENAI_API_KEY, DOCKER_AUTH_CONFIG, NPM_CONFIG__AUTH, DB_PASS,
 * MYSQL_PWD, GH_PAT, SENTRY_DSN, a session cookie. */
static const char *const secret_words[] = {
    "TOKEN", "TOKENS", "KEY", "KEYS",	"AUTH",	   "PASS",
    "PWD",   "PAT",    "DSN", "COOKIE", "COOKIES", NULL,
};

static bool in_list(const char *s, size_t n, const char *const *list)
{
	for (size_t i = 0; list[i] != NULL; i++)
		if (strlen(list[i]) == n && strncmp(s, list[i], n) == 0)
			return true;
	return false;
}

/* PWD alone is the working directory, not a password. */
static bool secret_name(const char *name)
{
	const char *word = name;

	if (in_list(name, strlen(name), secret_names))
		return true;
	for (size_t i = 0; secret_parts[i] != NULL; i++)
		if (strstr(name, secret_parts[i]) != NULL)
			return true;
	if (strlen(name) >= 5 && strcmp(name + strlen(name) - 5, "TOKEN") == 0)
		return true;
	if (strcmp(name, "PWD") == 0)
		return false;
	while (*word != '\0') {
		size_t n = strcspn(word, "_");

		if (in_list(word, n, secret_words))
			return true;
		word += n + (word[n] == '_');
	}
	return false;
}

/* scheme://user:password@host...: a ':' before an '@' in the part
 * between "://" and the path. */
static bool secret_value(const char *value)
{
	const char *authority = strstr(value, "://");
	size_t n;
	const char *at, *colon;

	if (authority == NULL)
		return false;
	authority += 3;
	n = strcspn(authority, "/?#");
	at = memchr(authority, '@', n);
	if (at == NULL)
		return false;
	colon = memchr(authority, ':', (size_t)(at - authority));
	return colon != NULL;
}

/* The name of an entry in upper case; false when there is no '=' or the
 * name is too long to be one a tool would read. */
static bool upper_name(const char *entry, char *out, size_t size)
{
	const char *eq = strchr(entry, '=');
	size_t n = eq != NULL ? (size_t)(eq - entry) : 0;

	if (eq == NULL || n >= size)
		return false;
	for (size_t i = 0; i < n; i++)
		out[i] =
		    entry[i] >= 'a' && entry[i] <= 'z' ? (char)(entry[i] - 'a' + 'A') : entry[i];
	out[n] = '\0';
	return true;
}

bool secret_env_is_secret(const char *entry)
{
	char name[NAME_MAX_LEN];

	/* An entry without a name sandmux can read is withheld: a tool
	 * may still find a credential in it. */
	if (!upper_name(entry, name, sizeof name))
		return true;
	return secret_name(name) || secret_value(strchr(entry, '=') + 1);
}

/* Does the profile's pass_env name the entry's variable? */
static bool passed_by_profile(const char *entry, const struct strvec *pass_env)
{
	const char *eq = strchr(entry, '=');
	char name[NAME_MAX_LEN];

	if (eq == NULL || (size_t)(eq - entry) >= sizeof name)
		return false;
	memcpy(name, entry, (size_t)(eq - entry));
	name[eq - entry] = '\0';
	for (size_t i = 0; i < pass_env->n; i++)
		if (fnmatch(pass_env->v[i], name, 0) == 0)
			return true;
	return false;
}

bool secret_env_withheld(const char *entry, const struct strvec *pass_env)
{
	return secret_env_is_secret(entry) && !passed_by_profile(entry, pass_env);
}

/* What a shell and the tools in it need to run, find their files, speak
 * the user's language and reach the network, none of it a credential:
 * the only variables of the server's environment a sandboxed pane gets
 * without its profile naming them.  Threat: a secret under a name that
 * no list of secret-looking names foresees (DATABASE_CONNECTION_STRING,
 * SESSION_JWT, SLACK_WEBHOOK_URL, FOO=ghp_...), which such a list passes
 * and an allowlist does not.  The proxy variables are the user's way
 * out of the network (a password in one is still withheld, by its
 * value). */
static const char *const inherited_names[] = {
    "PATH",	  "HOME",	 "TERM",	"COLORTERM",   "LANG",	      "LANGUAGE",
    "SHELL",	  "USER",	 "LOGNAME",	"TZ",	       "http_proxy",  "https_proxy",
    "ftp_proxy",  "all_proxy",	 "no_proxy",	"HTTP_PROXY",  "HTTPS_PROXY", "FTP_PROXY",
    "ALL_PROXY",  "NO_PROXY",	 NULL,
};

bool secret_env_inherited(const char *entry, const struct strvec *pass_env)
{
	const char *eq = strchr(entry, '=');
	size_t n = eq != NULL ? (size_t)(eq - entry) : 0;

	if (passed_by_profile(entry, pass_env))
		return true;
	if (eq == NULL || !(in_list(entry, n, inherited_names) || (n > 3 && strncmp(entry, "LC_", 3) == 0)))
		return false;
	return !secret_env_is_secret(entry);
}

bool secret_env_pattern_ok(const char *pattern)
{
	size_t n = strlen(pattern);

	if (n == 0 || n >= NAME_MAX_LEN)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = pattern[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '*' || c == '?'))
			return false;
	}
	return true;
}
