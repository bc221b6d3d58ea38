// Part of the FLIP pipeline (flip_pipeline.hpp; the class in flip_pipeline_class.hpp): the
// PIC-FLIP assignment's transfers between particles and grid, P2G (by gather or by scatter) and G2P (PIC/FLIP
// blend or APIC), for both executors.
#pragma once

#include <cmath>

#include "solvers/flip/flip_pipeline_class.hpp"

namespace fs::flip {

// The affine vectors exist while the scheme is APIC: sized with the particles (c = 0 when
// they were not carried, e.g. after switching from pic_flip), released otherwise.
template <class Exec>
void Pipeline<Exec>::ensure_affine(bool apic) {
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

// the PIC-FLIP assignment, Particle-to-Grid: each face gets the kernel-weighted average of the velocities
// of the particles within reach, u_f = sum w_p v_p / sum w_p (a face nobody reaches is
// invalid); under APIC the velocity each particle gives face f is its affine field there,
// v_p,a + c_p,a . (x_f - x_p) (Jiang et al. 2015: m_i v_i = sum_p w_ip m_p (v_p + C_p (x_i -
// x_p)), per MAC component, equal particle masses). First the particles are sorted and
// permuted into that order: by half cell (half_cell_index) for the gather, which reads each
// face's half cells; by row of half cells (half_row_index) for the scatter, which reads whole
// rows and takes each particle's half cell along x itself. The rows' keys span an eighth of
// the bits' range the half cells' do (14 bits at 64^3, not 21): two radix passes instead of
// three, and 16 385 starts to write instead of 2 097 153.
template <class Exec>
void Pipeline<Exec>::p2g(const Config& c) {
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
template <class Exec>
template <int W, bool Apic>
void Pipeline<Exec>::p2g_scatter(const MacGrid& g) {
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
template <class Exec>
template <int W, bool Apic>
void Pipeline<Exec>::p2g_axis(const MacGrid& g, int a) {
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
                        // the PIC-FLIP assignment's trilinear weight, w = k(dx) k(dy) k(dz)
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

// the PIC-FLIP assignment, Grid-to-Particle: v = flip (v + interp(u_new - u_old)) + (1 - flip) interp(u_new)
// (the assignment's alpha is 1 - flip_ratio). Under APIC, v = interp(u_new) and each
// component's affine vector from the same faces (interpolate_affine; flip_ratio unused).
template <class Exec>
void Pipeline<Exec>::g2p(const Config& c) {
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
// the PIC-FLIP assignment's blend flip (v + interp(u_new) - interp(u_old)) + (1 - flip) interp(u_new) is
// flip v + interp(u_new - flip u_old): old_ takes u_new - flip u_old first (it is not read
// after G2P, and P2G writes it anew), and each particle reads one field where it read two.
template <class Exec>
template <int W, bool Shift>
void Pipeline<Exec>::g2p_pic_flip(const Config& c) {
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

template <class Exec>
void Pipeline<Exec>::g2p_apic(const Config& c) {
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

}  // namespace fs::flip
