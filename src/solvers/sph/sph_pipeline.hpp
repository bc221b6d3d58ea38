// The SPH step, written once over an executor (CpuExec or CudaExec). Kernel-launching members
// are public: nvcc's host-device lambdas may not be defined in private members.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "core/buffer.hpp"
#include "core/reduce_ops.hpp"
#include "solvers/common/cell_sort.hpp"
#include "solvers/common/pair_list.hpp"
#include "solvers/sph/sph_boundary_friction.hpp"
#include "solvers/sph/sph_engine.hpp"
#include "solvers/sph/sph_simd.hpp"
#include "solvers/sph/sph_viscosity.hpp"

namespace fs::sph {

template <class Exec>
class Pipeline final : public Engine {
public:
    static constexpr MemorySpace kSpace = Exec::space;

    void upload(const HostState& s) override {
        upload_parts(s, pos_, vel_, offset_, density_, pressure_, kappa_, kind_, id_);
        const std::size_t n = s.pos.size();
        acc_.resize(n);
        neighbors_.resize(n);
        auto acc = acc_.view();
        auto nb = neighbors_.view();
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            acc[i] = dvec2(0.0);
            nb[i] = 0;
        });
        fluid_count_ = static_cast<int>(std::count(s.kind.begin(), s.kind.end(), static_cast<int>(kFluid)));
        fluid_.resize(static_cast<std::size_t>(fluid_count_));
        residual_.resize(static_cast<std::size_t>(fluid_count_));
        auto kappa = kappa_.cview();
        divergence_zero_ =
            exec_.transform_reduce(size(), 0, FS_LAMBDA(int i) { return kappa[i].y != 0.0 ? 1 : 0; }, Plus{}) == 0;
        viscosity_.forget();
    }

    void download(HostState& s) const override {
        download_parts(s, pos_, vel_, offset_, density_, pressure_, kappa_, kind_, id_);
    }

    int size() const override { return static_cast<int>(pos_.size()); }
    std::optional<FieldView> view(std::string_view name) const override {
        const int n = size();
        if (name == "density") return f64_view(density_.data(), n, 1);
        if (name == "pressure") return f64_view(pressure_.data(), n, 1);
        if (name == "kind") return i32_view(kind_.data(), n);
        return motion_view(name, pos_, vel_, id_);
    }

    void run_stage(int stage, const Config& c) override {
        switch (stage) {
            case kNeighborSearch: neighbor_search(c); break;
            case kDensity: density(c); break;
            case kPressure: pressure(c); break;
            case kAccelerations:
                accelerations(c);
                if (c.boundary_viscosity != 1.0) boundary_friction(c);
                break;
            case kIntegrate: integrate(c); break;
            case kBoundary: boundary(c); break;
            case kDivergenceSolve: divergence_solve(c); break;
            case kPressureSolve: pressure_solve(c); break;
            case kViscositySolve: viscosity_solve(c); break;
            default: break;
        }
    }

    // Counting sort by cell (the grid the Euler solver uses, solvers/common), then every
    // per-particle array is permuted into cell order in one pass.
    void neighbor_search(const Config& c) {
        sort_.build(exec_, c.grid, pos_.cview());
        auto order = sort_.order();
        auto pos = pos_.cview();
        auto vel = vel_.cview();
        auto off = offset_.cview();
        auto kind = kind_.cview();
        auto id = id_.cview();
        auto density = density_.cview();
        auto pressure = pressure_.cview();
        auto kappa = kappa_.cview();
        auto pos2 = pos_alt_.resized(static_cast<std::size_t>(size()));
        auto vel2 = vel_alt_.resized(static_cast<std::size_t>(size()));
        auto off2 = offset_alt_.resized(static_cast<std::size_t>(size()));
        auto kind2 = kind_alt_.resized(static_cast<std::size_t>(size()));
        auto id2 = id_alt_.resized(static_cast<std::size_t>(size()));
        auto density2 = density_alt_.resized(static_cast<std::size_t>(size()));
        auto pressure2 = pressure_alt_.resized(static_cast<std::size_t>(size()));
        auto kappa2 = kappa_alt_.resized(static_cast<std::size_t>(size()));
        exec_.parallel_for(size(), FS_LAMBDA(int s) {
            const int i = order[s];
            pos2[s] = pos[i];
            vel2[s] = vel[i];
            off2[s] = off[i];
            kind2[s] = kind[i];
            id2[s] = id[i];
            density2[s] = density[i];
            pressure2[s] = pressure[i];
            kappa2[s] = kappa[i];
        });
        std::swap(pos_alt_, pos_);
        std::swap(vel_alt_, vel_);
        std::swap(offset_alt_, offset_);
        std::swap(kind_alt_, kind_);
        std::swap(id_alt_, id_);
        std::swap(density_alt_, density_);
        std::swap(pressure_alt_, pressure_);
        std::swap(kappa_alt_, kappa_);
    }

    grid::Neighbors2 neighbors(const Config& c) const {
        return {c.grid, false, sort_.cell_start(), pos_.cview()};
    }

    // the WCSPH assignment, 2.1: rho_i = sum_j m_j W(|x_i - x_j|, h), over fluid and boundary neighbours
    // and the particle itself; the implicit solvers' stage also finds alpha_i and the kernel
    // gradients (dfsph_density_stage).
    void density(const Config& c) {
        if (implicit_pressure(c.solver)) return dfsph_density_stage(c);
        density_and_lists(c);
    }

    // WCSPH's density stage. The same search records every particle's neighbours (the
    // boundary's too, for pressure mirroring) for the stages after it.
    void density_and_lists(const Config& c) {
        const auto nb = neighbors(c);
        const int cap = list_capacity(c);
        neighbor_list_.resize(static_cast<std::size_t>(size()) * static_cast<std::size_t>(cap));
        auto list = neighbor_list_.view();
        auto pos = pos_.cview();
        auto kind = kind_.cview();
        auto rho = density_.view();
        auto count = neighbors_.view();
        const CubicSpline<double> k{c.h};
        const double m = c.mass, h2 = c.h * c.h;
#if defined(FS_SPH_AVX512)
        if (simd_) {  // sph_simd.hpp, kLaneBlock particles at a time
            const int n = size();
            exec_.parallel_chunks((n + kLaneBlock - 1) / kLaneBlock, kLaneChunk, [=](int b) {
                simd::density_block(nb, b * kLaneBlock, std::min(n, (b + 1) * kLaneBlock), k, h2, m, list.data, cap,
                                    kind.data, rho.data, count.data);
            });
            return;
        }
#endif
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            const dvec2 xi = pos[i];
            int* row = list.data + static_cast<long long>(i) * cap;
            // Locals, not the closure's members: the row's int stores could alias those, and the
            // loop reloaded them after every store.
            const CubicSpline<double> kernel = k;
            const double reach2 = h2;
            const int room = cap;
            double sum = kernel.W(0.0);
            int near = 0;
            nb.for_each(i, [&](int j) {
                const dvec2 d = xi - pos[j];
                const double r2 = d.x * d.x + d.y * d.y;
                if (r2 < reach2) {
                    sum += kernel.W_within(std::sqrt(r2));
                    if (near < room) row[near] = j;
                    ++near;
                }
            });
            if (kind[i] == kFluid) rho[i] = m * sum;
            count[i] = near;
        });
    }

    // DFSPH's density stage (sph_kernels.hpp, dfsph_density): each fluid particle's density,
    // factor alpha_i, and neighbours with their kernel gradients; boundary particles need no list
    // (they are not solved for) and read as rest density.
    void dfsph_density_stage(const Config& c) {
        list_fluid();
        const auto nb = neighbors(c);
        const int cap = list_capacity(c);
        const std::size_t slots = static_cast<std::size_t>(size()) * static_cast<std::size_t>(cap);
        neighbor_list_.resize(slots);
        grad_list_.resize(slots);
        alpha_.resize(static_cast<std::size_t>(size()));
        auto sums = grad_sum_.resized(static_cast<std::size_t>(size()));
        auto push = push_.resized(static_cast<std::size_t>(size()));
        auto list = neighbor_list_.view();
        auto grads = grad_list_.view();
        auto alpha = alpha_.view();
        auto pos = pos_.cview();
        auto kind = kind_.cview();
        auto count = neighbors_.view();
        auto rho = density_.view();
        auto p = pressure_.view();
        const CubicSpline<double> k{c.h};
        const Config cfg = c;
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            if (kind[i] == kFluid) return;
            alpha[i] = 0.0;
            count[i] = 0;
            sums[i] = dvec2(0.0);
            push[i] = dvec2(0.0);
            rho[i] = cfg.rho0;
            p[i] = 0.0;
        });
        auto fluid = fluid_.cview();
        exec_.parallel_slices(fluid_count_, kSliceLeast, FS_LAMBDA(int t) {
            const int i = fluid[t];
            const long long row = static_cast<long long>(i) * cap;
            const DensityAlpha d =
                dfsph_density(cfg, k, nb, i, pos.data, kind.data, list.data + row, grads.data + row, cap);
            rho[i] = d.rho;
            alpha[i] = d.alpha;
            count[i] = d.count;
            sums[i] = d.sum;
            push[i] = d.push;
        });
    }

    // fluid_: the fluid particles' indices in cell order (after neighbor_search), for the
    // implicit solvers' loops, which then neither visit the boundary particles nor split the
    // work unevenly between threads (in cell order the boundary's cheap particles lie bunched:
    // measured in sph_dam_break at t = 0.3 s, 57% of the fluid's neighbours in one half of the
    // arrays).
    void list_fluid() {
        auto kind = kind_.cview();
        auto slot = fluid_slot_.resized(static_cast<std::size_t>(size()));
        exec_.parallel_for(size(), FS_LAMBDA(int i) { slot[i] = kind[i] == kFluid ? 1 : 0; });
        exec_.exclusive_scan(fluid_slot_.cview(), slot);
        auto fluid = fluid_.view();
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            if (kind[i] == kFluid) fluid[slot[i]] = i;
        });
    }

    GradList grad_list(const Config& c) const {
        return {neighbor_list(c), grad_list_.cview(), CubicSpline<double>{c.h}};
    }

    // The neighbour lists' row length. WCSPH: room for the neighbours of a particle at up to 60%
    // compression (2D: pi (h/spacing)^2 neighbours at rest), and a few more. The implicit solvers
    // hold the density within 0.1%: their rows follow the most neighbours any particle had at the
    // last step, plus kRowMargin (sums()), at most WCSPH's. Their solves read the rows several times
    // a step, and rows mostly empty cost cache: with 29 entries for about 12 neighbours,
    // `sph_dam_break` on one thread took 2.57 s a simulated second, with 16, 1.85 s (two threads:
    // 1.07 s and 1.02-1.09 s). A particle with more than a row holds is read through the grid
    // instead, in the same order and with the same sums (GradList::sum, dfsph_density): the row's
    // length changes no bit of the results.
    static int most_neighbors(const Config& c) {
        const double f = c.h / c.spacing;
        return static_cast<int>(std::ceil(3.14159265358979 * f * f * 1.6)) + 8;
    }
    static constexpr int kRowMargin = 4;
    int list_capacity(const Config& c) const {
        return implicit_pressure(c.solver) && implicit_row_ > 0 ? implicit_row_ : most_neighbors(c);
    }

    NeighborList neighbor_list(const Config& c) const {
        return {neighbors(c), neighbor_list_.cview(), neighbors_.cview(), list_capacity(c), c.h * c.h};
    }

    // the WCSPH assignment, 2.2: Tait pressure for the fluid (after the clamp rho = max(rho0, rho) of its
    // debugging tips); boundary particles get density rho0 and pressure 0 (2.4), or with
    // pressure mirroring (Adami, Hu and Adams 2012, eq. 27) the pressure extrapolated from the
    // fluid around them, hydrostatics included:
    //   p_b = (sum_f p_f W_bf + g . sum_f rho_f (x_b - x_f) W_bf) / sum_f W_bf,
    // and the density that pressure means by the inverse Tait equation.
    void pressure(const Config& c) {
        auto kind = kind_.cview();
        auto rho = density_.view();
        auto p = pressure_.view();
        const double rho0 = c.rho0, B = c.B, gamma = c.gamma;
        const bool clamp = c.clamp_density;
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            if (kind[i] == kFluid) {
                if (clamp && rho[i] < rho0) rho[i] = rho0;
                p[i] = tait_pressure(rho[i], rho0, B, gamma);
            } else {
                rho[i] = rho0;
                p[i] = 0.0;
            }
        });
        if (c.boundary_model != kPressureMirroring) return;
        const auto nb = neighbor_list(c);
        auto pos = pos_.cview();
        const CubicSpline<double> k{c.h};
        const dvec2 g = c.gravity;
        // In chunks: the work lies in the boundary particles alone, bunched in cell order, and a
        // tank of a few thousand particles is under CpuExec::kSerialBelow.
        exec_.parallel_chunks(size(), 128, FS_LAMBDA(int b) {
            if (kind[b] == kFluid) return;
            const dvec2 xb = pos[b];
            double sw = 0.0, spw = 0.0;
            dvec2 srw(0.0);
            nb.for_each(b, [&](int f) {
                if (kind[f] != kFluid) return;
                const dvec2 d = xb - pos[f];
                const double w = k.W(std::sqrt(d.x * d.x + d.y * d.y));
                sw += w;
                spw += p[f] * w;
                srw += (rho[f] * w) * d;
            });
            if (sw > 0.0) {
                const double pb = std::max(0.0, (spw + g.x * srw.x + g.y * srw.y) / sw);
                p[b] = pb;
                rho[b] = tait_density(pb, rho0, B, gamma);
            }
        });
    }

    // the WCSPH assignment, 2.3 and 2.5: a_i = g + sum_j pair_acceleration (pressure + artificial viscosity).
    void accelerations(const Config& c) {
        if (implicit_pressure(c.solver)) return viscous_accelerations(c);
        const auto nb = neighbor_list(c);
        auto pos = pos_.cview();
        auto vel = vel_.cview();
        auto kind = kind_.cview();
        auto rho = density_.cview();
        auto p = pressure_.cview();
        auto acc = acc_.view();
        // Each particle's density and p/rho^2 side by side: a neighbour's two in one load.
        auto rp_out = rho_p_.resized(static_cast<std::size_t>(size()));
        exec_.parallel_for(size(), FS_LAMBDA(int i) { rp_out[i] = dvec2(rho[i], pressure_over_rho2(p[i], rho[i])); });
        auto rp = rho_p_.cview();
        const Config cfg = c;
        const CubicSpline<double> k{c.h};
#if defined(FS_SPH_AVX512)
        if (simd_) {  // sph_simd.hpp, kLaneBlock particles at a time
            const int n = size();
            exec_.parallel_chunks((n + kLaneBlock - 1) / kLaneBlock, kLaneChunk, [=](int b) {
                simd::acceleration_block(cfg, k, nb, b * kLaneBlock, std::min(n, (b + 1) * kLaneBlock), pos.data,
                                         vel.data, rp.data, kind.data, acc.data);
            });
            return;
        }
#endif
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            acc[i] = kind[i] != kFluid ? dvec2(0.0) : fluid_acceleration(cfg, k, nb, i, pos.data, vel.data, rp.data);
        });
    }

    // The walls' viscosity at boundary_viscosity times the fluid's (sph_boundary_friction.hpp).
    void boundary_friction(const Config& c) {
        const auto nb = neighbor_list(c);
        auto pos = pos_.cview();
        auto vel = vel_.cview();
        auto kind = kind_.cview();
        auto rho = density_.cview();
        auto acc = acc_.view();
        const Config cfg = c;
        const CubicSpline<double> k{c.h};
        const double extra = c.boundary_viscosity - 1.0;
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            if (kind[i] != kFluid) return;
            acc[i] += extra * boundary_viscous_acceleration(cfg, k, nb, i, pos.data, vel.data, rho.data, kind.data);
        });
    }

    // DFSPH's non-pressure accelerations: gravity and viscosity (sph_kernels.hpp).
    void viscous_accelerations(const Config& c) {
        const auto gl = grad_list(c);
        auto pos = pos_.cview();
        auto vel = vel_.cview();
        auto kind = kind_.cview();
        auto rho = density_.cview();
        auto acc = acc_.view();
        auto fluid = fluid_.cview();
        const Config cfg = c;
        const bool implicit = c.viscosity_solver == kImplicitViscosity;  // then viscosity_solve adds it
        exec_.parallel_slices(fluid_count_, kSliceLeast, FS_LAMBDA(int t) {
            const int i = fluid[t];
            acc[i] = implicit ? cfg.gravity : viscous_acceleration(cfg, gl, i, pos.data, vel.data, rho.data, kind.data);
        });
    }

    // Weiler et al. 2018's implicit viscosity (sph_viscosity.hpp): adds (v* - v) / dt to acc.
    void viscosity_solve(const Config& c) {
        if (c.viscosity_solver != kImplicitViscosity || !(kinematic_viscosity(c.alpha, c.h, c.c_s) > 0.0)) {
            report_.viscosity_iterations = 0;
            report_.viscosity_residual = 0.0;
            return;
        }
        const auto [iterations, residual] =
            viscosity_.run(exec_, c, grad_list(c), size(), fluid_.cview(), fluid_count_, pos_.cview(), vel_.cview(),
                           density_.cview(), kind_.cview(), id_.cview(), acc_.view());
        report_.viscosity_iterations = iterations;
        report_.viscosity_residual = residual;
    }

    // Semi-implicit (symplectic) Euler, as the assignment: v += dt a, then x += dt v; a hand
    // that pushes or pulls adds its velocity change first (solvers/common/hands.hpp). DFSPH's
    // pressure solve has already brought the velocities to the step's end: x += dt v alone.
    void integrate(const Config& c) {
        auto pos = pos_.view();
        auto vel = vel_.view();
        auto acc = acc_.cview();
        auto kind = kind_.cview();
        const double dt = c.dt;
        const HandForce<dvec2> hand = c.hand;
        if (implicit_pressure(c.solver)) {
            auto fluid = fluid_.cview();
            exec_.parallel_slices(fluid_count_, kSliceLeast, FS_LAMBDA(int t) {
                const int i = fluid[t];
                pos[i] += dt * vel[i];
            });
            return;
        }
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            if (kind[i] != kFluid) return;
            vel[i] += dt * acc[i];
            vel[i] += hand.dv(pos[i], vel[i], dt);
            pos[i] += dt * vel[i];
        });
    }

    // DFSPH, Bender & Koschier 2017, Algorithm 1, "correctDensityError": the velocities predicted
    // with the non-pressure forces (and a hand's push), then pressures that leave the positions
    // x + dt v at rest density. The pressure field shows p = rho^2 (P_density + P_divergence).
    void pressure_solve(const Config& c) {
        auto pos = pos_.cview();
        auto vel = vel_.view();
        auto acc = acc_.cview();
        auto fluid = fluid_.cview();
        const double dt = c.dt;
        const HandForce<dvec2> hand = c.hand;
        exec_.parallel_slices(fluid_count_, kSliceLeast, FS_LAMBDA(int t) {
            const int i = fluid[t];
            vel[i] += dt * acc[i];
            vel[i] += hand.dv(pos[i], vel[i], dt);
        });
        const auto [iterations, residual] = jacobi_solve(c, 0, c.density_tolerance, 1);
        report_.density_iterations = iterations;
        report_.density_residual = residual;
        auto rho = density_.cview();
        auto kappa = kappa_.cview();
        auto p = pressure_.view();
        exec_.parallel_slices(fluid_count_, kSliceLeast, FS_LAMBDA(int t) {
            const int i = fluid[t];
            p[i] = rho[i] * rho[i] * (kappa[i].x + kappa[i].y);
        });
    }

    // DFSPH, Bender & Koschier 2017, Algorithm 1, "correctDivergenceError" (there at the end of
    // a step, after the neighbour search; here at the start of the next, after the same search:
    // the same order of work): pressures that make the velocity field free of compression.
    void divergence_solve(const Config& c) {
        const auto [iterations, residual] = jacobi_solve(c, 1, c.divergence_tolerance, 0);
        report_.divergence_iterations = iterations;
        report_.divergence_residual = residual;
        // No update, and a start from zero (or none): the pressures are still all zero.
        divergence_zero_ = iterations == 0 && (c.warm_start == 0.0 || divergence_zero_);
    }

    // The projected Jacobi iteration both solves share (sph_kernels.hpp) on the pressures
    // P = kappa.x (part 0, the density solve) or kappa.y (part 1, the divergence solve): a
    // fraction c.warm_start of the last step's applied first, then updates until the mean change
    // left is within tolerance rho0 (at least `least` updates, at most c.max_iterations). The
    // density change each removes: dt D rho / Dt, plus rho - rho0 for the density solve. Returns
    // the updates made and the residual left.
    std::pair<int, double> jacobi_solve(const Config& c, int part, double tolerance, int least) {
        const auto gl = grad_list(c);
        auto vel = vel_.cview();
        auto kind = kind_.cview();
        auto alpha = alpha_.cview();
        auto rho = density_.cview();
        auto kappa = kappa_.view();
        auto dP = dP_.resized(static_cast<std::size_t>(size()));
        auto sums = grad_sum_.cview();
        const Config cfg = c;
        const double dt = c.dt, warm = c.warm_start;
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            double& P = part == 0 ? kappa[i].x : kappa[i].y;
            dP[i] = kind[i] == kFluid ? warm * P : 0.0;
            P = 0.0;
        });
        // The warm start's push, unless the pressures it would apply are known to be zero (the
        // divergence solve's, in every bundled scene: its tolerance holds without an update, and
        // this pass over the neighbours would change nothing).
        if (warm > 0.0 && !(part == 1 && divergence_zero_)) apply_pressures(c, part);
        double residual = 0.0;
        int iterations = 0;
        auto fluid = fluid_.cview();
        auto res = residual_.view();
        const int nf = fluid_count_;
        for (;; ++iterations) {
            // Each fluid particle's update and residual, then their mean (the sum a pass of its
            // own: a reduction's fixed blocks would split a few thousand particles unevenly).
            exec_.parallel_slices(nf, kSliceLeast, FS_LAMBDA(int t) {
                const int i = fluid[t];
                double change = dt * density_rate(cfg, gl, i, vel.data, sums[i]);
                if (part == 0) change += rho[i] - cfg.rho0;
                const JacobiUpdate u =
                    jacobi_update(part == 0 ? kappa[i].x : kappa[i].y, change, alpha[i], dt, cfg.relaxation);
                dP[i] = u.dP;
                res[t] = u.residual;
            });
            auto done = residual_.cview();
            const double sum = exec_.transform_reduce(nf, 0.0, FS_LAMBDA(int t) { return done[t]; }, Plus{});
            residual = nf > 0 ? sum / (nf * cfg.rho0) : 0.0;
            if ((iterations >= least && residual <= tolerance) || iterations >= cfg.max_iterations) break;
            apply_pressures(c, part);
        }
        return {iterations, residual};
    }

    // v_i += dt a_i(dP) (sph_kernels.hpp), and P += dP.
    void apply_pressures(const Config& c, int part) {
        const auto gl = grad_list(c);
        auto vel = vel_.view();
        auto fluid = fluid_.cview();
        auto kappa = kappa_.view();
        auto dP = dP_.cview();
        auto push = push_.cview();
        const Config cfg = c;
        const double dt = c.dt;
        exec_.parallel_slices(fluid_count_, kSliceLeast, FS_LAMBDA(int t) {
            const int i = fluid[t];
            vel[i] += dt * pressure_acceleration(cfg, gl, i, dP.data, push[i]);
            (part == 0 ? kappa[i].x : kappa[i].y) += dP[i];
        });
    }

    SolveReport solve_report() const override { return report_; }

    // The barrier follows its angle (the WCSPH assignment, 3: E/Q rotate it): x = centre + R(angle) offset.
    // Turning, it moves quasi-statically; dragged by a hand, its particles carry the drag's
    // velocity into the viscosity term, as the walls' velocity enters it for moving boundaries
    // (Adami, Hu and Adams 2012, section 2.3, without their extrapolated no-slip velocity).
    void boundary(const Config& c) {
        auto pos = pos_.view();
        auto vel = vel_.view();
        auto off = offset_.cview();
        auto kind = kind_.cview();
        const dvec2 centre = c.barrier_center, v = c.barrier_velocity;
        const double cs = std::cos(c.barrier_angle), sn = std::sin(c.barrier_angle);
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            if (kind[i] != kBarrier) return;
            const dvec2 o = off[i];
            pos[i] = centre + dvec2(cs * o.x - sn * o.y, sn * o.x + cs * o.y);
            vel[i] = v;
        });
    }

    Sums sums(const Config& c) override {
        auto vel = vel_.cview();
        auto pos = pos_.cview();
        auto kind = kind_.cview();
        auto rho = density_.cview();
        auto p = pressure_.cview();
        auto count = neighbors_.cview();
        auto acc = acc_.cview();
        const double m = c.mass, rho0 = c.rho0, h = c.h;
        const dvec2 box_lo = c.grid.origin;
        const dvec2 box_hi = c.grid.origin + dvec2(c.grid.nx / c.grid.inv_cell.x, c.grid.ny / c.grid.inv_cell.y);
        const Sums total = exec_.transform_reduce(
            size(), Sums{},
            FS_LAMBDA(int i) {
                Sums s;
                const dvec2 x = pos[i], v = vel[i];
                s.nonfinite = not_finite(x, v);
                s.neighbors_max = count[i];
                if (kind[i] != kFluid) return s;
                s.set_motion(m, v);
                s.max_accel2 = acc[i].x * acc[i].x + acc[i].y * acc[i].y;
                s.density_sum = rho[i];
                s.compression_sum = rho[i] > rho0 ? rho[i] - rho0 : 0.0;
                s.density_max_error = (rho[i] - rho0) / rho0;
                s.pressure_max = p[i];
                if (x.y < h) s.front_x = x.x;
                s.neighbors = count[i];
                s.fluid = 1;
                s.outside = (x.x < box_lo.x || x.y < box_lo.y || x.x > box_hi.x || x.y > box_hi.y) ? 1 : 0;
                return s;
            },
            SumsOp{});
        // The implicit solvers' next rows (list_capacity); at least the neighbours at rest.
        const double f = c.h / c.spacing;
        const int rest = static_cast<int>(std::ceil(3.14159265358979 * f * f));
        implicit_row_ = std::clamp(total.neighbors_max + kRowMargin, rest, most_neighbors(c));
        return total;
    }

    std::vector<std::pair<int, int>> neighbor_pairs(const Config& c, bool use_grid) override {
        if (use_grid) {
            neighbor_search(c);
            return list_pairs(neighbors(c), c.h);
        }
        return list_pairs(grid::AllPairs{size()}, c.h);
    }

    // Pairs (id_i < id_j) of particles closer than h, found through `nb`.
    template <class Nb>
    std::vector<std::pair<int, int>> list_pairs(const Nb nb, double h) {
        auto pos = pos_.cview();
        auto id = id_.cview();
        const double h2 = h * h;
        return grid::collect_pairs(exec_, size(), nb, id, [=] FS_HD(int i, int j) {
            const dvec2 d = pos[i] - pos[j];
            return d.x * d.x + d.y * d.y < h2;
        });
    }

    void synchronize() override { exec_.synchronize(); }

    // Whether the density and force stages take sph_simd.hpp's eight-lane loops (on by default
    // where the host has them; the tests compare both ways).
    bool simd() const { return simd_; }
    // The last force stage's accelerations (for the tests).
    View<const dvec2> accelerations_view() const { return acc_.cview(); }
    void set_simd(bool on) { simd_ = on && kSpace == MemorySpace::Host && simd::available(); }

