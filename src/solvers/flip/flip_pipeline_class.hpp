// The FLIP step, written once over an executor (CpuExec or CudaExec). Kernel-launching members
// are public: nvcc's host-device lambdas may not be defined in private members. This header holds
// the class, its state and the small stages; the transfers (flip_transfers.hpp), the pressure
// projection (flip_pressure_stage.hpp) and advection (flip_advection.hpp) define their members in
// files of their own, which include this one; flip_pipeline.hpp includes them all.
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
        // The pressure solve starts from the last step's pressure (pressure.hpp); a new state
        // (reset, restore, set_state, another backend) starts it from zero, as a fresh run does:
        // the grid is built anew at the next stage.
        grid_ = MacGrid{};
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
        download_parts(s, pos_, vel_, id_, affine_[0], affine_[1], affine_[2]);
    }
    int size() const override { return static_cast<int>(pos_.size()); }
    std::optional<FieldView> view(std::string_view name) const override {
        if (name == "pressure") return f64_view(particle_pressure().data(), size(), 1);
        return motion_view(name, pos_, vel_, id_);
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

    // the PIC-FLIP assignment, Body Force: u += dt g on the grid (direction turned by W/A/S/D); then a pushing
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

    // the PIC-FLIP assignment's transfers, Particle-to-Grid and Grid-to-Particle, with APIC's affine vectors
    // (flip_transfers.hpp).
    void ensure_affine(bool apic);
    void p2g(const Config& c);
    template <int W, bool Apic>
    void p2g_scatter(const MacGrid& g);
    template <int W, bool Apic>
    void p2g_axis(const MacGrid& g, int a);
    void g2p(const Config& c);
    template <int W, bool Shift>
    void g2p_pic_flip(const Config& c);
    void g2p_apic(const Config& c);

    // Which P2G runs: the scatter on the CPU (the default there), the gather (p2g_axis) on a GPU,
    // where a face's thread sums its own particles without atomics. Tests set it to compare them.
    bool scatter() const { return scatter_; }
    void set_scatter(bool on) { scatter_ = on && kSpace == MemorySpace::Host; }

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

    // the PIC-FLIP assignment's Pressure Projection: occupancy, divergence, the pressure solve and gradient, and
    // the volume correction, which solves the same equation (flip_pressure_stage.hpp).
    void occupancy(const Config& c);
    void enforce_solid_faces(const Config& c);
    void wall_friction(const Config& c);
    void divergence(const Config& c);
    void divergence_pass(const Config& c, View<double> b, double scale, int slot);
    typename PressureSolver<Exec>::Settings solver_settings(const PressureSettings& ps) const;
    void pressure_solve(const Config& c, const PressureSettings& ps);
    void pressure_gradient(const Config& c);
    void correct_volume(const Config& c, const PressureSettings& ps);

    // the PIC-FLIP assignment's Advection (flip_advection.hpp).
    void advect(const Config& c);

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
