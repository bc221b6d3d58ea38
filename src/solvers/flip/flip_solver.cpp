#include "solvers/flip/flip_solver.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include "core/memory_budget.hpp"
#include "solvers/common/gravity.hpp"
#include "core/random.hpp"

namespace fs::flip {

FlipSolver::FlipSolver(Backend backend) : EngineSolver(backend) {
    auto& r = params_;
    r.add_vec({"domain_size", "Box size", "Scene", "m", "Width, height and depth of the box (its walls are solid).",
               0.01, 100, false, true},
              s_.domain_size, 3);
    r.add_int({"resolution", "Grid resolution", "Scene", "", "Cells along the box's longest side.", 2, 1024, false,
               true},
              &s_.resolution);
    r.add_vec({"fluid_box", "Fluid block", "Scene", "m", "x0, y0, z0, x1, y1, z1 of the water at the start.",
               -100, 100, false, true},
              s_.fluid_box, 6);
    r.add_vec({"fluid_box_2", "Second fluid block", "Scene", "m", "A second block (empty when x1 <= x0).", -100,
               100, false, true},
              s_.fluid_box_2, 6);
    r.add_int({"particles_per_cell", "Particles per cell", "Scene", "",
               "Seeded per fluid cell: 1, 8 (2x2x2, the default) or 27 (3x3x3).", 1, 27, false, true},
              &s_.particles_per_cell);
    r.add_real({"jitter", "Jitter", "Scene", "", "Random offset of seeded particles, in sub-cells.", 0, 1, false, true},
               &s_.jitter);
    add_seed(&s_.seed, "Scene", "the jitter");
    r.add_vec({"obstacle_box", "Obstacle box", "Scene", "m",
               "A solid box (empty when x1 <= x0), where Reset puts it; a hand can drag it.", -100, 100},
              s_.obstacle_box, 6);
    r.add_vec({"obstacle_sphere", "Obstacle sphere", "Scene", "m", "Centre and radius of a solid sphere "
               "(radius 0: none), where Reset puts it; a hand can drag it.", -100, 100},
              s_.obstacle_sphere, 4);
    r.add_choice({"transfer_scheme", "Transfer scheme", "Transfer", "",
                  "pic_flip: particles carry a velocity, G2P blends PIC and FLIP by flip_ratio (PIC-FLIP assignment); "
                  "apic: particles also carry the velocity's gradient C, P2G transfers v_p + C (x_face - x_p) "
                  "and G2P sets v = interp(u_new) and C from the same faces (Jiang et al. 2015). "
                  "Switching to apic starts from C = 0."},
                 {"pic_flip", "apic"}, &s_.transfer_scheme);
    r.add_choice({"advection", "Advection", "Transfer", "",
                  "How particles move, last in the step: forward_euler, x += dt v with the particle's velocity "
                  "(PIC-FLIP assignment); rk2 (midpoint) or rk3 (Ralston) through the grid's divergence-free velocity "
                  "(Bridson 2015, 3.1), which keeps particles from drifting together and losing volume."},
                 {"forward_euler", "rk2", "rk3"}, &s_.advection);
    r.add_real({"flip_ratio", "FLIP ratio", "Transfer", "",
                "Weight of the FLIP part in G2P: v = flip_ratio (v_p + interp(u_new - u_old)) + (1 - flip_ratio) "
                "interp(u_new); the assignment's alpha is 1 - flip_ratio (PIC-FLIP assignment, Grid-to-Particle). "
                "Only for transfer_scheme = pic_flip; apic ignores it.",
                0, 1},
               &s_.flip_ratio);
    r.add_real({"volume_correction", "Volume correction", "Transfer", "",
                "Share k of the particles' crowding removed each step: in G2P the particles also move by "
                "d = -grad q with div d = k (n / particles_per_cell - 1), n the particles in a cell "
                "(Kugelstadt et al. 2019); positions only, velocities are left alone. 0 reproduces the "
                "assignment, whose FLIP particles drift together and lose volume; 0.5 keeps it within "
                "about 1%. Costs one more pressure solve per step.",
                0, 1},
               &s_.volume_correction);
    r.add_choice({"transfer", "Transfer weights", "Transfer", "",
                  "P2G and G2P kernel, for either transfer scheme: linear (trilinear, PIC-FLIP assignment) or the "
                  "quadratic B-spline (3 nodes per axis: what the assignment calls its cubic B-spline)."},
                 {"linear", "quadratic"}, &s_.transfer);
    r.add_choice({"pressure_solver", "Pressure solver", "Pressure", "",
                  "jacobi: the assignment's iteration with relaxation; gauss_seidel: red-black with "
                  "over-relaxation; mgpcg: CG preconditioned by a multigrid V-cycle (McAdams et al. 2010)."},
                 {"jacobi", "gauss_seidel", "mgpcg"}, &s_.pressure_solver);
    r.add_int({"jacobi_iterations", "Jacobi iterations", "Pressure", "",
               "Sweeps of the Jacobi solve (PIC-FLIP assignment: 500-1000 keep the volume).", 1, 100000},
              &s_.jacobi_iterations);
    r.add_real({"jacobi_relaxation", "Jacobi relaxation", "Pressure", "",
                "alpha of p = alpha p_jacobi + (1 - alpha) p_old (PIC-FLIP assignment, Jacobi Iteration).", 0.01, 1},
               &s_.jacobi_relaxation);
    r.add_int({"gauss_seidel_iterations", "Gauss-Seidel iterations", "Pressure", "", "Red-black sweeps.", 1, 100000},
              &s_.gauss_seidel_iterations);
    r.add_real({"sor_omega", "SOR omega", "Pressure", "", "Over-relaxation of Gauss-Seidel, in (0, 2).", 0.1, 1.99},
               &s_.sor_omega);
    r.add_real({"mgpcg_tolerance", "MGPCG tolerance", "Pressure", "",
                "Relative residual at which MGPCG stops.", 1e-12, 0.1},
               &s_.mgpcg_tolerance);
    r.add_int({"mgpcg_max_iterations", "MGPCG max iterations", "Pressure", "", "Upper bound of CG iterations.", 1,
               10000},
              &s_.mgpcg_max_iterations);
    r.add_real({"wall_friction", "Wall friction", "Fluid", "",
                "Darcy friction factor f of the walls and obstacles: the liquid beside them feels the shear "
                "stress rho f |u| u / 8 (Darcy-Weisbach; Dressler 1952, Chanson 2009 on the dam-break wave). "
                "0: free-slip walls (the PIC-FLIP assignment); 0.02-0.05 a laboratory flume's floor.",
                0, 10},
               &s_.wall_friction);
    r.add_real({"density", "Density", "Fluid", "kg/m^3", "rho of the pressure equation.", 1, 1e5}, &s_.density);
    add_gravity(&s_.gravity, s_.gravity_direction, 3);
    r.add_real({"cfl", "CFL number", "Time", "", "dt = cfl dx / max speed: cells a particle may cross per step.",
                0.05, 5},
               &s_.cfl);
    r.add_real({"max_dt", "Largest time step", "Time", "s", "Upper bound of dt.", 1e-6, 0.1}, &s_.max_dt);
    // The hands at the scale of the default tank (1 m, 40 cells): a cursor's circle of about six
    // cells, a push of about three g at the ray, and a second's pour of 20000 particles (2500
    // cells at 8 a cell, about a litre and a half at that resolution).
    hands_.radius = 0.08;
    hands_.strength = 200.0;  // about 20 g, as for the other liquids: a push digs a dent deeper than its radius
    hands_.drag_speed = 1.0;
    hands_.pour_rate = 20000.0;
    add_hands(&hands_, hand_tools());
    r.add_real({"time_step", "Time step", "Diagnostics", "s", "dt of the last step.", 0, 1e300, true},
               &s_.time_step);
    r.add_choice({"dt_limit", "Time step set by", "Diagnostics", "",
                  "Which bound set the last dt: max_dt, or cfl (cells the fastest particle may cross).", 0, 0,
                  true},
                 {"max_dt", "cfl"}, &s_.dt_limit);
    r.add_int({"pressure_iterations_used", "Pressure iterations", "Diagnostics", "", "Of the last solve.", 0, 9e15,
               true},
              &s_.pressure_iterations);
    r.add_real({"pressure_residual_reached", "Pressure residual", "Diagnostics", "",
                "Relative residual of the last solve.", 0, 1e300, true},
               &s_.pressure_residual);
}

const std::vector<StageInfo>& FlipSolver::stages() const {
    static const std::vector<StageInfo> kStages = {
        {"hands", "a dragged obstacle moves toward the cursor by at most drag_speed dt, a moving boundary for the "
                  "step (Bridson 2015, 5.1), and pushes the particles it covers out; pouring seeds the "
                  "particles_per_cell lattice (as the PIC-FLIP assignment seeds fluid cells) in the empty cells within "
                  "the hand's radius"},
        {"p2g", "PIC-FLIP assignment, Particle-to-Grid (APIC: v_p + C_p (x_face - x_p), Jiang et al. 2015)"},
        {"body_forces", "PIC-FLIP assignment, Body Force: u += dt g on the grid; a pushing or pulling hand's force on "
                        "the faces within its radius (after Lague 2023, solvers/common/hands.hpp)"},
        {"occupancy", "PIC-FLIP assignment: fluid / air / solid per cell"},
        {"divergence", "PIC-FLIP assignment, Divergence Operator; before it, where wall_friction > 0, the walls' "
                       "Darcy-Weisbach shear on the faces beside them (Dressler 1952)"},
        {"pressure_solve", "PIC-FLIP assignment, Pressure Projection: A p = -(rho dx^2/dt) div"},
        {"pressure_gradient", "PIC-FLIP assignment, Gradient Operator: u -= dt/rho grad p"},
        {"volume_correction", "crowded particles' displacement d = -grad q, div d = k (n / n0 - 1) (Kugelstadt et "
                              "al. 2019), applied by g2p; only when volume_correction > 0"},
        {"g2p", "PIC-FLIP assignment, Grid-to-Particle: PIC/FLIP blend, or APIC (Jiang et al. 2015); moves the particles by "
                "the volume correction's d"},
        {"advect", "PIC-FLIP assignment, Advection: x += dt v (forward Euler), or through the grid's velocity by RK2 / RK3 "
                   "(Bridson 2015, 3.1)"},
    };
    return kStages;
}

std::vector<FieldInfo> FlipSolver::fields() const {
    return {{"position", 3, "m", "particle position"},
            {"velocity", 3, "m/s", "particle velocity"},
            {"speed", 1, "m/s", "|velocity|"},
            {"pressure", 1, "Pa", "pressure of the particle's cell, from the last solve"},
            {"id", 1, "", "particle index at creation"}};
}

void FlipSolver::read_field(std::string_view name, std::vector<double>& out) const {
    HostState s;
    if (read_particle_field(name, s, out)) {
        return;
    } else if (name == "pressure") {
        // The pressure of the cell each particle is in (a hydrostatic profile reads rho g depth
        // at the cells' centres); 0 before the first solve.
        out = engine_->particle_pressures();
    } else {
        throw ParamError("the flip solver has no field '" + std::string(name) +
                         "' (allowed: position, velocity, speed, pressure, id)");
    }
}

MacGrid FlipSolver::grid() const {
    const double longest = std::max({s_.domain_size[0], s_.domain_size[1], s_.domain_size[2]});
    MacGrid g;
    g.dx = longest / static_cast<double>(s_.resolution);
    g.nx = std::max(1, static_cast<int>(std::lround(s_.domain_size[0] / g.dx)));
    g.ny = std::max(1, static_cast<int>(std::lround(s_.domain_size[1] / g.dx)));
    g.nz = std::max(1, static_cast<int>(std::lround(s_.domain_size[2] / g.dx)));
    g.origin = dvec3(0.0);
    return g;
}

double FlipSolver::particle_radius() const {
    const double per_side = std::cbrt(static_cast<double>(s_.particles_per_cell));
    return 0.5 * grid().dx / per_side;
}

void FlipSolver::domain(double lo[3], double hi[3]) const {
    const MacGrid g = grid();
    for (int k = 0; k < 3; ++k) lo[k] = 0.0;
    hi[0] = g.nx * g.dx;
    hi[1] = g.ny * g.dx;
    hi[2] = g.nz * g.dx;
}

FlipSolver::Bodies FlipSolver::bodies_now() const {
    Bodies b = bodies_;
    if (!std::equal(s_.obstacle_box, s_.obstacle_box + 6, b.placed_box)) {
        std::copy(s_.obstacle_box, s_.obstacle_box + 6, b.box);
        std::copy(s_.obstacle_box, s_.obstacle_box + 6, b.placed_box);
        b.box_velocity = dvec3(0.0);
    }
    if (!std::equal(s_.obstacle_sphere, s_.obstacle_sphere + 3, b.placed_sphere)) {
        std::copy(s_.obstacle_sphere, s_.obstacle_sphere + 3, b.sphere);
        std::copy(s_.obstacle_sphere, s_.obstacle_sphere + 3, b.placed_sphere);
        b.sphere_velocity = dvec3(0.0);
    }
    return b;
}

bool FlipSolver::has_box(const Bodies& b) const {
    return b.box[3] > b.box[0] && b.box[4] > b.box[1] && b.box[5] > b.box[2];
}

std::vector<Obstacle> FlipSolver::obstacles() const {
    std::vector<Obstacle> out;
    const Bodies b = bodies_now();
    if (has_box(b)) {
        Obstacle o;
        o.shape = Obstacle::Shape::Box;
        o.name = "box";
        o.draggable = true;
        for (int k = 0; k < 3; ++k) {
            o.lo[k] = b.box[k];
            o.hi[k] = b.box[k + 3];
            o.anchor[k] = 0.5 * (b.box[k] + b.box[k + 3]);
        }
        out.push_back(o);
    }
    if (s_.obstacle_sphere[3] > 0) {
        Obstacle o;
        o.shape = Obstacle::Shape::Sphere;
        o.name = "sphere";
        o.draggable = true;
        for (int k = 0; k < 3; ++k) o.center[k] = o.anchor[k] = b.sphere[k];
        o.radius = s_.obstacle_sphere[3];
        out.push_back(o);
    }
    return out;
}

void FlipSolver::keep_body_poses() {
    bodies_ = bodies_now();
    std::copy(bodies_.box, bodies_.box + 6, s_.obstacle_box);
    std::copy(bodies_.box, bodies_.box + 6, bodies_.placed_box);
    std::copy(bodies_.sphere, bodies_.sphere + 3, s_.obstacle_sphere);
    std::copy(bodies_.sphere, bodies_.sphere + 3, bodies_.placed_sphere);
}

// The cells as the last occupancy stage classified them (the window's cell overlay).
void FlipSolver::cell_grid(CellGrid& out) const {
    const MacGrid g = grid();
    out.n[0] = g.nx;
    out.n[1] = g.ny;
    out.n[2] = g.nz;
    for (int k = 0; k < 3; ++k) out.origin[k] = g.origin[k];
    out.dx = g.dx;
    const std::vector<unsigned char> types = engine_ ? engine_->cell_types() : std::vector<unsigned char>{};
    out.kind.resize(types.size());
    for (std::size_t c = 0; c < types.size(); ++c)
        out.kind[c] = types[c] == kFluid ? CellGrid::Fluid : types[c] == kSolid ? CellGrid::Solid : CellGrid::Air;
}

Config FlipSolver::config() const {
    Config c;
    c.grid = grid();
    c.dt = dt_;
    c.gravity = gravity_vector<3>(s_.gravity, s_.gravity_direction);
    c.density = s_.density;
    c.flip_ratio = s_.flip_ratio;
    c.particles_per_cell = static_cast<int>(s_.particles_per_cell);
    c.volume_correction = s_.volume_correction;
    c.wall_friction = s_.wall_friction;
    c.weights = s_.transfer;
    c.scheme = s_.transfer_scheme;
    c.advection = s_.advection;
    const Bodies b = bodies_now();
    if (has_box(b)) {
        c.box_lo = dvec3(b.box[0], b.box[1], b.box[2]);
        c.box_hi = dvec3(b.box[3], b.box[4], b.box[5]);
        c.box_velocity = b.box_velocity;
    }
    c.sphere_center = dvec3(b.sphere[0], b.sphere[1], b.sphere[2]);
    c.sphere_radius = s_.obstacle_sphere[3];
    if (c.sphere_radius > 0) c.sphere_velocity = b.sphere_velocity;
    c.hand = hand_force<dvec3>(hand(), hands_);
    return c;
}

PressureSettings FlipSolver::pressure_settings() const {
    PressureSettings p;
    p.method = s_.pressure_solver;
    p.iterations = static_cast<int>(s_.pressure_solver == 0 ? s_.jacobi_iterations : s_.gauss_seidel_iterations);
    p.jacobi_alpha = s_.jacobi_relaxation;
    p.sor_omega = s_.sor_omega;
    p.tolerance = s_.mgpcg_tolerance;
    p.max_iterations = static_cast<int>(s_.mgpcg_max_iterations);
    return p;
}

void FlipSolver::do_reset() {
    const long long ppc = s_.particles_per_cell;
    const int per_side = static_cast<int>(std::lround(std::cbrt(static_cast<double>(ppc))));
    if (per_side * per_side * per_side != ppc)
        throw ParamError("particles_per_cell: expected a cube (1, 8 or 27), got " + std::to_string(ppc));
    const MacGrid g = grid();
    // Refused before seeding (memory_budget.hpp): about 216 bytes per cell (faces, old faces,
    // pressure, divergence, solver vectors, multigrid and its fluid-cell lists, P2G's counts and
    // starts of 8 half cells per cell) and 272 per particle (positions,
    // velocities, APIC's matrices, their sort copies, the host copy), particles_per_cell in
    // every cell of the fluid blocks.
    const double extent[3] = {g.nx * g.dx, g.ny * g.dx, g.nz * g.dx};
    const double particles = static_cast<double>(ppc) / (g.dx * g.dx * g.dx) *
                             (overlap_in_domain(s_.fluid_box, extent, 3) + overlap_in_domain(s_.fluid_box_2, extent, 3));
    check_memory("resolution", "a " + std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz) +
                     " grid and " + std::to_string(std::llround(particles)) + " particles",
                 216.0 * g.nx * g.ny * g.nz + 272.0 * particles, backend());
    // P2G sorts particles into 8 half cells per cell, indexed with int.
    if (8.0 * g.nx * g.ny * g.nz > 2147483647.0)
        throw ParamError("resolution: a " + std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" +
                         std::to_string(g.nz) + " grid has more than 2^28 cells, the most the solver indexes");
    bodies_ = Bodies{};
    std::copy(s_.obstacle_box, s_.obstacle_box + 6, bodies_.box);
    std::copy(s_.obstacle_box, s_.obstacle_box + 6, bodies_.placed_box);
    std::copy(s_.obstacle_sphere, s_.obstacle_sphere + 3, bodies_.sphere);
    std::copy(s_.obstacle_sphere, s_.obstacle_sphere + 3, bodies_.placed_sphere);
    const Config c = config();
    HostState h;
    std::mt19937_64 rng(static_cast<std::uint64_t>(s_.seed));
    const double sub = g.dx / per_side;
    // the PIC-FLIP assignment seeds particles per fluid cell; 2x2x2 with jitter inside the fluid blocks.
    for (int k = 0; k < g.nz; ++k)
        for (int j = 0; j < g.ny; ++j)
            for (int i = 0; i < g.nx; ++i)
                for (int c3 = 0; c3 < per_side * per_side * per_side; ++c3) {
                    const int a = c3 % per_side, b = (c3 / per_side) % per_side, d = c3 / (per_side * per_side);
                    dvec3 x = g.origin + g.dx * dvec3(i, j, k) + sub * dvec3(a + 0.5, b + 0.5, d + 0.5);
                    x += s_.jitter * sub * (uniform01_3(rng) - 0.5);
                    bool inside = false;
                    for (const double* box : {s_.fluid_box, s_.fluid_box_2})
                        inside |= x.x > box[0] && x.y > box[1] && x.z > box[2] && x.x < box[3] && x.y < box[4] &&
                                  x.z < box[5];
                    if (!inside || in_box(c, x) || in_sphere(c, x)) continue;
                    h.pos.push_back(x);
                    h.vel.push_back(dvec3(0.0));
                    h.id.push_back(static_cast<int>(h.id.size()));
                }
    if (h.pos.empty())
        throw ParamError("fluid_box: no particle is seeded (the block must overlap the box and miss the obstacles)");
    last_max_speed_ = 0.0;
    hands_.poured = 0;
    pour_carry_ = 0.0;
    initial_particles_ = static_cast<long long>(h.pos.size());
    set_state(h);
}

