// The optimal-transport liquid's step, written once over an executor (CpuExec or CudaExec).
// Member functions that launch kernels are public: nvcc's host-device lambdas may not be defined
// in private or protected members.
#pragma once

#include <algorithm>
#include <chrono>
#include <utility>
#include <cmath>
#include <vector>

#include "core/buffer.hpp"
#include "core/memory.hpp"
#include "core/reduce_ops.hpp"
#include "solvers/common/cell_sort.hpp"
#include "solvers/ot/ot_engine.hpp"
#include "solvers/ot/ot_multigrid.hpp"

namespace fs::ot {

template <class Exec>
class Pipeline final : public Engine {
public:
    static constexpr MemorySpace kSpace = Exec::space;

    void upload(const HostState& s) override {
        upload_parts(s, pos_, vel_, weight_, target_, density_, id_, weight_prev_);
        const std::size_t n = s.pos.size();
        extrapolate_ = n > 0 && weight_prev_.size() == n;
        for (Buffer<double>* b : {&area_, &second_, &self_, &trial_, &rhs_, &x_, &r_, &z_, &p_, &ap_}) b->resize(n);
        centroid_.resize(n);
        vel_old_.resize(n);
        edges_.resize(n);
        overflow_.resize(n);
        nbr_.resize(n * kMaxEdges);
        coef_.resize(n * kMaxEdges);
        weight_prev_.resize(n);
        cells_valid_ = false;
    }

    void download(HostState& s) const override {
        download_parts(s, pos_, vel_, weight_, target_, density_, id_, weight_prev_);
        if (!extrapolate_) s.weight_prev.clear();
    }

    int size() const override { return static_cast<int>(pos_.size()); }
    std::optional<FieldView> view(std::string_view name) const override {
        const int n = size();
        if (name == "density") return f64_view(density_.data(), n, 1);
        if (name == "weight") return f64_view(weight_.data(), n, 1);
        return motion_view(name, pos_, vel_, id_);
    }

    void run_stage(int stage, const Config& c, double tolerance, int max_newton) override {
        switch (stage) {
            case kAdvect: advect(c); break;
            case kTransport: transport(c, tolerance, max_newton); break;
            case kPressure: pressure(c); break;
            case kForces: forces(c); break;
            default: break;
        }
    }
    const TransportReport& report() const override { return report_; }

