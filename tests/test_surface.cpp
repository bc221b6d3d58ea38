// The liquid's surface mesh (surface/particle_surface.hpp): closed and consistently oriented,
// the volume of a ball of particles, a resting tank's flat surface where its particles end, a
// dam break without holes in its bulk, and the same mesh on the GPU as on the CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "core/backend.hpp"
#include "solvers/flip/flip_solver.hpp"
#include "surface/particle_surface.hpp"

namespace {

using fs::SurfaceMesh;
using fs::flip::FlipSolver;
using glm::dvec3;

constexpr double kPi = 3.14159265358979323846;

void set(FlipSolver& s, const std::string& name, const std::string& value) { s.params().at(name).set_text(value); }

glm::vec3 point(const SurfaceMesh& m, int v) {
    return {m.points[3 * static_cast<std::size_t>(v)], m.points[3 * static_cast<std::size_t>(v) + 1],
            m.points[3 * static_cast<std::size_t>(v) + 2]};
}

// Signed volume by the divergence theorem: sum over triangles of p0 . (p1 x p2) / 6 (positive
// when the triangles face outwards).
double triangle_volume(const SurfaceMesh& m, int t) {
    const dvec3 a(point(m, m.triangles[3 * t])), b(point(m, m.triangles[3 * t + 1])), c(point(m, m.triangles[3 * t + 2]));
    return glm::dot(a, glm::cross(b, c)) / 6.0;
}
double volume(const SurfaceMesh& m) {
    double v = 0.0;
    for (int t = 0; t < m.triangle_count(); ++t) v += triangle_volume(m, t);
    return v;
}

// Closed and consistently oriented: every directed edge appears once and its reverse once
// (each undirected edge is shared by exactly two triangles, which traverse it oppositely).
// Returns the number of faulty edges and, in euler, V - E + F.
int open_or_misoriented_edges(const SurfaceMesh& m, long long* euler = nullptr) {
    std::map<std::pair<int, int>, int> directed;
    for (int t = 0; t < m.triangle_count(); ++t)
        for (int e = 0; e < 3; ++e) ++directed[{m.triangles[3 * t + e], m.triangles[3 * t + (e + 1) % 3]}];
    int bad = 0;
    long long undirected = 0;
    for (const auto& [edge, n] : directed) {
        const auto back = directed.find({edge.second, edge.first});
        bad += n != 1 || back == directed.end() || back->second != 1;
        undirected += edge.first < edge.second;
    }
    if (euler) {
        std::vector<char> used(static_cast<std::size_t>(m.vertex_count()), 0);
        for (int v : m.triangles) used[static_cast<std::size_t>(v)] = 1;
        const long long vertices = std::accumulate(used.begin(), used.end(), 0LL);
        *euler = vertices - undirected + m.triangle_count();
    }
    return bad;
}

// Connected components of the triangles (through shared vertices): a component id a triangle.
std::vector<int> components(const SurfaceMesh& m, int& count) {
    std::vector<int> parent(static_cast<std::size_t>(m.vertex_count()));
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&](int x) {
        while (parent[static_cast<std::size_t>(x)] != x) x = parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
        return x;
    };
    for (int t = 0; t < m.triangle_count(); ++t)
        for (int e = 1; e < 3; ++e) parent[static_cast<std::size_t>(find(m.triangles[3 * t + e]))] = find(m.triangles[3 * t]);
    std::map<int, int> ids;
    std::vector<int> out(static_cast<std::size_t>(m.triangle_count()));
    for (int t = 0; t < m.triangle_count(); ++t) {
        const int root = find(m.triangles[3 * t]);
        const auto it = ids.emplace(root, static_cast<int>(ids.size())).first;
        out[static_cast<std::size_t>(t)] = it->second;
    }
    count = static_cast<int>(ids.size());
    return out;
}

// The signed volume each connected component encloses (positive: it faces outwards).
std::vector<double> component_volumes(const SurfaceMesh& m) {
    int parts = 0;
    const auto id = components(m, parts);
    std::vector<double> v(static_cast<std::size_t>(parts), 0.0);
    for (int t = 0; t < m.triangle_count(); ++t) v[static_cast<std::size_t>(id[static_cast<std::size_t>(t)])] += triangle_volume(m, t);
    return v;
}