// A pour grows the particle arrays up to max_particles: a budget beyond what memory holds is
// refused here, before the pour would fail to grow them (do_reset's estimate, per cell and per
// particle). The default budget, twice the seeded particles, is about what do_reset checked.
void FlipSolver::check_params() const {
    if (hands_.max_particles <= 0) return;
    const MacGrid g = grid();
    check_memory("max_particles", std::to_string(hands_.max_particles) + " particles",
                 216.0 * g.nx * g.ny * g.nz + 272.0 * static_cast<double>(hands_.max_particles), backend());
}

// The particles' motion; a particle's mass is the density times its share of a cell.
void FlipSolver::report_motion(const Sums& s, Stats& out) const {
    const MacGrid g = grid();
    const double mass = s_.density * g.dx * g.dx * g.dx / static_cast<double>(s_.particles_per_cell);
    out.set("kinetic_energy", mass * s.kinetic_energy);
    out.set("momentum", std::vector<double>{mass * s.momentum.x, mass * s.momentum.y, mass * s.momentum.z});
    out.set("max_speed", std::sqrt(s.max_speed2));
}

void FlipSolver::initial_stats(Stats& out) { report_motion(engine_->sums(), out); }

void FlipSolver::run_stage(int index) {
    if (index == kHands) {
        // A CFL number bounds how many cells a particle crosses in a step: dt = cfl dx / speed,
        // with the speed of the last step plus what gravity adds in one (so a fluid at rest
        // does not take one giant step); a dragged body or a pour may be faster than the liquid.
        const MacGrid g = grid();
        double fastest = last_max_speed_;
        if (hand().tool == Hand::Tool::Drag) fastest = std::max(fastest, hands_.drag_speed);
        if (hand().tool == Hand::Tool::Pour) fastest = std::max(fastest, hands_.pour_speed);
        const double speed = fastest + std::sqrt(s_.gravity * g.dx);
        const double cfl_dt = s_.cfl * g.dx / std::max(speed, 1e-12);
        dt_ = std::min(s_.max_dt, cfl_dt);
        s_.dt_limit = cfl_dt < s_.max_dt ? 1 : 0;
        move_bodies();
        engine_->run_stage(index, config(), pressure_settings());
        pour();
        return;
    }
    engine_->run_stage(index, config(), pressure_settings());
}

