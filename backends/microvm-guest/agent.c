/*
 * The microvm guest agent: /init of the guest's initramfs (built static,
 * libc only, by make microvm-image; backends/microvm.c is the host side).
 *
 * It loads the modules the kernel needs (in the order the image listed
 * them), finds the control port (a virtserialport named sandmux.ctl), says
 * "booted", then reads the world message (the server's user name, the
 * work tree, the network, and, for a prepared VM, the files to copy in
 * ahead) and builds the world: all of it depends on the VM's key, none
 * of it on the pane, so a prepared VM has it ready before any launch.
 * Then it waits for one launch message: the nonce, the shell's argv,
 * environment, uid/gid, working directory, terminal size, the deny-read
 * paths and the paths kept read-only, which go on before the shell
 * starts:
 *
 *   - the host's root (exported read-only by its 9p server on the host,
 *     port sandmux.root) becomes the guest's root; the work tree (port
 *     sandmux.work) is mounted over its own path; fresh /proc,
 *     /dev, /dev/pts, /tmp.  Each share is 9p over a virtio serial port,
 *     not qemu's own virtio-9p, because qemu 7.2 refuses to save a VM
 *     while a virtio-9p export is mounted (suspend --to-disk): a port is
 *     plain bytes to qemu and migrates, the 9p state lives in the host's
 *     server, which outlives the qemu that is saved.  The kernel's fd
 *     transport cannot write to a virtio port (no write_iter), so a relay
 *     of the agent's copies between the port and a socket the kernel
 *     mounts;
 *   - a deny-read path the launch names is masked: a directory by an
 *     empty read-only tmpfs of mode 0000, anything else by an empty
 *     mode-0000 file bound read-only over it (not one holding the work
 *     tree).  The shares' servers refuse those paths themselves
 *     (microvm-host/diod-guard.c) whatever the guest does; the guest's
 *     own refusals are reported by the agent (watch.h);
 *   - paths kept read-only (host-run files inside the work tree) are
 *     bound read-only over themselves.  Threat: planting what the host
 *     runs later (invariant 7);
 *   - /proc/sys and /proc/sysrq-trigger are read-only, module loading
 *     and kexec switched off, and the shell in a control group of its
 *     own with a process limit (lock_kernel, make_shell_group);
 *   - the shell runs on /dev/hvc0 (the pane's PTY on the host) as its
 *     session leader with hvc0 as controlling terminal, so job control is
 *     the guest kernel's own; as the guest's user (uid and gid 1000,
 *     named in the guest's /etc/passwd and /etc/group: name_guest_users),
 *     whatever uid the server has, with every capability dropped and
 *     no_new_privs.
 *
 * The shell runs under a seccomp filter whose notifications the agent
 * answers, so that the guest's own refusals reach the pane's feed as
 * "violation ACTION PATH" lines (watch.h says how).
 *
 * Only once execve of the shell succeeded (its CLOEXEC pipe closed with
 * nothing written) does the agent send "ready NONCE PID": the host
 * labels the pane on that line, the nonce proving it came from this agent
 * in answer to this launch.  The shell cannot forge it: the agent holds
 * the only open of the port.  Afterwards the agent applies "resize R C"
 * to hvc0 (TIOCSWINSZ: the guest kernel signals the foreground job), and
 * when the shell exits sends "exit STATUS" and reboots, which ends qemu
 * (-no-reboot).
 *
 * With "sandmux.probe" on the kernel command line it only writes
 * "sandmux-probe-ok" to hvc0 and reboots: the host's check that an
 * accelerator really boots this kernel.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <net/route.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/capability.h>

#include "watch.h"

#define MAX_ITEMS 256
#define LINE_MAX_LEN 8192

struct launch {
	char nonce[80];
	char user[64]; /* the name of the shell's uid in the guest */
	char *argv[MAX_ITEMS + 1], *envp[MAX_ITEMS + 1];
	char *deny[MAX_ITEMS + 1], *readonly[MAX_ITEMS + 1];
	int nargv, nenvp, ndeny, nreadonly;
	char *warm[MAX_ITEMS + 1]; /* files to copy in ahead (a prepared VM) */
	int nwarm;
	char cwd[4096];
	unsigned uid, gid;
	int rows, cols;
	int work; /* a work tree is shared (port sandmux.work) */
	int work_ro;
	char work_path[4096]; /* the host's path of it: the 9p aname and the mount point */
	char net[16]; /* "", "open", "proxied" */
	/* Tests only (SANDMUX_TEST_GUEST_ROOT on the host): the shell keeps
	 * uid 0 and every capability, the attacker the host's side of each
	 * share must stop on its own. */
	int guest_root;
};

