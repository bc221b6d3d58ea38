// The kernel bodies of particle_surface.hpp, run by either executor: the level set on the
// nodes, marching tetrahedra over the cells, and the mesh's vertices welded by the grid edge
// they lie on.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <glm/glm.hpp>

#include "core/buffer.hpp"
#include "core/hd.hpp"
#include "core/memory.hpp"
#include "solvers/common/cell_sort.hpp"
#include "surface/particle_surface.hpp"

namespace fs::surface_detail {

using glm::dvec3;

// The nodes of the level set: nx x ny x nz points origin + step * (i, j, k).
struct NodeGrid {
    dvec3 origin;
    double step = 1.0;
    int nx = 0, ny = 0, nz = 0;
    FS_HDI int node(int i, int j, int k) const { return i + nx * (j + ny * k); }
    FS_HDI int nodes() const { return nx * ny * nz; }
    FS_HDI int cells() const { return (nx - 1) * (ny - 1) * (nz - 1); }
    FS_HDI dvec3 position(int i, int j, int k) const { return origin + step * dvec3(i, j, k); }
};

// Cubic bins of side R / 2 (R: the kernel radius) over the nodes' box, for the particles near a
// node: those within R lie in the 5 x 5 x 5 bins around the node's. (Bins of side R, 3 x 3 x 3 of
// them, visit 6.5 particles for each one within R; these 3.7.)
struct Bins {
    dvec3 origin;
    double size = 1.0;
    int nx = 1, ny = 1, nz = 1;
    FS_HDI int cells() const { return nx * ny * nz; }
    FS_HDI int clamp_index(double x, int n) const {
        const int i = static_cast<int>(std::floor(x / size));
        return i < 0 ? 0 : (i >= n ? n - 1 : i);
    }
    FS_HDI glm::ivec3 coords(const dvec3& p) const {
        const dvec3 q = p - origin;
        return {clamp_index(q.x, nx), clamp_index(q.y, ny), clamp_index(q.z, nz)};
    }
    FS_HDI int bin(const glm::ivec3& b) const { return b.x + nx * (b.y + ny * b.z); }
};

// The smoothing kernel of Zhu & Bridson 2005 (eq. 3): k(s) = max(0, (1 - s^2)^3), s = |x - x_i| / R.
FS_HDI double zb_kernel(double s2) {
    const double t = 1.0 - s2;
    return t > 0.0 ? t * t * t : 0.0;
}

// A cell's corner c (bits x = 1, y = 2, z = 4) as an offset.
FS_HDI glm::ivec3 corner_offset(int c) { return {c & 1, (c >> 1) & 1, (c >> 2) & 1}; }

// The Kuhn split of the unit cube into six tetrahedra, one for each order (a, b, c) of the axes:
// corners 0, a, a + b, and 7 (Freudenthal 1942; Kuhn 1960). Any two corners of one tetrahedron
// are ordered by inclusion, so every edge runs from a corner u to u + d with d one of the 7
// nonzero 0/1 vectors, the same in neighbouring cells: the split is a consistent
// triangulation of the whole grid.
FS_HDI void kuhn_tet(int t, int c[4]) {
    const int a = t < 2 ? 1 : (t < 4 ? 2 : 4);
    int b = 0;
    switch (t) {
        case 0: b = 2; break;
        case 1: b = 4; break;
        case 2: b = 1; break;
        case 3: b = 4; break;
        case 4: b = 1; break;
        default: b = 2; break;
    }
    c[0] = 0;
    c[1] = a;
    c[2] = a | b;
    c[3] = 7;
}

// The grid edge between two corners u, v of a cell's tetrahedron (one contains the other, as
// bit sets): 7 * (its lower node) + (its direction's bits - 1). Every node owns 7 edges.
FS_HDI int edge_id(const NodeGrid& g, int i, int j, int k, int u, int v) {
    const int lo = (u & v) == u ? u : v;
    const int d = u ^ v;
    const glm::ivec3 o = corner_offset(lo);
    return 7 * g.node(i + o.x, j + o.y, k + o.z) + (d - 1);
}

// Where the level set crosses a grid edge: linear interpolation between its end nodes' values,
// one of which is negative (inside) and the other not.
FS_HDI dvec3 edge_point(const NodeGrid& g, View<const float> phi, int edge) {
    const int node = edge / 7, d = edge % 7 + 1;
    const int i = node % g.nx, j = (node / g.nx) % g.ny, k = node / (g.nx * g.ny);
    const glm::ivec3 o = corner_offset(d);
    const double a = phi[node], b = phi[g.node(i + o.x, j + o.y, k + o.z)];
    const double t = a / (a - b);
    return g.position(i, j, k) + t * g.step * dvec3(o);
}

// Marching tetrahedra over cell `cell`: returns its triangle count and, when `out` is given,
// writes each triangle's three edge ids there, ordered so that the triangle's normal (right-hand
// rule) points out of the liquid (from the tetrahedron's inside corners towards its outside ones).
FS_HDI int march_cell(const NodeGrid& g, View<const float> phi, int cell, int* out) {
    const int cx = g.nx - 1, cy = g.ny - 1;
    const int i = cell % cx, j = (cell / cx) % cy, k = cell / (cx * cy);
    float v[8];
    int inside_mask = 0;
    for (int c = 0; c < 8; ++c) {
        const glm::ivec3 o = corner_offset(c);
        v[c] = phi[g.node(i + o.x, j + o.y, k + o.z)];
        if (v[c] < 0.0f) inside_mask |= 1 << c;
    }
    if (inside_mask == 0 || inside_mask == 255) return 0;
    int made = 0;
    for (int t = 0; t < 6; ++t) {
        int c[4];
        kuhn_tet(t, c);
        int in[4], out_c[4], n_in = 0, n_out = 0;
        for (int q = 0; q < 4; ++q) {
            if (inside_mask >> c[q] & 1)
                in[n_in++] = c[q];
            else
                out_c[n_out++] = c[q];
        }
        if (n_in == 0 || n_out == 0) continue;
        const int tris = n_in == 2 ? 2 : 1;
        if (out) {
            int e[2][3];
            dvec3 mid[2][3];
            auto edge = [&](int s, int q, int u, int v) {
                e[s][q] = edge_id(g, i, j, k, u, v);
                mid[s][q] = 0.5 * dvec3(corner_offset(u) + corner_offset(v));
            };
            if (n_in == 1) {
                for (int q = 0; q < 3; ++q) edge(0, q, in[0], out_c[q]);
            } else if (n_in == 3) {
                for (int q = 0; q < 3; ++q) edge(0, q, out_c[0], in[q]);
            } else {  // a quad with corners on edges (i0 o0), (i0 o1), (i1 o1), (i1 o0), in that cycle
                edge(0, 0, in[0], out_c[0]);
                edge(0, 1, in[0], out_c[1]);
                edge(0, 2, in[1], out_c[1]);
                edge(1, 0, in[0], out_c[0]);
                edge(1, 1, in[1], out_c[1]);
                edge(1, 2, in[1], out_c[0]);
            }
            // Outward: from the inside corners' mean towards the outside corners'. The winding is
            // decided on the edges' midpoints, not the crossing points: a crossing at a node
            // (phi = 0 there) makes a triangle of no area, whose own normal says nothing, and
            // the midpoints' triangle winds as any crossing points' would (moving a point along
            // its edge never flips the triangle, which separates the same corners throughout).
            dvec3 cin(0.0), cout(0.0);
            for (int q = 0; q < n_in; ++q) cin += dvec3(corner_offset(in[q]));
            for (int q = 0; q < n_out; ++q) cout += dvec3(corner_offset(out_c[q]));
            const dvec3 outward = cout / double(n_out) - cin / double(n_in);
            for (int s = 0; s < tris; ++s) {
                const dvec3 p0 = mid[s][0], p1 = mid[s][1], p2 = mid[s][2];
                const bool flip = glm::dot(glm::cross(p1 - p0, p2 - p0), outward) < 0.0;
                int* o = out + 3 * (made + s);
                o[0] = e[s][0];
                o[1] = flip ? e[s][2] : e[s][1];
                o[2] = flip ? e[s][1] : e[s][2];
            }
        }
        made += tris;
    }
    return made;
}

// The cell of particle i in the bins (a functor, not an extended lambda: see CellSort).
struct BinOf {
    Bins bins;
    const double* xyz;
    int stride;
    FS_HDI int operator()(int i) const {
        const double* p = xyz + static_cast<long long>(i) * stride;
        return bins.bin(bins.coords(dvec3(p[0], p[1], p[2])));
    }
};

// The source vertex of directed edge e of the mesh (triangle e / 3, its corner e % 3 to the
// next): the key the vertices' neighbour lists are sorted by.
struct EdgeSource {
    View<const int> tri;
    FS_HDI int operator()(int e) const { return tri[e]; }
};

// The most components the fields carried onto the vertices may have in all.
constexpr int kMaxCarried = 16;

template <class Exec>
class ParticleSurface {
public:
    static constexpr MemorySpace kSpace = Exec::space;

