// The vortex-in-cell grid of the vortex solver and its buffers: vorticity and temperature spread
// to a uniform grid, psi from the free-space Poisson solve, u = curl psi, and their derivatives.
//
// Vortex-in-cell (Christiansen 1973; Cottet and Koumoutsakos 2000, ch. 3): vorticity spread to
// the grid with trilinear weights, lap psi = -omega solved in free space, u = curl psi and grad u
// by central differences, all interpolated back with the same weights. Vortons are reached in
// cell order through a counting sort's permutation, each node gathering from the 8 cells around
// it, so every sum has a fixed order and results do not depend on the thread count.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/buffer.hpp"
#include "solvers/common/cell_sort.hpp"
#include "solvers/vortex/poisson.hpp"
#include "solvers/vortex/vortex_engine.hpp"
#include "solvers/vortex/vortex_simd.hpp"

namespace fs::vortex {

// Kernel-launching members are public: nvcc's host-device lambdas may not be defined in private
// members.
template <class Exec>
class VortexInCell {
public:
    static constexpr MemorySpace kSpace = Exec::space;

    // The grid's shape and spacing: the last one built, or one carried over from another backend
    // (build keeps it while the particles fit it).
    const VicGrid& grid() const { return grid_; }
    void set_grid(const VicGrid& g) { grid_ = g; }
    // Whether the grid holds this step's fields; build sets it, invalidate clears it.
    bool built() const { return built_; }
    // Whether grad T and lap T are on the grid.
    bool has_heat() const { return has_heat_; }
    void invalidate() { built_ = has_heat_ = false; }

    // The spread vorticity (3 blocks of nodes) and the temperature at the nodes.
    View<const double> vorticity() const { return wgrid_.cview(); }
    View<const double> temperature() const { return tgrid_.cview(); }
    // The temperature excess a vorton of volume h^3 at each node needs to hold the heat spread there.
    View<const double> heat() const { return hgrid_.cview(); }
    // grad T (3 blocks) and lap T (the 4th), when has_heat().
    View<const double> temperature_derivatives() const { return gradt_.cview(); }

