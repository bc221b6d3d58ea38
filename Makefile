# Entry points. `make run` and `make test` install what is missing, build and go.
#   make            build into build/ (the program is build/fluid-sandbox)
#   make run        open the sandbox on the default scene
#   make test       run every test through CTest
#   make bench      the Euler benchmark report (docs/benchmarks.md)
#   make python     the Python module fluid_sandbox into BUILD_DIR/python (make builds it too);
#                   PYTHONPATH=build/python /usr/bin/python3 then imports it (docs/python.md)
#   make python-install VENV=path   copies the module into a virtual environment (no internet)
#   make validate   sweeps every comparison with a known answer across its parameters and writes
#                   docs/validation.md's generated section and docs/img/validation/*.png (about
#                   20 minutes on 2 cores); QUICK=1: a reduced sweep of short runs into
#                   BUILD_DIR/validation/ (tests/validation/validate.py)
#   make lessons    runs the lessons (lessons/*.ipynb) and renders them into docs/lessons
#   make deps       only install the Debian packages of third_party/packages.txt
#   make test-sanitize  the test suite built with AddressSanitizer + UBSan (CPU backend)
#   make fuzz       the scene loader's libFuzzer target (clang), run for FUZZ_SECONDS
#   make web        the browser build (Emscripten, WebAssembly + WebGL2) into WEB_DIR: index.html,
#                   index.js, index.wasm and index.data, a static page for any web server, with the
#                   threaded page's index-threads.* and its service worker coi-sw.js
#   make serve-web  serves it at http://localhost:WEB_PORT/ (cross-origin isolated)
#   make test-web   the browser tests: headless Chromium on the page, against the native build
#   make package    a Debian package of the build, BUILD_DIR/fluid-sandbox_VERSION_amd64.deb: the program,
#                   its scenes and shaders, the Python module, the lessons and the manual (CPack)
#   make test-package  Lintian on the package, then installs it with apt-get, runs the installed program,
#                   module and window from another folder, removes it and checks nothing is left
# Variables: BUILD_DIR (build), BUILD_TYPE (Release), CMAKE_ARGS (extra -D options), JOBS,
# CUDA_ARCHS (empty: the release list of CMakeLists.txt; CI builds one), SANITIZE_DIR
# (build-sanitize), SANITIZE_EXCLUDE, FUZZ_DIR (build-fuzz), FUZZ_SECONDS (60), WEB_DIR
# (build-web), WEB_PORT (8000).
# Every build goes through ccache when it is installed (make deps installs it): a second build of
# the same sources, in any of the build folders, takes its objects from the cache.

BUILD_DIR  ?= build
BUILD_TYPE ?= Release
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
CUDA_ARCHS ?=
LAUNCHER    = $(if $(shell command -v ccache),-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR := $(CURDIR)
CONFIG_ARGS = $(LAUNCHER) $(if $(CUDA_ARCHS),-DCMAKE_CUDA_ARCHITECTURES=$(CUDA_ARCHS)) $(CMAKE_ARGS)
SANITIZE_DIR ?= build-sanitize
FUZZ_DIR     ?= build-fuzz
FUZZ_SECONDS ?= 60
# A ctest -E regex of tests the sanitizers leave out: the long whole-scene validations, which run
# for thousands of steps the stages that the kept tests of each solver run for tens (their memory
# accesses are the same), to check a physical property a sanitizer does not see; the release run
# (make test) runs them all. 580 s of the sanitized suite's 1 420 s of test time (docs/tests.md);
# the ring at a wall under boundary elements, 200 s more (166 + 32 s under the sanitizers); the
# moving plate's and the Magnus sphere's Adams-Bashforth accuracy (the plume's is kept) and the
# boundary elements' two-thread ring (the sphere's and the added mass's are kept), 200 s more;
# the two-thread shedding run, the DFSPH tank's long steps, OT's whole dam break, the leapfrog
# scenes' relaxation and the body falling with its fluid (shorter tests of each run the same
# stages), 270 s more.
# SANITIZE_EXCLUDE= (empty) runs the whole suite under the sanitizers.
SANITIZE_EXCLUDE ?= ^(VortexGuard\.TheAdvisedDtOrCoreHoldsTheRingForAMinute|VortexBodies\.(TheMagnusSphereDoesNotRunAway|ASpinningSphereFeelsTheMagnusForce)|OtScheme\.RayleighTaylorGrowsAtTheLinearTheorysRateAtTwoResolutions|VortexRing\.(LeapfroggingRingsPassThroughEachOther|TheLeapfrogScenesStretchingFormAndRelaxationLeaveTheRingsAlone)|VortexBodies\.ABodyAndTheFluidTogetherGainOnlyWeightLessBuoyancy|SphDfsph\.TankAtRestHoldsRho0GDepthWithLongSteps|OtFreeSurface\.TheBundledDamBreakRunsThroughItsSplash|VortexIntegrators\.(TheSecondOrderRulesErrorFallsFourTimesWithEachHalvingOfDt|TheMovingPlatesAdamsBashforthStepIsAsAccurateAsTheMidpointRules|TheMagnusSpheresAdamsBashforthImpulseIsAsAccurateAsTheMidpointRules)|VortexGridFidelity\.TheDefaultSpacingFollowsTheDirectSumInABodysWake|VortexPanels\.(RingAtAWallSpreadsAsTheRingAndImageModel|TheCompareViewMeasuresTheAddedMassAndTheRingAtAWall|SameStateForOneAndTwoThreads|SheddingGivesTheSameStateForOneAndTwoThreads)|SphBarrier\..*|SphHydrostatic\..*|FlipHydrostatic\..*|FlipVolume\.(TooFewJacobiSweepsLoseTheTanksVolume|CorrectionKeepsTheDamBreaksVolume))$$

WEB_DIR  ?= build-web
WEB_PORT ?= 8000
# emcc's JavaScript optimizer needs Debian's node modules (acorn), which Node does not look for.
WEB_ENV   = NODE_PATH=/usr/share/nodejs

.PHONY: all deps configure build run test bench clean test-sanitize fuzz web serve-web test-web python python-install lessons \
	package test-package validate

all: build

deps:
	@third_party/install-deps.sh

$(BUILD_DIR)/build.ninja: | deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CONFIG_ARGS)

