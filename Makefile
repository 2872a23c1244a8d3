# The two commands of the README: `make demo` and `make test`. Both install what is missing first.
BUILD_DIR ?= build
ASAN_DIR ?= build-asan
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build test test-asan demo bench clean

all: build

deps:
	@scripts/install_deps.sh

build: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD_DIR) -j $(JOBS)

## Builds everything and runs every test (ctest: the GoogleTest suites and the install check).
test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

## The unit tests under AddressSanitizer and UndefinedBehaviorSanitizer.
test-asan: deps
	@cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMBER_SANITIZE=ON \
	  -DEMBER_NATIVE=ON >/dev/null
	@cmake --build $(ASAN_DIR) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1 ctest --test-dir $(ASAN_DIR) --output-on-failure -j $(JOBS) -LE slow

## Builds and runs the main example.
demo: build
	$(BUILD_DIR)/tutorials/fit_curve/fit_curve

bench: build
	bench/run.sh

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR)
