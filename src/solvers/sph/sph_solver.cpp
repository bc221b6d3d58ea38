#include "solvers/sph/sph_solver.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

#include "core/memory_budget.hpp"
#include "solvers/common/gravity.hpp"
#include "core/random.hpp"

namespace fs::sph {

namespace {

constexpr double kPi = 3.14159265358979323846;


}  // namespace

SphSolver::SphSolver(Backend backend) : EngineSolver(backend) {
    auto& r = params_;
    r.add_real({"spacing", "Particle spacing", "Particles", "m",
                "Distance between neighbouring particles at rest; sets the particle mass "
                "rho0 * spacing^2.", 1e-4, 0.1, false, true},
               &s_.spacing);
    r.add_real({"support_factor", "Support / spacing", "Particles", "",
                "Kernel support radius h in particle spacings (WCSPH assignment, 2.1: W vanishes for r >= h).",
                1.2, 4.0, false, true},
               &s_.support_factor);
    r.add_vec({"domain_size", "Box size", "Scene", "m", "Width and height of the box.", 0.05, 100, false, true},
              s_.domain_size, 2);
    r.add_vec({"fluid_box", "Fluid block", "Scene", "m", "x0, y0, x1, y1 of the block of fluid.", -100, 100,
               false, true},
              s_.fluid_box, 4);
    r.add_vec({"fluid_box_2", "Second fluid block", "Scene", "m",
               "x0, y0, x1, y1 of a second block (empty when x1 <= x0).", -100, 100, false, true},
              s_.fluid_box_2, 4);
    r.add_vec({"initial_velocity", "Initial velocity", "Scene", "m/s", "Velocity of the fluid at the start.",
               -100, 100, false, true},
              s_.initial_velocity, 2);
    r.add_real({"velocity_noise", "Velocity noise", "Scene", "m/s",
                "Random initial velocity per component, uniform in [-v, v].", 0, 100, false, true},
               &s_.velocity_noise);
    add_seed(&s_.seed, "Scene", "the velocity noise");
    r.add_real({"rest_density", "Rest density", "Fluid", "kg/m^3", "rho0 of the Tait equation (WCSPH assignment, 2.2).",
                1, 1e5, false, true},
               &s_.rest_density);
    r.add_real({"speed_of_sound", "Speed of sound", "Fluid", "m/s",
                "c_s: sets the stiffness B = rho0 c_s^2 / gamma of the Tait equation (WCSPH assignment, 2.2), "
                "the artificial viscosity and the time step. About 10x the fastest flow keeps density "
                "errors near 1%.", 0.1, 1e4},
               &s_.speed_of_sound);
    r.add_real({"gamma", "Tait exponent", "Fluid", "", "gamma of p = B((rho/rho0)^gamma - 1) (WCSPH assignment: 7).", 1, 10},
               &s_.gamma);
    r.add_real({"viscosity_alpha", "Viscosity alpha", "Fluid", "",
                "Monaghan artificial viscosity alpha (WCSPH assignment, 2.5: 0.8).", 0, 10},
               &s_.viscosity_alpha);
    r.add_real({"kinematic_viscosity", "Kinematic viscosity", "Fluid", "m^2/s",
                "0: the viscosity term uses viscosity_alpha (the assignment). Above 0: the fluid's kinematic "
                "viscosity nu, and alpha = 8 nu / (h c_s) (Monaghan 2005), so it stays the same fluid at any "
                "spacing or speed of sound.",
                0, 10},
               &s_.kinematic_viscosity);
    r.add_real({"viscosity_epsilon", "Viscosity epsilon", "Fluid", "",
                "Keeps Pi_ij finite for close pairs: |x_ij|^2 + epsilon h^2 (WCSPH assignment, 2.5: 0.01).", 1e-6, 1},
               &s_.viscosity_epsilon);
    r.add_bool({"clamp_density", "Clamp density", "Fluid", "",
                "rho = max(rho0, rho) before the pressure (WCSPH assignment, debugging tips): no suction at "
                "free surfaces."},
               &s_.clamp_density);
    add_gravity(&s_.gravity, s_.gravity_direction, 2);
    r.add_choice({"boundary_model", "Boundary model", "Boundary", "",
                  "assignment: boundary particles at rho0 with pressure 0 (WCSPH assignment, 2.4); "
                  "pressure_mirroring: they take the pressure of the fluid around them plus the "
                  "hydrostatic part (Adami, Hu and Adams 2012), so a tank at rest has the right "
                  "pressure at its bottom."},
                 {"assignment", "pressure_mirroring"}, &s_.boundary_model);
    r.add_real({"boundary_viscosity", "Wall friction", "Boundary", "",
                "The walls' viscosity term as a multiple of the fluid's (Akinci et al. 2012's boundary friction, "
                "its sigma_b over sigma): 1 the walls stick with the fluid's viscosity (no-slip as far as the "
                "viscosity reaches), 0 free-slip walls, above 1 rougher walls.",
                0, 100},
               &s_.boundary_viscosity);
    r.add_int({"boundary_layers", "Wall layers", "Boundary", "",
               "Layers of wall particles: at least the kernel's support in spacings (WCSPH assignment: three, "
               "for a support of 2 spacings); 0 for no walls at all (a free blob).", 0, 10, false, true},
              &s_.boundary_layers);
    r.add_real({"barrier_length", "Barrier length", "Barrier", "m",
                "Length of the barrier (three layers of boundary particles); 0 for none.", 0, 100, false, true},
               &s_.barrier_length);
    r.add_vec({"barrier_center", "Barrier centre", "Barrier", "m", "The point the barrier turns about.", -100, 100,
               false, true},
              s_.barrier_center, 2);
    r.add_real({"barrier_angle", "Barrier angle", "Barrier", "deg",
                "Counter-clockwise angle of the barrier; Q/E turn it (WCSPH assignment, 3).", -1e6, 1e6},
               &s_.barrier_angle);
    r.add_real({"barrier_rotation_rate", "Barrier rotation rate", "Barrier", "deg/s",
                "How fast Q/E turn the barrier while held.", 0, 3600},
               &s_.barrier_rotation_rate);
    // Hands: the defaults suit the bundled 1 m tanks (a hand a few particles wide, a pour that
    // fills a glass in a few seconds).
    hands_.radius = 0.08;
    hands_.strength = 200.0;  // about 20 g: a push clears most of its circle (test_hands.cpp)
    hands_.drag_speed = 1.0;
    hands_.pour_rate = 600.0;
    hands_.pour_speed = 0.5;
    add_hands(&hands_, kHandDrag | kHandPushPull | kHandPour);
    r.add_real({"cfl", "CFL number", "Time", "",
                "Particle spacings a sound wave (plus the fastest particle) may cross per step: "
                "dt = cfl * spacing / (c_s + max speed), also dt <= 0.25 sqrt(h / |a|max) (Monaghan) "
                "and dt <= max_dt. Past about 1 the weakly compressible fluid goes unstable.",
                0.01, 5.0},
               &s_.cfl);
    r.add_real({"max_dt", "Largest time step", "Time", "s", "Upper bound of dt.", 1e-7, 0.1}, &s_.max_dt);
    r.add_choice({"pressure_solver", "Pressure solver", "Pressure", "",
                  "wcsph: the WCSPH assignment's Tait equation, explicit; the speed of sound bounds dt. dfsph: "
                  "divergence-free SPH (Bender & Koschier 2017), two implicit solves a step that keep the fluid "
                  "within density_tolerance of rho0 and free of compression, so dt is bounded by the flow's "
                  "own speed (dfsph_cfl), not by sound: several times longer steps. iisph: implicit incompressible "
                  "SPH (Ihmsen et al. 2014), the density solve alone. Switches at the next step."},
                 {"wcsph", "dfsph", "iisph"}, &s_.pressure_solver);
    r.add_choice({"viscosity_solver", "Viscosity solver", "Pressure", "",
                  "DFSPH and IISPH: explicit, Monaghan's term (kinematic_viscosity) as a force, which bounds dt by "
                  "0.125 (h/2)^2 / nu; implicit, Weiler et al. 2018's Laplacian solved by conjugate gradients, "
                  "so dt follows dfsph_cfl alone. WCSPH keeps the explicit term."},
                 {"explicit", "implicit"}, &s_.viscosity_solver);
    r.add_real({"dfsph_cfl", "DFSPH CFL number", "Pressure", "",
                "DFSPH and IISPH: particle spacings the fastest particle may cross per step, "
                "dt = dfsph_cfl spacing / max speed (Bender & Koschier 2017: 0.4 of the particle diameter).",
                0.01, 2.0},
               &s_.dfsph_cfl);
    r.add_real({"density_tolerance", "Density tolerance", "Pressure", "",
                "DFSPH and IISPH: the density solve iterates until the mean compression left is below this "
                "fraction of rho0 (Bender & Koschier 2017: 0.01%-0.1%).",
                1e-6, 0.1},
               &s_.density_tolerance);
    r.add_real({"divergence_tolerance", "Divergence tolerance", "Pressure", "",
                "DFSPH: the divergence solve iterates until the mean rate of compression, times dt, is below this "
                "fraction of rho0.",
                1e-6, 0.1},
               &s_.divergence_tolerance);
    r.add_int({"max_iterations", "Most iterations", "Pressure", "",
               "DFSPH and IISPH: the most iterations a solve takes a step (the stats report the tolerance "
               "missed).",
               1,
               10000},
              &s_.max_iterations);
    r.add_real({"relaxation", "Jacobi relaxation", "Pressure", "",
                "DFSPH and IISPH: omega of the solves' Jacobi updates, P += omega (rho* - rho0) alpha / dt^2. "
                "1 is Bender & Koschier's full update, which can let an alternating pressure grow on a 2D "
                "lattice; 0.5 as in IISPH (Ihmsen et al. 2014).",
                0.05, 1.0},
               &s_.relaxation);
    r.add_real({"warm_start", "Warm start", "Pressure", "",
                "DFSPH and IISPH: the fraction of the last step's pressure each solve starts from. 1 is "
                "Bender & Koschier's; it let the resting tank's water boil (a pressure offset builds up). "
                "0.5, IISPH's (Ihmsen et al. 2014), leaves the slowest modes undamped: at long steps the "
                "resting tank's swing grew. 0.25 keeps their damping.",
                0.0, 1.0},
               &s_.warm_start);
    r.add_choice({"dt_limit", "Time step set by", "Diagnostics", "",
                  "Which bound set the last dt: max_dt; cfl (WCSPH: sound plus the fastest particle; DFSPH: the "
                  "fastest particle); force (0.25 sqrt(h / |a|max), Monaghan 1992); viscosity (0.125 (h/2)^2 / nu, "
                  "Morris et al. 1997, DFSPH and IISPH under viscosity_solver = explicit).",
                  0, 0, true},
                 {"max_dt", "cfl", "force", "viscosity"}, &s_.dt_limit);
    r.add_real({"stiffness", "Stiffness B", "Diagnostics", "Pa", "B = rho0 c_s^2 / gamma.", 0, 1e300, true},
               &s_.stiffness);
    r.add_real({"alpha_used", "Viscosity alpha used", "Diagnostics", "",
                "The alpha of the last step: viscosity_alpha, or the one kinematic_viscosity sets.", 0, 1e300, true},
               &s_.alpha_used);
    r.add_real({"viscosity_used", "Kinematic viscosity", "Diagnostics", "m^2/s",
                "What the viscosity term amounts to, nu = alpha h c_s / 8 (Monaghan 2005); water is 1e-6.", 0,
                1e300, true},
               &s_.viscosity_used);
    r.add_real({"time_step", "Time step", "Diagnostics", "s", "dt of the last step.", 0, 1e300, true},
               &s_.time_step);
    r.add_int({"n_fluid", "Fluid particles", "Diagnostics", "", "Particles of fluid (the rest are boundary).", 0,
               9e15, true},
              &s_.n_fluid);
}

namespace {
// The stages of a step and what each runs, per pressure solver.
struct StageList {
    std::vector<StageInfo> info;
    std::vector<Stage> run;
};
const StageList& stage_list(int solver) {
    static const StageList kWcsphStages = {
        {{"neighbor_search", "counting sort by cell (the grid of the euler solver)"},
         {"density", "WCSPH assignment, 2.1: rho_i = sum_j m_j W_ij"},
         {"pressure", "WCSPH assignment, 2.2: Tait p = B((rho/rho0)^7 - 1); boundary 2.4 / Adami 2012"},
         {"accelerations", "WCSPH assignment, 2.3 + 2.5: symmetric pressure force, Monaghan viscosity, gravity; the walls' "
                           "viscosity at boundary_viscosity times the fluid's (Akinci et al. 2012)"},
         {"integrate", "semi-implicit Euler: v += dt a, x += dt v"},
         {"boundary", "WCSPH assignment, 3: the barrier follows its angle"}},
        {kNeighborSearch, kDensity, kPressure, kAccelerations, kIntegrate, kBoundary}};
    static const StageList kDfsphStages = {
        {{"neighbor_search", "counting sort by cell (the grid of the euler solver)"},
         {"density", "WCSPH assignment, 2.1: rho_i = sum_j m_j W_ij; DFSPH's factor alpha_i (Bender & Koschier "
                     "2015, eq. 9)"},
         {"divergence_solve", "DFSPH (Bender & Koschier 2017, Alg. 1): pressures that remove D rho / Dt"},
         {"accelerations", "WCSPH assignment, 2.5: Monaghan viscosity (explicit) and gravity (no pressure); the "
                           "walls' viscosity at boundary_viscosity times the fluid's (Akinci et al. 2012)"},
         {"viscosity_solve", "Weiler et al. 2018: implicit viscosity by conjugate gradients (viscosity_solver)"},
         {"pressure_solve", "DFSPH (Bender & Koschier 2017, Alg. 1): v* = v + dt a, pressures that bring rho* to rho0"},
         {"integrate", "x += dt v"},
         {"boundary", "WCSPH assignment, 3: the barrier follows its angle"}},
        {kNeighborSearch, kDensity, kDivergenceSolve, kAccelerations, kViscositySolve, kPressureSolve, kIntegrate,
         kBoundary}};
    static const StageList kIisphStages = {
        {{"neighbor_search", "counting sort by cell (the grid of the euler solver)"},
         {"density", "WCSPH assignment, 2.1: rho_i = sum_j m_j W_ij; the diagonal 1/alpha_i (Ihmsen et al. "
                     "2014, a_ii)"},
         {"accelerations", "WCSPH assignment, 2.5: Monaghan viscosity (explicit) and gravity (no pressure); the "
                           "walls' viscosity at boundary_viscosity times the fluid's (Akinci et al. 2012)"},
         {"viscosity_solve", "Weiler et al. 2018: implicit viscosity by conjugate gradients (viscosity_solver)"},
         {"pressure_solve", "IISPH (Ihmsen et al. 2014): v* = v + dt a, relaxed Jacobi on the pressure Poisson "
                            "equation"},
         {"integrate", "x += dt v"},
         {"boundary", "WCSPH assignment, 3: the barrier follows its angle"}},
        {kNeighborSearch, kDensity, kAccelerations, kViscositySolve, kPressureSolve, kIntegrate, kBoundary}};
    return solver == kDfsph ? kDfsphStages : solver == kIisph ? kIisphStages : kWcsphStages;
}
}  // namespace

const std::vector<StageInfo>& SphSolver::stages() const { return stage_list(solver_).info; }

Stage SphSolver::stage_at(int index) const { return stage_list(solver_).run[static_cast<std::size_t>(index)]; }

std::vector<FieldInfo> SphSolver::fields() const {
    return {{"position", 2, "m", "particle position"},
            {"velocity", 2, "m/s", "particle velocity"},
            {"speed", 1, "m/s", "|velocity|"},
            {"density", 1, "kg/m^3", "SPH density: the kernel sum, unclamped (WCSPH's pressure takes max(rho0, rho) under clamp_density)"},
            {"pressure", 1, "Pa", "WCSPH: the Tait pressure; DFSPH and IISPH: rho^2 P, the pressure the solves applied"},
            {"kind", 1, "", "0 fluid, 1 wall, 2 barrier"},
            {"id", 1, "", "particle index at creation"}};
}

void SphSolver::read_field(std::string_view name, std::vector<double>& out) const {
    HostState s;
    if (read_particle_field(name, s, out)) {
        return;
    } else if (name == "density") {
        out = s.density;
    } else if (name == "pressure") {
        out = s.pressure;
    } else if (name == "kind") {
        out.assign(s.kind.begin(), s.kind.end());
    } else {
        throw ParamError("the sph solver has no field '" + std::string(name) +
                         "' (allowed: position, velocity, speed, density, pressure, kind, id)");
    }
}

void SphSolver::domain(double lo[3], double hi[3]) const {
    const double pad = static_cast<double>(s_.boundary_layers) * s_.spacing;
    lo[0] = -pad;
    lo[1] = -pad;
    lo[2] = 0.0;
    hi[0] = s_.domain_size[0] + pad;
    hi[1] = s_.domain_size[1] + pad;
    hi[2] = 0.0;
}

// The barrier as a solid: the rectangle its three layers of particles fill, at its angle.
std::vector<Obstacle> SphSolver::obstacles() const {
    if (!(s_.barrier_length > 0)) return {};
    Obstacle o;
    o.shape = Obstacle::Shape::Polygon;
    o.name = "barrier";
    o.draggable = true;
    o.anchor[0] = barrier_pos_.x;
    o.anchor[1] = barrier_pos_.y;
    const double a = s_.barrier_angle * kPi / 180.0, ca = std::cos(a), sa = std::sin(a);
    const double u = 0.5 * s_.barrier_length + 0.5 * s_.spacing, v = 1.5 * s_.spacing;
    for (const auto& [x, y] : {std::pair{-u, -v}, {u, -v}, {u, v}, {-u, v}}) {
        o.points.push_back(barrier_pos_.x + ca * x - sa * y);
        o.points.push_back(barrier_pos_.y + sa * x + ca * y);
    }
    return {o};
}

unsigned SphSolver::hand_tools() const {
    return (s_.barrier_length > 0 ? kHandDrag : 0u) | kHandPushPull | kHandPour;
}

void SphSolver::keep_body_poses() {
    s_.barrier_center[0] = barrier_pos_.x;
    s_.barrier_center[1] = barrier_pos_.y;
}

// Monaghan 2005 (Rep. Prog. Phys. 68, 1703, the viscosity, d = 2): the viscosity term acts as a
// kinematic viscosity nu = alpha h c_s / 8, h the support radius here (Pi_ij carries h, not the
// smoothing length h/2, so alpha h is the same product). A given nu sets alpha for the spacing and
// speed of sound at hand, so the fluid's viscosity stays put when they change.
double SphSolver::alpha_used() const {
    return s_.kinematic_viscosity > 0.0 ? 8.0 * s_.kinematic_viscosity / (support_radius() * s_.speed_of_sound)
                                        : s_.viscosity_alpha;
}

bool SphSolver::barrier_dragged() const {
    return hand_.tool == Hand::Tool::Drag && hand_.body == 0 && s_.barrier_length > 0;
}

Config SphSolver::config() const {
    Config c;
    c.dt = dt_;
    c.solver = solver_;
    c.viscosity_solver = s_.viscosity_solver;
    c.density_tolerance = s_.density_tolerance;
    c.divergence_tolerance = s_.divergence_tolerance;
    c.max_iterations = static_cast<int>(s_.max_iterations);
    c.relaxation = s_.relaxation;
    c.warm_start = s_.warm_start;
    c.h = support_radius();
    c.spacing = s_.spacing;
    c.mass = s_.rest_density * s_.spacing * s_.spacing;
    c.rho0 = s_.rest_density;
    c.gamma = s_.gamma;
    c.c_s = s_.speed_of_sound;
    c.B = s_.rest_density * s_.speed_of_sound * s_.speed_of_sound / s_.gamma;
    c.alpha = alpha_used();  // Monaghan 2005 (alpha_used)
    c.epsilon = s_.viscosity_epsilon;
    c.gravity = gravity_vector<2>(s_.gravity, s_.gravity_direction);
    c.clamp_density = s_.clamp_density;
    c.boundary_model = s_.boundary_model;
    c.boundary_viscosity = s_.boundary_viscosity;
    c.barrier_center = barrier_pos_;
    c.barrier_angle = s_.barrier_angle * kPi / 180.0;
    c.barrier_velocity = barrier_vel_;
    c.hand = hand_force<dvec2>(hand_, hands_);
    double lo[3], hi[3];
    domain(lo, hi);
    // Boundary particles sit up to a spacing beyond the box's padding; the grid clamps the rest.
    c.grid = grid::make_grid({lo[0] - s_.spacing, lo[1] - s_.spacing}, {hi[0] + s_.spacing, hi[1] + s_.spacing},
                             c.h, particle_count(), 3);
    c.lattice_denominator = lattice_denominator(c, CubicSpline<double>{c.h});
    return c;
}

// The particles a reset seeds: the blocks' at the spacing, the walls' layers, the barrier's.
double SphSolver::estimated_particles() const {
    const double dx = s_.spacing, W = s_.domain_size[0], H = s_.domain_size[1];
    const double layers = static_cast<double>(s_.boundary_layers);
    const double wall = (W / dx + 2.0 * layers) * (H / dx + 2.0 * layers) - W * H / (dx * dx);
    return (overlap_in_domain(s_.fluid_box, s_.domain_size, 2) + overlap_in_domain(s_.fluid_box_2, s_.domain_size, 2)) /
               (dx * dx) +
           wall + 3.0 * (s_.barrier_length / dx + 1.0);
}

// The pair work a step costs, estimated before it runs: every particle meets about
// pi support_factor^2 neighbours within h on the rest lattice, and the density, pressure and
// accelerations stages visit each pair. Measured here: sph_hydrostatic at spacing 1e-4 (3e7
// particles, 3.8e8 pairs) took 11.5 s a step on 2 threads, about 3e7 pairs a second; the SPH
// benchmark's 1e6 particles on an H100 1.3e9 particle-steps a second. The bounds are a few seconds
// a step on either backend.
void SphSolver::check_params() const {
    const double n = estimated_particles();
    // Memory first (memory_budget.hpp): the blocks' particles, the walls' and the barrier's, each
    // about 320 bytes (state, sort copies, host copy) plus the neighbour list's 1.6 pi (h / spacing)^2
    // ints.
    check_memory("spacing", std::to_string(std::llround(n)) + " particles",
                 n * (320.0 + 20.0 * s_.support_factor * s_.support_factor), backend());
    const double pairs = n * kPi * s_.support_factor * s_.support_factor;
    const bool gpu = backend() == Backend::Cuda;
    const double allowed = gpu ? 1e10 : 1e8;
    if (pairs <= allowed) return;
    throw ParamError("spacing: " + number_text(s_.spacing) + " m gives about " + scientific_text(n) + " particles and " +
                     scientific_text(pairs) + " neighbour pairs a step (support_factor " + number_text(s_.support_factor) +
                     "); allowed: at most " + scientific_text(allowed) + " on the " + (gpu ? "CUDA" : "CPU") +
                     " backend (a larger spacing, a smaller box or fluid block" + (gpu ? ")" : ", or the CUDA backend)"));
}

void SphSolver::do_reset() {
    const double dx = s_.spacing;
    const double W = s_.domain_size[0], H = s_.domain_size[1];
    const long long layers = s_.boundary_layers;
    // A fluid particle next to a wall must find wall particles across its whole support, or it
    // leaks out where the kernel reaches past the last layer (the WCSPH assignment, 2.4: three layers for the
    // support of two spacings it uses).
    const auto needed = static_cast<long long>(std::ceil(s_.support_factor - 1e-9));
    if (layers > 0 && layers < needed)
        throw ParamError("boundary_layers: " + std::to_string(layers) + " layer(s) do not cover the kernel's support of " +
                         number_text(s_.support_factor) + " spacings (support_factor); allowed: " +
                         std::to_string(needed) + " to 10, or 0 for no walls");
    HostState h;
    int next_id = 0;
    auto add = [&](dvec2 p, Kind kind, dvec2 offset) {
        h.pos.push_back(p);
        h.vel.push_back(dvec2(0.0));
        h.offset.push_back(offset);
        h.density.push_back(s_.rest_density);
        h.pressure.push_back(0.0);
        h.kappa.push_back(dvec2(0.0));
        h.kind.push_back(kind);
        h.id.push_back(next_id++);
    };
    // Barrier: a rectangle of three layers of particles, `offset` from its centre at angle 0.
    const dvec2 centre{s_.barrier_center[0], s_.barrier_center[1]};
    const double angle = s_.barrier_angle * kPi / 180.0;
    const double ca = std::cos(angle), sa = std::sin(angle);
    std::vector<dvec2> barrier;
    if (s_.barrier_length > 0) {
        const int along = std::max(1, static_cast<int>(std::round(s_.barrier_length / dx)) + 1);
        for (int a = 0; a < along; ++a)
            for (int l = -1; l <= 1; ++l) {
                const dvec2 o{-0.5 * s_.barrier_length + a * dx, l * dx};
                barrier.push_back(o);
            }
    }
    // Only the barrier particles in the three columns (3 particles each) nearest to p along the
    // barrier can be within dx of it: testing those alone keeps the set-up linear in the
    // particles (a long barrier in a fine fluid took minutes), with the same test and result.
    const long long columns = static_cast<long long>(barrier.size() / 3);
    auto near_barrier = [&](dvec2 p) {
        const dvec2 q = p - centre;
        const double along = (ca * q.x + sa * q.y + 0.5 * s_.barrier_length) / dx;
        if (!(along > -2.0 && along < static_cast<double>(columns) + 1.0)) return false;
        const long long nearest = std::llround(along);
        for (long long a = std::max(0LL, nearest - 1); a <= std::min(columns - 1, nearest + 1); ++a)
            for (long long l = 0; l < 3; ++l) {
                const dvec2 o = barrier[static_cast<std::size_t>(3 * a + l)];
                const dvec2 b = centre + dvec2(ca * o.x - sa * o.y, sa * o.x + ca * o.y);
                const dvec2 d = p - b;
                if (d.x * d.x + d.y * d.y < dx * dx) return true;
            }
        return false;
    };
    // Fluid: the blocks on a lattice of the spacing, inside the box, clear of the barrier.
    std::mt19937_64 rng(static_cast<std::uint64_t>(s_.seed));
    long long fluid = 0;
    for (const double* box : {s_.fluid_box, s_.fluid_box_2}) {
        if (!(box[2] > box[0] && box[3] > box[1])) continue;
        const double x0 = std::max(box[0], 0.0), y0 = std::max(box[1], 0.0);
        const double x1 = std::min(box[2], W), y1 = std::min(box[3], H);
        for (double y = y0 + 0.5 * dx; y < y1; y += dx)
            for (double x = x0 + 0.5 * dx; x < x1; x += dx) {
                const dvec2 p{x, y};
                if (near_barrier(p)) continue;
                add(p, kFluid, dvec2(0.0));
                dvec2 v{s_.initial_velocity[0], s_.initial_velocity[1]};
                if (s_.velocity_noise > 0)
                    v += s_.velocity_noise * (2.0 * uniform01_2(rng) - 1.0);
                h.vel.back() = v;
                ++fluid;
            }
    }
    if (fluid == 0)
        throw ParamError("fluid_box: no fluid particle fits (the block must overlap the box [0, " +
                         std::to_string(W) + "] x [0, " + std::to_string(H) + "])");
    // Walls: `layers` rows of particles outside the box on every side (the WCSPH assignment, 2.4).
    for (long long j = -layers; j < static_cast<long long>(std::ceil(H / dx)) + layers; ++j)
        for (long long i = -layers; i < static_cast<long long>(std::ceil(W / dx)) + layers; ++i) {
            const dvec2 p{(i + 0.5) * dx, (j + 0.5) * dx};
            if (p.x > 0 && p.x < W && p.y > 0 && p.y < H) {
                // Inside: skip to the row's last columns (every one before them is inside too),
                // so the walls cost their own particles, not the box's area.
                i = std::max(i, static_cast<long long>(W / dx) - 2);
                continue;
            }
            add(p, kWall, dvec2(0.0));
        }
    for (const dvec2& o : barrier) add(centre + dvec2(ca * o.x - sa * o.y, sa * o.x + ca * o.y), kBarrier, o);
    s_.n_fluid = fluid;
    initial_fluid_ = fluid;
    solver_ = s_.pressure_solver;
    barrier_pos_ = centre;
    barrier_vel_ = dvec2(0.0);
    pour_carry_ = 0.0;
    hands_.poured = 0;
    last_max_accel_ = 0.0;
    last_max_speed_ = std::sqrt(s_.initial_velocity[0] * s_.initial_velocity[0] +
                                s_.initial_velocity[1] * s_.initial_velocity[1]) +
                      std::sqrt(2.0) * s_.velocity_noise;
    set_state(h);
}

// Pour (core/hands.hpp): the particles the hand owes (pour_rate dt a step, the fraction carried)
// are placed on a lattice of the spacing centred on the hand, nearest the centre first, where no
// particle (fluid, wall or barrier) lies within a spacing: the rest spacing of the fluid, so new
// particles never overlap and start at the rest density. They leave along gravity at pour_speed.
// Where the hand is full the pour waits; it stops at the particle budget.
void SphSolver::pour() {
    if (hand_.tool != Hand::Tool::Pour || !(hands_.pour_rate > 0.0)) {
        pour_carry_ = 0.0;
        return;
    }
    pour_carry_ += hands_.pour_rate * dt_;
    const long long budget = hands_.max_particles > 0 ? hands_.max_particles : 2 * initial_fluid_;
    const long long want = std::min(static_cast<long long>(pour_carry_), budget - s_.n_fluid);
    if (want < 1) {
        if (budget <= s_.n_fluid) pour_carry_ = 0.0;
        return;
    }
    HostState h;
    engine_->download(h);
    const double dx = s_.spacing, R = hands_.radius;
    const dvec2 c{hand_.point[0], hand_.point[1]};
    std::vector<dvec2> near;
    for (const dvec2& p : h.pos)
        if (glm::length(p - c) < R + dx) near.push_back(p);
    struct Spot {
        double r2;
        int i, j;
    };
    std::vector<Spot> spots;
    const int n = static_cast<int>(R / dx);
    for (int j = -n; j <= n; ++j)
        for (int i = -n; i <= n; ++i) {
            const double r2 = (i * i + j * j) * dx * dx;
            if (r2 <= R * R) spots.push_back({r2, i, j});
        }
    std::sort(spots.begin(), spots.end(), [](const Spot& a, const Spot& b) {
        return a.r2 != b.r2 ? a.r2 < b.r2 : a.j != b.j ? a.j < b.j : a.i < b.i;
    });
    const dvec2 g = gravity_vector<2>(1.0, s_.gravity_direction);
    const dvec2 v = glm::length(g) > 0 ? hands_.pour_speed * glm::normalize(g) : dvec2(0.0);
    int id = h.id.empty() ? 0 : *std::max_element(h.id.begin(), h.id.end()) + 1;
    long long placed = 0;
    const double clear2 = 0.999 * dx * dx;  // a lattice neighbour at exactly dx is clear
    for (const Spot& s : spots) {
        if (placed == want) break;
        const dvec2 q = c + dx * dvec2(s.i, s.j);
        if (q.x < 0.5 * dx || q.y < 0.5 * dx || q.x > s_.domain_size[0] - 0.5 * dx || q.y > s_.domain_size[1] - 0.5 * dx)
            continue;
        bool clear = true;
        for (const dvec2& p : near) clear = clear && glm::dot(p - q, p - q) >= clear2;
        if (!clear) continue;
        near.push_back(q);
        h.pos.push_back(q);
        h.vel.push_back(v);
        h.offset.push_back(dvec2(0.0));
        h.density.push_back(s_.rest_density);
        h.pressure.push_back(0.0);
        h.kappa.push_back(dvec2(0.0));
        h.kind.push_back(kFluid);
        h.id.push_back(id++);
        ++placed;
    }
    // A full hand waits for room instead of saving up a burst.
    pour_carry_ = std::min(pour_carry_ - static_cast<double>(placed), 1.0);
    if (placed == 0) return;
    set_state(h);
    hands_.poured += placed;
    s_.n_fluid += placed;
}

std::vector<std::pair<int, int>> SphSolver::neighbor_pairs(bool grid) {
    return engine_->neighbor_pairs(config(), grid);
}

// the WCSPH assignment leaves dt to the user. Monaghan 1992 (Annu. Rev. Astron. Astrophys. 30, time stepping):
// a CFL condition on c_s and the fastest particle, and a force condition dt <= 0.25 sqrt(h / |a|),
// h the smoothing length (half the cubic spline's support), both with the speed and acceleration
// of the last step (no host round trip inside a step). The CFL number counts particle spacings,
// the length a student sees. DFSPH has no sound to outrun: the fastest particle alone sets its
// CFL bound (Bender & Koschier 2017), and its explicit viscosity the bound of Morris, Fox and Zhu
// 1997 (J. Comput. Phys. 136, eq. 8), dt <= 0.125 (h/2)^2 / nu. A dragged barrier counts as a
// particle moving at the drag speed.
void SphSolver::choose_dt() {
    const bool dragged = barrier_dragged();
    const double fastest = std::max(last_max_speed_, dragged ? hands_.drag_speed : 0.0);
    auto bound = [&](double dt, int why) {
        if (dt < dt_) {
            dt_ = dt;
            s_.dt_limit = why;
        }
    };
    dt_ = s_.max_dt;
    s_.dt_limit = 0;
    if (implicit_pressure(solver_)) {
        if (fastest > 0.0) bound(s_.dfsph_cfl * s_.spacing / fastest, 1);
        const double h = support_radius();
        const double nu = kinematic_viscosity(alpha_used(), h, s_.speed_of_sound);
        // The implicit viscosity (Weiler et al. 2018) is unconditionally stable: no bound.
        if (nu > 0.0 && s_.viscosity_solver == kExplicitViscosity) bound(0.125 * 0.25 * h * h / nu, 3);
    } else {
        bound(s_.cfl * s_.spacing / (s_.speed_of_sound + fastest), 1);
    }
    if (last_max_accel_ > 0.0) bound(0.25 * std::sqrt(0.5 * support_radius() / last_max_accel_), 2);
}

void SphSolver::run_stage(int index) {
    if (index == 0) {
        solver_ = s_.pressure_solver;  // a switch takes effect as a step starts
        pour();
        choose_dt();
        // The barrier's velocity for this step: towards the hand's target, kept inside the box.
        barrier_vel_ = barrier_dragged() ? drag_velocity<dvec2>(hand_, 0, barrier_pos_, hands_.drag_speed, dt_) : dvec2(0.0);
        for (int a = 0; a < 2; ++a) {
            const double next = std::clamp(barrier_pos_[a] + dt_ * barrier_vel_[a], 0.0, s_.domain_size[a]);
            barrier_vel_[a] = (next - barrier_pos_[a]) / dt_;
        }
    }
    const Stage stage = stage_at(index);
    if (stage == kBoundary) barrier_pos_ += dt_ * barrier_vel_;
    Config c = config();
    s_.stiffness = c.B;
    s_.alpha_used = c.alpha;
    s_.viscosity_used = kinematic_viscosity(c.alpha, c.h, c.c_s);
    engine_->run_stage(stage, c);
}

double SphSolver::finish_step(Stats& out) {
    const Sums s = engine_->sums(config());
    const std::string step = "step " + std::to_string(step_count() + 1) + ": ";
    if (s.nonfinite > 0)
        throw SimulationError(step + std::to_string(s.nonfinite) +
                              " particle(s) have a NaN or infinite position or velocity");
    const double max_speed = std::sqrt(s.max_speed2);
    // Faster than sound means the weakly compressible assumption is gone (and soon the
    // particles): the fix is a larger speed_of_sound or a smaller CFL number.
    if (max_speed > 2.0 * s_.speed_of_sound)
        throw SimulationError(step + "max_speed " + std::to_string(max_speed) +
                              " m/s exceeds twice the speed of sound " + std::to_string(s_.speed_of_sound) +
                              " m/s (raise speed_of_sound, lower cfl)");
    // Particles outside the box are beyond the search grid (it clamps them into its border
    // cells) and off the view: with no walls (boundary_layers 0) under gravity, the fluid falls
    // out of the box, which is a failure to say, not a run to go on with.
    if (s.outside > 0)
        throw SimulationError(step + std::to_string(s.outside) + " fluid particle(s) left the box" +
                              (s_.boundary_layers == 0
                                   ? " (boundary_layers is 0: no walls hold the fluid; give the box walls, 3 layers "
                                     "for the WCSPH assignment's support of 2 spacings)"
                                   : " through its walls at max_speed " + number_text(max_speed) +
                                         " m/s against a speed of sound of " + number_text(s_.speed_of_sound) +
                                         " m/s (the fluid is too soft for its flow: raise speed_of_sound, lower cfl)"));
    last_max_speed_ = max_speed;
    last_max_accel_ = std::sqrt(s.max_accel2);
    s_.time_step = dt_;
    report(s, out);
    return dt_;
}

void SphSolver::initial_stats(Stats& out) { report(engine_->sums(config()), out); }

void SphSolver::report(const Sums& s, Stats& out) const {
    const double fluid = static_cast<double>(std::max<long long>(s.fluid, 1));
    out.set("kinetic_energy", s.kinetic_energy);
    out.set("momentum", std::vector<double>{s.momentum.x, s.momentum.y});
    out.set("max_speed", std::sqrt(s.max_speed2));
    out.set("density_mean", s.density_sum / fluid);
    out.set("density_max_error", s.fluid > 0 ? s.density_max_error : 0.0);
    out.set("pressure_max", s.fluid > 0 ? s.pressure_max : 0.0);
    out.set("neighbors_mean", static_cast<double>(s.neighbors) / fluid);
    if (implicit_pressure(solver_)) {
        // The solves' work and what they left (Bender & Koschier 2017's eta and eta^v).
        const SolveReport r = engine_->solve_report();
        out.set_count("density_iterations", r.density_iterations);
        out.set("density_residual", r.density_residual);
        if (solver_ == kDfsph) {
            out.set_count("divergence_iterations", r.divergence_iterations);
            out.set("divergence_residual", r.divergence_residual);
        }
        if (s_.viscosity_solver == kImplicitViscosity) {
            out.set_count("viscosity_iterations", r.viscosity_iterations);
            out.set("viscosity_residual", r.viscosity_residual);
        }
    }
    out.set("density_error_mean", s.fluid > 0 ? s.compression_sum / (fluid * s_.rest_density) : 0.0);
    // The dam break's surge front (docs/validation.md): where the fluid on the floor reaches.
    out.set("front_x", s.front_x > -1e300 ? s.front_x : 0.0);
    out.set_count("n_fluid", s.fluid);
    out.set_count("poured", hands_.poured);
    if (s_.barrier_length > 0) {
        out.set("barrier_angle", s_.barrier_angle);
        out.set("barrier_center", std::vector<double>{barrier_pos_.x, barrier_pos_.y});  // where hands left it
    }
}

}  // namespace fs::sph
