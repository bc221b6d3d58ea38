#!/usr/bin/env bash
# The FLIP dam break's fluid volume over 2 s of simulated time (scenes/flip_dam_break.json, 40
# cells along the box), per pressure solver: Jacobi at 20, 100 and 1000 sweeps and MGPCG at its
# default tolerance (1e-6), first without the volume correction (the assignment), then MGPCG with
# APIC transfers and with RK2 / RK3 advection, then the solvers again with the scene's volume
# correction (0.5), MGPCG with each advection scheme.
#   tests/bench/flip_volume.sh [PROGRAM] [BACKEND] [OUT_DIR]     (defaults: build/fluid-sandbox cpu .)
# Prints a Markdown table: the largest |V - V0| / V0 while t <= 2 s; (V - V0) / V0 at the first
# step that reaches t = 2 s, with V0 the volume after the first step; the mean over the steps of
# the pressure solve's relative residual ||b - A p|| / ||b||; and the median milliseconds of the
# pressure_solve and volume_correction stages (their cost; the machine's load shows in it).
# `fluid_volume` is the particles' mass over the bulk's density (docs/solvers/flip.md).
# Keeps the stats files in OUT_DIR as volume-<case>.jsonl.
set -euo pipefail
program=${1:-build/fluid-sandbox}
backend=${2:-cpu}
out=${3:-.}
here=$(cd "$(dirname "$0")/../.." && pwd)
# Enough steps for 2 s: the CFL step is 5-17 ms in this scene (about 240 steps with MGPCG, 320
# with APIC).
steps=${FS_VOLUME_STEPS:-400}
until=2.0

# A row's figures from a stats file (one JSON object per line; the fields read are plain
# numbers). Fails when the run stopped before t = until.
figures() {
    awk -v until="$until" '
        function field(name,   m) {
            if (!match($0, "\"" name "\":[-+0-9.eE]+")) return "";
            m = substr($0, RSTART, RLENGTH);
            return substr(m, index(m, ":") + 1) + 0;
        }
        done { next }
        field("step") == 0 { next }  # the initial state: no fluid_volume before a step
        {
            ++n
            t = field("t"); v = field("fluid_volume");
            residual += field("pressure_residual");
            ms[n] = field("pressure_solve");  # in stages_ms
            cs[n] = field("volume_correction");
            if (n == 1) v0 = v;
            d = (v - v0) / v0;
            if (d < 0 ? -d > worst : d > worst) worst = d < 0 ? -d : d;
            if (t >= until) { done = 1; final = d; tend = t; steps = n }
        }
        END {
            if (!done) { printf "the run ended at t = %s s, before %s s: raise FS_VOLUME_STEPS\n", t, until > "/dev/stderr"; exit 1 }
            printf "%.2f%% | %+.2f%% | %.3g | %.3g | %.3g | %d | %.3f\n", 100 * worst, 100 * final, residual / steps,
                median(ms, steps), median(cs, steps), steps, tend
        }
        function median(a, n,   i, j, x) {
            for (i = 2; i <= n; ++i)  # insertion sort (POSIX awk has no asort)
                for (j = i; j > 1 && a[j - 1] > a[j]; --j) { x = a[j]; a[j] = a[j - 1]; a[j - 1] = x }
            return n % 2 ? a[(n + 1) / 2] : 0.5 * (a[n / 2] + a[n / 2 + 1])
        }' "$1"
}

run() {  # name label settings...
    local name=$1 label=$2
    shift 2
    local args=()
    for s in "$@"; do args+=(--set "$s"); done
    "$program" "$here/scenes/flip_dam_break.json" --headless --backend "$backend" --steps "$steps" \
        "${args[@]}" --stats "$out/volume-$name.jsonl" > /dev/null
    printf '| %s | %s |\n' "$label" "$(figures "$out/volume-$name.jsonl")"
}

echo "| pressure solve | max \|ΔV\|/V0, t ≤ 2 s | ΔV/V0 at 2 s | mean relative residual | pressure_solve ms (median) | volume_correction ms (median) | steps | t (s) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
run jacobi-20 "Jacobi, 20 sweeps" pressure_solver=jacobi jacobi_iterations=20 volume_correction=0
run jacobi-100 "Jacobi, 100 sweeps" pressure_solver=jacobi jacobi_iterations=100 volume_correction=0
run jacobi-1000 "Jacobi, 1000 sweeps" pressure_solver=jacobi jacobi_iterations=1000 volume_correction=0
run mgpcg "MGPCG, 1e-6" pressure_solver=mgpcg volume_correction=0
run mgpcg-apic "MGPCG, 1e-6, APIC" pressure_solver=mgpcg transfer_scheme=apic volume_correction=0
run mgpcg-rk2 "MGPCG, 1e-6, RK2 advection" pressure_solver=mgpcg advection=rk2 volume_correction=0
run mgpcg-rk3 "MGPCG, 1e-6, RK3 advection" pressure_solver=mgpcg advection=rk3 volume_correction=0
run jacobi-20-corrected "Jacobi, 20 sweeps, volume_correction 0.5" pressure_solver=jacobi jacobi_iterations=20 \
    volume_correction=0.5
run jacobi-100-corrected "Jacobi, 100 sweeps, volume_correction 0.5" pressure_solver=jacobi jacobi_iterations=100 \
    volume_correction=0.5
run jacobi-1000-corrected "Jacobi, 1000 sweeps, volume_correction 0.5" pressure_solver=jacobi \
    jacobi_iterations=1000 volume_correction=0.5
run mgpcg-corrected "MGPCG, 1e-6, forward Euler, volume_correction 0.5" pressure_solver=mgpcg \
    advection=forward_euler volume_correction=0.5
run mgpcg-rk2-corrected "MGPCG, 1e-6, RK2, volume_correction 0.5" pressure_solver=mgpcg advection=rk2 \
    volume_correction=0.5
run mgpcg-rk3-corrected "MGPCG, 1e-6, RK3, volume_correction 0.5" pressure_solver=mgpcg advection=rk3 \
    volume_correction=0.5