    // Spreads the vortons' vorticity and temperature on a grid covering every vorton, and every
    // tracer when the tracers take their velocity from it (c.tracer_method); with `solve`, also
    // psi, u, and the derivatives the configuration asks for (grad T and lap T only with `heat`:
    // the buoyancy stage reads them from the step's first velocity evaluation alone).
    void build(Exec& exec, const Config& c, View<const dvec3> vp, View<const dvec3> omega, View<const double> radius,
               View<const double> vtemp, View<const dvec3> tp, bool solve,
               const std::vector<BodyShape>& bodies = {}, View<const BodyShape> body_view = {}, bool heat = true) {
        // The grid covers the particles it serves with a margin of two nodes: the vortons (whose
        // vorticity it spreads, whose temperature buoyancy reads) and the tracers only when they
        // read their velocity from it (tracers by the direct sum do not stretch it).
        const Box3Op box_op;
        const int vortons = vp.size, tracers = c.tracer_method == kGrid ? tp.size : 0;
        const Box3 empty{dvec3(1e300), dvec3(-1e300)};
        const Box3 vbox =
            exec.transform_reduce(vortons, empty, FS_LAMBDA(int i) { return Box3{vp[i], vp[i]}; }, box_op);
        Box3 box = vbox;
        if (tracers > 0)
            box = box_op(box, exec.transform_reduce(tracers, empty,
                                                    FS_LAMBDA(int i) { return Box3{tp[i], tp[i]}; }, box_op));
        const dvec3 ext = box.hi - box.lo;
        const double longest = std::max({ext.x, ext.y, ext.z});
        if (!std::isfinite(longest)) return;  // the stats report the non-finite particle
        constexpr int kMargin = 2;
        VicGrid g;
        // The spacing follows the core: the grid's field is the direct sum's smoothed on h, the
        // direct sum's on sigma, so their difference is set by h / sigma (measured in
        // tests/test_vortex_grid.cpp: about 5% RMS at h = sigma in the body scenes). Only where
        // that spacing would need more than grid_cells nodes along the longest extent does h grow.
        const double h_core = c.grid_spacing * c.core_radius;
        const double h_raw = std::max(longest / std::max(1, c.grid_cells - 1 - 2 * kMargin), h_core);
        // h on a ladder of ratio 2^(1/8) from h_core, and sizes rounded up to even numbers of the
        // form 2^a 3^b 5^c: consecutive steps then mostly share one grid shape and spacing, so the
        // Poisson solver reuses its FFT plans and kernel transform, and the doubled FFT lengths
        // have only the small prime factors FFTs are fastest for.
        const double rung = std::ceil(8.0 * std::log2(h_raw / h_core));
        g.h = h_core * std::exp2(rung / 8.0);
        // One rung of hysteresis: the last grid's spacing, one rung coarser than needed, is kept.
        // A cloud whose extent sits at a rung's edge otherwise flips between two spacings, and
        // where the scene remeshes (the vortons take their cores from h) every remesh made the
        // vortons alternately finer and coarser: the Magnus scene without tracers held 5 748 and
        // 7 360 vortons by turns. (Nodes on a lattice through the origin as well, tried, left
        // remeshed vortons on nodes, so a later remesh no longer smoothed them, and the sphere's
        // wake grew again: 21 J in 450 steps against 1.6.)
        const VicGrid& last = grid_;
        if (last.h > g.h && std::fabs(8.0 * std::log2(last.h / h_core) - (rung + 1.0)) < 1e-9) g.h = last.h;
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
        sort_.build(exec, g.cells(), vortons, FS_LAMBDA(int i) { return g.cell_of(vp[i]); });
        auto order = sort_.order();
        auto start = sort_.cell_start();
        auto w = wgrid_.resized(3 * static_cast<std::size_t>(nodes));
        auto tg = tgrid_.resized(static_cast<std::size_t>(nodes));
        auto hg = hgrid_.resized(static_cast<std::size_t>(nodes));
        const double inv_h3 = 1.0 / (g.h * g.h * g.h), t0 = c.ambient_temperature, overlap = c.core_overlap;
        // What each node reads of a vorton, once a vorton and in cell order: its place in its
        // cell, volume, vorticity and temperature excess. (Each vorton is read by 8 nodes; they
        // located it 8 times and gathered its fields from creation order.)
        auto items = spread_.resized(static_cast<std::size_t>(vortons));
        exec.parallel_for(vortons, FS_LAMBDA(int s) {
            const int p = order[s];
            int pi, pj, pk;
            SpreadItem it;
            g.locate(vp[p], pi, pj, pk, it.f);
            it.omega = omega[p];
            it.vol = vorton_volume(radius[p], overlap);
            it.excess = vtemp[p] - t0;
            items[s] = it;
        });
        // Only the nodes of the cells that hold vortons can gather any (locate is monotone, so the
        // cells of the vortons' box's corners bound theirs); the others, most of a grid that also
        // covers the tracers, take what an empty gather gives, zero vorticity and heat and the
        // ambient temperature, without visiting 8 empty cells each.
        int lo[3], hi[3];
        {
            dvec3 f;
            g.locate(vbox.lo, lo[0], lo[1], lo[2], f);
            g.locate(vbox.hi, hi[0], hi[1], hi[2], f);
        }
        const int ilo = lo[0], jlo = lo[1], klo = lo[2], ihi = hi[0] + 1, jhi = hi[1] + 1, khi = hi[2] + 1;
        exec.parallel_for(nodes, FS_LAMBDA(int nd) {
            int i, j, k;
            g.node_ijk(nd, i, j, k);
            if (i < ilo || i > ihi || j < jlo || j > jhi || k < klo || k > khi) {
                w[nd] = w[nodes + nd] = w[2 * nodes + nd] = 0.0;
                tg[nd] = t0;
                hg[nd] = 0.0;
                return;
            }
            dvec3 a(0.0);
            double tw = 0.0, vw = 0.0;
            for (int dc = 0; dc < 2; ++dc)
                for (int db = 0; db < 2; ++db)
                    for (int da = 0; da < 2; ++da) {
                        const int ci = i - da, cj = j - db, ck = k - dc;
                        if (ci < 0 || cj < 0 || ck < 0 || ci > g.nx - 2 || cj > g.ny - 2 || ck > g.nz - 2) continue;
                        const int cell = g.cell_index(ci, cj, ck);
                        for (int s = start[cell]; s < start[cell + 1]; ++s) {
                            const SpreadItem it = items[s];
                            const double wt = cic_weight(it.f, da, db, dc);
                            a += (wt * it.vol) * it.omega;
                            tw += wt * it.vol * it.excess;
                            vw += wt * it.vol;
                        }
                    }
            w[nd] = a.x * inv_h3;
            w[nodes + nd] = a.y * inv_h3;
            w[2 * nodes + nd] = a.z * inv_h3;
            // Temperature: the volume-weighted mean of the vortons near the node, fading to the
            // ambient one where they cover less than a tenth of a cell.
            tg[nd] = t0 + tw / max_of(vw, 0.1 * g.h * g.h * g.h);
            // The heat itself, for the remesh: a vorton of volume h^3 at the node with this
            // temperature excess carries what the spreading gave the node, so remeshing keeps it.
            hg[nd] = tw * inv_h3;
        });
        built_ = true;
        if (!solve) return;
        // The turning polytopes' own vorticity (BodyShape::held; a sphere's joins the velocity by
        // add_held's formula instead, held_by_formula), spread evenly over the nodes inside each,
        // for the Poisson solve only: the solve reads a copy of the grid with it added, so the
        // diffusion term (lap omega) and the remesh see the fluid's vorticity alone, bit for bit.
        const double* source = w.data;
        for (int b = 0; b < static_cast<int>(bodies.size()); ++b) {
            if (bodies[b].kind == kNoBody || glm::length(bodies[b].held) == 0.0 || held_by_formula(bodies[b])) continue;
            auto inside = [g, body_view, b] FS_HD(int nd) {
                int i, j, k;
                g.node_ijk(nd, i, j, k);
                return inside_body(body_view[b], g.origin + g.h * dvec3(i, j, k));
            };
            const int count = exec.transform_reduce(nodes, 0, FS_LAMBDA(int nd) { return inside(nd) ? 1 : 0; },
                                                    [] FS_HD(int a, int c2) { return a + c2; });
            if (count == 0) continue;
            if (source == w.data) {
                auto copy = wsolve_.resized(3 * static_cast<std::size_t>(nodes));
                mem_copy(copy.data, kSpace, w.data, kSpace, 3 * static_cast<std::size_t>(nodes) * sizeof(double));
                source = copy.data;
            }
            auto ws = wsolve_.view();
            const dvec3 each = bodies[b].held / (count * g.h * g.h * g.h);
            exec.parallel_for(nodes, FS_LAMBDA(int nd) {
                if (!inside(nd)) return;
                ws[nd] += each.x;
                ws[nodes + nd] += each.y;
                ws[2 * nodes + nd] += each.z;
            });
        }

        if (!poisson_) poisson_ = Exec::backend == Backend::Cuda ? make_poisson_cuda() : make_poisson_cpu();
        // The kernel is smoothed with the vortons' mean core, so the grid's field is the direct
        // sum's regularised one, and divided by the trilinear spreading's and interpolation's
        // filter (sharpen: Hockney and Eastwood 1988, sec. 7-5), which would otherwise blur each
        // core by a variance of h^2/3 along each axis: at h = sigma that halves the grid's RMS
        // difference from the direct sum (tests/test_vortex_grid.cpp).
        const double mean_core =
            exec.transform_reduce(vortons, 0.0, FS_LAMBDA(int i) { return radius[i]; },
                                  [] FS_HD(double a, double b) { return a + b; }) /
            vortons;
        auto psi = psigrid_.resized(3 * static_cast<std::size_t>(nodes));
        // Only where the core smooths the grid's shortest waves (h <= sigma): the filter's inverse
        // grows to 230 at the grid's corner wave number, and on the plate-and-flames scene's
        // coarser grid (h = 1.5 sigma) the amplified short waves ran the plume away at step 603.
        const bool sharpen = g.h <= 1.0001 * mean_core;
        poisson_->solve(g.nx, g.ny, g.nz, g.h, source, psi.data, mean_core, sharpen);

        // u = curl psi at the nodes, by fourth-order differences (node_derivative4): the second-order
        // ones' error is (h / sigma)^2 / 6 relative for a field varying on the core.
        auto u = ugrid_.resized(3 * static_cast<std::size_t>(nodes));
        auto uv = uvec_.resized(static_cast<std::size_t>(nodes));
        const double* ps = psi.data;
        exec.parallel_for(nodes, FS_LAMBDA(int nd) {
            int i, j, k;
            g.node_ijk(nd, i, j, k);
            const double* px = ps;
            const double* py = ps + nodes;
            const double* pz = ps + 2 * nodes;
            u[nd] = node_derivative4(g, pz, i, j, k, 1) - node_derivative4(g, py, i, j, k, 2);
            u[nodes + nd] = node_derivative4(g, px, i, j, k, 2) - node_derivative4(g, pz, i, j, k, 0);
            u[2 * nodes + nd] = node_derivative4(g, py, i, j, k, 0) - node_derivative4(g, px, i, j, k, 1);
            uv[nd] = dvec3(u[nd], u[nodes + nd], u[2 * nodes + nd]);
        });
        // What the other stages read: grad u (component 3a + b = d u_a / d x_b) and lap omega
        // for vortons on the grid; grad T and lap T for buoyancy and heat diffusion.
        const double* uu = u.data;
        const double* ww = w.data;
        // At the nodes only where vortons outnumber an eighth of the nodes: otherwise
        // interpolate_to_vortons differentiates at the 8 nodes around each vorton, fewer
        // evaluations of the same stencils, in the same order (the same bits either way).
        derivatives_at_nodes_ = c.velocity_method == kGrid && 8 * std::size_t(vortons) >= std::size_t(nodes);
        if (derivatives_at_nodes_) {
            auto gu = gradu_.resized(9 * static_cast<std::size_t>(nodes));
            auto lw = lapw_.resized(3 * static_cast<std::size_t>(nodes));
            exec.parallel_for(nodes, FS_LAMBDA(int nd) {
                int i, j, k;
                g.node_ijk(nd, i, j, k);
                for (int a = 0; a < 3; ++a) {
                    for (int b = 0; b < 3; ++b)
                        gu[(3 * a + b) * nodes + nd] = node_derivative(g, uu + a * nodes, i, j, k, b);
                    lw[a * nodes + nd] = node_laplacian(g, ww + a * nodes, i, j, k);
                }
            });
        }
        has_heat_ = heat && (c.buoyancy || c.thermal_diffusivity > 0.0);
        if (has_heat_) {
            auto gt = gradt_.resized(4 * static_cast<std::size_t>(nodes));
            const double* tt = tg.data;
            exec.parallel_for(nodes, FS_LAMBDA(int nd) {
                int i, j, k;
                g.node_ijk(nd, i, j, k);
                for (int a = 0; a < 3; ++a) gt[a * nodes + nd] = node_derivative(g, tt, i, j, k, a);
                gt[3 * nodes + nd] = node_laplacian(g, tt, i, j, k);
            });
        }
    }