// Particles on a lattice of spacing h, one a cube of side h, whose centres satisfy `inside`.
template <class Inside>
std::vector<double> lattice(double h, const Inside& inside) {
    std::vector<double> xyz;
    const int n = static_cast<int>(std::lround(1.0 / h));
    for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                const dvec3 p((i + 0.5) * h, (j + 0.5) * h, (k + 0.5) * h);
                if (inside(p)) xyz.insert(xyz.end(), {p.x, p.y, p.z});
            }
    return xyz;
}

SurfaceMesh surface_of(const std::vector<double>& xyz, double h, fs::Backend backend = fs::Backend::Cpu) {
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    fs::SurfaceSettings s;
    s.spacing = h;
    return fs::particle_surface(backend, fs::f64_view(xyz.data(), static_cast<int>(xyz.size() / 3), 3), lo, hi, s);
}

TEST(Surface, CalibratedRadiusPutsAFlatLayersSurfaceWhereItsParticlesEnd) {
    // A slab of lattice particles filling z < 0.5 of the unit box (one particle a cube of side
    // h): the mesh's top lies at z = 0.5 to within a quarter of a level-set cell.
    const double h = 1.0 / 48;
    const auto xyz = lattice(h, [](const dvec3& p) { return p.z < 0.5; });
    const SurfaceMesh m = surface_of(xyz, h);
    const double cell = fs::SurfaceSettings{}.cell_scale * h;
    double lo = 1e9, hi = -1e9;
    int top = 0;
    for (int v = 0; v < m.vertex_count(); ++v) {
        const glm::vec3 p = point(m, v);
        if (p.z < 0.25 || p.x < 0.2 || p.x > 0.8 || p.y < 0.2 || p.y > 0.8) continue;  // the top, inside
        lo = std::min(lo, double(p.z));
        hi = std::max(hi, double(p.z));
        ++top;
    }
    std::printf("slab: r = %.3f h; top %d vertices at z in [%.5f, %.5f] (cell %.5f)\n",
                fs::calibrated_radius(fs::SurfaceSettings{}.support_scale), top, lo, hi, cell);
    ASSERT_GT(top, 100);
    EXPECT_NEAR(lo, 0.5, 0.25 * cell);
    EXPECT_NEAR(hi, 0.5, 0.25 * cell);
    EXPECT_EQ(open_or_misoriented_edges(m), 0);
}

TEST(Surface, ABallGivesAClosedSphereOfItsVolume) {
    // Lattice particles whose centres lie in a ball of radius 0.3: one closed, consistently
    // oriented surface of a sphere's topology (V - E + F = 2), enclosing the ball's volume to 3%.
    const double h = 1.0 / 64, rb = 0.3;
    const dvec3 c(0.5);
    const auto xyz = lattice(h, [&](const dvec3& p) { return glm::length(p - c) < rb; });
    const SurfaceMesh m = surface_of(xyz, h);
    long long euler = 0;
    EXPECT_EQ(open_or_misoriented_edges(m, &euler), 0);
    EXPECT_EQ(euler, 2);
    int parts = 0;
    components(m, parts);
    EXPECT_EQ(parts, 1);
    const double ball = 4.0 / 3.0 * kPi * rb * rb * rb;
    const double v = volume(m);
    std::printf("ball of %zu particles: %d vertices, %d triangles, volume %.5f against %.5f (%+.2f%%)\n",
                xyz.size() / 3, m.vertex_count(), m.triangle_count(), v, ball, 100.0 * (v / ball - 1.0));
    EXPECT_NEAR(v / ball, 1.0, 0.03);
}

