#include "solvers/vortex/vortex_solver.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "solvers/common/gravity.hpp"

namespace fs::vortex {

const std::vector<std::string> kShapeNames = {"none",     "sphere",      "box",     "plate",   "wedge",
                                              "tetrahedron", "airfoil", "planes", "vertices"};

VortexSolver::VortexSolver(Backend backend) : EngineSolver(backend) { register_params(); }

const std::vector<StageInfo>& VortexSolver::stages() const {
    static const std::vector<StageInfo> kStages = {
        {"emit", "series part 11: flames emit hot vortons and tracers"},
        {"velocity", "series parts 3 and 6: u from vorticity (Biot-Savart or vortex-in-cell)"},
        {"buoyancy", "series parts 8 and 10: D omega/Dt = (g x grad T)/T, heat diffusion"},
        {"half_step", "midpoint rule (Hairer et al. II.1): x, omega advanced dt/2 with the first rates"},
        {"midpoint_velocity", "midpoint rule: u, grad u again at the half step"},
        {"stretch", "series part 3: d omega/dt = (omega . grad) u + nu lap omega, from the step's start "
                    "(Adams-Bashforth: with the last step's rate, Hairer et al. III.5)"},
        {"advect", "series part 3: x += dt u, from the step's start (Adams-Bashforth: u with the last step's)"},
        {"collide", "vortex article: SolveBoundaryConditions, CollideVortonsSlice, CollideTracersSlice"},
        {"bodies", "series part 4: bodies take the fluid's impulse"},
        {"remesh", "vortons re-created on the grid (optional)"},
    };
    return kStages;
}

std::vector<FieldInfo> VortexSolver::fields() const {
    return {{"position", 3, "m", "vortons first, then tracers"},
            {"velocity", 3, "m/s", "fluid velocity at the particle"},
            {"speed", 1, "m/s", "|velocity|"},
            {"vorticity", 3, "1/s", "a vorton's vorticity (0 for tracers)"},
            {"vorticity_magnitude", 1, "1/s", "|vorticity|"},
            {"temperature", 1, "K", "particle temperature"},
            {"species", 1, "", "0 vorton, 1 tracer"},
            {"id", 1, "", "index at creation (vortons and tracers count separately)"}};
}

void VortexSolver::read_field(std::string_view name, std::vector<double>& out) const {
    HostState s;
    engine_->download(s);
    out.clear();
    const std::size_t nv = s.vpos.size(), nt = s.tpos.size();
    auto vec3 = [&](const std::vector<dvec3>& a, const std::vector<dvec3>* b) {
        for (const dvec3& v : a) out.insert(out.end(), {v.x, v.y, v.z});
        if (b)
            for (const dvec3& v : *b) out.insert(out.end(), {v.x, v.y, v.z});
        else
            out.resize(out.size() + 3 * nt, 0.0);
    };
    if (name == "position") {
        vec3(s.vpos, &s.tpos);
    } else if (name == "velocity") {
        vec3(s.vvel, &s.tvel);
    } else if (name == "vorticity") {
        vec3(s.omega, nullptr);
    } else if (name == "speed") {
        for (const dvec3& v : s.vvel) out.push_back(glm::length(v));
        for (const dvec3& v : s.tvel) out.push_back(glm::length(v));
    } else if (name == "vorticity_magnitude") {
        for (const dvec3& v : s.omega) out.push_back(glm::length(v));
        out.resize(nv + nt, 0.0);
    } else if (name == "temperature") {
        out.assign(s.vtemp.begin(), s.vtemp.end());
        out.insert(out.end(), s.ttemp.begin(), s.ttemp.end());
    } else if (name == "species") {
        out.assign(nv, 0.0);
        out.resize(nv + nt, 1.0);
    } else if (name == "id") {
        out.assign(s.vid.begin(), s.vid.end());
        out.insert(out.end(), s.tid.begin(), s.tid.end());
    } else {
        throw ParamError("the vortex solver has no field '" + std::string(name) +
                         "' (allowed: position, velocity, speed, vorticity, vorticity_magnitude, temperature, "
                         "species, id)");
    }
}

void VortexSolver::domain(double lo[3], double hi[3]) const {
    for (int k = 0; k < 3; ++k) {
        lo[k] = s_.view_box[k];
        hi[k] = s_.view_box[k + 3];
    }
}

Config VortexSolver::config() const {
    Config c;
    c.dt = dt_;
    c.velocity_method = s_.velocity_method;
    c.tracer_method = s_.tracer_velocity;
    c.grid_cells = static_cast<int>(s_.grid_cells);
    c.grid_spacing = s_.grid_spacing;
    c.core_radius = s_.core_radius;
    c.core_overlap = s_.core_overlap;
    c.stretching = s_.stretching;
    c.stretch_form = s_.stretching_form;
    c.relaxation = s_.relaxation;
    c.integrator = s_.integrator;
    c.viscosity = s_.viscosity;
    c.fluid_density = s_.fluid_density;
    c.specific_heat = s_.specific_heat;
    c.gravity = gravity_vector<3>(s_.gravity, s_.gravity_direction);
    c.ambient_temperature = s_.ambient_temperature;
    c.buoyancy = s_.buoyancy;
    c.thermal_diffusivity = s_.thermal_diffusivity;
    c.cooling_rate = s_.cooling_rate;
    c.boundary_thickness = s_.boundary_thickness;
    // Under boundary elements the panels keep the fluid out and no wall layer cancels the slip:
    // the collide stage only puts back a vorton that still came within a core radius (free slip).
    c.slip_fraction = s_.body_model == kBoundaryElements ? 0.0 : s_.slip_fraction;
    c.shedding = s_.body_model == kBoundaryElements && s_.shedding;
    c.heat_transfer_rate = s_.heat_transfer_rate;
    c.remesh = s_.remesh_every > 0 && (step_count() + 1) % s_.remesh_every == 0;
    c.remesh_threshold = s_.remesh_threshold;
    c.remesh_keep_lo = dvec3(s_.vorton_box[0], s_.vorton_box[1], s_.vorton_box[2]);
    c.remesh_keep_hi = dvec3(s_.vorton_box[3], s_.vorton_box[4], s_.vorton_box[5]);
    c.max_vortons = static_cast<int>(std::min<long long>(s_.max_vortons, 1 << 30));
    c.body_count = kMaxBodies;
    return c;
}

void VortexSolver::run_stage(int index) {
    if (index == kEmit) {
        // dt: the set step, bounded so no particle crosses more than cfl core radii; a body a hand
        // drags counts as moving at the drag speed, so a fast drag takes smaller steps instead of
        // passing through vortons.
        const double held = hand_.tool == Hand::Tool::Drag && hand_.body >= 0 ? hands_.drag_speed : 0.0;
        const double cfl_dt = s_.cfl * s_.core_radius / std::max({last_max_speed_, held, 1e-12});
        dt_ = std::min(s_.dt, cfl_dt);
        s_.dt_limit = cfl_dt < s_.dt ? 1 : 0;
        emit();
        shed();
        // A dragged body's velocity is set here, before the collide stage reads the bodies: the
        // fluid meets it moving as move_bodies then moves it.
        hold_bodies();
        engine_->set_bodies(body_shapes());
        return;
    }
    if (index == kBodies) {
        move_bodies();
        engine_->set_bodies(body_shapes());
        return;
    }
    engine_->run_stage(index, config());
}

// What the vorticity itself gives: counts, the total vorticity, the impulse and the enstrophy.
void VortexSolver::vorticity_stats(const Sums& s, Stats& out) const {
    const dvec3 P = s_.fluid_density * s.impulse;
    out.set_count("n_vortons", engine_->vortons());
    out.set_count("n_tracers", engine_->tracers());
    out.set("total_vorticity", std::vector<double>{s.alpha.x, s.alpha.y, s.alpha.z});
    out.set("linear_impulse", std::vector<double>{P.x, P.y, P.z});
    const dvec3 L = s_.fluid_density * s.angular;
    out.set("angular_impulse", std::vector<double>{L.x, L.y, L.z});
    out.set("enstrophy", s.enstrophy);
}

// Step 0: the kinetic energy and the speeds need a velocity stage, so they wait for step 1.
void VortexSolver::initial_stats(Stats& out) {
    const Sums s = engine_->sums(config());
    const dvec3 P = s_.fluid_density * s.impulse;
    out.set("momentum", std::vector<double>{P.x, P.y, P.z});
    vorticity_stats(s, out);
}

double VortexSolver::finish_step(Stats& out) {
    const Config c = config();
    const Sums s = engine_->sums(c);
    const std::string step = "step " + std::to_string(step_count() + 1) + ": ";
    if (s.nonfinite > 0)
        throw SimulationError(step + std::to_string(s.nonfinite) +
                              " particle(s) have a NaN or infinite position, velocity or vorticity");
    // A remesh that would exceed max_vortons leaves the vortons as they were; a scene that relies
    // on remeshing to keep its vortons overlapping would then run away later, far from the cause.
    if (c.remesh && engine_->remesh_refused() > 0)
        throw SimulationError(step + "the remesh needs " + std::to_string(engine_->remesh_refused()) +
                              " vortons, more than max_vortons = " + std::to_string(s_.max_vortons) +
                              "; raise max_vortons, or remesh_threshold, or coarsen grid_spacing");
    last_max_speed_ = std::sqrt(s.max_speed2);
    check_growth(s, c.remesh, step);
    // A runaway: a speed that would force a step a hundred times shorter than the set one.
    const double bound = 100.0 * s_.cfl * s_.core_radius / s_.dt;
    if (last_max_speed_ > bound) {
        char what[320];
        std::snprintf(what, sizeof what,
                      "max_speed %.4g m/s: a vorton would cross a hundred times its core in one step (the limit "
                      "at these settings is 100 cfl core_radius / dt = %.4g m/s): the flow has run away; try a "
                      "smaller dt or a thicker core_radius",
                      last_max_speed_, bound);
        throw SimulationError(step + what);
    }
    const GridInfo gi = engine_->grid_info();
    s_.time_step = dt_;
    s_.grid_nodes = gi.built ? gi.grid.nodes() : 0;
    const double rho = s_.fluid_density;
    const dvec3 P = rho * s.impulse;
    // The energy pairs each vorton's strength with the psi of the last velocity stage; after a
    // remesh the vortons are new and that psi belongs to the old ones (the stat dropped by up to
    // half every remesh, a sawtooth in the plot), so a remesh step reports the step before's.
    const bool remeshed_now = c.remesh && engine_->remesh_done();
    if (!remeshed_now) last_energy_ = rho * s.energy;
    out.set("kinetic_energy", last_energy_);
    out.set("momentum", std::vector<double>{P.x, P.y, P.z});
    out.set("max_speed", last_max_speed_);
    vorticity_stats(s, out);
    out.set_count("grid_nodes", s_.grid_nodes);
    int contacts = 0;
    for (int k = 0; k < static_cast<int>(bodies_.size()); ++k) {
        const BodyState& b = bodies_[k];
        if (!b.active) continue;
        const std::string p = "body" + std::to_string(k + 1) + "_";
        auto v3 = [](dvec3 v) { return std::vector<double>{v.x, v.y, v.z}; };
        out.set(p + "position", v3(b.position));
        out.set(p + "velocity", v3(b.velocity));
        out.set(p + "angular_velocity", v3(b.angular_velocity));
        out.set(p + "impulse", v3(b.received.linear));
        out.set(p + "angular_impulse", v3(b.received.angular));
        out.set(p + "heat", b.received.heat);
        out.set(p + "force", v3(b.force));
        out.set(p + "torque", v3(b.torque));
        const BodyAero aero = body_aero(b, s_.fluid_density);
        out.set(p + "lift", aero.lift);
        out.set(p + "drag", aero.drag);
        out.set(p + "lift_coefficient", aero.lift_coefficient);
        out.set(p + "drag_coefficient", aero.drag_coefficient);
        contacts += b.received.contacts;
    }
    out.set_count("vorton_contacts", contacts);
    return dt_;
}

// A runaway the speed bound sees too late: a time step that amplifies the flow's oscillations
// grows its energy and enstrophy exponentially (a ring's bending waves, from round-off); under
// explicit Euler a thin ring reached 9600 times its energy with every speed still within the
// bound. Without flames or bodies nothing feeds the flow: its kinetic energy is conserved
// (inviscid) or falls (viscosity), and a lone ring keeps its enstrophy too. Growth past kGrowth
// times the reference is a failure. The reference is the first step since the scene last could
// add energy, or the step after a remesh (vortons re-created with the grid's cores have another
// discrete enstrophy, 21 times the ring's at threshold 0, and the remesh step's energy pairs the
// new vortons with the old psi). Ten times leaves room for the diagnostics' own error (the energy
// takes psi from the last velocity stage) and for enstrophy that real stretching adds; an
// exponential runaway goes from twice to ten times in ln 5 / rate (0.4 s for the bundled ring
// under Euler, docs/solvers/vortex.md).
void VortexSolver::check_growth(const Sums& s, bool remeshed, const std::string& step) {
    constexpr double kGrowth = 10.0;
    const double energy = s_.fluid_density * s.energy;
    if (can_add_energy() || remeshed) {
        reference_energy_ = 0.0;
        return;
    }
    if (reference_energy_ <= 0.0) {
        reference_energy_ = energy;
        reference_enstrophy_ = s.enstrophy;
        reference_step_ = step_count() + 1;
        return;
    }
    const bool energy_grew = energy > kGrowth * reference_energy_;
    if (!energy_grew && !(s.enstrophy > kGrowth * reference_enstrophy_)) return;
    const std::string what = energy_grew ? "kinetic_energy " + std::to_string(energy) + " J"
                                         : "enstrophy " + std::to_string(s.enstrophy) + " m^3/s^2";
    const std::string was = energy_grew ? std::to_string(reference_energy_) + " J"
                                        : std::to_string(reference_enstrophy_) + " m^3/s^2";
    const std::string integrator = s_.integrator != kMidpoint ? "integrator midpoint, " : "";
    // Two causes look alike here: a time step that grows the flow's waves, and vortons whose
    // vorticity has drifted off the field they stand for (rings that tangle after many passes;
    // a smaller dt does not help there, relaxation does: docs/solvers/vortex.md).
    const std::string relax =
        s_.relaxation > 0.0 ? "" : "; or, where the vortex lines tangled, relaxation 18 with stretching_form transpose";
    throw SimulationError(step + what + " is more than " + std::to_string(static_cast<int>(kGrowth)) +
                          " times its " + was + " at step " + std::to_string(reference_step_) +
                          " with no flames or bodies to feed the flow: the time stepping has run away or the vortons "
                          "no longer resolve the flow; try " +
                          integrator + wave_advice() + relax);
}

// A vortex filament's bending waves have frequencies up to about Gamma / sigma^2 (Kelvin waves of
// wavelength near the core, Saffman 1992, 11.2), and an explicit step lets them grow unless
// dt Gamma / sigma^2 stays under a bound. Measured under the midpoint rule over 60 s of a ring
// (R = 1 m; docs/solvers/vortex.md, "The runaway guard"): 2.96 held and 3.33-3.40 broke, at
// sigma from 0.05 to 0.1 m, 64 to 256 vortons a ring (sigma/dl from 0.5 to 3) and Gamma from 1 to
// 3 m^2/s; the advice keeps a margin: dt <= 2 sigma^2 / Gamma (tested: VortexGuard.*).
std::string VortexSolver::wave_advice() const {
    constexpr double kWaveBound = 2.0;
    double gamma = 0.0;
    for (const RingSettings& ring : s_.rings)
        if (ring.vortons > 0) gamma = std::max(gamma, std::fabs(ring.circulation));
    if (gamma <= 0.0)
        return "a smaller dt or a thicker core_radius (a vortex filament of circulation Gamma stays smooth for "
               "dt <= 2 core_radius^2 / Gamma)";
    const double sigma = s_.core_radius;
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "dt <= %.3g s or core_radius >= %.3g m (a ring's bending waves stay bounded for "
                  "dt <= 2 core_radius^2 / Gamma; here Gamma = %.3g m^2/s, core_radius = %.3g m, dt = %.3g s)",
                  kWaveBound * sigma * sigma / gamma, std::sqrt(s_.dt * gamma / kWaveBound), gamma, sigma, s_.dt);
    return buf;
}

