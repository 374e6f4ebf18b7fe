/*
 * supervisor: answers the seccomp notifications of every native pane
 * (see supervisor.h for the threads, docs/supervisor.md for the rules).
 *
 * The order of one answer:
 *
 *   1. receive the notification; read its path arguments once from the
 *      child's memory (process_vm_readv) and make them absolute in the
 *      child's view (a relative path joins the child's cwd or dirfd,
 *      read from /proc/PID/cwd or /proc/PID/fd/N, which the kernel
 *      spells from the sandbox's own root; a plain read may take the
 *      thread's kept cwd, see "the child's fs_struct");
 *   2. check the notification is still live (SECCOMP_IOCTL_NOTIF_ID_VALID):
 *      only then do the strings belong to the call being decided;
 *   3. pin the parent directory: openat2(/proc/PID/root, dir,
 *      RESOLVE_IN_ROOT) resolves it exactly as the child would, and the
 *      kernel's name for that fd is the canonical location decided on;
 *   4. decide; a refusal is an errno and a violation event; an allowed
 *      create, link, rename, mkdir, mknod, symlink or unlink is done
 *      here, on the pinned directory and the checked name, with the
 *      child's fsuid/fsgid and umask, and the result (an fd injected
 *      with SECCOMP_IOCTL_NOTIF_ADDFD, or the return value) is the
 *      child's.  A racing thread in the child can change its strings
 *      after step 1; it cannot change what is done here.
 *
 * Every write open is emulated like a create, decided on the final
 * object (a symlink at the last component followed, /proc links
 * resolved): see emulate_open.  So is every plain read (emulate_read): a
 * deny-read root missing at launch has no mask, and a read answered
 * CONTINUE would be walked again by the kernel after the check.  Only
 * O_PATH and O_TMPFILE opens are let through (CONTINUE).
 *
 * The thread holds no capabilities (dropped at start, for this thread
 * only): it must never be able to do more in the sandbox than the child
 * could, and root's CAP_DAC_OVERRIDE would walk through the masks.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"
#include "subpath.h"
#include "supervisor-internal.h"
#include "xalloc.h"

/* --- the panes ----------------------------------------------------------- */

struct sv_state sv = {.wake_fd = -1, .threads_ep = -1, .lock = PTHREAD_MUTEX_INITIALIZER,
      .report_lock = PTHREAD_MUTEX_INITIALIZER};

static int copy_list(struct strvec *out, const char *const *in)
{
	for (size_t i = 0; in != NULL && in[i] != NULL; i++)
		if (strvec_push(out, in[i]) != 0)
			return -1;
	return 0;
}

static void sv_pane_free(struct sv_pane *p)
{
	if (p->root >= 0)
		close(p->root);
	for (size_t i = 0; i < sizeof p->threads / sizeof p->threads[0]; i++)
		if (p->threads[i].tid != 0)
			close(p->threads[i].pidfd);
	strvec_free(&p->writable);
	strvec_free(&p->private_roots);
	strvec_free(&p->shown_roots);
	strvec_free(&p->deny_read);
	strvec_free(&p->patterns);
	strvec_free(&p->write_denies);
	strvec_free(&p->protected_paths);
	strvec_free(&p->delete_roots);
	linked_secrets_free(&p->linked);
	strvec_free(&p->connect_sockets);
	free(p);
}

/* --- reports to the loop thread ----------------------------------------- */

/* Out of memory is xalloc's: a violation is never dropped (docs/design.md
 * invariant 6), the server aborts instead. */
void queue_report(int pane_id, cJSON *event)
{
	struct sv_report *r = xcalloc(1, sizeof *r);

	r->pane_id = pane_id;
	r->event = event;
	pthread_mutex_lock(&sv.report_lock);
	*sv.reports_tail = r;
	sv.reports_tail = &r->next;
	pthread_mutex_unlock(&sv.report_lock);
	uv_async_send(&sv.async);
}