// A dragged obstacle's anchor (the box's or the sphere's centre) moves toward the hand's target
// by drag_velocity (at most drag_speed dt), clamped so that the body stays in the domain (or, if
// the scene put it partly outside, gets no further out); its velocity for the step is the move
// over dt, 0 for a body no hand holds.
void FlipSolver::move_bodies() {
    Bodies b = bodies_now();
    b.box_velocity = dvec3(0.0);
    b.sphere_velocity = dvec3(0.0);
    const MacGrid g = grid();
    const dvec3 lo_wall = g.origin, hi_wall = g.origin + g.dx * dvec3(g.nx, g.ny, g.nz);
    // The displacement of the point `at`, which may lie in [lo, hi] (widened to keep `at`).
    auto shift = [&](double at, double v, double lo, double hi) {
        const double to = std::clamp(at + v * dt_, std::min(lo, at), std::max(hi, at));
        return to - at;
    };
    int body = 0;
    if (has_box(b)) {
        const dvec3 lo(b.box[0], b.box[1], b.box[2]), hi(b.box[3], b.box[4], b.box[5]);
        const dvec3 v = drag_velocity<dvec3>(hand(), body, 0.5 * (lo + hi), hands_.drag_speed, dt_);
        if (v != dvec3(0.0))
            for (int a = 0; a < 3; ++a) {
                const double d = shift(lo[a], v[a], lo_wall[a], hi_wall[a] - (hi[a] - lo[a]));
                b.box[a] = lo[a] + d;
                b.box[a + 3] = hi[a] + d;
                b.box_velocity[a] = d / dt_;
            }
        ++body;
    }
    const double r = s_.obstacle_sphere[3];
    if (r > 0) {
        const dvec3 centre(b.sphere[0], b.sphere[1], b.sphere[2]);
        const dvec3 v = drag_velocity<dvec3>(hand(), body, centre, hands_.drag_speed, dt_);
        if (v != dvec3(0.0))
            for (int a = 0; a < 3; ++a) {
                const double d = shift(centre[a], v[a], lo_wall[a] + r, hi_wall[a] - r);
                b.sphere[a] = centre[a] + d;
                b.sphere_velocity[a] = d / dt_;
            }
    }
    bodies_ = b;
}

