# tetrad — the two commands a user needs:
#   make run    set up (Debian packages), build, run the quick comparison (configs/quick.toml)
#   make test   set up, build, run the whole test suite through ctest
# (make test-quick: the unit tests alone, for the inner loop)
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= 2
RUN_ARGS ?=

export OMPI_ALLOW_RUN_AS_ROOT = 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM = 1
export OMPI_MCA_rmaps_base_oversubscribe = 1

FUZZ_SECONDS ?= 60

.PHONY: all setup configure build run test test-quick bench fuzz clean format

all: build

setup:
	@sh scripts/setup.sh

configure: setup
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) > $(BUILD_DIR).configure.log 2>&1 || (cat $(BUILD_DIR).configure.log; exit 1)

build: configure
	@cmake --build $(BUILD_DIR) -j$(JOBS)

# Without RUN_ARGS: the quick sweep (configs/quick.toml) with its small method
# map ([map]: its synchronous runs retimed on 0.1, 1 and 10 Gb/s) and its report; with
# RUN_ARGS: `tetrad RUN_ARGS`. Only the tetrad binary is built here, its log
# kept in $(BUILD_DIR)/build.log (the tail is printed when it fails).
run: configure
	@echo "make run: building $(BUILD_DIR)/tetrad (log: $(BUILD_DIR)/build.log)"
	@cmake --build $(BUILD_DIR) -j$(JOBS) --target tetrad > $(BUILD_DIR)/build.log 2>&1 || \
	  (tail -n 40 $(BUILD_DIR)/build.log; echo "make run: build failed, full log in $(BUILD_DIR)/build.log"; exit 1)
ifeq ($(strip $(RUN_ARGS)),)
	./$(BUILD_DIR)/tetrad run configs/quick.toml --jobs $(JOBS)
	./$(BUILD_DIR)/tetrad report runs/quick
else
	./$(BUILD_DIR)/tetrad $(RUN_ARGS)
endif

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j$(JOBS) --timeout 900

# The inner loop: builds only the unit-test binaries (no LibTorch, no tetrad
# binary) and runs their GoogleTest cases (ctest label "unit"). `make test`
# stays the gate.
test-quick: configure
	@cmake --build $(BUILD_DIR) -j$(JOBS) --target unit_tests
	cd $(BUILD_DIR) && ctest --output-on-failure -j$(JOBS) --timeout 300 -L unit

bench: build
	./$(BUILD_DIR)/tetrad bench collectives --cluster sim:8x10Gbps,25us
	./$(BUILD_DIR)/tetrad bench compressors

# libFuzzer on every compressor's decoder (clang; the compress layer and the
# harness instrumented with ASan + UBSan). The corpus is kept in build-fuzz/.
fuzz:
	@sh scripts/setup.sh fuzz
	@CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DTETRAD_NATIVE=OFF "-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link,address,undefined" \
	  > build-fuzz.configure.log 2>&1 || (cat build-fuzz.configure.log; exit 1)
	@cmake --build build-fuzz -j$(JOBS) --target compress_decode_fuzz
	@mkdir -p build-fuzz/corpus
	./build-fuzz/tests/compress_quant/compress_decode_fuzz -max_total_time=$(FUZZ_SECONDS) \
	  build-fuzz/corpus

format:
	@find src apps bench tests -name '*.h' -o -name '*.cc' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR) $(BUILD_DIR).configure.log build-fuzz build-fuzz.configure.log