// The engine takes the bodies where they are now after every upload (reset, checkpoints, a
// backend switch).
void VortexSolver::write_field(std::string_view name, const std::vector<double>& values) {
    if (name != "position" && name != "vorticity") return Solver::write_field(name, values);
    HostState s;
    engine_->download(s);  // as it lies: the order read_field gives
    const std::size_t nv = s.vpos.size(), nt = s.tpos.size();
    std::vector<dvec3> all(nv + nt);
    write_vectors(name, values, all);
    if (name == "position") {
        std::copy(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(nv), s.vpos.begin());
        std::copy(all.begin() + static_cast<std::ptrdiff_t>(nv), all.end(), s.tpos.begin());
    } else {
        for (std::size_t i = nv; i < all.size(); ++i)
            if (all[i] != dvec3(0.0))
                throw std::invalid_argument("vorticity: row " + std::to_string(i) +
                                            " is a tracer's, which carries none (expected 0 0 0)");
        std::copy(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(nv), s.omega.begin());
    }
    set_state(s);
}

void VortexSolver::on_upload() {
    engine_->set_bodies(body_shapes());
    engine_->set_panels(panel_systems_);
}

namespace {
struct BodyBlob {
    dvec3 position, home;
    dmat3 orientation;
    dvec3 velocity, angular_velocity;
    dvec3 force, torque;
    dvec3 spin_met, velocity_met;
    dvec3 volume_velocity_met;
    int panels_met;
};
}  // namespace

