/*
 * microvm-prepared: the next microvm, booted ahead of its launch.
 *
 * A cold boot is seconds under TCG.  Once a microvm pane has been
 * confirmed, the server boots the next VM like it (same key) in the
 * background and leaves it waiting for its launch; a launch whose key
 * matches takes it over and only pays for the mounts and the shell's
 * exec.  Panes of a proxied profile never use it (their egress sockets
 * are their own).  SANDMUX_MICROVM_PREPARE=0 turns it off.  The VM is
 * not a pane, so its qemu is reaped here.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "backend.h"
#include "error.h"
#include "log.h"
#include "microvm-internal.h"
#include "microvm-warm.h"
#include "sandbox-limits.h"
#include "strvec.h"

static struct launch_result prepared;
static struct vm_key prepared_key, last_key;
static bool have_prepared, have_last;
/* The last launch's shell and the variables that say what it reads at
 * its start: the prepared VM reads those files ahead. */
static char last_shell[PATH_MAX], last_path[4096], last_term[128], last_locale[3][128];
/* What the prepared VM's copies were made of: one "path dev ino size
 * mtime" line per file.  A launch finding it changed boots a fresh VM
 * rather than run on copies the host no longer has. */
static struct strvec prepared_warm;
static char *prepared_warm_sig;

static char *warm_signature(const struct strvec *warm)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return NULL;
	for (size_t i = 0; i < warm->n; i++) {
		struct stat st;

		if (stat(warm->v[i], &st) != 0)
			memset(&st, 0, sizeof st);
		fprintf(f, "%s %lu %lu %lld %lld.%09ld\n", warm->v[i], (unsigned long)st.st_dev,
			(unsigned long)st.st_ino, (long long)st.st_size,
			(long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void remember_shell(const struct launch_request *req)
{
	static const char *const names[] = {"PATH=", "TERM=", "LC_ALL=", "LC_CTYPE=", "LANG="};
	char *const dst[] = {last_path, last_term, last_locale[0], last_locale[1], last_locale[2]};
	const size_t size[] = {sizeof last_path, sizeof last_term, sizeof last_locale[0],
			       sizeof last_locale[1], sizeof last_locale[2]};

	snprintf(last_shell, sizeof last_shell, "%s", req->spec->command[0] != NULL ? req->spec->command[0] : "");
	for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
		dst[n][0] = '\0';
		for (size_t i = 0; req->spec->env != NULL && req->spec->env[i] != NULL; i++)
			if (strncmp(req->spec->env[i], names[n], strlen(names[n])) == 0)
				snprintf(dst[n], size[n], "%s", req->spec->env[i] + strlen(names[n]));
	}
}

void microvm_prepared_remember(const struct vm_key *key, const struct launch_request *req)
{
	last_key = *key;
	have_last = true;
	remember_shell(req);
}

static bool prepare_enabled(void)
{
	const char *v = getenv("SANDMUX_MICROVM_PREPARE");

	return v == NULL || strcmp(v, "0") != 0;
}

static bool key_equal(const struct vm_key *a, const struct vm_key *b)
{
	return strcmp(a->work, b->work) == 0 && a->work_ro == b->work_ro &&
	       a->open_net == b->open_net && strcmp(a->host_run, b->host_run) == 0 &&
	       strcmp(a->host_run_guard, b->host_run_guard) == 0 && strcmp(a->deny, b->deny) == 0 &&
	       strcmp(a->profile, b->profile) == 0 && strcmp(a->layer_home, b->layer_home) == 0 &&
	       a->egress_dir == NULL && b->egress_dir == NULL;
}

void microvm_prepared_discard(void)
{
	strvec_free(&prepared_warm);
	free(prepared_warm_sig);
	prepared_warm_sig = NULL;
	if (!have_prepared)
		return;
	have_prepared = false;
	kill(prepared.pid, SIGKILL);
	while (waitpid(prepared.pid, NULL, 0) < 0 && errno == EINTR)
		;
	close(prepared.master);
	microvm_vm_free(vm_of(&prepared));
	limits_group_free(prepared.limits);
	memset(&prepared, 0, sizeof prepared);
}

void microvm_prepare_next(void)
{
	const struct probe_result *probe = backend_probe_result();
	struct sm_error err = {0};

	if (!have_last || !prepare_enabled() || probe == NULL || !probe->microvm.available)
		return;
	if (have_prepared && key_equal(&prepared_key, &last_key) &&
	    waitpid(prepared.pid, NULL, WNOHANG) == 0)
		return;
	microvm_prepared_discard();
	memset(&prepared, 0, sizeof prepared);
	prepared.master = -1;
	{
		const char *const locales[3] = {last_locale[0], last_locale[1], last_locale[2]};
		struct strvec all = STRVEC_INIT, *warm = &prepared_warm;
		int rc = microvm_warm_list(last_shell, last_path[0] != '\0' ? last_path : NULL,
					   last_term, locales, &all);

		/* Not a file of the work tree: the pane must write the
		 * host's own, not a read-only copy; nor of /tmp, which is
		 * the guest's own; nor one the diods refuse to read (the
		 * guest has no masks of its own over the copies). */
		for (size_t i = 0; rc == 0 && i < all.n; i++)
			if (!(last_key.work[0] != '\0' && microvm_inside(all.v[i], last_key.work)) &&
			    !microvm_inside(all.v[i], "/tmp") && !microvm_inside_any(all.v[i], last_key.deny))
				rc |= strvec_push(warm, all.v[i]);
		free(prepared_warm_sig);
		prepared_warm_sig = rc == 0 ? warm_signature(warm) : NULL;
		rc = rc != 0 || prepared_warm_sig == NULL
			 ? (sm_error_set(&err, SM_ERR_OUT_OF_MEMORY, "out of memory"), -1)
			 : microvm_vm_start(probe, &last_key, warm, 24, 80, &prepared, &err);
		strvec_free(&all);
		if (rc != 0) {
			log_warn("microvm: cannot prepare the next VM: %s", err.message);
			return;
		}
	}
	prepared_key = last_key;
	have_prepared = true;
}

/* The prepared VM for key, if there is one and its qemu still runs. */
bool microvm_prepared_take(const struct vm_key *key, struct launch_result *res)
{
	if (!have_prepared || !key_equal(&prepared_key, key))
		return false;
	{
		/* Its copies of the shell's files (copy_ahead in the
		 * agent) must still be what the host has. */
		char *now = warm_signature(&prepared_warm);
		bool same = now != NULL && prepared_warm_sig != NULL &&
			    strcmp(now, prepared_warm_sig) == 0;

		free(now);
		if (!same) {
			log_info("microvm: the prepared VM's copies of the shell's files are "
				 "out of date: booting a new VM");
			microvm_prepared_discard();
			return false;
		}
	}
	if (waitpid(prepared.pid, NULL, WNOHANG) != 0) {
		/* It died waiting (reaped just now): boot a new one. */
		close(prepared.master);
		microvm_vm_free(vm_of(&prepared));
		limits_group_free(prepared.limits);
		have_prepared = false;
		return false;
	}
	*res = prepared;
	have_prepared = false;
	memset(&prepared, 0, sizeof prepared);
	return true;
}