private:
    // Particles a call of sph_simd.hpp's stage loops takes (their constants and a cell's runs set
    // up once for them).
    static constexpr int kLaneBlock = 4;
    // The implicit solvers' per-fluid-particle loops run in parallel from this many particles
    // (CpuExec::parallel_slices): an item is a pass over its neighbours, 50-100 ns.
    static constexpr int kSliceLeast = 512;
    // Calls a task takes: a block costs a fifth of a microsecond, and a scene of a few thousand
    // particles (a thousand blocks, under CpuExec::kSerialBelow) ran them all on one core
    // (sph_hydrostatic's density stage: 0.214 ms on one thread or two).
    static constexpr int kLaneChunk = 16;
    Exec exec_;
    bool simd_ = kSpace == MemorySpace::Host && simd::available();
    // Particles in cell order after neighbor_search (id_ says who is who).
    Buffer<dvec2> pos_{kSpace}, vel_{kSpace}, acc_{kSpace}, offset_{kSpace};
    Buffer<double> density_{kSpace}, pressure_{kSpace};
    Buffer<dvec2> rho_p_{kSpace};  // (rho, p / rho^2) of each particle, for the force stage
    // Each particle's neighbours within h: the count, and the list (list_capacity() a particle).
    Buffer<int> kind_{kSpace}, id_{kSpace}, neighbors_{kSpace}, neighbor_list_{kSpace};
    int implicit_row_ = 0;  // the implicit solvers' row length (list_capacity), 0: WCSPH's
    Buffer<dvec2> pos_alt_{kSpace}, vel_alt_{kSpace}, offset_alt_{kSpace};
    Buffer<double> density_alt_{kSpace}, pressure_alt_{kSpace};
    // DFSPH: each particle's pressures (density solve, divergence solve; p / rho^2), the kernel
    // gradients beside the neighbour list, each particle's factor alpha.
    Buffer<dvec2> kappa_{kSpace}, kappa_alt_{kSpace}, grad_list_{kSpace};
    Buffer<double> alpha_{kSpace};
    Buffer<double> dP_{kSpace};  // an iteration's pressure updates
    Buffer<dvec2> grad_sum_{kSpace}, push_{kSpace};  // each fluid particle's, from dfsph_density
    SolveReport report_;
    bool divergence_zero_ = false;  // every divergence pressure (kappa_.y) is zero
    // The fluid particles' indices in cell order (list_fluid), their number, and an iteration's
    // residual each.
    Buffer<int> fluid_{kSpace}, fluid_slot_{kSpace};
    Buffer<double> residual_{kSpace};
    int fluid_count_ = 0;
    Buffer<int> kind_alt_{kSpace}, id_alt_{kSpace};
    grid::CellSort<Exec> sort_;
    ViscositySolve<Exec> viscosity_;
};

}  // namespace fs::sph