static void on_reports(uv_async_t *async)
{
	struct sv_report *r;

	pthread_mutex_lock(&sv.report_lock);
	r = sv.reports;
	sv.reports = NULL;
	sv.reports_tail = &sv.reports;
	pthread_mutex_unlock(&sv.report_lock);
	while (r != NULL) {
		struct sv_report *next = r->next;

		if (r->event != NULL)
			sv.sink.emit(r->event);
		else if (sv.sink.gone != NULL)
			sv.sink.gone(r->pane_id);
		free(r);
		r = next;
	}
}

/* --- one notification ---------------------------------------------------- */

/* The call, decoded (supervisor-path.c), to the code that answers it. */
static int dispatch(struct sv_call *c, int kind)
{
	switch (kind) {
	case SYS_open:
	case SYS_creat:
	case SYS_openat:
	case SYS_openat2:
		return decide_open(c);
	case SYS_mkdir:
	case SYS_mkdirat:
		return emulate_mkdir(c);
	case SYS_mknod:
	case SYS_mknodat:
		return emulate_mknod(c);
	case SYS_symlink:
	case SYS_symlinkat:
		return emulate_symlink(c);
	case SYS_link:
		return emulate_link(c, false);
	case SYS_linkat:
		return emulate_link(c, (c->flags & AT_EMPTY_PATH) && c->a.raw[0] == '\0');
	case SYS_rename:
	case SYS_renameat:
	case SYS_renameat2:
		return emulate_rename(c);
	case SYS_unlink:
	case SYS_unlinkat:
	case SYS_rmdir:
		return emulate_unlink(c);
	case SYS_bind:
		return emulate_bind(c);
	case SYS_connect:
		return emulate_connect(c);
	}
	return emulate_attr(c, kind);
}

static void handle_notification(struct sv_pane *pane, struct seccomp_notif *req)
{
	struct sv_call c;
	char root[64];
	int kind, rc;

	sv_call_init(&c, pane, req);
	if (pane->fs_pending_n > 0)
		fs_settled(pane, req->pid);
	rc = decode(&c, &kind);
	if (kind == SYS_umask || kind == SYS_chdir || kind == SYS_fchdir) {
		fs_changing(pane, req->pid, kind);
		respond(&c, 0, 0, true);
		return;
	}
	/* The strings read above belong to this call only if it is still
	 * waiting: a pid reused by another process would have other memory. */
	if (!notif_valid(pane->listener, req->id))
		goto done;
	if (rc != 0) {
		respond_errno(&c, -rc);
		goto done;
	}
	if (pane->root < 0) {
		/* Every process of a pane shares one root (chroot and new
		 * mount namespaces are out of reach inside), so it is opened
		 * once.  Threat: a pid reused by a host process between the
		 * check above and this open would give the host's root; the
		 * notification still being live after the open proves the
		 * pid was the child's. */
		snprintf(root, sizeof root, "/proc/%d/root", (int)req->pid);
		pane->root = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (pane->root >= 0 && !notif_valid(pane->listener, req->id)) {
			close(pane->root);
			pane->root = -1;
			goto done;
		}
	}
	c.root = pane->root;
	if (c.root < 0 || child_ids(&c) != 0) {
		/* Cannot see the child's world: fail closed. */
		respond_errno(&c, EACCES);
		goto done;
	}
	dispatch(&c, kind);
done:
	if (c.a.parent >= 0)
		close(c.a.parent);
	if (c.b.parent >= 0)
		close(c.b.parent);
}

/* --- the thread ---------------------------------------------------------- */