configure: $(BUILD_DIR)/build.ninja

build: deps configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	$(BUILD_DIR)/fluid-sandbox

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

package: build
	@third_party/install-deps.sh package
	cmake --build $(BUILD_DIR) --target fs_package_files
	cd $(BUILD_DIR) && cpack -G DEB

test-package: package
	tests/package/install_test.sh $(BUILD_DIR)

# ASan aborts on the first error; UBSan likewise (-fno-sanitize-recover), with a stack trace. The
# window's tests run without LeakSanitizer: SDL2 (its D-Bus connection) and Mesa keep allocations
# until exit, in frames without frame pointers that it cannot attribute; ASan and UBSan stay on.
test-sanitize: deps
	cmake --preset sanitize -B $(SANITIZE_DIR) $(LAUNCHER)
	cmake --build $(SANITIZE_DIR) -j $(JOBS)
	UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir $(SANITIZE_DIR) --output-on-failure -j $(JOBS) \
		-E '^Window\.$(if $(SANITIZE_EXCLUDE),|$(SANITIZE_EXCLUDE))'
	ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir $(SANITIZE_DIR) \
		--output-on-failure -j $(JOBS) -R '^Window\.'

# Seeds: the bundled scenes, the bad-input catalogue and tests/fuzz/seeds; what it learns is kept
# in $(FUZZ_DIR)/corpus, a crash in $(FUZZ_DIR)/crash-* (and the target fails).
fuzz: deps
	@third_party/install-deps.sh check
	cmake --preset fuzz -B $(FUZZ_DIR) $(LAUNCHER)
	cmake --build $(FUZZ_DIR) --target fuzz_scene -j $(JOBS)
	mkdir -p $(FUZZ_DIR)/corpus
	$(FUZZ_DIR)/fuzz_scene $(FUZZ_DIR)/corpus scenes tests/bad_scenes tests/fuzz/seeds \
		-max_total_time=$(FUZZ_SECONDS) -timeout=20 -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/

# The same sources as the desktop, compiled by Debian's Emscripten; SDL2, Dear ImGui and FFTW come
# from Debian's source packages, fetched once into $(WEB_DIR)/sources (third_party/web/). Without
# ccache: it runs emcc (a Python program) twice a file, which made the cold build slower. Two
# programs from one compilation (-pthread throughout), linked twice: the single-threaded one
# (index.js) and the threaded one (index-threads.js, Emscripten's pthreads); index.html loads the
# threaded one where the page is cross-origin isolated (src/web/shell.html, src/web/coi-sw.js).
web:
	@third_party/install-deps.sh "core web"
	third_party/web/fetch-sources.sh $(WEB_DIR)/sources
	@test -f $(WEB_DIR)/build.ninja || $(WEB_ENV) emcmake cmake -S . -B $(WEB_DIR) -G Ninja \
		-DCMAKE_BUILD_TYPE=Release -DFS_WEB_SOURCES=$(CURDIR)/$(WEB_DIR)/sources $(CMAKE_ARGS)
	$(WEB_ENV) cmake --build $(WEB_DIR) -j $(JOBS) --target fluid-sandbox fluid-sandbox-threads
	@echo "web: the page is $(WEB_DIR)/index.html (+ index.js, .wasm, .data; index-threads.js, .wasm, .data, .worker.js; coi-sw.js); make serve-web serves it"

serve-web: web
	python3 src/web/serve.py --dir $(WEB_DIR) --port $(WEB_PORT)

test-web: build web
	python3 tests/web/test_page.py $(WEB_DIR) $(BUILD_DIR)/fluid-sandbox

python: deps configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target fs_python

python-install: python
	@test -n "$(VENV)" || { echo "make python-install VENV=path/to/venv (made with /usr/bin/python3 -m venv --system-site-packages)"; exit 2; }
	/usr/bin/python3 src/python/install.py $(BUILD_DIR)/python $(VENV)

lessons: build
	PYTHONPATH=$(CURDIR)/$(BUILD_DIR)/python /usr/bin/python3 tests/lessons/render_docs.py lessons docs/lessons

validate: python
	PYTHONPATH=$(CURDIR)/$(BUILD_DIR)/python /usr/bin/python3 tests/validation/validate.py \
		$(if $(QUICK),--quick --doc $(BUILD_DIR)/validation/validation.md --img $(BUILD_DIR)/validation/img)

bench: build
	tests/bench/euler_scaling.sh $(BUILD_DIR)/fluid-sandbox

clean:
	rm -rf $(BUILD_DIR)