    SurfaceMesh build(Exec& exec, const FieldView& positions, const double lo[3], const double hi[3],
                      const SurfaceSettings& s, const std::vector<CarriedField>& carried = {}) {
        if (!(s.spacing > 0.0) || !(s.cell_scale > 0.0) || !(s.support_scale > 0.0))
            throw std::invalid_argument("particle_surface: spacing, cell_scale and support_scale must be > 0");
        if (positions.type != FieldView::Type::F64 || positions.components != 3)
            throw std::invalid_argument("particle_surface: positions must be 3 doubles a particle");
        int carried_components = 0;
        for (const CarriedField& f : carried) {
            if (f.view.type != FieldView::Type::F64 || f.view.count != positions.count)
                throw std::invalid_argument("particle_surface: the field '" + f.name +
                                            "' must be doubles, one value or vector a particle");
            carried_components += f.view.components;
        }
        if (carried_components > kMaxCarried)
            throw std::invalid_argument("particle_surface: at most " + std::to_string(kMaxCarried) +
                                        " components of fields can be carried onto the vertices");
        const double step = s.cell_scale * s.spacing, R = s.support_scale * s.spacing;
        const double r = calibrated_radius(s.support_scale) * s.spacing;
        // Nodes a kernel radius and a cell beyond the domain: no particle reaches the outermost
        // ones, which stay outside, so the mesh is closed.
        NodeGrid g;
        const double pad = R + step;
        g.origin = dvec3(lo[0], lo[1], lo[2]) - dvec3(pad);
        g.step = step;
        long long nodes = 1;
        int* n[3] = {&g.nx, &g.ny, &g.nz};
        for (int a = 0; a < 3; ++a) {
            const double extent = hi[a] - lo[a] + 2.0 * pad;
            const long long m = static_cast<long long>(std::ceil(extent / step)) + 1;
            nodes *= m;
            if (nodes > s.max_nodes)
                throw std::invalid_argument("particle_surface: the level set would need over " +
                                            std::to_string(s.max_nodes) + " nodes (spacing " +
                                            std::to_string(s.spacing) + " m for a box of side " +
                                            std::to_string(hi[a] - lo[a]) + " m)");
            *n[a] = static_cast<int>(m);
        }
        Bins bins;
        bins.origin = g.origin;
        bins.size = 0.5 * R;
        bins.nx = static_cast<int>(std::ceil((g.nx - 1) * step / bins.size)) + 1;
        bins.ny = static_cast<int>(std::ceil((g.ny - 1) * step / bins.size)) + 1;
        bins.nz = static_cast<int>(std::ceil((g.nz - 1) * step / bins.size)) + 1;

        // Particles sorted by bin, their positions gathered in that order.
        const dvec3 origin = g.origin;
        const float inv_r2 = static_cast<float>(1.0 / (R * R));
        gather(exec, bins, origin, positions);
        auto order = sort_.order();
        auto start = sort_.cell_start();
        auto sx = sx_.view(), sy = sy_.view(), sz = sz_.view();

        // phi at the nodes: |x - xbar| - r with xbar the kernel-weighted mean of the particles
        // within R (Zhu & Bridson 2005, eq. 2-3); R (outside) where none is.
        auto phi = phi_.resized(static_cast<std::size_t>(g.nodes()));
        const auto px = View<const float>(sx), py = View<const float>(sy), pz = View<const float>(sz);
        exec.parallel_for(g.nodes(), FS_LAMBDA(int node) {
            const int i = node % g.nx, j = (node / g.nx) % g.ny, k = node / (g.nx * g.ny);
            const glm::ivec3 b = bins.coords(g.position(i, j, k));
            const glm::vec3 x = glm::vec3(static_cast<float>(i * g.step), static_cast<float>(j * g.step),
                                          static_cast<float>(k * g.step));
            float w = 0.0f, wdx = 0.0f, wdy = 0.0f, wdz = 0.0f;  // sums of w and of w (x_i - x)
            for (int bz = b.z - 2; bz <= b.z + 2; ++bz) {
                if (bz < 0 || bz >= bins.nz) continue;
                for (int by = b.y - 2; by <= b.y + 2; ++by) {
                    if (by < 0 || by >= bins.ny) continue;
                    const int row = bins.nx * (by + bins.ny * bz);
                    const int from = start[row + (b.x > 1 ? b.x - 2 : 0)];
                    const int to = start[row + (b.x + 2 < bins.nx ? b.x + 2 : bins.nx - 1) + 1];
                    for (int q = from; q < to; ++q) {  // a row of up to 5 bins is one range
                        const float dx = px[q] - x.x, dy = py[q] - x.y, dz = pz[q] - x.z;
                        const float t = std::fmax(0.0f, 1.0f - (dx * dx + dy * dy + dz * dz) * inv_r2);
                        const float wk = t * t * t;  // zb_kernel, without a branch
                        w += wk;
                        wdx += wk * dx;
                        wdy += wk * dy;
                        wdz += wk * dz;
                    }
                }
            }
            phi[node] = w > 0.0f ? std::sqrt(wdx * wdx + wdy * wdy + wdz * wdz) / w - static_cast<float>(r)
                                 : static_cast<float>(R);
        });

        // Triangles a cell, their offsets, and the triangles as edge ids.
        const int cells = g.cells();
        auto tri_count = tri_count_.resized(static_cast<std::size_t>(cells) + 1);
        const auto cphi = View<const float>(phi);
        exec.parallel_for(cells + 1, FS_LAMBDA(int c) { tri_count[c] = c < cells ? march_cell(g, cphi, c, nullptr) : 0; });
        auto tri_start = tri_start_.resized(static_cast<std::size_t>(cells) + 1);
        exec.exclusive_scan(View<const int>(tri_count), tri_start);
        int triangles = 0;
        mem_copy(&triangles, MemorySpace::Host, tri_start.data + cells, kSpace, sizeof(int));
        auto tri = tri_.resized(3 * static_cast<std::size_t>(triangles));
        const int edges = 7 * g.nodes();
        auto used = used_.resized(static_cast<std::size_t>(edges) + 1);
        exec.parallel_for(edges + 1, FS_LAMBDA(int e) { used[e] = 0; });
        exec.parallel_for(cells, FS_LAMBDA(int c) {
            const int first = tri_start[c], made = tri_start[c + 1] - first;
            if (made == 0) return;
            march_cell(g, cphi, c, tri.data + 3 * first);
            for (int q = 0; q < 3 * made; ++q) used[tri[3 * first + q]] = 1;  // the same 1 from any writer
        });

        // One vertex an edge the surface crosses, numbered in edge order; triangles renumbered.
        auto vid = vid_.resized(static_cast<std::size_t>(edges) + 1);
        exec.exclusive_scan(View<const int>(used), vid);
        int vertices = 0;
        mem_copy(&vertices, MemorySpace::Host, vid.data + edges, kSpace, sizeof(int));
        auto pts = pts_.resized(3 * static_cast<std::size_t>(vertices));
        exec.parallel_for(edges, FS_LAMBDA(int e) {
            if (vid[e + 1] == vid[e]) return;
            const dvec3 p = edge_point(g, cphi, e);
            float* o = pts.data + 3 * vid[e];
            o[0] = static_cast<float>(p.x);
            o[1] = static_cast<float>(p.y);
            o[2] = static_cast<float>(p.z);
        });
        exec.parallel_for(3 * triangles, FS_LAMBDA(int q) { tri[q] = vid[tri[q]]; });

        if (s.method == SurfaceMethod::Smooth && vertices > 0 && s.smoothing_steps > 0) smooth(exec, vertices, triangles, s);
        // The carried fields: over half the level set's radius (the particles nearest the
        // surface, a quarter of the reads; a velocity for motion blur needs no wider mean).
        const Near near{bins, start, px, py, pz, origin, 4.0f * inv_r2, 1};

        SurfaceMesh mesh;
        pts_.copy_to_host(mesh.points);
        tri_.copy_to_host(mesh.triangles);
        if (carried_components > 0 && vertices > 0) carry(exec, near, vertices, order, carried, carried_components, mesh);
        return mesh;
    }

