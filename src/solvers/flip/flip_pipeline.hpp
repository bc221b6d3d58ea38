// The FLIP step, written once over an executor (CpuExec or CudaExec). Kernel-launching members
// are public: nvcc's host-device lambdas may not be defined in private members.
//
// Transfers gather rather than scatter: particles are sorted by cell (the counting sort of the
// particle solvers), and each face sums the particles of the cells within the kernel's reach in
// a fixed order. No floating-point atomics, so the result does not depend on scheduling.
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "core/buffer.hpp"
#include "solvers/common/cell_sort.hpp"
#include "solvers/flip/flip_engine.hpp"
#include "solvers/flip/pressure.hpp"

namespace fs::flip {

template <class Exec>
class Pipeline final : public Engine {
public:
    static constexpr MemorySpace kSpace = Exec::space;

    void upload(const HostState& s) override {
        pos_.copy_from_host(s.pos);
        vel_.copy_from_host(s.vel);
        id_.copy_from_host(s.id);
        for (int a = 0; a < 3; ++a) {
            if (s.affine[a].size() == s.pos.size())
                affine_[a].copy_from_host(s.affine[a]);
            else
                affine_[a].resize(0);
        }
    }
    void download(HostState& s) const override {
        pos_.copy_to_host(s.pos);
        vel_.copy_to_host(s.vel);
        id_.copy_to_host(s.id);
        for (int a = 0; a < 3; ++a) affine_[a].copy_to_host(s.affine[a]);
    }
    int size() const override { return static_cast<int>(pos_.size()); }

    void run_stage(int stage, const Config& c, const PressureSettings& ps) override {
        ensure_grid(c.grid);
        switch (stage) {
            case kAdvect: advect(c); break;
            case kP2G: p2g(c); break;
            case kBodyForces: body_forces(c); break;
            case kOccupancy: occupancy(c); break;
            case kDivergence: divergence(c); break;
            case kPressureSolve: pressure_solve(c, ps); break;
            case kPressureGradient: pressure_gradient(c); break;
            case kG2P: g2p(c); break;
            default: break;
        }
    }

    void ensure_grid(const MacGrid& g) {
        if (g.nx == grid_.nx && g.ny == grid_.ny && g.nz == grid_.nz) return;
        grid_ = g;
        const std::size_t cells = static_cast<std::size_t>(g.cells());
        type_.resize(cells);
        pressure_.resize(cells);
        div_.resize(cells);
        div_after_.resize(cells);
        rhs_.resize(cells);
        for (int a = 0; a < 3; ++a) {
            const auto n = static_cast<std::size_t>(Faces::of(g, a).count());
            face_[a].resize(n);
            old_[a].resize(n);
            valid_[a].resize(n);
        }
        auto p = pressure_.view();
        auto type = type_.view();
        auto div = div_.view();
        auto div2 = div_after_.view();
        exec_.parallel_for(g.cells(), FS_LAMBDA(int c) {
            p[c] = 0.0;
            type[c] = kAir;
            div[c] = 0.0;
            div2[c] = 0.0;
        });
        for (int a = 0; a < 3; ++a) {
            auto f = face_[a].view();
            auto o = old_[a].view();
            auto v = valid_[a].view();
            exec_.parallel_for(f.size, FS_LAMBDA(int i) {
                f[i] = 0.0;
                o[i] = 0.0;
                v[i] = 0;
            });
        }
    }

