// No through-flow over every body at once (body_model boundary_elements): source panels on each
// body's surface (panel_kernels.hpp) whose strengths make the normal velocity of the whole flow
// equal the body's own at every panel centre, solved each velocity evaluation, and their velocity
// added to the vortons' and tracers' so that the flow turns before it reaches a body (Hess and
// Smith 1967; Cottet and Koumoutsakos, "Vortex Methods", 2000, ch. 6). Written once over an
// executor: the panels' velocity at the particles runs in the executor's loops (one kernel body,
// add_panel, for both backends); the small dense solve runs on the host, the right-hand side
// copied over (one vector of the panels' count each way).
//
// Several bodies: each body's factored matrix in turn, the others' panels' velocity at its
// centres from their last strengths (block Gauss-Seidel), until the strengths change by less
// than 1e-10 of the largest (the coupled system's solution).
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "core/buffer.hpp"
#include "solvers/vortex/panels.hpp"
#include "solvers/vortex/vortex_engine.hpp"

namespace fs::vortex {

// The panels of every body as the kernels read them: body b's are [begin[b], end[b]), and past
// its multipole's reach a point takes the expansion instead (tracers only).
struct PanelBodies {
    int begin[kMaxBodies] = {0, 0, 0, 0}, end[kMaxBodies] = {0, 0, 0, 0};
    PanelMultipole far[kMaxBodies];
};

// Per vorton and body, what the force on the body needs (BoundaryElements::force_sums).
struct PanelForceSums {
    dvec3 rate[kMaxBodies], field[kMaxBodies];
};
struct PanelForceOp {
    FS_HDI PanelForceSums operator()(const PanelForceSums& a, const PanelForceSums& b) const {
        PanelForceSums s;
        for (int k = 0; k < kMaxBodies; ++k) {
            s.rate[k] = a.rate[k] + b.rate[k];
            s.field[k] = a.field[k] + b.field[k];
        }
        return s;
    }
};

template <class Exec>
class BoundaryElements {
public:
    static constexpr MemorySpace kSpace = Exec::space;

    void set_systems(const std::vector<std::shared_ptr<const PanelSystem>>& systems) {
        systems_ = systems;
        for (auto& row : coupling_)
            for (auto& m : row) m.clear();
    }
    bool active() const {
        for (const auto& s : systems_)
            if (s) return true;
        return false;
    }

    // The panels placed where the bodies are (body space to world), and their centres.
    void place(const std::vector<BodyShape>& bodies) {
        world_.clear();
        ranges_ = PanelBodies{};
        for (int b = 0; b < kMaxBodies; ++b) {
            ranges_.begin[b] = ranges_.end[b] = static_cast<int>(world_.size());
            if (b >= static_cast<int>(systems_.size()) || !systems_[b] || b >= static_cast<int>(bodies.size()) ||
                bodies[b].kind == kNoBody)
                continue;
            const Pose& pose = bodies[b].pose;
            auto w = [&](dvec3 p) { return pose.position + pose.orientation * p; };
            for (const Panel& p : systems_[b]->panels()) {
                Panel q = p;
                q.a = w(p.a);
                q.b = w(p.b);
                q.c = w(p.c);
                q.centre = w(p.centre);
                q.normal = pose.orientation * p.normal;
                world_.push_back(q);
            }
            ranges_.end[b] = static_cast<int>(world_.size());
        }
        centres_host_.resize(world_.size());
        for (std::size_t i = 0; i < world_.size(); ++i) centres_host_[i] = world_[i].centre;
        panels_.copy_from_host(world_);
        centres_.copy_from_host(centres_host_);
        ucol_.resized(world_.size());
    }
    View<const dvec3> centres() const { return centres_.cview(); }
    // The vortons' (and held) velocity at the centres, which the pipeline fills before solve().
    View<dvec3> centre_velocity() { return ucol_.view(); }

