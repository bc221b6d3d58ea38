#include "solvers/ot/ot_solver.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "core/memory_budget.hpp"
#include "core/random.hpp"
#include "solvers/common/gravity.hpp"

namespace fs::ot {

OtSolver::OtSolver(Backend backend) : EngineSolver(backend) {
    auto& r = params_;
    r.add_choice({"scenario", "Set-up", "Scene", "",
                  "rayleigh_taylor: a heavy liquid over a light one, its interface bent by one sine mode; "
                  "tutorial: the particle tutorial's box with its random speeds, the gas now a liquid.",
                  0, 0, false, true},
                 {"rayleigh_taylor", "tutorial"}, &s_.scenario);
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
    r.add_real({"initial_speed", "Initial speed", "Scene", "m/s",
                "Each velocity component is initial_speed (rand - 0.5) (the tutorial's 3).", 0, 100, false, true},
               &s_.initial_speed);
    r.add_real({"dt", "Time step", "Time", "s", "x += dt v, then v += dt (pull + gravity) (Gallouet & Merigot 2018).",
                1e-5, 0.1},
               &s_.dt);
    add_gravity(&s_.gravity, s_.gravity_direction, 2);
    r.add_real({"epsilon", "Epsilon", "Transport", "s",
                "The scheme's stiffness: a cell's centroid pulls its particle with (c - x) / eps^2 (for the "
                "lightest liquid; heavier ones by rho_min / rho). Smaller is more incompressible; dt must stay "
                "below eps.",
                1e-4, 10},
               &s_.epsilon);
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

const std::vector<StageInfo>& OtSolver::stages() const {
    static const std::vector<StageInfo> kStages = {
        {"advect", "Gallouet & Merigot 2018, (1.6): x += dt v"},
        {"transport", "Laguerre cells (Ray et al. 2018) and damped Newton on their weights (Kitagawa, Merigot & "
                      "Thibert 2019): every cell back to its area"},
        {"pressure", "Gallouet & Merigot 2018, (1.6): v += dt (c - x) rho_min / (eps^2 rho)"},
        {"forces", "gravity: v += dt g"},
    };
    return kStages;
}

std::vector<FieldInfo> OtSolver::fields() const {
    return {{"position", 2, "m", "particle position"},
            {"velocity", 2, "m/s", "particle velocity"},
            {"speed", 1, "m/s", "|velocity|"},
            {"density", 1, "kg/m^2", "the liquid's density (mass per area)"},
            {"pressure", 1, "m^2/s^2", "the pull's potential |c - x|^2 / (2 eps^2): where the liquid is pressed"},
            {"area_error", 1, "", "(area - target) / target of the cell"},
            {"weight", 1, "m^2", "the cell's Laguerre weight"},
            {"id", 1, "", "particle index at creation"}};
}

void OtSolver::read_field(std::string_view name, std::vector<double>& out) const {
    HostState s;
    engine_->download(s);
    out.clear();
    const std::size_t n = s.pos.size();
    if (name == "position" || name == "velocity") {
        for (const dvec2& v : name == "position" ? s.pos : s.vel) {
            out.push_back(v.x);
            out.push_back(v.y);
        }
    } else if (name == "speed") {
        for (const dvec2& v : s.vel) out.push_back(std::sqrt(v.x * v.x + v.y * v.y));
    } else if (name == "density") {
        out = s.density;
    } else if (name == "weight") {
        out = s.weight;
    } else if (name == "id") {
        out.assign(s.id.begin(), s.id.end());
    } else if (name == "pressure" || name == "area_error") {
        std::vector<double> area;
        std::vector<dvec2> centroid;
        engine_->cell_fields(area, centroid);
        for (std::size_t i = 0; i < n; ++i) {
            if (name == "area_error") {
                out.push_back((area[i] - s.target[i]) / s.target[i]);
            } else {
                const dvec2 d = centroid[i] - s.pos[i];
                out.push_back((d.x * d.x + d.y * d.y) / (2.0 * s_.epsilon * s_.epsilon));
            }
        }
    } else {
        throw ParamError("the ot solver has no field '" + std::string(name) +
                         "' (allowed: position, velocity, speed, density, pressure, area_error, weight, id)");
    }
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
    c.epsilon = s_.epsilon;
    c.rho_min = rho_min_;
    // About one particle a grid cell.
    c.grid = grid::make_grid(c.lo, c.hi, 0.5 * s_.box_size[0] / static_cast<double>(s_.resolution), particle_count());
    return c;
}

void OtSolver::do_reset() {
    const double W = s_.box_size[0], H = s_.box_size[1];
    const auto nx = static_cast<std::size_t>(s_.resolution);
    const double h = W / static_cast<double>(nx);
    const auto ny = static_cast<std::size_t>(std::max(1.0, std::round(H / h)));
    const double hy = H / static_cast<double>(ny);
    const std::size_t n = nx * ny;
    // About 400 bytes a cell: the state, the cells' rows of the Hessian, Newton's and CG's vectors.
    check_memory("resolution", std::to_string(n) + " cells", 400.0 * static_cast<double>(n), backend());
    if (s_.dt >= s_.epsilon)
        throw ParamError("dt: " + number_text(s_.dt) + " s must stay below epsilon " + number_text(s_.epsilon) +
                         " s (the pull oscillates with period 2 pi eps; the step must resolve it)");
    HostState st;
    std::mt19937_64 rng(static_cast<std::uint64_t>(s_.seed));
    const double A = s_.atwood;
    const double heavy = (1.0 + A) / (1.0 - A);  // against a light liquid of density 1
    const double k = 2.0 * 3.14159265358979323846 * static_cast<double>(s_.mode) / W;
    for (std::size_t j = 0; j < ny; ++j)
        for (std::size_t i = 0; i < nx; ++i) {
            const double x = (static_cast<double>(i) + 0.5 + s_.jitter * (2.0 * uniform01(rng) - 1.0)) * h;
            const double y = (static_cast<double>(j) + 0.5 + s_.jitter * (2.0 * uniform01(rng) - 1.0)) * hy;
            st.pos.emplace_back(x, y);
            dvec2 v(0.0);
            if (s_.scenario == kTutorial) {
                v.x = s_.initial_speed * (uniform01(rng) - 0.5);
                v.y = s_.initial_speed * (uniform01(rng) - 0.5);
            }
            st.vel.push_back(v);
            st.weight.push_back(0.0);
            st.target.push_back(h * hy);  // equal areas that fill the box
            // Rayleigh-Taylor: heavy above the interface y = H/2 + a cos(k x) (the cosine's
            // crest at the walls keeps the walls free of shear).
            const bool above = y > 0.5 * H + s_.perturbation * std::cos(k * x);
            st.density.push_back(s_.scenario == kRayleighTaylor && above ? heavy : 1.0);
            st.id.push_back(static_cast<int>(st.id.size()));
        }
    set_state(st);
}

void OtSolver::on_upload() {
    const HostState s = state();
    rho_min_ = s.density.empty() ? 1.0 : *std::min_element(s.density.begin(), s.density.end());
    s_.grid_side = config().grid.nx;
}

void OtSolver::run_stage(int index) {
    const Config c = config();
    engine_->run_stage(index, c, s_.newton_tolerance, static_cast<int>(s_.max_newton));
    if (index == kTransport) {
        const TransportReport& r = engine_->report();
        const std::string step = "step " + std::to_string(step_count() + 1) + ": ";
        if (r.overflow > 0)
            throw SimulationError(step + std::to_string(r.overflow) + " cell(s) would have more than " +
                                  std::to_string(kMaxEdges) + " edges (particles piled up: a smaller dt or "
                                  "epsilon)");
        if (!r.converged)
            throw SimulationError(step + "the transport's Newton did not bring the cells to their areas in " +
                                  std::to_string(s_.max_newton) + " iterations (largest area error " +
                                  number_text(r.max_area_error) + "; a smaller dt, or more Newton iterations)");
    }
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
}

void OtSolver::cell_polygons(std::vector<float>& xy, std::vector<int>& start) const {
    std::vector<dvec2> v;
    engine_->cells(config(), v, start);  // in the engine's order, the fields' order
    xy.resize(2 * v.size());
    for (std::size_t k = 0; k < v.size(); ++k) {
        xy[2 * k] = static_cast<float>(v[k].x);
        xy[2 * k + 1] = static_cast<float>(v[k].y);
    }
}

void OtSolver::cells(std::vector<dvec2>& vertices, std::vector<int>& start) {
    // The engine's order is the state's (the ot pipeline never permutes its particles).
    engine_->cells(config(), vertices, start);
}

}  // namespace fs::ot
