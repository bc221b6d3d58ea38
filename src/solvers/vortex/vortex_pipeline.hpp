// The vortex-particle step, written once over an executor (CpuExec or CudaExec): the particles'
// arrays and the stages over them, with the vortex-in-cell grid (vortex_in_cell.hpp) and the
// body collisions (body_collisions.hpp) each in its own header. Kernel-launching members are
// public: nvcc's host-device lambdas may not be defined in private members.
//
// Particles keep their arrays in creation order (emission recycles the oldest slots); the grid
// stages reach them in cell order through a counting sort's permutation, gathering per node, so
// every sum has a fixed order and results do not depend on the thread count.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/buffer.hpp"
#include "solvers/vortex/body_collisions.hpp"
#include "solvers/vortex/boundary_elements.hpp"
#include "solvers/vortex/direct_sum.hpp"
#include "solvers/vortex/vortex_engine.hpp"
#include "solvers/vortex/vortex_in_cell.hpp"

namespace fs::vortex {

template <class Exec>
class Pipeline final : public Engine {
public:
    static constexpr MemorySpace kSpace = Exec::space;

    void upload(const HostState& s) override {
        vpos_.copy_from_host(s.vpos);
        omega_.copy_from_host(s.omega);
        radius_.copy_from_host(s.radius);
        vtemp_.copy_from_host(s.vtemp);
        vid_.copy_from_host(s.vid);
        tpos_.copy_from_host(s.tpos);
        ttemp_.copy_from_host(s.ttemp);
        tid_.copy_from_host(s.tid);
        vic_.set_grid(s.grid_shape);
        vvel_last_.copy_from_host(s.vvel_last);
        vrate_last_.copy_from_host(s.vrate_last);
        tvel_last_.copy_from_host(s.tvel_last);
        vhas_last_.copy_from_host(s.vhas_last);
        thas_last_.copy_from_host(s.thas_last);
        last_dt_ = s.last_dt;
        size_derived();
    }

    void download(HostState& s) const override {
        vpos_.copy_to_host(s.vpos);
        omega_.copy_to_host(s.omega);
        radius_.copy_to_host(s.radius);
        vtemp_.copy_to_host(s.vtemp);
        vid_.copy_to_host(s.vid);
        tpos_.copy_to_host(s.tpos);
        ttemp_.copy_to_host(s.ttemp);
        tid_.copy_to_host(s.tid);
        vvel_.copy_to_host(s.vvel);
        tvel_.copy_to_host(s.tvel);
        s.grid_shape = vic_.grid();
        vvel_last_.copy_to_host(s.vvel_last);
        vrate_last_.copy_to_host(s.vrate_last);
        tvel_last_.copy_to_host(s.tvel_last);
        vhas_last_.copy_to_host(s.vhas_last);
        thas_last_.copy_to_host(s.thas_last);
        s.last_dt = last_dt_;
    }

    int vortons() const override { return static_cast<int>(vpos_.size()); }
    int tracers() const override { return static_cast<int>(tpos_.size()); }

    // Derived per-particle arrays follow the particle counts; new entries start at zero (so a
    // new particle has no last rates).
    void size_derived() {
        const int nv = vortons(), nt = tracers();
        for (Buffer<dvec3>* b : {&vvel_, &stretch_, &diffuse_, &vpsi_, &vcurl_, &vvel_last_, &vrate_last_})
            zero_tail(*b, static_cast<std::size_t>(nv));
        zero_tail(vhas_last_, static_cast<std::size_t>(nv));
        zero_tail(tvel_, static_cast<std::size_t>(nt));
        zero_tail(tvel_last_, static_cast<std::size_t>(nt));
        zero_tail(thas_last_, static_cast<std::size_t>(nt));
    }
    template <class T>
    void zero_tail(Buffer<T>& b, std::size_t n) {
        const std::size_t old = std::min(b.size(), n);
        b.resize(n);
        if (n > old) mem_zero(b.data() + old, kSpace, (n - old) * sizeof(T));
    }