/* This thread only: no capabilities, its own umask. */
static void drop_privileges(void)
{
	struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2] = {{0}};

	/* Threat: root's CAP_DAC_OVERRIDE (and friends) walking through the
	 * mode-000 masks or the child's permission checks on its behalf. */
	if (syscall(SYS_capset, &header, data) != 0)
		log_warn("supervisor: cannot drop capabilities: %s", strerror(errno));
	/* The child's umask is applied by hand, so ours must not add to it;
	 * unshare(CLONE_FS) keeps this from the rest of the server. */
	if (unshare(CLONE_FS) == 0)
		umask(0);
	sv.fsuid = (uid_t)setfsuid((uid_t)-1);
	sv.fsgid = (gid_t)setfsgid((gid_t)-1);
}

static void close_pane(struct sv_pane *p, bool gone)
{
	close(p->listener);
	p->listener = -1;
	sv.panes_changed = true;
	if (gone && !p->detached) {
		p->gone = true;
		queue_report(p->pane_id, NULL);
	}
}

/* Drop panes that were detached or ended; under the lock. */
static void reap_panes(void)
{
	for (struct sv_pane **pp = &sv.panes; *pp != NULL;) {
		struct sv_pane *p = *pp;

		if (p->detached && p->listener >= 0)
			close_pane(p, false);
		if (p->detached) {
			*pp = p->next;
			sv_pane_free(p);
			sv.panes_changed = true;
		} else {
			pp = &p->next;
		}
	}
}

/* The thread's poll set: the wake eventfd, then every pane's listener;
 * rebuilt under the lock when the panes change. */
struct sv_pollset {
	struct pollfd *fds;
	struct sv_pane **panes;
	size_t n, cap;
};

/* Out of memory is xalloc's (the server aborts): a thread that stopped
 * here instead would leave every pane's calls waiting and their
 * violations unreported (docs/design.md, invariant 6). */
static void pollset_rebuild(struct sv_pollset *set)
{
	size_t need = 2;

	for (struct sv_pane *p = sv.panes; p != NULL; p = p->next)
		need += p->listener >= 0;
	if (need > set->cap) {
		set->fds = xrealloc(set->fds, need * sizeof *set->fds);
		set->panes = xrealloc(set->panes, need * sizeof *set->panes);
		set->cap = need;
	}
	set->fds[0] = (struct pollfd){.fd = sv.wake_fd, .events = POLLIN};
	set->panes[0] = NULL;
	set->fds[1] = (struct pollfd){.fd = sv.threads_ep, .events = POLLIN};
	set->panes[1] = NULL;
	set->n = 2;
	for (struct sv_pane *p = sv.panes; p != NULL; p = p->next) {
		if (p->listener < 0)
			continue;
		set->fds[set->n] = (struct pollfd){.fd = p->listener, .events = POLLIN};
		set->panes[set->n++] = p;
	}
	sv.panes_changed = false;
}

static void serve(struct sv_pane *pane, short revents, struct seccomp_notif *req, size_t req_size)
{
	if (revents & POLLIN) {
		memset(req, 0, req_size);
		if (ioctl(pane->listener, SECCOMP_IOCTL_NOTIF_RECV, req) == 0)
			handle_notification(pane, req);
		return;
	}
	/* No process uses the filter any more: the pane's sandbox ended. */
	if (revents & (POLLHUP | POLLERR | POLLNVAL)) {
		pthread_mutex_lock(&sv.lock);
		close_pane(pane, false);
		pane->detached = true;
		pthread_mutex_unlock(&sv.lock);
	}
}

/* Waits in poll(2), not epoll: a listener set to
 * SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP wakes its waiter on the calling
 * child's CPU, and poll passes that wake-up through to this thread, so
 * child and supervisor hand the CPU to each other instead of waking a
 * second one (epoll's own wake-up of its waiter drops the hint).  One
 * notification round trip costs about a third less here. */
