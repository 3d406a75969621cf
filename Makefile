# kineta — build with plain make.
#   make              release build in build/ (kineta, kineta-synth, libkineta.a);
#                     profile-guided with gcc (PGO=0: one plain -O2 compile)
#   make test         sanitizer (ASan+UBSan) build in build-san/, runs every test
#   make bench        release benchmarks (see bench/)
#   make fuzz         libFuzzer harnesses: loader, pipeline, generated traces (clang), FUZZ_SECONDS=60 each
# Parallel helpers may use their own output dir: make BUILD=build-x
CC ?= cc
SOVERSION = 1
MODE ?= release
ifeq ($(MODE),sanitize)
BUILD ?= build-san
OPT = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
else
BUILD ?= build
OPT = -O2 -g -DNDEBUG
endif
WARN = -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
CPPFLAGS += -D_GNU_SOURCE -Ilib
CFLAGS += $(WARN) $(OPT) -pthread
LDLIBS = -lisal -lz -lsqlite3 -lxlsxwriter -lm -pthread
LDFLAGS += $(OPT)

LIB_SRC := $(sort $(wildcard lib/*.c lib/*/*.c lib/*/*/*.c))
CLI_SRC := $(sort $(wildcard programs/*.c))
TEST_SRC := $(sort $(wildcard tests/*.c))
BENCH_SRC := $(sort $(wildcard bench/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
BENCH_OBJ := $(BENCH_SRC:%.c=$(BUILD)/%.o)
CLI_LIB_OBJ := $(filter-out $(BUILD)/programs/main.o,$(CLI_OBJ))
SYNTH_SRC := $(sort $(wildcard tools/synth/*.c))
SYNTH := $(if $(SYNTH_SRC),$(BUILD)/kineta-synth)

.PHONY: all test sanitize bench fuzz fuzzers check-leaks clean demo python install uninstall
all: $(BUILD)/kineta $(SYNTH) $(BUILD)/libkineta.a

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PGO_USE) -MMD -MP -c $< -o $@

# Profile-guided release builds (gcc; PGO=0 turns it off, and builds with
# their own OPT, such as tsan and check-leaks, never use it).  The library
# and CLI are first built instrumented in $(BUILD)/pgo/ and run on
# synthesized traces (tools/pgo_train.sh); each object's profile (.gcda)
# is then copied beside its release object, which is compiled with it:
# ~4 % fewer instructions for a load (callgrind, `kineta info --jobs 1`).
CC_IS_GCC := $(shell $(CC) -dM -E -x c /dev/null 2>/dev/null | grep -q __clang__ || echo 1)
PGO ?= $(if $(and $(filter release,$(MODE)),$(filter file,$(origin OPT)),$(CC_IS_GCC)),1,0)
ifeq ($(PGO),1)
PGO_DIR := $(BUILD)/pgo
PGO_IDS := --param=profile-func-internal-id=1
PGO_OBJ := $(patsubst $(BUILD)/%,$(PGO_DIR)/%,$(LIB_OBJ) $(CLI_OBJ))
$(PGO_DIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fprofile-generate $(PGO_IDS) -fprofile-update=atomic -MMD -MP -c $< -o $@

$(PGO_DIR)/kineta: $(PGO_OBJ)
	$(CC) $(LDFLAGS) -fprofile-generate -o $@ $^ $(LDLIBS)

$(PGO_DIR)/trained: $(PGO_DIR)/kineta $(BUILD)/kineta-synth tools/pgo_train.sh
	find $(PGO_DIR) $(BUILD)/lib $(BUILD)/programs -name '*.gcda' -delete 2>/dev/null || true
	sh tools/pgo_train.sh $(PGO_DIR)/kineta $(BUILD)/kineta-synth $(PGO_DIR)/traces
	rm -rf $(PGO_DIR)/traces
	cd $(PGO_DIR) && find lib programs -name '*.gcda' -exec cp --parents {} $(abspath $(BUILD)) \;
	touch $@

$(LIB_OBJ) $(CLI_OBJ): $(PGO_DIR)/trained
$(LIB_OBJ) $(CLI_OBJ): PGO_USE = -fprofile-use $(PGO_IDS) -fprofile-partial-training -Wno-missing-profile
endif

$(BUILD)/libkineta.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/kineta: $(CLI_OBJ) $(BUILD)/libkineta.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/kineta-synth: $(SYNTH_SRC) tools/synth/synth.h
	@mkdir -p $(BUILD)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(SYNTH_SRC) -lz

# The test binary links the CLI's formatting code too (minus main) so output
# formats are unit-tested.
# It also links the fuzzers' pipeline (fuzz/, minus the libFuzzer entry
# points) to replay their findings (tests/data/fuzz/).
FUZZ_LIB_SRC := $(filter-out fuzz/fuzz_%.c,$(sort $(wildcard fuzz/*.c)))
FUZZ_LIB_OBJ := $(FUZZ_LIB_SRC:%.c=$(BUILD)/%.o)
$(BUILD)/kineta-tests: $(TEST_OBJ) $(CLI_LIB_OBJ) $(FUZZ_LIB_OBJ) $(BUILD)/libkineta.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

sanitize:
	$(MAKE) MODE=sanitize all $(if $(filter build-san,$(BUILD)),,BUILD=$(BUILD))

# Tests run under ASan+UBSan (LeakSanitizer included) from the repo root so
# that ../shared (real traces and oracle outputs) is found when present.
# The Python package's tests (tests/test_python.c) load the release build's
# libkineta-py.so (an ASan library cannot load into an uninstrumented python)
# and compare against the release CLI.
# TEST_JOBS worker processes share the tests (tests/runner.c); everything
# the install test installs is built first, so no test builds while others run.
TEST_JOBS ?= $(shell nproc)
test:
	$(MAKE) all python $(BUILD)/libkineta.so $(BUILD)/kineta.pc $(BUILD)/kineta.1
	$(if $(shell command -v mpicc),$(MAKE) mpi)
	$(MAKE) MODE=sanitize BUILD=$(or $(TEST_BUILD),build-san) build-san-all
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  KINETA_PYLIB=build/libkineta-py.so KINETA_CLI=build/kineta KINETA_MPI=build/kineta-mpi \
	  KINETA_BIN=$(or $(TEST_BUILD),build-san)/kineta KINETA_SYNTH=$(or $(TEST_BUILD),build-san)/kineta-synth \
	  $(or $(TEST_BUILD),build-san)/kineta-tests -j $(TEST_JOBS) $(T)

build-san-all: $(BUILD)/kineta $(SYNTH) $(BUILD)/kineta-tests

# make mpi: build/kineta-mpi, the CLI with ranks spread over MPI processes
# (Open MPI's mpicc; programs/mpi/ is outside the plain builds' sources).
MPICC ?= mpicc
.PHONY: mpi
mpi: $(BUILD)/kineta-mpi
$(BUILD)/kineta-mpi: programs/mpi/kineta_mpi.c $(CLI_LIB_OBJ) $(BUILD)/libkineta.a
	$(MPICC) $(CPPFLAGS) -Iprograms $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The whole test suite under valgrind (an uninstrumented -O0 build in
# build-valgrind/: valgrind cannot run ASan binaries), failing on any leak
# or memory error.  `make test` already runs LeakSanitizer; this also sees
# uninitialised reads.  T=substr as for test.
check-leaks:
	$(MAKE) all python
	$(MAKE) BUILD=build-valgrind OPT="-O0 -g" build-san-all
	KINETA_PYLIB=build/libkineta-py.so KINETA_CLI=build/kineta KINETA_BIN=build-valgrind/kineta \
	  KINETA_SYNTH=build-valgrind/kineta-synth \
	  valgrind -q --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
	  --error-exitcode=1 build-valgrind/kineta-tests $(T)

# The CLI under ThreadSanitizer (in build-tsan/), run on the threaded paths
# (tests/tsan_check.sh): parallel loading of several ranks, the report's
# analyses side by side, one file's ranges parsed in parallel.  Fails on
# any data race.
.PHONY: tsan
tsan:
	$(MAKE) BUILD=build-tsan OPT="-O1 -g -fsanitize=thread" build-tsan/kineta build-tsan/kineta-synth \
	  build-tsan/split-fail
	tests/tsan_check.sh build-tsan

# A split load whose middle range fails while the others parse (tests/tsan/).
$(BUILD)/split-fail: tests/tsan/split_fail.c $(BUILD)/libkineta.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The Python package's native part: the library plus the CLI's commands
# (minus main), position-independent objects in $(BUILD)/pic/, so Python runs
# every command exactly as the CLI does (programs/cli_embed.c).  The shared
# library for C programs is the library alone.
PIC_LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/pic/%.o)
PIC_CLI_OBJ := $(filter-out $(BUILD)/pic/programs/main.o,$(CLI_SRC:%.c=$(BUILD)/pic/%.o))
$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

$(BUILD)/libkineta.so: $(PIC_LIB_OBJ)
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libkineta.so.$(SOVERSION) -o $@ $^ $(LDLIBS)

$(BUILD)/libkineta-py.so: $(PIC_LIB_OBJ) $(PIC_CLI_OBJ)
	$(CC) -shared $(LDFLAGS) -o $@ $^ $(LDLIBS)

python: $(BUILD)/libkineta-py.so

$(BUILD)/kineta-bench: $(BENCH_OBJ) $(BUILD)/programs/cli_timings.o $(BUILD)/libkineta.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Per-analysis benchmark programs: bench/<name>/bench_<name>.c (used by
# bench/bench_kernels.sh, bench/timeline.sh, bench/queue.sh).
.SECONDEXPANSION:
$(BUILD)/bench_%: bench/$$*/bench_$$*.c $(BUILD)/libkineta.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libkineta.a $(LDLIBS)

bench: $(BUILD)/kineta $(BUILD)/kineta-synth $(BUILD)/kineta-bench
	bench/run.sh $(BUILD)

# Four libFuzzer harnesses (clang, ASan + UBSan, objects in build-fuzz/),
# FUZZ_SECONDS each: fuzz_parse (the loader), fuzz_pipeline (bytes as a
# trace file through every analysis and output), fuzz_generated (bytes
# driving a generator of valid, adversarial traces; fuzz/trace_gen.c) and
# fuzz_cache (bytes as a cache file, its header and checksums made right;
# seeded with the cache files the CLI writes for fuzz/seeds).
# Limits (docs/robustness.md): no single allocation above 64 MiB, no input
# slower than FUZZ_TIMEOUT seconds under the sanitizers.
# FUZZ_SEED fixes libFuzzer's random choices: CI's short run replays a
# prefix of what the long campaigns (same seed, docs/robustness.md) ran
# clean, so a red CI means a change broke something, not a new draw.
FUZZ_SECONDS ?= 60
FUZZ_TIMEOUT ?= 5
FUZZ_SEED ?= 1
FUZZ_OPT = -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ_RUN = -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -malloc_limit_mb=64 -rss_limit_mb=1024 \
  -timeout=$(FUZZ_TIMEOUT) -seed=$(FUZZ_SEED) -print_final_stats=1
fuzz:
	$(MAKE) CC=clang BUILD=build-fuzz OPT="$(FUZZ_OPT)" fuzzers build-fuzz/kineta
	@mkdir -p build-fuzz/corpus build-fuzz/corpus-pipeline build-fuzz/corpus-generated build-fuzz/corpus-cache
	@rm -rf build-fuzz/seeds-cache && for f in fuzz/seeds/*; do \
	  build-fuzz/kineta info -q --cache=build-fuzz/seeds-cache "$$f" >/dev/null 2>&1 || true; done
	cd build-fuzz && ./fuzz_parse $(FUZZ_RUN) -dict=../fuzz/kineto.dict corpus ../fuzz/seeds
	cd build-fuzz && ./fuzz_pipeline $(FUZZ_RUN) -dict=../fuzz/kineto.dict corpus-pipeline ../fuzz/seeds
	cd build-fuzz && ./fuzz_generated $(FUZZ_RUN) corpus-generated ../fuzz/seeds-generated
	cd build-fuzz && ./fuzz_cache $(FUZZ_RUN) corpus-cache seeds-cache

fuzzers: $(BUILD)/fuzz_parse $(BUILD)/fuzz_pipeline $(BUILD)/fuzz_generated $(BUILD)/fuzz_cache
$(BUILD)/fuzz_%: $(BUILD)/fuzz/fuzz_%.o $(FUZZ_LIB_OBJ) $(CLI_LIB_OBJ) $(BUILD)/libkineta.a
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

# The README's first command: synthesize example traces (2 CUDA ranks with
# NCCL and CUDA graphs; 1 ROCm rank, gzip, ns timestamps) and analyze them.
EXAMPLES = $(BUILD)/examples
# The rank files, not the directory: the synthesizer's truth.json lies beside them.
CUDA_RANKS = $(EXAMPLES)/cuda/rank-0.json $(EXAMPLES)/cuda/rank-1.json
demo: all
	@mkdir -p $(EXAMPLES)/cuda $(EXAMPLES)/rocm
	$(BUILD)/kineta-synth --ranks 2 --size 20M --graphs -o $(EXAMPLES)/cuda
	$(BUILD)/kineta-synth --vendor rocm --size 10M --ns --gzip -o $(EXAMPLES)/rocm/rank-0.json.gz
	$(BUILD)/kineta info $(CUDA_RANKS) --format table
	$(BUILD)/kineta categories $(EXAMPLES)/rocm/rank-0.json.gz --format table --table categories
	$(BUILD)/kineta breakdown $(CUDA_RANKS) --format table --table kernel_type
	$(BUILD)/kineta kernels $(CUDA_RANKS) --format table --sort total
	$(BUILD)/kineta temporal $(CUDA_RANKS) --format table
	$(BUILD)/kineta report $(CUDA_RANKS) -o $(EXAMPLES)/report.html

# make install PREFIX=/usr/local [DESTDIR=...]: the CLI, the library (static
# and shared) with its header and kineta.pc, the man page made from the
# commands' help, bash completion, and the Python package (with its native
# part as kineta/_kineta.so) under PYTHONDIR.
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
PYTHONDIR ?= $(PREFIX)/lib/python3/dist-packages
VERSION := $(shell sed -n 's/^\#define KINETA_VERSION "\(.*\)"/\1/p' lib/kineta.h)
I = $(DESTDIR)

# Always rewritten: PREFIX is part of its text (a kineta.pc left by an
# install into another prefix would point pkg-config there).
.PHONY: $(BUILD)/kineta.pc
$(BUILD)/kineta.pc: tools/kineta.pc.in lib/kineta.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

$(BUILD)/kineta.1: $(BUILD)/kineta tools/gen_manpage.sh
	sh tools/gen_manpage.sh $(BUILD)/kineta > $@

install: all $(BUILD)/libkineta.so $(BUILD)/libkineta-py.so $(BUILD)/kineta.pc $(BUILD)/kineta.1
	install -d $(I)$(PREFIX)/bin $(I)$(LIBDIR)/pkgconfig $(I)$(PREFIX)/include \
	  $(I)$(PREFIX)/share/man/man1 $(I)$(PREFIX)/share/bash-completion/completions $(I)$(PYTHONDIR)/kineta
	install -m 755 $(BUILD)/kineta $(I)$(PREFIX)/bin/kineta
	install -m 644 $(BUILD)/libkineta.a $(I)$(LIBDIR)/libkineta.a
	install -m 755 $(BUILD)/libkineta.so $(I)$(LIBDIR)/libkineta.so.$(VERSION)
	ln -sf libkineta.so.$(VERSION) $(I)$(LIBDIR)/libkineta.so.$(SOVERSION)
	ln -sf libkineta.so.$(SOVERSION) $(I)$(LIBDIR)/libkineta.so
	install -m 644 lib/kineta.h $(I)$(PREFIX)/include/kineta.h
	install -m 644 $(BUILD)/kineta.pc $(I)$(LIBDIR)/pkgconfig/kineta.pc
	install -m 644 $(BUILD)/kineta.1 $(I)$(PREFIX)/share/man/man1/kineta.1
	install -m 644 tools/kineta-completion.bash $(I)$(PREFIX)/share/bash-completion/completions/kineta
	cd bindings/python && find kineta -name '*.py' -exec install -D -m 644 {} $(I)$(PYTHONDIR)/{} \;
	install -m 755 $(BUILD)/libkineta-py.so $(I)$(PYTHONDIR)/kineta/_kineta.so

uninstall:
	rm -f $(I)$(PREFIX)/bin/kineta $(I)$(LIBDIR)/libkineta.a $(I)$(LIBDIR)/libkineta.so \
	  $(I)$(LIBDIR)/libkineta.so.$(SOVERSION) $(I)$(LIBDIR)/libkineta.so.$(VERSION) \
	  $(I)$(PREFIX)/include/kineta.h $(I)$(LIBDIR)/pkgconfig/kineta.pc $(I)$(PREFIX)/share/man/man1/kineta.1 \
	  $(I)$(PREFIX)/share/bash-completion/completions/kineta
	rm -rf $(I)$(PYTHONDIR)/kineta

clean:
	rm -rf build build-san build-fuzz build-*

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