    // The strengths: A q = n . (u_body - u_other) at each body's centres (Hess and Smith 1967),
    // u_other the vortons' velocity there and the other bodies' panels'.
    void solve(const std::vector<BodyShape>& bodies) {
        ucol_.copy_to_host(ucol_host_);
        const std::size_t n = world_.size();
        q_host_.assign(n, 0.0);
        std::vector<double> rhs, q;
        int bodies_with_panels = 0;
        for (int b = 0; b < kMaxBodies; ++b) bodies_with_panels += ranges_.end[b] > ranges_.begin[b] ? 1 : 0;
        const int sweeps = bodies_with_panels > 1 ? 50 : 1;
        if (bodies_with_panels > 1) couple(bodies);
        for (int sweep = 0; sweep < sweeps; ++sweep) {
            double change = 0.0, largest = 0.0;
            for (int b = 0; b < kMaxBodies; ++b) {
                const int b0 = ranges_.begin[b], b1 = ranges_.end[b];
                if (b1 <= b0) continue;
                rhs.assign(static_cast<std::size_t>(b1 - b0), 0.0);
                q.assign(rhs.size(), 0.0);
                for (int i = b0; i < b1; ++i) {
                    const Panel& p = world_[i];
                    dvec3 u = ucol_host_[i];
                    double other = 0.0;
                    for (int c = 0; c < kMaxBodies && bodies_with_panels > 1; ++c) {
                        if (c == b || ranges_.end[c] <= ranges_.begin[c]) continue;
                        const int c0 = ranges_.begin[c], nc = ranges_.end[c] - c0;
                        const double* row = coupling_[b][c].data() + static_cast<std::size_t>(i - b0) * nc;
                        for (int j = 0; j < nc; ++j) other += row[j] * q_host_[c0 + j];
                    }
                    rhs[i - b0] = glm::dot(surface_velocity(bodies[b], p.centre) - u, p.normal) - other;
                }
                systems_[b]->solve(rhs.data(), q.data());
                for (int i = b0; i < b1; ++i) {
                    change = std::max(change, std::fabs(q[i - b0] - q_host_[i]));
                    largest = std::max(largest, std::fabs(q[i - b0]));
                    q_host_[i] = q[i - b0];
                }
            }
            if (!(change > 1e-10 * largest)) break;
        }
        q_.copy_from_host(q_host_);
        // Each body's multipole about its centre, for the far tracers.
        for (int b = 0; b < kMaxBodies; ++b) {
            PanelMultipole& mp = ranges_.far[b];
            mp = PanelMultipole{};
            if (ranges_.end[b] <= ranges_.begin[b]) continue;
            mp.centre = bodies[b].pose.position;
            double bound = 0.0;
            for (int i = ranges_.begin[b]; i < ranges_.end[b]; ++i) {
                const Panel& p = world_[i];
                const dvec3 d = p.centre - mp.centre;
                const double s = q_host_[i] * p.area;
                bound = std::max({bound, glm::length(p.a - mp.centre), glm::length(p.b - mp.centre),
                                  glm::length(p.c - mp.centre)});
                mp.m += s;
                mp.d += s * d;
                mp.q += s * glm::outerProduct(d, d);
            }
            mp.reach = 3.0 * bound;
        }
        // The volume integral of the panels' own velocity over each body, -sum q_j A_j g_j.
        for (int b = 0; b < kMaxBodies; ++b) {
            inside_[b] = dvec3(0.0);
            if (ranges_.end[b] <= ranges_.begin[b]) continue;
            const auto& g = systems_[b]->volume_field();
            const dmat3 r = bodies[b].pose.orientation;
            for (int i = ranges_.begin[b]; i < ranges_.end[b]; ++i)
                inside_[b] -= (q_host_[i] * world_[i].area) * (r * g[i - ranges_.begin[b]]);
        }
    }

