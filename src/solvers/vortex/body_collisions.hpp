// The collisions of the vortex solver's particles with its bodies, and their buffers: vortons
// ejected with no-slip and heat exchange, the impulse they give each body; tracers moved out.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/buffer.hpp"
#include "solvers/vortex/vortex_engine.hpp"

namespace fs::vortex {

// The vortons' arrays a collision pass reads and moves (views into the pipeline's buffers).
struct CollidingVortons {
    View<dvec3> pos, omega;
    View<const double> radius;
    View<double> temp;
    View<const dvec3> vel;  // the step's velocity (which face a vorton inside a body came in by)
};

// Kernel-launching members are public: nvcc's host-device lambdas may not be defined in private
// members.
template <class Exec>
class BodyCollisions {
public:
    static constexpr MemorySpace kSpace = Exec::space;

    void set_bodies(const std::vector<BodyShape>& bodies) {
        bodies_host_ = bodies;
        bodies_.copy_from_host(bodies);
    }

    // What each body received in the last collide().
    const std::vector<Exchange>& exchanges() const { return exchanges_; }
    // The bodies as the kernels read them (kMaxBodies at most; kind kNoBody where none).
    View<const BodyShape> bodies() const { return bodies_.cview(); }
    const std::vector<BodyShape>& host_bodies() const { return bodies_host_; }

    // vortex particles part 13, "Collision Response" and CollideVortonsSlice, body after body: a vorton within
    // boundary_thickness core radii of the surface (bounding-sphere broad phase first) is pushed
    // out to one core radius, and its vorticity changes so that the tangential slip between fluid
    // and body surface at the contact point is cancelled (part 4 of the series). The vortons in
    // contact form a layer, about one per h^2 of surface (h = s / core_overlap, the spacing a vorton
    // stands for; 2 s at the document's overlap): together a vortex sheet of strength
    // gamma = h d omega, which changes the velocity beside it by gamma / 2; so
    //   d omega = slip_fraction 2 (n x u_slip) / h   (= slip_fraction (n x u_slip) / s for h = 2 s).
    // (Sizing d omega for the vorton alone, as if its neighbours did nothing, over-corrects by
    // the number of overlapping cores, about 4x here, and the boundary layer then blows up.) The
    // layer is not always that sparse: where k vortons in contact crowd one sheet vorton's patch
    // of h^2, each takes 1/k of the correction, so the sheet they make together cancels the
    // slip once; the whole change otherwise over-corrects k-fold, flips the slip's sign step after
    // step and grows (the plate-and-flames scene ran away after 37 s so).
    // The change of the fluid's linear and angular impulse goes to the body with the opposite
    // sign, and heat flows between body and vorton. Each vorton writes its share to its own slot;
    // the slots are summed in fixed blocks (the document's deterministic split and join).
    void collide(Exec& exec, const Config& c, const CollidingVortons& v, View<dvec3> tpos, View<double> ttemp,
                 View<const dvec3> tvel) {
        exchanges_.assign(static_cast<std::size_t>(kMaxBodies), Exchange{});
        const int count = std::min(c.body_count, static_cast<int>(bodies_host_.size()));
        for (int b = 0; b < count; ++b)
            if (bodies_host_[b].kind != kNoBody) exchanges_[b] = collide_vortons(exec, c, b, v);
        // The tracers move independently of the vortons and of each other: one pass meets every
        // body in turn, as a pass a body would, reading the tracers once instead of once a body.
        collide_tracers(exec, c, count, tpos, ttemp, tvel);
    }

