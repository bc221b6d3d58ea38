// The Euler solver's step, written once over an executor (CpuExec or CudaExec). Stage bodies are
// FS_LAMBDA kernels over views; the physics lives in euler_kernels.hpp.
// Member functions that launch kernels are public: nvcc's host-device lambdas may not be
// defined in private or protected members.
#pragma once

#include <algorithm>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/buffer.hpp"
#include "core/reduce_ops.hpp"
#include "solvers/common/cell_sort.hpp"
#include "solvers/common/pair_list.hpp"
#include "solvers/euler/euler_engine.hpp"
#include "solvers/euler/euler_simd.hpp"

namespace fs::euler {

template <class Exec>
class Pipeline final : public Engine {
public:
    static constexpr MemorySpace kSpace = Exec::space;

    // Each HostState part's buffer, in parts() order (solvers/common/declaration.hpp).
    static constexpr auto buffers() { return std::tuple{&Pipeline::pos_, &Pipeline::vel_, &Pipeline::mass_, &Pipeline::id_}; }
    // Each declared stage's method, in kStages order.
    static constexpr auto runs() {
        using R = StageRun<Pipeline, Config>;
        return std::array{R{"forces", &Pipeline::forces}, R{"grid_build", &Pipeline::grid_build},
                          R{"collide", &Pipeline::collide}, R{"integrate", &Pipeline::integrate},
                          R{"bounce_on_borders", &Pipeline::bounce}};
    }

    void upload(const HostState& s) override {
        upload_declared(s, *this);
        gamma_stale_ = true;  // the masses may be others
        const std::size_t n = s.pos.size();
        for (Buffer<int>* b : {&partner_, &tests_, &contacts_, &id_alt_}) b->resize(n);
        vel_new_.resize(n);
        pos_alt_.resize(n);
        pos_seen_.resize(n);
        overlap_.resize(n);
        mass_alt_.resize(n);
        clear_collisions();
    }