    // The slip at each panel's centre (no-slip by vorticity creation, Koumoutsakos, Leonard and
    // Pepin 1994, JCP 113, sec. 2: the potential solve meets no-through-flow and leaves a slip
    // u_s = u - u_body in the surface's plane, the strength of the spurious vortex sheet that
    // the step must release into the fluid). u is the vortons' (and held) velocity at the centre
    // plus every other panel's; a panel's own is normal there (add_panel's note). Off: nothing
    // kept, and no cost.
    void measure_slip(Exec& exec, const std::vector<BodyShape>& bodies, bool on) {
        sheet_.clear();
        if (!on || world_.empty()) return;
        const int n = static_cast<int>(world_.size());
        auto panels = panels_.cview();
        auto q = q_.cview();
        auto at = centres_.cview();
        auto uc = ucol_.cview();
        auto out = ufluid_.resized(static_cast<std::size_t>(n));
        exec.parallel_for(n, FS_LAMBDA(int i) {
            PanelInduced acc;
            for (int j = 0; j < n; ++j)
                if (j != i) add_panel(acc, panels[j], q[j], at[i], dvec3(0.0), false, false);
            out[i] = uc[i] + acc.u;
        });
        ufluid_.copy_to_host(ufluid_host_);
        sheet_.resize(world_.size());
        for (int b = 0; b < kMaxBodies; ++b)
            for (int i = ranges_.begin[b]; i < ranges_.end[b]; ++i) {
                const Panel& p = world_[i];
                const dvec3 rel = ufluid_host_[i] - surface_velocity(bodies[b], p.centre);
                sheet_[i] = PanelSheet{p.centre, p.normal, rel - glm::dot(rel, p.normal) * p.normal, p.area, b};
            }
    }
    const std::vector<PanelSheet>& sheet() const { return sheet_; }

    // The normal velocity at body b's centres from a unit source density on each of body c's
    // panels, kept while the two bodies stand as they did (the bundled scenes' bodies that do not
    // move relative to each other: computed once; the plate over flames spent 19 ms a step on
    // it), else recomputed.
    void couple(const std::vector<BodyShape>& bodies) {
        for (int b = 0; b < kMaxBodies; ++b) {
            for (int c = 0; c < kMaxBodies; ++c) {
                if (b == c || ranges_.end[b] <= ranges_.begin[b] || ranges_.end[c] <= ranges_.begin[c]) continue;
                const Pose& pb = bodies[b].pose;
                const Pose& pc = bodies[c].pose;
                const dvec3 offset = glm::transpose(pb.orientation) * (pc.position - pb.position);
                const dmat3 turn = glm::transpose(pb.orientation) * pc.orientation;
                if (!coupling_[b][c].empty() && offset == coupled_offset_[b][c] && turn == coupled_turn_[b][c]) continue;
                const int b0 = ranges_.begin[b], nb = ranges_.end[b] - b0;
                const int c0 = ranges_.begin[c], nc = ranges_.end[c] - c0;
                std::vector<double>& m = coupling_[b][c];
                m.assign(static_cast<std::size_t>(nb) * nc, 0.0);
                for (int i = 0; i < nb; ++i)
                    for (int j = 0; j < nc; ++j)
                        m[static_cast<std::size_t>(i) * nc + j] = influence_normal(world_[b0 + i], world_[c0 + j], false);
                coupled_offset_[b][c] = offset;
                coupled_turn_[b][c] = turn;
            }
        }
    }

    // The panels' velocity and its stretching of each vorton's vorticity added to the vortons'
    // (a potential flow: its gradient is symmetric, so both forms of the stretching take the
    // same), and per vorton and body the terms of the force on the body (force_sums).
    void add_to_vortons(Exec& exec, View<const dvec3> pos, View<const dvec3> omega, View<const double> radius,
                        double overlap, View<dvec3> vel, View<dvec3> str) {
        const int n = pos.size;
        auto panels = panels_.cview();
        auto q = q_.cview();
        const PanelBodies r = ranges_;
        auto part = parts_.resized(static_cast<std::size_t>(n));
        exec.parallel_for(n, FS_LAMBDA(int i) {
            const dvec3 x = pos[i], w = omega[i];
            const dvec3 a = vorton_volume(radius[i], overlap) * w;
            PanelForceSums f;
            dvec3 u(0.0), s(0.0);
            for (int b = 0; b < kMaxBodies; ++b) {
                if (r.end[b] <= r.begin[b]) continue;
                PanelInduced acc;
                for (int j = r.begin[b]; j < r.end[b]; ++j) add_panel(acc, panels[j], q[j], x, w, true, true);
                u += acc.u;
                s += acc.stretch;
                // d/dt of the vortons' impulse (1/2) x x alpha under this body's panels, and the
                // volume integral over the body of a vorton's velocity, G_b(x) x alpha
                // (force_sums; the field term acc.field is G_b).
                const dvec3 da = vorton_volume(radius[i], overlap) * acc.stretch;
                f.rate[b] = 0.5 * (glm::cross(acc.u, a) + glm::cross(x, da));
                f.field[b] = glm::cross(acc.field, a);
            }
            vel[i] += u;
            str[i] += s;
            part[i] = f;
        });
        auto parts = parts_.cview();
        sums_ = exec.transform_reduce(n, PanelForceSums{}, FS_LAMBDA(int i) { return parts[i]; }, PanelForceOp{});
    }

