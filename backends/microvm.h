/*
 * microvm: what the rest of the backends need from the microvm backend
 * (backends/microvm.c): the qemu argv of the probe's accelerator check,
 * built by the same code as a pane's so the check tests what a launch
 * will run.
 */
#ifndef SANDMUX_MICROVM_H
#define SANDMUX_MICROVM_H

#include "strvec.h"

/* qemu under KVM booting the guest image in the agent's probe mode: it
 * prints "sandmux-probe-ok" on its stdout and ends qemu.  0, or -1 out
 * of memory. */
int microvm_probe_argv(const char *qemu, const char *image_dir, struct strvec *out);

#endif