    // No partners, tests or contacts: the state before any collide stage, or with collisions off.
    void clear_collisions() {
        auto partner = partner_.view();
        auto tests = tests_.view();
        auto contacts = contacts_.view();
        auto overlap = overlap_.view();
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            partner[i] = -1;
            tests[i] = 0;
            contacts[i] = 0;
            overlap[i] = 0.0;
        });
    }

    void download(HostState& s) const override { download_declared(s, *this); }

    int size() const override { return static_cast<int>(pos_.size()); }
    std::optional<FieldView> view(std::string_view name) const override {
        return declared_view<HostState>(name, *this);
    }

    void run_stage(int stage, const Config& c) override {
        static_assert(stage_runs_agree(kStages, runs()), "runs() must name kStages' stages in order");
        if (stage >= 0 && stage < kStageCount) (this->*runs()[stage].run)(c);
    }

    // the particle tutorial, "gravity": V += tau * F / m with F = m g.
    // Soft contact applies gravity in its sub-steps instead (soft_contacts). A hand that pushes
    // or pulls adds its velocity change (solvers/common/hands.hpp) in either case.
    void forces(const Config& c) {
        auto vel = vel_.view();
        if (c.hand.on) {
            auto pos = pos_.cview();
            const HandForce<dvec2> hand = c.hand;
            const double tau = c.tau;
            exec_.parallel_for(size(), FS_LAMBDA(int i) { vel[i] += hand.dv(pos[i], vel[i], tau); });
        }
        if (c.contact == kSoft && c.collisions) return;
        const dvec2 dv = c.tau * c.gravity;
        if (dv.x == 0.0 && dv.y == 0.0) return;  // the gas: no gravity (adding zero changes no value)
        exec_.parallel_for(size(), FS_LAMBDA(int i) { vel[i] += dv; });
    }

    // the particle tutorial's search grid: a counting sort by cell (cell_sort.hpp), then the particle arrays
    // themselves are permuted into cell order, so that the collision search reads neighbours
    // from contiguous memory.
    void grid_build(const Config& c) {
        if (!c.collisions) return;
        if (c.contact == kSoft) {
            update_contact_list(c);  // sorts when the list must be made again
            return;
        }
        if (c.detector == kGrid) sort_by_cell(c);
        list_valid_ = false;  // the sort moved the particles the list names
    }

    // Sorts the particles by cell of c.grid.
    void sort_by_cell(const Config& c) {
        sort_.build(exec_, c.grid, pos_.cview());
        // One pass over the permutation for all four arrays (measured: 4 separate gathers cost
        // about 3 ms more per step at N = 1e6).
        auto order = sort_.order();
        auto pos = pos_.cview();
        auto vel = vel_.cview();
        auto mass = mass_.cview();
        auto id = id_.cview();
        auto pos2 = pos_alt_.view();
        auto vel2 = vel_new_.view();
        auto mass2 = mass_alt_.view();
        auto id2 = id_alt_.view();
        exec_.parallel_for(size(), FS_LAMBDA(int s) {
            const int i = order[s];
            pos2[s] = pos[i];
            vel2[s] = vel[i];
            mass2[s] = mass[i];
            id2[s] = id[i];
        });
        std::swap(pos_, pos_alt_);
        std::swap(vel_, vel_new_);
        std::swap(mass_, mass_alt_);
        std::swap(id_, id_alt_);
    }

    // Where the contact list saw the particles (pos_seen_: the soft contact's sub-steps search
    // from these positions).
    void remember_positions() {
        auto pos = pos_.cview();
        auto seen = pos_seen_.view();
        exec_.parallel_for(size(), FS_LAMBDA(int i) { seen[i] = pos[i]; });
    }

    grid::Neighbors2 grid_neighbors(const Config& c) const {
        return {c.grid, c.boundary == kPeriodic, sort_.cell_start(), pos_.cview()};
    }
    grid::AllPairs all_pairs() const { return {size()}; }

    // the particle tutorial, "collisions": each particle picks its nearest approaching neighbour; pairs that
    // picked each other collide (one impulse each, see collision_velocity). A pair that did not
    // match this step is still close and approaching at the next one. Result: no race, no
    // dependence on thread count or visiting order, and each collision conserves momentum (and
    // energy for restitution 1) exactly as a two-body collision does.
    void collide(const Config& c) {
        if (!c.collisions) {
            clear_collisions();
            return;
        }
        if (c.contact == kSoft) {
            soft_contacts(c);
            return;
        }
        const bool periodic = c.boundary == kPeriodic;
        if (c.detector == kGrid)
            choose_partners(grid_neighbors(c), c.distance2, periodic);
        else
            choose_partners(all_pairs(), c.distance2, periodic);

        // Each pair that chose each other, once, by its lower index: both new velocities from the
        // old ones, written in place. The pairs are disjoint, so no iteration reads what another
        // writes, and the particles without a partner (nineteen in twenty in the gas) are not
        // touched: no copy of every velocity to a second array (16 bytes a particle less
        // traffic; on the CPU the time measured the same). One particle in about forty starts a
        // pair, at irregular gaps, so the loop's loads of positions, velocities and masses were
        // cache misses one at a time (perf: 9% of the gas's step, on the first load); each
        // thread's loop asks for the lines kAhead particles on, a line (four 16-byte values,
        // eight masses) at a time.
        auto partner = partner_.cview();
        auto pos = pos_.cview();
        auto vel = vel_.view();
        auto mass = mass_.cview();
        const double e = c.restitution;
        const int last = size() - 1;
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            if ((i & 3) == 0) {
                const int a = min_of(i + kAhead, last);
                prefetch(pos.data + a);
                prefetch(vel.data + a);
                if ((i & 7) == 0) prefetch(mass.data + a);
            }
            const int p = partner[i];
            if (p > i && partner[p] == i) {
                const dvec2 vi = collision_velocity(i, p, pos.data, vel.data, mass.data, e, periodic);
                const dvec2 vp = collision_velocity(p, i, pos.data, vel.data, mass.data, e, periodic);
                vel[i] = vi;
                vel[p] = vp;
            }
        });
    }

    template <class Neighbors>
    void choose_partners(const Neighbors nb, double distance2, bool periodic) {
        auto partner = partner_.view();
        auto tests = tests_.view();
        auto contacts = contacts_.view();
        auto pos = pos_.cview();
        auto vel = vel_.cview();
        auto id = id_.cview();
        auto overlap = overlap_.view();
#if defined(FS_EULER_AVX512)
        if constexpr (std::is_same_v<Neighbors, grid::Neighbors2>) {
            if (simd_) {  // euler_simd.hpp, kLaneBlock particles at a time
                const int n = size();
                // Blocks as tasks: fewer than CpuExec::kSerialBelow of them (10^5 particles make
                // 1 563) would run on one core.
                exec_.parallel_tasks((n + kLaneBlock - 1) / kLaneBlock, [=](int b) {
                    simd::choose_partners(nb, b * kLaneBlock, std::min(n, (b + 1) * kLaneBlock), distance2, periodic,
                                          vel.data, id.data, partner.data, tests.data, contacts.data, overlap.data);
                });
                return;
            }
        }
#endif
        exec_.parallel_for(size(), FS_LAMBDA(int i) {
            const dvec2 xi = pos[i], vi = vel[i];
            PartnerSearch search(distance2);
            tests[i] = nb.for_each(i, [&](int j) { search.visit(i, j, xi, vi, pos.data, vel.data, id.data, periodic); });
            partner[i] = search.best.j;
            contacts[i] = search.near;
            overlap[i] = search.overlap();
        });
    }

    // Soft contact (euler_kernels.hpp, pair_force): `substeps` sub-steps of h = tau/substeps, each
    // the contact forces at the current positions and velocities, then v += h F/m, x += h v
    // (semi-implicit Euler, as the tutorial's step, at the contacts' time scale). Gravity acts
    // in every sub-step too: given once per step, as the forces stage does for impulses, its kick
    // of g tau sets the contact springs ringing, and a heap never comes to rest (measured: the
    // default scene's heap kept a root-mean-square speed of half g tau). The walls are contact
    // partners here; bounce_on_borders only catches what gets past them.
    void soft_contacts(const Config& c) {
        const double h = c.tau / c.substeps;
        const dvec2 dv = h * c.gravity;
        for (int k = 0; k < c.substeps; ++k) {
            update_contact_list(c);
            pair_forces(c);
            contact_sums_and_move(c, h, dv, k == c.substeps - 1);
        }
        auto partner = partner_.view();
        exec_.parallel_for(size(), FS_LAMBDA(int i) { partner[i] = -1; });
    }

    // The soft contact's neighbour list (a Verlet list, Verlet 1967): for each particle, every
    // other one within d + skin of it where the list was made. While no particle has moved
    // skin/2 from there, no pair outside the list can overlap, so the list serves step after
    // step; it is made again (after a sort by cell, for the grid detector) when one has, or when
    // what it depends on changed. The forces do not depend on the list's order or extent
    // (to_quanta), so when it is rebuilt changes nothing but the pair_tests counter.
    void update_contact_list(const Config& c) {
        const bool same = list_valid_ && list_diameter_ == c.diameter &&
                          list_boundary_ == c.boundary && list_detector_ == c.detector;
        if (same && max_moved2() <= 0.25 * list_skin_ * list_skin_) return;
        if (c.boundary == kPeriodic) {
            // The sub-steps may have carried a particle across the border since the last step's
            // wrap; the grid would clamp it into the cell on the far side from its neighbours
            // there, and the list would lose pairs on one side only (their two ends would no
            // longer list each other).
            auto pos = pos_.view();
            exec_.parallel_for(size(), FS_LAMBDA(int i) { wrap_into_box(pos[i]); });
        }
        if (c.detector == kGrid) {
            sort_by_cell(c);
            remember_positions();
            build_contact_list(grid::Neighbors2{c.grid, c.boundary == kPeriodic, sort_.cell_start(),
                                                pos_seen_.cview()},
                               c);
        } else {
            remember_positions();
            build_contact_list(all_pairs(), c);
        }
        list_valid_ = true;
        list_skin_ = c.skin;
        list_diameter_ = c.diameter;
        list_boundary_ = c.boundary;
        list_detector_ = c.detector;
    }

    // Particles a task of the contact loops takes: a particle's work (its listed pairs) costs far
    // more than a loop's overhead, and the heap's particles have many more pairs than the falling
    // ones, so the threads take small chunks in turn rather than halves of the array (measured on
    // `default`, 2 threads: the halves left a thread waiting for a quarter of the step).
    static constexpr int kContactChunk = 64;

    // The contact list in rows of row_ entries, one a particle (list_count_ says how many of its
    // row hold neighbours): one search of the grid fills them (a list packed end to end needs a
    // second, to place each particle's after the counts are known: a tenth of `default`'s step).
    // A row too short for a particle's neighbours widens them all and the search runs again.
    template <class Neighbors>
    void build_contact_list(const Neighbors nb, const Config& c) {
        const int n = size();
        const bool periodic = c.boundary == kPeriodic;
        const double reach = c.diameter + c.skin;
        const double reach2 = reach * reach;
        auto seen = pos_seen_.cview();
        auto count = list_count_.resized(static_cast<std::size_t>(n));
        auto upper = pair_start_.resized(static_cast<std::size_t>(n) + 1);
        for (;;) {
            const int row = row_;
            auto list = list_.resized(static_cast<std::size_t>(n) * static_cast<std::size_t>(row));
            exec_.parallel_chunks(n + 1, kContactChunk, FS_LAMBDA(int i) {
                // The append has no branch (a candidate is inside at random, a third of the time,
                // and the mispredicted branch was most of this loop's time): j goes to the next
                // slot and counts if inside (a later candidate overwrites it if not); a full row
                // keeps what it holds.
                int k = 0, above = 0;
                const long long first = static_cast<long long>(i) * row;
                if (i < n) nb.for_each(i, [&](int j) {
                    const dvec2 r = separation(seen[i], seen[j], periodic);
                    const int inside = r.x * r.x + r.y * r.y < reach2 ? 1 : 0;
                    const bool room = k < row;
                    const long long at = first + (room ? k : row - 1);
                    list[at] = room ? j : list[at];
                    k += inside;
                    above += inside & (j > i ? 1 : 0);
                });
                if (i < n) count[i] = k;
                upper[i] = above;
            });
            const int most = exec_.transform_reduce(n, 0, FS_LAMBDA(int i) { return count[i]; }, Largest{});
            if (most <= row) break;
            row_ = most + most / 4 + 1;
        }
        exec_.exclusive_scan(View<const int>(upper), upper);
        int pairs = 0;
        mem_copy(&pairs, MemorySpace::Host, upper.data + n, kSpace, sizeof(int));
        // Each listed pair once (pair_a_, pair_b_: ordered by id, as pair_force wants them), and
        // for each entry of the list the pair it names and which end of it the particle is
        // (slot_: 2 p + 1 where the particle is b, on which the pair's force acts, 2 p where it
        // is a). The list is symmetric (j lists i exactly when i lists j: the same distance test
        // on the same positions), so the pair (j, i) of an entry with j < i is among j's.
        const int row = row_;
        auto list = list_.cview();
        auto pstart = pair_start_.cview();
        auto id = id_.cview();
        auto pa = pair_a_.resized(static_cast<std::size_t>(pairs));
        auto pb = pair_b_.resized(static_cast<std::size_t>(pairs));
        auto slot = slot_.resized(static_cast<std::size_t>(n) * static_cast<std::size_t>(row));
        pair_q_.resized(static_cast<std::size_t>(pairs));
        gamma_stale_ = true;
        exec_.parallel_chunks(n, kContactChunk, FS_LAMBDA(int i) {
            int p = pstart[i];
            const long long first = static_cast<long long>(i) * row;
            for (long long k = first; k < first + count[i]; ++k) {
                const int j = list[k];
                const bool i_first = id[i] < id[j];
                if (j > i) {
                    pa[p] = i_first ? i : j;
                    pb[p] = i_first ? j : i;
                    slot[k] = 2 * p + (i_first ? 0 : 1);
                    ++p;
                } else {
                    const long long jf = static_cast<long long>(j) * row, jend = jf + count[j];
                    int q = pstart[j];
                    long long m = jf;
                    for (; m < jend && list[m] != i; ++m) q += list[m] > j;
                    // (Not found only where a position is not finite, which the step reports:
                    // the entry is left out rather than read out of range.)
                    slot[k] = m < jend ? 2 * q + (i_first ? 0 : 1) : -1;
                }
            }
        });
    }

    // The largest squared distance a particle has moved since the contact list was made.
    double max_moved2() {
        auto pos = pos_.cview();
        auto seen = pos_seen_.cview();
        return exec_.transform_reduce(
            size(), 0.0,
            FS_LAMBDA(int i) {
                const dvec2 d = pos[i] - seen[i];
                return d.x * d.x + d.y * d.y;
            },
            Largest{});
    }

    // Each listed pair's contact force once (pair_force, in fixed point: to_quanta), and its
    // overlap (0 when apart). Once a pair, not once each end: the force is half the work of a
    // sub-step, and both ends apply the same quanta with opposite signs.
    void pair_forces(const Config& c) {
        pair_gammas(c);
        auto pos = pos_.cview();
        auto vel = vel_.cview();
        auto gamma = pair_gamma_.cview();
        auto pa = pair_a_.cview();
        auto pb = pair_b_.cview();
        auto q = pair_q_.view();
        const bool periodic = c.boundary == kPeriodic;
        const double scale = c.force_scale;
#if defined(FS_EULER_AVX512)
        if (simd_ && !periodic) {  // euler_simd.hpp, eight pairs at a time, kPairBlock pairs a task
            constexpr int kPairBlock = 1024;
            const int pairs = static_cast<int>(pair_q_.size());
            const Config cfg = c;
            exec_.parallel_tasks((pairs + kPairBlock - 1) / kPairBlock, [=](int t) {
                simd::pair_forces(t * kPairBlock, std::min(pairs, (t + 1) * kPairBlock), pa.data, pb.data, pos.data,
                                  vel.data, gamma.data, cfg, scale, q.data);
            });
            return;
        }
#endif
        exec_.parallel_for(static_cast<int>(pair_q_.size()), FS_LAMBDA(int p) {
            const int a = pa[p], b = pb[p];
            double ov;
            const dvec2 f = pair_force(separation(pos[a], pos[b], periodic), vel[b] - vel[a], gamma[p], c, ov);
            q[p] = PairQuanta{to_quanta(f.x, scale), to_quanta(f.y, scale), ov};
        });
    }

    // Each listed pair's dashpot coefficient (pair_damping), made again when the list, the masses
    // (a state uploaded) or the spring's stiffness and damping ratio changed: once a list, not
    // once a sub-step. The same expression as before, so the same bits.
    void pair_gammas(const Config& c) {
        if (!gamma_stale_ && gamma_k_ == c.stiffness && gamma_zeta_ == c.zeta) return;
        auto mass = mass_.cview();
        auto pa = pair_a_.cview();
        auto pb = pair_b_.cview();
        auto gamma = pair_gamma_.resized(pair_q_.size());
        const Config cfg = c;
        exec_.parallel_for(static_cast<int>(pair_q_.size()),
                           FS_LAMBDA(int p) { gamma[p] = pair_damping(mass[pa[p]], mass[pb[p]], cfg); });
        gamma_stale_ = false;
        gamma_k_ = c.stiffness;
        gamma_zeta_ = c.zeta;
    }

    // Each particle's contact force (its pairs' quanta summed: exact, in any order; the wall's
    // added after), then a sub-step of h: v += h F/m + h g, x += h v (semi-implicit Euler).
    // With `report` (the step's last sub-step, whose contacts the stats give), also the pairs
    // tested, the overlapping pairs (each counted at its a end), and the deepest overlap.
    void contact_sums_and_move(const Config& c, double h, dvec2 dv, bool report) {
        auto pos = pos_.view();
        auto vel = vel_.view();
        auto mass = mass_.cview();
        auto count = list_count_.cview();
        auto slot = slot_.cview();
        auto q = pair_q_.cview();
        const int row = row_;
        auto tests = tests_.view();
        auto contacts = contacts_.view();
        auto overlap = overlap_.view();
        const bool walls = c.boundary == kWalls;
        const double scale = c.force_scale;
        exec_.parallel_chunks(size(), 4 * kContactChunk, FS_LAMBDA(int i) {
            long long qx = 0, qy = 0;
            const long long first = static_cast<long long>(i) * row, end = first + count[i];
            for (long long k = first; k < end; ++k) {
                const int s = slot[k];
                if (s < 0) continue;
                const PairQuanta& pq = q[s >> 1];
                const long long sign = (s & 1) ? 1 : -1;  // the force acts on b; a feels its opposite
                qx += sign * pq.x;
                qy += sign * pq.y;
            }
            dvec2 force(static_cast<double>(qx) / scale, static_cast<double>(qy) / scale);
            const double m = mass[i];
            double wall_overlap = 0.0;
            if (walls) force += wall_force(pos[i], vel[i], m, c, wall_overlap);
            if (report) {
                int touching = 0;
                double deepest = wall_overlap;
                for (long long k = first; k < end; ++k) {
                    const int s = slot[k];
                    if (s < 0) continue;
                    const double ov = q[s >> 1].overlap;
                    touching += (s & 1) == 0 && ov > 0.0;
                    deepest = ov > deepest ? ov : deepest;
                }
                tests[i] = count[i];
                contacts[i] = touching;
                overlap[i] = deepest;
            }
            const dvec2 v = vel[i] + ((h / m) * force + dv);  // as v += h F/m + h g
            vel[i] = v;
            pos[i] += h * v;
        });
    }

    // the particle tutorial, semi-explicit Euler: x += tau * V (with the velocity already updated). Soft
    // contact has moved the particles in its sub-steps already.
    void integrate(const Config& c) {
        if (c.contact == kSoft && c.collisions) return;
        const double tau = c.tau;
        auto pos = pos_.view();
        auto vel = vel_.cview();
        exec_.parallel_for(size(), FS_LAMBDA(int i) { pos[i] += tau * vel[i]; });
    }

    void bounce(const Config& c) {
        auto pos = pos_.view();
        if (c.boundary == kPeriodic) {
            exec_.parallel_for(size(), FS_LAMBDA(int i) { wrap_into_box(pos[i]); });
        } else if (c.boundary == kWalls) {
            const double damp = c.wall_damping;
            auto vel = vel_.view();
            exec_.parallel_for(size(), FS_LAMBDA(int i) { bounce_on_borders(pos[i], vel[i], damp); });
        }
    }

    Sums sums() override {
        auto pos = pos_.cview();
        auto vel = vel_.cview();
        auto mass = mass_.cview();
        auto partner = partner_.cview();
        auto tests = tests_.cview();
        auto contacts = contacts_.cview();
        auto overlap = overlap_.cview();
        return exec_.transform_reduce(
            size(), Sums{},
            FS_LAMBDA(int i) {
                Sums s;
                const dvec2 v = vel[i];
                s.set_motion(mass[i], v);
                s.pair_tests = tests[i];
                s.contacts = contacts[i];
                const int p = partner[i];
                s.matched = (p >= 0 && partner[p] == i) ? 1 : 0;
                s.nonfinite = not_finite(pos[i], v);
                s.max_overlap = overlap[i];
                s.min_mass = mass[i];
                return s;
            },
            SumsOp{});
    }

    std::vector<std::pair<int, int>> candidate_pairs(const Config& c) override {
        const bool periodic = c.boundary == kPeriodic;
        if (c.detector == kGrid) {
            sort_by_cell(c);
            list_valid_ = false;
            return list_pairs(grid_neighbors(c), c.distance2, periodic);
        }
        return list_pairs(all_pairs(), c.distance2, periodic);
    }

    // Pairs (id_i < id_j) of close, approaching particles, found through `nb`.
    template <class Neighbors>
    std::vector<std::pair<int, int>> list_pairs(const Neighbors nb, double distance2, bool periodic) {
        auto pos = pos_.cview();
        auto vel = vel_.cview();
        auto id = id_.cview();
        return grid::collect_pairs(exec_, size(), nb, id, [=] FS_HD(int i, int j) {
            double d2;
            return is_candidate(separation(pos[i], pos[j], periodic), vel[j] - vel[i], distance2, d2);
        });
    }

    std::vector<int> partners() const override { return partner_.to_vector(); }
    void synchronize() override { exec_.synchronize(); }

    // Whether the collide stage's partner search takes euler_simd.hpp's eight-lane loop (on by
    // default where the host has AVX-512F; the results are the same bits either way). For tests.
    bool simd() const { return simd_; }
    void set_simd(bool on) { simd_ = on && kSpace == MemorySpace::Host && simd::available(); }
    // Particles a call of the eight-lane loop takes (its constants set up once).
    static constexpr int kLaneBlock = 64;
    // How far ahead the pairs' resolution asks for its particles' lines (collide).
    static constexpr int kAhead = 64;