    Exchange collide_vortons(Exec& exec, const Config& c, int body, const CollidingVortons& v) {
        auto bodies = bodies_.cview();
        auto pos = v.pos;
        auto omega = v.omega;
        auto radius = v.radius;
        auto temp = v.temp;
        auto vel_now = v.vel;
        const double step = c.dt;
        const int n = pos.size;
        auto ex = exchange_.resized(static_cast<std::size_t>(n));
        const double thick = c.boundary_thickness, slip = c.slip_fraction, rho = c.fluid_density;
        const double overlap = c.core_overlap;
        const double heat_keep = std::exp(-c.heat_transfer_rate * c.dt), cp = c.specific_heat;
        // First the fluid velocity at each contact point, from the state before any correction
        // of this pass (so the pass reads nothing it writes), by the direct sum over all vortons
        // whatever the velocity method: the layer of vortons in contact is thinner than a grid
        // cell, and interpolation would hide the velocity the layer itself induces at the wall,
        // so the corrections would pile up step after step. (contacts x vortons: cheap.)
        auto at_contact = ucontact_.resized(static_cast<std::size_t>(n));
        auto touching = touching_.resized(static_cast<std::size_t>(n) + 1);
        auto crowd = crowd_.resized(static_cast<std::size_t>(n));
        exec.parallel_for(n + 1, FS_LAMBDA(int i) {
            touching[i] = 0;
            if (i == n) return;
            at_contact[i] = dvec3(0.0);
            crowd[i] = 1;
            const BodyShape& b = bodies[body];
            double dist;
            dvec3 point, nrm;
            touching[i] =
                body_contact(b, pos[i], thick * radius[i], dist, point, nrm, vel_now[i], step) &&
                dist < thick * radius[i];
        });
        // The vortons in contact, listed (a scan of the flags), so the sums below spread over
        // contacts x chunks of vortons instead of one thread a contact running over all n:
        // a few hundred contacts of 1e5 vortons took 38 ms on a GPU so, most of its threads idle.
        auto slot = slots_.resized(static_cast<std::size_t>(n) + 1);
        exec.exclusive_scan(touching_.cview(), slot);
        int count = 0;
        mem_copy(&count, MemorySpace::Host, slots_.data() + n, kSpace, sizeof(int));
        if (count > 0) {
            auto touch = touching_.cview();
            auto list = contacts_.resized(static_cast<std::size_t>(count));
            auto list_point = contact_points_.resized(static_cast<std::size_t>(count));
            exec.parallel_for(n, FS_LAMBDA(int i) {
                if (!touch[i]) return;
                double dist = 0.0;
                dvec3 point(0.0), nrm(0.0);
                body_contact(bodies[body], pos[i], thick * radius[i], dist, point, nrm, vel_now[i], step);
                list[slot[i]] = i;
                list_point[slot[i]] = point;  // once a contact, not once each of its chunks
            });
            // Chunks of at least 64 vortons (enough items for the CPU threads too), at most about
            // 4e6 (contact, chunk) items.
            const int chunks = std::max(1, std::min((n + 63) / 64, (1 << 22) / count));
            const int chunk = (n + chunks - 1) / chunks;
            auto part_u = part_u_.resized(static_cast<std::size_t>(count) * chunks);
            auto part_k = part_k_.resized(static_cast<std::size_t>(count) * chunks);
            auto contact_of = contacts_.cview();
            auto contact_point = contact_points_.cview();
            // Each vorton's strength alpha_j = volume omega_j, once, not once a contact.
            auto strength_out = strength_.resized(static_cast<std::size_t>(n));
            exec.parallel_for(n, FS_LAMBDA(int j) { strength_out[j] = vorton_volume(radius[j], overlap) * omega[j]; });
            auto strength = strength_.cview();
            // (In chunks of items: each is 64 vortons' interactions, and a few hundred contacts
            // give fewer items than CpuExec's parallel_for spreads over its threads.)
            exec.parallel_chunks(count * chunks, 16, FS_LAMBDA(int item) {
                const int i = contact_of[item / chunks];
                const dvec3 point = contact_point[item / chunks];
                const int j0 = (item % chunks) * chunk;
                const int j1 = j0 + chunk < n ? j0 + chunk : n;
                // The fluid velocity at the contact point from this chunk's vortons.
                Induced acc;
                for (int j = j0; j < j1; ++j) add_induced(acc, point, dvec3(0.0), pos[j], strength[j], radius[j], false);
                // How crowded the layer is round the contact: the vortons in contact within
                // h / sqrt(pi) of it (itself included; h = s / overlap, the vorton's spacing), the
                // disc of area h^2 that the sheet model gives one vorton. Where more crowd in, they
                // share the correction (below).
                const double reach = radius[i] / (overlap * std::sqrt(kPi));
                int k = 0;
                for (int j = j0; j < j1; ++j) {
                    const dvec3 d = pos[j] - pos[i];
                    k += touch[j] && glm::dot(d, d) < reach * reach ? 1 : 0;
                }
                part_u[item] = acc.u;
                part_k[item] = k;
            });
            // Each contact's chunks summed in chunk order: the same sum for any thread count.
            auto pu = part_u_.cview();
            auto pk = part_k_.cview();
            exec.parallel_for(count, FS_LAMBDA(int q) {
                dvec3 u(0.0);
                int k = 0;
                for (int c = 0; c < chunks; ++c) {
                    u += pu[q * chunks + c];
                    k += pk[q * chunks + c];
                }
                // And the turning bodies' own vorticity (add_held), which no vorton carries.
                Induced held;
                for (int bb = 0; bb < bodies.size; ++bb) add_held(held, bodies[bb], contact_point[q], dvec3(0.0), false);
                at_contact[contact_of[q]] = u + held.u;
                crowd[contact_of[q]] = k > 1 ? k : 1;
            });
        }
        auto vel = ucontact_.cview();
        auto shared = crowd_.cview();
        // The no-slip change of each vorton's vorticity (zero off the body), and its strength's sum.
        // Both passes below skip what the contact flags (the first pass) already ruled out, so
        // the narrow phase runs again only for the vortons in contact.
        auto in_contact = touching_.cview();
        auto change = dw_.resized(static_cast<std::size_t>(n));
        exec.parallel_for(n, FS_LAMBDA(int i) {
            const BodyShape& b = bodies[body];
            const double s = radius[i];
            double dist;
            dvec3 point, nrm;
            change[i] = dvec3(0.0);
            if (!in_contact[i]) return;
            if (!body_contact(b, pos[i], thick * s, dist, point, nrm, vel_now[i], step) || dist >= thick * s) return;
            // No-slip: cancel the tangential slip at the contact point.
            const dvec3 rel = vel[i] - surface_velocity(b, point);
            const dvec3 rel_t = rel - glm::dot(rel, nrm) * nrm;
            change[i] = (2.0 * overlap * slip / (s * shared[i])) * glm::cross(nrm, rel_t);
        });
        // Kelvin: the fluid's total vorticity changes at a body only as the body's own, 2 Omega
        // over its volume, does (Saffman, "Vortex Dynamics", 1992, 3.1: the total vorticity of an
        // unbounded flow is conserved, and a body in rigid rotation holds 2 Omega V of it), so the
        // vorticity the pass makes must sum to -2 V dOmega (bodies[body].kelvin): zero for a body
        // that keeps its spin. The slip corrections alone do not: the sheet they make sits a core
        // radius off the surface and cancels the slip at the surface, and each step added the
        // same sign again (a sphere spinning in place: 28 times Kelvin's total after a second).
        // The excess is taken from the vortons in contact in equal shares of strength.
        auto cw = dw_.cview();
        const dvec3 made = exec.transform_reduce(
            n, dvec3(0.0), FS_LAMBDA(int i) { return vorton_volume(radius[i], overlap) * cw[i]; },
            [] FS_HD(dvec3 a, dvec3 b) { return a + b; });
        const dvec3 owed = bodies_host_[body].kelvin;
        const dvec3 share = count > 0 ? (owed - made) / double(count) : dvec3(0.0);
        exec.parallel_for(n, FS_LAMBDA(int i) {
            const BodyShape& b = bodies[body];
            Exchange e;
            const dvec3 x0 = pos[i];
            const double s = radius[i];
            double dist;
            dvec3 point, nrm;
            if (!in_contact[i] ||
                !body_contact(b, x0, thick * s, dist, point, nrm, vel_now[i], step) || dist >= thick * s) {
                ex[i] = e;
                return;
            }
            e.contacts = 1;
            const double vol = vorton_volume(s, overlap);
            const dvec3 a0 = vol * omega[i];
            // Eject: the centre goes back to one core radius outside the surface.
            const dvec3 x1 = dist < s ? point + s * nrm : x0;
            const dvec3 w1 = omega[i] + cw[i] + share / vol;
            const dvec3 a1 = vol * w1;
            pos[i] = x1;
            omega[i] = w1;
            // Heat between body and vorton (the vorton's mass is rho V).
            if (b.temperature > 0.0) {
                const double dT = (b.temperature - temp[i]) * (1.0 - heat_keep);
                temp[i] += dT;
                e.heat = -rho * vol * cp * dT;
            }
            e.linear = -(linear_impulse_of(x1, a1, rho) - linear_impulse_of(x0, a0, rho));
            const dvec3 angular_origin = -(angular_impulse_of(x1, a1, rho) - angular_impulse_of(x0, a0, rho));
            e.angular = angular_origin - glm::cross(b.pose.position, e.linear);
            ex[i] = e;
        });
        return exec.transform_reduce(n, Exchange{}, FS_LAMBDA(int i) { return ex[i]; }, ExchangeOp{});
    }