    void place(const HostState& batch, const std::vector<int>& vslots, const std::vector<int>& tslots) override {
        scatter_into(vpos_, batch.vpos, vslots, stage_v3_);
        scatter_into(omega_, batch.omega, vslots, stage_v3_);
        scatter_into(radius_, batch.radius, vslots, stage_d_);
        scatter_into(vtemp_, batch.vtemp, vslots, stage_d_);
        scatter_into(vid_, batch.vid, vslots, stage_i_);
        scatter_into(tpos_, batch.tpos, tslots, stage_v3_);
        scatter_into(ttemp_, batch.ttemp, tslots, stage_d_);
        scatter_into(tid_, batch.tid, tslots, stage_i_);
        size_derived();
        // A recycled slot's last rates were its old particle's: the new one steps by Euler first.
        no_last_.assign(vslots.size(), 0);
        scatter_into(vhas_last_, no_last_, vslots, stage_i_);
        no_last_.assign(tslots.size(), 0);
        scatter_into(thas_last_, no_last_, tslots, stage_i_);
    }
    // dst[slots[k]] = src[k], through `staged` (kept from call to call: emission every step
    // allocates nothing once warm).
    template <class T>
    void scatter_into(Buffer<T>& dst, const std::vector<T>& src, const std::vector<int>& slots, Buffer<T>& staged) {
        if (slots.empty()) return;
        const int top = *std::max_element(slots.begin(), slots.end()) + 1;
        if (static_cast<std::size_t>(top) > dst.size()) dst.resize(static_cast<std::size_t>(top));
        staged.copy_from_host(src);
        stage_slots_.copy_from_host(slots);
        auto in = staged.cview();
        auto at = stage_slots_.cview();
        auto out = dst.view();
        exec_.parallel_for(in.size, FS_LAMBDA(int k) { out[at[k]] = in[k]; });
    }

    void set_bodies(const std::vector<BodyShape>& bodies) override {
        collisions_.set_bodies(bodies);
    }
    void set_panels(const std::vector<std::shared_ptr<const PanelSystem>>& systems) override {
        panels_.set_systems(systems);
    }
    std::vector<PanelForce> panel_forces() const override {
        std::vector<PanelForce> out(kMaxBodies);
        for (int b = 0; b < kMaxBodies; ++b) out[b] = {panels_.impulse_rate(b), panels_.volume_velocity(b)};
        return out;
    }
    std::vector<PanelSheet> panel_sheet() const override { return panels_.sheet(); }
    const BoundaryElements<Exec>& boundary_elements() const { return panels_; }

    void run_stage(int stage, const Config& c) override {
        switch (stage) {
            case kVelocity: velocity(c, true); break;
            case kBuoyancy: buoyancy(c); break;
            case kHalfStep: half_step(c); break;
            case kMidpointVelocity:
                if (c.integrator == kMidpoint) velocity(c, false);
                break;
            case kStretch: stretch(c); break;
            case kAdvect: advect(c); break;
            case kCollide: collide(c); break;
            case kRemesh: remesh(c); break;
            default: break;
        }
    }

    // ---- velocity from vorticity -------------------------------------------------------------

    // `first`: the step's first evaluation, whose grid the buoyancy stage reads (the midpoint
    // rule's second needs only the velocity and its derivatives).
    void velocity(const Config& c, bool first) {
        const bool heat = first && (c.buoyancy || c.thermal_diffusivity > 0.0);
        const bool need_grid = c.velocity_method == kGrid || (tracers() > 0 && c.tracer_method == kGrid) || heat;
        const bool build = need_grid && vortons() > 0;
        // A second evaluation that needs no grid (velocities by the direct sum, the grid only
        // for heat) keeps the first's.
        if (build || first) vic_.invalidate();
        direct_ready_ = false;
        if (build) build_grid(c, true, heat);
        const bool vortons_by_grid = c.velocity_method == kGrid && vic_.built();
        if (vortons_by_grid)
            vic_.interpolate_to_vortons(exec_, c, vpos_.cview(), omega_.cview(), vvel_.view(), stretch_.view(),
                                        diffuse_.view(), vpsi_.view(), curl_view(c));
        else
            vortons_direct(c);
        held_at_vortons(c, vortons_by_grid);
        if (tracers() > 0) {
            const bool tracers_by_grid = c.tracer_method == kGrid && vic_.built();
            if (tracers_by_grid)
                vic_.interpolate_to_tracers(exec_, tpos_.cview(), tvel_.view());
            else
                tracers_direct(c);
            held_at_tracers(tracers_by_grid);
        }
        if (panels_.active()) boundary_velocity(c);
    }