    // The panels' velocity at the tracers: the panels near a body (add_panel_coarse), its
    // multipole beyond three bounding radii (multipole_velocity; its error there is below (1/3)^2 of the dipole's field,
    // itself under 4% of the body's speed).
    void add_to_tracers(Exec& exec, View<const dvec3> pos, View<dvec3> vel) {
        auto panels = panels_.cview();
        auto q = q_.cview();
        const PanelBodies r = ranges_;
        exec.parallel_for(pos.size, FS_LAMBDA(int i) {
            const dvec3 x = pos[i];
            dvec3 u(0.0);
            for (int b = 0; b < kMaxBodies; ++b) {
                if (r.end[b] <= r.begin[b]) continue;
                if (glm::length(x - r.far[b].centre) > r.far[b].reach) {
                    u += multipole_velocity(r.far[b], x);
                    continue;
                }
                PanelInduced acc;
                for (int j = r.begin[b]; j < r.end[b]; ++j) add_panel_coarse(acc, panels[j], q[j], x);
                u += acc.u;
            }
            vel[i] += u;
        });
    }

    // The force on body b (Wu 1981, eq. 2.1, with the body's inside taken as fluid in rigid
    // motion): F = -rho d/dt (1/2) int x x omega + rho d/dt (V U). Its vorticity is the vortons'
    // and the sheet the slip makes at the surface; the sheet's impulse is V U less the volume
    // integral over the body of the velocity u' = vortons' + panels' (the integral of a field
    // that vanishes outside the body is half that of x x its curl), so
    //   F = -rho (d/dt of the vortons' impulse) + rho d/dt int_body u' dV,
    // the first from the body's panels' motion and stretching of the vortons (the vortons' own
    // motion keeps their impulse), the second (impulse_inside) the vortons' part sum G_b(x) x alpha
    // with G_b the body's volume field at x, and the panels' part -sum q_j A_j g_j. For a sphere
    // moving at U through still fluid the panels' part is -V U / 2: an added mass of rho V / 2.
    dvec3 impulse_rate(int b) const { return sums_.rate[b]; }
    dvec3 volume_velocity(int b) const { return sums_.field[b] + inside_[b]; }
    // The source strengths (a test's read-back).
    const std::vector<double>& strengths() const { return q_host_; }
    const std::vector<Panel>& world_panels() const { return world_; }

private:
    std::vector<std::shared_ptr<const PanelSystem>> systems_;
    std::vector<Panel> world_;
    std::vector<dvec3> centres_host_, ucol_host_, ufluid_host_;
    std::vector<PanelSheet> sheet_;
    std::vector<double> q_host_;
    PanelBodies ranges_;
    Buffer<Panel> panels_{kSpace};
    Buffer<dvec3> centres_{kSpace}, ucol_{kSpace}, ufluid_{kSpace};
    Buffer<double> q_{kSpace};
    Buffer<PanelForceSums> parts_{kSpace};
    PanelForceSums sums_;
    std::vector<double> coupling_[kMaxBodies][kMaxBodies];  // couple()
    dvec3 coupled_offset_[kMaxBodies][kMaxBodies];
    dmat3 coupled_turn_[kMaxBodies][kMaxBodies];
    dvec3 inside_[kMaxBodies];
};

}  // namespace fs::vortex
