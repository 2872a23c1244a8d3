# The two commands of the README: `make demo` and `make test`. Both install what is missing first.
BUILD_DIR ?= build
ASAN_DIR ?= build-asan
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60
PT_FUZZ_SECONDS ?= 30
PROGRAM_FUZZ_SECONDS ?= 30
SOAK_SECONDS ?= 600
DIFFFUZZ_SECONDS ?= 3600
DIFFFUZZ_JOBS ?= 1
DIFFFUZZ_ARGS ?=

.PHONY: all deps build python test test-asan fuzz soak demo bench difffuzz clean

all: build

deps:
	@scripts/install_deps.sh

build: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD_DIR) -j $(JOBS)

## Builds everything and runs every test: ctest (the GoogleTest suites, the install check, the
## Python interop tests, tutorial 1) and pytest (tests/python, tutorial 2) against the package pip
## installs into .venv, which scripts/python_env.sh creates first. The tutorials' tests train on
## Fashion-MNIST, so the data set is installed too (they would be skipped without it).
test: build python
	@scripts/install_deps.sh data
	@rm -f $(BUILD_DIR)/fault_report.txt
	EMBER_FAULT_REPORT=$(abspath $(BUILD_DIR))/fault_report.txt ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)
	@sort $(BUILD_DIR)/fault_report.txt && awk '{n += $$(NF-2)} END {print "fault injection: " n " fault points in all"}' $(BUILD_DIR)/fault_report.txt
	.venv/bin/python -m pytest -q -n $(JOBS) tests/python

## Installs the Python package into .venv (pip install .), reusing the library `build` compiled.
python: build
	@scripts/python_env.sh
	@.venv/bin/pip install -q . -C cmake.define.EMBER_PREBUILT_DIR=$(abspath $(BUILD_DIR))

## The unit tests under AddressSanitizer and UndefinedBehaviorSanitizer, then the Python tests
## (the property-based suite included) against an extension built in the same sanitized tree,
## with the ASan runtime preloaded into the (uninstrumented) interpreter, and libstdc++ with it
## (ASan must find the real __cxa_throw when it starts); leak checking is off there, as CPython
## keeps objects alive until exit; DataLoader workers start from a forkserver (tests/python/conftest.py:
## a fork of the threaded test process could hang in ASan's allocator); the property suite draws half
## its examples (the "sanitized" profile; make test runs them all). NB: -O1 without debug info builds about
## three times faster than -O2 -g on the Eigen kernels; reports still name the functions (rebuild
## with -g for line numbers). Built with EMBER_NATIVE=OFF: the same run proves that a portable build
## (SSE2 only, as a wheel for other machines) passes every test. Built without the CUDA backend
## (EMBER_CUDA=OFF): ASan sees nothing of device code, and the kernels would compile a second time.
ASAN_PYTHON = LD_PRELOAD="$$($(CXX) -print-file-name=libasan.so) $$($(CXX) -print-file-name=libstdc++.so)" \
  ASAN_OPTIONS=detect_leaks=0 EMBER_TEST_MP_START=forkserver \
  PYTHONPATH=$(ASAN_DIR)/python .venv/bin/python
test-asan: deps
	@scripts/python_env.sh
	@cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 \
	  -DEMBER_SANITIZE=ON -DEMBER_NATIVE=OFF -DEMBER_PYTHON=ON -DEMBER_CUDA=OFF \
	  -DPython_EXECUTABLE=$(abspath .venv/bin/python) >/dev/null
	@cmake --build $(ASAN_DIR) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1 ctest --test-dir $(ASAN_DIR) --output-on-failure -j $(JOBS) -LE slow
	$(ASAN_PYTHON) -m pytest -q -n $(JOBS) -p no:cacheprovider --hypothesis-profile=sanitized tests/python

## The checkpoint soak test (not CI): the tutorial model trained with --resume for SOAK_SECONDS
## while it is killed at random every few seconds, bytes of older checkpoints are flipped and the
## disk fills up (a small tmpfs, where mounting is allowed); every completed run must end equal,
## bit for bit, to an uninterrupted run. Prints the kills survived.
soak: python
	@scripts/install_deps.sh data
	.venv/bin/python tests/soak/soak.py --build $(BUILD_DIR) --seconds $(SOAK_SECONDS)