    // The boundary elements (boundary_elements.hpp): the vortons' velocity at the panel centres
    // by the direct sum whatever the velocity method (a grid smooths the field on its spacing,
    // and the no-through-flow condition is met at the surface itself), the bodies' own
    // vorticity's (add_held) with it; the strengths solved; their velocity added to the particles'.
    void boundary_velocity(const Config& c) {
        panels_.place(collisions_.host_bodies());
        auto at = panels_.centres();
        auto uc = panels_.centre_velocity();
        if (vortons() > 0) {
            prepare_direct(c);
            direct_.tracers(exec_, at, uc);
        } else {
            exec_.parallel_for(at.size, FS_LAMBDA(int i) { uc[i] = dvec3(0.0); });
        }
        if (any_held(false)) {
            auto bodies = collisions_.bodies();
            exec_.parallel_for(at.size, FS_LAMBDA(int i) {
                Induced acc;
                for (int b = 0; b < bodies.size; ++b) add_held(acc, bodies[b], at[i], dvec3(0.0), false);
                uc[i] += acc.u;
            });
        }
        panels_.solve(collisions_.host_bodies());
        panels_.measure_slip(exec_, collisions_.host_bodies(), c.shedding);
        panels_.add_to_vortons(exec_, vpos_.cview(), omega_.cview(), radius_.cview(), c.core_overlap, vvel_.view(),
                               stretch_.view());
        if (tracers() > 0) panels_.add_to_tracers(exec_, tpos_.cview(), tvel_.view());
    }

    // The field's curl u at the vortons, which only the transposed stretching and relaxation
    // read (an empty view: the sums skip it).
    static bool wants_curl(const Config& c) {
        return (c.stretching && c.stretch_form == kTranspose) || c.relaxation > 0.0;
    }
    View<dvec3> curl_view(const Config& c) { return wants_curl(c) ? vcurl_.view() : View<dvec3>{}; }

    // Regularised Biot-Savart over all vortons (O(N^2), the exact reference), with the
    // stretching term and particle strength exchange in the same pass: float tiles over
    // structure-of-arrays copies of the vortons, joined in double (direct_sum.hpp).
    void vortons_direct(const Config& c) {
        prepare_direct(c);
        direct_.vortons(exec_, vpos_.cview(), omega_.cview(), radius_.cview(), c.viscosity, vvel_.view(),
                        stretch_.view(), diffuse_.view(), vpsi_.view(), curl_view(c));
    }

    void tracers_direct(const Config& c) {
        prepare_direct(c);
        direct_.tracers(exec_, tpos_.cview(), tvel_.view());
    }

    // The turning bodies' own vorticity, which no vorton carries (add_held): added to what the
    // direct sum gives for every body, to what the grid gives for the bodies whose part the grid
    // does not hold (held_by_formula; the others' is spread on the nodes inside them).
    void held_at_vortons(const Config& c, bool by_grid) {
        if (!any_held(by_grid)) return;
        auto bodies = collisions_.bodies();
        auto pos = vpos_.cview();
        auto om = omega_.cview();
        auto vel = vvel_.view();
        auto str = stretch_.view();
        auto psi = vpsi_.view();
        auto crl = vcurl_.view();
        const bool want_curl = wants_curl(c);
        exec_.parallel_for(vortons(), FS_LAMBDA(int i) {
            Induced acc;
            for (int b = 0; b < bodies.size; ++b)
                if (!by_grid || held_by_formula(bodies[b])) add_held(acc, bodies[b], pos[i], om[i], true, want_curl);
            vel[i] += acc.u;
            str[i] += acc.stretch;
            psi[i] += acc.psi;
            if (want_curl) crl[i] += acc.curl;
        });
    }
    void held_at_tracers(bool by_grid) {
        if (!any_held(by_grid)) return;
        auto bodies = collisions_.bodies();
        auto pos = tpos_.cview();
        auto vel = tvel_.view();
        exec_.parallel_for(tracers(), FS_LAMBDA(int i) {
            Induced acc;
            for (int b = 0; b < bodies.size; ++b)
                if (!by_grid || held_by_formula(bodies[b])) add_held(acc, bodies[b], pos[i], dvec3(0.0), false);
            vel[i] += acc.u;
        });
    }

