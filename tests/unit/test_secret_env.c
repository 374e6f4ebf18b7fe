/*
 * test_secret_env: which environment entries a sandboxed pane is
 * started without.
 *
 * Cases are an entry and whether it is secret; then the same entries
 * through a profile's "pass_env" patterns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "secret-env.h"

static const struct {
	const char *entry;
	bool secret;
} cases[] = {
    /* The names the issue lists, and their class. */
    {"GITHUB_TOKEN=ghp_x", true},
    {"GH_TOKEN=x", true},
    {"NPM_TOKEN=x", true},
    {"CARGO_REGISTRY_TOKEN=x", true},
    {"NODE_AUTH_TOKEN=x", true},
    {"OPENAI_API_KEY=sk-x", true},
    {"ANTHROPIC_API_KEY=x", true},
    {"OPENAI_APIKEY=x", true},
    {"AWS_SECRET_ACCESS_KEY=x", true},
    {"AWS_ACCESS_KEY_ID=AKIA", true},
    {"AWS_SESSION_TOKEN=x", true},
    {"AWS_SECURITY_TOKEN=x", true},
    {"AZURE_CLIENT_SECRET=x", true},
    {"MY_SECRETS_FILE=x", true},
    {"GOOGLE_APPLICATION_CREDENTIALS=/k.json", true},
    {"DOCKER_AUTH_CONFIG={}", true},
    {"NPM_CONFIG__AUTH=x", true},
    {"TWINE_PASSWORD=x", true},
    {"PGPASSWORD=x", true},
    {"DB_PASSWD=x", true},
    {"DB_PASS=x", true},
    {"MYSQL_PWD=x", true},
    {"GPG_PASSPHRASE=x", true},
    {"GH_PAT=x", true},
    {"SENTRY_DSN=https://k@o.ingest.sentry.io/1", true},
    {"SESSION_COOKIE=x", true},
    {"STRIPE_KEY=x", true},
    {"DEPLOY_KEYS=x", true},
    {"VAULTTOKEN=x", true},
    {"github_token=x", true},
    {"SSH_AUTH_SOCK=/tmp/ssh-x/agent.1", true},
    {"SSH_AGENT_PID=12", true},
    {"GPG_AGENT_INFO=/run/gpg:1:1", true},
    {"SSHPASS=x", true},
    {"KRB5CCNAME=FILE:/tmp/krb5cc_0", true},
    /* A password in a URL, whatever the name. */
    {"DATABASE_URL=postgres://app:hunter2@db/app", true},
    {"PIP_INDEX_URL=https://u:p@pypi.example/simple", true},
    {"https_proxy=http://user:pw@proxy:3128", true},
    {"no-equals-sign", true},
    /* Ordinary variables stay. */
    {"PATH=/usr/bin:/bin", false},
    {"HOME=/root", false},
    {"PWD=/work", false},
    {"OLDPWD=/", false},
    {"SHELL=/bin/bash", false},
    {"LANG=C.UTF-8", false},
    {"TERM=xterm-256color", false},
    {"USER=root", false},
    {"EDITOR=vi", false},
    {"SSH_ASKPASS=/usr/bin/ssh-askpass", false},
    {"GIT_ASKPASS=/usr/bin/true", false},
    {"KEYTIMEOUT=1", false},
    {"XAUTHORITY=/root/.Xauthority", false},
    {"AWS_REGION=eu-west-1", false},
    {"AWS_PROFILE=dev", false},
    {"DISPLAY=:0", false},
    {"https_proxy=http://proxy:3128", false},
    {"HOMEPAGE=https://example.com/a:b@c", false},
    {"SANDMUX_PANE=%1", false},
};

static void test_cases(void **state)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (secret_env_is_secret(cases[i].entry) != cases[i].secret)
			fail_msg("%s: expected %s", cases[i].entry,
				 cases[i].secret ? "secret" : "not secret");
	}
}

static void test_pass_env(void **state)
{
	char *patterns[] = {"GH_TOKEN", "AWS_*", NULL};
	struct strvec pass = {patterns, 2, 2};
	struct strvec none = {NULL, 0, 0};

	assert_true(secret_env_withheld("GITHUB_TOKEN=x", &pass));
	assert_false(secret_env_withheld("GH_TOKEN=x", &pass));
	assert_false(secret_env_withheld("AWS_SECRET_ACCESS_KEY=x", &pass));
	assert_false(secret_env_withheld("PATH=/bin", &pass));
	assert_true(secret_env_withheld("GH_TOKEN=x", &none));
	/* Patterns name variables exactly: no lower-case match of GH_TOKEN. */
	assert_true(secret_env_withheld("gh_token=x", &pass));
}

/* What a pane inherits from the server's environment: the allowlist,
 * what pass_env names, and nothing else, whatever its name looks like. */
static const struct {
	const char *entry;
	bool inherited;
} inherited_cases[] = {
    {"PATH=/usr/bin:/bin", true},
    {"HOME=/home/u", true},
    {"TERM=xterm", true},
    {"LANG=C.UTF-8", true},
    {"LC_ALL=C", true},
    {"LC_=x", false},
    {"SHELL=/bin/bash", true},
    {"USER=u", true},
    {"https_proxy=http://proxy:3128", true},
    {"NO_PROXY=localhost", true},
    /* a password in an allowlisted variable's value */
    {"HTTPS_PROXY=http://u:pw@proxy:3128", false},
    /* secrets under names no list of secret-looking names foresees */
    {"DATABASE_CONNECTION_STRING=Server=db;Password=x", false},
    {"SESSION_JWT=eyJhbGciOi", false},
    {"SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T/B/x", false},
    {"FOO=ghp_abcdef", false},
    {"EDITOR=vi", false},
    {"LC=x", false},
    {"PATHX=/bin", false},
    {"path=/bin", false},
    {"AWS_REGION=eu-west-1", true}, /* pass_env "AWS_*" below */
    {"GH_TOKEN=x", true},
    {"GITHUB_TOKEN=x", false},
    {"PATH", false},
};

static void test_inherited(void **state)
{
	char *patterns[] = {"GH_TOKEN", "AWS_*", NULL};
	struct strvec pass = {patterns, 2, 2};

	for (size_t i = 0; i < sizeof inherited_cases / sizeof inherited_cases[0]; i++)
		if (secret_env_inherited(inherited_cases[i].entry, &pass) !=
		    inherited_cases[i].inherited)
			fail_msg("%s: expected %s", inherited_cases[i].entry,
				 inherited_cases[i].inherited ? "inherited" : "withheld");
}

static void test_patterns(void **state)
{
	assert_true(secret_env_pattern_ok("GITHUB_TOKEN"));
	assert_true(secret_env_pattern_ok("AWS_*"));
	assert_true(secret_env_pattern_ok("X?"));
	assert_false(secret_env_pattern_ok(""));
	assert_false(secret_env_pattern_ok("A=B"));
	assert_false(secret_env_pattern_ok("[A]"));
	assert_false(secret_env_pattern_ok("A B"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_pass_env),
	    cmocka_unit_test(test_inherited),
	    cmocka_unit_test(test_patterns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
