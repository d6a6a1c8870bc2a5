# Targets of the C++ harness (owned by bench-harness/).
#   harness-build: Release build -> bench-harness/build/rzbench
#   harness-rzbench: only the rzbench binary (what `make demo` runs; no unit tests)
#   harness-test:  ctest of the Release build, then of an ASan+UBSan build in bench-harness/build-asan
HARNESS_DIR  := $(ROOT_DIR)/bench-harness
HARNESS_JOBS ?= 2
SANITIZER_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
                 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

.PHONY: harness-build harness-rzbench harness-build-asan harness-test
harness-build:
	cmake -S $(HARNESS_DIR) -B $(HARNESS_DIR)/build -DCMAKE_BUILD_TYPE=Release > /dev/null
	cmake --build $(HARNESS_DIR)/build -j$(HARNESS_JOBS)

harness-rzbench:
	cmake -S $(HARNESS_DIR) -B $(HARNESS_DIR)/build -DCMAKE_BUILD_TYPE=Release > /dev/null
	cmake --build $(HARNESS_DIR)/build -j$(HARNESS_JOBS) --target rzbench

harness-build-asan:
	cmake -S $(HARNESS_DIR) -B $(HARNESS_DIR)/build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DRZBENCH_SANITIZE=ON > /dev/null
	cmake --build $(HARNESS_DIR)/build-asan -j$(HARNESS_JOBS)

harness-test: harness-build harness-build-asan
	cd $(HARNESS_DIR)/build && ctest --output-on-failure -j$(HARNESS_JOBS)
	cd $(HARNESS_DIR)/build-asan && $(SANITIZER_ENV) ctest --output-on-failure -j$(HARNESS_JOBS)

# The aarch64 (ARMv8) build, cross-compiled and run under qemu-user: ctest and a byte-exact
# comparison with the x86_64 build on the real ROOT files (bench-harness/scripts/test_aarch64.sh).
.PHONY: test-aarch64
test-aarch64: harness-build venv
	bash $(HARNESS_DIR)/scripts/test_aarch64.sh
