// The vortex solver's particles: the initial state a scene describes (rings, a block of still
// fluid, tracers, nothing inside a body) and what flames emit each step.
#include "solvers/vortex/vortex_solver.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "core/memory_budget.hpp"
#include "core/random.hpp"

namespace fs::vortex {

namespace {
bool box_valid(const double* b) { return b[3] > b[0] && b[4] > b[1] && b[5] > b[2]; }
}  // namespace

// Flames heat the fluid, and buoyancy turns the heat into motion; bodies push the fluid (and a
// body at rest may still turn the fluid's slip into vorticity). Without either, the flow can only
// keep its energy (inviscid) or lose it (viscosity).
bool VortexSolver::can_add_energy() const {
    if (box_valid(s_.flame_box)) return true;
    return std::any_of(bodies_.begin(), bodies_.end(), [](const BodyState& b) { return b.active; });
}

// Flames (series part 11): particles appear at random points of the flame region at the set
// rates, as hot as the flame. Counter-based random numbers and a fixed slot rule (append up to the
// cap, then recycle the oldest) keep emission identical on both backends.
void VortexSolver::emit() {
    if (!box_valid(s_.flame_box)) return;
    const dvec3 lo(s_.flame_box[0], s_.flame_box[1], s_.flame_box[2]);
    const dvec3 hi(s_.flame_box[3], s_.flame_box[4], s_.flame_box[5]);
    carry_vortons_ += s_.flame_vorton_rate * dt_;
    carry_tracers_ += s_.flame_tracer_rate * dt_;
    const long long nv = static_cast<long long>(carry_vortons_);
    const long long nt = s_.max_tracers > 0 ? static_cast<long long>(carry_tracers_) : 0;
    carry_vortons_ -= static_cast<double>(nv);
    carry_tracers_ -= static_cast<double>(static_cast<long long>(carry_tracers_));
    if (nv == 0 && nt == 0) return;
    const auto seed = static_cast<unsigned long long>(s_.seed);
    HostState batch;
    std::vector<int> vslots, tslots;
    auto slot = [](long long count_now, long long counter, long long cap) {
        return static_cast<int>(count_now < cap ? count_now : counter % cap);
    };
    long long count = engine_->vortons();
    for (long long k = 0; k < nv; ++k, ++emitted_vortons_) {
        const auto c = static_cast<unsigned long long>(emitted_vortons_) * 8;
        const dvec3 u(hash01(seed, c), hash01(seed, c + 1), hash01(seed, c + 2));
        const dvec3 w(hash01(seed, c + 3) - 0.5, hash01(seed, c + 4) - 0.5, hash01(seed, c + 5) - 0.5);
        const int at = slot(count, emitted_vortons_, s_.max_vortons);
        if (at == count) ++count;
        vslots.push_back(at);
        batch.vpos.push_back(lo + u * (hi - lo));
        batch.omega.push_back(2.0 * s_.vorton_noise * w);
        batch.radius.push_back(s_.core_radius);
        batch.vtemp.push_back(s_.flame_temperature);
        batch.vid.push_back(static_cast<int>(next_vorton_id_++));
    }
    count = engine_->tracers();
    const unsigned long long tseed = seed ^ 0x5DEECE66Dull;
    for (long long k = 0; k < nt; ++k, ++emitted_tracers_) {
        const auto c = static_cast<unsigned long long>(emitted_tracers_) * 4;
        const dvec3 u(hash01(tseed, c), hash01(tseed, c + 1), hash01(tseed, c + 2));
        const int at = slot(count, emitted_tracers_, s_.max_tracers);
        if (at == count) ++count;
        tslots.push_back(at);
        batch.tpos.push_back(lo + u * (hi - lo));
        batch.ttemp.push_back(s_.flame_temperature);
        batch.tid.push_back(static_cast<int>(next_tracer_id_++));
    }
    engine_->place(batch, vslots, tslots);
}

// No-slip under boundary elements (Koumoutsakos, Leonard and Pepin 1994, JCP 113, sec. 2-3;
// Cottet and Koumoutsakos 2000, ch. 6): the last velocity stage's slip u_s at each panel centre
// is a vortex sheet gamma = n x u_s on the surface (the jump it makes, gamma x n = u_s, is the
// slip), released whole in one step as one vorton a panel, alpha = A n x u_s, a core radius off
// the centre along the normal (where the collide stage leaves a vorton be). With its image in
// the panels' no-through-flow the new sheet cancels the slip beneath it. The papers diffuse the
// sheet into the fluid over the step (a flux nu d omega / dn); this one-step release is the
// inviscid limit's simple form, its layer a core radius thick. The slip is the last step's:
// the vortons have moved by one step since.
void VortexSolver::shed() {
    if (s_.body_model != kBoundaryElements || !s_.shedding) return;
    const std::vector<PanelSheet> sheet = engine_->panel_sheet();
    if (sheet.empty()) return;
    const long long count = engine_->vortons();
    if (count + static_cast<long long>(sheet.size()) > s_.max_vortons)
        throw SimulationError("step " + std::to_string(step_count() + 1) + ": shedding needs " +
                              std::to_string(count + static_cast<long long>(sheet.size())) +
                              " vortons, more than max_vortons = " + std::to_string(s_.max_vortons) +
                              "; raise max_vortons, or remesh (remesh_every)");
    const double volume = vorton_volume(s_.core_radius, s_.core_overlap);
    for (BodyState& st : bodies_) st.shed_impulse = dvec3(0.0);
    HostState batch;
    std::vector<int> vslots, tslots;
    for (std::size_t k = 0; k < sheet.size(); ++k) {
        const PanelSheet& p = sheet[k];
        vslots.push_back(static_cast<int>(count + static_cast<long long>(k)));
        const dvec3 x = p.centre + s_.core_radius * p.normal, alpha = p.area * glm::cross(p.normal, p.slip);
        // The impulse the new vortons carry off the surface (the body's force, move_bodies).
        if (p.body < static_cast<int>(bodies_.size())) bodies_[p.body].shed_impulse += 0.5 * glm::cross(x, alpha);
        batch.vpos.push_back(x);
        batch.omega.push_back(alpha / volume);
        batch.radius.push_back(s_.core_radius);
        batch.vtemp.push_back(s_.ambient_temperature);
        batch.vid.push_back(static_cast<int>(next_vorton_id_++));
    }
    engine_->place(batch, vslots, tslots);
}

// Refused before seeding (Solver::check_params), memory first (memory_budget.hpp): up to
// max_vortons vortons of about 256 bytes, max_tracers tracers of 112, and a grid of up to
// (grid_cells + 4)^3 nodes of 380 (its 26 fields and the Poisson solve's padded spectrum); the
// key named is the largest part. Then the direct sums' work: up to max_vortons^2 pair
// interactions a velocity evaluation for the vortons and max_vortons x max_tracers for the
// tracers, twice a step under the midpoint rule. About 2.5e9 a second on one CPU core since the
// single-precision tiles (direct_sum.hpp; 2.8e8 on 2 cores before) and 7.4e10 on an H100 (double,
// before the tiles): the bounds are a few seconds a step on either.
void VortexSolver::check_params() const {
    const bool grid = s_.velocity_method == kGrid || s_.tracer_velocity == kGrid || s_.remesh_every > 0;
    const double part[3] = {256.0 * s_.max_vortons, 112.0 * s_.max_tracers,
                            grid ? 380.0 * std::pow(s_.grid_cells + 4.0, 3.0) : 0.0};
    const char* const keys[3] = {"max_vortons", "max_tracers", "grid_cells"};
    check_memory(keys[std::max_element(part, part + 3) - part],
                 std::to_string(s_.max_vortons) + " vortons, " + std::to_string(s_.max_tracers) + " tracers and " +
                     (grid ? "a grid of " + std::to_string(s_.grid_cells) + "^3 nodes" : "no grid"),
                 part[0] + part[1] + part[2], backend());
    const double v = static_cast<double>(s_.max_vortons), t = static_cast<double>(s_.max_tracers);
    const double evaluations = s_.integrator == kMidpoint ? 2.0 : 1.0;
    const double vortons = s_.velocity_method == kDirect ? evaluations * v * v : 0.0;
    const double tracers = s_.tracer_velocity == kDirect ? evaluations * v * t : 0.0;
    const bool gpu = backend() == Backend::Cuda;
    const double allowed = gpu ? 1e11 : 1e10;
    if (vortons + tracers <= allowed) return;
    const bool by_tracers = tracers > vortons;
    throw ParamError(std::string(by_tracers ? "max_tracers" : "max_vortons") + ": direct sums over up to " +
                     std::to_string(s_.max_vortons) + " vortons" +
                     (by_tracers ? " and " + std::to_string(s_.max_tracers) + " tracers" : "") + " mean up to " +
                     scientific_text(vortons + tracers) + " pair interactions a step; allowed: at most " +
                     scientific_text(allowed) + " on the " + (gpu ? "CUDA" : "CPU") + " backend (" +
                     (by_tracers ? "tracer_velocity grid, or fewer max_tracers" : "velocity_method grid, or fewer max_vortons") +
                     (gpu ? ")" : ", or the CUDA backend)"));
}

void VortexSolver::do_reset() {
    build_bodies();
    HostState h;
    std::mt19937_64 rng(static_cast<std::uint64_t>(s_.seed));
    const double t0 = s_.ambient_temperature;
    auto add_vorton = [&](dvec3 x, dvec3 omega, double sigma) {
        h.vpos.push_back(x);
        h.omega.push_back(omega);
        h.radius.push_back(sigma);
        h.vtemp.push_back(t0);
        h.vid.push_back(static_cast<int>(h.vid.size()));
    };
    auto add_tracer = [&](dvec3 x) {
        h.tpos.push_back(x);
        h.ttemp.push_back(t0);
        h.tid.push_back(static_cast<int>(h.tid.size()));
    };
    auto check_count = [&](std::size_t n, long long cap, const char* what, const char* key) {
        if (static_cast<long long>(n) > cap)
            throw ParamError(std::string(key) + ": the scene seeds " + std::to_string(n) + " " + what +
                             ", more than " + key + " = " + std::to_string(cap));
    };
    // Rings: one filament each, alpha = Gamma dl along the circle (a discretised vortex filament).
    for (const RingSettings& ring : s_.rings) {
        if (ring.circulation == 0.0) continue;
        const dvec3 c(ring.center[0], ring.center[1], ring.center[2]);
        dvec3 a(ring.axis[0], ring.axis[1], ring.axis[2]);
        if (glm::length(a) <= 0.0) throw ParamError("ring_axis: expected a non-zero direction");
        a = glm::normalize(a);
        const dvec3 helper = std::fabs(a.x) < 0.9 ? dvec3(1, 0, 0) : dvec3(0, 1, 0);
        const dvec3 e1 = glm::normalize(glm::cross(helper, a));
        const dvec3 e2 = glm::cross(a, e1);  // e1 x e2 = a: counter-clockwise about a
        const int n = static_cast<int>(ring.vortons);
        const double dl = 2.0 * kPi * ring.radius / n;
        const double vol = vorton_volume(s_.core_radius, s_.core_overlap);
        for (int k = 0; k < n; ++k) {
            const double th = 2.0 * kPi * k / n;
            const dvec3 radial = std::cos(th) * e1 + std::sin(th) * e2;
            const dvec3 tangent = -std::sin(th) * e1 + std::cos(th) * e2;
            add_vorton(c + ring.radius * radial, (ring.circulation * dl / vol) * tangent, s_.core_radius);
        }
        for (long long k = 0; k < ring.tracers; ++k) {
            const double th = 2.0 * kPi * uniform01(rng);
            const double phi = 2.0 * kPi * uniform01(rng);
            const double rr = 2.0 * s_.core_radius * std::sqrt(uniform01(rng));
            const dvec3 radial = std::cos(th) * e1 + std::sin(th) * e2;
            add_tracer(c + (ring.radius + rr * std::cos(phi)) * radial + rr * std::sin(phi) * a);
        }
    }
    // A block of still fluid: vortons on a lattice, each standing for its cube (core = overlap x
    // spacing: at the document's 1/2 the cores just touch).
    if (box_valid(s_.vorton_box)) {
        const double sp = s_.vorton_spacing;
        // Whole cells of the lattice along an extent. 1.2 / 0.1 is 11.999999999999998 in binary:
        // truncating it dropped the top row of a box from -0.6 to 0.6, and the missing row gave a
        // symmetric plate 0.2 N of lift at no angle of attack. A count within 1e-9 of a whole
        // number is that number.
        auto cells = [sp](double extent) { return static_cast<int>(std::floor(extent / sp + 1e-9)); };
        const int nx = cells(s_.vorton_box[3] - s_.vorton_box[0]);
        const int ny = cells(s_.vorton_box[4] - s_.vorton_box[1]);
        const int nz = cells(s_.vorton_box[5] - s_.vorton_box[2]);
        check_count(h.vpos.size() + static_cast<std::size_t>(std::max(0, nx)) * std::max(0, ny) * std::max(0, nz),
                    s_.max_vortons, "vortons", "max_vortons");
        for (int k = 0; k < nz; ++k)
            for (int j = 0; j < ny; ++j)
                for (int i = 0; i < nx; ++i) {
                    const dvec3 x = dvec3(s_.vorton_box[0], s_.vorton_box[1], s_.vorton_box[2]) +
                                    sp * dvec3(i + 0.5, j + 0.5, k + 0.5);
                    const dvec3 w = uniform01_3(rng) - 0.5;
                    add_vorton(x, 2.0 * s_.vorton_noise * w, s_.core_overlap * sp);
                }
    }
    if (box_valid(s_.tracer_box)) {
        check_count(h.tpos.size() + static_cast<std::size_t>(s_.tracers), s_.max_tracers, "tracers", "max_tracers");
        const dvec3 lo(s_.tracer_box[0], s_.tracer_box[1], s_.tracer_box[2]);
        const dvec3 hi(s_.tracer_box[3], s_.tracer_box[4], s_.tracer_box[5]);
        for (long long k = 0; k < s_.tracers; ++k)
            add_tracer(lo + uniform01_3(rng) * (hi - lo));
    }
    check_count(h.vpos.size(), s_.max_vortons, "vortons", "max_vortons");
    check_count(h.tpos.size(), s_.max_tracers, "tracers", "max_tracers");
    const bool flames = box_valid(s_.flame_box) && s_.flame_vorton_rate > 0.0;
    if (h.vpos.empty() && !flames)
        throw ParamError("ring_circulation: the scene has no vortons (give a ring a circulation, fill vorton_box, "
                         "or let flames emit vortons with flame_box and flame_vorton_rate)");
    // Nothing starts inside a body (vortex particles part 13, RemoveEmbeddedParticles): vortons there are
    // removed (the body displaces that fluid), tracers move out to the surface.
    const std::vector<BodyShape> shapes = body_shapes();
    auto inside_any = [&](dvec3 x, double margin, dvec3* moved) {
        for (const BodyShape& b : shapes) {
            double dist;
            dvec3 point, n;
            if (body_contact(b, x, margin, dist, point, n) && dist < margin) {
                if (moved) *moved = point + margin * n;
                return true;
            }
        }
        return false;
    };
    {
        HostState kept;
        for (std::size_t i = 0; i < h.vpos.size(); ++i) {
            if (inside_any(h.vpos[i], 0.0, nullptr)) continue;
            kept.vpos.push_back(h.vpos[i]);
            kept.omega.push_back(h.omega[i]);
            kept.radius.push_back(h.radius[i]);
            kept.vtemp.push_back(h.vtemp[i]);
            kept.vid.push_back(static_cast<int>(kept.vid.size()));
        }
        h.vpos.swap(kept.vpos);
        h.omega.swap(kept.omega);
        h.radius.swap(kept.radius);
        h.vtemp.swap(kept.vtemp);
        h.vid.swap(kept.vid);
    }
    for (dvec3& x : h.tpos) inside_any(x, 0.05 * s_.core_radius, &x);
    emitted_vortons_ = emitted_tracers_ = 0;
    carry_vortons_ = carry_tracers_ = 0.0;
    next_vorton_id_ = static_cast<long long>(h.vid.size());
    next_tracer_id_ = static_cast<long long>(h.tid.size());
    last_max_speed_ = 0.0;
    last_energy_ = 0.0;
    reference_energy_ = reference_enstrophy_ = 0.0;
    reference_step_ = 0;
    set_state(h);
}

}  // namespace fs::vortex