    // Whether any body's own vorticity is owed by formula (held_at_vortons).
    bool any_held(bool by_grid) const {
        for (const BodyShape& b : collisions_.host_bodies())
            if (b.kind != kNoBody && glm::length(b.held) > 0.0 && (!by_grid || held_by_formula(b))) return true;
        return false;
    }

    // The vortons' float copies, once per velocity evaluation (velocity() clears direct_ready_).
    void prepare_direct(const Config& c) {
        if (direct_ready_) return;
        direct_.prepare(exec_, vpos_.cview(), omega_.cview(), radius_.cview(), c.core_overlap);
        direct_ready_ = true;
    }

    // The vortex-in-cell grid over the current particles; remesh spreads without solving.
    void build_grid(const Config& c, bool solve, bool heat) {
        vic_.build(exec_, c, vpos_.cview(), omega_.cview(), radius_.cview(), vtemp_.cview(), tpos_.cview(), solve,
                   collisions_.host_bodies(), collisions_.bodies(), heat);
    }

    // ---- buoyancy, stretching, advection -----------------------------------------------------

    // Baroclinic generation (the series' parts 8 and 10): D omega / Dt = (1/rho) grad rho x g with
    // a density that follows temperature at constant pressure (ideal gas, rho ~ 1/T), i.e.
    // D omega / Dt = (g x grad T) / T. Heat diffuses (dT/dt = kappa lap T on the grid) and
    // particles cool toward the ambient temperature (Newton: dT/dt = -k (T - T0)).
    void buoyancy(const Config& c) {
        const double keep = std::exp(-c.cooling_rate * c.dt), t0 = c.ambient_temperature;
        if (vic_.built() && vic_.has_heat() && (c.buoyancy || c.thermal_diffusivity > 0.0)) {
            const VicGrid g = vic_.grid();
            auto pos = vpos_.cview();
            auto omega = omega_.view();
            auto temp = vtemp_.view();
            const double* gt = vic_.temperature_derivatives().data;
            const double* tg = vic_.temperature().data;
            const dvec3 grav = c.gravity;
            const double dt = c.dt, kappa = c.thermal_diffusivity;
            const bool buoyant = c.buoyancy;
            exec_.parallel_for(vortons(), FS_LAMBDA(int i) {
                double d[4], t;
                interpolate<4>(g, gt, pos[i], d);
                interpolate<1>(g, tg, pos[i], &t);
                if (buoyant) omega[i] += (dt / max_of(t, 1e-3)) * glm::cross(grav, dvec3(d[0], d[1], d[2]));
                temp[i] += dt * kappa * d[3];
            });
        }
        if (keep < 1.0) {
            auto vt = vtemp_.view();
            auto tt = ttemp_.view();
            exec_.parallel_for(vortons(), FS_LAMBDA(int i) { vt[i] = t0 + keep * (vt[i] - t0); });
            exec_.parallel_for(tracers(), FS_LAMBDA(int i) { tt[i] = t0 + keep * (tt[i] - t0); });
        }
    }