    // Tracers found inside a body move out to its surface (vortex particles part 13, RemoveEmbeddedParticles
    // moves rather than deletes, so the smoke keeps its amount); those touching it take its heat.
    // Bodies [0, count) in order, each seeing where the one before left the tracer.
    void collide_tracers(Exec& exec, const Config& c, int count, View<dvec3> tp, View<double> tt,
                         View<const dvec3> tv) {
        auto bodies = bodies_.cview();
        const double heat_keep = std::exp(-c.heat_transfer_rate * c.dt);
        const double skin = 0.05 * c.core_radius;
        const double step = c.dt;
        exec.parallel_for(tp.size, FS_LAMBDA(int i) {
            dvec3 x = tp[i];
            const dvec3 v = tv[i];
            for (int body = 0; body < count; ++body) {
                const BodyShape& b = bodies[body];
                double dist;
                dvec3 point, n;
                if (!may_touch(b, x, skin, v, step)) continue;  // kNoBody included
                if (!body_contact(b, x, skin, dist, point, n, v, step) || dist >= skin) continue;
                if (dist < 0.0) tp[i] = x = point + skin * n;
                if (b.temperature > 0.0) tt[i] += (b.temperature - tt[i]) * (1.0 - heat_keep);
            }
        });
    }

private:
    Buffer<BodyShape> bodies_{kSpace};
    std::vector<BodyShape> bodies_host_;
    Buffer<Exchange> exchange_{kSpace};
    Buffer<dvec3> ucontact_{kSpace};
    Buffer<dvec3> dw_{kSpace};  // each vorton's no-slip change of vorticity
    Buffer<int> touching_{kSpace}, crowd_{kSpace};  // in contact; vortons sharing the correction
    Buffer<int> slots_{kSpace}, contacts_{kSpace};  // the contacts' places in the list; the list
    Buffer<dvec3> contact_points_{kSpace};          // the listed contacts' surface points
    Buffer<dvec3> part_u_{kSpace};                  // per (contact, chunk): velocity, crowd count
    Buffer<dvec3> strength_{kSpace};                // each vorton's alpha = volume omega
    Buffer<int> part_k_{kSpace};
    std::vector<Exchange> exchanges_ = std::vector<Exchange>(kMaxBodies);
};

}  // namespace fs::vortex