namespace {

// SplitMix64's finaliser (Steele, Lea and Flood 2014): a well-mixed 64-bit seed for the pour's
// jitter from the scene's seed and the particles poured so far.
std::uint64_t mix64(std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

}  // namespace

// Pouring: rate dt particles a step (the fraction carried on), at most up to the particle
// budget, placed like the seeded ones (the particles_per_cell lattice, jittered) at the lattice
// points within the hand's radius of its point that lie in cells inside the domain holding no
// particle and no obstacle (so new liquid never overlaps liquid or a body), nearest the point
// first, moving at pour_speed along gravity. The jitter's random numbers are drawn from the seed
// and the count poured so far: the same particles on every run, thread count and backend.
void FlipSolver::pour() {
    if (hand().tool != Hand::Tool::Pour || !(hands_.pour_rate > 0.0)) {
        pour_carry_ = 0.0;
        return;
    }
    const double want = pour_carry_ + hands_.pour_rate * dt_;
    const double whole = std::floor(want);
    pour_carry_ = want - whole;
    const long long limit = hands_.max_particles > 0 ? hands_.max_particles : 2 * initial_particles_;
    const long long room =
        std::min(limit - static_cast<long long>(particle_count()), static_cast<long long>(whole));
    if (room <= 0) return;

    const MacGrid g = grid();
    const Config c = config();
    const dvec3 p(hand().point[0], hand().point[1], hand().point[2]);
    const double radius = hands_.radius;
    const int n[3] = {g.nx, g.ny, g.nz};
    ivec3 lo, hi;
    for (int a = 0; a < 3; ++a) {
        const double from = std::floor((p[a] - radius - g.origin[a]) / g.dx);
        const double to = std::floor((p[a] + radius - g.origin[a]) / g.dx);
        lo[a] = static_cast<int>(std::clamp(from, 0.0, n[a] - 1.0));
        hi[a] = static_cast<int>(std::clamp(to, 0.0, n[a] - 1.0));
        if (to < 0.0 || from > n[a] - 1.0) return;  // the ball misses the domain
    }
    const ivec3 block = hi - lo + ivec3(1);
    const std::vector<int> held = engine_->particles_in_block(g, lo, block);

    const int per_side = static_cast<int>(std::lround(std::cbrt(static_cast<double>(s_.particles_per_cell))));
    const double sub = g.dx / per_side;
    struct Site {
        double d2;
        long long order;
        dvec3 x;
    };
    std::vector<Site> sites;
    long long order = 0;
    for (int k = 0; k < block.z; ++k)
        for (int j = 0; j < block.y; ++j)
            for (int i = 0; i < block.x; ++i) {
                const ivec3 q = lo + ivec3(i, j, k);
                const dvec3 centre = g.cell_center(q.x, q.y, q.z);
                if (held[static_cast<std::size_t>(i + block.x * (j + block.y * k))] > 0 || in_box(c, centre) ||
                    in_sphere(c, centre))
                    continue;
                for (int c3 = 0; c3 < per_side * per_side * per_side; ++c3, ++order) {
                    const int a = c3 % per_side, b = (c3 / per_side) % per_side, d = c3 / (per_side * per_side);
                    const dvec3 x = g.origin + g.dx * dvec3(q) + sub * dvec3(a + 0.5, b + 0.5, d + 0.5);
                    const dvec3 r = x - p;
                    const double d2 = glm::dot(r, r);
                    if (d2 < radius * radius) sites.push_back({d2, order, x});
                }
            }
    std::sort(sites.begin(), sites.end(),
              [](const Site& s, const Site& t) { return s.d2 < t.d2 || (s.d2 == t.d2 && s.order < t.order); });
    const std::size_t take = std::min(sites.size(), static_cast<std::size_t>(room));
    std::mt19937_64 rng(
        mix64(static_cast<std::uint64_t>(s_.seed) ^ mix64(static_cast<std::uint64_t>(hands_.poured))));
    const dvec3 v = hands_.pour_speed * gravity_vector<3>(1.0, s_.gravity_direction);
    std::vector<dvec3> pos, vel;
    pos.reserve(take);
    for (std::size_t m = 0; m < take; ++m) {
        // As do_reset jitters the seeded particles: within the lattice point's sub-cell.
        dvec3 x = sites[m].x;
        x += s_.jitter * sub * (uniform01_3(rng) - 0.5);
        if (in_box(c, x) || in_sphere(c, x)) continue;
        pos.push_back(x);
    }
    vel.assign(pos.size(), v);
    engine_->append(pos, vel);
    hands_.poured += static_cast<long long>(pos.size());
}

// Beside the particles: the obstacles where they are, and the pour's state.
void FlipSolver::save_extra(std::vector<char>& out) const {
    blob::put(out, last_max_speed_);
    blob::put(out, bodies_now());
    blob::put(out, pour_carry_);
    blob::put(out, hands_.poured);
    blob::put(out, initial_particles_);
}

void FlipSolver::load_extra(const std::vector<char>& in, std::size_t& at) {
    blob::get(in, at, last_max_speed_);
    blob::get(in, at, bodies_);
    blob::get(in, at, pour_carry_);
    blob::get(in, at, hands_.poured);
    blob::get(in, at, initial_particles_);
    // The bodies are where the checkpoint had them, whatever the parameters say now: restoring
    // undoes a drag, also one kept into the parameters since (Reset goes back to those).
    std::copy(s_.obstacle_box, s_.obstacle_box + 6, bodies_.placed_box);
    std::copy(s_.obstacle_sphere, s_.obstacle_sphere + 3, bodies_.placed_sphere);
}

double FlipSolver::finish_step(Stats& out) {
    const Sums s = engine_->sums();
    const std::string step = "step " + std::to_string(step_count() + 1) + ": ";
    if (s.nonfinite > 0)
        throw SimulationError(step + std::to_string(s.nonfinite) +
                              " particle(s) have a NaN or infinite position or velocity");
    const StepReport r = engine_->report(config());
    const MacGrid g = grid();
    last_max_speed_ = std::sqrt(s.max_speed2);
    s_.time_step = dt_;
    s_.pressure_iterations = r.pressure_iterations;
    s_.pressure_residual = r.pressure_residual;
    report_motion(s, out);
    // The fluid's volume is its mass over its density: every particle's share of a cell,
    // dx^3 / n0, scaled by n0 / (particles per cell in the bulk). Counting each cell's particles
    // against n0 instead reads low as soon as the particles lose their seeded order (a cell's
    // count fluctuates about n0, and the over-full ones count at most one cell), and counting
    // fluid cells reads high with every splash; the bulk's mean count has neither bias. With no
    // bulk cell (a thin film, spray) the seeded density stands in. Measured at occupancy, so
    // before the volume correction has moved the particles.
    const double per_cell = r.bulk_cells > 0 ? r.bulk_particles / r.bulk_cells : s_.particles_per_cell;
    out.set("fluid_volume", engine_->size() / per_cell * g.dx * g.dx * g.dx);  // first: the window plots in this order
    out.set("bulk_density", per_cell);
    out.set("div_max_before", r.div_max_before);
    out.set("div_max_after", r.div_max_after);
    out.set_count("pressure_iterations", r.pressure_iterations);
    out.set("pressure_residual", r.pressure_residual);
    out.set_count("fluid_cells", r.fluid_cells);
    out.set_count("correction_iterations", r.correction_iterations);
    out.set_count("poured", hands_.poured);  // cumulative: n_particles grows by exactly its growth
    return dt_;
}

}  // namespace fs::flip