    // (Public: nvcc refuses a device lambda in a private member function.)
    // The particles near a point, sorted by bin, in floats from the grid's origin: the kernel
    // sums at the vertices read them as the level set's nodes do.
    struct Near {
        Bins bins;
        View<const int> start;
        View<const float> px, py, pz;
        dvec3 origin;
        float inv_r2;  // 1 / radius^2
        int reach;     // bins either side: 2 for the level set's radius R (bins of R / 2), 1 for R / 2
        // f(q, w) for each sorted particle q within the radius of x (world), with its kernel
        // weight w (zb_kernel).
        template <class F>
        FS_HDI void each(const glm::vec3& x_world, F&& f) const {
            const glm::ivec3 b = bins.coords(dvec3(x_world));
            const glm::vec3 x = glm::vec3(dvec3(x_world) - origin);
            for (int bz = b.z - reach; bz <= b.z + reach; ++bz) {
                if (bz < 0 || bz >= bins.nz) continue;
                for (int by = b.y - reach; by <= b.y + reach; ++by) {
                    if (by < 0 || by >= bins.ny) continue;
                    const int row = bins.nx * (by + bins.ny * bz);
                    const int from = start[row + (b.x >= reach ? b.x - reach : 0)];
                    const int to = start[row + (b.x + reach < bins.nx ? b.x + reach : bins.nx - 1) + 1];
                    for (int q = from; q < to; ++q) {
                        const float dx = px[q] - x.x, dy = py[q] - x.y, dz = pz[q] - x.z;
                        const float t = 1.0f - (dx * dx + dy * dy + dz * dz) * inv_r2;
                        if (t > 0.0f) f(q, t * t * t);
                    }
                }
            }
        }
    };

