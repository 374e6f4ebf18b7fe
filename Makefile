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

CC ?= cc
PREFIX ?= /usr/local
# The builds that check, bench and run start (sub-makes) use every CPU,
# unless the caller gave its own -j.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
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
LIB_SRCS := $(filter-out src/main.c,$(wildcard src/*.c term/*.c backends/*.c backends/native-inside/*.c))
# macOS: native is Seatbelt (backends/seatbelt-native.c), so no seccomp,
# bubblewrap, shim or supervisor; Homebrew's libvterm, libuv, cjson and
# ncurses (keg-only: its pkg-config directory added).  Written without a
# Mac to try it on: docs/backends.md ("macOS (Seatbelt)") says what was
# never run.
ifeq ($(UNAME_S),Darwin)
PKGS := vterm ncursesw libuv libcjson
BREW_PREFIX := $(shell brew --prefix 2>/dev/null)
export PKG_CONFIG_PATH := $(BREW_PREFIX)/opt/ncurses/lib/pkgconfig:$(PKG_CONFIG_PATH)
LINUX_ONLY := backends/native.c backends/native-prepared.c backends/bwrap.c backends/supervisor.c backends/shim-filter.c \
	backends/supervisor-path.c backends/supervisor-decide.c backends/supervisor-emulate.c \
	backends/home-layer.c backends/sandbox-limits.c $(SHIM_SRCS)
LIB_SRCS := $(filter-out $(LINUX_ONLY),$(LIB_SRCS))
endif
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
HELPER_SRCS := $(wildcard tests/helpers/*.c)
HELPER_BINS := $(HELPER_SRCS:tests/helpers/%.c=$(BUILD)/helpers/%)

all: $(SEATBELT_EXEC) $(BUILD)/sandmux $(BUILD)/sandmux-shim $(BUILD)/sandmux-trash/rm $(BUILD)/sandmux-diod-guard.so $(BUILD)/sandmux-qemu-net-guard.so

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
SERVER_CORE_OBJS := $(SERVER_CORE:%.c=$(BUILD)/%.o)
# Within them, function by function: each in a section of its own, and
# src/server-hot.ld (written by tests/bench/hot-functions.sh) places the
# functions the server runs ahead of everything else in .text.
$(SERVER_CORE_OBJS): CFLAGS += -ffunction-sections
SERVER_ORDER := src/server-hot.ld

# Relative relocations packed (DT_RELR, glibc 2.36): a PIE's table of
# them is then a few hundred bytes instead of 24 bytes per pointer in
# the command table and every other table of pointers, and that table is
# read by every sandmux process at start.  Where the linker or libc does
# not know it, the link goes on without.
LINK_FLAGS := $(shell printf 'int main(void) { return 0; }' | \
	$(CC) -x c - -Wl,-z,pack-relative-relocs -o /dev/null 2>/dev/null && \
	echo -Wl,-z,pack-relative-relocs)

$(BUILD)/sandmux: $(BUILD)/src/main.o $(SERVER_CORE_OBJS) $(BUILD)/libsandmux.a $(SERVER_ORDER)
	$(CC) $(LDFLAGS) $(LINK_FLAGS) -Wl,-T,$(SERVER_ORDER) -o $@ $(filter %.o %.a,$^) $(LDLIBS)

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

install: $(SEATBELT_EXEC) $(BUILD)/sandmux $(BUILD)/sandmux-shim $(BUILD)/sandmux-trash/rm $(BUILD)/sandmux-diod-guard.so $(BUILD)/sandmux-qemu-net-guard.so
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/sandmux $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/sandmux/themes
	install -m 0755 $(BUILD)/sandmux $(DESTDIR)$(PREFIX)/bin/sandmux
	install -m 0755 $(BUILD)/sandmux-shim $(DESTDIR)$(PREFIX)/bin/sandmux-shim
	install -m 0755 $(SEATBELT_EXEC) $(DESTDIR)$(PREFIX)/bin/sandmux-seatbelt-exec
	install -d $(DESTDIR)$(PREFIX)/lib/sandmux/trash
	install -m 0755 $(BUILD)/sandmux-trash/rm $(DESTDIR)$(PREFIX)/lib/sandmux/trash/rm
	install -m 0644 $(BUILD)/sandmux-diod-guard.so $(DESTDIR)$(PREFIX)/lib/sandmux/sandmux-diod-guard.so
	install -m 0644 $(BUILD)/sandmux-qemu-net-guard.so $(DESTDIR)$(PREFIX)/lib/sandmux/sandmux-qemu-net-guard.so
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

.PHONY: all deps build-tests microvm-image run check bench soak fuzz docs install clean format

-include $(LIB_OBJS:.o=.d) $(BUILD)/src/main.d $(SPELLING_OBJS:.o=.d)
