/*
 * microvm: the pane's shell in a qemu -M microvm guest (docs/design.md,
 * "microvm"), the only backend with a kernel between the command and the
 * host.
 *
 * The guest is the distribution's kernel and an initramfs whose /init is
 * the guest agent (backends/microvm-guest/agent.c, built by make
 * microvm-image).  qemu is started on the pane's own PTY: its stdio is
 * the virtconsole the guest sees as /dev/hvc0, so the bytes a pane types
 * go PTY -> qemu -> guest with no relay in the server, and qemu puts the
 * host side of the PTY in raw mode (signal=off) so that Ctrl-C, Ctrl-Z
 * and the rest reach the guest's own line discipline and job control.
 *
 * A second virtio serial port, sandmux.ctl, is the control channel, a
 * socketpair with the server: as qemu starts the server writes the world
 * message (the guest user's name, the work tree, the network, and for a
 * prepared VM the last shell's files to copy in: what the VM's key
 * decides, so a prepared VM builds it before any launch), then the
 * launch (nonce, argv, environment, uid, working directory, size, the
 * profile's deny-read and read-only paths) and later "resize R C"; the
 * agent answers "booted",
 * "ready NONCE PID" once the shell really exec'd in the guest, "fail
 * WHY", and "exit STATUS" when the shell ends.  The pane is labelled
 * microvm only on "ready" with this launch's nonce (invariant 1): output
 * on the console proves nothing, and the guest's shell cannot write on
 * the port the agent holds open.
 *
 * The host's root is shared read-only and the working directory
 * read-write (read-only outside mode chat), each over 9p served by diod
 * on the host and carried by a virtio serial port (sandmux.root,
 * sandmux.work), not by qemu's own virtio-9p: qemu 7.2 refuses to save
 * (migrate) a VM while a virtio-9p export is mounted, and virtiofs
 * (vhost-user-fs) is not migratable in 7.2 at all, so neither allows
 * suspend --to-disk.  A serial port is bytes to qemu, and migrates; the
 * 9p session (fids, open files) lives in diod, whose socket the server
 * keeps while no qemu holds it, so a restored guest finds its mounts as
 * it left them.  The guest kernel is the attacker: each diod runs in
 * bubblewrap (every mount read-only but a writable work tree, because
 * diod does not stop a walk to ".." out of its export) with the guard
 * preloaded (microvm-host/diod-guard.c), which applies the deny-read
 * roots and refuses device nodes and setuid bits on the host's side;
 * its refusals come back on a pipe as violations.
 *
 * Confirmation never blocks the server: status_fd is an epoll set of the
 * control socket and a deadline timer, so "ready" is seen the moment it
 * arrives and a boot that hangs fails at the deadline.  There is no
 * fallback: whatever goes wrong fails the launch (invariant 2).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "backend.h"
#include "bwrap.h"
#include "error.h"
#include "home-layer.h"
#include "hostrun.h"
#include "linked-secret.h"
#include "log.h"
#include "microvm-warm.h"
#include "microvm-internal.h"
#include "profile.h"
#include "qmp.h"
#include "pty.h"
#include "sandbox-limits.h"
#include "sandbox.h"
#include "strvec.h"
#include "xalloc.h"

/* How long a guest may take from qemu's start to "ready".  Measured
 * here: ~2.5 s under TCG on an idle host; a loaded host (parallel test
 * runs) is several times slower.  SANDMUX_MICROVM_BOOT_TIMEOUT_MS
 * overrides it. */
#define BOOT_TIMEOUT_TCG_MS 30000
#define BOOT_TIMEOUT_KVM_MS 10000
#define GUEST_MEMORY "256M"
/* TCG's translation cache, MiB (docs/backends.md has the RSS it gives). */
#define TCG_TB_SIZE_MB "64"
#define CTL_PORT "sandmux.ctl"
/* Where the guest finds the egress proxies (qemu's guestfwd address). */
#define MICROVM_PROXY_ADDR "10.0.2.100"

/* The guest's own refusals kept between two polls of the server. */
#define GUEST_VIOLATIONS_MAX 64

/* The shares: the host's root, the work tree. */
enum { SHARE_ROOT, SHARE_WORK, SHARES };

struct microvm_vm {
	int ctl;     /* the server's end of the control channel */
	struct qmp qmp; /* qemu's QMP monitor (qmp.h) */
	int timer;   /* the boot deadline */
	/* The shares' servers' refusals (diod-guard.c), one line each:
	 * the read end of a pipe both diods write to. */
	int report, report_write; /* report_write: for each qemu */
	char report_line[PATH_MAX + 64];
	size_t report_len;
	struct vm_key key;
	char egress_dir[PATH_MAX]; /* key.egress_dir points here */
	/* Each share's diod (or the bwrap around it) and qemu's end of its
	 * socket, kept here too: the 9p session outlives a saved qemu. */
	pid_t share_server[SHARES];
	int share_qemu_end[SHARES];
	char *layer_work; /* the home layer's work directory, or NULL */
	/* Suspended to disk: no qemu; the state file to restore, and an
	 * open of the PTY's slave so the pane's terminal stays. */
	bool on_disk;
	char state_path[PATH_MAX];
	int slave_hold;
	char nonce[33];
	char accel[8];
	char line[16384]; /* a partial line from ctl */
	size_t len;
	/* The guest's own refusals (agent.c, "violation" lines) not yet
	 * taken by next_violation: a bounded queue, the rest dropped. */
	struct guest_violation {
		char action[16];
		char target[PATH_MAX];
	} guest[GUEST_VIOLATIONS_MAX];
	int nguest;
	bool booted;
	int shell_exit; /* "exit N" from the agent, -1 until then */
	char failure[256];
};

/* The host's TSC rate for tsc_early_khz=: without it the guest
 * calibrates its clock against an emulated timer and gets it wrong
 * under TCG.  /proc/cpuinfo's "cpu MHz" of the first CPU. */
static long tsc_khz(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[256];
	double mhz = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, "cpu MHz", 7) == 0 && sscanf(strchr(line, ':') + 1, "%lf", &mhz) == 1)
			break;
	fclose(f);
	return (long)(mhz * 1000);
}

/* The machine, the kernel, the console: everything but devices that
 * depend on the launch. */
static int push_machine(struct strvec *a, const char *qemu, const char *dir, bool kvm,
			const char *extra_cmdline)
{
	char kernel[PATH_MAX + 16], initrd[PATH_MAX + 32], append[256];
	long khz = tsc_khz();
	const char *const fixed[] = {
	    "-M", "microvm,x-option-roms=off,isa-serial=off,rtc=on", "-m", GUEST_MEMORY,
	    "-smp", "1", "-nodefaults", "-no-user-config", "-display", "none",
	    /* The guest ends qemu by rebooting (poweroff does not end a
	     * microvm machine). */
	    "-no-reboot",
	};

	snprintf(kernel, sizeof kernel, "%s/vmlinux", dir);
	snprintf(initrd, sizeof initrd, "%s/initramfs.cpio", dir);
	/* No console= : kernel messages stay off the pane.  panic=-1: a
	 * guest that panics reboots, which ends qemu.  The two initcalls
	 * skipped cost ~0.5 s of CPU per boot under TCG and guard nothing:
	 * the crypto self-tests (a check of the implementations, not a
	 * protection) and the kprobe trace events (tracing). */
	snprintf(append, sizeof append,
		 "quiet loglevel=0 panic=-1 cryptomgr.notests "
		 "initcall_blacklist=init_kprobe_trace%s%.0ld %s",
		 khz > 0 ? " tsc_early_khz=" : "", khz > 0 ? khz : 0L, extra_cmdline);
	if (strvec_push(a, qemu) != 0 || strvec_pushv(a, fixed, sizeof fixed / sizeof fixed[0]) != 0)
		return -1;
	if (kvm && (strvec_push(a, "-accel") != 0 || strvec_push(a, "kvm") != 0 ||
		    strvec_push(a, "-cpu") != 0 || strvec_push(a, "host") != 0))
		return -1;
	/* Threat: a guest that keeps writing new code (a fork loop, a JIT)
	 * growing TCG's translation cache, 1 GiB by default, which took
	 * qemu to 1.5 GB: bounded, so qemu's RSS stays near the guest's
	 * memory plus this. */
	if (!kvm && (strvec_push(a, "-accel") != 0 || strvec_push(a, "tcg,tb-size=" TCG_TB_SIZE_MB) != 0))
		return -1;
	if (strvec_push(a, "-kernel") != 0 || strvec_push(a, kernel) != 0 ||
	    strvec_push(a, "-initrd") != 0 || strvec_push(a, initrd) != 0 ||
	    strvec_push(a, "-append") != 0 || strvec_push(a, append) != 0)
		return -1;
	/* The pane's PTY is qemu's stdio; signal=off: Ctrl-C is the guest's. */
	return strvec_push(a, "-chardev") != 0 || strvec_push(a, "stdio,id=con,signal=off") != 0 ||
			   strvec_push(a, "-device") != 0 ||
			   strvec_push(a, "virtio-serial-device,max_ports=8") != 0 ||
			   strvec_push(a, "-device") != 0 || strvec_push(a, "virtconsole,chardev=con") != 0
		   ? -1
		   : 0;
}

/* The probe's accelerator check: qemu under KVM booting the guest
 * image in the agent's probe mode, built by the same code as a pane's so
 * the check tests what a launch will run; it prints "sandmux-probe-ok"
 * on its stdout and ends qemu.  0, or -1 out of memory. */
static int microvm_probe_argv(const char *qemu, const char *image_dir, struct strvec *out)
{
	return push_machine(out, qemu, image_dir, true, "sandmux.probe");
}

