/* Stub of macOS's <sys/proc.h> for make macos-check: a process's
 * status values, as proc_bsdinfo's pbi_status holds them. */
#ifndef STUB_SYS_PROC_H
#define STUB_SYS_PROC_H
#define SIDL 1
#define SRUN 2
#define SSLEEP 3
#define SSTOP 4
#define SZOMB 5
#endif