    // Sorts the particles by bin and gathers their positions in that order: in floats, from
    // the grid's origin, one array a coordinate (a quarter of the bytes the level set's loop
    // reads, and that loop vectorises on the CPU; the mesh is written in floats anyway).
    void gather(Exec& exec, const Bins& bins, const dvec3& origin, const FieldView& positions) {
        const int count = positions.count;
        const double* xyz = static_cast<const double*>(positions.data);
        const int stride = positions.stride;
        sort_.build(exec, bins.cells(), count, BinOf{bins, xyz, stride});
        auto order = sort_.order();
        auto sx = sx_.resized(static_cast<std::size_t>(count)), sy = sy_.resized(static_cast<std::size_t>(count)),
             sz = sz_.resized(static_cast<std::size_t>(count));
        exec.parallel_for(count, FS_LAMBDA(int s_) {
            const double* p = xyz + static_cast<long long>(order[s_]) * stride;
            sx[s_] = static_cast<float>(p[0] - origin.x);
            sy[s_] = static_cast<float>(p[1] - origin.y);
            sz[s_] = static_cast<float>(p[2] - origin.z);
        });
    }

    // SurfaceMethod::Smooth: Laplacian steps on the mesh (each vertex moved 0.9 of the way to its
    // neighbours' mean; Taubin 1995, section 3: stable below 1 / (largest eigenvalue of the
    // umbrella operator, 2)), only where the surface is flat: still water's
    // surface carries the particles' sampling noise as bumps a few cells wide, which Laplacian
    // steps flatten (a flat surface is their fixed point, so its height stays), while a curved
    // surface, which they would shrink, and a sheet's rim or a drop, are left as they are. The
    // flatness of a vertex: its normal, averaged over its three rings of neighbours, against its
    // neighbours' averaged normals, the mean of |n_u - n_v|^2 (a sphere of radius r in edge
    // lengths a reads (a / r)^2); full steps below flat_below, none above curved_above.
    // Neighbours and incident triangles come from the triangles' directed edges sorted by their
    // source vertex (the mesh is closed: each directed edge once).
    void smooth(Exec& exec, int vertices, int triangles, const SurfaceSettings& s) {
        const auto tri = View<const int>(tri_.view());
        adjacency_.build(exec, vertices, 3 * triangles, EdgeSource{tri});
        const auto order = adjacency_.order();
        const auto first = adjacency_.cell_start();
        auto pts = pts_.view();
        // Area-weighted normals from the incident triangles.
        auto n = normal_.resized(3 * static_cast<std::size_t>(vertices)), m = normal_alt_.resized(3 * static_cast<std::size_t>(vertices));
        exec.parallel_for(vertices, FS_LAMBDA(int v) {
            glm::vec3 sum(0.0f);
            for (int q = first[v]; q < first[v + 1]; ++q) {
                const int t = order[q] / 3;
                const glm::vec3 a(pts[3 * tri[3 * t]], pts[3 * tri[3 * t] + 1], pts[3 * tri[3 * t] + 2]);
                const glm::vec3 b(pts[3 * tri[3 * t + 1]], pts[3 * tri[3 * t + 1] + 1], pts[3 * tri[3 * t + 1] + 2]);
                const glm::vec3 c(pts[3 * tri[3 * t + 2]], pts[3 * tri[3 * t + 2] + 1], pts[3 * tri[3 * t + 2] + 2]);
                sum += glm::cross(b - a, c - a);
            }
            const float len = glm::length(sum);
            const glm::vec3 u = len > 0.0f ? sum / len : glm::vec3(0.0f);
            n[3 * v] = u.x;
            n[3 * v + 1] = u.y;
            n[3 * v + 2] = u.z;
        });
        // Over rings of neighbours: each vertex's normal averaged with its neighbours', once a ring.
        View<float> from = n, to = m;
        for (int k = 0; k < s.normal_rings; ++k) {
            const View<const float> src = from;
            const View<float> dst = to;
            exec.parallel_for(vertices, FS_LAMBDA(int v) {
                glm::vec3 sum(src[3 * v], src[3 * v + 1], src[3 * v + 2]);
                for (int q = first[v]; q < first[v + 1]; ++q) {
                    const int e = order[q];
                    const int u = tri[e - e % 3 + (e % 3 + 1) % 3];
                    sum += glm::vec3(src[3 * u], src[3 * u + 1], src[3 * u + 2]);
                }
                const float len = glm::length(sum);
                const glm::vec3 r = len > 0.0f ? sum / len : glm::vec3(0.0f);
                dst[3 * v] = r.x;
                dst[3 * v + 1] = r.y;
                dst[3 * v + 2] = r.z;
            });
            std::swap(from, to);
        }
        // The weights.
        auto weight = weight_.resized(static_cast<std::size_t>(vertices));
        const View<const float> avg = from;
        const float flat = static_cast<float>(s.flat_below), curved = static_cast<float>(s.curved_above);
        exec.parallel_for(vertices, FS_LAMBDA(int v) {
            const glm::vec3 nv(avg[3 * v], avg[3 * v + 1], avg[3 * v + 2]);
            float d2 = 0.0f;
            const int a = first[v], b = first[v + 1];
            for (int q = a; q < b; ++q) {
                const int e = order[q];
                const int u = tri[e - e % 3 + (e % 3 + 1) % 3];
                const glm::vec3 d = glm::vec3(avg[3 * u], avg[3 * u + 1], avg[3 * u + 2]) - nv;
                d2 += glm::dot(d, d);
            }
            const float c = b > a ? d2 / static_cast<float>(b - a) : curved;
            const float t = (curved - c) / (curved - flat);
            weight[v] = t <= 0.0f ? 0.0f : (t >= 1.0f ? 1.0f : t * t * (3.0f - 2.0f * t));  // smoothstep
        });
        // The steps, over the vertices that take them (weight > 0), between pts_ and pts_alt_:
        // both start equal, and the others never change (an even number of steps: the result
        // ends in pts_). Each vertex's neighbours are listed once, in their CSR order.
        auto nbr = nbr_.resized(3 * static_cast<std::size_t>(triangles));
        exec.parallel_for(3 * triangles, FS_LAMBDA(int q) {
            const int e = order[q];
            nbr[q] = tri[e - e % 3 + (e % 3 + 1) % 3];
        });
        auto flag = flag_.resized(static_cast<std::size_t>(vertices) + 1), slot = slot_.resized(static_cast<std::size_t>(vertices) + 1);
        exec.parallel_for(vertices + 1, FS_LAMBDA(int v) { flag[v] = v < vertices && weight[v] > 0.0f ? 1 : 0; });
        exec.exclusive_scan(View<const int>(flag), slot);
        int active = 0;
        mem_copy(&active, MemorySpace::Host, slot.data + vertices, kSpace, sizeof(int));
        auto list = active_.resized(static_cast<std::size_t>(active) + 1);
        exec.parallel_for(vertices, FS_LAMBDA(int v) {
            if (flag[v]) list[slot[v]] = v;
        });
        auto other = pts_alt_.resized(3 * static_cast<std::size_t>(vertices));
        mem_copy(other.data, kSpace, pts.data, kSpace, 3 * static_cast<std::size_t>(vertices) * sizeof(float));
        const auto w = View<const float>(weight);
        const auto near_v = View<const int>(nbr);
        const auto act = View<const int>(list);
        View<float> pfrom = pts, pto = other;
        const int steps = 2 * ((s.smoothing_steps + 1) / 2);
        for (int k = 0; k < steps && active > 0; ++k) {
            const View<const float> src = pfrom;
            const View<float> dst = pto;
            exec.parallel_for(active, FS_LAMBDA(int i) {
                const int v = act[i];
                glm::vec3 mean(0.0f);
                const int a = first[v], b = first[v + 1];
                for (int q = a; q < b; ++q) {
                    const int u = near_v[q];
                    mean += glm::vec3(src[3 * u], src[3 * u + 1], src[3 * u + 2]);
                }
                const glm::vec3 p(src[3 * v], src[3 * v + 1], src[3 * v + 2]);
                const glm::vec3 r = p + 0.9f * w[v] * (mean / static_cast<float>(b - a) - p);
                dst[3 * v] = r.x;
                dst[3 * v + 1] = r.y;
                dst[3 * v + 2] = r.z;
            });
            std::swap(pfrom, pto);
        }
    }