static int push_pair(struct strvec *a, const char *flag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int push_pair(struct strvec *a, const char *flag, const char *fmt, ...)
{
	char value[PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof value, fmt, ap);
	va_end(ap);
	return strvec_push(a, flag) != 0 || strvec_push(a, value) != 0 ? -1 : 0;
}

/* qemu's user network.  Open: the guest reaches what the host's user
 * can.  Proxied (egress_dir set): restrict=on cuts the guest off from
 * the host and the world, and the one way out is guestfwd to the pane's
 * own egress sockets, each guest connection a socat to http.sock or
 * socks.sock (qemu splits the command into an argv itself, no shell;
 * a path with a quote or a comma is refused).  Threat: an agent in the
 * guest connecting anywhere around the allowlist. */
static int push_network(struct strvec *a, const struct probe_result *probe,
			const char *egress_dir, bool open_net)
{
	if (egress_dir != NULL) {
		const char *socat = probe->native.socat_path;

		if (socat[0] == '\0' || strpbrk(socat, "',\"\\ ") != NULL ||
		    strpbrk(egress_dir, "',\"\\ ") != NULL)
			return -2;
		if (push_pair(a, "-netdev",
			      "user,id=net0,restrict=on,"
			      "guestfwd=tcp:%s:%d-cmd:%s - UNIX-CONNECT:%s/http.sock,"
			      "guestfwd=tcp:%s:%d-cmd:%s - UNIX-CONNECT:%s/socks.sock",
			      MICROVM_PROXY_ADDR, BWRAP_EGRESS_HTTP_PORT, socat, egress_dir,
			      MICROVM_PROXY_ADDR, BWRAP_EGRESS_SOCKS_PORT, socat, egress_dir) != 0)
			return -1;
	} else if (open_net) {
		if (push_pair(a, "-netdev", "user,id=net0") != 0)
			return -1;
	} else {
		return 0;
	}
	return push_pair(a, "-device", "virtio-net-device,netdev=net0");
}

/* qemu's command line for a VM of key: ctl_fd, qmp_fd and the shares'
 * sockets are fds qemu inherits; incoming_fd >= 0 restores a saved
 * state from it instead of booting.  0, -1 out of memory, -2 when the
 * network cannot be built (push_network). */
static int qemu_argv(const struct probe_result *probe, const struct vm_key *key, int ctl_fd,
		     int qmp_fd, const int share_fd[SHARES], int incoming_fd, struct strvec *a)
{
	static const char *const port[SHARES] = {"sandmux.root", "sandmux.work"};

	if (push_machine(a, probe->microvm.qemu_path, probe->microvm.dir,
			 strcmp(probe->microvm.accel, "kvm") == 0, "") != 0 ||
	    push_pair(a, "-chardev", "socket,id=ctl,fd=%d", ctl_fd) != 0 ||
	    push_pair(a, "-device", "virtserialport,chardev=ctl,name=%s", CTL_PORT) != 0 ||
	    push_pair(a, "-chardev", "socket,id=qmp,fd=%d", qmp_fd) != 0 ||
	    push_pair(a, "-mon", "chardev=qmp,mode=control") != 0)
		return -1;
	for (int i = 0; i < SHARES; i++)
		if (share_fd[i] >= 0 &&
		    (push_pair(a, "-chardev", "socket,id=share%d,fd=%d", i, share_fd[i]) != 0 ||
		     push_pair(a, "-device", "virtserialport,chardev=share%d,name=%s", i,
			       port[i]) != 0))
			return -1;
	if (incoming_fd >= 0 && push_pair(a, "-incoming", "fd:%d", incoming_fd) != 0)
		return -1;
	/* Threat: a guest that breaks out of qemu's device emulation (the
	 * shares' serial ports, virtio-net, TCG itself) runs as the user in
	 * qemu's process.  qemu's own seccomp filter then refuses what qemu
	 * never needs: obsolete system calls, setuid and friends
	 * (elevateprivileges), scheduler and resource changes, and fork and
	 * exec (spawn).  Saving and restoring use fd: migration, which
	 * spawns nothing.  Not for a proxied network: its guestfwd starts a
	 * socat per connection, which inherits the filter and fails under
	 * it (measured: every proxied request then gets an empty reply). */
	if (key->egress_dir == NULL &&
	    push_pair(a, "-sandbox",
		      "on,obsolete=deny,elevateprivileges=deny,resourcecontrol=deny,spawn=deny") != 0)
		return -1;
	return push_network(a, probe, key->egress_dir, key->open_net);
}

/* --- the shares -------------------------------------------------------------
 *
 * diod serves one tree on fd 3, a socketpair whose other end becomes
 * qemu's chardev.  In a user namespace of its own where the server's
 * uid and gid are GUEST_ID (guest_ids_argv says why), every attach
 * squashed to that id, diod's own (-S; -U root only names a squash user
 * the user database knows, diod's own uid overrides it), no
 * authentication (-n: the socket is the only way in), none of
 * /etc/diod.conf (-c /dev/null). */

/* The guest's user: the shell's uid and gid in the guest, and the
 * server's in each share's namespace.  Any fixed id but 0 would do. */
#define GUEST_ID "1000"
#define GUEST_USER "sandmux"

static int find_guard(const char *name, char out[PATH_MAX]);
static int add_line(char *buf, size_t size, const char *line);

/* Threat: the guest (its shell or a compromised guest kernel)
 * changing what the host runs later through a work tree that holds
 * $HOME: the work tree's diod serves $HOME through the profile's
 * copy-on-write layer (home-layer.h), mounted by the shim's --home-layer
 * step around its bwrap, the same layer a native pane of the profile
 * has.  What the guest writes under $HOME lands in the layer, whatever
 * the guest kernel does.  No real roots (key_layer says why). */
static int layer_prefix(const struct vm_key *key, const char *work, struct strvec *a)
{
	struct strvec none_real = STRVEC_INIT, argv = STRVEC_INIT;
	char *const no_command[] = {NULL};
	int rc = backend_shim_prefix(a, NULL, 0);

	/* home_layer_argv ends with "--": the bwrap argv follows. */
	rc |= home_layer_argv((const char *const *)a->v, a->n, key->layer_home, key->layer_dir,
			      work, &none_real, no_command, &argv);
	strvec_free(a);
	*a = argv;
	return rc;
}

/* diod in a user namespace whose one uid and gid are the server's, as
 * GUEST_ID.  The guest's 9p client checks permissions itself, against
 * the owner diod reports: so the server's files are GUEST_ID's in the
 * guest, where the shell runs as GUEST_ID, never as the server's uid;
 * what diod makes as GUEST_ID is the server's on the host.  Threat: the
 * shell being root in the guest (the server's uid when the server is
 * root), one step from the guest kernel's own privileges (/proc/sys, a
 * kernel bug reached as root).  Threat: a bug in diod driven by the
 * guest's requests: diod is not root and holds no capability in any
 * namespace; on the host it is the server's uid, which reads what that
 * uid may by the files' modes, without DAC override, and writes only
 * the work tree (share_argv's mounts).  Other owners show as the
 * overflow id (65534). */
static int guest_ids_argv(struct strvec *a)
{
	const char *const ids[] = {"--unshare-user", "--uid",	   GUEST_ID, "--gid",
				   GUEST_ID,	     "--cap-drop", "ALL"};

	return strvec_pushv(a, ids, sizeof ids / sizeof ids[0]);
}

/* What the work tree's diod sees besides the work tree: the system's
 * programs and libraries (diod, its loader and libraries, the guard),
 * read-only.  Threat: a bug in diod driven by the guest's requests
 * reaching the rest of the host's files (the user's $HOME, other
 * projects): that diod sees only what it serves and what it runs on.
 * (The root share's diod serves the host's / read-only, so it sees it.)
 * A directory that is a symlink on the host (merged /usr: /bin, /lib)
 * is the same symlink here. */
static int work_view(const struct vm_key *key, struct strvec *a)
{
	static const char *const system[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
					     "/libx32", "/etc"};
	char target[PATH_MAX];
	int rc = 0;

	for (size_t i = 0; i < sizeof system / sizeof system[0]; i++) {
		struct stat st;
		ssize_t n;

		if (lstat(system[i], &st) != 0)
			continue;
		if (S_ISLNK(st.st_mode) && (n = readlink(system[i], target, sizeof target - 1)) > 0) {
			target[n] = '\0';
			rc |= strvec_pushv(a, (const char *const[]){"--symlink", target, system[i]}, 3);
		} else if (S_ISDIR(st.st_mode)) {
			rc |= strvec_pushv(a, (const char *const[]){"--ro-bind", system[i], system[i]},
					   3);
		}
	}
	rc |= strvec_pushv(a, (const char *const[]){"--ro-bind", key->guard_lib, key->guard_lib}, 3);
	return rc;
}

/* The deny-read roots' files for the work tree's guard, which does not
 * see the roots (linked-secret.h): NULL when they are too many to pass,
 * and the work tree's diod then sees the host read-only as the root
 * share's does (logged). */
static char *work_secrets(const struct vm_key *key)
{
	enum { MAX = 96 * 1024 };
	struct linked_secrets found = {0};
	struct strvec roots = STRVEC_INIT;
	/* xalloc's: a list cut short here would let a hard link of a
	 * secret through the shares' guard. */
	char *text = xmalloc(MAX);

	for (const char *p = key->deny; *p != '\0';) {
		const char *nl = strchr(p, '\n');
		char root[PATH_MAX];

		snprintf(root, sizeof root, "%.*s", (int)(nl - p), p);
		if (strvec_push(&roots, root) != 0)
			break;
		p = nl + 1;
	}
	if (text != NULL) {
		linked_secrets_collect(&found, roots.v);
		if (found.n > 0 && linked_secrets_format(&found, text, MAX) == 0) {
			log_warn("microvm: %zu files under the deny-read roots: the work tree's file "
				 "server sees the host read-only, to find their hard links itself",
				 found.n);
			free(text);
			text = NULL;
		} else if (found.n == 0) {
			text[0] = '\0';
		}
	}
	linked_secrets_free(&found);
	strvec_free(&roots);
	return text;
}

static int share_argv(const struct probe_result *probe, const struct vm_key *key, int which,
		      int report_fd, const char *layer_work, struct strvec *a)
{
	char report[16];
	bool ro = which == SHARE_ROOT || key->work_ro;
	const char *path = which == SHARE_ROOT ? "/" : key->work;
	/* Threat: a compromised guest kernel walking ".." out of the work
	 * tree, which diod would follow, or writing through the host-root
	 * share: in this sandbox every mount is read-only but the work
	 * tree.  A fresh /proc: the host's would show every process of the
	 * user (their environments) to a guest reading the root share.
	 * --dev: device nodes of a bind are unusable in a namespace. */
	const char *const confine[] = {"--die-with-parent", "--unshare-pid", "--unshare-ipc",
				       "--unshare-uts", "--unshare-net", "--unshare-cgroup-try"};
	/* After the view: a bind of / made later would cover them. */
	const char *const fresh[] = {"--dev", "/dev", "--proc", "/proc"};
	char *secrets = NULL;
	int rc = 0;

	if (which == SHARE_WORK && layer_work != NULL && layer_prefix(key, layer_work, a) != 0)
		return -1;
	rc |= strvec_push(a, probe->native.bwrap_path);
	rc |= strvec_pushv(a, confine, sizeof confine / sizeof confine[0]);
	if (which == SHARE_ROOT || (secrets = work_secrets(key)) == NULL) {
		rc |= strvec_pushv(a, (const char *const[]){"--ro-bind", "/", "/"}, 3);
	} else {
		rc |= work_view(key, a);
		rc |= strvec_pushv(a, (const char *const[]){"--setenv", "SANDMUX_GUARD_SECRETS", secrets},
				   3);
		free(secrets);
	}
	rc |= strvec_pushv(a, fresh, sizeof fresh / sizeof fresh[0]);
	rc |= guest_ids_argv(a);
	if (which == SHARE_WORK) {
		rc |= strvec_push(a, key->work_ro ? "--ro-bind" : "--bind");
		rc |= strvec_push(a, key->work);
		rc |= strvec_push(a, key->work);
	}
	/* Threat: planting what the host runs later (invariant 7)
	 * through the writable work tree, by the guest's shell or a
	 * compromised guest kernel: the host kernel refuses it. */
	for (const char *p = which == SHARE_WORK ? key->host_run : ""; *p != '\0';) {
		const char *nl = strchr(p, '\n');
		char path[PATH_MAX];

		snprintf(path, sizeof path, "%.*s", (int)(nl - p), p);
		rc |= strvec_push(a, "--ro-bind");
		rc |= strvec_push(a, path);
		rc |= strvec_push(a, path);
		p = nl + 1;
	}
	/* Threat: a guest root reading a deny-read root through either
	 * share, making a device node or a setuid file, or a host-run file
	 * that does not exist yet, which no bind can cover: diod alone gets
	 * the preload that refuses each (diod-guard.c) and reports it on
	 * report_fd. */
	snprintf(report, sizeof report, "%d", report_fd);
	{
		const char *const guard[] = {"--setenv", "LD_PRELOAD",	   key->guard_lib,
					     "--setenv", "SANDMUX_GUARD_DENY", key->deny};

		rc |= strvec_pushv(a, guard, sizeof guard / sizeof guard[0]);
	}
	if (report_fd >= 0) {
		rc |= strvec_push(a, "--setenv");
		rc |= strvec_push(a, "SANDMUX_GUARD_REPORT_FD");
		rc |= strvec_push(a, report);
	}
	if (which == SHARE_WORK && !key->work_ro) {
		char components[1024] = "";

		rc |= strvec_push(a, "--setenv");
		rc |= strvec_push(a, "SANDMUX_GUARD_PATHS");
		rc |= strvec_push(a, key->host_run_guard);
		/* Threat: a hook, a config or a .vscode/ planted in a
		 * repository at any depth, there at launch or made later,
		 * which no bind of the launch covers: the guard refuses each
		 * component run (hostrun.h) and, in every `.git`, all but
		 * what everyday git writes (gitdir.h). */
		for (size_t i = 0; hostrun_components[i] != NULL; i++)
			rc |= add_line(components, sizeof components, hostrun_components[i]);
		rc |= strvec_push(a, "--setenv");
		rc |= strvec_push(a, "SANDMUX_GUARD_COMPONENTS");
		rc |= strvec_push(a, components);
		/* Git directories by their shape, looked for up to here. */
		rc |= strvec_push(a, "--setenv");
		rc |= strvec_push(a, "SANDMUX_GUARD_WORK");
		rc |= strvec_push(a, key->work);
	}
	rc |= strvec_push(a, "--");
	{
		const char *const args[] = {probe->microvm.diod_path, "-f", "-n", "-c", "/dev/null",
					    "-r", "3", "-w", "3", "-t", "2", "-L", "/dev/null",
					    "-S", "-U", "root", "-e", path};

		rc |= strvec_pushv(a, args, sizeof args / sizeof args[0]);
	}
	if (ro) {
		rc |= strvec_push(a, "-o");
		rc |= strvec_push(a, "ro");
	}
	return rc != 0 ? -1 : 0;
}

/* Start one share's server on server_end (as its fd 3), in its own
 * process group, with nothing else of the server's. */
static int share_start(const struct probe_result *probe, const struct vm_key *key, int which,
		       int server_end, int report_fd, const char *layer_work, pid_t *pid,
		       struct sm_error *err)
{
	struct strvec argv = STRVEC_INIT;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, all;
	char *const envp[] = {"PATH=/usr/bin:/bin:/usr/sbin:/sbin", NULL};
	int rc;

	if (probe->native.bwrap_path[0] == '\0') {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "microvm needs bubblewrap to confine its file servers "
			     "(install: apt-get install bubblewrap)");
		return -1;
	}
	if (share_argv(probe, key, which, report_fd >= 0 ? 4 : -1, layer_work, &argv) != 0) {
		strvec_free(&argv);
		sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
		return -1;
	}
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, server_end, 3);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDWR, 0);
	posix_spawn_file_actions_adddup2(&fa, 0, 1);
	posix_spawn_file_actions_adddup2(&fa, 0, 2);
	if (report_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, report_fd, 4);
	posix_spawn_file_actions_addclosefrom_np(&fa, report_fd >= 0 ? 5 : 4);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
					    POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	rc = posix_spawn(pid, argv.v[0], &fa, &attr, argv.v, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (rc != 0)
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot start %s: %s", argv.v[0],
			     strerror(rc));
	strvec_free(&argv);
	return rc != 0 ? -1 : 0;
}