private:
    Exec exec_;
    // The particles, in an order that grid_build changes (id_ says who is who).
    Buffer<dvec2> pos_{kSpace}, vel_{kSpace};
    Buffer<double> mass_{kSpace};
    Buffer<int> id_{kSpace};
    // Second copies: grid_build's reordered arrays.
    Buffer<dvec2> vel_new_{kSpace}, pos_alt_{kSpace};
    // Soft contact: where the contact list saw each particle, and the contact force on it; the
    // list (particle i's neighbours are list_[i row_ .. i row_ + list_count_[i])) and what
    // it was made for.
    Buffer<dvec2> pos_seen_{kSpace};
    Buffer<int> list_count_{kSpace}, list_{kSpace};
    int row_ = 16;
    // The list's pairs once each (a, b ordered by id), where each particle's start among those
    // it is the lower index of, each list entry's pair and end (build_contact_list), and each
    // pair's force in the current sub-step (pair_forces).
    Buffer<int> pair_start_{kSpace}, pair_a_{kSpace}, pair_b_{kSpace}, slot_{kSpace};
    Buffer<PairQuanta> pair_q_{kSpace};
    Buffer<double> pair_gamma_{kSpace};  // each pair's dashpot coefficient (pair_gammas)
    bool gamma_stale_ = true;
    double gamma_k_ = 0.0, gamma_zeta_ = 0.0;  // what pair_gamma_ was made with
    bool list_valid_ = false;
    double list_skin_ = 0.0, list_diameter_ = 0.0;
    int list_boundary_ = -1, list_detector_ = -1;
    // Per particle: its deepest overlap in the last contact pass, as a fraction of d.
    Buffer<double> overlap_{kSpace};
    Buffer<double> mass_alt_{kSpace};
    Buffer<int> id_alt_{kSpace};
    // Per particle: chosen partner (array index), pair tests made, candidates of higher index.
    Buffer<int> partner_{kSpace}, tests_{kSpace}, contacts_{kSpace};
    grid::CellSort<Exec> sort_;
    bool simd_ = kSpace == MemorySpace::Host && simd::available();
};

}  // namespace fs::euler
