/*
 * microvm-warm: the files a prepared microvm copies in ahead (microvm-warm.h).
 *
 * A warm start is a launch into a VM that booted earlier: what is left
 * on its path is the launch's masks, the shell's exec and the shell's
 * own start, and under TCG every 9p request through the root share is a
 * round trip of milliseconds (the guest's relay, qemu's serial port,
 * diod), and even a file in the guest's page cache costs a walk, an open
 * and a clunk each time it is opened.  Measured here: an interactive
 * bash made ~330 requests from its exec to its prompt, about a second.
 * So while the prepared VM waits, its agent copies the files the last
 * pane's shell needed into a guest tmpfs, bound read-only over their
 * paths (copy_ahead in the agent), and the next one's exec and start
 * open them there: ~80 requests are left.
 *
 * The list is what a dynamically linked shell reads before its prompt:
 * the binary, its ELF interpreter and DT_NEEDED libraries (theirs too),
 * found as the loader would on a multiarch Debian system; the loader's
 * cache, the name-service files, readline's inputrc, the terminfo entry,
 * the locale.  A wrong guess costs a copy in an idle VM, never
 * correctness: a launch finding any listed file changed on the host
 * boots a fresh VM instead (microvm.c, take_prepared).
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "microvm-warm.h"

/* A file bigger than this is not copied (a locales-all
 * locale-archive is hundreds of MB; the guest has 256 MiB). */
#define WARM_MAX_FILE (16L << 20)
/* How many ELF objects are followed (the binary and its libraries). */
#define WARM_MAX_OBJECTS 32

static const char *const lib_dirs[] = {"/lib/x86_64-linux-gnu",
				       "/usr/lib/x86_64-linux-gnu",
				       "/lib64",
				       "/usr/lib64",
				       "/lib",
				       "/usr/lib",
				       NULL};

/* path, if it is a regular file of a size worth reading, once. */
static int add_file(struct strvec *out, const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > WARM_MAX_FILE ||
	    strvec_contains(out, path))
		return 0;
	return strvec_push(out, path);
}

static uint64_t get(const unsigned char *p, int bytes)
{
	uint64_t v = 0;

	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The interpreter and DT_NEEDED names of an ELF64 little-endian file,
 * pushed to names (the interpreter as a path, the libraries bare).
 * Anything else, or a file too odd to read, adds nothing. */
static int elf_needs(const char *path, struct strvec *names)
{
	unsigned char eh[64], ph[56], dyn[16];
	uint64_t phoff, dyn_off = 0, dyn_size = 0, strtab = 0, str_off = 0;
	uint64_t load[16][3]; /* vaddr, filesz, offset of each PT_LOAD */
	int nload = 0, phentsize, phnum, rc = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (pread(fd, eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh, "\177ELF", 4) != 0 ||
	    eh[4] != 2 || eh[5] != 1)
		goto out;
	phoff = get(eh + 32, 8);
	phentsize = (int)get(eh + 54, 2);
	phnum = (int)get(eh + 56, 2);
	if (phentsize < (int)sizeof ph)
		goto out;
	for (int i = 0; i < phnum && i < 64; i++) {
		uint32_t type;

		if (pread(fd, ph, sizeof ph, (off_t)(phoff + (uint64_t)i * (uint64_t)phentsize)) !=
		    (ssize_t)sizeof ph)
			goto out;
		type = (uint32_t)get(ph, 4);
		if (type == 3) { /* PT_INTERP */
			char interp[PATH_MAX];
			uint64_t size = get(ph + 32, 8);

			if (size > 0 && size < sizeof interp &&
			    pread(fd, interp, size, (off_t)get(ph + 8, 8)) == (ssize_t)size) {
				interp[size - 1] = '\0';
				rc |= strvec_push(names, interp);
			}
		} else if (type == 2) { /* PT_DYNAMIC */
			dyn_off = get(ph + 8, 8);
			dyn_size = get(ph + 32, 8);
		} else if (type == 1 && nload < 16) { /* PT_LOAD */
			load[nload][0] = get(ph + 16, 8);
			load[nload][1] = get(ph + 32, 8);
			load[nload][2] = get(ph + 8, 8);
			nload++;
		}
	}
	/* DT_STRTAB is an address: the load segment holding it says where
	 * it lies in the file. */
	for (uint64_t o = 0; o + sizeof dyn <= dyn_size && o < 16384; o += sizeof dyn) {
		if (pread(fd, dyn, sizeof dyn, (off_t)(dyn_off + o)) != (ssize_t)sizeof dyn ||
		    get(dyn, 8) == 0)
			break;
		if (get(dyn, 8) == 5) /* DT_STRTAB */
			strtab = get(dyn + 8, 8);
	}
	for (int i = 0; i < nload; i++)
		if (strtab >= load[i][0] && strtab < load[i][0] + load[i][1])
			str_off = strtab - load[i][0] + load[i][2];
	for (uint64_t o = 0; str_off != 0 && o + sizeof dyn <= dyn_size && o < 16384;
	     o += sizeof dyn) {
		char name[256];
		ssize_t n;

		if (pread(fd, dyn, sizeof dyn, (off_t)(dyn_off + o)) != (ssize_t)sizeof dyn ||
		    get(dyn, 8) == 0)
			break;
		if (get(dyn, 8) != 1) /* DT_NEEDED */
			continue;
		n = pread(fd, name, sizeof name - 1, (off_t)(str_off + get(dyn + 8, 8)));
		if (n <= 0)
			continue;
		name[n] = '\0';
		if (name[0] != '\0' && strlen(name) < sizeof name - 1 && strchr(name, '/') == NULL)
			rc |= strvec_push(names, name);
	}
out:
	close(fd);
	return rc;
}

/* The shell's binary and every ELF object it loads. */
static int add_objects(struct strvec *out, const char *binary)
{
	struct strvec todo = STRVEC_INIT;
	int rc = strvec_push(&todo, binary);

	for (size_t i = 0; rc == 0 && i < todo.n && i < WARM_MAX_OBJECTS; i++) {
		char found[PATH_MAX] = "";
		struct stat st;

		if (todo.v[i][0] == '/') {
			snprintf(found, sizeof found, "%s", todo.v[i]);
		} else {
			for (size_t d = 0; lib_dirs[d] != NULL && found[0] == '\0'; d++) {
				snprintf(found, sizeof found, "%s/%s", lib_dirs[d], todo.v[i]);
				if (stat(found, &st) != 0)
					found[0] = '\0';
			}
		}
		if (found[0] == '\0' || strvec_contains(out, found))
			continue;
		rc |= add_file(out, found);
		/* The loader's own spelling (/lib64/ld-linux-x86-64.so.2)
		 * is a symlink: its target too. */
		{
			char real[PATH_MAX];

			if (realpath(found, real) != NULL && strcmp(real, found) != 0)
				rc |= add_file(out, real);
		}
		rc |= elf_needs(found, &todo);
	}
	strvec_free(&todo);
	return rc;
}

/* Every regular file of a locale directory (LC_CTYPE, ...,
 * LC_MESSAGES/SYS_LC_MESSAGES). */
static int add_locale_dir(struct strvec *out, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[PATH_MAX];
	int rc = 0;

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL && rc == 0) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		rc |= add_file(out, path);
	}
	closedir(d);
	snprintf(path, sizeof path, "%s/LC_MESSAGES/SYS_LC_MESSAGES", dir);
	return rc | add_file(out, path);
}

