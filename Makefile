# Entry points. `make run` and `make test` install what is missing, build and go.
#   make            build into build/ (the program is build/fluid-sandbox)
#   make run        open the sandbox on the default scene
#   make test       run every test through CTest
#   make bench      the Euler benchmark report (see README)
#   make deps       only install the Debian packages of third_party/packages.txt
# Variables: BUILD_DIR (build), BUILD_TYPE (Release), CMAKE_ARGS (extra -D options), JOBS.

BUILD_DIR  ?= build
BUILD_TYPE ?= Release
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=

.PHONY: all deps configure build run test bench clean

all: build

deps:
	@third_party/install-deps.sh

$(BUILD_DIR)/build.ninja: | deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS)

configure: $(BUILD_DIR)/build.ninja

build: deps configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	$(BUILD_DIR)/fluid-sandbox

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

bench: build
	tests/bench/euler_scaling.sh $(BUILD_DIR)/fluid-sandbox

clean:
	rm -rf $(BUILD_DIR)
