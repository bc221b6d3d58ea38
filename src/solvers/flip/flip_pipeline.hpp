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
#include "solvers/flip/flip_simd.hpp"
#include "solvers/flip/pressure.hpp"

namespace fs::flip {

// body(f, (i, j, k), its two cells (FaceCells)) for every face f of one component. On the
// CPU by rows along x: a row's faces, coordinates and cells come by counting, and its cells'
// types are read from two rows of cells with the bounds tested once a row. These loops were
// bound by the coordinates' and bounds' arithmetic a face, not by memory (perf, FLIP 64^3:
// about 5 ns a face). On a GPU, a thread a face (FaceCoords, face_cells), which keeps every
// thread busy. The body is the same.
template <class Exec, class Body>
void for_each_face(Exec& exec, const MacGrid& g, const Faces& faces, View<const unsigned char> type, const Body& body) {
    if constexpr (Exec::space == MemorySpace::Host) {
        constexpr int kRows = 16;  // a task's rows: about a thousand faces at 64^3
        const int rows = faces.fy * faces.fz;
        const int a = faces.axis;
        const int stride = faces.cell_stride(g);
        const int first_lo = a == 0 ? 1 : 0;  // x faces: face i's lower cell is i - 1
        exec.parallel_tasks((rows + kRows - 1) / kRows, [&](int task) {
            const int end = std::min(rows, (task + 1) * kRows);
            for (int row = task * kRows; row < end; ++row) {
                const int j = row % faces.fy, k = row / faces.fy, f0 = row * faces.fx;
                const int cell0 = g.nx * (j + g.ny * k);  // cell (0, j, k), if inside
                const bool hi_in = j < g.ny && k < g.nz;
                const int lj = j - (a == 1), lk = k - (a == 2);
                const bool lo_in = lj >= 0 && lk >= 0 && lj < g.ny && lk < g.nz;
                FaceCells c;
                c.stride = stride;
                for (int i = 0; i < faces.fx; ++i) {
                    c.cell_hi = cell0 + i;
                    c.hi = hi_in && i < g.nx ? type[cell0 + i] : static_cast<unsigned char>(kSolid);
                    c.lo = lo_in && i >= first_lo ? type[cell0 + i - stride] : static_cast<unsigned char>(kSolid);
                    body(f0 + i, ivec3(i, j, k), c);
                }
            }
        });
    } else {
        const FaceCoords coords(faces);
        exec.parallel_for(faces.count(), FS_LAMBDA(int f) {
            const ivec3 at = coords(f);
            body(f, at, face_cells(g, faces, type, at));
        });
    }
}

template <class Exec>
class Pipeline final : public Engine {
public:
    static constexpr MemorySpace kSpace = Exec::space;
    // P2G's work items are runs of faces along x; rows are cut into runs until there are about
    // this many (runs of at least 4 faces). Long runs read each particle once per row of cells
    // rather than once per face; the CPU wants a team's worth of items (CpuExec runs shorter
    // loops serially), a GPU hundreds of thousands (at 128^3 with 1 << 16 items, three quarters of
    // them on rows without water, P2G took 7.0 ms of a 14.4 ms step on an H100).
    static constexpr int kP2GItems = kSpace == MemorySpace::Host ? 4096 : 1 << 20;

    void upload(const HostState& s) override {
        sums_ready_ = false;
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
    std::optional<FieldView> view(std::string_view name) const override {
        const int n = size();
        if (name == "position") return f64_view(pos_.data(), n, 3);
        if (name == "velocity" || name == "speed") return f64_view(vel_.data(), n, 3);
        if (name == "id") return i32_view(id_.data(), n);
        if (name == "pressure") return f64_view(particle_pressure().data(), n, 1);
        return std::nullopt;
    }

    // The pressure field: each particle's cell's p from the last solve (0 before one), gathered
    // when it is read (it is the grid's, so it is not carried by the particles).
    const Buffer<double>& particle_pressure() const {
        const int n = size();
        ppress_.resize(static_cast<std::size_t>(n));
        auto out = ppress_.view();
        auto pos = pos_.cview();
        auto p = pressure_.cview();
        const MacGrid g = grid_;
        const bool solved = g.cells() > 0 && pressure_.size() == static_cast<std::size_t>(g.cells());
        exec_.parallel_for(n, FS_LAMBDA(int i) { out[i] = solved ? p[cell_index(g, pos[i])] : 0.0; });
        return ppress_;
    }
    std::vector<double> particle_pressures() const override { return particle_pressure().to_vector(); }

    void run_stage(int stage, const Config& c, const PressureSettings& ps) override {
        sums_ready_ = false;
        ensure_grid(c.grid);
        switch (stage) {
            case kHands: hands(c); break;
            case kAdvect: advect(c); break;
            case kP2G: p2g(c); break;
            case kBodyForces: body_forces(c); break;
            case kOccupancy: occupancy(c); break;
            case kDivergence: divergence(c); break;
            case kPressureSolve: pressure_solve(c, ps); break;
            case kPressureGradient: pressure_gradient(c); break;
            case kG2P: g2p(c); break;
            case kVolumeCorrection: correct_volume(c, ps); break;
            default: break;
        }
    }

    void ensure_grid(const MacGrid& g) {
        if (g.nx == grid_.nx && g.ny == grid_.ny && g.nz == grid_.nz) return;
        grid_ = g;
        const std::size_t cells = static_cast<std::size_t>(g.cells());
        type_.resize(cells);
        count_.resize(cells);
        pressure_.resize(cells);
        rhs_.resize(cells);
        for (int a = 0; a < 3; ++a) {
            const auto n = static_cast<std::size_t>(Faces::of(g, a).count());
            face_[a].resize(n);
            old_[a].resize(n);
            valid_[a].resize(n);
        }
        ++types_version_;
        auto p = pressure_.view();
        auto type = type_.view();
        exec_.parallel_for(g.cells(), FS_LAMBDA(int c) {
            p[c] = 0.0;
            type[c] = kAir;
        });
        auto div_max = div_max_.resized(2);
        exec_.parallel_for(2, FS_LAMBDA(int s) { div_max[s] = 0.0; });
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

    // The hands stage's part on the particles: an obstacle a hand drags has moved (FlipSolver
    // moved it; c has it where it is now) and pushes the particles it has come over out, with
    // its velocity (keep_out_of_solids). Nothing to do while no obstacle moves; pouring appends
    // through append().
    void hands(const Config& c) {
        const dvec3 vb = c.box_velocity, vs = c.sphere_velocity;
        if (vb == dvec3(0.0) && vs == dvec3(0.0)) return;
        auto pos = pos_.view();
        auto vel = vel_.view();
        const Config cfg = c;
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            dvec3 x = pos[i], v = vel[i];
            keep_out_of_solids(cfg, x, v);
            pos[i] = x;
            vel[i] = v;
        });
    }