static void *supervisor_thread(void *arg)
{
	struct seccomp_notif_sizes sizes = {0};
	struct sv_pollset set = {0};
	struct seccomp_notif *req;
	size_t req_size;

	drop_privileges();
	syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes);
	req_size = sizes.seccomp_notif > sizeof *req ? sizes.seccomp_notif : sizeof *req;
	req = xcalloc(1, req_size);
	for (;;) {
		int n;

		pthread_mutex_lock(&sv.lock);
		reap_panes();
		if (sv.quit || sv.die) {
			for (struct sv_pane *p = sv.panes; p != NULL; p = p->next)
				if (p->listener >= 0)
					close_pane(p, sv.die);
			pthread_mutex_unlock(&sv.lock);
			break;
		}
		if (sv.panes_changed)
			pollset_rebuild(&set);
		pthread_mutex_unlock(&sv.lock);
		n = poll(set.fds, set.n, -1);
		if (n < 0 && errno != EINTR)
			break;
		/* Gone threads first (threads_gone says why). */
		if (n > 0 && set.fds[1].revents != 0)
			threads_gone();
		for (size_t i = 2; n > 0 && i < set.n; i++)
			if (set.fds[i].revents != 0)
				serve(set.panes[i], set.fds[i].revents, req, req_size);
		if (n > 0 && set.fds[0].revents != 0) {
			uint64_t v;
			if (read(sv.wake_fd, &v, sizeof v) < 0) {
				/* nothing to do: the flags above say why */
			}
		}
	}
	free(set.fds);
	free(set.panes);
	free(req);
	return NULL;
}

static void supervisor_stop(void);

static void wake(void)
{
	uint64_t one = 1;

	if (write(sv.wake_fd, &one, sizeof one) < 0)
		log_warn("supervisor: cannot wake the thread: %s", strerror(errno));
}

/* Test hook (SANDMUX_SUPERVISOR_TEST=1 in the server's environment):
 * SIGUSR2 stops the supervisor as a crash would, closing every
 * listener, so tests can check that supervised calls then fail. */
static void on_test_signal(uv_signal_t *handle, int signum)
{
	log_warn("supervisor: stopped by the test signal");
	pthread_mutex_lock(&sv.lock);
	sv.die = true;
	pthread_mutex_unlock(&sv.lock);
	wake();
}

bool supervisor_path_writable(const char *path, int *pane_id)
{
	bool writable = false;

	pthread_mutex_lock(&sv.lock);
	for (struct sv_pane *p = sv.panes; p != NULL && !writable; p = p->next) {
		if (p->detached || p->listener < 0)
			continue;
		writable = subpath_of_any(path, &p->writable) && !subpath_of_any(path, &p->deny_read) &&
			   write_denied(p, path, false) == NULL && gitdir_write_refused(path) == NULL;
		if (writable && pane_id != NULL)
			*pane_id = p->pane_id;
	}
	pthread_mutex_unlock(&sv.lock);
	return writable;
}

int supervisor_start(const struct supervisor_sink *sink)
{
	if (sv.running)
		return 0;
	sv.sink = *sink;
	sv.reports_tail = &sv.reports;
	sv.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	sv.threads_ep = epoll_create1(EPOLL_CLOEXEC);
	sv.panes_changed = true;
	if (sv.wake_fd < 0 || sv.threads_ep < 0)
		goto fail;
	uv_async_init(sink->loop, &sv.async, on_reports);
	uv_unref((uv_handle_t *)&sv.async);
	if (pthread_create(&sv.thread, NULL, supervisor_thread, NULL) != 0) {
		uv_close((uv_handle_t *)&sv.async, NULL);
		goto fail;
	}
	/* Its name in /proc/PID/task/TID/comm: the supervisor bench reads
	 * this thread's CPU time, perf and top tell it apart. */
	pthread_setname_np(sv.thread, "sandmux-sv");
	if (getenv("SANDMUX_SUPERVISOR_TEST") != NULL) {
		uv_signal_init(sink->loop, &sv.test_signal);
		uv_signal_start(&sv.test_signal, on_test_signal, SIGUSR2);
		uv_unref((uv_handle_t *)&sv.test_signal);
	}
	sv.running = true;
	atexit(supervisor_stop);
	log_info("supervisor: started");
	return 0;
fail:
	log_warn("supervisor: cannot start: %s", strerror(errno));
	if (sv.wake_fd >= 0)
		close(sv.wake_fd);
	if (sv.threads_ep >= 0)
		close(sv.threads_ep);
	sv.wake_fd = sv.threads_ep = -1;
	return -1;
}

