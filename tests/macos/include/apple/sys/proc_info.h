/* Stub of macOS's <sys/proc_info.h> for make macos-check: the records
 * of PROC_PIDTBSDINFO (a process's state, group, terminal) and
 * PROC_PIDVNODEPATHINFO (its cwd), with the fields the __APPLE__ code reads. */
#ifndef STUB_SYS_PROC_INFO_H
#define STUB_SYS_PROC_INFO_H
#include <sys/param.h>
#include <sys/types.h>
#include <stdint.h>
#define PROC_PIDTBSDINFO 3
#define PROC_PIDVNODEPATHINFO 9
struct proc_bsdinfo {
	uint32_t pbi_flags;
	uint32_t pbi_status;
	uint32_t pbi_xstatus;
	uint32_t pbi_pid;
	uint32_t pbi_ppid;
	uid_t pbi_uid;
	gid_t pbi_gid;
	char pbi_comm[16];
	char pbi_name[32];
	uint32_t pbi_nfiles;
	uint32_t pbi_pgid;
	uint32_t pbi_pjobc;
	uint32_t e_tdev;
	uint32_t e_tpgid;
};
struct vnode_info {
	char opaque[152];
};
struct vnode_info_path {
	struct vnode_info vip_vi;
	char vip_path[MAXPATHLEN];
};
struct proc_vnodepathinfo {
	struct vnode_info_path pvi_cdir;
	struct vnode_info_path pvi_rdir;
};
#endif