    // The explicit midpoint rule (Runge 1895; Hairer, Norsett and Wanner, "Solving ODEs I", II.1):
    // y(t + dt) = y(t) + dt f(t + dt/2, y(t) + dt/2 f(t, y(t))). Explicit Euler grows every
    // oscillation by |1 + i w dt| per step, a rate w^2 dt / 2 that halves with dt: a ring's bending
    // waves grew from round-off and broke it up within 20 s; the midpoint rule's stability function
    // 1 + z + z^2 / 2 (ibid. IV.2) gives the rate w^4 dt^3 / 8. Here: the step's start is kept, and the vortons (position and vorticity) and
    // tracers move dt / 2 with the first velocity stage's rates; stretch and advect then step from
    // the start with the rates the second velocity stage finds there. Buoyancy stays explicit
    // Euler, applied before the half step from the start's temperature grid.
    void half_step(const Config& c) {
        if (c.integrator != kMidpoint) return;
        auto vp = vpos_.view();
        auto om = omega_.view();
        auto tp = tpos_.view();
        auto vp0 = start_vpos_.resized(vpos_.size());
        auto om0 = start_omega_.resized(omega_.size());
        auto tp0 = start_tpos_.resized(tpos_.size());
        auto vv = vvel_.cview();
        auto str = stretch_.cview();
        auto dif = diffuse_.cview();
        auto crl = vcurl_.cview();
        auto tv = tvel_.cview();
        const double half = 0.5 * c.dt, on = c.stretching ? 1.0 : 0.0;
        const double relax = relaxation_rate(c.relaxation, c.dt);
        const int form = c.stretch_form;
        exec_.parallel_for(vortons(), FS_LAMBDA(int i) {
            vp0[i] = vp[i];
            om0[i] = om[i];
            vp[i] += half * vv[i];
            om[i] += half * vorticity_rate(om[i], str[i], dif[i], crl[i], on, form, relax);
        });
        exec_.parallel_for(tracers(), FS_LAMBDA(int i) {
            tp0[i] = tp[i];
            tp[i] += half * tv[i];
        });
    }

    // Vortex stretching and tilting, viscous diffusion and relaxation (vorticity_rate), from the
    // step's start (the vortons' vorticity now under Euler and Adams-Bashforth, the kept one
    // under the midpoint rule), with the rates of the last velocity stage at the vorticity it saw
    // (now's); under Adams-Bashforth blended with the last step's rates (ab2_weights), which the
    // rate found here then replaces.
    void stretch(const Config& c) {
        auto omega = omega_.view();
        auto start = c.integrator == kMidpoint ? start_omega_.cview() : omega_.cview();
        auto str = stretch_.cview();
        auto dif = diffuse_.cview();
        auto crl = vcurl_.cview();
        const double dt = c.dt, on = c.stretching ? 1.0 : 0.0, relax = relaxation_rate(c.relaxation, c.dt);
        const int form = c.stretch_form;
        if (c.integrator == kAdamsBashforth) {
            const Ab2Weights ab = ab2_weights(dt, last_dt_);
            auto last = vrate_last_.view();
            auto has = vhas_last_.cview();
            exec_.parallel_for(vortons(), FS_LAMBDA(int i) {
                const dvec3 rate = vorticity_rate(omega[i], str[i], dif[i], crl[i], on, form, relax);
                omega[i] += dt * (has[i] ? ab.now * rate + ab.before * last[i] : rate);
                last[i] = rate;
            });
            return;
        }
        exec_.parallel_for(vortons(), FS_LAMBDA(int i) {
            omega[i] = start[i] + dt * vorticity_rate(omega[i], str[i], dif[i], crl[i], on, form, relax);
        });
    }

    // x += dt u from the step's start (now's, or the kept one under the midpoint rule). Under
    // Adams-Bashforth u is the rule's blend of this step's velocity and the last's, which then
    // stands in the velocity buffers (what the particles moved with: collide reads it for each
    // particle's move, the stats for the speed), and this step's velocity becomes the last.
    void advect(const Config& c) {
        const bool mid = c.integrator == kMidpoint;
        auto vp = vpos_.view();
        auto vp0 = mid ? start_vpos_.cview() : vpos_.cview();
        auto vv = vvel_.view();
        auto tp = tpos_.view();
        auto tp0 = mid ? start_tpos_.cview() : tpos_.cview();
        auto tv = tvel_.view();
        const double dt = c.dt;
        if (c.integrator == kAdamsBashforth) {
            const Ab2Weights ab = ab2_weights(dt, last_dt_);
            advect_ab2(vp, vv, vvel_last_.view(), vhas_last_.view(), ab, dt);
            advect_ab2(tp, tv, tvel_last_.view(), thas_last_.view(), ab, dt);
            last_dt_ = dt;
            return;
        }
        exec_.parallel_for(vortons(), FS_LAMBDA(int i) { vp[i] = vp0[i] + dt * vv[i]; });
        exec_.parallel_for(tracers(), FS_LAMBDA(int i) { tp[i] = tp0[i] + dt * tv[i]; });
        last_dt_ = 0.0;  // another integrator's step: Adams-Bashforth starts afresh
    }