## libFuzzer on the checkpoint loader for FUZZ_SECONDS, seeded with the malformed corpus and with
## valid files written by io::save, then on the torch.save pickle reader alone for PT_FUZZ_SECONDS,
## seeded with the corpus's data.pkl files, then on the program loader (jit::load's validation) for
## PROGRAM_FUZZ_SECONDS, seeded with programs jit::save writes and the golden program files of every
## version; fails on a crash, a sanitizer report, a leak, a hang or a huge allocation (crash inputs
## land in $(FUZZ_DIR)/). Built with clang: see tests/fuzz/CMakeLists.txt.
fuzz:
	@scripts/install_deps.sh fuzz
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target ember
	@cmake -S tests/fuzz -B $(FUZZ_DIR) -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
	  -DEMBER_BUILD_DIR=$(abspath $(BUILD_DIR)) >/dev/null
	@cmake --build $(FUZZ_DIR) -j $(JOBS)
	@rm -rf $(FUZZ_DIR)/seeds && mkdir -p $(FUZZ_DIR)/seeds $(FUZZ_DIR)/corpus
	EMBER_FUZZ_SEEDS=$(FUZZ_DIR)/seeds $(FUZZ_DIR)/load_fuzzer -max_total_time=$(FUZZ_SECONDS) \
	  -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256 -print_final_stats=1 \
	  -dict=tests/fuzz/load_fuzzer.dict -artifact_prefix=$(FUZZ_DIR)/ \
	  $(FUZZ_DIR)/corpus $(FUZZ_DIR)/seeds tests/fixtures/io/malformed
	@rm -rf $(FUZZ_DIR)/pt_seeds && mkdir -p $(FUZZ_DIR)/pt_seeds $(FUZZ_DIR)/pt_corpus
	@python3 tests/fuzz/extract_pickles.py tests/fixtures/io/malformed $(FUZZ_DIR)/pt_seeds
	$(FUZZ_DIR)/pt_fuzzer -max_total_time=$(PT_FUZZ_SECONDS) \
	  -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256 -print_final_stats=1 \
	  -dict=tests/fuzz/pt_fuzzer.dict -artifact_prefix=$(FUZZ_DIR)/pt- \
	  $(FUZZ_DIR)/pt_corpus $(FUZZ_DIR)/pt_seeds
	@rm -rf $(FUZZ_DIR)/program_seeds && mkdir -p $(FUZZ_DIR)/program_seeds $(FUZZ_DIR)/program_corpus
	EMBER_FUZZ_SEEDS=$(FUZZ_DIR)/program_seeds $(FUZZ_DIR)/program_fuzzer -max_total_time=$(PROGRAM_FUZZ_SECONDS) \
	  -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256 -print_final_stats=1 \
	  -artifact_prefix=$(FUZZ_DIR)/program- $(FUZZ_DIR)/program_corpus $(FUZZ_DIR)/program_seeds \
	  tests/fixtures/jit/golden/v1 tests/fixtures/jit/golden/v2

## The main job (tutorial 1, tutorials/fashion_mnist): installs the data set, trains an MLP on
## Fashion-MNIST for 3 epochs, then a CNN for 5 epochs that is stopped after 2 (as a crash would
## stop it) and resumed from its newest checkpoint, bit for bit. Test accuracies printed (about
## 88% and 91%); well under a minute on 2 cores. Checkpoints go to runs/.
DEMO = $(BUILD_DIR)/tutorials/fashion_mnist/fashion_mnist
demo: build
	@scripts/install_deps.sh data
	$(DEMO) --model mlp --epochs 3 --run-dir runs/mlp --restart
	$(DEMO) --model cnn --epochs 5 --run-dir runs/cnn --restart --stop-after 1876
	$(DEMO) --model cnn --epochs 5 --run-dir runs/cnn --resume

## Every workload in Ember and in PyTorch from PyPI, C++ and Python, 1 and 2 threads, in one run:
## prints the tables that bench/README.md describes (a few minutes on 2 cores).
bench: python
	BUILD_DIR=$(BUILD_DIR) bench/run.sh

## The random-program differential test (not CI; tests/difffuzz/README.md): random programs of 3 to 8
## ops run in Ember and in PyTorch from PyPI (installed into .venv-bench as for `make bench`) for
## DIFFFUZZ_SECONDS with DIFFFUZZ_JOBS worker pairs; prints the programs by outcome and each distinct
## mismatch with its shrunk reproducer (report in out/difffuzz/). DIFFFUZZ_ARGS="--save" saves new
## cases to tests/fixtures/difffuzz/pending/, which CI replays once they pass.
difffuzz: python
	@test -x .venv-bench/bin/python || python3 -m venv .venv-bench
	@.venv-bench/bin/python -c "import torch, numpy" 2>/dev/null || .venv-bench/bin/pip install -q torch numpy
	.venv/bin/python tests/difffuzz/difffuzz.py --seconds $(DIFFFUZZ_SECONDS) -j $(DIFFFUZZ_JOBS) $(DIFFFUZZ_ARGS)

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(FUZZ_DIR)