    // The vortons' velocity, stretching (omega . grad) u, diffusion nu lap omega and psi,
    // interpolated from the grid; and with a non-empty `curl`, curl u from the same grad u.
    void interpolate_to_vortons(Exec& exec, const Config& c, View<const dvec3> pos, View<const dvec3> omega,
                                View<dvec3> vel, View<dvec3> str, View<dvec3> dif, View<dvec3> psi,
                                View<dvec3> curl = {}) {
        const VicGrid g = grid_;
        const double* u = ugrid_.data();
        const double* gu = gradu_.data();
        const double* lw = lapw_.data();
        const double* ps = psigrid_.data();
        const double* w = wgrid_.data();
        const bool at_nodes = derivatives_at_nodes_;
        const double nu = c.viscosity;
        const bool want_curl = curl.size > 0;
        // About 200 ns a vorton (the stencils at 8 nodes): chunks of 32 share the threads even
        // for the thousand vortons parallel_for would run on one.
        exec.parallel_chunks(pos.size, 32, FS_LAMBDA(int i) {
            const dvec3 x = pos[i], wi = omega[i];
            double v[3], d[9], l[3], p[3];
            interpolate<3>(g, u, x, v);
            if (at_nodes) {
                interpolate<9>(g, gu, x, d);
                interpolate<3>(g, lw, x, l);
            } else {
                gradients_at(g, u, w, x, d, l);
            }
            interpolate<3>(g, ps, x, p);
            vel[i] = dvec3(v[0], v[1], v[2]);
            // (omega . grad) u: component a = sum_b omega_b d u_a / d x_b.
            str[i] = dvec3(d[0] * wi.x + d[1] * wi.y + d[2] * wi.z, d[3] * wi.x + d[4] * wi.y + d[5] * wi.z,
                           d[6] * wi.x + d[7] * wi.y + d[8] * wi.z);
            dif[i] = nu * dvec3(l[0], l[1], l[2]);
            psi[i] = dvec3(p[0], p[1], p[2]);
            if (want_curl) curl[i] = dvec3(d[7] - d[5], d[2] - d[6], d[3] - d[1]);
        });
    }