// Beside the particles: the step's speed bound, the emission bookkeeping, the runaway guard's
// reference and the bodies' motion (a drag included: restoring a checkpoint undoes it; a
// scripted body's home, which a drag moves, too).
void VortexSolver::save_extra(std::vector<char>& out) const {
    blob::put(out, std::vector<double>{last_max_speed_, carry_vortons_, carry_tracers_, reference_energy_,
                                       reference_enstrophy_});
    blob::put(out, std::vector<long long>{emitted_vortons_, emitted_tracers_, next_vorton_id_, next_tracer_id_,
                                          reference_step_});
    std::vector<BodyBlob> bodies;
    for (const BodyState& b : bodies_)
        bodies.push_back({b.position, b.home, b.orientation, b.velocity, b.angular_velocity, b.force, b.torque,
                          b.spin_met, b.velocity_met, b.volume_velocity_met, b.panels_met ? 1 : 0});
    blob::put(out, bodies);
}

void VortexSolver::load_extra(const std::vector<char>& in, std::size_t& at) {
    std::vector<double> reals;
    std::vector<long long> counts;
    std::vector<BodyBlob> bodies;
    blob::get(in, at, reals);
    blob::get(in, at, counts);
    blob::get(in, at, bodies);
    if (reals.size() != 5 || counts.size() != 5) throw std::runtime_error("checkpoint of another solver");
    last_max_speed_ = reals[0];
    carry_vortons_ = reals[1];
    carry_tracers_ = reals[2];
    reference_energy_ = reals[3];
    reference_enstrophy_ = reals[4];
    emitted_vortons_ = counts[0];
    emitted_tracers_ = counts[1];
    next_vorton_id_ = counts[2];
    next_tracer_id_ = counts[3];
    reference_step_ = counts[4];
    build_bodies();
    for (std::size_t k = 0; k < bodies.size() && k < bodies_.size(); ++k) {
        bodies_[k].position = bodies[k].position;
        bodies_[k].home = bodies[k].home;
        bodies_[k].orientation = bodies[k].orientation;
        bodies_[k].velocity = bodies[k].velocity;
        bodies_[k].angular_velocity = bodies[k].angular_velocity;
        bodies_[k].force = bodies[k].force;
        bodies_[k].torque = bodies[k].torque;
        bodies_[k].spin_met = bodies[k].spin_met;
        bodies_[k].velocity_met = bodies[k].velocity_met;
        bodies_[k].volume_velocity_met = bodies[k].volume_velocity_met;
        bodies_[k].panels_met = bodies[k].panels_met != 0;
    }
}

}  // namespace fs::vortex