    // One kind of particle's Adams-Bashforth move (advect): u in `vel` blended with `last` where
    // `has`, then the blend in `vel` and u in `last`.
    void advect_ab2(View<dvec3> pos, View<dvec3> vel, View<dvec3> last, View<int> has, Ab2Weights ab, double dt) {
        exec_.parallel_for(pos.size, FS_LAMBDA(int i) {
            const dvec3 u = vel[i], move = has[i] ? ab.now * u + ab.before * last[i] : u;
            pos[i] += dt * move;
            vel[i] = move;
            last[i] = u;
            has[i] = 1;
        });
    }

    // ---- bodies ------------------------------------------------------------------------------

    // vortex particles part 13, SolveBoundaryConditions: each body's vortons and tracers in turn (body_collisions.hpp).
    void collide(const Config& c) {
        collisions_.collide(exec_, c, {vpos_.view(), omega_.view(), radius_.cview(), vtemp_.view(), vvel_.cview()},
                            tpos_.view(), ttemp_.view(), tvel_.cview());
    }

    std::vector<Exchange> exchanges() const override { return collisions_.exchanges(); }

    // ---- remeshing ---------------------------------------------------------------------------

    // Vortons re-created on the grid's nodes (Koumoutsakos 1997): the vortons' vorticity and heat,
    // spread on the grid with trilinear weights, and each node whose vorticity or heat exceeds
    // remesh_threshold of the largest, or that lies in the scene's block of fluid outside the
    // bodies, becomes a vorton of volume h^3 (core core_overlap x h) carrying them. Trilinear
    // spreading keeps the total vorticity, the heat and the linear impulse exactly (its weights
    // sum to one and reproduce x); the threshold's dropped nodes are handed back below so that the
    // total vorticity and the heat stay exact. It does not keep the angular impulse (it widens
    // each vorton by a variance f (1 - f) h^2 per axis), and that smoothing is what holds the
    // bodies' wakes (docs/solvers/vortex.md): Monaghan's M4', which keeps x^2 too,
    // let them run away sooner.
    void remesh(const Config& c) {
        remeshed_ = 0;
        remesh_done_ = false;
        remesh_refused_ = 0;
        if (!c.remesh || vortons() == 0) return;
        build_grid(c, false, false);
        if (!vic_.built()) return;
        const VicGrid g = vic_.grid();
        const int nodes = g.nodes();
        auto w = vic_.vorticity();
        auto heat = vic_.heat();
        const double t0 = c.ambient_temperature;
        // The largest vorticity and heat over the nodes, in one pass.
        const NodePeak peak = exec_.transform_reduce(
            nodes, NodePeak{},
            FS_LAMBDA(int nd) {
                NodePeak q;
                q.w2 = w[nd] * w[nd] + w[nodes + nd] * w[nodes + nd] + w[2 * nodes + nd] * w[2 * nodes + nd];
                q.heat = std::fabs(heat[nd]);
                return q;
            },
            NodePeakOp{});
        const double cut2 = c.remesh_threshold * c.remesh_threshold * peak.w2;
        // Heat is kept the same way: a node whose heat exceeds the threshold's share of the
        // largest is kept for it even where its vorticity is weak (a body's warm wake).
        const double qcut = c.remesh_threshold * peak.heat;
        auto keep = flags_.resized(static_cast<std::size_t>(nodes) + 1);
        // The scene's block of fluid keeps its vortons whatever their vorticity: they carry what
        // the bodies' no-slip gives the fluid (collide changes the vorticity of vortons in contact,
        // so a body needs vortons round it), except inside a body, where the block's zero-vorticity
        // nodes would only be pushed out again to crowd the surface.
        const dvec3 keep_lo = c.remesh_keep_lo, keep_hi = c.remesh_keep_hi;
        auto bodies = collisions_.bodies();
        exec_.parallel_for(nodes + 1, FS_LAMBDA(int nd) {
            if (nd == nodes) {
                keep[nd] = 0;
                return;
            }
            int i, j, k;
            g.node_ijk(nd, i, j, k);
            const dvec3 x = g.origin + g.h * dvec3(i, j, k);
            bool in_block = x.x >= keep_lo.x && x.y >= keep_lo.y && x.z >= keep_lo.z && x.x <= keep_hi.x &&
                            x.y <= keep_hi.y && x.z <= keep_hi.z;
            for (int b = 0; in_block && b < bodies.size; ++b)
                if (inside_body(bodies[b], x)) in_block = false;
            const double w2 = w[nd] * w[nd] + w[nodes + nd] * w[nodes + nd] + w[2 * nodes + nd] * w[2 * nodes + nd];
            keep[nd] = in_block || w2 > cut2 || std::fabs(heat[nd]) > qcut ? 1 : 0;
        });
        auto slot = slots_.resized(static_cast<std::size_t>(nodes) + 1);
        exec_.exclusive_scan(flags_.cview(), slot);
        int count = 0;
        mem_copy(&count, MemorySpace::Host, slots_.data() + nodes, kSpace, sizeof(int));
        if (count > c.max_vortons) remesh_refused_ = count;
        if (count == 0 || count > c.max_vortons) return;
        // The nodes below the threshold carry a little vorticity; dropping it would change the
        // total (a divergence-free field's integral, zero for a ring). It goes to the kept
        // nodes in proportion to their own magnitude, so sum alpha is kept to round-off at any
        // threshold; the linear impulse loses the dropped nodes' moment x x alpha less what the
        // kept ones gain (measured in tests/test_vortex.cpp, VortexRemesh).
        // And the dropped nodes' heat likewise, so the fluid's heat is kept to round-off too.
        // (Both in one pass over the nodes.)
        auto kp0 = flags_.cview();
        const NodeDrop drop = exec_.transform_reduce(
            nodes, NodeDrop{},
            FS_LAMBDA(int nd) {
                NodeDrop q;
                const dvec3 wn(w[nd], w[nodes + nd], w[2 * nodes + nd]);
                if (kp0[nd]) {
                    q.kept_size = glm::length(wn);
                    q.kept_heat = std::fabs(heat[nd]);
                } else {
                    q.dropped = wn;
                    q.dropped_heat = heat[nd];
                }
                return q;
            },
            NodeDropOp{});
        const dvec3 share = drop.kept_size > 0.0 ? drop.dropped / drop.kept_size : dvec3(0.0);
        const double heat_share = drop.kept_heat > 0.0 ? drop.dropped_heat / drop.kept_heat : 0.0;
        const int before = vortons();
        const double overlap = c.core_overlap;
        // Into the spare buffers, swapped in below (the last remesh's vortons' buffers, so a
        // warm run allocates nothing here).
        const auto n_new = static_cast<std::size_t>(count);
        auto p = remesh_pos_.resized(n_new);
        auto om = remesh_omega_.resized(n_new);
        auto r = remesh_radius_.resized(n_new);
        auto t = remesh_temp_.resized(n_new);
        auto id = remesh_id_.resized(n_new);
        auto kp = flags_.cview();
        auto sl = slots_.cview();
        exec_.parallel_for(nodes, FS_LAMBDA(int nd) {
            if (!kp[nd]) return;
            int i, j, k;
            g.node_ijk(nd, i, j, k);
            const int at = sl[nd];
            p[at] = g.origin + g.h * dvec3(i, j, k);
            const dvec3 wn(w[nd], w[nodes + nd], w[2 * nodes + nd]);
            om[at] = wn + glm::length(wn) * share;
            r[at] = overlap * g.h;
            t[at] = t0 + heat[nd] + std::fabs(heat[nd]) * heat_share;
            id[at] = at;
        });
        std::swap(vpos_, remesh_pos_);
        std::swap(omega_, remesh_omega_);
        std::swap(radius_, remesh_radius_);
        std::swap(vtemp_, remesh_temp_);
        std::swap(vid_, remesh_id_);
        size_derived();
        vhas_last_.fill_zero();  // new vortons: no last rates
        remeshed_ = before - count;
        remesh_done_ = true;
    }
    int remeshed() const override { return remeshed_; }
    bool remesh_done() const override { return remesh_done_; }
    int remesh_refused() const override { return remesh_refused_; }

