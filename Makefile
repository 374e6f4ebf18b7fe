# sandmux: a terminal multiplexer whose panes can be sandboxed.
#
#   make          build build/sandmux
#   make run      install missing packages, build, start sandmux
#   make check    install missing packages, build, run every test
#   make microvm-image  the microvm guest (kernel + initramfs) into build/microvm
#   make bench    throughput / latency / memory side by side with tmux
#   make soak     the screen convergence test, long: SOAK_ACTIONS (5000)
#                 actions from SOAK_SEED (default `random`: a new seed, printed)
#   make fuzz     libFuzzer targets for FUZZ_SECONDS each
#   make docs     regenerate docs/commands.md from the command table
#   make install  PREFIX=/usr/local
#   make macos-check  the macOS build's sources compiled and linked here,
#                 as macOS would select them, against poisoned Linux calls

CC ?= cc
PREFIX ?= /usr/local
# The builds that check, bench and run start (sub-makes) use every CPU,
# unless the caller gave its own -j.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || sysctl -n hw.ncpu 2>/dev/null || echo 2)
endif
PKGS := vterm ncursesw libuv libcjson libseccomp
BUILD ?= build
UNAME_S := $(shell uname -s)

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# No .eh_frame: C without exceptions or thread cancellation never unwinds
# at run time, and the 50 KiB of tables sat beside the read-only data the
# server reads, where the kernel's fault-around mapped them in with it.
# gdb and perf unwind from .debug_frame, which -g keeps.  The sanitizer
# build (make check) passes its own OPT: ASan's reports unwind.
OPT ?= -O2 -g -fno-asynchronous-unwind-tables
CFLAGS += $(OPT) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter -Wno-format-truncation \
	-Isrc -Iterm -Ibackends $(PKG_CFLAGS) -MMD -MP
LDLIBS += $(PKG_LIBS) -lpthread -lutil -lm
SEATBELT_EXEC := $(BUILD)/sandmux-seatbelt-exec

