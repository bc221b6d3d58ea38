#include "solvers/euler/euler_solver.hpp"

#include "core/memory_budget.hpp"
#include "solvers/common/gravity.hpp"
#include "core/random.hpp"
#include "solvers/common/pair_list.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <numeric>
#include <random>
#include <string>

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
                  "How colliding pairs are found: a uniform grid (counting sort, 3x3 cells) or "
                  "all N^2 pairs. Both find the same pairs."},
                 {"grid", "brute_force"}, &s_.detector);
    r.add_real({"collision_distance", "Collision distance", "Collisions", "m",
                "Particles nearer than this and approaching collide (tutorial: sqrt(0.001)); "
                "also the drawn particle diameter.", 1e-6, 0.5},
               &s_.collision_distance);
    r.add_real({"restitution", "Restitution", "Collisions", "",
                "Ratio of normal relative speed after/before a collision (1: elastic; the "
                "tutorial's collision damping 0.99).", 0, 1},
               &s_.restitution);
    r.add_int({"grid_side", "Grid cells per side", "Diagnostics", "",
               "Cells per axis of the search grid (at least the collision distance wide).", 0,
               1e9, true},
              &s_.grid_side);
}

const std::vector<StageInfo>& EulerSolver::stages() const {
    static const std::vector<StageInfo> kStages = {
        {"forces", "particle tutorial, gravity: V += tau F/m"},
        {"grid_build", "particle tutorial, search grid (counting sort by cell)"},
        {"collide", "particle tutorial, choc/bounce: impulse along the line of centres"},
        {"integrate", "particle tutorial, semi-explicit Euler: x += tau V"},
        {"bounce_on_borders", "particle tutorial, bounce_on_borders"},
    };
    return kStages;
}

std::vector<FieldInfo> EulerSolver::fields() const {
    return {{"position", 2, "m", "particle position"},
            {"velocity", 2, "m/s", "particle velocity"},
            {"speed", 1, "m/s", "|velocity|"},
            {"mass", 1, "kg", "particle mass"},
            {"id", 1, "", "particle index at creation"}};
}

void EulerSolver::read_field(std::string_view name, std::vector<double>& out) const {
    // In the engine's order (all fields alike, until the next step): no sort by id per call.
    HostState s;
    engine_->download(s);
    out.clear();
    const std::size_t n = s.pos.size();
    if (name == "position" || name == "velocity") {
        const auto& v = name == "position" ? s.pos : s.vel;
        out.reserve(2 * n);
        for (const auto& p : v) {
            out.push_back(p.x);
            out.push_back(p.y);
        }
    } else if (name == "speed") {
        for (const auto& v : s.vel) out.push_back(std::sqrt(v.x * v.x + v.y * v.y));
    } else if (name == "mass") {
        out = s.mass;
    } else if (name == "id") {
        out.assign(s.id.begin(), s.id.end());
    } else {
        throw ParamError("the euler solver has no field '" + std::string(name) +
                         "' (allowed: position, velocity, speed, mass, id)");
    }
}

Config EulerSolver::config() const {
    Config c;
    c.tau = s_.tau;
    c.gravity = gravity_vector<2>(s_.gravity, s_.gravity_direction);
    c.boundary = s_.boundary;
    c.wall_damping = s_.wall_damping;
    c.collisions = s_.collisions;
    c.detector = s_.detector;
    c.distance2 = s_.collision_distance * s_.collision_distance;
    c.restitution = s_.restitution;
    c.grid = grid::make_grid({0.0, 0.0}, {1.0, 1.0}, s_.collision_distance, particle_count());
    return c;
}

void EulerSolver::do_reset() {
    for (int k = 0; k < 2; ++k)
        if (s_.spawn_min[k] > s_.spawn_max[k])
            throw ParamError("spawn_min must not exceed spawn_max (component " + std::to_string(k) +
                             ": " + std::to_string(s_.spawn_min[k]) + " > " +
                             std::to_string(s_.spawn_max[k]) + ")");
    // seed 000, initialisation: positions in the spawn box, speeds initial_speed * (rand - 0.5).
    const auto n = static_cast<std::size_t>(s_.n_particles);
    // About 180 bytes a particle: the state, its sort copies, partners, the grid's sort, the host copy.
    check_memory("n_particles", std::to_string(n) + " particles", 180.0 * static_cast<double>(n), backend());
    HostState h;
    h.pos.resize(n);
    h.vel.resize(n);
    h.mass.resize(n);
    h.id.resize(n);
    std::mt19937_64 rng(static_cast<std::uint64_t>(s_.seed));
    for (std::size_t v = 0; v < n; ++v) {
        h.pos[v].x = s_.spawn_min[0] + (s_.spawn_max[0] - s_.spawn_min[0]) * uniform01(rng);
        h.pos[v].y = s_.spawn_min[1] + (s_.spawn_max[1] - s_.spawn_min[1]) * uniform01(rng);
        h.vel[v].x = s_.initial_speed * (uniform01(rng) - 0.5);
        h.vel[v].y = s_.initial_speed * (uniform01(rng) - 0.5);
        h.mass[v] = s_.mass * (1.0 + s_.mass_variation * (2.0 * uniform01(rng) - 1.0));
        h.id[v] = static_cast<int>(v);
    }
    set_state(h);
}

void EulerSolver::on_upload() { s_.grid_side = config().grid.nx; }

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
}

std::vector<std::pair<int, int>> EulerSolver::candidate_pairs() {
    return engine_->candidate_pairs(config());
}

}  // namespace fs::euler