    // seed 001, Advection: x += dt v (forward Euler), then out of the walls and obstacles.
    void advect(const Config& c) {
        auto pos = pos_.view();
        auto vel = vel_.view();
        const Config cfg = c;
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            dvec3 x = pos[i] + cfg.dt * vel[i];
            dvec3 v = vel[i];
            keep_out_of_solids(cfg, x, v);
            pos[i] = x;
            vel[i] = v;
        });
    }

    // The affine vectors exist while the scheme is APIC: sized with the particles (c = 0 when
    // they were not carried, e.g. after switching from pic_flip), released otherwise.
    void ensure_affine(bool apic) {
        const auto n = static_cast<std::size_t>(size());
        for (auto& b : affine_) {
            if (!apic) {
                b.resize(0);
            } else if (b.size() != n) {
                b.resize(n);
                b.fill_zero();
            }
        }
    }

    // seed 001, Particle-to-Grid: each face gets the kernel-weighted average of the velocities
    // of the particles within reach, u_f = sum w_p v_p / sum w_p (a face nobody reaches is
    // invalid); under APIC the velocity each particle gives face f is its affine field there,
    // v_p,a + c_p,a . (x_f - x_p) (Jiang et al. 2015: m_i v_i = sum_p w_ip m_p (v_p + C_p (x_i -
    // x_p)), per MAC component, equal particle masses). First the particles are sorted by cell
    // and permuted into that order.
    void p2g(const Config& c) {
        const MacGrid g = c.grid;
        const bool apic = c.scheme == kApic;
        ensure_affine(apic);
        auto pos = pos_.cview();
        sort_.build(exec_, g.cells(), size(), FS_LAMBDA(int i) { return cell_index(g, pos[i]); });
        auto order = sort_.order();
        auto vel = vel_.cview();
        auto id = id_.cview();
        auto pos2 = pos_alt_.resized(static_cast<std::size_t>(size()));
        auto vel2 = vel_alt_.resized(static_cast<std::size_t>(size()));
        auto id2 = id_alt_.resized(static_cast<std::size_t>(size()));
        // Positions in cell units, once per particle: every face within reach reads them.
        auto at_cells = cell_pos_.resized(static_cast<std::size_t>(size()));
        exec_.parallel_for(size(), FS_LAMBDA(int s) {
            const int i = order[s];
            pos2[s] = pos[i];
            vel2[s] = vel[i];
            id2[s] = id[i];
            at_cells[s] = to_cells(g, pos[i]);
        });
        std::swap(pos_alt_, pos_);
        std::swap(vel_alt_, vel_);
        std::swap(id_alt_, id_);
        if (apic)
            for (auto& b : affine_) sort_.gather(exec_, b, affine_alt_);

        auto start = sort_.cell_start();
        auto p = cell_pos_.cview();
        auto v = vel_.cview();
        const int weights = c.weights;
        const double dx = g.dx;
        for (int a = 0; a < 3; ++a) {
            const Faces faces = Faces::of(g, a);
            auto aff = affine_[a].cview();  // empty unless APIC
            auto out = face_[a].view();
            auto old = old_[a].view();
            auto valid = valid_[a].view();
            exec_.parallel_for(faces.count(), FS_LAMBDA(int f) {
                const ivec3 fc = faces.coords(f);
                const dvec3 at = faces.position(fc);
                const double s = kernel_support(weights);
                // Cells whose particles can reach the face: those overlapping the open interval
                // (at - s, at + s) along each axis (2 x 3 x 3 cells for linear weights).
                const ivec3 lo(static_cast<int>(std::floor(at.x - s)), static_cast<int>(std::floor(at.y - s)),
                               static_cast<int>(std::floor(at.z - s)));
                const ivec3 hi(static_cast<int>(std::ceil(at.x + s)) - 1, static_cast<int>(std::ceil(at.y + s)) - 1,
                               static_cast<int>(std::ceil(at.z + s)) - 1);
                double sum = 0.0, wsum = 0.0;
                for (int k = lo.z > 0 ? lo.z : 0; k <= hi.z && k < g.nz; ++k)
                    for (int j = lo.y > 0 ? lo.y : 0; j <= hi.y && j < g.ny; ++j)
                        for (int i = lo.x > 0 ? lo.x : 0; i <= hi.x && i < g.nx; ++i) {
                            const int cell = g.cell(i, j, k);
                            for (int q = start[cell]; q < start[cell + 1]; ++q) {
                                const dvec3 u = p[q];
                                const double w = kernel_1d(u.x - at.x, weights) * kernel_1d(u.y - at.y, weights) *
                                                 kernel_1d(u.z - at.z, weights);
                                const double va = glm::value_ptr(v[q])[a];  // no switch on a
                                if (apic) {
                                    const dvec3 d = dx * (at - u);  // x_f - x_p
                                    const dvec3 cq = aff[q];
                                    sum += w * (va + cq.x * d.x + cq.y * d.y + cq.z * d.z);
                                } else {
                                    sum += w * va;
                                }
                                wsum += w;
                            }
                        }
                const double value = wsum > 0.0 ? sum / wsum : 0.0;
                out[f] = value;
                old[f] = value;
                valid[f] = wsum > 0.0 ? 1 : 0;
            });
        }
    }

    // seed 001, Body Force: u += dt g on the grid (direction turned by W/A/S/D).
    void body_forces(const Config& c) {
        for (int a = 0; a < 3; ++a) {
            const double dv = c.dt * c.gravity[a];
            if (dv == 0.0) continue;
            auto u = face_[a].view();
            auto valid = valid_[a].cview();
            exec_.parallel_for(u.size, FS_LAMBDA(int f) {
                if (valid[f]) u[f] += dv;
            });
        }
    }

    // Cell types (seed 001: fluid where a particle is, solid in obstacles, air elsewhere).
    void occupancy(const Config& c) {
        const MacGrid g = c.grid;
        const Config cfg = c;
        auto start = sort_.cell_start();
        auto type = type_.view();
        exec_.parallel_for(g.cells(), FS_LAMBDA(int cell) {
            const ivec3 ijk = g.cell_coords(cell);
            const dvec3 centre = g.cell_center(ijk.x, ijk.y, ijk.z);
            if (in_box(cfg, centre) || in_sphere(cfg, centre))
                type[cell] = kSolid;
            else
                type[cell] = start[cell + 1] > start[cell] ? kFluid : kAir;
        });
    }

    // Faces touching a solid (or the domain walls) take the solid's velocity, 0 (seed 001,
    // Gradient Operator: "set the velocity component at that face to the solid velocity").
    void enforce_solid_faces(const Config& c) {
        const MacGrid g = c.grid;
        auto type = type_.cview();
        for (int a = 0; a < 3; ++a) {
            const Faces faces = Faces::of(g, a);
            auto u = face_[a].view();
            auto valid = valid_[a].view();
            exec_.parallel_for(faces.count(), FS_LAMBDA(int f) {
                const ivec3 hi = faces.coords(f), lo = faces.lower_cell(hi);
                if (cell_type(g, type, lo.x, lo.y, lo.z) == kSolid || cell_type(g, type, hi.x, hi.y, hi.z) == kSolid) {
                    u[f] = 0.0;
                    valid[f] = 1;
                }
            });
        }
    }

    // seed 001, Divergence Operator (divergence_at) on the fluid cells, and the pressure
    // equation's right-hand side
    // b = -(rho dx^2 / dt) div (the solver's A is the positive 7-point Laplacian).
    void divergence(const Config& c) {
        enforce_solid_faces(c);
        compute_divergence(c, div_.view());
        auto div = div_.cview();
        auto b = rhs_.view();
        auto start = sort_.cell_start();
        auto type = type_.cview();
        const double scale = -c.density * c.grid.dx * c.grid.dx / c.dt;
        // Volume correction (optional): an over-full cell asks for an outflow in proportion to
        // its excess, div u = k (n / n0 - 1) / dt, so clumped particles spread out again and
        // the fluid keeps its volume (the divergence-source form of Kugelstadt et al. 2019).
        const double k = c.volume_correction / c.dt;
        const double n0 = c.particles_per_cell;
        exec_.parallel_for(c.grid.cells(), FS_LAMBDA(int cell) {
            double target = 0.0;
            if (k > 0.0 && type[cell] == kFluid) {
                const double excess = (start[cell + 1] - start[cell]) / n0 - 1.0;
                if (excess > 0.0) target = k * excess;
            }
            b[cell] = scale * (div[cell] - target);
        });
    }

    void compute_divergence(const Config& c, View<double> out) {
        const MacGrid g = c.grid;
        auto u = face_[0].cview();
        auto v = face_[1].cview();
        auto w = face_[2].cview();
        auto type = type_.cview();
        exec_.parallel_for(g.cells(), FS_LAMBDA(int cell) { out[cell] = divergence_at(g, type, u, v, w, cell); });
    }

    void pressure_solve(const Config& c, const PressureSettings& ps) {
        typename PressureSolver<Exec>::Settings s;
        s.method = ps.method;
        s.iterations = ps.iterations;
        s.jacobi_alpha = ps.jacobi_alpha;
        s.sor_omega = ps.sor_omega;
        s.tolerance = ps.tolerance;
        s.max_iterations = ps.max_iterations;
        const auto r = solver_.solve(exec_, c.grid, type_.cview(), rhs_.cview(), pressure_.view(), s);
        iterations_ = r.iterations;
        residual_ = r.residual;
    }

    // seed 001, Gradient Operator: u -= (dt / rho) (p_right - p_left) / dx on faces next to
    // fluid (p = 0 in air); faces touching a solid keep the solid's velocity (face_pressure).
    void pressure_gradient(const Config& c) {
        const MacGrid g = c.grid;
        auto type = type_.cview();
        auto p = pressure_.cview();
        const double k = c.dt / (c.density * g.dx);
        for (int a = 0; a < 3; ++a) {
            const Faces faces = Faces::of(g, a);
            auto u = face_[a].view();
            auto valid = valid_[a].view();
            exec_.parallel_for(faces.count(), FS_LAMBDA(int f) {
                const FacePressure fp = face_pressure(g, faces, type, p, f);
                if (fp.kind == kSolidFace) {
                    u[f] = 0.0;
                } else if (fp.kind == kFluidFace) {
                    u[f] -= k * fp.dp;
                    valid[f] = 1;
                }
            });
        }
        compute_divergence(c, div_after_.view());
    }

    // seed 001, Grid-to-Particle: v = flip (v + interp(u_new - u_old)) + (1 - flip) interp(u_new)
    // (the assignment's alpha is 1 - flip_ratio). Under APIC, v = interp(u_new) and each
    // component's affine vector from the same faces (interpolate_affine; flip_ratio unused).
    void g2p(const Config& c) {
        if (c.scheme == kApic) {
            g2p_apic(c);
            return;
        }
        const MacGrid g = c.grid;
        const double flip = c.flip_ratio;
        const int weights = c.weights;
        auto pos = pos_.cview();
        auto vel = vel_.view();
        auto u0 = face_[0].cview(), u1 = face_[1].cview(), u2 = face_[2].cview();
        auto o0 = old_[0].cview(), o1 = old_[1].cview(), o2 = old_[2].cview();
        auto m0 = valid_[0].cview(), m1 = valid_[1].cview(), m2 = valid_[2].cview();
        const Faces f0 = Faces::of(g, 0), f1 = Faces::of(g, 1), f2 = Faces::of(g, 2);
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            const dvec3 u = to_cells(g, pos[i]);
            const TwoValues x = interpolate_two(f0, u0, o0, m0, u, weights);
            const TwoValues y = interpolate_two(f1, u1, o1, m1, u, weights);
            const TwoValues z = interpolate_two(f2, u2, o2, m2, u, weights);
            const dvec3 pic(x.now, y.now, z.now), old(x.before, y.before, z.before);
            vel[i] = flip * (vel[i] + (pic - old)) + (1.0 - flip) * pic;
        });
    }

    void g2p_apic(const Config& c) {
        ensure_affine(true);
        const MacGrid g = c.grid;
        const int weights = c.weights;
        auto pos = pos_.cview();
        auto vel = vel_.view();
        const Faces f0 = Faces::of(g, 0), f1 = Faces::of(g, 1), f2 = Faces::of(g, 2);
        auto u0 = face_[0].cview(), u1 = face_[1].cview(), u2 = face_[2].cview();
        auto m0 = valid_[0].cview(), m1 = valid_[1].cview(), m2 = valid_[2].cview();
        auto c0 = affine_[0].view(), c1 = affine_[1].view(), c2 = affine_[2].view();
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            const dvec3 u = to_cells(g, pos[i]);
            const AffineSample sx = interpolate_affine(f0, u0, m0, u, weights, g.dx);
            const AffineSample sy = interpolate_affine(f1, u1, m1, u, weights, g.dx);
            const AffineSample sz = interpolate_affine(f2, u2, m2, u, weights, g.dx);
            vel[i] = dvec3(sx.value, sy.value, sz.value);
            c0[i] = sx.c;
            c1[i] = sy.c;
            c2[i] = sz.c;
        });
    }

    Sums sums() override {
        auto vel = vel_.cview();
        auto pos = pos_.cview();
        return exec_.transform_reduce(
            size(), Sums{},
            FS_LAMBDA(int i) {
                Sums s;
                const dvec3 v = vel[i], x = pos[i];
                const double v2 = v.x * v.x + v.y * v.y + v.z * v.z;
                s.kinetic_energy = 0.5 * v2;  // per unit particle mass; scaled by the solver
                s.momentum = v;
                s.max_speed2 = v2;
                s.nonfinite = std::isfinite(v2 + x.x + x.y + x.z) ? 0 : 1;
                return s;
            },
            SumsOp{});
    }

    StepReport report(const Config& c) override {
        StepReport r;
        auto div = div_.cview();
        auto div2 = div_after_.cview();
        auto type = type_.cview();
        const int cells = c.grid.cells();
        r.div_max_before = exec_.transform_reduce(cells, 0.0, FS_LAMBDA(int i) { return std::fabs(div[i]); }, MaxOp{});
        r.div_max_after = exec_.transform_reduce(cells, 0.0, FS_LAMBDA(int i) { return std::fabs(div2[i]); }, MaxOp{});
        r.fluid_cells = exec_.transform_reduce(
            cells, 0LL, FS_LAMBDA(int i) { return type[i] == kFluid ? 1LL : 0LL; },
            AddOp{});
        auto start = sort_.cell_start();
        const double ppc = c.particles_per_cell;
        r.fluid_volume_cells = exec_.transform_reduce(
            cells, 0.0,
            FS_LAMBDA(int i) {
                const double n = start[i + 1] - start[i];
                return n < ppc ? n / ppc : 1.0;
            },
            SumOp{});
        r.pressure_iterations = iterations_;
        r.pressure_residual = residual_;
        return r;
    }

    std::vector<double> faces(int axis) const override { return face_[axis].to_vector(); }
    std::vector<unsigned char> cell_types() const override { return type_.to_vector(); }
    void synchronize() override { exec_.synchronize(); }

