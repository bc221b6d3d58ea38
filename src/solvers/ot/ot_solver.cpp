#include "solvers/ot/ot_solver.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "core/memory_budget.hpp"
#include "core/random.hpp"
#include "solvers/common/gravity.hpp"

namespace fs::ot {

namespace {
// What the app asks of the solver beyond its parameters (core/solver.hpp, SolverTraits).
SolverTraits ot_traits() {
    SolverTraits t;
    t.liquid = true;
    t.instability_advice = "try a smaller time step, a larger epsilon, or more Newton iterations";
    t.stat_scales = {{"total_energy", "J/m", 1e-9},
                     {"transport_energy", "J/m", 1e-9},
                     {"area_error", "", 1e-9},
                     {"total_area", "m^2", 1e-9},
                     {"interface_amplitude", "m", 1e-6},
                     {"newton_iterations", "", 1, true},
                     {"cg_iterations", "", 1, true},
                     {"step_halvings", "", 1, true},
                     {"newton_restarts", "", 1, true},
                     {"cell_passes", "", 1, true},
                     {"cells_ms", "ms", 0.01},
                     {"solve_ms", "ms", 0.01}};
    return t;
}
}  // namespace

OtSolver::OtSolver(Backend backend) : EngineSolver(backend, "ot", 2, ot_traits(), stage_infos(kStages)) {
    auto& r = params_;
    r.add_choice({"scenario", "Set-up", "Scene", "",
                  "rayleigh_taylor: a heavy liquid over a light one, its interface bent by one sine mode; "
                  "tutorial: the particle tutorial's box with its random speeds, the gas now a liquid; "
                  "dam_break: a column of liquid at the box's left, air around it (free surface); "
                  "drop: a drop of liquid falling into a pool (free surface).",
                  0, 0, false, true},
                 {"rayleigh_taylor", "tutorial", "dam_break", "drop"}, &s_.scenario);
    r.add_vec({"box_size", "Box size", "Scene", "m", "Width and height of the box the liquid fills.", 0.01, 100,
               false, true},
              s_.box_size, 2);
    r.add_int({"resolution", "Cells across", "Scene", "",
               "Particles (cells) across the box's width; the height gets as many per metre.", 2, 2000, false, true},
              &s_.resolution);
    r.add_real({"jitter", "Jitter", "Scene", "", "Random offset of each particle from its lattice site, as a "
                "fraction of the spacing.", 0, 0.45, false, true},
               &s_.jitter);
    add_seed(&s_.seed, "Scene", "the jitter and the tutorial's random speeds");
    r.add_real({"atwood", "Atwood number", "Rayleigh-Taylor", "",
                "A = (rho_heavy - rho_light) / (rho_heavy + rho_light) of the two liquids.", 0, 0.95, false, true},
               &s_.atwood);
    r.add_real({"perturbation", "Perturbation", "Rayleigh-Taylor", "m",
                "Amplitude of the interface's sine bend at the start.", 0, 1, false, true},
               &s_.perturbation);
    r.add_int({"mode", "Mode", "Rayleigh-Taylor", "", "Wavelengths of the bend across the box.", 1, 64, false, true},
              &s_.mode);
    r.add_vec({"liquid_size", "Liquid column", "Free surface", "m",
               "Dam break: width and height of the column of liquid at the box's left.", 0.01, 100, false, true},
              s_.liquid_size, 2);
    r.add_real({"pool_depth", "Pool depth", "Free surface", "m", "Drop: depth of the pool.", 0, 100, false, true},
               &s_.pool_depth);
    r.add_real({"drop_radius", "Drop radius", "Free surface", "m", "Drop: radius of the drop.", 0.001, 100, false,
                true},
               &s_.drop_radius);
    r.add_real({"drop_height", "Drop height", "Free surface", "m", "Drop: height of the drop's centre.", 0, 100,
                false, true},
               &s_.drop_height);
    r.add_real({"initial_speed", "Initial speed", "Scene", "m/s",
                "Each velocity component is initial_speed (rand - 0.5) (the tutorial's 3).", 0, 100, false, true},
               &s_.initial_speed);
    r.add_real({"dt", "Time step", "Time", "s", "x += dt v, then v += dt (pull + gravity) (Gallouet & Merigot 2018).",
                1e-5, 0.1},
               &s_.dt);
    add_gravity(&s_.gravity, s_.gravity_direction, 2);
    hands_.strength = 200.0;
    add_hands(&hands_, kHandPushPull);
    r.add_real({"epsilon", "Epsilon", "Transport", "s",
                "The scheme's stiffness: a cell's centroid pulls its particle with (c - x) rho_pull / (eps^2 rho), "
                "rho_pull the density the buoyancy acts with (|rho - rho_ref|; at rest a particle sits eps^2 g "
                "from its centroid). Smaller is more incompressible; dt must stay below eps.",
                1e-4, 10},
               &s_.epsilon);
    r.add_real({"viscosity", "Viscosity", "Forces", "m^2/s",
                "Kinematic viscosity between neighbouring cells (0: none). Without it every scale of an "
                "interface between liquids is unstable, the cell's own the fastest (growth sqrt(A g k)).",
                0, 1},
               &s_.viscosity);
    r.add_real({"newton_tolerance", "Newton tolerance", "Transport", "",
                "Largest relative error of a cell's area the damped Newton stops at.", 1e-12, 0.1},
               &s_.newton_tolerance);
    r.add_int({"max_newton", "Newton iterations", "Transport", "",
               "More than this many Newton iterations in a step is a failure.", 1, 1000},
              &s_.max_newton);
    r.add_int({"grid_side", "Grid cells per side", "Diagnostics", "", "Cells of the search grid along x.", 0, 1e9,
               true},
              &s_.grid_side);
}

// The pull's potential |c - x|^2 / (2 eps^2) of each cell's centroid c on its particle x.
void read_pull_potential(const OtSolver& solver, const HostState& s, std::vector<double>& out) {
    std::vector<double> area;
    std::vector<dvec2> centroid;
    solver.engine().cell_fields(area, centroid);
    const double eps = solver.settings().epsilon;
    for (std::size_t i = 0; i < s.pos.size(); ++i) {
        const dvec2 d = centroid[i] - s.pos[i];
        out.push_back((d.x * d.x + d.y * d.y) / (2.0 * eps * eps));
    }
}

// (area - target) / target of each cell.
void read_area_error(const OtSolver& solver, const HostState& s, std::vector<double>& out) {
    std::vector<double> area;
    std::vector<dvec2> centroid;
    solver.engine().cell_fields(area, centroid);
    for (std::size_t i = 0; i < s.pos.size(); ++i) out.push_back((area[i] - s.target[i]) / s.target[i]);
}

double OtSolver::particle_radius() const {
    return 0.5 * s_.box_size[0] / static_cast<double>(std::max<long long>(s_.resolution, 1));
}

Config OtSolver::config() const {
    Config c;
    c.lo = dvec2(0.0);
    c.hi = dvec2(s_.box_size[0], s_.box_size[1]);
    c.dt = s_.dt;
    c.gravity = gravity_vector<2>(s_.gravity, s_.gravity_direction);
    c.hand = hand_force<dvec2>(hand_, hands_);
    c.epsilon = s_.epsilon;
    c.rho_min = rho_min_;
    c.rho_pull = rho_pull_;
    c.rho_ref = rho_ref_;
    c.free_surface = free_surface();
    c.viscosity = s_.viscosity;
    if (s_.scenario == kRayleighTaylor)
        c.mode_k = 2.0 * 3.14159265358979323846 * static_cast<double>(s_.mode) / s_.box_size[0];
    // About one particle a grid cell.
    c.grid = grid::make_grid(c.lo, c.hi, 0.5 * s_.box_size[0] / static_cast<double>(s_.resolution), particle_count());
    return c;
}

// The work a step costs, estimated before it runs: the cells (one a particle) the resolution
// seeds. A step's Newton iterations each build every cell and solve with multigrid-preconditioned
// CG, and grow faster than the cells: measured here on 2 threads, Rayleigh-Taylor at 10^5 cells
// took 0.7 s a step and at 3.7e5 cells 6.9 s; on an H100 10^6 cells took 0.21 s. The bounds keep a
// step to a few seconds.
void OtSolver::check_params() const {
    const double W = s_.box_size[0], H = s_.box_size[1];
    const double h = W / static_cast<double>(std::max<long long>(s_.resolution, 1));
    const double cells = static_cast<double>(s_.resolution) * std::max(1.0, std::round(H / (0.8660254037844386 * h)));
    const bool gpu = backend() == Backend::Cuda;
    const double allowed = gpu ? 4e6 : 2e5;
    if (cells <= allowed) return;
    throw ParamError("resolution: " + std::to_string(s_.resolution) + " across a " + number_text(W) + " x " +
                     number_text(H) + " m box gives about " + scientific_text(cells) +
                     " cells, whose steps would take minutes; allowed: at most " + scientific_text(allowed) +
                     " cells on the " + (gpu ? "CUDA" : "CPU") + " backend (a smaller resolution" +
                     (gpu ? ")" : ", or the CUDA backend)"));
}

void OtSolver::do_reset() {
    const double W = s_.box_size[0], H = s_.box_size[1];
    const auto nx = static_cast<std::size_t>(s_.resolution);
    const double h = W / static_cast<double>(nx);
    // A hexagonal lattice: rows sqrt(3)/2 spacings apart, every other one shifted by half a
    // spacing, each row symmetric about the box's middle (nx sites, then nx - 1 between them), so
    // the start is its own mirror image and a symmetric bend stays symmetric (rows shifted all
    // one way tilt the Rayleigh-Taylor plume). The square lattice is a saddle of the cells' transport energy (the sum of the
    // integrals of |y - x_i|^2): under gravity it slides into hexagons by itself, releasing
    // kinetic energy (measured: a liquid of one density at rest in the 32-across box reached
    // 1e-2 J in 0.3 s from a square lattice).
    const auto ny = static_cast<std::size_t>(std::max(1.0, std::round(H / (0.8660254037844386 * h))));
    const double hy = H / static_cast<double>(ny);
    // About 400 bytes a cell: the state, the cells' rows of the Hessian, Newton's and CG's vectors.
    check_memory("resolution", std::to_string(nx * ny) + " cells", 400.0 * static_cast<double>(nx * ny), backend());
    if (s_.dt >= s_.epsilon)
        throw ParamError("dt: " + number_text(s_.dt) + " s must stay below epsilon " + number_text(s_.epsilon) +
                         " s (the pull oscillates with period 2 pi eps; the step must resolve it)");
    // The liquid of a free surface must fit in the box (partial transport needs less liquid than
    // box).
    const auto fits = [&](const std::string& key, const std::string& what, bool ok) {
        if (!ok) throw ParamError(key + ": " + what + " does not fit in the box " + number_text(W) + " x " +
                                  number_text(H) + " m (box_size)");
    };
    if (s_.scenario == kDamBreak)
        fits("liquid_size", number_text(s_.liquid_size[0]) + " x " + number_text(s_.liquid_size[1]) + " m",
             s_.liquid_size[0] <= W && s_.liquid_size[1] <= H);
    if (s_.scenario == kDrop) {
        fits("pool_depth", number_text(s_.pool_depth) + " m", s_.pool_depth < H);
        fits("drop_height", "a drop of radius " + number_text(s_.drop_radius) + " m at height " +
                                number_text(s_.drop_height) + " m above a pool " + number_text(s_.pool_depth) +
                                " m deep",
             s_.drop_height - s_.drop_radius >= s_.pool_depth && s_.drop_height + s_.drop_radius <= H &&
                 2.0 * s_.drop_radius <= W);
    }
    const double A = s_.atwood;
    const double heavy = (1.0 + A) / (1.0 - A);  // against a light liquid of density 1
    if (s_.scenario == kRayleighTaylor && A > 0.5) {
        // The light liquid's cells are pulled at rho_pull / (eps^2 rho_light) = A / ((1 - A) eps^2)
        // (on_upload): above A = 1/2 they oscillate faster than 1/eps. Semi-implicit Euler keeps
        // an oscillator of frequency omega stable while omega dt < 2.
        const double most = 2.0 * s_.epsilon * std::sqrt((1.0 - A) / A);
        if (s_.dt >= most)
            throw ParamError("dt: " + number_text(s_.dt) + " s must stay below 2 eps sqrt((1 - A) / A) = " +
                             number_text(most) + " s at atwood " + number_text(A) +
                             " (the light liquid's cells are pulled at A / ((1 - A) eps^2))");
    }
    {
        // Explicit viscosity is stable while nu dt sum_j (l_ij / d_ij) / T_i, about 4 nu dt / h^2
        // on the lattice, times the densities' spread (rho_i + rho_j) / (2 rho_i), stays below
        // 1/2 (the heat equation's forward-Euler bound).
        const double spread = s_.scenario == kRayleighTaylor ? 0.5 * (1.0 + heavy) : 1.0;
        const double most = h * h / (8.0 * s_.dt * spread);
        if (s_.viscosity > most)
            throw ParamError("viscosity: " + number_text(s_.viscosity) + " m^2/s is more than the explicit step allows "
                             "at this dt and resolution (at most " + number_text(most) + " m^2/s)");
    }
    HostState st;
    std::mt19937_64 rng(static_cast<std::uint64_t>(s_.seed));
    const bool partial = free_surface();
    for (std::size_t j = 0; j < ny; ++j)
        for (std::size_t i = 0; i + (j % 2) < nx; ++i) {
            // The lattice site, whether it holds liquid, then the jitter.
            const double x0 = (static_cast<double>(i) + (j % 2 == 0 ? 0.5 : 1.0)) * h;
            const double y0 = (static_cast<double>(j) + 0.5) * hy;
            const double jx = s_.jitter * (2.0 * uniform01(rng) - 1.0), jy = s_.jitter * (2.0 * uniform01(rng) - 1.0);
            if (s_.scenario == kDamBreak && (x0 > s_.liquid_size[0] || y0 > s_.liquid_size[1])) continue;
            if (s_.scenario == kDrop) {
                const double dx = x0 - 0.5 * W, dy = y0 - s_.drop_height;
                if (y0 > s_.pool_depth && dx * dx + dy * dy > s_.drop_radius * s_.drop_radius) continue;
            }
            double x = x0 + jx * h, y = y0 + jy * hy;
            st.pos.emplace_back(x, y);
            dvec2 v(0.0);
            if (s_.scenario == kTutorial) {
                v.x = s_.initial_speed * (uniform01(rng) - 0.5);
                v.y = s_.initial_speed * (uniform01(rng) - 0.5);
            }
            st.vel.push_back(v);
            // Equal areas; with a free surface, a disk of the cell's area to begin Newton from.
            st.target.push_back(h * hy);
            st.weight.push_back(partial ? h * hy / 3.14159265358979323846 : 0.0);
            // Rayleigh-Taylor: heavy above the interface y = H/2 (the cosine's crest at the walls
            // keeps the walls free of shear).
            st.density.push_back(s_.scenario == kRayleighTaylor && y0 > 0.5 * H ? heavy : 1.0);
            st.id.push_back(static_cast<int>(st.id.size()));
        }
    if (st.pos.empty()) throw ParamError("resolution: no particle fits in the liquid at " + std::to_string(nx) +
                                         " across the box (a larger resolution)");
    // A closed box is filled exactly: each cell a share of it.
    if (!partial)
        for (double& t : st.target) t = W * H / static_cast<double>(st.pos.size());
    // The start's settling and the first projection are work of the first step (start_run),
    // not of the reset: a reset stays as cheap as building the lattice (the window's Reset and
    // scene checks answer at once; settling 10^5 cells takes 17 s). Until then the state shows
    // the lattice with the Rayleigh-Taylor bend, as the run will begin.
    start_flat_ = st;
    internal_upload_ = true;
    set_state(st);
    mode_flat_ = s_.scenario == kRayleighTaylor ? engine_->sums(config()).mode : 0.0;
    set_state(bent(st));
    internal_upload_ = false;
    start_pending_ = true;
}

// The Rayleigh-Taylor bend applied to a flat start: the interface y = H/2 bent to a cos(k x) by
// the divergence-free displacement xi = (-(a/k) sin(k x) f'(y), a cos(k x) f(y)),
// f(y) = exp(-(k (y - H/2))^2 / 2): smooth, so the cells only bend with it and a settled start
// stays at rest (a displacement that shears the rows at the interface, like the linear mode's
// e^{-k |y - H/2|}, puts particles far from their cells' centroids). Linear theory needs only
// the interface's shape: from rest its amplitude grows as a cosh(sigma t) (Chandrasekhar 1961,
// ch. X). Other scenarios: unchanged.
HostState OtSolver::bent(HostState b) const {
    if (s_.scenario != kRayleighTaylor || !(s_.perturbation > 0.0)) return b;
    const double W = s_.box_size[0], H = s_.box_size[1];
    const double k = 2.0 * 3.14159265358979323846 * static_cast<double>(s_.mode) / W;
    for (dvec2& p : b.pos) {
        const double u = k * (p.y - 0.5 * H), f = std::exp(-0.5 * u * u);
        p = glm::clamp(p + s_.perturbation * dvec2(std::sin(k * p.x) * u * f, std::cos(k * p.x) * f), dvec2(0.0),
                       dvec2(W, H));
    }
    return b;
}

// Before the first step after a reset: in a closed box the flat liquids are settled at rest and
// then bent; every start is projected (its cells brought to their areas), so the first step's
// Newton begins from there. A state set from outside (tests, a checkpoint, the other backend)
// replaces the reset's, and is stepped as it is.
void OtSolver::start_run() {
    start_pending_ = false;
    internal_upload_ = true;
    if (!free_surface()) {
        set_state(start_flat_);
        settle();
        mode_flat_ = s_.scenario == kRayleighTaylor ? engine_->sums(config()).mode : 0.0;  // the flat interface's
        HostState b = bent(state());
        b.weight_prev.clear();  // moved by the bend: the next Newton starts from the weights alone
        set_state(b);
    }
    internal_upload_ = false;
    start_flat_ = HostState{};
    engine_->run_stage(kTransport, config(), s_.newton_tolerance, static_cast<int>(s_.max_newton));
    check_transport("step " + std::to_string(step_count() + 1) + " (the start, before its first step)");
}

// The start at rest (a closed box): each particle where its cell's pull holds it against
// gravity, x_i = c_i + eps^2 g (rho_i - rho_ref) / rho_pull (the pressure stage's balance), c_i its cell's
// centroid with the cells at their areas, by fixed-point iteration (until no particle moves
// 1e-4 spacings, at most 50 passes; measured: 20 passes to 1e-3 in the 32-across box). Each pass
// is a gradient step of the energy, so on the hexagonal lattice (a minimum of the transport
// energy) it converges; the flat interface is an equilibrium, and the Rayleigh-Taylor bend is
// put in afterwards. Without it the liquid starts without pressure, falls by eps^2 g in its
// first steps and rings at the pull's period for the whole run.
void OtSolver::settle() {
    const Config c = config();
    const double h = s_.box_size[0] / static_cast<double>(s_.resolution);
    std::vector<double> area;
    std::vector<dvec2> centroid;
    for (int pass = 0; pass < 50; ++pass) {
        engine_->run_stage(kTransport, c, s_.newton_tolerance, static_cast<int>(s_.max_newton));
        check_transport("step " + std::to_string(step_count() + 1) + " (the start's settling at rest)");
        engine_->cell_fields(area, centroid);
        HostState st = state();
        double moved = 0.0;
        for (std::size_t i = 0; i < st.pos.size(); ++i) {
            const dvec2 x = glm::clamp(centroid[i] + (s_.epsilon * s_.epsilon * (st.density[i] - rho_ref_) / rho_pull_) * c.gravity,
                                       c.lo, c.hi);
            moved = std::max(moved, glm::length(x - st.pos[i]));
            st.pos[i] = x;
        }
        st.weight_prev.clear();  // a pass of the settling is no time step to extrapolate over
        set_state(st);
        if (moved < 1e-4 * h) break;
    }
}

void OtSolver::on_upload() {
    if (!internal_upload_) start_pending_ = false;  // a state from outside is stepped as it is
    const HostState s = state();
    rho_min_ = s.density.empty() ? 1.0 : *std::min_element(s.density.begin(), s.density.end());
    // In a closed box full of liquid, a uniform weight rho_ref g per volume is the gradient of
    // rho_ref g . x, which the pressure balances exactly without any flow (the flow of an
    // incompressible liquid is unchanged; only the pressure's level differs). So that part of
    // gravity is left to the pressure, and only (rho_i - rho_ref) g per volume acts: the pull
    // then holds the heaviest liquid's particles rho_max / (rho_max - rho_ref) times closer to
    // their centroids (3 times at Atwood 0.5). rho_ref is the mean of the lightest and heaviest
    // densities (a liquid of one density feels no gravity at all: in a full closed box it could
    // not move under it). A free surface has no such freedom (the air's pressure is fixed):
    // rho_ref = 0. This departs from Gallouet & Merigot 2018, who apply g itself; the
    // Rayleigh-Taylor growth rate measured at eps = 0.012 s is the same either way (docs/validation.md).
    if (free_surface() || s.density.empty()) {
        rho_ref_ = 0.0;
    } else {
        rho_ref_ = 0.5 * (rho_min_ + *std::max_element(s.density.begin(), s.density.end()));
    }
    // The pull's scale rho_pull / eps^2 (Pipeline::pressure) is referenced to the density the
    // buoyancy acts with, the largest |rho_i - rho_ref|, so that at rest every particle sits
    // eps^2 g from its cell's centroid (settle()), as one liquid under g does in Gallouet &
    // Merigot 2018: the ratio of the cells' stiffness to the buoyancy they carry, and with it the
    // Rayleigh-Taylor growth at a given eps, is then the same at every Atwood number. Referenced
    // to the lightest density, as it was, that ratio went as (1 - A) / A: the offsets were
    // A / (1 - A) times eps^2 g (4 times at A = 0.8, where the cell-sized modes ran away and the
    // rate came out +283% at 32 across; a quarter at A = 0.2, where the cells' stiffness held the
    // growth to -61%); measured, the rate followed the offset whatever the Atwood number and eps
    // (docs/validation.md). At A = 0.5 both references are the same density. One liquid in a
    // closed box carries no buoyancy: its own density.
    rho_pull_ = 0.0;
    for (double r : s.density) rho_pull_ = std::max(rho_pull_, std::fabs(r - rho_ref_));
    if (!(rho_pull_ > 0.0)) rho_pull_ = rho_min_;
    s_.grid_side = config().grid.nx;
}

void OtSolver::run_stage(int index) {
    if (start_pending_) start_run();
    const Config c = config();
    engine_->run_stage(index, c, s_.newton_tolerance, static_cast<int>(s_.max_newton));
    if (index == kTransport) check_transport("step " + std::to_string(step_count() + 1));
}

void OtSolver::check_transport(const std::string& when) {
    const TransportReport& r = engine_->report();
    if (r.overflow > 0)
        throw SimulationError(when + ": " + std::to_string(r.overflow) + " cell(s) would have more than " +
                              std::to_string(kMaxEdges) + " edges (particles piled up: a smaller dt or epsilon)");
    if (r.empty_cells)
        throw SimulationError(when + ": a cell stays empty whatever its weight: two particles coincide (no "
                              "transport gives both their area)");
    if (!r.converged)
        throw SimulationError(when + ": the transport's Newton did not bring the cells to their areas in " +
                              std::to_string(s_.max_newton) + " iterations (largest area error " +
                              number_text(r.max_area_error) + "; a smaller dt, or more Newton iterations)");
}

double OtSolver::finish_step(Stats& out) {
    const Sums s = engine_->sums(config());
    const std::string step = "step " + std::to_string(step_count() + 1) + ": ";
    if (s.nonfinite > 0)
        throw SimulationError(step + std::to_string(s.nonfinite) +
                              " particle(s) have a NaN or infinite position or velocity");
    report(s, out);
    const TransportReport& r = engine_->report();
    out.set_count("newton_iterations", r.newton_iterations);
    out.set_count("cg_iterations", r.cg_iterations);
    out.set_count("step_halvings", r.step_halvings);
    out.set_count("newton_restarts", r.restarted ? 1 : 0);
    // What the transport's time went to: computing the cells (cell_passes times) and solving the
    // Newton systems.
    out.set_count("cell_passes", r.cell_passes);
    out.set("cells_ms", r.cells_ms);
    out.set("solve_ms", r.solve_ms);
    return s_.dt;
}

void OtSolver::initial_stats(Stats& out) { report(engine_->sums(config()), out); }

void OtSolver::report(const Sums& s, Stats& out) const {
    out.set("kinetic_energy", s.kinetic_energy);
    out.set("momentum", std::vector<double>{s.momentum.x, s.momentum.y});
    out.set("max_speed", std::sqrt(s.max_speed2));
    out.set("total_energy", s.kinetic_energy + s.potential_energy + s.transport_energy);
    out.set("transport_energy", s.transport_energy);
    out.set("area_error", s.max_area_error);
    out.set("total_area", s.area);
    if (s_.scenario == kRayleighTaylor) {
        // The interface y = H/2 + a cos(k x) bounds the denser liquid, whose sum of T y cos(k x)
        // is then -(H W / 4) a to first order in a (the integral of y cos(k x) over y > H/2 + a
        // cos(k x)): the mode's amplitude without tracking the interface.
        // (Less the flat interface's sum, which the lattice's rows need not cancel.)
        out.set("interface_amplitude", -4.0 * (s.mode - mode_flat_) / (s_.box_size[0] * s_.box_size[1]));
    }
}

// A cell's outline for drawing: its polygon, with the parts outside its disk (a free surface)
// replaced by the arc, in steps of at most 10 degrees (the same pieces as moments() integrates).
static void outline(const std::vector<dvec2>& v, int begin, int end, dvec2 x, double r, std::vector<float>& xy) {
    const auto put = [&](dvec2 p) {
        xy.push_back(static_cast<float>(p.x));
        xy.push_back(static_cast<float>(p.y));
    };
    const auto arc = [&](dvec2 a, dvec2 b) {  // from the direction of a to that of b, both relative to x
        const double phi0 = std::atan2(a.y, a.x);
        const double phi = std::atan2(a.x * b.y - b.x * a.y, a.x * b.x + a.y * b.y);
        const int m = std::max(1, static_cast<int>(std::ceil(std::fabs(phi) / 0.1745)));
        for (int j = 1; j <= m; ++j) {
            const double t = phi0 + phi * j / m;
            put(x + r * dvec2(std::cos(t), std::sin(t)));
        }
    };
    for (int k = begin; k < end; ++k) {
        const dvec2 a = v[static_cast<std::size_t>(k)] - x, b = v[static_cast<std::size_t>(k + 1 < end ? k + 1 : begin)] - x;
        if (r <= 0.0) {
            put(x + a);
            continue;
        }
        double t0, t1;
        chord(a, b, r, t0, t1);
        if (t0 >= t1) {
            arc(a, b);
            continue;
        }
        const dvec2 p0 = a + t0 * (b - a), p1 = a + t1 * (b - a);
        if (t0 > 0.0)
            arc(a, p0);  // ends at p0
        else
            put(x + a);
        if (t1 < 1.0) {
            put(x + p1);
            arc(p1, b);
        }
    }
}

void OtSolver::cell_polygons(std::vector<float>& xy, std::vector<int>& start) const {
    std::vector<dvec2> v;
    std::vector<int> poly_start;
    std::vector<double> radius;
    engine_->cells(config(), v, poly_start, radius);  // in the engine's order, the fields' order
    const HostState st = state();
    xy.clear();
    start.assign(1, 0);
    for (std::size_t i = 0; i + 1 < poly_start.size(); ++i) {
        outline(v, poly_start[i], poly_start[i + 1], st.pos[i], radius[i], xy);
        start.push_back(static_cast<int>(xy.size() / 2));
    }
}

void OtSolver::cells(std::vector<dvec2>& vertices, std::vector<int>& start, std::vector<double>& radius) {
    // The engine's order is the state's (the ot pipeline never permutes its particles).
    engine_->cells(config(), vertices, start, radius);
}

}  // namespace fs::ot