/* path resolved as far as it exists (a missing tail kept as written):
 * where a file created at path would land. */
static int resolve_as_far(const char *path, char out[PATH_MAX])
{
	char head[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof head)
		return -1;
	memcpy(head, path, len + 1);
	for (;;) {
		char *slash = strrchr(head, '/');
		char real[PATH_MAX];

		if (realpath(head[0] != '\0' ? head : "/", real) != NULL) {
			const char *rest = path + strlen(head);

			return snprintf(out, PATH_MAX, "%s%s", strcmp(real, "/") == 0 ? "" : real,
					rest) >= PATH_MAX
				   ? -1
				   : 0;
		}
		if (slash == NULL)
			return -1;
		*slash = '\0';
	}
}

bool microvm_inside(const char *path, const char *root)
{
	size_t n = strlen(root);

	return strcmp(path, root) == 0 || (strncmp(path, root, n) == 0 && path[n] == '/');
}

/* Is path at or under one of the lines of list? */
bool microvm_inside_any(const char *path, const char *list)
{
	for (const char *p = list; *p != '\0';) {
		const char *nl = strchr(p, '\n');
		char root[PATH_MAX];

		snprintf(root, sizeof root, "%.*s", (int)(nl - p), p);
		if (root[0] != '\0' && microvm_inside(path, root))
			return true;
		p = nl + 1;
	}
	return false;
}

/* Is line one of buf's lines? */
static bool has_line(const char *buf, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = buf; *p != '\0';) {
		const char *nl = strchr(p, '\n');

		if ((size_t)(nl - p) == n && strncmp(p, line, n) == 0)
			return true;
		p = nl + 1;
	}
	return false;
}

/* Append line to buf (size) unless it is there already; -1 when full. */
static int add_line(char *buf, size_t size, const char *line)
{
	size_t len = strlen(buf), n = strlen(line);

	if (has_line(buf, line))
		return 0;
	if (len + n + 2 > size)
		return -1;
	memcpy(buf + len, line, n);
	buf[len + n] = '\n';
	buf[len + n + 1] = '\0';
	return 0;
}

/* A preload (name: sandmux-diod-guard.so, sandmux-qemu-net-guard.so)
 * beside the binary (the build tree), else in ../lib/sandmux (make
 * install). */
static int find_guard(const char *name, char out[PATH_MAX])
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	struct stat st;

	if (n <= 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash == NULL)
		return -1;
	*slash = '\0';
	snprintf(out, PATH_MAX, "%s/%s", self, name);
	if (stat(out, &st) == 0 && S_ISREG(st.st_mode))
		return 0;
	snprintf(out, PATH_MAX, "%s/../lib/sandmux/%s", self, name);
	return stat(out, &st) == 0 && S_ISREG(st.st_mode) ? 0 : -1;
}

/* Does the work tree hold $HOME?  Then its share stands on the
 * profile's copy-on-write home (layer_prefix), all of $HOME: a native
 * pane keeps $HOME's plain entries real when it starts there, but diod
 * never crosses a mount (docs/backends.md, "microvm"), so a real root
 * bound inside the overlay could not be served.  A work tree inside
 * $HOME, not $HOME itself, is real as it is.
 * 0, or -1 with err. */
static int key_layer(const char *home, const struct sandbox_profile *prof, struct vm_key *key,
		     struct sm_error *err)
{
	key->layer_home[0] = '\0';
	if (realpath(home, key->layer_home) == NULL ||
	    !microvm_inside(key->layer_home, key->work)) {
		key->layer_home[0] = '\0';
		return 0;
	}
	/* Fail, don't mislabel: found once, at the server's start. */
	if (!backend_probe_result()->native.home_layer) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "the work tree holds $HOME, which is served through the copy-on-write "
			     "home, and that cannot be mounted on this host (%s)",
			     backend_probe_result()->native.home_layer_reason);
		return -1;
	}
	return home_layer_dir(prof->name, true, key->layer_dir, sizeof key->layer_dir, err);
}

/* A path in the copy-on-write home: neither bound read-only nor
 * refused, since a write there reaches the layer, never the host. */
static bool in_layer(const struct vm_key *key, const char *path)
{
	return key->layer_home[0] != '\0' && microvm_inside(path, key->layer_home);
}

/* The host-run files (hostrun.h: shell startup, git config and hooks,
 * PATH directories, services, editor and agent config, sandmux's own)
 * that lie in the work tree: decided on the final object, so a symlink
 * in the work tree to one elsewhere is followed (that one is read-only
 * already), and one elsewhere pointing into the work tree is caught.
 * Those that exist go to host_run (bound read-only: nothing is created
 * on the host to mount over); all of them, resolved as far as they
 * exist, to host_run_guard (diod refuses to create them).  -1: out of
 * memory or too many. */
