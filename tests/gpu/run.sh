#!/usr/bin/env bash
# Everything a GPU must show, in one command (docs/gpu.md):
#   tests/gpu/run.sh OUT_DIR
# On a bare GPU machine with this repository and the header-only dependencies unpacked beside it
# (third_party/unpack-debs.sh .device-deps, run where apt works), it builds without the window for
# the GPU it finds, then:
#   1. runs every test (the CUDA tests among them);
#   2. runs every bundled scene 200 steps on CUDA and on the CPU and compares their stats under
#      the parity contract (tests/gpu/parity.py);
#   3. runs compute-sanitizer's memcheck and racecheck over a short run of each solver;
#   4. builds the parity demonstration (two kernels broken on purpose, FS_PARITY_DEMO) and shows
#      the parity tests and the scene checks failing on it;
#   5. runs the GPU benchmarks, each beside a device-to-device copy measured in the same run;
# and writes report.md and report.json into OUT_DIR (tests/gpu/report.py), logs under OUT_DIR/log.
# Without a GPU it builds, says "no GPU" and exits 0, the report saying so.
# Environment: FS_GPU_BUILD (build folder, default build-gpu), FS_GPU_DEPS (default .device-deps),
# FS_GPU_NO_BUILD=1 (use the build folder as it is, and FS_GPU_BUILD-demo for the demonstration
# where it holds one: built elsewhere for this GPU, tests/gpu/pack.sh),
# FS_GPU_CTEST_EXCLUDE (a regular expression: tests not to run, named in the report with why),
# FS_GPU_PARTS (default "tests parity sanitize demo bench"), FS_GPU_PARITY_STEPS (default 200).
set -uo pipefail
out=${1:?usage: tests/gpu/run.sh OUT_DIR}
mkdir -p "$out/log" && out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"
build=${FS_GPU_BUILD:-build-gpu}
deps=${FS_GPU_DEPS:-.device-deps}
parts=${FS_GPU_PARTS:-"tests parity sanitize demo bench"}
steps=${FS_GPU_PARITY_STEPS:-200}
cores=$(nproc)
t0=$(date +%s)
declare -A took
mark() { took[$1]=$(( $(date +%s) - ${2} )); echo "tests/gpu/run.sh: $1 took ${took[$1]} s"; }

# The GPU, if any, and its architecture (compute capability 9.0 -> 90).
gpu=0 arch=90
if command -v nvidia-smi >/dev/null 2>&1 &&
    nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader \
        >"$out/gpu.csv" 2>/dev/null && [ -s "$out/gpu.csv" ]; then
    gpu=1
    arch=$(head -1 "$out/gpu.csv" | cut -d, -f2 | tr -d ' .')
fi
export PATH=$PATH:/usr/local/cuda/bin
{ echo "host: $(uname -m), $cores cores"; nvcc --version 2>/dev/null | tail -1; cmake --version | head -1
  cat "$out/gpu.csv" 2>/dev/null; } >"$out/log/machine.txt"

# 0. Build: one architecture, the targets the checks need, ccache when there is one.
s=$(date +%s)
if [ "${FS_GPU_NO_BUILD:-0}" != 1 ]; then
    launcher=()
    if command -v ccache >/dev/null 2>&1; then
        launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
    fi
    if ! { cmake -S . -B "$build" -G Ninja -DFS_BUILD_APP=OFF -DCMAKE_BUILD_TYPE=Release \
               -DCMAKE_PREFIX_PATH="$here/$deps/usr" -DCMAKE_CUDA_ARCHITECTURES="$arch" "${launcher[@]}" &&
           cmake --build "$build" -j "$cores"; } >"$out/log/build.txt" 2>&1; then
        tail -30 "$out/log/build.txt"
        echo "tests/gpu/run.sh: the build failed (log/build.txt)"
        python3 tests/gpu/report.py "$out" --gpu "$gpu" --build-failed
        exit 1
    fi
fi
mark build "$s"
bin=$here/$build/fluid-sandbox
if [ "$gpu" = 0 ]; then
    echo "tests/gpu/run.sh: no GPU (nvidia-smi found none): built, nothing to run"
    python3 tests/gpu/report.py "$out" --gpu 0
    exit 0
fi

# 1. Every test. The CPU tests share the cores: two OpenMP threads each, eight at a time.
if [[ " $parts " == *" tests "* ]]; then
    s=$(date +%s)
    exclude=()
    if [ -n "${FS_GPU_CTEST_EXCLUDE:-}" ]; then
        exclude=(-E "$FS_GPU_CTEST_EXCLUDE")
        ctest --test-dir "$build" -N -R "$FS_GPU_CTEST_EXCLUDE" | sed -n 's/^ *Test *#[0-9]*: //p' >"$out/log/ctest-excluded.txt"
    fi
    OMP_NUM_THREADS=2 timeout 240 ctest --test-dir "$build" -j 8 --timeout 200 --output-on-failure "${exclude[@]}" \
        >"$out/log/ctest.txt" 2>&1
    echo "ctest exit $?" >>"$out/log/ctest.txt"
    mark tests "$s"