TEST(Surface, ScatteredBallsMakeOneClosedSurfaceEach) {
    // Jittered particles in three separate balls: three closed components, each outward (positive
    // volume); nothing breaks where particles are not on a lattice.
    const double h = 1.0 / 48;
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-0.3 * h, 0.3 * h);
    const std::array<dvec3, 3> centres = {dvec3(0.25, 0.3, 0.3), dvec3(0.7, 0.3, 0.6), dvec3(0.4, 0.75, 0.5)};
    std::vector<double> xyz;
    for (double z = 0.5 * h; z < 1.0; z += h)
        for (double y = 0.5 * h; y < 1.0; y += h)
            for (double x = 0.5 * h; x < 1.0; x += h) {
                const dvec3 p = dvec3(x, y, z) + dvec3(u(rng), u(rng), u(rng));
                for (const dvec3& c : centres)
                    if (glm::length(p - c) < 0.15) xyz.insert(xyz.end(), {p.x, p.y, p.z});
            }
    const SurfaceMesh m = surface_of(xyz, h);
    EXPECT_EQ(open_or_misoriented_edges(m), 0);
    const auto parts = component_volumes(m);
    ASSERT_EQ(parts.size(), 3u);
    for (std::size_t k = 0; k < parts.size(); ++k) EXPECT_GT(parts[k], 0.0) << "component " << k << " faces inwards";
}

TEST(Surface, ResolvedFlipTankIsFlatWithinAQuarterCell) {
    // flip_hydrostatic: after a second at rest, the surface's vertices away from the walls lie
    // at the water's height (0.25 m: its particles fill cells up to there) to a quarter cell.
    FlipSolver s;
    set(s, "domain_size", "0.5,0.5,0.5");
    set(s, "resolution", "24");
    set(s, "fluid_box", "0,0,0,0.5,0.25,0.5");
    s.reset();
    while (s.time() < 1.0) s.step();
    const SurfaceMesh m = fs::solver_surface(s);
    const double dx = s.grid().dx;  // a FLIP cell
    double lo = 1e9, hi = -1e9;
    for (int v = 0; v < m.vertex_count(); ++v) {
        const glm::vec3 p = point(m, v);
        if (p.y < 0.125 || p.x < 0.1 || p.x > 0.4 || p.z < 0.1 || p.z > 0.4) continue;
        lo = std::min(lo, double(p.y));
        hi = std::max(hi, double(p.y));
    }
    std::printf("tank: top in [%.5f, %.5f] m, cell %.5f m\n", lo, hi, dx);
    EXPECT_NEAR(lo, 0.25, 0.25 * dx);
    EXPECT_NEAR(hi, 0.25, 0.25 * dx);
    EXPECT_EQ(open_or_misoriented_edges(m), 0);
}

// Whether p is inside the closed mesh: the parity of its crossings with a ray towards +x
// (Moller & Trumbore 1997 for each ray-triangle test).
bool inside_mesh(const SurfaceMesh& m, const dvec3& p) {
    const dvec3 dir = glm::normalize(dvec3(1.0, 1e-3, 2e-3));  // off the grid's planes
    int crossings = 0;
    for (int t = 0; t < m.triangle_count(); ++t) {
        const dvec3 a(point(m, m.triangles[3 * t])), b(point(m, m.triangles[3 * t + 1])), c(point(m, m.triangles[3 * t + 2]));
        const dvec3 e1 = b - a, e2 = c - a, q = glm::cross(dir, e2);
        const double det = glm::dot(e1, q);
        if (std::fabs(det) < 1e-18) continue;
        const dvec3 s = p - a;
        const double u = glm::dot(s, q) / det;
        if (u < 0.0 || u > 1.0) continue;
        const dvec3 r = glm::cross(s, e1);
        const double v = glm::dot(dir, r) / det;
        if (v < 0.0 || u + v > 1.0) continue;
        crossings += glm::dot(e2, r) / det > 0.0;
    }
    return crossings % 2 == 1;
}

