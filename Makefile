# The two commands of the README, and the builds behind them.
#   make render   installs what is missing, builds, renders the default scene
#   make test     installs what is missing, builds, runs the test suite
#   make test-asan  the suite under AddressSanitizer and UBSan
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SCENE ?= cornell
OUT ?= pathwave.png

.PHONY: all deps build render test test-asan bench clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

render: build
	$(BUILD)/pathwave render $(SCENE) -o $(OUT)

test: build
	cd $(BUILD) && ctest --output-on-failure -j 1

test-asan: deps
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPW_SANITIZE=ON >/dev/null
	@cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j 1

bench: build
	$(BUILD)/pathwave bench toy

clean:
	rm -rf $(BUILD) build-asan
