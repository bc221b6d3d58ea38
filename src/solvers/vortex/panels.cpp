#include "solvers/vortex/panels.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "core/backend.hpp"

namespace fs::vortex {

using glm::dvec3;

namespace {

// The triangle (a, b, c) cut into k^2 alike (k steps along each edge), corners through `place`.
template <class Place>
void split_triangle(dvec3 a, dvec3 b, dvec3 c, int k, Place place, std::vector<Panel>& out) {
    auto at = [&](int i, int j) { return place(a + (double(i) / k) * (b - a) + (double(j) / k) * (c - a)); };
    for (int i = 0; i < k; ++i)
        for (int j = 0; i + j < k; ++j) {
            out.push_back(make_panel(at(i, j), at(i + 1, j), at(i, j + 1)));
            if (i + j + 1 < k) out.push_back(make_panel(at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)));
        }
}

// A convex polygon clipped to the half-plane dot(x, n) <= d (Sutherland and Hodgman 1974).
std::vector<dvec3> clip(const std::vector<dvec3>& poly, dvec3 n, double d) {
    std::vector<dvec3> out;
    for (std::size_t i = 0; i < poly.size(); ++i) {
        const dvec3 p = poly[i], q = poly[(i + 1) % poly.size()];
        const double sp = glm::dot(p, n) - d, sq = glm::dot(q, n) - d;
        if (sp <= 0.0) out.push_back(p);
        if ((sp < 0.0 && sq > 0.0) || (sp > 0.0 && sq < 0.0)) out.push_back(p + (sp / (sp - sq)) * (q - p));
    }
    return out;
}

// One planar convex face (corners counter-clockwise from outside, normal n) as the cells of a
// grid of at most `size` along its longest edge and across it, each clipped to the face and
// fanned into triangles: a rectangle's panels are its grid's squares, however thin the face
// (a k^2 split of the face's triangles cut a slab's thin sides as finely as its largest side).
void face_panels(const std::vector<dvec3>& face, dvec3 n, double size, std::vector<Panel>& out) {
    dvec3 u(0.0);
    double longest = 0.0;
    for (std::size_t i = 0; i < face.size(); ++i) {
        const dvec3 e = face[(i + 1) % face.size()] - face[i];
        if (glm::length(e) > longest) {
            longest = glm::length(e);
            u = e / longest;
        }
    }
    const dvec3 v = glm::cross(n, u);
    double u0 = 1e300, u1 = -1e300, v0 = 1e300, v1 = -1e300;
    for (const dvec3& p : face) {
        u0 = std::min(u0, glm::dot(p, u));
        u1 = std::max(u1, glm::dot(p, u));
        v0 = std::min(v0, glm::dot(p, v));
        v1 = std::max(v1, glm::dot(p, v));
    }
    const dvec3 origin = face[0] - glm::dot(face[0], u) * u - glm::dot(face[0], v) * v;
    const int nu = std::max(1, static_cast<int>(std::ceil((u1 - u0) / size - 1e-9)));
    const int nv = std::max(1, static_cast<int>(std::ceil((v1 - v0) / size - 1e-9)));
    const double du = (u1 - u0) / nu, dv = (v1 - v0) / nv;
    const double tiny = 1e-9 * du * dv;
    for (int i = 0; i < nu; ++i)
        for (int j = 0; j < nv; ++j) {
            auto corner = [&](double a, double b) { return origin + (u0 + a * du) * u + (v0 + b * dv) * v; };
            std::vector<dvec3> cell = {corner(i, j), corner(i + 1, j), corner(i + 1, j + 1), corner(i, j + 1)};
            for (std::size_t e = 0; e < face.size() && cell.size() >= 3; ++e) {
                const dvec3 p = face[e], q = face[(e + 1) % face.size()];
                const dvec3 out_dir = glm::normalize(glm::cross(q - p, n));  // the edge's outward normal
                cell = clip(cell, out_dir, glm::dot(out_dir, p));
            }
            for (std::size_t k = 1; k + 1 < cell.size(); ++k) {
                const Panel p = make_panel(cell[0], cell[k], cell[k + 1]);
                if (p.area > tiny) out.push_back(p);
            }
        }
}

}  // namespace