TEST(Surface, DamBreakHasNoHolesInItsBulk) {
    // A FLIP dam break mid-surge: the mesh is closed and outward, no component of it faces in (a
    // bubble in the bulk would), and the centre of every cell deep in the water (it and its 26
    // neighbours hold at least 6 particles each, 8 at rest) lies inside the mesh.
    FlipSolver s;
    set(s, "domain_size", "1,0.6,0.4");
    set(s, "resolution", "40");
    set(s, "fluid_box", "0,0,0,0.35,0.45,0.4");
    s.reset();
    while (s.time() < 0.3) s.step();
    const SurfaceMesh m = fs::solver_surface(s);
    EXPECT_EQ(open_or_misoriented_edges(m), 0);
    const auto volumes = component_volumes(m);
    const int parts = static_cast<int>(volumes.size());
    const int inward = static_cast<int>(std::count_if(volumes.begin(), volumes.end(), [](double v) { return v <= 0.0; }));
    EXPECT_EQ(inward, 0);

    const auto g = s.grid();
    std::vector<int> count(static_cast<std::size_t>(g.nx * g.ny * g.nz), 0);
    for (const dvec3& p : s.state().pos) {
        const int i = std::min(g.nx - 1, static_cast<int>(p.x / g.dx)), j = std::min(g.ny - 1, static_cast<int>(p.y / g.dx)),
                  k = std::min(g.nz - 1, static_cast<int>(p.z / g.dx));
        ++count[static_cast<std::size_t>(i + g.nx * (j + g.ny * k))];
    }
    int bulk = 0, outside = 0;
    for (int k = 1; k < g.nz - 1; k += 2)
        for (int j = 1; j < g.ny - 1; j += 2)
            for (int i = 1; i < g.nx - 1; i += 2) {
                bool full = true;
                for (int dk = -1; dk <= 1 && full; ++dk)
                    for (int dj = -1; dj <= 1 && full; ++dj)
                        for (int di = -1; di <= 1 && full; ++di)
                            full = count[static_cast<std::size_t>(i + di + g.nx * (j + dj + g.ny * (k + dk)))] >= 6;
                if (!full) continue;
                ++bulk;
                outside += !inside_mesh(m, g.dx * dvec3(i + 0.5, j + 0.5, k + 0.5));
            }
    std::printf("dam break at t = %.2f s: %d components, %d facing in; %d bulk cells sampled, %d outside the mesh\n",
                s.time(), parts, inward, bulk, outside);
    EXPECT_GT(bulk, 100);
    EXPECT_EQ(outside, 0);
    EXPECT_FALSE(inside_mesh(m, dvec3(0.5, 0.57, 0.2))) << "air above the fallen column reads as water";
}

TEST(SurfaceCuda, SameMeshAsTheCpu) {
    if (!fs::cuda_status().usable) GTEST_SKIP() << "no usable CUDA GPU: " << fs::cuda_status().reason;
    // The same particles on both backends: the same triangles (the same cells cut, the same edge
    // numbering) and points within float rounding of the level set.
    const double h = 1.0 / 48;
    const auto xyz = lattice(h, [](const dvec3& p) { return glm::length(p - dvec3(0.5)) < 0.3 || p.z < 0.2; });
    const SurfaceMesh cpu = surface_of(xyz, h);
    double* device = nullptr;
    const std::size_t bytes = xyz.size() * sizeof(double);
    device = static_cast<double*>(fs::mem_alloc(fs::MemorySpace::Device, bytes));
    fs::mem_copy(device, fs::MemorySpace::Device, xyz.data(), fs::MemorySpace::Host, bytes);
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    fs::SurfaceSettings set;
    set.spacing = h;
    const SurfaceMesh gpu =
        fs::particle_surface(fs::Backend::Cuda, fs::f64_view(device, static_cast<int>(xyz.size() / 3), 3), lo, hi, set);
    fs::mem_free(fs::MemorySpace::Device, device);
    ASSERT_EQ(gpu.triangles, cpu.triangles);
    ASSERT_EQ(gpu.points.size(), cpu.points.size());
    double worst = 0.0;
    for (std::size_t k = 0; k < cpu.points.size(); ++k) worst = std::max(worst, double(std::fabs(gpu.points[k] - cpu.points[k])));
    EXPECT_LT(worst, 1e-5 * 2.0 * h) << "points differ by more than rounding";
}

}  // namespace