    // ---- sums --------------------------------------------------------------------------------

    Sums sums(const Config& c) override {
        const double overlap = c.core_overlap;
        auto pos = vpos_.cview();
        auto omega = omega_.cview();
        auto radius = radius_.cview();
        auto vel = vvel_.cview();
        auto psi = vpsi_.cview();
        Sums s = exec_.transform_reduce(
            vortons(), Sums{},
            FS_LAMBDA(int i) {
                Sums r;
                const dvec3 x = pos[i], w = omega[i], v = vel[i];
                const double vol = vorton_volume(radius[i], overlap);
                const dvec3 a = vol * w;
                r.alpha = a;
                r.impulse = 0.5 * glm::cross(x, a);
                r.angular = glm::cross(x, glm::cross(x, a)) / 3.0;
                r.enstrophy = glm::dot(w, w) * vol;
                r.energy = 0.5 * glm::dot(a, psi[i]);
                r.max_speed2 = glm::dot(v, v);
                r.nonfinite = std::isfinite(x.x + x.y + x.z + w.x + w.y + w.z + v.x + v.y + v.z) ? 0 : 1;
                return r;
            },
            SumsOp{});
        auto tpos = tpos_.cview();
        auto tvel = tvel_.cview();
        const Sums t = exec_.transform_reduce(
            tracers(), Sums{},
            FS_LAMBDA(int i) {
                Sums r;
                const dvec3 x = tpos[i], v = tvel[i];
                r.max_speed2 = glm::dot(v, v);
                r.nonfinite = std::isfinite(x.x + x.y + x.z + v.x + v.y + v.z) ? 0 : 1;
                return r;
            },
            SumsOp{});
        s.max_speed2 = max_of(s.max_speed2, t.max_speed2);
        s.nonfinite += t.nonfinite;
        return s;
    }