# What runs inside a native pane's sandbox (backends/native-inside/):
# the shim is also built alone, below.
SHIM_SRCS := backends/native-inside/shim.c backends/native-inside/shim-home.c
ALL_LIB_SRCS := $(filter-out src/main.c,$(wildcard src/*.c term/*.c backends/*.c backends/native-inside/*.c))
# The sources only a Linux build has: native's bubblewrap launch and its
# prepared sandbox, the shim and its seccomp filter, the supervisor, and
# the microvm backend (qemu with diod's 9p shares, its prepared VM and
# QMP).  On macOS
# seatbelt-native.c and microvm-macos.c stand in for them.  bwrap.c
# (argv building, and the deny-read list Seatbelt shares), home-layer.c
# (no layers there) and sandbox-limits.c (rlimits there) are built on
# both.
LINUX_ONLY := backends/native.c backends/native-prepared.c backends/supervisor.c \
	backends/supervisor-path.c backends/supervisor-decide.c backends/supervisor-emulate.c \
	backends/shim-filter.c backends/microvm.c backends/microvm-prepared.c backends/qmp.c \
	$(SHIM_SRCS)
MACOS_LIB_SRCS := $(filter-out $(LINUX_ONLY),$(ALL_LIB_SRCS))
LIB_SRCS := $(ALL_LIB_SRCS)
# macOS: native is Seatbelt (backends/seatbelt-native.c); Homebrew's
# libvterm, libuv, cjson and ncurses (keg-only: its pkg-config directory
# added).  Never built on a Mac: docs/backends.md ("macOS (Seatbelt)")
# says what was run instead (make macos-check, below).
ifeq ($(UNAME_S),Darwin)
PKGS := vterm ncursesw libuv libcjson
BREW_PREFIX := $(shell brew --prefix 2>/dev/null)
export PKG_CONFIG_PATH := $(BREW_PREFIX)/opt/ncurses/lib/pkgconfig:$(PKG_CONFIG_PATH)
LIB_SRCS := $(MACOS_LIB_SRCS)
endif
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
HELPER_SRCS := $(wildcard tests/helpers/*.c)
HELPER_BINS := $(HELPER_SRCS:tests/helpers/%.c=$(BUILD)/helpers/%)

# What make builds and installs: on macOS no shim and no microvm preloads.
PROGRAMS := $(SEATBELT_EXEC) $(BUILD)/sandmux $(BUILD)/sandmux-trash/rm
ifneq ($(UNAME_S),Darwin)
PROGRAMS += $(BUILD)/sandmux-shim $(BUILD)/sandmux-diod-guard.so $(BUILD)/sandmux-qemu-net-guard.so
endif

all: $(PROGRAMS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/libsandmux.a: $(LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

# The server's resident code.  The kernel maps a program's pages 64 KiB
# at a time around each one it runs (fault-around), so where a function
# lies decides what a process keeps resident.  These files hold what every
# server runs from its start and for each pane's output (measured: the
# functions a server had run at make bench's memory point, with gcov):
# linked first, in this order, their code, read-only data and static
# data share a few such windows, and the client's, the other commands'
# and the sandboxes' (the rest of the archive, linked after them) stay
# unmapped in a server that does not run them.  A file left off this
# list still works, only further away.
SERVER_CORE := src/server.c src/cmd.c src/cmd-session.c src/session.c src/layout.c \
	src/pane.c src/pane-cwd.c src/record.c src/events.c src/jsonl.c \
	src/log.c src/paths.c src/xalloc.c src/config.c src/grant.c src/command.c src/command-table.c \
	src/cli-verbs.c term/term-state.c term/term-scan.c term/term-output.c term/grid.c term/history.c \
	term/pty.c backends/probe.c backends/backend.c \
	backends/none.c backends/sandbox.c backends/sandbox-limits.c backends/profile.c \
	backends/strvec.c
SERVER_CORE := $(filter $(LIB_SRCS),$(SERVER_CORE))
SERVER_CORE_OBJS := $(SERVER_CORE:%.c=$(BUILD)/%.o)
# Within them, function by function: each in a section of its own, and
# src/server-hot.ld (written by tests/bench/hot-functions.sh) places the
# functions the server runs ahead of everything else in .text.
ifneq ($(UNAME_S),Darwin)
$(SERVER_CORE_OBJS): CFLAGS += -ffunction-sections
endif
SERVER_ORDER := src/server-hot.ld
# Apple's linker takes no GNU linker script: there the order is the
# link line's alone.
ifeq ($(UNAME_S),Darwin)
ORDER_FLAGS :=
else
ORDER_FLAGS := -Wl,-T,$(SERVER_ORDER)
endif

# Relative relocations packed (DT_RELR, glibc 2.36): a PIE's table of
# them is then a few hundred bytes instead of 24 bytes per pointer in
# the command table and every other table of pointers, and that table is
# read by every sandmux process at start.  Where the linker or libc does
# not know it, the link goes on without.
LINK_FLAGS := $(shell printf 'int main(void) { return 0; }' | \
	$(CC) -x c - -Wl,-z,pack-relative-relocs -o /dev/null 2>/dev/null && \
	echo -Wl,-z,pack-relative-relocs)

$(BUILD)/sandmux: $(BUILD)/src/main.o $(SERVER_CORE_OBJS) $(BUILD)/libsandmux.a $(SERVER_ORDER)
	$(CC) $(LDFLAGS) $(LINK_FLAGS) $(ORDER_FLAGS) -o $@ $(filter %.o %.a,$^) $(LDLIBS)

# The shim every native pane runs first (backends/native-inside/shim.c):
# static and libc only, whatever the build's flags, so its exec inside
# each new sandbox is cheap.  Linked against musl where musl-gcc is installed (tests/deps.sh
# installs it): about 60 KB against glibc's 770 KB, and on this project's
# host each exec of it a millisecond faster, most of that the page faults
# of static glibc's start-up.  musl has no kernel headers of its own, so
# the build points it at the kernel's (linux/, asm/, asm-generic/) only.
MUSL_GCC := $(shell command -v musl-gcc 2>/dev/null)
SHIM_FLAGS := -O2 -std=c11 -D_GNU_SOURCE -DSHIM_STANDALONE -Wall -Wextra -Werror -Ibackends -static
ARCH_INC := /usr/include/$(shell $(CC) -dumpmachine 2>/dev/null)

# The preload of a microvm work tree's diod (backends/microvm-host/
# diod-guard.c): its own flags, never the sanitizers' (diod is not built
# with them).  It judges a `.git` and a repository's config with the
# native backend's own rules (gitdir.c, gitconfig.c), compiled in.
DIOD_GUARD_SRCS := backends/microvm-host/diod-guard.c backends/gitdir.c backends/gitconfig.c backends/linked-secret.c src/xalloc.c
$(BUILD)/sandmux-diod-guard.so: $(DIOD_GUARD_SRCS) backends/gitdir.h backends/gitconfig.h backends/linked-secret.h src/xalloc.h
	@mkdir -p $(BUILD)
	$(CC) -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden -Ibackends -Isrc -o $@ $(DIOD_GUARD_SRCS)

# The preload of a microvm pane's qemu (qemu-net-guard.c): likewise.
$(BUILD)/sandmux-qemu-net-guard.so: backends/microvm-host/qemu-net-guard.c
	@mkdir -p $(BUILD)
	$(CC) -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fPIC -shared -o $@ $<

# The `rm` of panes whose profile has the trash (backends/trash-rm.sh),
# in a directory of its own that native.c puts first on their PATH.
$(BUILD)/sandmux-trash/rm: backends/trash-rm.sh
	@mkdir -p $(BUILD)/sandmux-trash
	install -m 0755 $< $@

$(BUILD)/sandmux-shim: $(SHIM_SRCS) backends/native-inside/shim-home.h backends/native-inside/native-inside.h backends/shim-filter.h backends/seccomp-compat.h
	@mkdir -p $(BUILD)/shim-include
ifneq ($(MUSL_GCC),)
	ln -sfn /usr/include/linux $(BUILD)/shim-include/linux
	ln -sfn /usr/include/asm-generic $(BUILD)/shim-include/asm-generic
	ln -sfn $(ARCH_INC)/asm $(BUILD)/shim-include/asm
	$(MUSL_GCC) $(SHIM_FLAGS) -isystem $(BUILD)/shim-include -o $@ $(SHIM_SRCS)
else
	$(CC) $(SHIM_FLAGS) -o $@ $(SHIM_SRCS)
endif

# The first process inside a macOS native pane (seatbelt-launch.h):
# portable, built everywhere so its protocol is tested on Linux too.
$(SEATBELT_EXEC): backends/seatbelt-exec/main.c
	@mkdir -p $(BUILD)
	$(CC) -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -o $@ $<

# The microvm guest image (backends/microvm-image.sh): Debian's kernel,
# uncompressed, and an initramfs with the guest agent as /init, static
# like the shim and for the same reasons (no libc in the initramfs).
MICROVM_DIR := $(BUILD)/microvm
MICROVM_IMAGE := $(MICROVM_DIR)/vmlinux $(MICROVM_DIR)/initramfs.cpio

GUEST_SRCS := backends/microvm-guest/agent.c backends/microvm-guest/watch.c
$(BUILD)/sandmux-guest: $(GUEST_SRCS) backends/microvm-guest/watch.h $(BUILD)/sandmux-shim
ifneq ($(MUSL_GCC),)
	$(MUSL_GCC) $(SHIM_FLAGS) -isystem $(BUILD)/shim-include -o $@ $(GUEST_SRCS)
else
	$(CC) $(SHIM_FLAGS) -o $@ $(GUEST_SRCS)
endif

$(MICROVM_DIR)/initramfs.cpio: $(BUILD)/sandmux-guest backends/microvm-image.sh
	sh backends/microvm-image.sh $(MICROVM_DIR) $(BUILD)/sandmux-guest

$(MICROVM_DIR)/vmlinux: $(MICROVM_DIR)/initramfs.cpio

microvm-image: $(MICROVM_IMAGE)
# The mutation build (tests/escape/final-object.sh): the same server with
# a supervisor that decides by the path's spelling (-DSV_SPELLING_ONLY),
# so the test can show that its symlink attempts then succeed.  Only a
# test build: `make`/`make install` never build or install it.  Its
# supervisor objects come first, so the archive's are never linked in.
SPELLING_OBJS := $(patsubst backends/%.c,$(BUILD)/backends/%-spelling.o,$(wildcard backends/supervisor*.c))
$(BUILD)/backends/%-spelling.o: backends/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $< (spelling only)"
	@$(CC) $(CFLAGS) -DSV_SPELLING_ONLY -c -o $@ $<

$(BUILD)/sandmux-spelling: $(BUILD)/src/main.o $(SPELLING_OBJS) \
		$(BUILD)/libsandmux.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libsandmux.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libsandmux.a $(LDLIBS) -lcmocka

$(BUILD)/helpers/%: tests/helpers/%.c $(BUILD)/libsandmux.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libsandmux.a $(LDLIBS)

# make macos-check: no Mac runs here, so the macOS build is checked on
# Linux.  Every source it selects (MACOS_LIB_SRCS, main.c, the seatbelt
# exec helper) is compiled as macOS would preprocess it (__linux__
# undefined, __APPLE__ defined) with tests/macos/poison.h forced in: the
# Linux-only calls, flags and headers poisoned, the few macOS calls the
# __APPLE__ branches make declared by stubs in tests/macos/include/apple.
# tests/macos/check-file.sh also refuses a "/proc/" or "/sys/" path in
# the preprocessed text.  The objects are then linked with stub
# definitions of those macOS calls (tests/macos/apple-stubs.c), so a
# call into a Linux-only file fails here as the macOS link would.  What
# it cannot see: whether Apple's headers and libraries really behave as
# the stubs say (docs/backends.md).
MACOS_CHECK := $(BUILD)/macos-check
MACOS_PKG_CFLAGS := $(shell pkg-config --cflags vterm ncursesw libuv libcjson 2>/dev/null)
MACOS_CHECK_FLAGS = -O0 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter \
	-Wno-format-truncation -U__linux__ -U__linux -Ulinux -U__gnu_linux__ -D__APPLE__ -D__MACH__ \
	-isystem tests/macos/include/linux-only -isystem tests/macos/include/apple \
	$(MACOS_POISON) -Isrc -Iterm -Ibackends $(MACOS_PKG_CFLAGS)
MACOS_CHECK_DEPS := tests/macos/poison.h tests/macos/apple-extras.h tests/macos/check-file.sh \
	$(wildcard tests/macos/include/*/*.h tests/macos/include/*/*/*.h)
MACOS_POISON := -include tests/macos/poison.h
# Sources compiled without the poison (none: every macOS source is
# checked against it).
MACOS_CHECK_PENDING :=
$(MACOS_CHECK_PENDING:%.c=$(MACOS_CHECK)/%.o): MACOS_POISON :=
$(MACOS_CHECK)/backends/bwrap.o: MACOS_PATHS_ARE_DATA := 1
MACOS_CORE_OBJS := $(patsubst %.c,$(MACOS_CHECK)/%.o,$(filter $(MACOS_LIB_SRCS),$(SERVER_CORE)))
MACOS_LIB_OBJS := $(MACOS_LIB_SRCS:%.c=$(MACOS_CHECK)/%.o)

$(MACOS_CHECK)/%.o: %.c $(MACOS_CHECK_DEPS)
	@echo "  MACOS   $<"
	@MACOS_PATHS_ARE_DATA=$(MACOS_PATHS_ARE_DATA) sh tests/macos/check-file.sh $@ $< $(CC) $(MACOS_CHECK_FLAGS)

$(MACOS_CHECK)/libsandmux.a: $(MACOS_LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

$(MACOS_CHECK)/apple-stubs.o: tests/macos/apple-stubs.c $(MACOS_CHECK_DEPS)
	@mkdir -p $(dir $@)
	$(CC) -O0 -std=c11 -Wall -Wextra -Werror -Wno-unused-parameter -isystem tests/macos/include/apple \
		-Itests/macos -c -o $@ $<

# Linked as the Darwin build links build/sandmux (its link line, its
# libraries), into nothing that is ever run.
$(MACOS_CHECK)/sandmux: $(MACOS_CHECK)/src/main.o $(MACOS_CORE_OBJS) $(MACOS_CHECK)/libsandmux.a \
		$(MACOS_CHECK)/apple-stubs.o
	$(CC) -o $@ $^ $(shell pkg-config --libs vterm ncursesw libuv libcjson 2>/dev/null) \
		-lpthread -lutil -lm

$(MACOS_CHECK)/sandmux-seatbelt-exec: $(MACOS_CHECK)/backends/seatbelt-exec/main.o
	$(CC) -o $@ $^

macos-check: $(MACOS_CHECK)/sandmux $(MACOS_CHECK)/sandmux-seatbelt-exec
	@echo "macos-check: $(words $(MACOS_LIB_SRCS) x x) sources of the macOS build compiled and linked;" \
		"not yet against the poison: $(or $(MACOS_CHECK_PENDING),none)"

# The flags, for tests/integration/macos-check.sh.
macos-check-flags:
	@echo $(MACOS_CHECK_FLAGS)

deps:
	@sh tests/deps.sh

build-tests: $(SEATBELT_EXEC) $(BUILD)/sandmux $(BUILD)/sandmux-shim $(BUILD)/sandmux-trash/rm $(BUILD)/sandmux-diod-guard.so $(BUILD)/sandmux-qemu-net-guard.so $(BUILD)/sandmux-spelling $(UNIT_BINS) \
	$(HELPER_BINS)

run: deps
	@$(MAKE) --no-print-directory all
	./$(BUILD)/sandmux

SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

# make check runs everything on the normal build, then the unit and
# integration tests again under AddressSanitizer + UndefinedBehavior-
# Sanitizer (leaks included) from a second build tree.
check: deps
	@$(MAKE) --no-print-directory build-tests
	@$(MAKE) --no-print-directory macos-check
	@$(MAKE) --no-print-directory microvm-image
	@$(MAKE) --no-print-directory build-tests BUILD=build-asan OPT="$(SAN_FLAGS)" \
		LDFLAGS="-fsanitize=address,undefined"
	@sh tests/run.sh $(BUILD) build-asan

bench: deps
	@$(MAKE) --no-print-directory build-tests microvm-image
	@sh tests/bench/run.sh $(BUILD)

SOAK_ACTIONS ?= 5000
SOAK_SEED ?= random

soak: deps
	@$(MAKE) --no-print-directory build-tests
	@SANDMUX_ROOT=$(CURDIR) SANDMUX_BIN=$(CURDIR)/$(BUILD)/sandmux SANDMUX_BUILD=$(CURDIR)/$(BUILD) \
		CONVERGE_ACTIONS=$(SOAK_ACTIONS) CONVERGE_SEED=$(SOAK_SEED) sh tests/tui/converge.sh

fuzz: deps
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS)

# docs/commands.md: the command table as markdown, below its marker line
# (tests/integration/docs.sh checks it is current).
DOCS_MARK := <!-- generated by make docs from src/command-table.c; do not edit below -->
docs: $(BUILD)/sandmux
	awk -v mark='$(DOCS_MARK)' '{ print } $$0 == mark { exit }' docs/commands.md >docs/commands.md.new
	./$(BUILD)/sandmux list-commands --markdown >>docs/commands.md.new
	mv docs/commands.md.new docs/commands.md

install: $(PROGRAMS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/sandmux $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/sandmux/themes
	install -m 0755 $(BUILD)/sandmux $(DESTDIR)$(PREFIX)/bin/sandmux
	install -m 0755 $(SEATBELT_EXEC) $(DESTDIR)$(PREFIX)/bin/sandmux-seatbelt-exec
	install -d $(DESTDIR)$(PREFIX)/lib/sandmux/trash
	install -m 0755 $(BUILD)/sandmux-trash/rm $(DESTDIR)$(PREFIX)/lib/sandmux/trash/rm
ifneq ($(UNAME_S),Darwin)
	install -m 0755 $(BUILD)/sandmux-shim $(DESTDIR)$(PREFIX)/bin/sandmux-shim
	install -m 0644 $(BUILD)/sandmux-diod-guard.so $(DESTDIR)$(PREFIX)/lib/sandmux/sandmux-diod-guard.so
	install -m 0644 $(BUILD)/sandmux-qemu-net-guard.so $(DESTDIR)$(PREFIX)/lib/sandmux/sandmux-qemu-net-guard.so
endif
	install -m 0644 docs/sandmux.1 $(DESTDIR)$(PREFIX)/share/man/man1/sandmux.1
	install -m 0644 themes/*.json $(DESTDIR)$(PREFIX)/share/sandmux/themes/
	install -d $(DESTDIR)$(PREFIX)/share/sandmux/examples
	install -m 0644 examples/* $(DESTDIR)$(PREFIX)/share/sandmux/examples/
	if [ -s $(MICROVM_DIR)/vmlinux ]; then \
		install -d $(DESTDIR)$(PREFIX)/share/sandmux/microvm && \
		install -m 0644 $(MICROVM_DIR)/vmlinux $(MICROVM_DIR)/initramfs.cpio \
			$(MICROVM_DIR)/kernel-version $(DESTDIR)$(PREFIX)/share/sandmux/microvm/; fi

clean:
	rm -rf $(BUILD) build-asan build-fuzz

format:
	clang-format -i src/*.[ch] term/*.[ch] backends/*.[ch] backends/native-inside/*.[ch]

.PHONY: all deps build-tests microvm-image run check bench soak fuzz docs install clean format \
	macos-check macos-check-flags

-include $(LIB_OBJS:.o=.d) $(BUILD)/src/main.d $(SPELLING_OBJS:.o=.d) \
	$(MACOS_LIB_OBJS:.o=.d) $(MACOS_CHECK)/src/main.d