static int host_run_in_work(const char *home, char *const *envp, struct vm_key *key)
{
	struct strvec list = STRVEC_INIT;
	int rc = hostrun_paths(home, envp, &list);

	key->host_run[0] = key->host_run_guard[0] = '\0';
	for (size_t i = 0; hostrun_components[i] != NULL && rc == 0; i++) {
		char path[PATH_MAX * 2];

		snprintf(path, sizeof path, "%s/%s", key->work, hostrun_components[i]);
		rc = strvec_push(&list, path);
	}
	for (size_t i = 0; i < list.n && rc == 0; i++) {
		char real[PATH_MAX];

		if (realpath(list.v[i], real) != NULL) {
			if (in_layer(key, real))
				continue;
			if (microvm_inside(real, key->work))
				rc |= add_line(key->host_run, sizeof key->host_run, real);
		} else if (resolve_as_far(list.v[i], real) != 0 || in_layer(key, real)) {
			continue;
		}
		if (rc == 0 && microvm_inside(real, key->work))
			rc |= add_line(key->host_run_guard, sizeof key->host_run_guard, real);
	}
	strvec_free(&list);
	return rc;
}

/* --- the launch message --------------------------------------------------- */

/* One "key value" line, the value's bytes outside printable ASCII (and
 * '%') as %HH: paths, arguments and variables may hold anything. */
static int put_line(FILE *f, const char *key, const char *value)
{
	fprintf(f, "%s ", key);
	for (const unsigned char *p = (const unsigned char *)value; *p != '\0'; p++) {
		if (*p > 0x20 && *p < 0x7f && *p != '%')
			fputc(*p, f);
		else
			fprintf(f, "%%%02X", *p);
	}
	return fputc('\n', f) == EOF ? -1 : 0;
}

/* The deny-read paths native masks for this profile (native.c's
 * deny_list: the terminal list, the profile's, the runtime directory,
 * the stored sessions, the caller's), each in every spelling, globs expanded, into out. */
static int deny_paths(const struct launch_request *req, const struct sandbox_profile *prof,
		      const char *home, struct strvec *out)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	char sessions[PATH_MAX];
	struct strvec all = STRVEC_INIT;
	int rc = 0;

	for (size_t i = 0; bwrap_deny_read_defaults[i] != NULL; i++)
		rc |= strvec_push(&all, bwrap_deny_read_defaults[i]);
	for (size_t i = 0; i < prof->deny_read.n; i++)
		rc |= strvec_push(&all, prof->deny_read.v[i]);
	if (runtime != NULL && runtime[0] == '/')
		rc |= strvec_push(&all, runtime);
	hostrun_sessions_dir(sessions, sizeof sessions);
	rc |= strvec_push(&all, sessions);
	for (size_t i = 0; req->deny_paths != NULL && req->deny_paths[i] != NULL; i++)
		rc |= strvec_push(&all, req->deny_paths[i]);
	for (size_t i = 0; rc == 0 && i < all.n; i++) {
		char *path = sandbox_expand_home(all.v[i], home);

		if (path == NULL) {
			rc = -1;
			break;
		}
		if (sandbox_path_is_glob(path)) {
			glob_t g;

			if (glob(path, GLOB_NOSORT, NULL, &g) == 0)
				for (size_t k = 0; k < g.gl_pathc; k++)
					rc |= strvec_push(out, g.gl_pathv[k]);
			globfree(&g);
		} else {
			rc |= sandbox_deny_spellings(path, out);
		}
		free(path);
	}
	strvec_free(&all);
	return rc;
}

/* What the shares' servers refuse to read (diod-guard.c): every
 * spelling, and each resolved as far as it exists, so a root made after
 * launch (~/.aws the day the user configures it) is caught where its
 * file will really be.  -1: out of memory or too many. */
static int guard_deny_list(const struct strvec *deny, struct vm_key *key)
{
	int rc = 0;

	key->deny[0] = '\0';
	for (size_t i = 0; rc == 0 && i < deny->n; i++) {
		char real[PATH_MAX];

		rc |= add_line(key->deny, sizeof key->deny, deny->v[i]);
		if (resolve_as_far(deny->v[i], real) == 0)
			rc |= add_line(key->deny, sizeof key->deny, real);
	}
	return rc;
}

/* What stays read-only inside the writable work tree: the profile's
 * protected paths and the agent profile's mandatory write-denies (shell
 * startup files, git hooks and config, editor and agent config) under
 * the work tree, for every profile: the work tree is the only writable
 * host path of a microvm pane, and what the host runs later must not be
 * planted there (invariant 7).  Only what exists at launch: a later new
 * file is not caught (docs/backends.md). */
static int put_read_only(FILE *f, const struct sandbox_profile *prof, const char *home,
			 const char *work, const struct vm_key *key)
{
	const struct sandbox_profile *agent = profile_find("agent");
	const struct strvec *lists[] = {&prof->write_denies, &agent->write_denies};
	int rc = 0;

	for (size_t i = 0; i < prof->protected_paths.n; i++) {
		char *path = sandbox_expand_home(prof->protected_paths.v[i], home);

		rc |= path != NULL ? put_line(f, "ro", path) : -1;
		free(path);
	}
	/* Not the host-run paths: the work tree's diod refuses to write or
	 * make them (share_argv, diod-guard.c) and reports each refusal,
	 * which a guest mount in front would hide from the feed. */
	for (size_t l = 0; work != NULL && l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			char path[PATH_MAX * 2];

			snprintf(path, sizeof path, "%s/%s", strcmp(work, "/") == 0 ? "" : work,
				 lists[l]->v[i]);
			/* Nor in the home layer: written there, it never
			 * reaches the host (key_layer). */
			if (!has_line(key->host_run_guard, path) && !in_layer(key, path))
				rc |= put_line(f, "ro", path);
		}
	return rc;
}

/* The variables egress-bridge sets in a native agent pane, pointing at
 * the guest's way to the same proxies (socks5h: names are resolved by
 * the proxy, which must see them to judge them). */
static int put_proxy_env(FILE *f)
{
	static const char *const names[] = {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy",
					    "https_proxy", "ALL_PROXY", "all_proxy"};
	char value[128];
	int rc = 0;

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (i < 4)
			snprintf(value, sizeof value, "%s=http://%s:%d", names[i], MICROVM_PROXY_ADDR,
				 BWRAP_EGRESS_HTTP_PORT);
		else
			snprintf(value, sizeof value, "%s=socks5h://%s:%d", names[i],
				 MICROVM_PROXY_ADDR, BWRAP_EGRESS_SOCKS_PORT);
		rc |= put_line(f, "env", value);
	}
	rc |= put_line(f, "env", "NO_PROXY=localhost,127.0.0.1,::1");
	rc |= put_line(f, "env", "no_proxy=localhost,127.0.0.1,::1");
	return rc;
}

/* The world message, sent as qemu starts: what the guest builds before
 * any launch (the shares mounted, the network up) depends on the VM's
 * key alone, so a prepared VM has it ready; warm (a prepared VM's, else
 * NULL) lists the files its agent copies in ahead (microvm-warm.h). */