private:
    Exec exec_;
    MacGrid grid_{};
    // Particles (in cell order after p2g; id says who is who).
    Buffer<dvec3> pos_{kSpace}, vel_{kSpace};
    Buffer<int> id_{kSpace};
    Buffer<dvec3> pos_alt_{kSpace}, vel_alt_{kSpace};
    Buffer<int> id_alt_{kSpace};
    Buffer<dvec3> cell_pos_{kSpace};  // P2G: the particles' positions in cell units
    // APIC's c_x, c_y, c_z per particle (empty under pic_flip), and the permutation's scratch.
    Buffer<dvec3> affine_[3] = {Buffer<dvec3>{kSpace}, Buffer<dvec3>{kSpace}, Buffer<dvec3>{kSpace}};
    Buffer<dvec3> affine_alt_{kSpace};
    grid::CellSort<Exec> sort_;
    // Grid: cell types, pressure, divergence before and after the projection, the right-hand
    // side; per velocity component the faces now, after P2G (for FLIP), and which carry a value.
    Buffer<unsigned char> type_{kSpace};
    Buffer<double> pressure_{kSpace}, div_{kSpace}, div_after_{kSpace}, rhs_{kSpace};
    Buffer<double> face_[3] = {Buffer<double>{kSpace}, Buffer<double>{kSpace}, Buffer<double>{kSpace}};
    Buffer<double> old_[3] = {Buffer<double>{kSpace}, Buffer<double>{kSpace}, Buffer<double>{kSpace}};
    Buffer<unsigned char> valid_[3] = {Buffer<unsigned char>{kSpace}, Buffer<unsigned char>{kSpace},
                                       Buffer<unsigned char>{kSpace}};
    PressureSolver<Exec> solver_;
    int iterations_ = 0;
    double residual_ = 0.0;
};

}  // namespace fs::flip