int supervisor_attach(int pane_id, int listener_fd, const struct supervisor_policy *policy)
{
	struct sv_pane *p;

	if (!sv.running || sv.die) {
		close(listener_fd);
		return -1;
	}
	p = xcalloc(1, sizeof *p);
	p->pane_id = pane_id;
	p->listener = listener_fd;
	p->root = -1;
	p->delete_guard = policy->delete_guard;
	snprintf(p->session, sizeof p->session, "%s", policy->session ? policy->session : "");
	snprintf(p->profile, sizeof p->profile, "%s", policy->profile ? policy->profile : "");
	if (copy_list(&p->writable, policy->writable_roots) != 0 ||
	    copy_list(&p->private_roots, policy->private_roots) != 0 ||
	    copy_list(&p->shown_roots, policy->shown_roots) != 0 ||
	    copy_list(&p->deny_read, policy->deny_read) != 0 ||
	    copy_list(&p->patterns, policy->deny_create_patterns) != 0 ||
	    copy_list(&p->write_denies, policy->write_denies) != 0 ||
	    copy_list(&p->protected_paths, policy->protected_paths) != 0 ||
	    copy_list(&p->delete_roots, policy->delete_roots) != 0 ||
	    copy_list(&p->connect_sockets, policy->connect_sockets) != 0) {
		close(listener_fd);
		sv_pane_free(p);
		return -1;
	}
	/* Best effort: older kernels answer EINVAL and wake as usual. */
	ioctl(listener_fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	pthread_mutex_lock(&sv.lock);
	p->next = sv.panes;
	sv.panes = p;
	sv.panes_changed = true;
	pthread_mutex_unlock(&sv.lock);
	wake();
	log_debug("%s: pane %d, listener %d", __func__, pane_id, listener_fd);
	return 0;
}

void supervisor_detach(int pane_id)
{
	bool found = false;

	if (!sv.running)
		return;
	pthread_mutex_lock(&sv.lock);
	for (struct sv_pane *p = sv.panes; p != NULL; p = p->next)
		if (p->pane_id == pane_id && !p->detached)
			p->detached = found = true;
	pthread_mutex_unlock(&sv.lock);
	if (found)
		wake();
}

bool supervisor_gone(int pane_id)
{
	bool gone = false;

	pthread_mutex_lock(&sv.lock);
	for (struct sv_pane *p = sv.panes; p != NULL; p = p->next)
		if (p->pane_id == pane_id && p->gone)
			gone = true;
	pthread_mutex_unlock(&sv.lock);
	return gone;
}

/* Stop the thread, close every listener, free everything. */
static void supervisor_stop(void)
{
	struct sv_report *r;

	if (!sv.running)
		return;
	pthread_mutex_lock(&sv.lock);
	sv.quit = true;
	pthread_mutex_unlock(&sv.lock);
	wake();
	pthread_join(sv.thread, NULL);
	sv.running = false;
	while (sv.panes != NULL) {
		struct sv_pane *p = sv.panes;
		sv.panes = p->next;
		if (p->listener >= 0)
			close(p->listener);
		sv_pane_free(p);
	}
	while ((r = sv.reports) != NULL) {
		sv.reports = r->next;
		cJSON_Delete(r->event);
		free(r);
	}
	sv.reports_tail = &sv.reports;
	close(sv.wake_fd);
	close(sv.threads_ep);
	sv.wake_fd = sv.threads_ep = -1;
}