std::vector<Panel> sphere_panels(double radius, double size) {
    if (!(radius > 0.0) || !(size > 0.0)) throw std::invalid_argument("sphere panels: radius and size must be > 0");
    const double t = (1.0 + std::sqrt(5.0)) / 2.0;
    const dvec3 v[12] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                         {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    const int f[20][3] = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                          {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8},
                          {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
    const double edge = radius * 2.0 / glm::length(v[0]);  // the icosahedron's edge on the sphere
    const int k = std::max(1, static_cast<int>(std::ceil(edge / size)));
    auto place = [radius](dvec3 p) { return radius * glm::normalize(p); };
    std::vector<Panel> out;
    for (const auto& face : f) split_triangle(v[face[0]], v[face[1]], v[face[2]], k, place, out);
    for (Panel& p : out)  // wound counter-clockwise from outside, whatever the table's order
        if (glm::dot(p.normal, p.centre) < 0.0) p = make_panel(p.a, p.c, p.b);
    return out;
}

std::vector<Panel> mesh_panels(const Mesh& mesh, double size) {
    if (!(size > 0.0)) throw std::invalid_argument("mesh panels: size must be > 0");
    // mesh_of fans each face from its first corner, face after face: consecutive triangles of
    // one normal make one face, whose corners in order are the fan's.
    std::vector<Panel> out;
    const auto& tri = mesh.triangles;
    for (std::size_t t = 0; t + 2 < tri.size();) {
        const dvec3 n = glm::normalize(glm::cross(tri[t + 1] - tri[t], tri[t + 2] - tri[t]));
        std::vector<dvec3> face = {tri[t], tri[t + 1], tri[t + 2]};
        std::size_t next = t + 3;
        while (next + 2 < tri.size() && tri[next] == tri[t] && tri[next + 1] == face.back() &&
               glm::dot(glm::normalize(glm::cross(tri[next + 1] - tri[next], tri[next + 2] - tri[next])), n) >
                   1.0 - 1e-9) {
            face.push_back(tri[next + 2]);
            next += 3;
        }
        face_panels(face, n, size, out);
        t = next;
    }
    return out;
}

struct PanelSystem::Lu {
    Eigen::PartialPivLU<Eigen::MatrixXd> lu;
};

// The solve is a product with A^-1 kept in single precision, row by row in double sums: a
// back-substitution reads the LU factors' n^2 doubles (32 MB at 2 000 panels) from memory on one
// core, 3.1 ms a solve; the float inverse is half the bytes and its rows split over the cores.
// Rounding A^-1 to float changes q by about 1e-7 of its size (cond(A) is a few for these
// matrices), far below the panels' own error.

PanelSystem::PanelSystem(std::vector<Panel> panels, double curvature)
    : panels_(std::move(panels)), lu_(std::make_unique<Lu>()) {
    const int n = static_cast<int>(panels_.size());
    if (n == 0) throw std::invalid_argument("a body with no panels");
    for (const Panel& p : panels_)
        if (!(p.area > 0.0)) throw std::invalid_argument("a panel of no area (a degenerate body)");
    const auto t0 = std::chrono::steady_clock::now();
    Eigen::MatrixXd a(n, n);
    field_.assign(panels_.size(), dvec3(0.0));
    [[maybe_unused]] const int threads = loop_threads();  // --threads; unused without OpenMP (the browser's)
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) a(i, j) = influence_normal(panels_[i], panels_[j], i == j);
        // A flat panel misses its own curvature: a spherical cap of angular radius b (sphere of
        // radius R) with source density q gives its apex, outside, u.n = q/2 + (q/2) sin(b/2)
        // (the integral of q (x - y).n / (4 pi |x - y|^3) over the cap), and the flat panel only
        // the q/2. With b = a/R, a the radius of the panel's area as a disc: + a/(4R). Without
        // it the sphere's dipole came out too strong by a first-order error, 2.5% at 1 280
        // panels (its added mass 0.5125), halving with the panels' size.
        a(i, i) += 0.5 * std::sin(0.5 * std::sqrt(panels_[i].area / 3.14159265358979323846) * curvature);
        // The volume field at c_i: the panels' n A / (4 pi r), the panel's own by the disc of its
        // area, whose integral of 1 / r from its centre is 2 pi sqrt(A / pi).
        PanelInduced acc;
        for (int j = 0; j < n; ++j)
            if (j != i) add_panel(acc, panels_[j], 0.0, panels_[i].centre, dvec3(0.0), false, true);
        field_[i] = acc.field + (0.5 * std::sqrt(panels_[i].area / 3.14159265358979323846)) * panels_[i].normal;
    }
    lu_->lu.compute(a);
    // A closed surface's exterior problem is well posed (Hess and Smith 1967); a singular matrix
    // means panels that overlap or a surface that does not close.
    const double rcond = lu_->lu.rcond();
    if (!(rcond > 1e-12)) throw std::invalid_argument("the panels' influence matrix is singular (a degenerate body)");
    const Eigen::MatrixXd inverse = lu_->lu.inverse();
    inverse_.resize(static_cast<std::size_t>(n) * n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) inverse_[static_cast<std::size_t>(i) * n + j] = static_cast<float>(inverse(i, j));
    lu_.reset();
    factor_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

PanelSystem::~PanelSystem() = default;

void PanelSystem::solve(const double* rhs, double* q) const {
    const int n = static_cast<int>(panels_.size());
    const float* a = inverse_.data();
    [[maybe_unused]] const int threads = loop_threads();
#pragma omp parallel for schedule(static) if (n >= 256) num_threads(threads)
    for (int i = 0; i < n; ++i) {
        // Eight partial sums in a fixed order (one sum's add latency bound the loop at 8 ms).
        const float* row = a + static_cast<std::size_t>(i) * n;
        double part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        int j = 0;
        for (; j + 8 <= n; j += 8)
            for (int k = 0; k < 8; ++k) part[k] += static_cast<double>(row[j + k]) * rhs[j + k];
        for (; j < n; ++j) part[0] += static_cast<double>(row[j]) * rhs[j];
        q[i] = ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
    }
}

}  // namespace fs::vortex