    // grad u (d[3a + b] = d u_a / d x_b) and lap omega interpolated at x from the central
    // differences (node_derivative, node_laplacian) at the 8 nodes around it, as interpolate<9>
    // and interpolate<3> of build's node arrays would give them.
    FS_HDI static void gradients_at(const VicGrid& g, const double* u, const double* w, dvec3 x, double* d,
                                    double* l) {
        int i, j, k;
        dvec3 f;
        g.locate(x, i, j, k, f);
        for (int m = 0; m < 9; ++m) d[m] = 0.0;
        for (int m = 0; m < 3; ++m) l[m] = 0.0;
        const int n = g.nodes();
        for (int c = 0; c < 2; ++c)
            for (int b = 0; b < 2; ++b)
                for (int a = 0; a < 2; ++a) {
                    const double wt = cic_weight(f, a, b, c);
                    for (int p = 0; p < 3; ++p) {
                        for (int q = 0; q < 3; ++q)
                            d[3 * p + q] += wt * node_derivative(g, u + p * n, i + a, j + b, k + c, q);
                    }
                    for (int p = 0; p < 3; ++p) l[p] += wt * node_laplacian(g, w + p * n, i + a, j + b, k + c);
                }
    }

    // The tracers' velocity, interpolated from the grid: eight at a time on hosts with AVX-512F
    // (vortex_simd.hpp, the same bits), in chunks of 64 tracers so that a few thousand still
    // share the threads.
    void interpolate_to_tracers(Exec& exec, View<const dvec3> tpos, View<dvec3> tvel) {
        const VicGrid g = grid_;
        const dvec3* u = uvec_.data();
#if defined(FS_VORTEX_AVX512)
        if constexpr (kSpace == MemorySpace::Host) {
            if (simd::available()) {
                const int n = tpos.size;
                exec.parallel_chunks((n + 7) / 8, 8, [&](int q) {
                    simd::interpolate_vec8(g, u, tpos.data, tvel.data, 8 * q, std::min(8, n - 8 * q));
                });
                return;
            }
        }
#endif
        exec.parallel_for(tpos.size, FS_LAMBDA(int i) { tvel[i] = interpolate_vec(g, u, tpos[i]); });
    }