static char *world_message(const struct vm_key *key, const struct strvec *warm, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int rc = 0;

	if (f == NULL)
		return NULL;
	/* The name the guest attaches to the shares as (diod looks the
	 * attaching user up by name, and lets only GUEST_ID in). */
	rc |= put_line(f, "user", GUEST_USER);
	if (key->work[0] != '\0') {
		/* "rw PATH": the host path is the share's 9p aname. */
		char value[PATH_MAX + 8];

		snprintf(value, sizeof value, "%s %s", key->work_ro ? "ro" : "rw", key->work);
		rc |= put_line(f, "work", value);
	}
	if (key->egress_dir != NULL)
		rc |= put_line(f, "net", "proxied");
	else if (key->open_net)
		rc |= put_line(f, "net", "open");
	for (size_t i = 0; warm != NULL && i < warm->n; i++)
		rc |= put_line(f, "warm", warm->v[i]);
	fputs("world\n", f);
	if (fclose(f) != 0 || rc != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The launch message: what depends on the pane. */
static char *launch_message(const struct launch_request *req, const struct sandbox_profile *prof,
			    const char *home, const char *work, const struct vm_key *key,
			    const char *nonce, size_t *len)
{
	char *buf = NULL, num[64];
	FILE *f = open_memstream(&buf, len);
	int rc = 0;

	if (f == NULL)
		return NULL;
	rc |= put_line(f, "nonce", nonce);
	for (size_t i = 0; req->spec->command[i] != NULL; i++)
		rc |= put_line(f, "arg", req->spec->command[i]);
	/* GIT_TEMPLATE_DIR empty, as in a native pane: git init and clone
	 * copy no template, so they never need .git/hooks, which the work
	 * tree's diod refuses to write (diod-guard.c). */
	for (size_t i = 0; req->spec->env != NULL && req->spec->env[i] != NULL; i++)
		if (strncmp(req->spec->env[i], "GIT_TEMPLATE_DIR=", 17) != 0 &&
		    strncmp(req->spec->env[i], "SANDMUX_HOME_LAYER=", 19) != 0)
			rc |= put_line(f, "env", req->spec->env[i]);
	rc |= put_line(f, "env", "GIT_TEMPLATE_DIR=");
	/* Where the shell's writes to $HOME go, said by the server only
	 * where a layer stands (key_layer), as a native pane's. */
	if (key->layer_home[0] != '\0') {
		char var[128];

		snprintf(var, sizeof var, "SANDMUX_HOME_LAYER=%s", prof->name);
		rc |= put_line(f, "env", var);
	}
	rc |= put_line(f, "cwd", req->spec->workdir);
	/* The shell's ids in the guest: the server's files are its own
	 * there (guest_ids_argv), whatever uid the server has. */
	rc |= put_line(f, "uid", GUEST_ID);
	rc |= put_line(f, "gid", GUEST_ID);
	snprintf(num, sizeof num, "%d %d", req->rows, req->cols);
	rc |= put_line(f, "size", num);
	if (req->egress_dir != NULL)
		rc |= put_proxy_env(f);
	/* Tests only: a guest root in the pane (agent.c, guest_root), to
	 * show that the host's side of each share holds without the
	 * guest's own masks; by design it weakens nothing that matters. */
	if (getenv("SANDMUX_TEST_GUEST_ROOT") != NULL &&
	    strcmp(getenv("SANDMUX_TEST_GUEST_ROOT"), "1") == 0)
		rc |= put_line(f, "guest-root", "1");
	/* Masked in the guest too, so that the guest's own refusal comes
	 * first and the agent reports it (microvm-guest/watch.h); the
	 * shares' servers refuse the same roots whatever the guest does.
	 * Only those that exist: the guest's lookup of a missing one would
	 * leave a negative dentry in its 9p cache, and hide the root from
	 * the guest (and its refusal from the feed) once it is made. */
	for (const char *p = key->deny; *p != '\0';) {
		const char *nl = strchr(p, '\n');
		char path[PATH_MAX];
		struct stat st;

		snprintf(path, sizeof path, "%.*s", (int)(nl - p), p);
		if (stat(path, &st) == 0)
			rc |= put_line(f, "deny", path);
		p = nl + 1;
	}
	rc |= put_read_only(f, prof, home, work, key);
	fputs("go\n", f);
	if (fclose(f) != 0 || rc != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* --- launch --------------------------------------------------------------- */

/* Reaped here: a share's server is not a pane, the pane reaper never
 * looks for it.  SIGKILL: bwrap's --die-with-parent takes diod along. */
static void share_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

void microvm_vm_free(struct microvm_vm *vm)
{
	if (vm == NULL)
		return;
	if (vm->ctl >= 0)
		close(vm->ctl);
	if (vm->qmp.fd >= 0)
		close(vm->qmp.fd);
	if (vm->timer >= 0)
		close(vm->timer);
	if (vm->report >= 0)
		close(vm->report);
	if (vm->report_write >= 0)
		close(vm->report_write);
	for (int i = 0; i < SHARES; i++) {
		if (vm->share_qemu_end[i] >= 0)
			close(vm->share_qemu_end[i]);
		share_stop(vm->share_server[i]);
	}
	if (vm->slave_hold >= 0)
		close(vm->slave_hold);
	if (vm->state_path[0] != '\0')
		unlink(vm->state_path);
	/* After the shares' servers: no mount of the layer is left. */
	if (vm->layer_work != NULL)
		home_layer_work_remove(vm->layer_work);
	free(vm->layer_work);
	free(vm);
}

static long boot_timeout_ms(const char *accel)
{
	const char *env = getenv("SANDMUX_MICROVM_BOOT_TIMEOUT_MS");
	long ms = env != NULL ? strtol(env, NULL, 10) : 0;

	if (ms > 0)
		return ms;
	return strcmp(accel, "kvm") == 0 ? BOOT_TIMEOUT_KVM_MS : BOOT_TIMEOUT_TCG_MS;
}

/* The confirmation set: the control socket and the deadline. */
static int make_status_fd(struct microvm_vm *vm)
{
	long ms = boot_timeout_ms(vm->accel);
	struct itimerspec deadline = {.it_value = {.tv_sec = ms / 1000,
						   .tv_nsec = (ms % 1000) * 1000000}};
	struct epoll_event ev = {.events = EPOLLIN};
	int ep = epoll_create1(EPOLL_CLOEXEC);

	vm->timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (ep < 0 || vm->timer < 0 || timerfd_settime(vm->timer, 0, &deadline, NULL) != 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, vm->ctl, &ev) != 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, vm->timer, &ev) != 0) {
		if (ep >= 0)
			close(ep);
		return -1;
	}
	return ep;
}

static int make_nonce(char out[33])
{
	unsigned char raw[16];

	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
		return -1;
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* qemu for vm on the pane's PTY: a new one (master < 0: res->master set)
 * or the one a VM saved to disk left (a restore from incoming_fd).  The
 * control channel and QMP are new either way. */
static int vm_spawn(const struct probe_result *probe, struct microvm_vm *vm, int master,
		    int incoming_fd, int rows, int cols, struct launch_result *res,
		    struct sm_error *err)
{
	/* qemu needs nothing of the pane's environment (the guest gets it
	 * through the launch), and a prepared VM has no pane yet.  Threat:
	 * the guest reaching the host's loopback (10.0.2.2) or its own and
	 * private addresses through qemu's user network: qemu's sockets
	 * refuse them (qemu-net-guard.c) and report on the VM's pipe. */
	char preload[PATH_MAX + 16], report[48];
	char *const envp[] = {"PATH=/usr/bin:/bin", preload, report, NULL};
	int ctl[2] = {-1, -1}, qmp[2] = {-1, -1}, keep[4 + SHARES], nkeep = 0;
	struct strvec argv = STRVEC_INIT;
	char msg[256];
	int rc = -1;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctl) ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, qmp) != 0) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot make the control channel: %s",
			     strerror(errno));
		goto out;
	}
	switch (qemu_argv(probe, &vm->key, ctl[1], qmp[1], vm->share_qemu_end, incoming_fd,
			  &argv)) {
	case 0:
		break;
	case -2:
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "the egress bridge needs socat on PATH and paths without quotes, "
			     "commas or spaces");
		goto out;
	default:
		sm_error_set(err, SM_ERR_OUT_OF_MEMORY, "out of memory");
		goto out;
	}
	snprintf(preload, sizeof preload, "LD_PRELOAD=%s", vm->key.net_guard_lib);
	snprintf(report, sizeof report, "SANDMUX_GUARD_REPORT_FD=%d", vm->report_write);
	keep[nkeep++] = ctl[1];
	keep[nkeep++] = qmp[1];
	keep[nkeep++] = vm->report_write;
	for (int i = 0; i < SHARES; i++)
		if (vm->share_qemu_end[i] >= 0)
			keep[nkeep++] = vm->share_qemu_end[i];
	if (incoming_fd >= 0)
		keep[nkeep++] = incoming_fd;
	{
		struct pty_spawn_opts opts = {
		    .argv = argv.v,
		    .envp = envp,
		    .cwd = "/",
		    .rows = rows,
		    .cols = cols,
		    .keep_fds = keep,
		    .nkeep_fds = nkeep,
		    .child_setup = res->limits != NULL ? limits_child_apply : NULL,
		    .child_arg = res->limits,
		};
		int spawned = master >= 0 ? pty_spawn_on(&opts, master, &res->pid, msg, sizeof msg)
					  : pty_spawn(&opts, &res->master, &res->pid, msg, sizeof msg);

		if (spawned < 0) {
			sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot start qemu: %s", msg);
			goto out;
		}
	}
	if (vm->ctl >= 0)
		close(vm->ctl);
	if (vm->qmp.fd >= 0)
		close(vm->qmp.fd);
	vm->ctl = ctl[0];
	vm->qmp.fd = qmp[0];
	vm->qmp.ready = false;
	vm->len = 0;
	ctl[0] = qmp[0] = -1;
	rc = 0;
out:
	for (int i = 0; i < 2; i++) {
		if (ctl[i] >= 0)
			close(ctl[i]);
		if (qmp[i] >= 0)
			close(qmp[i]);
	}
	strvec_free(&argv);
	return rc;
}

/* Boot a VM (its shares' servers, qemu on a new PTY) for key and queue
 * its world message (warm: the files to copy in ahead, or NULL); the
 * launch is sent later. */
int microvm_vm_start(const struct probe_result *probe, const struct vm_key *key,
		     const struct strvec *warm, int rows, int cols, struct launch_result *res,
		     struct sm_error *err)
{
	struct microvm_vm *vm = xcalloc(1, sizeof *vm);
	int report[2] = {-1, -1};
	char *world;
	size_t world_len = 0;

	vm->ctl = vm->qmp.fd = vm->timer = vm->slave_hold = vm->report = vm->report_write = -1;
	vm->shell_exit = -1;
	vm->key = *key;
	if (key->egress_dir != NULL) {
		snprintf(vm->egress_dir, sizeof vm->egress_dir, "%s", key->egress_dir);
		vm->key.egress_dir = vm->egress_dir;
	}
	for (int i = 0; i < SHARES; i++) {
		vm->share_qemu_end[i] = -1;
		vm->share_server[i] = 0;
	}
	snprintf(vm->accel, sizeof vm->accel, "%s", probe->microvm.accel);
	if (make_nonce(vm->nonce) != 0) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot make a nonce: %s", strerror(errno));
		goto fail;
	}
	/* A comma would end the guest's 9p mount options (the aname). */
	if (strchr(key->work, ',') != NULL) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "a microvm work tree cannot have a comma in its path: %s", key->work);
		goto fail;
	}
	/* Non-blocking both ends: a diod never waits on the server to
	 * report (a line that does not fit is lost, the refusal is not). */
	if (pipe2(report, O_CLOEXEC | O_NONBLOCK) != 0) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot make the shares' report pipe: %s",
			     strerror(errno));
		goto fail;
	}
	vm->report = report[0];
	for (int i = 0; i < SHARES; i++) {
		int pair[2];

		if (i == SHARE_WORK && key->work[0] == '\0')
			continue;
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
			sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot make a share's socket: %s",
				     strerror(errno));
			goto fail;
		}
		vm->share_qemu_end[i] = pair[1];
		if (i == SHARE_WORK && key->layer_home[0] != '\0' &&
		    home_layer_work_new(key->layer_dir, &vm->layer_work, err) != 0) {
			close(pair[0]);
			goto fail;
		}
		if (share_start(probe, key, i, pair[0], report[1],
				i == SHARE_WORK ? vm->layer_work : NULL, &vm->share_server[i],
				err) != 0) {
			close(pair[0]);
			goto fail;
		}
		close(pair[0]);
	}
	vm->report_write = report[1];
	report[1] = -1;
	/* Threat: a runaway guest taking the host's memory: qemu (the
	 * guest's RAM, TCG's cache, its threads) is in a group with the
	 * profile's limits, like a native pane's processes. */
	res->limits = limits_group_new(profile_find(key->profile), err);
	if (res->limits == NULL)
		goto fail;
	if (vm_spawn(probe, vm, -1, -1, rows, cols, res, err) != 0)
		goto fail;
	/* Far below a socket buffer, so this never blocks; the agent reads
	 * it once booted.  EPIPE: qemu is already gone, which confirm
	 * reports with what qemu said on the PTY, the better reason. */
	world = world_message(key, warm, &world_len);
	if (world == NULL || (write_all(vm->ctl, world, world_len) != 0 && errno != EPIPE)) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot send the world to the guest: %s",
			     world == NULL ? "out of memory" : strerror(errno));
		free(world);
		backend_kill_tree(res->pid, 0);
		while (waitpid(res->pid, NULL, 0) < 0 && errno == EINTR)
			;
		close(res->master);
		res->master = -1;
		res->pid = 0;
		goto fail;
	}
	free(world);
	res->backend = SANDBOX_MICROVM;
	res->state = vm;
	log_info("microvm: qemu pid %d (%s), work %s%s, network %s", (int)res->pid, vm->accel,
		 key->work[0] != '\0' ? key->work : "none", key->work_ro ? " read-only" : "",
		 key->egress_dir != NULL ? "proxied" : key->open_net ? "open" : "none");
	return 0;
fail:
	limits_group_free(res->limits);
	res->limits = NULL;
	if (report[1] >= 0)
		close(report[1]);
	microvm_vm_free(vm);
	return -1;
}