fi

# 2. Parity: every bundled scene on both backends.
if [[ " $parts " == *" parity "* ]]; then
    s=$(date +%s)
    mkdir -p "$out/parity"
    run_scene() {  # scene backend
        local name
        name=$(basename "$1" .json)
        timeout 150 "$bin" "$1" --headless --steps "$steps" --backend "$2" --threads 4 \
            --stats "$out/parity/$name-$2.jsonl" >"$out/parity/$name-$2.log" 2>&1
        echo "exit $?" >>"$out/parity/$name-$2.log"
    }
    export -f run_scene
    export bin out steps
    for f in scenes/*.json; do echo "$f cpu"; echo "$f cuda"; done |
        xargs -P "$(( cores / 4 > 1 ? cores / 4 : 1 ))" -L 1 bash -c 'run_scene $0 $1'
    python3 tests/gpu/parity.py "$out/parity" >"$out/log/parity.txt" 2>&1
    mark parity "$s"
fi

# 3. compute-sanitizer over a short run of each solver.
if [[ " $parts " == *" sanitize "* ]]; then
    s=$(date +%s)
    cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
    mkdir -p "$out/sanitize"
    # NAME SCENE [ARGS...]: every solver, SPH's three pressure solvers, and FLIP's surface mesh.
    while read -r name scene args; do
        for tool in memcheck racecheck; do
            # shellcheck disable=SC2086 # ARGS split into words
            timeout 60 "$cs" --tool "$tool" --error-exitcode 9 "$bin" "scenes/$scene.json" --headless \
                --backend cuda --steps 2 $args </dev/null >"$out/sanitize/$name-$tool.txt" 2>&1
            echo "exit $?" >>"$out/sanitize/$name-$tool.txt"
        done
    done <<RUNS
euler_gas euler_gas
flip_dam_break flip_dam_break
flip_surface flip_dam_break --export-mesh $out/sanitize/mesh --export-every 1
sph_dfsph sph_dam_break --set pressure_solver=dfsph
sph_iisph sph_dam_break --set pressure_solver=iisph
sph_wcsph sph_dam_break --set pressure_solver=wcsph
vortex_ring vortex_ring
ot_dam_break ot_dam_break
RUNS
    rm -rf "$out/sanitize/mesh"
    mark sanitize "$s"
fi

# 4. The parity demonstration: a build whose Euler collision and SPH pressure kernels are one
#    part in a million off on the GPU (-DFS_PARITY_DEMO=ON); its parity tests and scene checks
#    must fail.
if [[ " $parts " == *" demo "* ]]; then
    s=$(date +%s)
    demo=$build-demo
    mkdir -p "$out/demo"
    if [ "${FS_GPU_NO_BUILD:-0}" = 1 ] && [ -x "$demo/fluid-sandbox" ] && [ -x "$demo/tests/test_sph" ]; then
        echo "the demonstration's build made elsewhere: $demo" >"$out/log/demo-build.txt"
        demo_ok=1
    elif cmake -S . -B "$demo" -G Ninja -DFS_BUILD_APP=OFF -DCMAKE_BUILD_TYPE=Release -DFS_PARITY_DEMO=ON \
           -DCMAKE_PREFIX_PATH="$here/$deps/usr" -DCMAKE_CUDA_ARCHITECTURES="$arch" >"$out/log/demo-build.txt" 2>&1 &&
        cmake --build "$demo" -j "$cores" --target test_euler test_sph fluid-sandbox >>"$out/log/demo-build.txt" 2>&1; then
        demo_ok=1
    else
        demo_ok=0
    fi
    if [ "$demo_ok" = 1 ]; then
        "$demo/tests/test_euler" --gtest_filter='EulerCuda.*' >"$out/demo/test_euler.txt" 2>&1
        echo "exit $?" >>"$out/demo/test_euler.txt"
        "$demo/tests/test_sph" --gtest_filter='SphCuda.*' >"$out/demo/test_sph.txt" 2>&1
        echo "exit $?" >>"$out/demo/test_sph.txt"
        if [ -d "$out/parity" ]; then
            mkdir -p "$out/demo/parity"
            for scene in euler_gas sph_dam_break; do
                cp "$out/parity/$scene-cpu.jsonl" "$out/parity/$scene-cpu.log" "$out/demo/parity/"
                timeout 120 "$demo/fluid-sandbox" "scenes/$scene.json" --headless --steps "$steps" --backend cuda \
                    --stats "$out/demo/parity/$scene-cuda.jsonl" >"$out/demo/parity/$scene-cuda.log" 2>&1
                echo "exit $?" >>"$out/demo/parity/$scene-cuda.log"
            done
            python3 tests/gpu/parity.py "$out/demo/parity" >"$out/demo/parity.txt" 2>&1
        fi
    else
        echo "the demonstration build failed (log/demo-build.txt)" >"$out/demo/test_euler.txt"
    fi
    mark demo "$s"
fi

# 5. Benchmarks, each beside the copy bandwidth of the same run.
if [[ " $parts " == *" bench "* ]]; then
    s=$(date +%s)
    mkdir -p "$out/bench"
    "$here/$build/tests/fs_copy_bandwidth" >"$out/bench/copy.json" 2>"$out/log/copy.txt"
    b=$out/bench
    FS_BENCH_SIZES=16000000 FS_BENCH_BRUTE_N=100000 FS_BENCH_STEPS=20 \
        timeout 120 tests/bench/euler_scaling.sh "$bin" cuda "$b" >"$out/log/bench-euler.txt" 2>&1
    FS_BENCH_SIZES="64 128" FS_BENCH_STEPS=20 \
        timeout 120 tests/bench/flip_scaling.sh "$bin" cuda "$b" >"$out/log/bench-flip.txt" 2>&1
    # MGPCG at 128^3 with its stats: ms a CG iteration beside the round trips it makes (report.py).
    timeout 60 "$bin" scenes/flip_dam_break.json --headless --backend cuda --steps 8 \
        --set domain_size=1,1,1 --set resolution=128 --set fluid_box=0,0,0,0.4,0.6,1 \
        --set pressure_solver=mgpcg --set mgpcg_tolerance=1e-5 \
        --stats "$b/mgpcg-128.jsonl" >"$out/log/bench-mgpcg.txt" 2>&1
    # One Jacobi sweep at 128^3: the pressure stage of 200 sweeps, over 200 (report.py).
    timeout 60 "$bin" scenes/flip_dam_break.json --headless --backend cuda --steps 8 \
        --set domain_size=1,1,1 --set resolution=128 --set fluid_box=0,0,0,0.4,0.6,1 \
        --set pressure_solver=jacobi --set jacobi_iterations=200 --set volume_correction=0 \
        --stats "$b/jacobi-128.jsonl" >"$out/log/bench-jacobi.txt" 2>&1
    FS_BENCH_SIZES="4000000" FS_BENCH_STEPS=20 \
        timeout 120 tests/bench/sph_scaling.sh "$bin" cuda "$b" >"$out/log/bench-sph.txt" 2>&1
    # SPH's three pressure solvers at 4e6 particles (the dam break's spacing for 4e6, as
    # sph_scaling.sh sets it): ms a step, dt, particle-steps a second and the wall time a
    # simulated second costs (report.py, from the stats of steps 6 on).
    for solver in wcsph dfsph iisph; do
        timeout 90 "$bin" scenes/sph_dam_break.json --headless --backend cuda --steps 25 \
            --set spacing="$(awk 'BEGIN { printf "%.6g", sqrt(0.32 / 4000000) }')" --set pressure_solver=$solver \
            --stats "$b/sph-$solver-4000000.jsonl" >"$out/log/bench-sph-$solver.txt" 2>&1
    done
    # The same solvers on the bundled SPH scenes, one simulated second each.
    timeout 150 python3 tests/bench/sph_solvers.py "$bin" --backend cuda --json "$b/sph-solvers.json" \
        >"$b/sph-solvers.txt" 2>"$out/log/bench-sph-solvers.txt"
    FS_BENCH_STEPS=50 timeout 150 tests/bench/vortex_bench.sh "$bin" cuda "$b" >"$out/log/bench-vortex.txt" 2>&1
    FS_BENCH_SIZES="10000 100000 1000000" FS_BENCH_STEPS=10 \
        timeout 150 tests/bench/ot_scaling.sh "$bin" cuda "$b" >"$out/log/bench-ot.txt" 2>&1
    # The surface mesh of the 64^3 FLIP dam break (issue 15), on the GPU (its summary lines are
    # copied into the report as they are).
    timeout 120 "$here/$build/tests/surface_bench" cuda 7 >"$b/surface.txt" 2>"$out/log/bench-surface.txt"
    mark bench "$s"
fi

took[total]=$(( $(date +%s) - t0 ))
for k in "${!took[@]}"; do echo "$k ${took[$k]}"; done >"$out/log/seconds.txt"
python3 tests/gpu/report.py "$out" --gpu 1
