// The vortex-particle step, written once over an executor (CpuExec or CudaExec). Kernel-launching
// members are public: nvcc's host-device lambdas may not be defined in private members.
//
// Particles keep their arrays in creation order (emission recycles the oldest slots); the grid
// stages reach them in cell order through a counting sort's permutation, gathering per node, so
// every sum has a fixed order and results do not depend on the thread count.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/buffer.hpp"
#include "solvers/common/cell_sort.hpp"
#include "solvers/vortex/poisson.hpp"
#include "solvers/vortex/vortex_engine.hpp"

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
        grid_ = s.grid_shape;
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
        s.grid_shape = grid_;
    }

    int vortons() const override { return static_cast<int>(vpos_.size()); }
    int tracers() const override { return static_cast<int>(tpos_.size()); }

    // Derived per-particle arrays follow the particle counts; new entries start at zero.
    void size_derived() {
        const int nv = vortons(), nt = tracers();
        for (Buffer<dvec3>* b : {&vvel_, &stretch_, &diffuse_, &vpsi_}) zero_tail(*b, static_cast<std::size_t>(nv));
        zero_tail(tvel_, static_cast<std::size_t>(nt));
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
        bodies_host_ = bodies;
        bodies_.copy_from_host(bodies);
    }

    void run_stage(int stage, const Config& c) override {
        switch (stage) {
            case kVelocity: velocity(c); break;
            case kBuoyancy: buoyancy(c); break;
            case kStretch: stretch(c); break;
            case kAdvect: advect(c); break;
            case kCollide: collide(c); break;
            case kRemesh: remesh(c); break;
            default: break;
        }
    }

    // ---- velocity from vorticity -------------------------------------------------------------

    void velocity(const Config& c) {
        const bool need_grid = c.velocity_method == kGrid || (tracers() > 0 && c.tracer_method == kGrid) ||
                               c.buoyancy || c.thermal_diffusivity > 0.0;
        grid_built_ = grid_has_heat_ = false;
        if (need_grid && vortons() > 0) build_grid(c, true);
        if (c.velocity_method == kGrid && grid_built_)
            vortons_from_grid(c);
        else
            vortons_direct(c);
        if (tracers() > 0) {
            if (c.tracer_method == kGrid && grid_built_)
                tracers_from_grid();
            else
                tracers_direct();
        }
    }

    // Regularised Biot-Savart over all vortons (O(N^2), the exact reference), with the
    // stretching term and particle strength exchange in the same pass.
    void vortons_direct(const Config& c) {
        auto pos = vpos_.cview();
        auto omega = omega_.cview();
        auto radius = radius_.cview();
        auto vel = vvel_.view();
        auto str = stretch_.view();
        auto dif = diffuse_.view();
        auto psi = vpsi_.view();
        const int n = vortons();
        const double nu = c.viscosity;
        exec_.parallel_for(n, FS_LAMBDA(int i) {
            const dvec3 xi = pos[i], wi = omega[i];
            const double si = radius[i];
            Induced acc;
            dvec3 d(0.0);
            for (int j = 0; j < n; ++j) {
                const double sj = radius[j];
                const double vj = vorton_volume(sj);
                add_induced(acc, xi, wi, pos[j], vj * omega[j], sj, true);
                if (nu > 0.0 && j != i) d += pse_term(xi - pos[j], 0.5 * (si + sj), wi, omega[j], vj);
            }
            vel[i] = acc.u;
            str[i] = acc.stretch;
            psi[i] = acc.psi;
            dif[i] = nu * d;
        });
    }

    void tracers_direct() {
        auto pos = vpos_.cview();
        auto omega = omega_.cview();
        auto radius = radius_.cview();
        auto tpos = tpos_.cview();
        auto tvel = tvel_.view();
        const int n = vortons();
        exec_.parallel_for(tracers(), FS_LAMBDA(int i) {
            const dvec3 x = tpos[i];
            Induced acc;
            for (int j = 0; j < n; ++j) {
                const double sj = radius[j];
                add_induced(acc, x, dvec3(0.0), pos[j], vorton_volume(sj) * omega[j], sj, false);
            }
            tvel[i] = acc.u;
        });
    }

    // Vortex-in-cell (Christiansen 1973; Cottet and Koumoutsakos 2000, ch. 3): vorticity spread
    // to the grid with trilinear weights, lap psi = -omega solved in free space, u = curl psi and
    // grad u by central differences, all interpolated back with the same weights.
    void build_grid(const Config& c, bool solve) {
        // The grid covers every particle with a margin of two nodes.
        const Box3Op box_op;
        auto vp = vpos_.cview();
        auto tp = tpos_.cview();
        const Box3 empty{dvec3(1e300), dvec3(-1e300)};
        Box3 box = exec_.transform_reduce(vortons(), empty, FS_LAMBDA(int i) { return Box3{vp[i], vp[i]}; }, box_op);
        if (tracers() > 0)
            box = box_op(box, exec_.transform_reduce(tracers(), empty,
                                                     FS_LAMBDA(int i) { return Box3{tp[i], tp[i]}; }, box_op));
        const dvec3 ext = box.hi - box.lo;
        const double longest = std::max({ext.x, ext.y, ext.z});
        if (!std::isfinite(longest)) return;  // the stats report the non-finite particle
        constexpr int kMargin = 2;
        VicGrid g;
        const double h_raw = std::max(longest / std::max(1, c.grid_cells - 1 - 2 * kMargin), 0.5 * c.core_radius);
        // h on a ladder of ratio 2^(1/8) and sizes rounded up to even numbers of the form
        // 2^a 3^b 5^c: consecutive steps then mostly share one grid shape and spacing, so the
        // Poisson solver reuses its FFT plans and kernel transform, and the doubled FFT lengths
        // have only the small prime factors FFTs are fastest for.
        g.h = c.core_radius * std::exp2(std::ceil(8.0 * std::log2(h_raw / c.core_radius)) / 8.0);
        auto nodes_along = [&](double e) {
            int n = static_cast<int>(std::ceil(e / g.h)) + 1 + 2 * kMargin;
            for (;; ++n) {
                int m = n;
                if (m % 2) continue;
                for (int p : {2, 3, 5})
                    while (m % p == 0) m /= p;
                if (m == 1) return n;
            }
        };
        g.nx = nodes_along(ext.x);
        g.ny = nodes_along(ext.y);
        g.nz = nodes_along(ext.z);
        // Keep the last shape while the particles still fit it with the same spacing (and it is
        // not much larger), so a cloud that breathes does not re-plan the FFTs every step.
        const VicGrid& last = grid_;
        if (last.h == g.h && last.nx >= g.nx && last.ny >= g.ny && last.nz >= g.nz && last.nx <= g.nx + 8 &&
            last.ny <= g.ny + 8 && last.nz <= g.nz + 8) {
            g.nx = last.nx;
            g.ny = last.ny;
            g.nz = last.nz;
        }
        // Centred on the particles.
        g.origin = 0.5 * (box.lo + box.hi) - 0.5 * g.h * dvec3(g.nx - 1, g.ny - 1, g.nz - 1);
        grid_ = g;
        const int nodes = g.nodes();

        // Vortons sorted by cell, then every node gathers from the 8 cells around it.
        sort_.build(exec_, g.cells(), vortons(), FS_LAMBDA(int i) { return g.cell_of(vp[i]); });
        auto order = sort_.order();
        auto start = sort_.cell_start();
        auto omega = omega_.cview();
        auto radius = radius_.cview();
        auto vtemp = vtemp_.cview();
        auto w = wgrid_.resized(3 * static_cast<std::size_t>(nodes));
        auto tg = tgrid_.resized(static_cast<std::size_t>(nodes));
        const double inv_h3 = 1.0 / (g.h * g.h * g.h), t0 = c.ambient_temperature;
        exec_.parallel_for(nodes, FS_LAMBDA(int nd) {
            const int i = nd % g.nx, j = (nd / g.nx) % g.ny, k = nd / (g.nx * g.ny);
            dvec3 a(0.0);
            double tw = 0.0, vw = 0.0;
            for (int dc = 0; dc < 2; ++dc)
                for (int db = 0; db < 2; ++db)
                    for (int da = 0; da < 2; ++da) {
                        const int ci = i - da, cj = j - db, ck = k - dc;
                        if (ci < 0 || cj < 0 || ck < 0 || ci > g.nx - 2 || cj > g.ny - 2 || ck > g.nz - 2) continue;
                        const int cell = g.cell_index(ci, cj, ck);
                        for (int s = start[cell]; s < start[cell + 1]; ++s) {
                            const int p = order[s];
                            int pi, pj, pk;
                            dvec3 f;
                            g.locate(vp[p], pi, pj, pk, f);
                            const double wt = cic_weight(f, da, db, dc);
                            const double vol = vorton_volume(radius[p]);
                            a += (wt * vol) * omega[p];
                            tw += wt * vol * (vtemp[p] - t0);
                            vw += wt * vol;
                        }
                    }
            w[nd] = a.x * inv_h3;
            w[nodes + nd] = a.y * inv_h3;
            w[2 * nodes + nd] = a.z * inv_h3;
            // Temperature: the volume-weighted mean of the vortons near the node, fading to the
            // ambient one where they cover less than a tenth of a cell.
            tg[nd] = t0 + tw / max_of(vw, 0.1 * g.h * g.h * g.h);
        });
        grid_built_ = true;
        if (!solve) return;

        if (!poisson_) poisson_ = Exec::backend == Backend::Cuda ? make_poisson_cuda() : make_poisson_cpu();
        // The kernel is smoothed with the vortons' mean core, so the grid's field is the direct
        // sum's regularised one (up to the O(h^2) of the spreading).
        const double mean_core =
            exec_.transform_reduce(vortons(), 0.0, FS_LAMBDA(int i) { return radius[i]; },
                                   [] FS_HD(double a, double b) { return a + b; }) /
            vortons();
        auto psi = psigrid_.resized(3 * static_cast<std::size_t>(nodes));
        poisson_->solve(g.nx, g.ny, g.nz, g.h, w.data, psi.data, mean_core);

        // u = curl psi at the nodes.
        auto u = ugrid_.resized(3 * static_cast<std::size_t>(nodes));
        auto uv = uvec_.resized(static_cast<std::size_t>(nodes));
        const double* ps = psi.data;
        exec_.parallel_for(nodes, FS_LAMBDA(int nd) {
            const int i = nd % g.nx, j = (nd / g.nx) % g.ny, k = nd / (g.nx * g.ny);
            const double* px = ps;
            const double* py = ps + nodes;
            const double* pz = ps + 2 * nodes;
            u[nd] = node_derivative(g, pz, i, j, k, 1) - node_derivative(g, py, i, j, k, 2);
            u[nodes + nd] = node_derivative(g, px, i, j, k, 2) - node_derivative(g, pz, i, j, k, 0);
            u[2 * nodes + nd] = node_derivative(g, py, i, j, k, 0) - node_derivative(g, px, i, j, k, 1);
            uv[nd] = dvec3(u[nd], u[nodes + nd], u[2 * nodes + nd]);
        });
        // What the other stages read: grad u (component 3a + b = d u_a / d x_b) and lap omega
        // for vortons on the grid; grad T and lap T for buoyancy and heat diffusion.
        const double* uu = u.data;
        const double* ww = w.data;
        if (c.velocity_method == kGrid) {
            auto gu = gradu_.resized(9 * static_cast<std::size_t>(nodes));
            auto lw = lapw_.resized(3 * static_cast<std::size_t>(nodes));
            exec_.parallel_for(nodes, FS_LAMBDA(int nd) {
                const int i = nd % g.nx, j = (nd / g.nx) % g.ny, k = nd / (g.nx * g.ny);
                for (int a = 0; a < 3; ++a) {
                    for (int b = 0; b < 3; ++b)
                        gu[(3 * a + b) * nodes + nd] = node_derivative(g, uu + a * nodes, i, j, k, b);
                    lw[a * nodes + nd] = node_laplacian(g, ww + a * nodes, i, j, k);
                }
            });
        }
        grid_has_heat_ = c.buoyancy || c.thermal_diffusivity > 0.0;
        if (grid_has_heat_) {
            auto gt = gradt_.resized(4 * static_cast<std::size_t>(nodes));
            const double* tt = tg.data;
            exec_.parallel_for(nodes, FS_LAMBDA(int nd) {
                const int i = nd % g.nx, j = (nd / g.nx) % g.ny, k = nd / (g.nx * g.ny);
                for (int a = 0; a < 3; ++a) gt[a * nodes + nd] = node_derivative(g, tt, i, j, k, a);
                gt[3 * nodes + nd] = node_laplacian(g, tt, i, j, k);
            });
        }
    }

    void vortons_from_grid(const Config& c) {
        const VicGrid g = grid_;
        auto pos = vpos_.cview();
        auto omega = omega_.cview();
        auto vel = vvel_.view();
        auto str = stretch_.view();
        auto dif = diffuse_.view();
        auto psi = vpsi_.view();
        const double* u = ugrid_.data();
        const double* gu = gradu_.data();
        const double* lw = lapw_.data();
        const double* ps = psigrid_.data();
        const double nu = c.viscosity;
        exec_.parallel_for(vortons(), FS_LAMBDA(int i) {
            const dvec3 x = pos[i], wi = omega[i];
            double v[3], d[9], l[3], p[3];
            interpolate<3>(g, u, x, v);
            interpolate<9>(g, gu, x, d);
            interpolate<3>(g, lw, x, l);
            interpolate<3>(g, ps, x, p);
            vel[i] = dvec3(v[0], v[1], v[2]);
            // (omega . grad) u: component a = sum_b omega_b d u_a / d x_b.
            str[i] = dvec3(d[0] * wi.x + d[1] * wi.y + d[2] * wi.z, d[3] * wi.x + d[4] * wi.y + d[5] * wi.z,
                           d[6] * wi.x + d[7] * wi.y + d[8] * wi.z);
            dif[i] = nu * dvec3(l[0], l[1], l[2]);
            psi[i] = dvec3(p[0], p[1], p[2]);
        });
    }

    void tracers_from_grid() {
        const VicGrid g = grid_;
        auto tpos = tpos_.cview();
        auto tvel = tvel_.view();
        const dvec3* u = uvec_.data();
        exec_.parallel_for(tracers(), FS_LAMBDA(int i) { tvel[i] = interpolate_vec(g, u, tpos[i]); });
    }

    // ---- buoyancy, stretching, advection -----------------------------------------------------

    // Baroclinic generation (the series' parts 8 and 10): D omega / Dt = (1/rho) grad rho x g with
    // a density that follows temperature at constant pressure (ideal gas, rho ~ 1/T), i.e.
    // D omega / Dt = (g x grad T) / T. Heat diffuses (dT/dt = kappa lap T on the grid) and
    // particles cool toward the ambient temperature (Newton: dT/dt = -k (T - T0)).
    void buoyancy(const Config& c) {
        const double keep = std::exp(-c.cooling_rate * c.dt), t0 = c.ambient_temperature;
        if (grid_built_ && grid_has_heat_ && (c.buoyancy || c.thermal_diffusivity > 0.0)) {
            const VicGrid g = grid_;
            auto pos = vpos_.cview();
            auto omega = omega_.view();
            auto temp = vtemp_.view();
            const double* gt = gradt_.data();
            const double* tg = tgrid_.data();
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

    // Vortex stretching and tilting plus viscous diffusion, explicit Euler (as the series).
    void stretch(const Config& c) {
        auto omega = omega_.view();
        auto str = stretch_.cview();
        auto dif = diffuse_.cview();
        const double dt = c.dt, on = c.stretching ? 1.0 : 0.0;
        exec_.parallel_for(vortons(), FS_LAMBDA(int i) { omega[i] += dt * (on * str[i] + dif[i]); });
    }

    void advect(const Config& c) {
        auto vp = vpos_.view();
        auto vv = vvel_.cview();
        auto tp = tpos_.view();
        auto tv = tvel_.cview();
        const double dt = c.dt;
        exec_.parallel_for(vortons(), FS_LAMBDA(int i) { vp[i] += dt * vv[i]; });
        exec_.parallel_for(tracers(), FS_LAMBDA(int i) { tp[i] += dt * tv[i]; });
    }

    // ---- bodies ------------------------------------------------------------------------------

    // seed 002, "Collision Response" and CollideVortonsSlice, body after body: a vorton within
    // boundary_thickness core radii of the surface (bounding-sphere broad phase first) is pushed
    // out to one core radius, and its vorticity changes so that the tangential slip between fluid
    // and body surface at the contact point is cancelled (part 4 of the series). The vortons in
    // contact form a layer, about one per (2 s)^2 of surface: together a vortex sheet of strength
    // gamma = 2 s d omega, which changes the velocity beside it by gamma / 2 = s d omega; so
    //   d omega = slip_fraction (n x u_slip) / s.
    // (Sizing d omega for the vorton alone, as if its neighbours did nothing, over-corrects by
    // the number of overlapping cores, about 4x here, and the boundary layer then blows up.) The
    // layer is not always that sparse: where k vortons in contact crowd one sheet vorton's patch
    // of (2 s)^2, each takes 1/k of the correction, so the sheet they make together cancels the
    // slip once; the whole change otherwise over-corrects k-fold, flips the slip's sign step after
    // step and grows (the plate-and-flames scene ran away after 37 s so).
    // The change of the fluid's linear and angular impulse goes to the body with the opposite
    // sign, and heat flows between body and vorton. Each vorton writes its share to its own slot;
    // the slots are summed in fixed blocks (the document's deterministic split and join).
    void collide(const Config& c) {
        exchanges_.assign(static_cast<std::size_t>(kMaxBodies), Exchange{});
        for (int b = 0; b < c.body_count && b < static_cast<int>(bodies_host_.size()); ++b) {
            if (bodies_host_[b].kind == kNoBody) continue;
            exchanges_[b] = collide_vortons(c, b);
            collide_tracers(c, b);
        }
    }

    Exchange collide_vortons(const Config& c, int body) {
        auto bodies = bodies_.cview();
        auto pos = vpos_.view();
        auto omega = omega_.view();
        auto radius = radius_.cview();
        auto temp = vtemp_.view();
        auto ex = exchange_.resized(static_cast<std::size_t>(vortons()));
        const double thick = c.boundary_thickness, slip = c.slip_fraction, rho = c.fluid_density;
        const double heat_keep = std::exp(-c.heat_transfer_rate * c.dt), cp = c.specific_heat;
        // First the fluid velocity at each contact point, from the state before any correction
        // of this pass (so the pass reads nothing it writes), by the direct sum over all vortons
        // whatever the velocity method: the layer of vortons in contact is thinner than a grid
        // cell, and interpolation would hide the velocity the layer itself induces at the wall,
        // so the corrections would pile up step after step. (contacts x vortons: cheap.)
        auto at_contact = ucontact_.resized(static_cast<std::size_t>(vortons()));
        auto touching = touching_.resized(static_cast<std::size_t>(vortons()));
        auto crowd = crowd_.resized(static_cast<std::size_t>(vortons()));
        {
            const int n = vortons();
            exec_.parallel_for(n, FS_LAMBDA(int i) {
                const BodyShape& b = bodies[body];
                double dist;
                dvec3 point, nrm;
                at_contact[i] = dvec3(0.0);
                touching[i] = 0;
                if (!body_contact(b, pos[i], thick * radius[i], dist, point, nrm) || dist >= thick * radius[i]) return;
                touching[i] = 1;
                Induced acc;
                for (int j = 0; j < n; ++j)
                    add_induced(acc, point, dvec3(0.0), pos[j], vorton_volume(radius[j]) * omega[j], radius[j], false);
                at_contact[i] = acc.u;
            });
            // How crowded the layer is round each contact: the vortons in contact within 2 s /
            // sqrt(pi) of it (itself included), the disc of area (2 s)^2 that the sheet model
            // gives one vorton. Where more crowd in, they share the correction (below).
            auto touch = touching_.cview();
            exec_.parallel_for(n, FS_LAMBDA(int i) {
                crowd[i] = 1;
                if (!touch[i]) return;
                const double reach = 2.0 * radius[i] / std::sqrt(kPi);
                int k = 0;
                for (int j = 0; j < n; ++j) {
                    const dvec3 d = pos[j] - pos[i];
                    k += touch[j] && glm::dot(d, d) < reach * reach ? 1 : 0;
                }
                crowd[i] = k > 1 ? k : 1;
            });
        }
        auto vel = ucontact_.cview();
        auto shared = crowd_.cview();
        exec_.parallel_for(vortons(), FS_LAMBDA(int i) {
            const BodyShape& b = bodies[body];
            Exchange e;
            const dvec3 x0 = pos[i];
            const double s = radius[i];
            double dist;
            dvec3 point, n;
            if (!body_contact(b, x0, thick * s, dist, point, n) || dist >= thick * s) {
                ex[i] = e;
                return;
            }
            e.contacts = 1;
            const double vol = vorton_volume(s);
            const dvec3 a0 = vol * omega[i];
            // Eject: the centre goes back to one core radius outside the surface.
            const dvec3 x1 = dist < s ? point + s * n : x0;
            // No-slip: cancel the tangential slip at the contact point.
            const dvec3 rel = vel[i] - surface_velocity(b, point);
            const dvec3 rel_t = rel - glm::dot(rel, n) * n;
            const dvec3 w1 = omega[i] + (slip / (s * shared[i])) * glm::cross(n, rel_t);
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
        return exec_.transform_reduce(vortons(), Exchange{}, FS_LAMBDA(int i) { return ex[i]; }, ExchangeOp{});
    }

    // Tracers found inside a body move out to its surface (seed 002, RemoveEmbeddedParticles
    // moves rather than deletes, so the smoke keeps its amount); those touching it take its heat.
    void collide_tracers(const Config& c, int body) {
        auto bodies = bodies_.cview();
        auto tp = tpos_.view();
        auto tt = ttemp_.view();
        const double heat_keep = std::exp(-c.heat_transfer_rate * c.dt);
        const double skin = 0.05 * c.core_radius;
        exec_.parallel_for(tracers(), FS_LAMBDA(int i) {
            const BodyShape& b = bodies[body];
            double dist;
            dvec3 point, n;
            if (!body_contact(b, tp[i], skin, dist, point, n) || dist >= skin) return;
            if (dist < 0.0) tp[i] = point + skin * n;
            if (b.temperature > 0.0) tt[i] += (b.temperature - tt[i]) * (1.0 - heat_keep);
        });
    }

    std::vector<Exchange> exchanges() const override { return exchanges_; }

    // ---- remeshing ---------------------------------------------------------------------------

    // Vortons re-created on the grid's nodes (Koumoutsakos 1997): each node whose spread
    // vorticity exceeds remesh_threshold of the largest becomes a vorton of volume h^3 (core
    // h / 2) carrying the node's vorticity and temperature. Trilinear spreading keeps the total
    // vorticity and the linear impulse exactly.
    void remesh(const Config& c) {
        remeshed_ = -1;
        if (!c.remesh || vortons() == 0) return;
        build_grid(c, false);
        if (!grid_built_) return;
        const VicGrid g = grid_;
        const int nodes = g.nodes();
        auto w = wgrid_.cview();
        auto tg = tgrid_.cview();
        const double wmax2 = exec_.transform_reduce(
            nodes, 0.0,
            FS_LAMBDA(int nd) {
                return w[nd] * w[nd] + w[nodes + nd] * w[nodes + nd] + w[2 * nodes + nd] * w[2 * nodes + nd];
            },
            [] FS_HD(double a, double b) { return max_of(a, b); });
        const double cut2 = c.remesh_threshold * c.remesh_threshold * wmax2;
        auto keep = flags_.resized(static_cast<std::size_t>(nodes) + 1);
        exec_.parallel_for(nodes + 1, FS_LAMBDA(int nd) {
            keep[nd] = nd < nodes && (w[nd] * w[nd] + w[nodes + nd] * w[nodes + nd] +
                                          w[2 * nodes + nd] * w[2 * nodes + nd] >
                                      cut2)
                           ? 1
                           : 0;
        });
        auto slot = slots_.resized(static_cast<std::size_t>(nodes) + 1);
        exec_.exclusive_scan(flags_.cview(), slot);
        int count = 0;
        mem_copy(&count, MemorySpace::Host, slots_.data() + nodes, kSpace, sizeof(int));
        if (count == 0 || count > c.max_vortons) return;
        const int before = vortons();
        Buffer<dvec3> np(kSpace, static_cast<std::size_t>(count)), nw(kSpace, static_cast<std::size_t>(count));
        Buffer<double> nr(kSpace, static_cast<std::size_t>(count)), nt(kSpace, static_cast<std::size_t>(count));
        Buffer<int> nid(kSpace, static_cast<std::size_t>(count));
        auto p = np.view();
        auto om = nw.view();
        auto r = nr.view();
        auto t = nt.view();
        auto id = nid.view();
        auto kp = flags_.cview();
        auto sl = slots_.cview();
        exec_.parallel_for(nodes, FS_LAMBDA(int nd) {
            if (!kp[nd]) return;
            const int i = nd % g.nx, j = (nd / g.nx) % g.ny, k = nd / (g.nx * g.ny);
            const int at = sl[nd];
            p[at] = g.origin + g.h * dvec3(i, j, k);
            om[at] = dvec3(w[nd], w[nodes + nd], w[2 * nodes + nd]);
            r[at] = 0.5 * g.h;
            t[at] = tg[nd];
            id[at] = at;
        });
        std::swap(vpos_, np);
        std::swap(omega_, nw);
        std::swap(radius_, nr);
        std::swap(vtemp_, nt);
        std::swap(vid_, nid);
        size_derived();
        remeshed_ = before - count;
    }
    int remeshed() const override { return remeshed_; }

    // ---- sums --------------------------------------------------------------------------------

    Sums sums(const Config&) override {
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
                const double vol = vorton_volume(radius[i]);
                const dvec3 a = vol * w;
                r.alpha = a;
                r.impulse = 0.5 * glm::cross(x, a);
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

    GridInfo grid_info() const override { return {grid_built_, grid_}; }
    void synchronize() override { exec_.synchronize(); }

private:
    Exec exec_;
    Buffer<dvec3> vpos_{kSpace}, omega_{kSpace}, vvel_{kSpace}, stretch_{kSpace}, diffuse_{kSpace}, vpsi_{kSpace};
    Buffer<double> radius_{kSpace}, vtemp_{kSpace};
    Buffer<int> vid_{kSpace};
    Buffer<dvec3> tpos_{kSpace}, tvel_{kSpace};
    Buffer<double> ttemp_{kSpace};
    Buffer<int> tid_{kSpace};
    // The grid: omega (3 blocks), temperature, psi, u, grad u (9), lap omega (3), grad T + lap T (4).
    Buffer<double> wgrid_{kSpace}, tgrid_{kSpace}, psigrid_{kSpace}, ugrid_{kSpace}, gradu_{kSpace}, lapw_{kSpace},
        gradt_{kSpace};
    Buffer<dvec3> uvec_{kSpace};  // u again, node after node, for the tracers
    Buffer<int> flags_{kSpace}, slots_{kSpace};
    VicGrid grid_;
    bool grid_built_ = false;
    bool grid_has_heat_ = false;  // grad T and lap T are on the grid
    grid::CellSort<Exec> sort_;
    std::unique_ptr<FreeSpacePoisson> poisson_;
    Buffer<BodyShape> bodies_{kSpace};
    std::vector<BodyShape> bodies_host_;
    Buffer<Exchange> exchange_{kSpace};
    Buffer<dvec3> ucontact_{kSpace};
    Buffer<int> touching_{kSpace}, crowd_{kSpace};  // collide: in contact; vortons sharing the correction
    // Staging for emitted particles (place()).
    Buffer<dvec3> stage_v3_{kSpace};
    Buffer<double> stage_d_{kSpace};
    Buffer<int> stage_i_{kSpace}, stage_slots_{kSpace};
    std::vector<Exchange> exchanges_ = std::vector<Exchange>(kMaxBodies);
    int remeshed_ = -1;
};

}  // namespace fs::vortex