/* --- launch --------------------------------------------------------------- */

static int microvm_launch(const struct launch_request *req, struct launch_result *res,
			  struct sm_error *err)
{
	const struct probe_result *probe = backend_probe_result();
	const struct sandbox_profile *prof = profile_find(req->spec->profile);
	const char *home = req->spec->home != NULL ? req->spec->home : getenv("HOME");
	struct vm_key key = {.egress_dir = req->egress_dir};
	struct strvec deny = STRVEC_INIT;
	char *message = NULL;
	size_t message_len = 0;
	bool warm;

	memset(res, 0, sizeof *res);
	res->master = -1;
	res->status_fd = -1;
	if (prof == NULL) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "no profile \"%s\"", req->spec->profile);
		return -1;
	}
	if (probe == NULL || !probe->microvm.available) {
		sm_error_set(err, SM_ERR_BACKEND_UNAVAILABLE, "microvm sandbox unavailable");
		return -1;
	}
	if (home == NULL || realpath(req->spec->workdir, key.work) == NULL) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot resolve the working directory %s: %s",
			     req->spec->workdir, strerror(errno));
		return -1;
	}
	/* The working directory is the guest's one writable host path
	 * (read-only outside mode chat); "/" is never shared writable. */
	if (strcmp(key.work, "/") == 0)
		key.work[0] = '\0';
	key.work_ro = prof->mode != SANDBOX_MODE_CHAT;
	snprintf(key.profile, sizeof key.profile, "%s", prof->name);
	key.open_net = !prof->proxied_network;
	if (key.work[0] != '\0' && !key.work_ro && key_layer(home, prof, &key, err) != 0)
		return -1;
	if (key.work[0] != '\0' && !key.work_ro && host_run_in_work(home, req->spec->env, &key) != 0) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "cannot list the host-run files in the work tree %s", key.work);
		return -1;
	}
	if (deny_paths(req, prof, home, &deny) != 0 || guard_deny_list(&deny, &key) != 0) {
		strvec_free(&deny);
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot list the deny-read paths");
		return -1;
	}
	if (find_guard("sandmux-diod-guard.so", key.guard_lib) != 0 ||
	    find_guard("sandmux-qemu-net-guard.so", key.net_guard_lib) != 0) {
		strvec_free(&deny);
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "the guards sandmux-diod-guard.so and sandmux-qemu-net-guard.so must be "
			     "beside the sandmux binary (make)");
		return -1;
	}
	warm = microvm_prepared_take(&key, res);
	if (!warm && microvm_vm_start(probe, &key, NULL, req->rows, req->cols, res, err) != 0) {
		strvec_free(&deny);
		return -1;
	}
	if (warm)
		pty_resize(res->master, req->rows, req->cols);
	if (req->egress_dir == NULL)
		microvm_prepared_remember(&key, req);
	message = launch_message(req, prof, home, key.work[0] != '\0' ? key.work : NULL,
				 &key, vm_of(res)->nonce, &message_len);
	strvec_free(&deny);
	/* Far below a socket buffer, so this never blocks; the agent reads
	 * it when it opens the port (at once if the VM was prepared). */
	/* EPIPE: qemu is already gone; confirm reports that, with what
	 * qemu said on the PTY, which is the better reason. */
	if (message == NULL ||
	    (write_all(vm_of(res)->ctl, message, message_len) != 0 && errno != EPIPE)) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot send the launch to the guest: %s",
			     message == NULL ? "out of memory" : strerror(errno));
		goto fail;
	}
	free(message);
	message = NULL;
	res->status_fd = make_status_fd(vm_of(res));
	if (res->status_fd < 0) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "cannot watch the guest: %s", strerror(errno));
		goto fail;
	}
	snprintf(res->details, sizeof res->details, "%s, %s, profile %s%s", probe->microvm.tool,
		 vm_of(res)->accel, prof->name, warm ? ", prepared VM" : "");
	return 0;
fail:
	free(message);
	backend_kill_tree(res->pid, 0);
	/* Reaped here: the pane never learns this pid. */
	while (waitpid(res->pid, NULL, 0) < 0 && errno == EINTR)
		;
	close(res->master);
	res->master = -1;
	microvm_vm_free(vm_of(res));
	res->state = NULL;
	limits_group_free(res->limits);
	res->limits = NULL;
	res->pid = 0;
	return -1;
}

/* --- the control channel -------------------------------------------------- */

/* "ACTION TARGET" from the agent, TARGET's bytes outside printable
 * ASCII as %HH: queued as the guest's refusal.  The guest is hostile:
 * only the two actions its masks and read-only binds give, an absolute
 * path, no NUL, control bytes shown as '?', bounded; the pane, the
 * backend and the source are the host's to say (pane_check_violations),
 * never the line's. */
static void guest_violation(struct microvm_vm *vm, const char *text)
{
	static const char *const actions[] = {"file-read*", "file-write*"};
	struct guest_violation *v;
	const char *space = strchr(text, ' ');
	size_t n = 0;

	if (space == NULL || space[1] != '/' || vm->nguest == GUEST_VIOLATIONS_MAX)
		return;
	v = &vm->guest[vm->nguest];
	v->action[0] = '\0';
	for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++)
		if ((size_t)(space - text) == strlen(actions[i]) &&
		    strncmp(text, actions[i], strlen(actions[i])) == 0)
			snprintf(v->action, sizeof v->action, "%s", actions[i]);
	if (v->action[0] == '\0')
		return;
	for (const char *p = space + 1; *p != '\0'; p++) {
		unsigned value;
		unsigned char c = (unsigned char)*p;

		if (n + 1 >= sizeof v->target)
			return;
		if (c == '%') {
			if (sscanf(p + 1, "%2x", &value) != 1 || !isxdigit((unsigned char)p[1]) ||
			    !isxdigit((unsigned char)p[2]) || value == 0)
				return;
			c = (unsigned char)value;
			p += 2;
		}
		v->target[n++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	v->target[n] = '\0';
	vm->nguest++;
}

/* One line from the agent: 1 handled, -1 failure (err set). */
static int handle_line(struct launch_result *res, const char *line, struct sm_error *err)
{
	struct microvm_vm *vm = vm_of(res);
	char nonce[64];
	int pid, status;

	if (strcmp(line, "booted") == 0) {
		vm->booted = true;
		return 1;
	}
	if (sscanf(line, "ready %63s %d", nonce, &pid) == 2) {
		if (strcmp(nonce, vm->nonce) != 0) {
			sm_error_set(err, SM_ERR_LAUNCH_FAILED,
				     "the guest answered with another launch's nonce");
			return -1;
		}
		res->confirmed = true;
		/* The shell's pid is the guest's; on the host qemu stands
		 * for it. */
		res->child_pid = res->pid;
		return 1;
	}
	if (strncmp(line, "violation ", 10) == 0) {
		guest_violation(vm, line + 10);
		return 1;
	}
	if (sscanf(line, "exit %d", &status) == 1) {
		vm->shell_exit = status;
		return 1;
	}
	if (strncmp(line, "fail ", 5) == 0) {
		snprintf(vm->failure, sizeof vm->failure, "%s", line + 5);
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "microvm guest: %s", line + 5);
		return -1;
	}
	return 1;
}

/* Read what the agent said; -1 on a failure line (err set), 0 at EOF, 1
 * otherwise. */
static int read_ctl(struct launch_result *res, struct sm_error *err)
{
	struct microvm_vm *vm = vm_of(res);

	for (;;) {
		ssize_t n = recv(vm->ctl, vm->line + vm->len, sizeof vm->line - 1 - vm->len,
				 MSG_DONTWAIT);
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 1;
		if (n <= 0)
			return 0;
		vm->len += (size_t)n;
		vm->line[vm->len] = '\0';
		while ((nl = strchr(vm->line, '\n')) != NULL) {
			/* Taken off the buffer before it is handled: a line
			 * that fails is not met again by the next read. */
			char line[sizeof vm->line];
			size_t n = (size_t)(nl - vm->line);

			memcpy(line, vm->line, n);
			line[n] = '\0';
			vm->len -= n + 1;
			memmove(vm->line, nl + 1, vm->len + 1);
			if (handle_line(res, line, err) < 0)
				return -1;
		}
		if (vm->len == sizeof vm->line - 1)
			vm->len = 0; /* an overlong line from the guest is dropped */
	}
}

/* The host side of the PTY as qemu left it but without output
 * processing: the guest's own terminal already turned "\n" into
 * "\r\n", and qemu keeps OPOST for its own messages. */
static void pty_output_raw(int master)
{
	struct termios t;

	if (tcgetattr(master, &t) == 0) {
		t.c_oflag &= ~(tcflag_t)OPOST;
		tcsetattr(master, TCSANOW, &t);
	}
}

static int microvm_confirm(struct launch_result *res, struct sm_error *err)
{
	struct microvm_vm *vm = vm_of(res);
	uint64_t ticks;
	int rc;

	if (vm == NULL) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "microvm guest gone");
		return -1;
	}
	rc = read_ctl(res, err);
	if (rc < 0)
		return -1;
	if (res->confirmed) {
		pty_output_raw(res->master);
		return 1;
	}
	/* Only qemu holds the other end: EOF is qemu gone. */
	if (rc == 0) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED, "qemu exited before the guest ran the shell%s",
			     vm->booted ? "" : " (the guest did not boot)");
		return -1;
	}
	if (read(vm->timer, &ticks, sizeof ticks) == (ssize_t)sizeof ticks) {
		sm_error_set(err, SM_ERR_LAUNCH_FAILED,
			     "the guest did not start the shell within %ld s (%s)",
			     boot_timeout_ms(vm->accel) / 1000,
			     vm->booted ? "booted, no answer" : "boot hung");
		return -1;
	}
	return 0;
}

static void microvm_resize(struct launch_result *res, int rows, int cols)
{
	char line[64];
	int n;

	/* Before "ready" too: the line queues behind the launch message,
	 * and the agent applies it right after starting the shell. */
	if (vm_of(res) == NULL)
		return;
	n = snprintf(line, sizeof line, "resize %d %d\n", rows, cols);
	if (send(vm_of(res)->ctl, line, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) != n)
		log_warn("microvm: resize to %dx%d not sent: %s", cols, rows, strerror(errno));
}

/* The guest agent's next report of the guest's own refusals (source
 * "guest"), else one line of the guards' pipe ("ACTION<TAB>TARGET",
 * source "host"), or 0.  A line comes from a diod or qemu the guest may
 * have driven, so it is only ever data: an action not of the four the
 * guards write is dropped. */