    // Gallouet & Merigot 2018, eq. (1.6): x^{n+1} = x^n + dt v^n. Kept inside the box (the
    // cells are the box's: a particle outside it has no place in them) by mirroring the overshoot
    // at the wall it crossed. Clamped onto the wall instead, two particles that crossed at a
    // corner landed on the same point, and no weights give two coincident particles each its area:
    // measured, ot_dam_break failed at t = 1.24 s and ot_rayleigh_taylor at t = 1.38 s so. A mirror
    // keeps distinct particles distinct.
    void advect(const Config& c) {
        const double dt = c.dt;
        const dvec2 lo = c.lo, hi = c.hi;
        auto pos = pos_.view();
        auto vel = vel_.cview();
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            const dvec2 x = pos[i] + dt * vel[i];
            pos[i] = dvec2(mirror_into(x.x, lo.x, hi.x), mirror_into(x.y, lo.y, hi.y));
        });
        cells_valid_ = false;
    }

    // The scheme's pressure (Gallouet & Merigot 2018, eq. (1.6), with the mass of each cell):
    // the cell's centroid pulls its particle, v += dt (c_i - x_i) rho_pull / (eps^2 rho_i): the
    // gradient of the squared distance to the incompressible configurations, (rho_pull / eps^2)
    // times it the pressure force on the cell, per unit mass. The force per area must be the same
    // multiple of the offset in every cell (it is the gradient of one pressure, the weights' w / 2
    // times rho_pull / eps^2, continuous across the interface), so the liquids differ only in
    // their mass; rho_pull sets the one multiple (OtSolver::on_upload).
    void pressure(const Config& c) {
        if (!cells_valid_) transport(c, 1e300, 0);  // cells at the current weights
        const double k = c.dt * c.rho_pull / (c.epsilon * c.epsilon);
        auto vel = vel_.view();
        auto pos = pos_.cview();
        auto cen = centroid_.cview();
        auto rho = density_.cview();
        exec_.parallel_for(size(), FS_LAMBDA(int i) { vel[i] += (k / rho[i]) * (cen[i] - pos[i]); });
    }

    // Gravity, and viscosity between neighbouring cells: the finite-volume Laplacian on the
    // cells (the flux across the edge between i and j is mu l_ij (v_j - v_i) / |x_j - x_i|, as in
    // the Voronoi-mesh schemes of Springel 2010, sec. 3), with mu_ij = nu (rho_i + rho_j) / 2, so
    // the forces of a pair are equal and opposite and momentum is kept. Explicit (the solver
    // refuses a viscosity whose nu dt is too large for that, at reset).
    // Gravity acts per mass as g (1 - rho_ref / rho_i) (Config::rho_ref). A hand that pushes or
    // pulls adds its velocity change afterwards (solvers/common/hands.hpp).
    void forces(const Config& c) {
        gravity_and_viscosity(c);
        if (!c.hand.on) return;
        auto vel = vel_.view();
        auto pos = pos_.cview();
        const HandForce<dvec2> hand = c.hand;
        const double dt = c.dt;
        exec_.parallel_for(size(), FS_LAMBDA(int i) { vel[i] += hand.dv(pos[i], vel[i], dt); });
    }

    void gravity_and_viscosity(const Config& c) {
        const dvec2 dv = c.dt * c.gravity;
        const double rho_ref = c.rho_ref;
        auto vel = vel_.view();
        auto rho = density_.cview();
        if (!(c.viscosity > 0.0)) {
            exec_.parallel_for(size(), FS_LAMBDA(int i) { vel[i] += (1.0 - rho_ref / rho[i]) * dv; });
            return;
        }
        if (!cells_valid_) transport(c, 1e300, 0);
        // The step's velocities become the old ones by a swap of buffers (no copy).
        std::swap(vel_, vel_old_);
        vel = vel_.view();
        auto v0 = vel_old_.cview();
        auto edges = edges_.cview();
        auto nbr = nbr_.cview();
        auto coef = coef_.cview();
        auto target = target_.cview();
        const double k = c.dt * c.viscosity;
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            dvec2 f(0.0);
            for (int e = 0; e < edges[i]; ++e) {
                const int j = nbr[i * kMaxEdges + e];
                // coef = l / (2 d): the Hessian's weight (hessian_weight).
                f += (coef[i * kMaxEdges + e] * (rho[i] + rho[j])) * (v0[j] - v0[i]);
            }
            vel[i] = v0[i] + (1.0 - rho_ref / rho[i]) * dv + (k / (rho[i] * target[i])) * f;
        });
    }

    static constexpr int kCellChunk = 16;

    // Every cell at weights `w`: area, centroid, second moment about its particle, and the
    // Hessian's row (the neighbours across its edges and their weights). Returns the number of
    // cells that overflowed.
    long long compute_cells(const Config& config, View<const double> w) {
        const Config c = with_weight_max(config, w);
        const CellSearch search = cell_search(c, w);
        auto area = area_.view();
        auto second = second_.view();
        auto self = self_.view();
        auto cen = centroid_.view();
        auto edges = edges_.view();
        auto nbr = nbr_.view();
        auto coef = coef_.view();
        auto pos = pos_.cview();
        const Config cc = c;
        auto overflow = overflow_.view();
        // A loop, then a sum of the flags. In chunks: a cell costs microseconds, so a 2D scene's
        // thousand or so share the cores (a plain loop of fewer than CpuExec::kSerialBelow runs on
        // one).
        exec_.parallel_chunks(size(), kCellChunk, FS_LAMBDA(int i) {
                Poly p;
                int tests = 0;
                const bool ok = search.cell(i, cc, p, tests);
                const bool disk = cc.free_surface;
                const double r = disk && w[i] > 0.0 ? sqrt(w[i]) : 0.0;
                const Moments m = moments(p, pos[i], disk, r);
                area[i] = m.area;
                cen[i] = m.centroid;
                second[i] = m.second;
                self[i] = disk && r > 0.0 ? m.arc / (2.0 * r) : 0.0;
                int e = 0;
                for (int k = 0; k < p.n && ok; ++k) {
                    const int j = p.tag[k];
                    if (j < 0) continue;
                    const double l = edge_length(p.v[k], p.v[(k + 1) % p.n], pos[i], disk, r);
                    if (!(l > 0.0)) continue;
                    nbr[i * kMaxEdges + e] = j;
                    coef[i * kMaxEdges + e] = hessian_weight(l, pos[i], pos[j]);
                    ++e;
                }
                edges[i] = e;
                overflow[i] = ok ? 0 : 1;
            });
        auto flags = overflow_.cview();
        return exec_.transform_reduce(size(), 0LL, FS_LAMBDA(int i) { return static_cast<long long>(flags[i]); }, Plus{});
    }

    // y = H x with H the Hessian of the areas in the weights (hessian_weight), plus a shift that
    // pins the constant (without a free surface the areas do not change when every weight does).
    void hessian_times(View<const double> x, View<double> y, double shift) {
        auto start = row_start_.cview();
        auto edges = edges_.cview();
        auto nbr = packed_nbr_.cview();
        auto coef = packed_coef_.cview();
        auto self = self_.cview();
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            double s = (shift + self[i]) * x[i];
            for (int e = 0; e < edges[i]; ++e) s += coef[start[i] + e] * (x[i] - x[nbr[start[i] + e]]);
            y[i] = s;
        });
    }

    // The Hessian's rows as compute_cells left them (kMaxEdges apart, a few used: 6 on average),
    // packed end to end for the solve, which passes over them three times a CG iteration. Rows
    // 64 entries apart touch a cache line and a page of their own each: a pass over 10^4 rows
    // took 5 times as long as over the packed rows (measured on 2 cores). The same pairs in the
    // same order, so the products are the same to the bit.
    void pack_rows() {
        const int n = size();
        auto edges = edges_.cview();
        const long long total = exec_.transform_reduce(n, 0LL, FS_LAMBDA(int i) { return static_cast<long long>(edges[i]); }, Plus{});
        auto start = row_start_.resized(static_cast<std::size_t>(n));
        exec_.exclusive_scan(edges, start);
        if (packed_nbr_.size() < static_cast<std::size_t>(total)) {
            packed_nbr_.resize(static_cast<std::size_t>(total));
            packed_coef_.resize(static_cast<std::size_t>(total));
        }
        auto nbr = nbr_.cview();
        auto coef = coef_.cview();
        auto pnbr = packed_nbr_.view();
        auto pcoef = packed_coef_.view();
        auto st = row_start_.cview();
        exec_.parallel_for(n, FS_LAMBDA(int i) {
            for (int e = 0; e < edges[i]; ++e) {
                pnbr[st[i] + e] = nbr[i * kMaxEdges + e];
                pcoef[st[i] + e] = coef[i * kMaxEdges + e];
            }
        });
    }

    double dot(View<const double> a, View<const double> b) {
        return exec_.transform_reduce(size(), 0.0, FS_LAMBDA(int i) { return a[i] * b[i]; }, Plus{});
    }

    // Solves H x = rhs_ by conjugate gradients preconditioned with an aggregation multigrid
    // V-cycle (ot_multigrid.hpp), as far as the Newton step needs (inexact Newton, Dembo,
    // Eisenstat & Steihaug 1982): the residual r = T - A - H x is what the areas' errors become to
    // first order, so the solve stops once every |r_i| / T_i is a quarter of the Newton tolerance
    // (or the residual's norm is 1e-10 of where it began); the damped Newton's test on the areas
    // then decides. Measured at 1e5 cells: 108 CG iterations a step to a fixed 1e-6 relative
    // residual, 74 with this test. Returns the iterations.
    int solve_newton_system(const Config& c, double shift, double tolerance) {
        const int n = size();
        pack_rows();
        typename AggregationMultigrid<Exec>::Fine f;
        f.n = n;
        f.start = row_start_.cview();
        f.edges = edges_.cview();
        f.nbr = packed_nbr_.cview();
        f.coef = packed_coef_.cview();
        f.self = self_.cview();
        f.shift = shift;
        f.grid = c.grid;
        f.cell_start = sort_.cell_start();
        f.order = sort_.order();
        f.pos = pos_.cview();
        mg_.setup(exec_, f);
        auto x = x_.view();
        auto r = r_.view();
        auto z = z_.view();
        auto p = p_.view();
        auto rhs = rhs_.cview();
        exec_.parallel_for(n, FS_LAMBDA(int i) {
            x[i] = 0.0;
            r[i] = rhs[i];
        });
        const double b2 = dot(rhs_.cview(), rhs_.cview());
        if (b2 == 0.0) return 0;
        mg_.apply(exec_, r_.cview(), z_.view());
        exec_.parallel_for(n, FS_LAMBDA(int i) { p[i] = z[i]; });
        double rz = dot(r_.cview(), z_.cview());
        int it = 0;
        auto ap = ap_.view();
        for (; it < 10 * n + 100; ++it) {
            hessian_times(p_.cview(), ap_.view(), shift);
            const double pap = dot(p_.cview(), ap_.cview());
            if (!(pap > 0.0)) break;
            const double alpha = rz / pap;
            exec_.parallel_for(n, FS_LAMBDA(int i) {
                x[i] += alpha * p[i];
                r[i] -= alpha * ap[i];
            });
            const Residual res = residual();
            if (res.worst <= 0.25 * tolerance || res.norm2 <= 1e-20 * b2) {
                ++it;
                break;
            }
            mg_.apply(exec_, r_.cview(), z_.view());
            const double rz_new = dot(r_.cview(), z_.cview());
            const double beta = rz_new / rz;
            rz = rz_new;
            exec_.parallel_for(n, FS_LAMBDA(int i) { p[i] = z[i] + beta * p[i]; });
        }
        return it;
    }

    // The CG residual's squared norm and its largest |r_i| / T_i, in one pass.
    struct Residual {
        double norm2 = 0.0, worst = 0.0;
    };
    struct ResidualOp {
        FS_HDI Residual operator()(const Residual& a, const Residual& b) const {
            Residual s;
            s.norm2 = a.norm2 + b.norm2;
            s.worst = a.worst > b.worst ? a.worst : b.worst;
            return s;
        }
    };
    Residual residual() {
        auto r = r_.cview();
        auto target = target_.cview();
        return exec_.transform_reduce(
            size(), Residual{},
            FS_LAMBDA(int i) {
                Residual e;
                e.norm2 = r[i] * r[i];
                e.worst = fabs(r[i]) / target[i];
                return e;
            },
            ResidualOp{});
    }

    // The areas' errors at the cells just computed: rhs = T - A (the Newton system's right-hand
    // side), and the largest relative error and the smallest area.
    struct AreaError {
        double max_rel = 0.0, norm2 = 0.0, min_area = 0.0;
    };
    struct AreaErrorOp {
        FS_HDI AreaError operator()(const AreaError& a, const AreaError& b) const {
            AreaError s;
            s.max_rel = a.max_rel > b.max_rel ? a.max_rel : b.max_rel;
            s.norm2 = a.norm2 + b.norm2;
            s.min_area = a.min_area < b.min_area ? a.min_area : b.min_area;
            return s;
        }
    };
    AreaError area_error() {
        auto area = area_.cview();
        auto target = target_.cview();
        auto rhs = rhs_.view();
        AreaError init;
        init.min_area = 1e300;
        return exec_.transform_reduce(
            size(), init,
            FS_LAMBDA(int i) {
                AreaError e;
                const double f = target[i] - area[i];
                rhs[i] = f;
                e.max_rel = fabs(f) / target[i];
                e.norm2 = f * f;
                e.min_area = area[i];
                return e;
            },
            AreaErrorOp{});
    }

    // compute_cells, its time added to the report's (the split of a Newton iteration's cost).
    long long timed_cells(const Config& c, View<const double> w) {
        const auto t0 = std::chrono::steady_clock::now();
        const long long overflow = compute_cells(c, w);
        ++report_.cell_passes;
        report_.cells_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        return overflow;
    }

    // Damped Newton on the weights so that every cell has its target area (Kitagawa, Merigot &
    // Thibert 2019, Algorithm 1): from the last step's weights, solve H d = T - A, then take the
    // largest step 2^-k d that keeps every cell at least a0 = min(min T, min A(w0)) / 2 in area
    // and shrinks the error's norm by the factor (1 - 2^-k / 2). Stops at a largest relative area
    // error of `tolerance`; more than `max_newton` iterations is a failure (report_.converged).
    void transport(const Config& c, double tolerance, int max_newton) {
        report_ = TransportReport{};
        sort_.build(exec_, c.grid, pos_.cview());
        const bool extrapolate = max_newton > 0 && extrapolate_;
        if (max_newton > 0) {
            // Newton starts from the last two steps' weights extrapolated, w_n + (w_n - w_n-1):
            // the weights follow the pressure, which changes smoothly from step to step, so the
            // start's area error is of second order in dt instead of first (measured over
            // ot_tutorial's first 2 s: 3.65 -> 3.30 Newton iterations a step, 48 -> 44 CG
            // iterations). weight_prev_ keeps w_n for the next step, and for the fallback below.
            // (After a change of dt the extrapolation is off by the steps' ratio; Newton corrects
            // it like any start.)
            auto w = weight_.view();
            auto prev = weight_prev_.view();
            exec_.parallel_for(size(), FS_LAMBDA(int i) {
                const double wn = w[i];
                if (extrapolate) w[i] = wn + (wn - prev[i]);
                prev[i] = wn;
            });
        }
        report_.overflow = timed_cells(c, weight_.cview());
        AreaError err = area_error();
        if (extrapolate && (report_.overflow > 0 || !(err.min_area > 0.0))) {
            // An extrapolation that empties a cell: the last step's weights after all.
            auto w = weight_.view();
            auto prev = weight_prev_.cview();
            exec_.parallel_for(size(), FS_LAMBDA(int i) { w[i] = prev[i]; });
            report_.overflow = timed_cells(c, weight_.cview());
            err = area_error();
        }
        cells_valid_ = true;
        if (max_newton > 0) {
            extrapolate_ = false;  // until this step's Newton converges without a restart
            // A few cells emptied by the particles' moves (a splash: one particle overtaken by
            // another): their weights raised just enough that each holds its particle, instead
            // of Newton over from equal weights for every cell (measured: 221 of ot_dam_break's
            // first 400 steps began so, each about 11 passes over the cells).
            // Neighbours raised together can empty each other again: a few rounds.
            for (int round = 0; round < 3 && report_.overflow == 0 && !(err.min_area > 0.0); ++round) {
                if (!repair_empty_cells(c)) break;
                report_.overflow = timed_cells(c, weight_.cview());
                err = area_error();
            }
        }
        // Damped Newton needs every cell non-empty at its start (a0 > 0 below; an empty cell's
        // row of the Hessian is zero). When the last step's weights leave one empty, start from
        // equal weights.
        if (max_newton > 0 && (report_.overflow > 0 || !(err.min_area > 0.0))) {
            if (!restart_from_equal_weights(c, err)) return;
        }
        report_.max_area_error = err.max_rel;
        if (report_.overflow > 0) return;
        if (err.max_rel <= tolerance) {
            extrapolate_ = max_newton > 0 && !report_.restarted;
            return;
        }
        // A line search that finds no step from the last step's weights (measured: ot_dam_break
        // at t = 0.9 s, where a splash's cell had shrunk to a sliver, its Hessian row near zero:
        // thirty halvings and no step) starts over once from equal weights, as for an empty cell.
        while (!damped_newton(c, tolerance, max_newton, err)) {
            if (report_.restarted || !report_.converged) return;
            if (!restart_from_equal_weights(c, err)) return;
            report_.max_area_error = err.max_rel;
            if (report_.overflow > 0 || err.max_rel <= tolerance) return;
        }
        extrapolate_ = !report_.restarted;
    }

    // Each empty cell's weight raised to its dominance (CellSearch::dominance) plus a tenth of
    // the weight that would give its particle its target area as a lone disk (pi w = T), so
    // that it holds its particle with a margin; the other weights stay. Returns whether any was
    // empty.
    bool repair_empty_cells(const Config& config) {
        auto w = weight_.cview();
        const Config c = with_weight_max(config, w);
        const CellSearch search = cell_search(c, w);
        auto area = area_.cview();
        auto target = target_.cview();
        auto trial = trial_.view();
        const double weight_max = c.weight_max;
        const long long empty = exec_.transform_reduce(
            size(), 0LL,
            FS_LAMBDA(int i) {
                trial[i] = w[i];
                if (area[i] > 0.0) return 0LL;
                const double margin = 0.1 * target[i] / 3.14159265358979323846;
                trial[i] = fmax(w[i], fmax(search.dominance(i, weight_max), 0.0) + margin);
                return 1LL;
            },
            Plus{});
        if (empty == 0) return false;
        auto out = weight_.view();
        auto t = trial_.cview();
        exec_.parallel_for(size(), FS_LAMBDA(int i) { out[i] = t[i]; });
        return true;
    }

    // Equal weights: the Voronoi cells of distinct particles are never empty (with a free
    // surface, equal weights of a disk as large as the largest target: each cell keeps the part
    // of its disk nearer to it than to any other particle). False when a cell is still empty
    // (coincident particles: no weights give both a cell), reported.
    bool restart_from_equal_weights(const Config& c, AreaError& err) {
        double w_equal = 0.0;
        if (c.free_surface) {
            auto target = target_.cview();
            w_equal = exec_.transform_reduce(size(), 0.0, FS_LAMBDA(int i) { return target[i]; }, Largest{}) /
                      3.14159265358979323846;
        }
        auto w0 = weight_.view();
        exec_.parallel_for(size(), FS_LAMBDA(int i) { w0[i] = w_equal; });
        report_.restarted = true;
        report_.overflow = timed_cells(c, weight_.cview());
        err = area_error();
        if (report_.overflow == 0 && !(err.min_area > 0.0)) {
            report_.empty_cells = true;
            report_.converged = false;
            report_.max_area_error = err.max_rel;
            return false;
        }
        return true;
    }

    // The iterations from the weights in weight_ (their area error `err`). True when they reach
    // the tolerance; false with report_.converged false after max_newton iterations, or with
    // converged still true when a line search found no step (the caller may start over).
    bool damped_newton(const Config& c, double tolerance, int max_newton, AreaError& err) {
        double min_target = 1e300;
        {
            auto target = target_.cview();
            min_target = exec_.transform_reduce(size(), 1e300, FS_LAMBDA(int i) { return target[i]; }, Smallest{});
        }
        const double a0 = 0.5 * std::min(min_target, err.min_area);
        const double shift = 1e-12 * (err.norm2 > 0 ? 1.0 : 0.0);
        auto w = weight_.view();
        auto trial = trial_.view();
        auto d = x_.cview();
        while (err.max_rel > tolerance) {
            if (report_.newton_iterations >= max_newton) {
                report_.converged = false;
                return false;
            }
            ++report_.newton_iterations;
            {
                const auto t0 = std::chrono::steady_clock::now();
                report_.cg_iterations += solve_newton_system(c, shift, tolerance);
                exec_.synchronize();
                report_.solve_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            }
            double step = 1.0;
            AreaError next;
            for (int halving = 0;; ++halving) {
                // No step (under 2^-12 of Newton's before a restart: such a step leaves the error
                // where it is, and each try costs a pass over the cells; 2^-30 after one): the
                // caller starts over once; a second time it is a failure.
                if (halving > (report_.restarted ? 30 : 12)) {
                    report_.converged = !report_.restarted;
                    if (report_.restarted) report_.max_area_error = err.max_rel;
                    // The cells as the weights left them (the trial's are the last tried).
                    report_.overflow = timed_cells(c, weight_.cview());
                    return false;
                }
                const double s = step;
                exec_.parallel_for(size(), FS_LAMBDA(int i) { trial[i] = w[i] + s * d[i]; });
                report_.overflow = timed_cells(c, trial_.cview());
                next = area_error();
                // Accepted (Kitagawa, Merigot & Thibert 2019, Algorithm 1) when every cell keeps
                // a0 and the error falls enough. Their rule, |e'| <= (1 - t/2) |e|, is Armijo's
                // sufficient decrease on |e|^2 / 2 with c about 1/2; this takes c = 0.1,
                // |e'|^2 <= (1 - 2 c t) |e|^2 (Nocedal & Wright 2006, sec. 11.2, Algorithm 11.4's
                // backtracking on the merit function): a full step that cuts the error by 40%
                // passes instead of being halved (measured, ot_dam_break steps 101-200: 2.12 ->
                // 0.74 halvings a step, 10.6 -> 8.7 passes over the cells). The tolerance the
                // iterations stop at is the same.
                if (report_.overflow == 0 && next.min_area >= a0 && next.norm2 <= (1.0 - 0.2 * step) * err.norm2)
                    break;
                step *= 0.5;
                ++report_.step_halvings;
            }
            exec_.parallel_for(size(), FS_LAMBDA(int i) { w[i] = trial[i]; });
            err = next;
            report_.max_area_error = err.max_rel;
        }
        return true;
    }

    Sums sums(const Config& c) override {
        if (!cells_valid_) transport(c, 1e300, 0);
        auto pos = pos_.cview();
        auto vel = vel_.cview();
        auto rho = density_.cview();
        auto target = target_.cview();
        auto area = area_.cview();
        auto second = second_.cview();
        const dvec2 g = c.gravity;
        const double k_eps = c.rho_pull / (2.0 * c.epsilon * c.epsilon);
        const double mode_k = c.mode_k, rho_min = c.rho_min, rho_ref = c.rho_ref;
        return exec_.transform_reduce(
            size(), Sums{},
            FS_LAMBDA(int i) {
                Sums s;
                const double m = rho[i] * target[i];  // a cell's mass: its density times its area
                const dvec2 v = vel[i], x = pos[i];
                s.set_motion(m, v);
                // The potential of the force forces() applies (a constant apart from the true one
                // when rho_ref > 0: the box's fixed area times rho_ref g . its centroid).
                s.potential_energy = -(rho[i] - rho_ref) * target[i] * (g.x * x.x + g.y * x.y);
                s.transport_energy = k_eps * second[i];
                s.area = area[i];
                s.max_area_error = fabs(area[i] - target[i]) / target[i];
                s.mode = mode_k > 0.0 && rho[i] > rho_min ? target[i] * x.y * cos(mode_k * x.x) : 0.0;
                s.nonfinite = not_finite(x, v);
                return s;
            },
            SumsOp{});
    }

    void cells(const Config& c, std::vector<dvec2>& vertices, std::vector<int>& start,
               std::vector<double>& radius) override {
        sort_.build(exec_, c.grid, pos_.cview());
        const int n = size();
        // The window asks every frame: the buffers stay (a fresh n x kMaxEdges one cost 10 MB of
        // page faults a frame in ot_rayleigh_taylor), and on the host they are read in place.
        auto vv = drawn_vertices_.resized(static_cast<std::size_t>(n) * kMaxEdges);
        auto cnt = drawn_counts_.resized(static_cast<std::size_t>(n));
        auto w = weight_.cview();
        const Config cc = with_weight_max(c, w);
        const CellSearch search = cell_search(cc, w);
        exec_.parallel_for(n, FS_LAMBDA(int i) {
            Poly p;
            int tests = 0;
            const bool ok = search.cell(i, cc, p, tests);
            cnt[i] = ok ? p.n : 0;
            for (int k = 0; k < p.n && ok; ++k) vv[i * kMaxEdges + k] = p.v[k];
        });
        const dvec2* all = drawn_vertices_.data();
        const int* counts = drawn_counts_.data();
        if constexpr (kSpace != MemorySpace::Host) {
            drawn_vertices_.copy_to_host(drawn_host_vertices_);
            drawn_counts_.copy_to_host(drawn_host_counts_);
            all = drawn_host_vertices_.data();
            counts = drawn_host_counts_.data();
        }
        weight_.copy_to_host(radius);
        for (double& r : radius) r = c.free_surface ? std::sqrt(std::max(r, 0.0)) : 0.0;
        vertices.clear();
        start.assign(1, 0);
        for (int i = 0; i < n; ++i) {
            for (int k = 0; k < counts[i]; ++k)
                vertices.push_back(all[static_cast<std::size_t>(i) * kMaxEdges + static_cast<std::size_t>(k)]);
            start.push_back(static_cast<int>(vertices.size()));
        }
    }

    void cell_fields(std::vector<double>& area, std::vector<dvec2>& centroid) const override {
        area_.copy_to_host(area);
        centroid_.copy_to_host(centroid);
    }

    void synchronize() override { exec_.synchronize(); }

    // The config for cells at weights w: the security radius needs their largest.
    Config with_weight_max(const Config& config, View<const double> w) {
        Config c = config;
        c.weight_max = size() > 0 ? exec_.transform_reduce(size(), -1e300, FS_LAMBDA(int i) { return w[i]; }, Largest{})
                                  : 0.0;
        return c;
    }

    // The search over the sorted particles (sort_ built for the current positions).
    CellSearch cell_search(const Config& c, View<const double> w) const {
        return CellSearch{c.grid, sort_.cell_start(), sort_.order(), pos_.cview(), w};
    }