    GridInfo grid_info() const override { return {vic_.built(), vic_.grid()}; }
    void synchronize() override { exec_.synchronize(); }

private:
    Exec exec_;
    Buffer<dvec3> vpos_{kSpace}, omega_{kSpace}, vvel_{kSpace}, stretch_{kSpace}, diffuse_{kSpace}, vpsi_{kSpace};
    Buffer<dvec3> vcurl_{kSpace};  // the field's curl u at the vortons (wants_curl; else stale)
    Buffer<double> radius_{kSpace}, vtemp_{kSpace};
    Buffer<int> vid_{kSpace};
    Buffer<dvec3> tpos_{kSpace}, tvel_{kSpace};
    Buffer<double> ttemp_{kSpace};
    Buffer<int> tid_{kSpace};
    // The midpoint rule's step start (half_step).
    Buffer<dvec3> start_vpos_{kSpace}, start_omega_{kSpace}, start_tpos_{kSpace};
    // The Adams-Bashforth rule's last rates (HostState::vvel_last and the rest), their step's dt
    // (0: none) and the zeros place() writes to a placed particle's flag.
    Buffer<dvec3> vvel_last_{kSpace}, vrate_last_{kSpace}, tvel_last_{kSpace};
    Buffer<int> vhas_last_{kSpace}, thas_last_{kSpace};
    double last_dt_ = 0.0;
    std::vector<int> no_last_;
    VortexInCell<Exec> vic_;
    DirectSum<Exec> direct_;  // the direct sum's float sources, kept between steps
    bool direct_ready_ = false;
    BodyCollisions<Exec> collisions_;
    BoundaryElements<Exec> panels_;
    Buffer<int> flags_{kSpace}, slots_{kSpace};  // remesh: the nodes kept and their slots
    Buffer<dvec3> remesh_pos_{kSpace}, remesh_omega_{kSpace};  // remesh: the new vortons, swapped in
    Buffer<double> remesh_radius_{kSpace}, remesh_temp_{kSpace};
    Buffer<int> remesh_id_{kSpace};
    // Staging for emitted particles (place()).
    Buffer<dvec3> stage_v3_{kSpace};
    Buffer<double> stage_d_{kSpace};
    Buffer<int> stage_i_{kSpace}, stage_slots_{kSpace};
    int remeshed_ = 0;
    bool remesh_done_ = false;
    int remesh_refused_ = 0;
};

}  // namespace fs::vortex