static int microvm_next_violation(struct launch_result *res, char *action, size_t action_size,
				  char *target, size_t target_size, const char **source)
{
	static const char *const actions[] = {"file-read*", "file-write*", "file-write-create",
					      "network-outbound"};
	struct microvm_vm *vm = vm_of(res);
	struct sm_error err = {0};

	*source = "host";
	/* The agent's lines after "ready": its reports of the guest's own
	 * refusals, queued by handle_line. */
	if (vm != NULL && vm->ctl >= 0 && res->confirmed)
		read_ctl(res, &err);
	if (vm != NULL && vm->nguest > 0) {
		snprintf(action, action_size, "%s", vm->guest[0].action);
		snprintf(target, target_size, "%s", vm->guest[0].target);
		vm->nguest--;
		memmove(&vm->guest[0], &vm->guest[1], (size_t)vm->nguest * sizeof vm->guest[0]);
		*source = "guest";
		return 1;
	}

	while (vm != NULL && vm->report >= 0) {
		char *nl = memchr(vm->report_line, '\n', vm->report_len);
		ssize_t n;

		if (nl != NULL) {
			char *tab;
			size_t line = (size_t)(nl - vm->report_line);
			int found = 0;

			*nl = '\0';
			tab = strchr(vm->report_line, '\t');
			for (size_t i = 0; tab != NULL && i < sizeof actions / sizeof actions[0]; i++)
				if ((size_t)(tab - vm->report_line) == strlen(actions[i]) &&
				    strncmp(vm->report_line, actions[i], strlen(actions[i])) == 0) {
					snprintf(action, action_size, "%s", actions[i]);
					snprintf(target, target_size, "%s", tab + 1);
					found = 1;
				}
			vm->report_len -= line + 1;
			memmove(vm->report_line, nl + 1, vm->report_len);
			if (found)
				return 1;
			continue;
		}
		if (vm->report_len == sizeof vm->report_line)
			vm->report_len = 0; /* an overlong line is dropped */
		n = read(vm->report, vm->report_line + vm->report_len,
			 sizeof vm->report_line - vm->report_len);
		if (n <= 0)
			return 0;
		vm->report_len += (size_t)n;
	}
	return 0;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int microvm_suspend(struct launch_result *res)
{
	return vm_of(res) != NULL && !vm_of(res)->on_disk
		   ? qmp_command(&vm_of(res)->qmp, "{\"execute\":\"stop\"}\n")
		   : -1;
}

/* How long a save or a restore may take: ~0.5 s each for a 256 MiB
 * guest here (~70 MB of state), far more on a loaded host. */
#define DISK_DEADLINE_MS 60000

/* qemu saves the stopped VM into fd (QMP getfd + migrate "fd:"; qemu
 * 7.2 has no "file:" migration).  0 once the state is complete. */
static int save_state(struct microvm_vm *vm, int fd, struct sm_error *err)
{
	long long deadline = mono_ms() + DISK_DEADLINE_MS;
	char status[32] = "";

	if (qmp_call(&vm->qmp,
		     "{\"execute\":\"getfd\",\"arguments\":{\"fdname\":\"sandmux-state\"}}\n", fd,
		     NULL) != 0 ||
	    qmp_command(&vm->qmp,
			"{\"execute\":\"migrate\",\"arguments\":{\"uri\":\"fd:sandmux-state\"}}"
			"\n") != 0) {
		sm_error_set(err, SM_ERR_FAILED, "qemu refused to save the VM");
		return -1;
	}
	while (mono_ms() < deadline) {
		if (qmp_status(&vm->qmp, "{\"execute\":\"query-migrate\"}\n", status,
			       sizeof status) != 0)
			break;
		if (strcmp(status, "completed") == 0)
			return fsync(fd) == 0 ? 0 : (sm_error_set(err, SM_ERR_FAILED,
						"cannot write the VM's state: %s", strerror(errno)), -1);
		if (strcmp(status, "failed") == 0 || strcmp(status, "cancelled") == 0)
			break;
		usleep(20000);
	}
	sm_error_set(err, SM_ERR_FAILED, "qemu did not save the VM (migration %s)",
		     status[0] != '\0' ? status : "not answered");
	return -1;
}

/* qemu told to quit, waited for (bounded), killed if it does not. */
static void qemu_end(pid_t pid, struct microvm_vm *vm)
{
	long long deadline = mono_ms() + 5000;

	qmp_command(&vm->qmp, "{\"execute\":\"quit\"}\n");
	while (waitpid(pid, NULL, WNOHANG) == 0) {
		if (mono_ms() >= deadline) {
			kill(pid, SIGKILL);
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
			return;
		}
		usleep(10000);
	}
}

/* suspend --to-disk: the VM stopped, its whole state (RAM, devices, the
 * guest's side of the shares) written to path, and qemu ended, so the
 * pane holds no VM memory.  What stays: the PTY (an open of its slave,
 * so the pane's terminal does not hang up), the shares' servers with
 * their 9p sessions, the control channel's launch state.  res->pid is 0
 * until resume: there is no process to signal or reap. */
static int microvm_suspend_to_disk(struct launch_result *res, const char *path,
				   struct sm_error *err)
{
	struct microvm_vm *vm = vm_of(res);
	char slave[128];
	int fd;

	if (vm == NULL || vm->on_disk || res->pid <= 0) {
		sm_error_set(err, SM_ERR_INVALID_STATE, "the VM is not running");
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		sm_error_set(err, SM_ERR_FAILED, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	if (qmp_command(&vm->qmp, "{\"execute\":\"stop\"}\n") != 0) {
		sm_error_set(err, SM_ERR_FAILED, "qemu did not stop the VM");
		goto fail;
	}
	if (save_state(vm, fd, err) != 0) {
		qmp_command(&vm->qmp, "{\"execute\":\"cont\"}\n");
		goto fail;
	}
	close(fd);
	if (ptsname_r(res->master, slave, sizeof slave) != 0 ||
	    (vm->slave_hold = open(slave, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		sm_error_set(err, SM_ERR_FAILED, "cannot hold the pane's terminal: %s",
			     strerror(errno));
		unlink(path);
		qmp_command(&vm->qmp, "{\"execute\":\"cont\"}\n");
		return -1;
	}
	snprintf(vm->state_path, sizeof vm->state_path, "%s", path);
	qemu_end(res->pid, vm);
	close(vm->qmp.fd);
	vm->qmp.fd = -1;
	vm->on_disk = true;
	log_info("microvm: qemu pid %d saved to %s and ended", (int)res->pid, path);
	res->pid = res->child_pid = 0;
	return 0;
fail:
	close(fd);
	unlink(path);
	return -1;
}

/* resume after suspend --to-disk: a new qemu on the same PTY, same
 * devices and shares, loading the state (-incoming fd:), then cont.
 * The guest goes on where it stopped: its mounts talk to the same diod
 * sessions, its shell is the same process. */
static int restore(struct launch_result *res, struct sm_error *err)
{
	const struct probe_result *probe = backend_probe_result();
	struct microvm_vm *vm = vm_of(res);
	long long deadline = mono_ms() + DISK_DEADLINE_MS;
	struct winsize ws = {0};
	char status[32] = "";
	int fd = open(vm->state_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0) {
		sm_error_set(err, SM_ERR_FAILED, "cannot open the saved VM %s: %s", vm->state_path,
			     strerror(errno));
		return -1;
	}
	ioctl(res->master, TIOCGWINSZ, &ws);
	if (vm_spawn(probe, vm, res->master, fd, ws.ws_row, ws.ws_col, res, err) != 0) {
		close(fd);
		return -1;
	}
	close(fd);
	while (mono_ms() < deadline &&
	       qmp_status(&vm->qmp, "{\"execute\":\"query-status\"}\n", status, sizeof status) ==
		   0 &&
	       strcmp(status, "inmigrate") == 0)
		usleep(20000);
	if (strcmp(status, "paused") != 0 && strcmp(status, "running") != 0) {
		sm_error_set(err, SM_ERR_FAILED, "qemu did not restore the VM (status %s)",
			     status[0] != '\0' ? status : "not answered");
		backend_kill_tree(res->pid, 0);
		while (waitpid(res->pid, NULL, 0) < 0 && errno == EINTR)
			;
		res->pid = 0;
		return -1;
	}
	if (strcmp(status, "paused") == 0 &&
	    qmp_command(&vm->qmp, "{\"execute\":\"cont\"}\n") != 0) {
		sm_error_set(err, SM_ERR_FAILED, "qemu did not continue the restored VM");
		return -1;
	}
	/* qemu's stdio set the terminal up again, output processing too. */
	pty_output_raw(res->master);
	res->child_pid = res->pid;
	close(vm->slave_hold);
	vm->slave_hold = -1;
	unlink(vm->state_path);
	vm->state_path[0] = '\0';
	vm->on_disk = false;
	/* The size may have changed while it was on disk. */
	microvm_resize(res, ws.ws_row, ws.ws_col);
	log_info("microvm: restored as qemu pid %d", (int)res->pid);
	return 0;
}

static int microvm_resume(struct launch_result *res, struct sm_error *err)
{
	if (vm_of(res) == NULL)
		return -1;
	if (vm_of(res)->on_disk)
		return restore(res, err);
	return qmp_command(&vm_of(res)->qmp, "{\"execute\":\"cont\"}\n");
}

/* --- the end -------------------------------------------------------------- */

static void microvm_destroy(struct launch_result *res)
{
	/* qemu is the whole VM: the guest and everything in it die with
	 * it; the shares' servers go in vm_free.  A VM on disk has no
	 * qemu (pid 0: kill(0) would be the server's own group). */
	if (res->pid > 0)
		backend_kill_tree(res->pid, 0);
	microvm_vm_free(vm_of(res));
	res->state = NULL;
	limits_group_free(res->limits);
	res->limits = NULL;
}

static int microvm_exit_code(struct launch_result *res, int status, char *reason, size_t size)
{
	struct microvm_vm *vm = vm_of(res);
	struct sm_error err = {0};
	int code = -1;

	if (vm == NULL)
		return -1;
	/* The agent's last words are in the socket before qemu ends. */
	read_ctl(res, &err);
	if (vm->shell_exit >= 0) {
		code = vm->shell_exit;
	} else if (res->confirmed) {
		if (WIFSIGNALED(status))
			snprintf(reason, size, "qemu died of signal %d", WTERMSIG(status));
		else
			snprintf(reason, size, "qemu exited with status %d before the shell did",
				 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	microvm_vm_free(vm);
	res->state = NULL;
	limits_group_free(res->limits);
	res->limits = NULL;
	return code;
}

/* --- the probe ------------------------------------------------------------ */

/* `qemu --version` answers in ~30 ms; a guest under working KVM reaches
 * its init in well under a second. */
#define QEMU_VERSION_TIMEOUT_MS 3000
#define KVM_CHECK_TIMEOUT_MS 4000

/* The slow part runs in a child process, not a thread of the server:
 * what it touches (qemu's output, scanf, a thread's stack and malloc
 * arena, the libc code of all that) is then the child's memory, gone
 * when it exits, and the server keeps only the answer.  The child
 * sends it whole over a pipe (one write, far below PIPE_BUF) and exits;
 * the server takes it at its SIGCHLD (backend_probe_reap, through .probe_settle) or,
 * when a request needs it first, waits for it.  The server's loop is
 * one thread, and so are the readers of the answer. */
struct microvm_answer {
	bool available;
	char reason[160], hint[160], tool[64], accel[8], kvm_reason[160];
};

static pid_t microvm_child = -1; /* the slow part, until its answer is taken */
static int microvm_answer_fd = -1;
static struct probe_result *answer_into; /* the result the answer completes */

/* Where the guest image is: $SANDMUX_MICROVM_DIR, else microvm/ beside
 * the binary (the build tree), else ../share/sandmux/microvm (make
 * install). */
static void microvm_image_dir(char *out, size_t size)
{
	const char *env = getenv("SANDMUX_MICROVM_DIR");
	char self[4096], probe_path[4200];
	const char *bin_dir;
	ssize_t n;
	struct stat st;

	if (env != NULL && env[0] != '\0') {
		snprintf(out, size, "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0) {
		snprintf(out, size, "/usr/local/share/sandmux/microvm");
		return;
	}
	self[n] = '\0';
	bin_dir = dirname(self);
	snprintf(out, size, "%s/microvm", bin_dir);
	snprintf(probe_path, sizeof probe_path, "%s/vmlinux", out);
	if (stat(probe_path, &st) != 0) {
		char up[4200];

		snprintf(up, sizeof up, "%s/../share/sandmux/microvm", bin_dir);
		snprintf(probe_path, sizeof probe_path, "%s/vmlinux", up);
		if (stat(probe_path, &st) == 0)
			snprintf(out, size, "%s", up);
	}
}

/* "qemu 7.2.22" from "QEMU emulator version 7.2.22 (Debian ...)". */
static int qemu_version(const char *qemu, char *out, size_t size)
{
	char *const argv[] = {(char *)qemu, "--version", NULL};
	char buf[512], version[64];
	const char *at;

	if (probe_run_capture_for(argv, buf, sizeof buf, QEMU_VERSION_TIMEOUT_MS) != 0)
		return -1;
	at = strstr(buf, "version ");
	if (at == NULL || sscanf(at + 8, "%63s", version) != 1)
		return -1;
	snprintf(out, size, "qemu %s", version);
	return 0;
}

/* Does KVM boot the guest image here?  0 yes; -1 no, why in reason. */
static int kvm_boots(const struct probe_result *r, char *reason, size_t size)
{
	struct strvec argv = STRVEC_INIT;
	char output[4096];
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		snprintf(reason, size, "/dev/kvm: %s", strerror(errno));
		return -1;
	}
	close(fd);
	if (microvm_probe_argv(r->microvm.qemu_path, r->microvm.dir, &argv) != 0) {
		strvec_free(&argv);
		snprintf(reason, size, "out of memory");
		return -1;
	}
	probe_run_capture_for(argv.v, output, sizeof output, KVM_CHECK_TIMEOUT_MS);
	strvec_free(&argv);
	if (strstr(output, "sandmux-probe-ok") != NULL)
		return 0;
	probe_first_line(output);
	if (output[0] != '\0')
		snprintf(reason, size, "KVM cannot boot the guest here: %.100s", output);
	else
		snprintf(reason, size, "KVM did not boot the guest within %d s",
			 KVM_CHECK_TIMEOUT_MS / 1000);
	return -1;
}

/* The slow part, in the child: qemu's version, then the accelerator. */
static void microvm_answer_find(const struct probe_result *r, void *answer)
{
	struct microvm_answer *a = answer;
	const char *accel = getenv("SANDMUX_MICROVM_ACCEL");
	bool kvm = false;

	if (qemu_version(r->microvm.qemu_path, a->tool, sizeof a->tool) != 0) {
		snprintf(a->reason, sizeof a->reason, "%.120s --version failed",
			 r->microvm.qemu_path);
		snprintf(a->hint, sizeof a->hint, "apt-get install qemu-system-x86");
		return;
	}
	a->available = true;
	if (accel != NULL && strcmp(accel, "tcg") == 0)
		snprintf(a->kvm_reason, sizeof a->kvm_reason, "not tried: SANDMUX_MICROVM_ACCEL=tcg");
	else
		kvm = kvm_boots(r, a->kvm_reason, sizeof a->kvm_reason) == 0;
	snprintf(a->accel, sizeof a->accel, "%s", kvm ? "kvm" : "tcg");
}

/* The child's answer into the probe's result, once; block: wait for the child,
 * else only take an answer that is already there.  A child that died
 * without answering leaves microvm unavailable, saying so. */
static void microvm_answer_take(bool block)
{
	struct probe_result *r = answer_into;
	struct microvm_answer a;
	int got = probe_answer_take(&microvm_child, &microvm_answer_fd, &a, sizeof a, block);

	if (got < 0)
		return;
	if (got == 0) {
		snprintf(r->microvm.reason, sizeof r->microvm.reason,
			 "the qemu check ended without an answer");
	} else if (a.available) {
		snprintf(r->microvm.tool, sizeof r->microvm.tool, "%s", a.tool);
		snprintf(r->microvm.accel, sizeof r->microvm.accel, "%s", a.accel);
		snprintf(r->microvm.kvm_reason, sizeof r->microvm.kvm_reason, "%s", a.kvm_reason);
		r->microvm.available = true;
	} else {
		snprintf(r->microvm.reason, sizeof r->microvm.reason, "%s", a.reason);
		snprintf(r->microvm.hint, sizeof r->microvm.hint, "%s", a.hint);
	}
	log_info("microvm: %s%s%s%s", r->microvm.available ? "available, " : "unavailable: ",
		 r->microvm.available ? r->microvm.accel : r->microvm.reason,
		 r->microvm.kvm_reason[0] ? "; kvm: " : "", r->microvm.kvm_reason);
}

static void microvm_answer_start(struct probe_result *r)
{
	if (probe_answer_start(r, microvm_answer_find, sizeof(struct microvm_answer),
			       &microvm_child, &microvm_answer_fd) != 0)
		snprintf(r->microvm.reason, sizeof r->microvm.reason, "cannot start the qemu check");
}

static void probe_microvm(struct probe_result *r, bool sandbox_off)
{
	char dir[PATH_MAX], kernel[4200], initrd[4200];
	struct stat st;

	r->microvm.available = false;
	microvm_image_dir(dir, sizeof dir);
	r->microvm.dir = probe_keep_path(dir);
	if (sandbox_off) {
		snprintf(r->microvm.reason, sizeof r->microvm.reason, "disabled by --sandbox off");
		return;
	}
	if (probe_find_kept("qemu-system-x86_64", getenv("PATH"), &r->microvm.qemu_path) != 0) {
		snprintf(r->microvm.reason, sizeof r->microvm.reason,
			 "qemu-system-x86_64 not found on PATH");
		snprintf(r->microvm.hint, sizeof r->microvm.hint, "apt-get install qemu-system-x86");
		return;
	}
	/* diod serves the guest its files (microvm.c says why not qemu's
	 * own 9p); Debian puts it in /usr/sbin, which a user's PATH lacks. */
	if (probe_find_kept("diod", getenv("PATH"), &r->microvm.diod_path) != 0 &&
	    probe_find_kept("diod", "/usr/sbin:/sbin", &r->microvm.diod_path) != 0) {
		snprintf(r->microvm.reason, sizeof r->microvm.reason,
			 "diod (the guest's file server) not found");
		snprintf(r->microvm.hint, sizeof r->microvm.hint, "apt-get install diod");
		return;
	}
	snprintf(kernel, sizeof kernel, "%s/vmlinux", r->microvm.dir);
	snprintf(initrd, sizeof initrd, "%s/initramfs.cpio", r->microvm.dir);
	if (stat(kernel, &st) != 0 || stat(initrd, &st) != 0) {
		snprintf(r->microvm.reason, sizeof r->microvm.reason, "guest image missing: %.120s",
			 stat(kernel, &st) != 0 ? kernel : initrd);
		snprintf(r->microvm.hint, sizeof r->microvm.hint, "make microvm-image");
		return;
	}
	snprintf(r->microvm.reason, sizeof r->microvm.reason, "qemu not checked");
	microvm_answer_start(r);
}

/* The microvm backend's .probe: qemu, diod and the guest image at once,
 * qemu's version and the accelerator in a child (above).  A check still
 * running from an earlier probe is waited for first. */
static void microvm_probe(struct probe_result *r)
{
	microvm_answer_take(true);
	r->microvm.qemu_path = r->microvm.diod_path = r->microvm.dir = "";
	answer_into = r;
	probe_microvm(r, r->sandbox_off);
}

/* The microvm backend's .probe_settle. */
static void microvm_probe_settle(bool block)
{
	microvm_answer_take(block);
}

static int microvm_check(const struct probe_result *probe, struct sm_error *err)
{
	const struct microvm_probe *m = &probe->microvm;

	/* A request that arrives while the accelerator check still runs
	 * waits for it: the answer decides the label. */
	if (!probe->sandbox_off)
		microvm_answer_take(true);
	return backend_check_record("microvm", probe->sandbox_off, m->available, m->reason,
				    m->hint, true, err);
}

const struct backend_ops backend_microvm_ops = {
    .name = "microvm",
    .id = SANDBOX_MICROVM,
    .launch = microvm_launch,
    .confirm = microvm_confirm,
    .suspend = microvm_suspend,
    .suspend_to_disk = microvm_suspend_to_disk,
    .resume = microvm_resume,
    .destroy = microvm_destroy,
    .resize = microvm_resize,
    .exit_code = microvm_exit_code,
    .next_violation = microvm_next_violation,
    .check = microvm_check,
    .probe = microvm_probe,
    .probe_settle = microvm_probe_settle,
};
