# sandmux: a terminal multiplexer whose panes can be sandboxed.
#
#   make          build build/sandmux
#   make run      install missing packages, build, start sandmux
#   make check    install missing packages, build, run every test
#   make bench    throughput / latency / memory side by side with tmux
#   make fuzz     libFuzzer targets for FUZZ_SECONDS each
#   make install  PREFIX=/usr/local

CC ?= cc
PREFIX ?= /usr/local
PKGS := vterm ncursesw libuv libcjson libseccomp
BUILD ?= build

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

OPT ?= -O2 -g
CFLAGS += $(OPT) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter -Wno-format-truncation \
	-Isrc -Iterm -Ibackends $(PKG_CFLAGS) -MMD -MP
LDLIBS += $(PKG_LIBS) -lpthread -lutil -lm

LIB_SRCS := $(filter-out src/main.c,$(wildcard src/*.c term/*.c backends/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
HELPER_SRCS := $(wildcard tests/helpers/*.c)
HELPER_BINS := $(HELPER_SRCS:tests/helpers/%.c=$(BUILD)/helpers/%)

all: $(BUILD)/sandmux $(BUILD)/sandmux-shim

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/libsandmux.a: $(LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/sandmux: $(BUILD)/src/main.o $(BUILD)/libsandmux.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The shim every native pane runs first (src/shim.c): static and libc
# only, whatever the build's flags, so its exec inside each new sandbox
# is cheap.  Linked against musl where musl-gcc is installed (tests/deps.sh
# installs it): about 60 KB against glibc's 770 KB, and on this project's
# host each exec of it a millisecond faster, most of that the page faults
# of static glibc's start-up.  musl has no kernel headers of its own, so
# the build points it at the kernel's (linux/, asm/, asm-generic/) only.
MUSL_GCC := $(shell command -v musl-gcc 2>/dev/null)
SHIM_FLAGS := -O2 -std=c11 -D_GNU_SOURCE -DSHIM_STANDALONE -Wall -Wextra -Werror -Ibackends -static
ARCH_INC := /usr/include/$(shell $(CC) -dumpmachine 2>/dev/null)

$(BUILD)/sandmux-shim: src/shim.c backends/shim-filter.h backends/seccomp-compat.h
	@mkdir -p $(BUILD)/shim-include
ifneq ($(MUSL_GCC),)
	ln -sfn /usr/include/linux $(BUILD)/shim-include/linux
	ln -sfn /usr/include/asm-generic $(BUILD)/shim-include/asm-generic
	ln -sfn $(ARCH_INC)/asm $(BUILD)/shim-include/asm
	$(MUSL_GCC) $(SHIM_FLAGS) -isystem $(BUILD)/shim-include -o $@ src/shim.c
else
	$(CC) $(SHIM_FLAGS) -o $@ src/shim.c
endif

# The mutation build (tests/escape/final-object.sh): the same server with
# a supervisor that decides by the path's spelling (-DSV_SPELLING_ONLY),
# so the test can show that its symlink attempts then succeed.  Only a
# test build: `make`/`make install` never build or install it.  Its
# supervisor object comes first, so the archive's is never linked in.
$(BUILD)/backends/supervisor-spelling.o: backends/supervisor.c
	@mkdir -p $(dir $@)
	@echo "  CC      $< (spelling only)"
	@$(CC) $(CFLAGS) -DSV_SPELLING_ONLY -c -o $@ $<

$(BUILD)/sandmux-spelling: $(BUILD)/src/main.o $(BUILD)/backends/supervisor-spelling.o \
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

build-tests: $(BUILD)/sandmux $(BUILD)/sandmux-shim $(BUILD)/sandmux-spelling $(UNIT_BINS) \
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
	@$(MAKE) --no-print-directory build-tests BUILD=build-asan OPT="$(SAN_FLAGS)" \
		LDFLAGS="-fsanitize=address,undefined"
	@sh tests/run.sh $(BUILD) build-asan

bench: deps
	@$(MAKE) --no-print-directory build-tests
	@sh tests/bench/run.sh $(BUILD)

fuzz: deps
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS)

install: $(BUILD)/sandmux $(BUILD)/sandmux-shim
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/sandmux/themes
	install -m 0755 $(BUILD)/sandmux $(DESTDIR)$(PREFIX)/bin/sandmux
	install -m 0755 $(BUILD)/sandmux-shim $(DESTDIR)$(PREFIX)/bin/sandmux-shim
	install -m 0644 docs/sandmux.1 $(DESTDIR)$(PREFIX)/share/man/man1/sandmux.1
	install -m 0644 themes/*.json $(DESTDIR)$(PREFIX)/share/sandmux/themes/
	install -d $(DESTDIR)$(PREFIX)/share/sandmux/examples
	install -m 0644 examples/* $(DESTDIR)$(PREFIX)/share/sandmux/examples/

clean:
	rm -rf $(BUILD) build-asan build-fuzz

format:
	clang-format -i src/*.[ch] term/*.[ch] backends/*.[ch]

.PHONY: all deps build-tests run check bench fuzz install clean format

-include $(LIB_OBJS:.o=.d) $(BUILD)/src/main.d $(BUILD)/backends/supervisor-spelling.d