    // The carried fields at the vertices: the kernel-weighted mean of the particles' values
    // within near's radius (the particles' order is the bins').
    void carry(Exec& exec, const Near& near, int vertices, View<const int> order, const std::vector<CarriedField>& carried,
               int components, SurfaceMesh& mesh) {
        const int n = near.px.size;
        auto values = values_.resized(static_cast<std::size_t>(n) * components);
        int at = 0;
        for (const CarriedField& f : carried) {
            const double* data = static_cast<const double*>(f.view.data);
            const int stride = f.view.stride, c = f.view.components, offset = at;
            exec.parallel_for(n, FS_LAMBDA(int q) {
                const double* p = data + static_cast<long long>(order[q]) * stride;
                for (int k = 0; k < c; ++k) values[static_cast<long long>(q) * components + offset + k] = static_cast<float>(p[k]);
            });
            at += c;
        }
        auto out = carried_.resized(static_cast<std::size_t>(vertices) * components);
        const auto pts = View<const float>(pts_.view());
        const auto vals = View<const float>(values);
        exec.parallel_for(vertices, FS_LAMBDA(int v) {
            float sum[kMaxCarried];
            for (int k = 0; k < components; ++k) sum[k] = 0.0f;
            float w = 0.0f;
            near.each(glm::vec3(pts[3 * v], pts[3 * v + 1], pts[3 * v + 2]), [&](int q, float wk) {
                w += wk;
                for (int k = 0; k < components; ++k) sum[k] += wk * vals[static_cast<long long>(q) * components + k];
            });
            const float inv = w > 0.0f ? 1.0f / w : 0.0f;
            for (int k = 0; k < components; ++k) out[static_cast<long long>(v) * components + k] = sum[k] * inv;
        });
        std::vector<float> host;
        carried_.copy_to_host(host);
        at = 0;
        for (const CarriedField& f : carried) {
            VertexField vf{f.name, f.view.components, {}};
            vf.values.resize(static_cast<std::size_t>(vertices) * f.view.components);
            for (int v = 0; v < vertices; ++v)
                for (int k = 0; k < f.view.components; ++k)
                    vf.values[static_cast<std::size_t>(v) * f.view.components + k] =
                        host[static_cast<std::size_t>(v) * components + at + k];
            at += f.view.components;
            mesh.fields.push_back(std::move(vf));
        }
    }

private:
    grid::CellSort<Exec> sort_, adjacency_;
    Buffer<float> sx_{kSpace}, sy_{kSpace}, sz_{kSpace}, phi_{kSpace}, pts_{kSpace}, pts_alt_{kSpace};
    Buffer<float> normal_{kSpace}, normal_alt_{kSpace}, weight_{kSpace}, values_{kSpace}, carried_{kSpace};
    Buffer<int> tri_count_{kSpace}, tri_start_{kSpace}, tri_{kSpace}, used_{kSpace}, vid_{kSpace};
    Buffer<int> nbr_{kSpace}, flag_{kSpace}, slot_{kSpace}, active_{kSpace};
};

}  // namespace fs::surface_detail