private:
    Exec exec_;
    Buffer<dvec2> pos_{kSpace}, vel_{kSpace}, centroid_{kSpace}, vel_old_{kSpace};
    // cells(): the polygons the window draws, kept from call to call (and their host copies on CUDA).
    Buffer<dvec2> drawn_vertices_{kSpace};
    Buffer<int> drawn_counts_{kSpace};
    std::vector<dvec2> drawn_host_vertices_;
    std::vector<int> drawn_host_counts_;
    Buffer<double> weight_{kSpace}, target_{kSpace}, density_{kSpace};
    // The last step's solved weights, and whether the next transport may extrapolate from them
    // (not after a restart, nor after an upload without them: HostState::weight_prev).
    Buffer<double> weight_prev_{kSpace};
    bool extrapolate_ = false;
    Buffer<int> id_{kSpace};
    // The cells as the last computation left them, and the Hessian's rows (kMaxEdges a cell).
    Buffer<double> area_{kSpace}, second_{kSpace}, self_{kSpace};  // self_: d A_i / d w_i from the arc
    Buffer<int> edges_{kSpace}, nbr_{kSpace}, overflow_{kSpace};
    Buffer<double> coef_{kSpace};
    // The same rows packed for the Newton solve (pack_rows): row i from row_start_[i].
    Buffer<int> row_start_{kSpace}, packed_nbr_{kSpace};
    Buffer<double> packed_coef_{kSpace};
    // Newton and CG: trial weights, right-hand side, solution, residual, preconditioned residual,
    // direction, H p.
    Buffer<double> trial_{kSpace}, rhs_{kSpace}, x_{kSpace}, r_{kSpace}, z_{kSpace}, p_{kSpace}, ap_{kSpace};
    grid::CellSort<Exec> sort_;
    AggregationMultigrid<Exec> mg_;
    TransportReport report_;
    bool cells_valid_ = false;
};

}  // namespace fs::ot
