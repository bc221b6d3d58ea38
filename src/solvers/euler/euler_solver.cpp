#include "solvers/euler/euler_solver.hpp"

#include "core/memory_budget.hpp"
#include "solvers/common/gravity.hpp"
#include "core/random.hpp"
#include "solvers/common/pair_list.hpp"
#include "solvers/euler/euler_simd.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <numeric>
#include <random>
#include <string>
#include <unordered_map>

namespace fs::euler {

EulerSolver::EulerSolver(Backend backend) : EngineSolver(backend) {
    auto& r = params_;
    r.add_int({"n_particles", "Particles", "Particles", "",
               "Number of particles (the tutorial's N).", 1, 1e8, false, true},
              &s_.n_particles);
    add_seed(&s_.seed, "Particles", "the random initial positions, velocities and masses");
    r.add_vec({"spawn_min", "Spawn box min", "Particles", "m",
               "Lower corner of the box initial positions are drawn from (tutorial: 0.1).", 0, 1,
               false, true},
              s_.spawn_min, 2);
    r.add_vec({"spawn_max", "Spawn box max", "Particles", "m",
               "Upper corner of the box initial positions are drawn from (tutorial: 0.9).", 0, 1,
               false, true},
              s_.spawn_max, 2);
    r.add_real({"initial_speed", "Initial speed", "Particles", "m/s",
                "Each velocity component is initial_speed * (rand - 0.5) (tutorial: 3).", 0, 1e3,
                false, true},
               &s_.initial_speed);
    r.add_real({"mass", "Mass", "Particles", "kg", "Mean particle mass (tutorial: 1).", 1e-9, 1e9,
                false, true},
               &s_.mass);
    r.add_real({"mass_variation", "Mass variation", "Particles", "",
                "Masses are drawn uniformly from mass * [1 - v, 1 + v].", 0, 0.99, false, true},
               &s_.mass_variation);
    r.add_real({"tau", "Time step", "Time", "s",
                "The step of semi-explicit Euler: V += tau F/m, x += tau V (particle tutorial).", 1e-7, 0.1},
               &s_.tau);
    add_gravity(&s_.gravity, s_.gravity_direction, 2, " (tutorial: 9.81)");
    hands_.strength = 50.0;
    add_hands(&hands_, kHandPushPull);
    r.add_choice({"boundary", "Boundary", "Borders", "",
                  "walls: bounce on the borders of the unit square (particle tutorial, bounce_on_borders); "
                  "periodic: leave on one side, enter on the other, collide across borders "
                  "(momentum is conserved); open: no borders."},
                 {"walls", "periodic", "open"}, &s_.boundary);
    r.add_real({"wall_damping", "Wall damping", "Borders", "",
                "Velocity factor at each bounce on a border (tutorial: 0.9; 1 is elastic).", 0, 1},
               &s_.wall_damping);
    r.add_bool({"collisions", "Collisions", "Collisions", "",
                "Particle-particle collisions on or off (the tutorial's switch)."},
               &s_.collisions);
    r.add_choice({"detector", "Detector", "Collisions", "",
                  "How colliding pairs are found: a uniform grid (counting sort; each particle reads the 2x2 "
                  "cells on its side of its own, cells over twice the reach wide) or "
                  "all N^2 pairs. Both find the same pairs."},
                 {"grid", "brute_force"}, &s_.detector);
    r.add_real({"collision_distance", "Collision distance", "Collisions", "m",
                "Particles nearer than this and approaching collide (tutorial: sqrt(0.001)); "
                "also the drawn particle diameter.", 1e-6, 0.5},
               &s_.collision_distance);
    r.add_real({"restitution", "Restitution", "Collisions", "",
                "Ratio of normal relative speed after/before a collision (1: elastic; the "
                "tutorial's collision damping 0.99). Soft contact sets its dashpot from it, down "
                "to 0.14 (its most damped contact).", 0, 1},
               &s_.restitution);
    r.add_choice({"contact", "Contact", "Collisions", "",
                  "impulse: the particle tutorial's collisions, one impulse per pair that meets per "
                  "step; nothing holds resting particles apart, so a pile sinks into itself "
                  "(watch max_overlap reach 1). soft: spring-dashpot contacts between every "
                  "overlapping pair and with the walls (discrete element method, Cundall & Strack "
                  "1979), in sub-steps: a pile comes to rest as a heap."},
                 {"impulse", "soft"}, &s_.contact);
    r.add_real({"contact_stiffness", "Contact stiffness", "Collisions", "N/m",
                "Soft contact: the spring constant k. A heap of height H rests on overlaps of "
                "about m g H / (k d) of the diameter d; stiffer contacts take more sub-steps.",
                1e-6, 1e12},
               &s_.contact_stiffness);
    r.add_int({"substeps", "Contact sub-steps", "Diagnostics", "",
               "Soft contact: sub-steps per step, h = tau / substeps <= 0.2 / omega_0 with "
               "omega_0 = sqrt(k / m_eff) for the lightest pair (at most 1000).", 0, 1e9, true},
              &s_.substeps);
    r.add_int({"grid_side", "Grid cells per side", "Diagnostics", "",
               "Cells per axis of the search grid (each over twice the collision distance wide).", 0,
               1e9, true},
              &s_.grid_side);
}

// The stages and fields are declared once, in euler_engine.hpp.
const std::vector<StageInfo>& EulerSolver::stages() const {
    static const std::vector<StageInfo> kInfos = stage_infos(kStages);
    return kInfos;
}

std::vector<FieldInfo> EulerSolver::fields() const { return field_infos<HostState>(); }

void EulerSolver::read_field(std::string_view name, std::vector<double>& out) const {
    HostState s;
    engine_->download(s);  // as it lies: every field in the same order until the next step
    read_declared_field(kind(), name, s, out);
}

Config EulerSolver::config() const {
    Config c;
    c.tau = s_.tau;
    c.gravity = gravity_vector<2>(s_.gravity, s_.gravity_direction);
    c.hand = hand_force<dvec2>(hand_, hands_);
    c.boundary = s_.boundary;
    c.wall_damping = s_.wall_damping;
    c.collisions = s_.collisions;
    c.detector = s_.detector;
    c.distance2 = s_.collision_distance * s_.collision_distance;
    c.restitution = s_.restitution;
    c.contact = s_.contact;
    c.diameter = s_.collision_distance;
    double reach = s_.collision_distance;
    if (c.contact == kSoft) {
        c.stiffness = s_.contact_stiffness;
        c.zeta = damping_ratio(s_.restitution);
        // The stiffest pair oscillates at omega_0 = sqrt(k / m_eff), m_eff = m/2 for two of the
        // lightest particles. Semi-implicit Euler is stable for h omega_0 < 2; at h omega_0 <= 0.2
        // a collision takes about 15 sub-steps and ends within 2% of the restitution asked
        // (measured by EulerSoftContact.TwoBodyCollisionKeepsMomentumAndEndsWithTheRestitution).
        const double omega = std::sqrt(c.stiffness / (0.5 * min_mass_));
        // At most 1000 sub-steps a step, so that no stiffness in range freezes the program: past
        // that h omega_0 grows, and beyond 2 the contacts blow up, which the step reports.
        const double n = std::ceil(c.tau * omega / 0.2);
        c.substeps = static_cast<int>(std::clamp(n, 1.0, 1000.0));
        // The grid looks d + skin far, so that it serves the sub-steps until a particle has
        // moved skin/2 (then it is rebuilt): 0.4 of a step at the last step's top speed (plus
        // this step's gravity kick), and never under a tenth of d. Any skin gives the same forces (the
        // list only has to hold every pair that can touch before it is remade); a thin one makes
        // each of the 15 sub-steps test fewer pairs and the list be remade more often. Measured
        // on `default` (600 steps, 2 threads): 3 tau v, 72 000 pairs in the list, 11.8 ms a step;
        // 2 tau v 9.4 ms; tau v, 18 000 pairs, 6.6 ms; 0.7 tau v 6.1 ms (the remaking's share
        // grows); the heap the same to the last bit in every case. With each pair's force once
        // (euler_pipeline.hpp, steps 101-400): 0.7 and 1 tau v 2.5 ms, 1.3 tau v 3.3 ms; a skin
        // per particle from its own speed (the heap's thinner) 2.45-2.9 ms: not kept. With the
        // list filled in one search (steps 101-200): 0.6 and 0.8 tau v 1.86 ms, tau v 2.1 ms,
        // 1.2 tau v 2.3 ms; over steps 1-600, 0.7 / 0.8 / 1 tau v: 1.77 / 1.67 / 1.73 ms.
        const double speed = max_speed_ + c.tau * std::sqrt(glm::dot(c.gravity, c.gravity));
        c.skin = std::max(0.1 * c.diameter, 0.8 * c.tau * speed);
        c.skin = std::min(c.skin, 0.25);
        reach += c.skin;
        c.force_scale = 1099511627776.0 / (c.stiffness * c.diameter);  // 2^40 / (k d)
    }
    // At most two cells a particle (make_grid), or one where the CPU's eight-lane partner search
    // runs (euler_simd.hpp): its cost hardly grows with a run's length while the grid's fill of
    // its cell ranges halves (the gas at N = 1e6, 1 thread: grid_build 22.9 -> 19.5 ms, collide
    // the same; the scalar loop measured slower so: collide 43 -> 50 ms). Soft contact searches
    // the 3x3 block of reach-wide cells (9 reach^2 of candidates against 16), as its list is
    // remade about twice a step: `default` 2.3 -> 2.0-2.1 ms a step (steps 101-400, 2 threads),
    // the same forces (the list's extent changes none).
    const bool lanes = backend() == Backend::Cpu && c.contact == kImpulse && simd::available();
    c.grid = grid::make_grid({0.0, 0.0}, {1.0, 1.0}, reach, lanes ? particle_count() / 2 : particle_count(),
                             c.contact == kSoft ? 3 : 2);
    return c;
}

// The pair tests a step costs, estimated before it runs: each particle tests the particles of at
// least a 3 x 3 reach square around it (the grid detector; its 2x2 cells, each over twice the
// reach wide, cover more) or all of them (brute force). At the start the particles crowd the
// spawn box (later they spread over the unit box), so the density is taken
// there. Past the bound a step would take minutes: at collision_distance 0.5 the 100 000 disks of
// euler_gas made 1e10 tests a step, and two steps gave no answer in a minute.
void EulerSolver::check_params() const {
    // About 180 bytes a particle: the state, its sort copies, partners, the grid's sort, the host
    // copy; soft contact about 300 more: rows of 16 or more list entries and their slots (4 bytes
    // each), and each pair's ends and force (euler_pipeline.hpp, build_contact_list).
    const double per_particle = s_.contact == kSoft && s_.collisions ? 480.0 : 180.0;
    check_memory("n_particles", std::to_string(s_.n_particles) + " particles",
                 per_particle * static_cast<double>(s_.n_particles), backend());
    if (!s_.collisions) return;
    const double n = static_cast<double>(s_.n_particles);
    const double d = s_.collision_distance;
    const double spawn = std::max(0.0, s_.spawn_max[0] - s_.spawn_min[0]) * std::max(0.0, s_.spawn_max[1] - s_.spawn_min[1]);
    const double area = std::clamp(spawn, d * d, 1.0);
    const bool brute = s_.detector == kBruteForce;
    const bool gpu = backend() == Backend::Cuda;
    if (s_.contact == kSoft) {
        // Soft contact: every sub-step evaluates each particle's contact list, whose reach is
        // d + skin (config()): the sub-steps from the lightest pair's frequency, the skin from the
        // start's speed. Measured here: the default scene at tau 0.1 (708 sub-steps, reach 0.26 m,
        // about 640 others) took 3.7 s a step, about 3.6e8 contact tests a second.
        const double m = s_.mass * (1.0 - s_.mass_variation);
        const double omega = std::sqrt(s_.contact_stiffness / (0.5 * std::max(m, 1e-300)));
        const double substeps = std::clamp(std::ceil(s_.tau * omega / 0.2), 1.0, 1000.0);
        const double g = std::abs(s_.gravity);
        const double skin = std::min(0.25, std::max(0.1 * d, 3.0 * s_.tau * (s_.initial_speed + s_.tau * g)));
        const double reach = d + skin;
        const double near = std::min(n, n * 3.14159265358979 * reach * reach / std::clamp(spawn, reach * reach, 1.0));
        const double work = n * substeps * (1.0 + near);
        const double allowed = gpu ? 1e11 : 1e9;
        if (work <= allowed) return;
        throw ParamError("tau: " + number_text(s_.tau) + " s with contact_stiffness " + number_text(s_.contact_stiffness) +
                         " N/m and " + std::to_string(s_.n_particles) + " particles means about " +
                         scientific_text(substeps) + " contact sub-steps a step, each testing about " +
                         scientific_text(near) + " neighbours a particle (" + scientific_text(work) +
                         " tests a step); allowed: at most " + scientific_text(allowed) + " on the " +
                         (gpu ? "CUDA" : "CPU") + " backend (a smaller tau or contact_stiffness, heavier particles, "
                         "or contact impulse)");
    }
    const double others = brute ? n : std::min(n, 9.0 * n * d * d / area);
    const double tests = n * others;
    // About 2.9e8 tests a second on 2 CPU cores here (brute force, 2e4 disks), 4e11 on an H100:
    // the bounds are a few seconds a step on either.
    const double allowed = gpu ? 1e11 : 1e9;
    if (tests <= allowed) return;
    const std::string key = brute ? "detector" : "collision_distance";
    throw ParamError(key + ": " + (brute ? "brute_force" : number_text(d)) + " with " +
                     std::to_string(s_.n_particles) + " particles means about " + scientific_text(tests) +
                     " pair tests a step (each particle against about " + scientific_text(others) +
                     " others); allowed: at most " + scientific_text(allowed) + " on the " +
                     (gpu ? "CUDA" : "CPU") + " backend (" +
                     (brute ? "the grid detector, or fewer n_particles" : "a smaller collision_distance or fewer n_particles") +
                     (gpu ? ")" : ", or the CUDA backend)"));
}

void EulerSolver::do_reset() {
    for (int k = 0; k < 2; ++k)
        if (s_.spawn_min[k] > s_.spawn_max[k])
            throw ParamError("spawn_min must not exceed spawn_max (component " + std::to_string(k) +
                             ": " + std::to_string(s_.spawn_min[k]) + " > " +
                             std::to_string(s_.spawn_max[k]) + ")");
    // the particle tutorial, initialisation: positions in the spawn box, speeds initial_speed * (rand - 0.5).
    const auto n = static_cast<std::size_t>(s_.n_particles);
    HostState h;
    h.pos.resize(n);
    h.vel.resize(n);
    h.mass.resize(n);
    h.id.resize(n);
    std::mt19937_64 rng(static_cast<std::uint64_t>(s_.seed));
    // Soft contacts turn an overlap into stored spring energy, so a random start with overlaps
    // would burst apart at the first step. With soft contact the positions are therefore drawn
    // by random sequential addition: a draw that overlaps a particle already placed is drawn
    // again, up to 100 times (the spawn box holds about 55% of its area in disks this way, the
    // jamming limit of the method; past it the last draw stands and overlaps remain).
    const bool spread = s_.contact == kSoft && s_.collisions;
    const double d = s_.collision_distance;
    std::unordered_map<long long, std::vector<int>> placed;
    auto key = [&](long long cx, long long cy) { return cx * 4000037LL + cy; };
    auto cell = [&](double x) { return static_cast<long long>(std::floor(x / d)); };
    auto overlaps = [&](dvec2 p) {
        for (long long cx = cell(p.x) - 1; cx <= cell(p.x) + 1; ++cx)
            for (long long cy = cell(p.y) - 1; cy <= cell(p.y) + 1; ++cy) {
                const auto it = placed.find(key(cx, cy));
                if (it == placed.end()) continue;
                for (int j : it->second)
                    if (glm::dot(h.pos[j] - p, h.pos[j] - p) < d * d) return true;
            }
        return false;
    };
    for (std::size_t v = 0; v < n; ++v) {
        for (int attempt = 0; attempt < (spread ? 100 : 1); ++attempt) {
            h.pos[v].x = s_.spawn_min[0] + (s_.spawn_max[0] - s_.spawn_min[0]) * uniform01(rng);
            h.pos[v].y = s_.spawn_min[1] + (s_.spawn_max[1] - s_.spawn_min[1]) * uniform01(rng);
            if (!spread || !overlaps(h.pos[v])) break;
        }
        if (spread) placed[key(cell(h.pos[v].x), cell(h.pos[v].y))].push_back(static_cast<int>(v));
        h.vel[v].x = s_.initial_speed * (uniform01(rng) - 0.5);
        h.vel[v].y = s_.initial_speed * (uniform01(rng) - 0.5);
        h.mass[v] = s_.mass * (1.0 + s_.mass_variation * (2.0 * uniform01(rng) - 1.0));
        h.id[v] = static_cast<int>(v);
    }
    set_state(h);
}

void EulerSolver::on_upload() {
    const Sums s = engine_->sums();
    min_mass_ = s.min_mass < 1e300 ? s.min_mass : s_.mass;
    max_speed_ = std::sqrt(s.max_speed2);
    refresh_diagnostics();
}

void EulerSolver::refresh_diagnostics() {
    const Config c = config();
    s_.grid_side = c.grid.nx;
    s_.substeps = c.substeps;
}

std::vector<int> EulerSolver::partners() const {
    HostState raw;
    engine_->download(raw);
    const std::vector<int> partner = engine_->partners();
    const auto order = grid::order_by_id(raw.id);
    std::vector<int> rank(order.size());
    for (std::size_t r = 0; r < order.size(); ++r) rank[order[r]] = static_cast<int>(r);
    std::vector<int> out(order.size());
    for (std::size_t r = 0; r < order.size(); ++r) {
        const int p = partner[order[r]];
        out[r] = p < 0 ? -1 : rank[static_cast<std::size_t>(p)];
    }
    return out;
}

void EulerSolver::run_stage(int index) {
    const Config c = config();
    s_.grid_side = c.grid.nx;
    s_.substeps = c.substeps;
    engine_->run_stage(index, c);
}

double EulerSolver::finish_step(Stats& out) {
    const Sums s = engine_->sums();
    const std::string step = "step " + std::to_string(step_count() + 1) + ": ";
    if (s.nonfinite > 0)
        throw SimulationError(step + std::to_string(s.nonfinite) +
                              " particle(s) have a NaN or infinite position or velocity");
    // A particle that crosses the whole box in one step has left the regime the method is
    // meant for (collisions are missed, walls tunnelled): a blow-up, not a result.
    const double max_speed = std::sqrt(s.max_speed2);
    if (max_speed * s_.tau > 1.0)
        throw SimulationError(step + "max_speed " + std::to_string(max_speed) +
                              " m/s moves a particle farther than the box in one step of tau = " +
                              std::to_string(s_.tau) + " s (smaller tau, or lower speeds)");
    report(s, out);
    min_mass_ = s.min_mass < 1e300 ? s.min_mass : s_.mass;
    max_speed_ = max_speed;
    return s_.tau;
}

void EulerSolver::initial_stats(Stats& out) { report(engine_->sums(), out); }

void EulerSolver::report(const Sums& s, Stats& out) const {
    out.set("kinetic_energy", s.kinetic_energy);
    out.set("momentum", std::vector<double>{s.momentum.x, s.momentum.y});
    out.set("max_speed", std::sqrt(s.max_speed2));
    out.set_count("collisions", s.matched / 2);
    out.set_count("contacts", s.contacts);
    out.set_count("pair_tests", s.pair_tests);
    out.set("max_overlap", s.max_overlap);
}

std::vector<std::pair<int, int>> EulerSolver::candidate_pairs() {
    return engine_->candidate_pairs(config());
}

}  // namespace fs::euler