/* A locale name's directory as glibc spells it on disk: the codeset
 * lower-cased without '-' (C.UTF-8 -> C.utf8). */
static int add_locale(struct strvec *out, const char *name)
{
	char dir[PATH_MAX], *dot;
	int rc;

	if (name == NULL || name[0] == '\0' || strchr(name, '/') != NULL ||
	    strcmp(name, "C") == 0 || strcmp(name, "POSIX") == 0)
		return 0;
	snprintf(dir, sizeof dir, "/usr/lib/locale/%s", name);
	rc = add_locale_dir(out, dir);
	dot = strchr(dir + strlen("/usr/lib/locale/"), '.');
	if (dot != NULL) {
		char *w = dot + 1;

		for (char *r = dot + 1; *r != '\0'; r++)
			if (*r != '-')
				*w++ = (char)(*r >= 'A' && *r <= 'Z' ? *r - 'A' + 'a' : *r);
		*w = '\0';
		rc |= add_locale_dir(out, dir);
	}
	return rc;
}

int microvm_warm_list(const char *shell, const char *path, const char *term,
		      const char *const locales[3], struct strvec *out)
{
	static const char *const fixed[] = {"/etc/ld.so.cache",
					    "/etc/nsswitch.conf",
					    "/etc/passwd",
					    "/etc/group",
					    "/etc/inputrc",
					    "/usr/lib/locale/locale-archive",
					    "/usr/share/locale/locale.alias",
					    "/usr/lib/x86_64-linux-gnu/gconv/gconv-modules.cache",
					    NULL};
	char binary[PATH_MAX] = "";
	int rc = 0;

	if (shell != NULL && strchr(shell, '/') != NULL) {
		snprintf(binary, sizeof binary, "%s", shell);
	} else if (shell != NULL && shell[0] != '\0') {
		const char *dirs = path != NULL ? path : "/usr/local/bin:/usr/bin:/bin";

		while (binary[0] == '\0' && *dirs != '\0') {
			size_t len = strcspn(dirs, ":");

			snprintf(binary, sizeof binary, "%.*s/%s", (int)len, dirs, shell);
			if (len == 0 || access(binary, X_OK) != 0)
				binary[0] = '\0';
			dirs += len + (dirs[len] == ':');
		}
	}
	if (binary[0] != '\0')
		rc |= add_objects(out, binary);
	for (size_t i = 0; fixed[i] != NULL; i++)
		rc |= add_file(out, fixed[i]);
	if (term != NULL && term[0] != '\0' && strchr(term, '/') == NULL) {
		static const char *const tdirs[] = {"/etc/terminfo", "/lib/terminfo",
						    "/usr/share/terminfo", NULL};
		char entry[PATH_MAX];

		for (size_t i = 0; tdirs[i] != NULL; i++) {
			snprintf(entry, sizeof entry, "%s/%c/%s", tdirs[i], term[0], term);
			rc |= add_file(out, entry);
		}
	}
	for (int i = 0; i < 3; i++)
		rc |= add_locale(out, locales[i]);
	return rc;
}