    // A vorton as the spreading reads it (build).
    struct SpreadItem {
        dvec3 f;      // its fractions in its cell (VicGrid::locate)
        dvec3 omega;  // its vorticity
        double vol;   // its volume (vorton_volume)
        double excess;  // its temperature less the ambient one
    };

private:
    Buffer<SpreadItem> spread_{kSpace};  // the vortons in cell order, for the spreading
    // omega (3 blocks), temperature, psi, u, grad u (9), lap omega (3), grad T + lap T (4).
    Buffer<double> wsolve_{kSpace};  // the Poisson solve's source when a body's own vorticity joins it
    Buffer<double> wgrid_{kSpace}, tgrid_{kSpace}, psigrid_{kSpace}, ugrid_{kSpace}, gradu_{kSpace}, lapw_{kSpace},
        gradt_{kSpace};
    Buffer<dvec3> uvec_{kSpace};  // u again, node after node, for the tracers
    Buffer<double> hgrid_{kSpace};  // heat over each node's cube, sum W V (T - T0) / h^3 (the remesh's)
    VicGrid grid_;
    bool built_ = false;
    bool has_heat_ = false;
    bool derivatives_at_nodes_ = false;  // grad u and lap omega in gradu_ and lapw_
    grid::CellSort<Exec> sort_;
    std::unique_ptr<FreeSpacePoisson> poisson_;
};

}  // namespace fs::vortex