    std::vector<int> particles_in_block(const MacGrid& mac, ivec3 lo, ivec3 n) override {
        const MacGrid g = mac;  // by value into the kernel
        const int cells = n.x * n.y * n.z;
        auto count = block_count_.resized(static_cast<std::size_t>(cells > 0 ? cells : 0));
        if (cells <= 0) return {};
        exec_.parallel_for(cells, FS_LAMBDA(int b) { count[b] = 0; });
        auto pos = pos_.cview();
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            const ivec3 q = g.cell_coords(cell_index(g, pos[i])) - lo;
            if (q.x >= 0 && q.y >= 0 && q.z >= 0 && q.x < n.x && q.y < n.y && q.z < n.z)
                atomic_add(&count[q.x + n.x * (q.y + n.y * q.z)], 1);  // integers: any order, same sum
        });
        return block_count_.to_vector();
    }

    // Grows the particle arrays (Buffer::resize keeps what they hold) and copies the new
    // particles into their tails; the ids continue from the largest one.
    void append(const std::vector<dvec3>& pos, const std::vector<dvec3>& vel) override {
        const std::size_t n0 = pos_.size(), k = pos.size();
        if (k == 0) return;
        sums_ready_ = false;
        auto id = id_.cview();
        const int largest =
            exec_.transform_reduce(size(), -1, FS_LAMBDA(int i) { return id[i]; }, MaxOp{});
        std::vector<int> ids(k);
        for (std::size_t m = 0; m < k; ++m) ids[m] = largest + 1 + static_cast<int>(m);
        const bool apic = n0 > 0 && affine_[0].size() == n0;
        pos_.resize(n0 + k);
        vel_.resize(n0 + k);
        id_.resize(n0 + k);
        mem_copy(pos_.data() + n0, kSpace, pos.data(), MemorySpace::Host, k * sizeof(dvec3));
        mem_copy(vel_.data() + n0, kSpace, vel.data(), MemorySpace::Host, k * sizeof(dvec3));
        mem_copy(id_.data() + n0, kSpace, ids.data(), MemorySpace::Host, k * sizeof(int));
        for (auto& b : affine_) {
            if (!apic) continue;
            b.resize(n0 + k);
            mem_zero(b.data() + n0, kSpace, k * sizeof(dvec3));
        }
    }

    // seed 001, Advection: x += dt v with the particle's velocity (forward Euler), or through
    // the grid's velocity u, divergence-free since the pressure gradient (Bridson 2015, 3.1: a
    // particle moved by forward Euler in a rotating flow spirals outward, and particles crowd
    // where the interpolated velocity converges): the midpoint rule x += dt u(x + dt/2 u(x)), or
    // Ralston's RK3, k1 = u(x), k2 = u(x + dt/2 k1), k3 = u(x + 3dt/4 k2),
    // x += dt (2 k1 + 3 k2 + 4 k3) / 9. u is read trilinearly from the faces P2G reached.
    void advect(const Config& c) {
        auto pos = pos_.view();
        auto vel = vel_.view();
        const Config cfg = c;
        if (c.advection == kForwardEuler) {
            sums_ = exec_.transform_reduce(
                size(), Sums{},
                FS_LAMBDA(int i) {
                    dvec3 x = pos[i] + cfg.dt * vel[i];
                    dvec3 v = vel[i];
                    keep_out_of_solids(cfg, x, v);
                    pos[i] = x;
                    vel[i] = v;
                    return particle_sums(x, v);
                },
                SumsOp{});
            sums_ready_ = true;
            return;
        }
        const MacGrid g = c.grid;
        const Faces f0 = Faces::of(g, 0), f1 = Faces::of(g, 1), f2 = Faces::of(g, 2);
        auto u0 = face_[0].cview(), u1 = face_[1].cview(), u2 = face_[2].cview();
        auto m0 = valid_[0].cview(), m1 = valid_[1].cview(), m2 = valid_[2].cview();
        const bool rk3 = c.advection == kRk3;
        sums_ = exec_.transform_reduce(size(), Sums{}, FS_LAMBDA(int i) {
            auto u = [&](dvec3 x) {
                return interpolate_vector<kLinear>(f0, f1, f2, u0, u1, u2, m0, m1, m2, to_cells(g, x));
            };
            const double dt = cfg.dt;
            const dvec3 x0 = pos[i], k1 = u(x0), k2 = u(x0 + 0.5 * dt * k1);
            dvec3 x = rk3 ? x0 + dt / 9.0 * (2.0 * k1 + 3.0 * k2 + 4.0 * u(x0 + 0.75 * dt * k2)) : x0 + dt * k2;
            dvec3 v = vel[i];
            keep_out_of_solids(cfg, x, v);
            pos[i] = x;
            vel[i] = v;
            return particle_sums(x, v);
        }, SumsOp{});
        sums_ready_ = true;
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
    // x_p)), per MAC component, equal particle masses). First the particles are sorted and
    // permuted into that order: by half cell (half_cell_index) for the gather, which reads each
    // face's half cells; by row of half cells (half_row_index) for the scatter, which reads whole
    // rows and takes each particle's half cell along x itself. The rows' keys span an eighth of
    // the bits' range the half cells' do (14 bits at 64^3, not 21): two radix passes instead of
    // three, and 16 385 starts to write instead of 2 097 153.
    void p2g(const Config& c) {
        const MacGrid g = c.grid;
        const bool apic = c.scheme == kApic;
        ensure_affine(apic);
        auto pos = pos_.cview();
        if (scatter_)
            sort_.build(exec_, 4 * g.ny * g.nz, size(), FS_LAMBDA(int i) { return half_row_index(g, to_cells(g, pos[i])); });
        else
            sort_.build(exec_, 8 * g.cells(), size(), FS_LAMBDA(int i) { return half_cell_index(g, to_cells(g, pos[i])); });
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

        if (scatter_) {
            if (c.weights == kLinear)
                apic ? p2g_scatter<kLinear, true>(g) : p2g_scatter<kLinear, false>(g);
            else
                apic ? p2g_scatter<kQuadratic, true>(g) : p2g_scatter<kQuadratic, false>(g);
            return;
        }
        for (int a = 0; a < 3; ++a) {
            if (c.weights == kLinear)
                apic ? p2g_axis<kLinear, true>(g, a) : p2g_axis<kLinear, false>(g, a);
            else
                apic ? p2g_axis<kQuadratic, true>(g, a) : p2g_axis<kQuadratic, false>(g, a);
        }
    }

    // Which P2G runs: the scatter on the CPU (the default there), the gather (p2g_axis) on a GPU,
    // where a face's thread sums its own particles without atomics. Tests set it to compare them.
    bool scatter() const { return scatter_; }
    void set_scatter(bool on) { scatter_ = on && kSpace == MemorySpace::Host; }

    // P2G by scatter: each particle, read once, adds its terms to the faces it reaches in all
    // three components (p2g_add). The gather (p2g_axis) reads every particle about twelve times
    // (once per row of faces its kernel reaches), and each read adds through memory to a face
    // the previous particle may have just written. Blocks of 4 x 4 cells in (y, z), all of x,
    // in four colours by the parity of their block coordinates: a particle reaches faces at most
    // one layer below its cell and two above (either kernel), so two blocks of one colour reach
    // disjoint faces, each colour's blocks run in parallel without atomics, and every face sums
    // its terms in one fixed order (colour by colour, each block in sorted order), whatever the
    // thread count. The gather sums them in sorted order, so the two agree to rounding. The
    // scatter also counts each cell's particles for occupancy(): a block's rows hold the
    // particles of its own cells only, so those counts need no atomics either.
    template <int W, bool Apic>
    void p2g_scatter(const MacGrid& g) {
        constexpr int kBlock = 4;  // cells; >= 4 keeps same-coloured blocks' faces apart (see above)
        const Faces f0 = Faces::of(g, 0), f1 = Faces::of(g, 1), f2 = Faces::of(g, 2);
        auto s0 = face_[0].view(), s1 = face_[1].view(), s2 = face_[2].view();  // sum w v
        auto w0 = old_[0].view(), w1 = old_[1].view(), w2 = old_[2].view();     // sum w
        for (int a = 0; a < 3; ++a) {
            auto sum = face_[a].view();
            auto wsum = old_[a].view();
            exec_.parallel_for(sum.size, FS_LAMBDA(int f) {
                sum[f] = 0.0;
                wsum[f] = 0.0;
            });
        }
        auto count = count_.view();
        exec_.parallel_for(count.size, FS_LAMBDA(int cell) { count[cell] = 0; });
        auto start = sort_.cell_start();  // of rows of half cells
        auto p = cell_pos_.cview();
        auto v = vel_.cview();
        // Empty unless APIC (read only then).
        auto c0 = affine_[0].cview(), c1 = affine_[1].cview(), c2 = affine_[2].cview();
        const double dx = g.dx;
        const int hnx = 2 * g.nx, hny = 2 * g.ny, hnz = 2 * g.nz;
        const int nby = (g.ny + kBlock - 1) / kBlock, nbz = (g.nz + kBlock - 1) / kBlock;
        for (int colour = 0; colour < 4; ++colour) {
            const int oy = colour & 1, oz = colour >> 1;
            const int my = (nby - oy + 1) / 2, mz = (nbz - oz + 1) / 2;
            if (my <= 0 || mz <= 0) continue;
            exec_.parallel_tasks(my * mz, FS_LAMBDA(int item) {
                const int hy0 = 2 * kBlock * (oy + 2 * (item % my)), hz0 = 2 * kBlock * (oz + 2 * (item / my));
                const int hy1 = hy0 + 2 * kBlock < hny ? hy0 + 2 * kBlock : hny;
                const int hz1 = hz0 + 2 * kBlock < hnz ? hz0 + 2 * kBlock : hnz;
                for (int hz = hz0; hz < hz1; ++hz)
                    for (int hy = hy0; hy < hy1; ++hy) {
                        const int row = hy + hny * hz;  // a row of half cells along x
                        int* const row_count = count.data + g.nx * ((hy >> 1) + g.ny * (hz >> 1));
                        for (int q = start[row]; q < start[row + 1]; ++q) {
                            const dvec3 u = p[q];
                            const dvec3 vq = v[q];
                            const ivec3 h(half_cell_1d(2.0 * u.x, hnx), hy, hz);
                            ++row_count[h.x >> 1];
                            const dvec3 zero(0.0);
                            p2g_add<W, Apic>(f0, h, u, vq.x, Apic ? c0[q] : zero, dx, s0, w0);
                            p2g_add<W, Apic>(f1, h, u, vq.y, Apic ? c1[q] : zero, dx, s1, w1);
                            p2g_add<W, Apic>(f2, h, u, vq.z, Apic ? c2[q] : zero, dx, s2, w2);
                        }
                    }
            });
        }
        for (int a = 0; a < 3; ++a) {
            auto sum = face_[a].view();
            auto wsum = old_[a].view();
            auto valid = valid_[a].view();
            exec_.parallel_for(sum.size, FS_LAMBDA(int f) { finish_p2g_face(sum, wsum, valid, f); });
        }
    }

    // P2G of one velocity component, for one kernel and scheme (compile-time, so the inner loop
    // has fixed trip counts). Work items are runs of faces along a row; each reads the rows of
    // half cells within reach and adds every particle to the kReach faces it reaches along x.
    template <int W, bool Apic>
    void p2g_axis(const MacGrid& g, int a) {
        constexpr int kReach = W == kLinear ? 2 : 3;  // faces per particle along x
        auto start = sort_.cell_start();              // of half cells
        auto p = cell_pos_.cview();
        auto v = vel_.cview();
        const double dx = g.dx;
        const double s = kernel_support(W);
        const int hnx = 2 * g.nx, hny = 2 * g.ny, hnz = 2 * g.nz;
        const Faces faces = Faces::of(g, a);
        const dvec3 off = faces.position(ivec3(0));
        // Along x, face i reaches the half cells [2i + ha, 2i + hb - 1] (those overlapping the
        // open interval (i + off.x - s, i + off.x + s)), so half cell h reaches the faces
        // [ceil((h + 1 - hb) / 2), floor((h - ha) / 2)], kReach of them.
        const int ha = static_cast<int>(2.0 * (off.x - s)), hb = static_cast<int>(2.0 * (off.x + s));
        const int rows = faces.fy * faces.fz;
        const int cuts = std::min((kP2GItems + rows - 1) / rows, (faces.fx + 3) / 4);
        const int seg = (faces.fx + cuts - 1) / cuts;
        const int segs = (faces.fx + seg - 1) / seg;
        auto aff = affine_[a].cview();  // empty unless APIC
        auto sum = face_[a].view();     // sum w v, then the face value
        auto wsum = old_[a].view();     // sum w, then the face value
        auto valid = valid_[a].view();
        exec_.parallel_for(segs * rows, FS_LAMBDA(int item) {
            const int row = item / segs;
            const int j = row % faces.fy, k = row / faces.fy;
            const int i0 = (item % segs) * seg;
            const int i1 = i0 + seg < faces.fx ? i0 + seg : faces.fx;
            const int f0 = faces.index(0, j, k);  // the row's faces are contiguous
            for (int i = i0; i < i1; ++i) {
                sum[f0 + i] = 0.0;
                wsum[f0 + i] = 0.0;
            }
            const double aty = j + off.y, atz = k + off.z;
            // The rows of half cells within reach of the face row (2 at - 2 s and 2 at + 2 s
            // are integers), and the run of them along x that reaches faces [i0, i1).
            const int ylo = static_cast<int>(2.0 * (aty - s)), yhi = static_cast<int>(2.0 * (aty + s)) - 1;
            const int zlo = static_cast<int>(2.0 * (atz - s)), zhi = static_cast<int>(2.0 * (atz + s)) - 1;
            const int xlo = 2 * i0 + ha > 0 ? 2 * i0 + ha : 0;
            const int xhi = 2 * (i1 - 1) + hb - 1 < hnx ? 2 * (i1 - 1) + hb - 1 : hnx - 1;
            for (int hz = zlo > 0 ? zlo : 0; hz <= zhi && hz < hnz; ++hz)
                for (int hy = ylo > 0 ? ylo : 0; hy <= yhi && hy < hny; ++hy) {
                    const int h0 = hnx * (hy + hny * hz);
                    for (int q = start[h0 + xlo]; q < start[h0 + xhi + 1]; ++q) {
                        const dvec3 u = p[q];
                        const int flo = (half_cell_1d(2.0 * u.x, hnx) + 2 - hb) >> 1;  // floor half
                        const double ky = kernel_1d(u.y - aty, W);
                        const double kz = kernel_1d(u.z - atz, W);
                        const double va = glm::value_ptr(v[q])[a];  // no switch on a
                        for (int m = 0; m < kReach; ++m) {
                            const int i = flo + m;
                            if (i < i0 || i >= i1) continue;
                            const double atx = i + off.x;
                            // seed 001's trilinear weight, w = k(dx) k(dy) k(dz)
                            const double w = kernel_1d(u.x - atx, W) * ky * kz;
                            if (Apic) {  // a constant: nvcc lambdas may not first-capture under if constexpr
                                const dvec3 d = dx * (dvec3(atx, aty, atz) - u);  // x_f - x_p
                                const dvec3 cq = aff[q];
                                sum[f0 + i] += w * (va + cq.x * d.x + cq.y * d.y + cq.z * d.z);
                            } else {
                                sum[f0 + i] += w * va;
                            }
                            wsum[f0 + i] += w;
                        }
                    }
                }
            for (int i = i0; i < i1; ++i) finish_p2g_face(sum, wsum, valid, f0 + i);
        });
    }

    // seed 001, Body Force: u += dt g on the grid (direction turned by W/A/S/D); then a pushing
    // or pulling hand: each face with a value, at its position x, gets its axis's component of
    // HandForce::dv(x, u e_a, dt) (solvers/common/hands.hpp), the face's own component standing
    // for the velocity its damping acts on.
    void body_forces(const Config& c) {
        const MacGrid g = c.grid;
        const HandForce<dvec3> hand = c.hand;
        const double dt = c.dt;
        for (int a = 0; a < 3; ++a) {
            const double dv = c.dt * c.gravity[a];
            if (dv == 0.0 && !hand.on) continue;
            const Faces faces = Faces::of(g, a);
            auto u = face_[a].view();
            auto valid = valid_[a].cview();
            exec_.parallel_for(u.size, FS_LAMBDA(int f) {
                if (!valid[f]) return;
                u[f] += dv;
                if (hand.on) {
                    const dvec3 x = g.origin + g.dx * faces.position(faces.coords(f));
                    dvec3 along(0.0);
                    along[faces.axis] = u[f];
                    u[f] += hand.dv(x, along, dt)[faces.axis];
                }
            });
        }
    }

    // Cell types (seed 001: fluid where a particle is, solid in obstacles, air elsewhere), and
    // the particles in each cell (for the volume measure and its correction): counted by the
    // scatter, or taken from the half cells' starts after the gather.
    void occupancy(const Config& c) {
        const MacGrid g = c.grid;
        const Config cfg = c;
        ++types_version_;
        const bool counted = scatter_;
        auto start = sort_.cell_start();
        auto type = type_.view();
        auto count = count_.view();
        exec_.parallel_for(g.cells(), FS_LAMBDA(int cell) {
            const ivec3 ijk = g.cell_coords(cell);
            const dvec3 centre = g.cell_center(ijk.x, ijk.y, ijk.z);
            const int n = counted ? count[cell] : particles_in_cell(g, start, cell);
            count[cell] = n;
            if (in_box(cfg, centre) || in_sphere(cfg, centre))
                type[cell] = kSolid;
            else
                type[cell] = n > 0 ? kFluid : kAir;
        });
    }

    // Faces touching a solid take the solid's velocity: 0 at the domain's walls, an obstacle's
    // own where a hand drags it (solid_face_velocity; seed 001, Gradient Operator: "set the
    // velocity component at that face to the solid velocity").
    void enforce_solid_faces(const Config& c) {
        const MacGrid g = c.grid;
        const Config cfg = c;
        auto type = type_.cview();
        for (int a = 0; a < 3; ++a) {
            const Faces faces = Faces::of(g, a);
            auto u = face_[a].view();
            auto valid = valid_[a].view();
            for_each_face(exec_, g, faces, type, FS_LAMBDA(int f, ivec3 hi, const FaceCells& cells) {
                if (cells.lo == kSolid || cells.hi == kSolid) {
                    u[f] = solid_face_velocity(cfg, faces, hi);
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
        divergence_pass(c, rhs_.view(), -c.density * c.grid.dx * c.grid.dx / c.dt, 0);
    }

    // One pass over the cells: the largest |div u| (the step report's div_max_before, slot 0,
    // or div_max_after, slot 1) left on the device for report(), and, where b is given, b = scale
    // div u as well.
    void divergence_pass(const Config& c, View<double> b, double scale, int slot) {
        const MacGrid g = c.grid;
        auto u = face_[0].cview();
        auto v = face_[1].cview();
        auto w = face_[2].cview();
        auto type = type_.cview();
        const bool write = b.size > 0;
        exec_.transform_reduce_into(
            g.cells(), 0.0,
            FS_LAMBDA(int cell) {
                const double d = divergence_at(g, type, u, v, w, cell);
                if (write) b[cell] = scale * d;
                return std::fabs(d);
            },
            MaxOp{}, div_max_.data() + slot);
    }

    typename PressureSolver<Exec>::Settings solver_settings(const PressureSettings& ps) const {
        typename PressureSolver<Exec>::Settings s;
        s.cells_version = types_version_;
        s.method = ps.method;
        s.iterations = ps.iterations;
        s.jacobi_alpha = ps.jacobi_alpha;
        s.sor_omega = ps.sor_omega;
        s.tolerance = ps.tolerance;
        s.max_iterations = ps.max_iterations;
        return s;
    }

    void pressure_solve(const Config& c, const PressureSettings& ps) {
        const auto r = solver_.solve(exec_, c.grid, type_.cview(), rhs_.cview(), pressure_.view(), solver_settings(ps));
        iterations_ = r.iterations;
        residual_ = r.residual;
    }

    // seed 001, Gradient Operator: u -= (dt / rho) (p_right - p_left) / dx on faces next to
    // fluid (p = 0 in air); faces touching a solid keep the solid's velocity (face_pressure,
    // solid_face_velocity).
    void pressure_gradient(const Config& c) {
        const MacGrid g = c.grid;
        const Config cfg = c;
        auto type = type_.cview();
        auto p = pressure_.cview();
        const double k = c.dt / (c.density * g.dx);
        for (int a = 0; a < 3; ++a) {
            const Faces faces = Faces::of(g, a);
            auto u = face_[a].view();
            auto valid = valid_[a].view();
            for_each_face(exec_, g, faces, type, FS_LAMBDA(int f, ivec3 at, const FaceCells& cells) {
                const FacePressure fp = face_pressure(cells, p);
                if (fp.kind == kSolidFace) {
                    u[f] = solid_face_velocity(cfg, faces, at);
                } else if (fp.kind == kFluidFace) {
                    u[f] -= k * fp.dp;
                    valid[f] = 1;
                }
            });
        }
        divergence_pass(c, View<double>{}, 0.0, 1);
    }

    // seed 001, Grid-to-Particle: v = flip (v + interp(u_new - u_old)) + (1 - flip) interp(u_new)
    // (the assignment's alpha is 1 - flip_ratio). Under APIC, v = interp(u_new) and each
    // component's affine vector from the same faces (interpolate_affine; flip_ratio unused).
    void g2p(const Config& c) {
        if (c.scheme == kApic) {
            g2p_apic(c);
            return;
        }
        const bool shift = shift_ready_;
        shift_ready_ = false;
        if (c.weights == kLinear)
            shift ? g2p_pic_flip<kLinear, true>(c) : g2p_pic_flip<kLinear, false>(c);
        else
            shift ? g2p_pic_flip<kQuadratic, true>(c) : g2p_pic_flip<kQuadratic, false>(c);
    }

    // Shift: also move each particle by the volume correction's displacement (correct_volume),
    // from the same faces and weights as its velocity, and keep it in the domain.
    // The interpolation is linear in the face values (one set of weights, one normalisation), so
    // seed 001's blend flip (v + interp(u_new) - interp(u_old)) + (1 - flip) interp(u_new) is
    // flip v + interp(u_new - flip u_old): old_ takes u_new - flip u_old first (it is not read
    // after G2P, and P2G writes it anew), and each particle reads one field where it read two.
    template <int W, bool Shift>
    void g2p_pic_flip(const Config& c) {
        const MacGrid g = c.grid;
        const Config cfg = c;
        const double flip = c.flip_ratio;
        // The eight-lane path (flip_simd.hpp) reads validity as doubles, written with the blend.
        const bool lanes = use_lanes<W>();
        for (int a = 0; a < 3; ++a) {
            auto u = face_[a].cview();
            auto blend = old_[a].view();
            if (lanes) {
                auto valid = valid_[a].cview();
                auto vm = valid_weight_[a].resized(static_cast<std::size_t>(blend.size));
                exec_.parallel_for(blend.size, FS_LAMBDA(int f) {
                    blend[f] = u[f] - flip * blend[f];
                    vm[f] = valid[f] ? 1.0 : 0.0;
                });
            } else {
                exec_.parallel_for(blend.size, FS_LAMBDA(int f) { blend[f] = u[f] - flip * blend[f]; });
            }
        }
        auto pos = pos_.view();
        auto vel = vel_.view();
        auto b0 = old_[0].cview(), b1 = old_[1].cview(), b2 = old_[2].cview();
        auto m0 = valid_[0].cview(), m1 = valid_[1].cview(), m2 = valid_[2].cview();
        // Without Shift the displacement views are never read (N = 1).
        auto d0 = Shift ? shift_[0].cview() : b0, d1 = Shift ? shift_[1].cview() : b1, d2 = Shift ? shift_[2].cview() : b2;
        const Faces f0 = Faces::of(g, 0), f1 = Faces::of(g, 1), f2 = Faces::of(g, 2);
        constexpr int N = Shift ? 2 : 1;
        auto body = FS_LAMBDA(int i) {
            const dvec3 u = to_cells(g, pos[i]);
            const FaceValues x = interpolate_faces<W, N>(f0, b0, d0, d0, m0, u);
            const FaceValues y = interpolate_faces<W, N>(f1, b1, d1, d1, m1, u);
            const FaceValues z = interpolate_faces<W, N>(f2, b2, d2, d2, m2, u);
            dvec3 v = flip * vel[i] + dvec3(x.v[0], y.v[0], z.v[0]);
            if (Shift) {
                dvec3 p = pos[i] + dvec3(x.v[1], y.v[1], z.v[1]);
                keep_out_of_solids(cfg, p, v);
                pos[i] = p;
            }
            vel[i] = v;
        };
#if defined(FS_FLIP_AVX512)
        if constexpr (kSpace == MemorySpace::Host && W == kLinear) {
            if (lanes) {
                // Eight particles at a time; the lanes whose stencils leave the grid take the body.
                const int n = size();
                const Faces faces[3] = {f0, f1, f2};
                const double* bs[3] = {b0.data, b1.data, b2.data};
                const double* ds[3] = {d0.data, d1.data, d2.data};
                const double* vms[3] = {valid_weight_[0].cview().data, valid_weight_[1].cview().data,
                                        valid_weight_[2].cview().data};
                auto eight = [&](int item) {
                    const int first = 8 * item;
                    const unsigned done =
                        simd::g2p8<Shift>(cfg, pos.data, vel.data, first, n, flip, faces, bs, ds, vms);
                    for (int l = 0; l < 8 && first + l < n; ++l)
                        if (!((done >> l) & 1u)) body(first + l);
                };
                // Statically scheduled eights where there are enough of them; below parallel_for's
                // threshold (the bundled scenes' 32 000 particles are 4 000 eights) items of 64
                // particles as tasks, which still run on every thread.
                const int eights = (n + 7) / 8;
                if (eights >= CpuExec::kSerialBelow) {
                    exec_.parallel_for(eights, eight);
                } else {
                    constexpr int kEightsPerTask = 8;
                    exec_.parallel_tasks((eights + kEightsPerTask - 1) / kEightsPerTask, [&](int task) {
                        const int end = eights < kEightsPerTask * (task + 1) ? eights : kEightsPerTask * (task + 1);
                        for (int item = kEightsPerTask * task; item < end; ++item) eight(item);
                    });
                }
                return;
            }
        }
#endif
        exec_.parallel_for(size(), body);
    }

    // Whether G2P runs eight particles at a time (flip_simd.hpp): the CPU, the linear kernel,
    // a host with AVX-512F, and not turned off (tests compare the two; set_lanes).
    template <int W>
    bool use_lanes() const {
#if defined(FS_FLIP_AVX512)
        return kSpace == MemorySpace::Host && W == kLinear && lanes_ && simd::available();
#else
        return false;
#endif
    }

    bool lanes() const { return lanes_; }
    void set_lanes(bool on) { lanes_ = on; }

    void g2p_apic(const Config& c) {
        ensure_affine(true);
        const MacGrid g = c.grid;
        const Config cfg = c;
        const int weights = c.weights;
        const bool shift = shift_ready_;
        shift_ready_ = false;
        auto pos = pos_.view();
        auto vel = vel_.view();
        auto d0 = shift_[0].cview(), d1 = shift_[1].cview(), d2 = shift_[2].cview();  // read when shift
        const Faces f0 = Faces::of(g, 0), f1 = Faces::of(g, 1), f2 = Faces::of(g, 2);
        auto u0 = face_[0].cview(), u1 = face_[1].cview(), u2 = face_[2].cview();
        auto m0 = valid_[0].cview(), m1 = valid_[1].cview(), m2 = valid_[2].cview();
        auto c0 = affine_[0].view(), c1 = affine_[1].view(), c2 = affine_[2].view();
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            const dvec3 u = to_cells(g, pos[i]);
            const AffineSample sx = interpolate_affine(f0, u0, m0, u, weights, g.dx);
            const AffineSample sy = interpolate_affine(f1, u1, m1, u, weights, g.dx);
            const AffineSample sz = interpolate_affine(f2, u2, m2, u, weights, g.dx);
            dvec3 v(sx.value, sy.value, sz.value);
            if (shift) {  // as in g2p_pic_flip
                const dvec3 d = weights == kLinear
                                    ? interpolate_vector<kLinear>(f0, f1, f2, d0, d1, d2, m0, m1, m2, u)
                                    : interpolate_vector<kQuadratic>(f0, f1, f2, d0, d1, d2, m0, m1, m2, u);
                dvec3 p = pos[i] + d;
                keep_out_of_solids(cfg, p, v);
                pos[i] = p;
            }
            vel[i] = v;
            c0[i] = sx.c;
            c1[i] = sy.c;
            c2[i] = sz.c;
        });
    }

    // Volume correction (optional; past seed 001, whose FLIP particles drift together and lose
    // volume). Implicit density projection after Kugelstadt et al. 2019, with the particle
    // count as the density: crowded particles are moved apart by a displacement d = -grad q with
    //   div d = k (n / n0 - 1)        (n: particles in the cell, n0 = particles_per_cell,
    //                                  k = volume_correction, the share of the excess removed),
    // so A q = dx^2 k (n / n0 - 1) with A, q = 0 in air and no flux through solids as in the
    // pressure solve (same solver, same settings). Bulk cells (is_bulk_cell) are corrected both
    // ways, so the noise of their counts averages out instead of pushing the fluid apart; cells at
    // the surface only when over-full, being rightly part empty. Positions move, velocities do
    // not: unlike a divergence source in the pressure solve, which FLIP would keep in the
    // particles' velocities, it adds no kinetic energy. It runs before G2P, while the particles
    // still sit where the occupancy counted them; G2P moves them by d (g2p_pic_flip).
    void correct_volume(const Config& c, const PressureSettings& ps) {
        correction_iterations_ = 0;
        if (!(c.volume_correction > 0.0)) return;
        const MacGrid g = c.grid;
        const double n0 = c.particles_per_cell;
        const double scale = c.volume_correction * g.dx * g.dx;
        auto type = type_.cview();
        auto count = count_.cview();
        auto b = rhs_.view();  // the pressure solve is done with it
        exec_.parallel_for(g.cells(), FS_LAMBDA(int cell) {
            double excess = 0.0;
            if (type[cell] == kFluid) {
                excess = count[cell] / n0 - 1.0;
                if (excess < 0.0 && !is_bulk_cell(g, type, count, n0, cell)) excess = 0.0;
            }
            b[cell] = scale * excess;
        });
        // A fresh problem each step (the counts' noise does not persist), so q starts from 0; and
        // MGPCG need not go past a relative 1e-2, which moves the particles to within 1% of
        // what the exact q would (the sweeps of Jacobi and Gauss-Seidel stay the user's).
        correction_q_.resize(rhs_.size());  // allocates only when the grid grows
        correction_q_.fill_zero();
        auto settings = solver_settings(ps);
        settings.tolerance = std::max(settings.tolerance, kCorrectionTolerance);
        settings.measure_residual = false;
        const auto r = solver_.solve(exec_, g, type, rhs_.cview(), correction_q_.view(), settings);
        correction_iterations_ = r.iterations;
        // d = -grad q on the faces next to fluid; 0 on faces touching a solid, moving or not (no
        // flux through solids: the correction moves particles, never into a body), and between
        // two air cells (G2P reads d with the velocity's faces and weights).
        auto q = correction_q_.cview();
        for (int a = 0; a < 3; ++a) {
            const Faces faces = Faces::of(g, a);
            shift_[a].resize(faces.count());  // as correction_q_
            auto d = shift_[a].view();
            const double inv_dx = 1.0 / g.dx;
            for_each_face(exec_, g, faces, type, FS_LAMBDA(int f, ivec3, const FaceCells& cells) {
                const FacePressure fq = face_pressure(cells, q);
                d[f] = fq.kind == kFluidFace ? -fq.dp * inv_dx : 0.0;
            });
        }
        shift_ready_ = true;
    }

    // The step's sums, taken by the advect stage as it moved the particles (the step's last
    // stage; one pass over the particles instead of two, 2% of a FLIP step at 64^3 on one
    // thread), or over the particles now where anything else came after. The same blocks and
    // order either way: the same bits.
    Sums sums() override {
        if (sums_ready_) return sums_;
        auto vel = vel_.cview();
        auto pos = pos_.cview();
        return exec_.transform_reduce(
            size(), Sums{}, FS_LAMBDA(int i) { return particle_sums(pos[i], vel[i]); }, SumsOp{});
    }

    StepReport report(const Config& c) override {
        StepReport r;
        double div_max[2] = {0.0, 0.0};
        if (div_max_.size() == 2) mem_copy(div_max, MemorySpace::Host, div_max_.data(), kSpace, sizeof(div_max));
        r.div_max_before = div_max[0];
        r.div_max_after = div_max[1];
        auto type = type_.cview();
        const MacGrid g = c.grid;
        auto count = count_.cview();
        const double n0 = c.particles_per_cell;
        const CellTally tally = exec_.transform_reduce(
            g.cells(), CellTally{},
            FS_LAMBDA(int i) {
                CellTally t;
                t.fluid = type[i] == kFluid ? 1.0 : 0.0;
                if (is_bulk_cell(g, type, count, n0, i)) {
                    t.bulk_particles = count[i];
                    t.bulk_cells = 1.0;
                }
                return t;
            },
            CellTallyOp{});
        r.fluid_cells = static_cast<long long>(tally.fluid);
        r.bulk_particles = tally.bulk_particles;
        r.bulk_cells = tally.bulk_cells;
        r.pressure_iterations = iterations_;
        r.pressure_residual = residual_;
        r.correction_iterations = correction_iterations_;
        return r;
    }

    std::vector<double> faces(int axis) const override { return face_[axis].to_vector(); }
    std::vector<unsigned char> cell_types() const override { return type_.to_vector(); }
    std::vector<int> cell_counts() const { return count_.to_vector(); }  // occupancy()'s, for tests
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
    // side; per velocity component the faces now, after P2G (for FLIP; G2P turns it into u - flip
    // u_old), and which carry a value.
    Buffer<unsigned char> type_{kSpace};
    long long types_version_ = 0;  // counts the changes of type_ (the pressure solver's cells_version)
    Buffer<int> count_{kSpace};  // particles per cell, from occupancy
    Buffer<double> pressure_{kSpace}, rhs_{kSpace};
    Buffer<double> div_max_{kSpace};  // the largest |div u| before and after the projection
    mutable Buffer<double> ppress_{kSpace};  // particle_pressure()
    Buffer<int> block_count_{kSpace};        // particles_in_block()
    Buffer<double> face_[3] = {Buffer<double>{kSpace}, Buffer<double>{kSpace}, Buffer<double>{kSpace}};
    Buffer<double> old_[3] = {Buffer<double>{kSpace}, Buffer<double>{kSpace}, Buffer<double>{kSpace}};
    Buffer<unsigned char> valid_[3] = {Buffer<unsigned char>{kSpace}, Buffer<unsigned char>{kSpace},
                                       Buffer<unsigned char>{kSpace}};
    PressureSolver<Exec> solver_;
    int iterations_ = 0;
    double residual_ = 0.0;
    // The volume correction's potential q and displacement faces, allocated when it first runs;
    // shift_ready_: computed this step and not yet applied by G2P.
    static constexpr double kCorrectionTolerance = 1e-2;
    Buffer<double> correction_q_{kSpace};
    Buffer<double> shift_[3] = {Buffer<double>{kSpace}, Buffer<double>{kSpace}, Buffer<double>{kSpace}};
    bool shift_ready_ = false;
    int correction_iterations_ = 0;
    bool scatter_ = kSpace == MemorySpace::Host;  // set_scatter
    Sums sums_{};              // the advect stage's (sums())
    bool sums_ready_ = false;  // sums_ holds the particles as they are
    bool lanes_ = true;                           // set_lanes
    // G2P's validity as 1.0 / 0.0 per face, for the eight-lane path's gathers.
    Buffer<double> valid_weight_[3] = {Buffer<double>{kSpace}, Buffer<double>{kSpace}, Buffer<double>{kSpace}};
};

}  // namespace fs::flip