static int ctl = -1;
static int shell_group = -1; /* the shell's control group (make_shell_group) */
static int shell_watch = -1; /* the shell's seccomp listener (watch.h) */

static void say(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof buf - 2)
		n = sizeof buf - 2;
	buf[n++] = '\n';
	if (ctl >= 0 && write(ctl, buf, (size_t)n) < 0)
		return;
}

static void die(const char *what)
{
	int e = errno;

	say("fail %s: %s", what, strerror(e));
	sync();
	reboot(RB_AUTOBOOT);
	_exit(1);
}

static void load_modules(void)
{
	FILE *order = fopen("/modules/order", "re");
	char name[256], path[300];

	if (order == NULL)
		return;
	while (fgets(name, sizeof name, order) != NULL) {
		int fd;

		name[strcspn(name, "\n")] = '\0';
		snprintf(path, sizeof path, "/modules/%s", name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* EEXIST: built in after all; anything else shows later
		 * as a missing device, which is reported. */
		syscall(SYS_finit_module, fd, "", 0);
		close(fd);
	}
	fclose(order);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* /dev/vportNpM of the port named name: the host names it, the guest
 * kernel reports names in sysfs once the host's control message came. */
static int open_port(const char *want)
{
	long deadline = now_ms() + 5000;

	while (now_ms() < deadline) {
		DIR *d = opendir("/sys/class/virtio-ports");
		struct dirent *de;

		while (d != NULL && (de = readdir(d)) != NULL) {
			char path[300], name[64] = "";
			FILE *f;

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof path, "/sys/class/virtio-ports/%s/name", de->d_name);
			f = fopen(path, "re");
			if (f == NULL)
				continue;
			if (fgets(name, sizeof name, f) == NULL)
				name[0] = '\0';
			fclose(f);
			name[strcspn(name, "\n")] = '\0';
			if (strcmp(name, want) == 0) {
				int fd;

				snprintf(path, sizeof path, "/dev/%s", de->d_name);
				fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
				if (fd >= 0) {
					closedir(d);
					return fd;
				}
			}
		}
		if (d != NULL)
			closedir(d);
		usleep(5000);
	}
	return -1;
}

/* %HH escapes back into bytes, in place. */
static char *unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r != '\0'; r++) {
		if (r[0] == '%' && r[1] != '\0' && r[2] != '\0') {
			char hex[3] = {r[1], r[2], '\0'};

			*w++ = (char)strtol(hex, NULL, 16);
			r += 2;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
	return s;
}

static char pending[LINE_MAX_LEN * 2]; /* read from the port, not yet a line */
static size_t pending_len;

/* A whole line is already read (the host may send a resize right
 * behind the launch): poll would not say so. */
static int line_buffered(void)
{
	return memchr(pending, '\n', pending_len) != NULL;
}

/* One line from the control port; 0 at EOF. */
static int read_line(char *buf, size_t size)
{
	for (;;) {
		char *nl = memchr(pending, '\n', pending_len);
		ssize_t n;

		if (nl != NULL) {
			size_t line = (size_t)(nl - pending);

			if (line >= size)
				line = size - 1;
			memcpy(buf, pending, line);
			buf[line] = '\0';
			pending_len -= (size_t)(nl - pending) + 1;
			memmove(pending, nl + 1, pending_len);
			return 1;
		}
		if (pending_len == sizeof pending)
			pending_len = 0; /* an overlong line is dropped whole */
		n = read(ctl, pending + pending_len, sizeof pending - pending_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		pending_len += (size_t)n;
	}
}

static void push(char **list, int *n, const char *value)
{
	if (*n < MAX_ITEMS) {
		list[(*n)++] = strdup(value);
		list[*n] = NULL;
	}
}

/* "key value" lines into l until the line end (the world message ends
 * with "world", the launch with "go"). */
static void read_message(struct launch *l, const char *end)
{
	char line[LINE_MAX_LEN];

	while (read_line(line, sizeof line)) {
		char *value = strchr(line, ' ');

		if (strcmp(line, end) == 0)
			return;
		if (value == NULL)
			continue;
		*value++ = '\0';
		unescape(value);
		if (strcmp(line, "nonce") == 0)
			snprintf(l->nonce, sizeof l->nonce, "%s", value);
		else if (strcmp(line, "arg") == 0)
			push(l->argv, &l->nargv, value);
		else if (strcmp(line, "env") == 0)
			push(l->envp, &l->nenvp, value);
		else if (strcmp(line, "deny") == 0)
			push(l->deny, &l->ndeny, value);
		else if (strcmp(line, "ro") == 0)
			push(l->readonly, &l->nreadonly, value);
		else if (strcmp(line, "warm") == 0)
			push(l->warm, &l->nwarm, value);
		else if (strcmp(line, "user") == 0)
			snprintf(l->user, sizeof l->user, "%s", value);
		else if (strcmp(line, "cwd") == 0)
			snprintf(l->cwd, sizeof l->cwd, "%s", value);
		else if (strcmp(line, "uid") == 0)
			l->uid = (unsigned)strtoul(value, NULL, 10);
		else if (strcmp(line, "gid") == 0)
			l->gid = (unsigned)strtoul(value, NULL, 10);
		else if (strcmp(line, "size") == 0)
			sscanf(value, "%d %d", &l->rows, &l->cols);
		else if (strcmp(line, "work") == 0) {
			/* "rw PATH" or "ro PATH" */
			l->work = 1;
			l->work_ro = strncmp(value, "ro", 2) == 0;
			snprintf(l->work_path, sizeof l->work_path, "%s",
				 strlen(value) > 3 ? value + 3 : "/");
		} else if (strcmp(line, "net") == 0)
			snprintf(l->net, sizeof l->net, "%s", value);
		else if (strcmp(line, "guest-root") == 0)
			l->guest_root = strcmp(value, "1") == 0;
	}
	errno = EPIPE;
	die(strcmp(end, "go") == 0 ? "control channel closed before launch"
				   : "control channel closed before the world message");
}


static void mount_or_die(const char *src, const char *dst, const char *type, unsigned long flags,
			 const char *data)
{
	if (mount(src, dst, type, flags, data) != 0) {
		char what[512];

		snprintf(what, sizeof what, "mount %s on %s", type != NULL ? type : src, dst);
		die(what);
	}
}

static void make_dirs(char *path)
{
	for (char *p = strchr(path + 1, '/'); p != NULL; p = strchr(p + 1, '/')) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

/* One direction of a share's relay: bytes from one fd to the other,
 * for the VM's life.  A port whose host side is not connected reads 0
 * (between a save and its restore the guest does not run at all, but a
 * restored qemu connects its end a moment after the guest resumes). */
static void relay_copy(int from, int to)
{
	static char buf[65536];

	for (;;) {
		ssize_t n = read(from, buf, sizeof buf);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			usleep(10000);
			continue;
		}
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(to, buf + off, (size_t)(n - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				_exit(1);
			off += w;
		}
	}
}

/* The kernel's end of a share: a socket whose other end two relay
 * processes join to the port (one per direction, so neither can block
 * the other).  They are the agent's children, uid 0 and not dumpable
 * (inherited from main), so the shell, without capabilities, can
 * neither ptrace them nor reach their fds: the only way to the host's
 * 9p servers is the guest kernel's mounts, with the masks above them. */
static int share_socket(const char *port_name)
{
	int port = open_port(port_name), sv[2];

	if (port < 0) {
		errno = ENODEV;
		die(port_name);
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		die("socketpair");
	for (int dir = 0; dir < 2; dir++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0) {
			close(sv[0]);
			if (ctl >= 0)
				close(ctl);
			signal(SIGCHLD, SIG_DFL);
			if (dir == 0)
				relay_copy(port, sv[1]);
			relay_copy(sv[1], port);
		}
	}
	close(port);
	close(sv[1]);
	return sv[0];
}

/* 9p over the fd transport, one attach whoever asks in the guest
 * (access=any).  The host's server squashes every attach to the one id
 * it serves as (diod -S): the name only has to be one its user database
 * knows, and says nothing. */
static void mount_share(const char *port_name, const char *aname, const char *dst,
			unsigned long flags, const char *cache)
{
	char opts[4400];
	int fd = share_socket(port_name);

	snprintf(opts, sizeof opts,
		 "trans=fd,rfdno=%d,wfdno=%d,version=9p2000.L,msize=262144,access=any,"
		 "uname=root,cache=%s,aname=%s",
		 fd, fd, cache, aname);
	mount_or_die(port_name, dst, "9p", flags, opts);
	/* The mount holds its own reference. */
	close(fd);
}

/* The host-wide writers of /proc, read-only for the shell. */
static const char *const proc_read_only[] = {"sys", "sysrq-trigger"};

/* The pane's world: host root, work tree, fresh kernel file systems. */
static void build_root(const struct launch *l)
{
	char dst[4200];

	/* nosuid: a host file's set-user-ID bit names the host's owner,
	 * which is another uid in the guest (the server's is the guest
	 * user's), and means nothing to the shell (no_new_privs). */
	mount_share("sandmux.root", "/", "/newroot", MS_RDONLY | MS_NODEV | MS_NOSUID, "loose");
	mount_or_die("proc", "/newroot/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	/* Threat: uid 0 in the guest (the server's uid when it is root)
	 * writing the kernel's settings, which /proc checks by owner alone
	 * (kernel.core_pattern = |helper runs the helper with every
	 * capability), or the sysrq trigger.  Read-only binds, which the
	 * shell without CAP_SYS_ADMIN cannot remount.  A second line: the
	 * host's side of the shares and network holds without it. */
	for (size_t i = 0; i < sizeof proc_read_only / sizeof proc_read_only[0]; i++) {
		char path[64];

		snprintf(path, sizeof path, "/newroot/proc/%s", proc_read_only[i]);
		if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) != 0 ||
		    mount(NULL, path, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV |
						  MS_NOEXEC,
			  NULL) != 0)
			die(path);
	}
	mount_or_die("devtmpfs", "/newroot/dev", "devtmpfs", MS_NOSUID | MS_NOEXEC, NULL);
	mkdir("/newroot/dev/pts", 0755);
	mount_or_die("devpts", "/newroot/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
		     "newinstance,ptmxmode=0666,mode=0620");
	/* ptmx of the new devpts instance, not the initial one. */
	unlink("/newroot/dev/ptmx");
	if (symlink("pts/ptmx", "/newroot/dev/ptmx") != 0)
		die("symlink /dev/ptmx");
	mkdir("/newroot/dev/shm", 01777);
	mount("tmpfs", "/newroot/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
	mount("sysfs", "/newroot/sys", "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	mount_or_die("tmpfs", "/newroot/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
	/* After the private /tmp, so a work tree under /tmp stays visible:
	 * its mount point is made in the new tmpfs. */
	if (l->work) {
		/* At the work tree's own (resolved) path: the host resolved
		 * the working directory to it, and any spelling of the
		 * working directory leads there through the host's root. */
		snprintf(dst, sizeof dst, "/newroot%s", l->work_path);
		if (strncmp(l->work_path, "/tmp/", 5) == 0)
			make_dirs(dst);
		mount_share("sandmux.work", l->work_path, dst,
			    MS_NODEV | MS_NOSUID | (l->work_ro ? MS_RDONLY : 0), "mmap");
	}
	/* switch_root: the initramfs stays underneath, unreachable. */
	if (chdir("/newroot") != 0 || mount(".", "/", NULL, MS_MOVE, NULL) != 0 ||
	    chroot(".") != 0 || chdir("/") != 0)
		die("switch to the host root");
}

/* A prepared VM copies what the last pane's shell needs (its binary,
 * libraries, terminfo, locale; the host's list, microvm-warm.c) into a
 * tmpfs of its own and binds each copy read-only over its path, so the
 * next launch's exec and shell start open them without a round trip
 * through the share: under TCG each 9p request costs milliseconds, and
 * even a file in the page cache costs a walk, an open and a clunk.  A
 * copy has the host file's mode, owner and times; the host checks at
 * the launch that none of the files changed since (else the launch
 * boots a fresh VM), so the copies are what the host has.  Only content
 * is placed: which paths the shell may open is still decided by the
 * launch's masks, which go on top (a listed path the launch masks is
 * masked over its copy, a masked directory hides the copies in it).
 * warm_dir: the tmpfs, mounted before the switch and reachable only
 * through this fd. */
static void copy_ahead(const struct launch *l, int warm_dir)
{
	/* The new mount API (linux/mount.h, not included: its MS_ names
	 * clash with sys/mount.h): a clone of the copy, made read-only,
	 * nosuid and nodev before it is attached, then attached on the very
	 * file opened and checked below, not on a path looked up again. */
	enum { OPEN_TREE_CLONE = 1, MOVE_MOUNT_F_EMPTY_PATH = 4, MOVE_MOUNT_T_EMPTY_PATH = 0x40 };
	struct {
		unsigned long long attr_set, attr_clr, propagation, userns_fd;
	} attr = {.attr_set = 0x1 | 0x2 | 0x4}; /* MOUNT_ATTR_RDONLY | NOSUID | NODEV */
	static char buf[1 << 16];
	struct stat root;

	if (stat("/", &root) != 0)
		return;
	for (int i = 0; i < l->nwarm; i++) {
		int in = -1, out = -1, tree = -1;
		char name[32] = "";
		struct stat st;

		in = open(l->warm[i], O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		/* Decided on the final object: a regular file of the host
		 * root's share itself, so never one of the work tree (its
		 * own mount: the pane must write the host's file, not a
		 * copy) nor of the guest's /tmp, whatever symlink led here. */
		if (in < 0 || fstat(in, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != root.st_dev)
			goto next;
		snprintf(name, sizeof name, "%d", i);
		out = openat(warm_dir, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (out < 0)
			goto next;
		for (;;) {
			ssize_t n = read(in, buf, sizeof buf);

			if (n == 0)
				break;
			if (n < 0 || write(out, buf, (size_t)n) != n)
				goto next;
		}
		{
			struct timespec times[2] = {st.st_atim, st.st_mtim};

			if (fchown(out, st.st_uid, st.st_gid) != 0 ||
			    fchmod(out, st.st_mode & 07777) != 0 || futimens(out, times) != 0)
				goto next;
		}
		tree = (int)syscall(SYS_open_tree, out, "", OPEN_TREE_CLONE | AT_EMPTY_PATH | O_CLOEXEC);
		if (tree < 0 || syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr, sizeof attr) != 0)
			goto next;
		syscall(SYS_move_mount, tree, "", in, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
	next:
		/* A clone never attached goes with its fd; the tmpfs file
		 * stays only as long as a mount holds it. */
		if (tree >= 0)
			close(tree);
		if (in >= 0)
			close(in);
		if (out >= 0)
			close(out);
		if (name[0] != '\0')
			unlinkat(warm_dir, name, 0);
	}
}

/* The host's user database file path, copied into fd (a file of the
 * initramfs) with entry in place of any line of the same name or id,
 * and bound read-only over path.  The shell's uid is the guest's user
 * (the host's guest_ids_argv in microvm.c), which the host's files do not
 * name: without it the shell is "I have no name!" and tools that ask
 * for the user's home get none. */
static void name_guest_user(const char *path, int fd, const char *name, unsigned id,
			    const char *entry)
{
	char line[4096], source[64], idfield[32];
	FILE *in = fopen(path, "re"), *out = fdopen(dup(fd), "w");
	size_t n = strlen(name);

	if (in == NULL || out == NULL) {
		if (in != NULL)
			fclose(in);
		if (out != NULL)
			fclose(out);
		return;
	}
	snprintf(idfield, sizeof idfield, "%u:", id);
	while (fgets(line, sizeof line, in) != NULL) {
		const char *field = strchr(line, ':');

		field = field != NULL ? strchr(field + 1, ':') : NULL;
		if ((strncmp(line, name, n) == 0 && line[n] == ':') ||
		    (field != NULL && strncmp(field + 1, idfield, strlen(idfield)) == 0))
			continue;
		fputs(line, out);
	}
	fprintf(out, "%s\n", entry);
	fclose(in);
	if (fclose(out) != 0)
		return;
	/* A prepared VM's copy of it (copy_ahead) goes first: its file is
	 * unlinked, and nothing mounts over an unlinked file. */
	umount2(path, MNT_DETACH);
	snprintf(source, sizeof source, "/proc/self/fd/%d", fd);
	if (mount(source, path, NULL, MS_BIND, NULL) != 0 ||
	    mount(NULL, path, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) != 0)
		die(path);
}

static void name_guest_users(const struct launch *l, const int user_db[2])
{
	const char *home = "/";
	char entry[4400];

	for (int i = 0; i < l->nenvp; i++)
		if (strncmp(l->envp[i], "HOME=", 5) == 0 && strchr(l->envp[i], ':') == NULL)
			home = l->envp[i] + 5;
	snprintf(entry, sizeof entry, "%s:x:%u:%u:sandmux guest:%s:/bin/sh", l->user, l->uid,
		 l->gid, home);
	name_guest_user("/etc/passwd", user_db[0], l->user, l->uid, entry);
	snprintf(entry, sizeof entry, "%s:x:%u:", l->user, l->gid);
	name_guest_user("/etc/group", user_db[1], l->user, l->gid, entry);
}

/* Masks and read-only binds, after the switch: paths resolve as the
 * shell will see them.  mask_fd is the initramfs's empty mode-0000 file. */
static void apply_policy(const struct launch *l, int mask_fd, int resolv_fd)
{
	char source[64];
	struct stat st;

	/* The host's resolver address means nothing in the guest; qemu's
	 * DNS does (open network only). */
	if (resolv_fd >= 0 && stat("/etc/resolv.conf", &st) == 0 && S_ISREG(st.st_mode)) {
		snprintf(source, sizeof source, "/proc/self/fd/%d", resolv_fd);
		if (mount(source, "/etc/resolv.conf", NULL, MS_BIND, NULL) != 0 ||
		    mount(NULL, "/etc/resolv.conf", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) != 0)
			die("/etc/resolv.conf");
	}

	snprintf(source, sizeof source, "/proc/self/fd/%d", mask_fd);
	for (int i = 0; i < l->nreadonly; i++) {
		struct stat st;

		if (stat(l->readonly[i], &st) != 0)
			continue;
		if (mount(l->readonly[i], l->readonly[i], NULL, MS_BIND | MS_REC, NULL) != 0 ||
		    mount(NULL, l->readonly[i], NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) != 0)
			die(l->readonly[i]);
		watch_read_only(l->readonly[i]);
	}
	for (int i = 0; i < l->ndeny; i++) {
		struct stat st;
		size_t n = strlen(l->deny[i]);

		/* Not one holding the work tree: the host's server refuses
		 * those itself, a mask would hide the work tree. */
		if (stat(l->deny[i], &st) != 0 ||
		    (l->work && strncmp(l->work_path, l->deny[i], n) == 0 &&
		     (l->work_path[n] == '/' || l->work_path[n] == '\0')))
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (mount("tmpfs", l->deny[i], "tmpfs",
				  MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=000,size=4k") != 0)
				die(l->deny[i]);
		} else if (mount(source, l->deny[i], NULL, MS_BIND, NULL) != 0 ||
			   mount(NULL, l->deny[i], NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) != 0) {
			die(l->deny[i]);
		}
		watch_masked(l->deny[i]);
	}
}

/* An interface up, with an address when addr is set. */
static int interface_up(int sock, const char *name, const char *addr, const char *mask)
{
	struct ifreq ifr;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;

	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
	if (addr != NULL) {
		sin->sin_family = AF_INET;
		inet_pton(AF_INET, addr, &sin->sin_addr);
		if (ioctl(sock, SIOCSIFADDR, &ifr) != 0)
			return -1;
		inet_pton(AF_INET, mask, &sin->sin_addr);
		if (ioctl(sock, SIOCSIFNETMASK, &ifr) != 0)
			return -1;
	}
	if (ioctl(sock, SIOCGIFFLAGS, &ifr) != 0)
		return -1;
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	return ioctl(sock, SIOCSIFFLAGS, &ifr);
}

/* qemu's user network: the guest is 10.0.2.15, the host's side 10.0.2.2,
 * its DNS 10.0.2.3, the egress proxies (guestfwd) 10.0.2.100.  "open"
 * routes everything through 10.0.2.2; "proxied" gets no default route
 * (qemu's restrict=on drops anything but the proxies anyway, and a
 * direct connection then fails at once instead of timing out). */
static void network_up(const struct launch *l)
{
	int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (sock < 0 || interface_up(sock, "lo", NULL, NULL) != 0)
		die("loopback up");
	if (l->net[0] != '\0' && interface_up(sock, "eth0", "10.0.2.15", "255.255.255.0") != 0)
		die("eth0 up");
	if (strcmp(l->net, "open") == 0) {
		struct rtentry rt;
		struct sockaddr_in *gw = (struct sockaddr_in *)&rt.rt_gateway;
		struct sockaddr_in *dst = (struct sockaddr_in *)&rt.rt_dst;
		struct sockaddr_in *mask = (struct sockaddr_in *)&rt.rt_genmask;

		memset(&rt, 0, sizeof rt);
		dst->sin_family = mask->sin_family = gw->sin_family = AF_INET;
		inet_pton(AF_INET, "10.0.2.2", &gw->sin_addr);
		rt.rt_flags = RTF_UP | RTF_GATEWAY;
		if (ioctl(sock, SIOCADDRT, &rt) != 0)
			die("default route");
	}
	close(sock);
}

/* Every capability gone for good, even for uid 0: the masks are
 * mode-0000 and read-only mounts, which only a capability gets past
 * (DAC override, or unmounting them with CAP_SYS_ADMIN). */
static int drop_privileges(const struct launch *l)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];

	if (setgroups(0, NULL) != 0 || setresgid(l->gid, l->gid, l->gid) != 0)
		return -1;
	for (int cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL)
			return -1;
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (setresuid(l->uid, l->uid, l->uid) != 0)
		return -1;
	memset(data, 0, sizeof data);
	if (syscall(SYS_capset, &hdr, data) != 0)
		return -1;
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

static int set_size(int fd, int rows, int cols)
{
	struct winsize ws = {.ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols};

	if (rows <= 0 || cols <= 0)
		return 0;
	return ioctl(fd, TIOCSWINSZ, &ws);
}

/* The shell on hvc0 as session leader.  Returns its pid once execve
 * succeeded; -1 (errno set, what says which step failed) if it did
 * not. */
static pid_t start_shell(const struct launch *l, char *what, size_t what_size)
{
	struct {
		int err, step;
	} failed;
	int pipefd[2];
	pid_t pid;
	ssize_t n;

	int watch[2];

	if (pipe2(pipefd, O_CLOEXEC) != 0 ||
	    socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, watch) != 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int tty = -1;
		char **env = (char **)l->envp;
		struct {
			int err, step;
		} failed = {0, 0};

		close(pipefd[0]);
		signal(SIGCHLD, SIG_DFL);
		if (setsid() < 0 || (failed.step = 1, tty = open("/dev/hvc0", O_RDWR)) < 0 ||
		    ioctl(tty, TIOCSCTTY, 0) != 0 || dup2(tty, 0) < 0 || dup2(tty, 1) < 0 ||
		    dup2(tty, 2) < 0)
			goto fail;
		if (tty > 2)
			close(tty);
		set_size(0, l->rows, l->cols);
		failed.step = 5;
		{
			int procs = openat(shell_group, "cgroup.procs", O_WRONLY | O_CLOEXEC);

			if (procs < 0 || write(procs, "0", 1) != 1)
				goto fail;
			close(procs);
		}
		failed.step = 2;
		if (!l->guest_root && drop_privileges(l) != 0)
			goto fail;
		failed.step = 6;
		if (!l->guest_root && watch_install(watch[1]) != 0)
			goto fail;
		failed.step = 3;
		if (chdir(l->cwd[0] ? l->cwd : "/") != 0)
			goto fail;
		failed.step = 4;
		environ = env;
		execvp(l->argv[0], l->argv);
	fail:
		failed.err = errno;
		if (write(pipefd[1], &failed, sizeof failed) < 0)
			_exit(127);
		_exit(127);
	}
	close(pipefd[1]);
	close(watch[1]);
	do
		n = read(pipefd[0], &failed, sizeof failed);
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	if (n > 0) {
		static const char *const steps[] = {"setsid",
						    "open /dev/hvc0 as the terminal",
						    "drop privileges",
						    "chdir to the working directory",
						    "exec",
						    "join the shell's control group",
						    "watch the shell's calls"};

		waitpid(pid, NULL, 0);
		snprintf(what, what_size, "%s%s%s", steps[failed.step], failed.step == 4 ? " " : "",
			 failed.step == 4 ? l->argv[0] : "");
		errno = failed.err;
		close(watch[0]);
		return -1;
	}
	/* Sent before the exec, so here now (none as guest root). */
	shell_watch = watch_receive(watch[0]);
	close(watch[0]);
	return pid;
}

static int signal_pipe[2] = {-1, -1};

/* One-way switches, once every module this guest needs is loaded.
 * Threat: guest root loading a module or a new kernel (kexec) to get
 * around what the guest itself holds (a second line: nothing on the
 * host depends on the guest kernel).  The core pattern is a plain file
 * name, never a pipe to a helper. */
static void lock_kernel(void)
{
	static const char *const settings[][2] = {
	    {"/proc/sys/kernel/core_pattern", "core"},
	    {"/proc/sys/kernel/kexec_load_disabled", "1"},
	    {"/proc/sys/kernel/modules_disabled", "1"},
	};

	for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++) {
		int fd = open(settings[i][0], O_WRONLY | O_CLOEXEC);

		if (fd < 0 || write(fd, settings[i][1], strlen(settings[i][1])) < 0)
			die(settings[i][0]);
		close(fd);
	}
}

/* The shell's control group: at most SHELL_PIDS_MAX processes.  Threat:
 * a fork loop filling the guest's process table and memory, which froze
 * a 256 MiB guest for minutes; the agent and the shares' relays stay
 * outside it, so the console, resize and exit still work.  Returns the
 * group's directory (the shell joins it before exec), -1 if the kernel
 * has no cgroup2 (the launch then fails: no unbounded shell). */
#define SHELL_PIDS_MAX "512"
static int make_shell_group(void)
{
	int fd;

	if ((mkdir("/cgroup", 0700) != 0 && errno != EEXIST) ||
	    mount("cgroup2", "/cgroup", "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
		die("mount cgroup2");
	fd = open("/cgroup/cgroup.subtree_control", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "+pids", 5) != 5)
		die("the pids controller");
	close(fd);
	if (mkdir("/cgroup/shell", 0700) != 0 && errno != EEXIST)
		die("mkdir /cgroup/shell");
	fd = open("/cgroup/shell/pids.max", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, SHELL_PIDS_MAX, strlen(SHELL_PIDS_MAX)) < 0)
		die("pids.max");
	close(fd);
	fd = open("/cgroup/shell", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		die("/cgroup/shell");
	return fd;
}


static void on_sigchld(int sig __attribute__((unused)))
{
	int saved = errno;

	if (write(signal_pipe[1], "c", 1) < 0)
		errno = saved;
	errno = saved;
}

static void handle_control(const char *line, int tty)
{
	int rows, cols;

	if (sscanf(line, "resize %d %d", &rows, &cols) == 2)
		set_size(tty, rows, cols);
}

/* Until the shell exits (its status) or the host goes away (-1):
 * resizes from the host, and every orphan reaped (this is pid 1). */
static int serve(pid_t shell)
{
	int tty = open("/dev/hvc0", O_RDWR | O_NOCTTY | O_CLOEXEC);

	for (;;) {
		struct pollfd pfd[3] = {{.fd = ctl, .events = POLLIN},
					{.fd = signal_pipe[0], .events = POLLIN},
					{.fd = shell_watch, .events = POLLIN}};
		int status;
		pid_t pid;

		while (line_buffered()) {
			char line[256];

			if (read_line(line, sizeof line))
				handle_control(line, tty);
		}
		if (poll(pfd, 3, -1) < 0 && errno != EINTR)
			return 255;
		if (pfd[2].revents & POLLIN)
			watch_answer(shell_watch, ctl);
		if (pfd[1].revents & POLLIN) {
			char drain[64];

			if (read(signal_pipe[0], drain, sizeof drain) < 0)
				errno = 0;
		}
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			if (pid == shell)
				return WIFEXITED(status) ? WEXITSTATUS(status)
							 : 128 + WTERMSIG(status);
		if (pfd[0].revents & (POLLIN | POLLHUP)) {
			char line[256];

			/* The server's end closed: nobody can see this pane
			 * any more, so the VM ends rather than run on
			 * unwatched (qemu has no die-with-parent). */
			if (!read_line(line, sizeof line))
				return -1;
			handle_control(line, tty);
		}
	}
}

static int cmdline_has(const char *word)
{
	char buf[4096];
	int fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (char *tok = strtok(buf, " \n"); tok != NULL; tok = strtok(NULL, " \n"))
		if (strcmp(tok, word) == 0)
			return 1;
	return 0;
}

static void probe_only(void)
{
	int fd = open("/dev/hvc0", O_WRONLY | O_NOCTTY);

	if (fd >= 0 && write(fd, "sandmux-probe-ok\n", 17) < 0)
		fd = -1;
	sync();
	reboot(RB_AUTOBOOT);
	_exit(0);
}

int main(void)
{
	struct launch l;
	char what[4200];
	int mask_fd, resolv_fd = -1, warm_dir = -1, status, user_db[2];
	pid_t shell;

	/* Not dumpable, and so neither are the relays forked from here:
	 * nothing without CAP_SYS_PTRACE may trace them or open their fds. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	load_modules();
	if (cmdline_has("sandmux.probe"))
		probe_only();
	ctl = open_port("sandmux.ctl");
	if (ctl < 0) {
		reboot(RB_AUTOBOOT);
		return 1;
	}
	if (pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		die("pipe");
	signal(SIGCHLD, on_sigchld);
	say("booted");
	memset(&l, 0, sizeof l);
	read_message(&l, "world");
	mask_fd = open("/mask", O_RDONLY | O_CLOEXEC | O_CREAT, 0);
	if (mask_fd < 0 || fchmod(mask_fd, 0) != 0)
		die("mask file");
	/* The guest's user database files, written once the launch is in
	 * (name_guest_users): reachable after the switch through these. */
	user_db[0] = open("/passwd", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	user_db[1] = open("/group", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (user_db[0] < 0 || user_db[1] < 0)
		die("the user database files");
	if (strcmp(l.net, "open") == 0) {
		static const char dns[] = "nameserver 10.0.2.3\n";

		resolv_fd = open("/resolv.conf", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (resolv_fd < 0 || write(resolv_fd, dns, sizeof dns - 1) != sizeof dns - 1)
			die("resolv.conf");
	}
	network_up(&l);
	/* The copies' tmpfs, before the switch makes the initramfs
	 * unreachable: afterwards only this fd leads to it. */
	if (l.nwarm > 0 &&
	    (mkdir("/warm", 0700) != 0 || mount("tmpfs", "/warm", "tmpfs", MS_NOSUID | MS_NODEV,
						"mode=0700,size=64m") != 0 ||
	     (warm_dir = open("/warm", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0))
		die("the tmpfs of the copies");
	lock_kernel();
	shell_group = make_shell_group();
	build_root(&l);
	copy_ahead(&l, warm_dir);
	if (warm_dir >= 0)
		close(warm_dir);
	read_message(&l, "go");
	if (!l.guest_root)
		name_guest_users(&l, user_db);
	apply_policy(&l, mask_fd, resolv_fd);
	if (l.nargv == 0) {
		errno = EINVAL;
		die("no command");
	}
	shell = start_shell(&l, what, sizeof what);
	if (shell < 0)
		die(what);
	say("ready %s %d", l.nonce, (int)shell);
	status = serve(shell);
	if (status >= 0)
		say("exit %d", status);
	sync();
	reboot(RB_AUTOBOOT);
	return status;
}
