// The host half of the boundary elements (body_model boundary_elements): a body's surface cut
// into panels (panel_kernels.hpp), and its influence matrix, fixed in the body's frame for a
// rigid body, factored once (LU with partial pivoting, Eigen) and inverted, the inverse applied
// each velocity evaluation (Hess and Smith 1967; Cottet and Koumoutsakos 2000, ch. 6).
#pragma once

#include <memory>
#include <vector>

#include "solvers/vortex/panel_kernels.hpp"
#include "solvers/vortex/shapes.hpp"

namespace fs::vortex {

// A sphere's surface as an icosahedron subdivided until its edges are at most `size` (in body
// space, centred at the origin), its corners on the sphere.
std::vector<Panel> sphere_panels(double radius, double size);

// A polytope's mesh (mesh_of: triangles wound counter-clockwise from outside) cut into triangles
// of at most `size` along each edge: each triangle split into k^2 alike, k the least integer
// with its longest edge / k <= size.
std::vector<Panel> mesh_panels(const Mesh& mesh, double size);

// One body's panels and their factored influence matrix A (A q = the normal velocity owed at the
// centres), in body space.
class PanelSystem {
public:
    // `curvature`: 1/R where the panels stand for a sphere of radius R, 0 for flat faces.
    // Throws std::invalid_argument for no panels, a panel of no area, or a singular matrix.
    explicit PanelSystem(std::vector<Panel> panels, double curvature = 0.0);
    ~PanelSystem();
    const std::vector<Panel>& panels() const { return panels_; }
    // q = A^-1 rhs (both of panels().size()).
    void solve(const double* rhs, double* q) const;
    // g_j = the integral over the body's volume of (c_j - x) / (4 pi |c_j - x|^3) dx, as the
    // surface sum sum_k A_k n_k / (4 pi |c_j - c_k|) (Gauss), body space: the volume integral of
    // the panels' velocity is -sum_j q_j A_j g_j (BoundaryElements, the force on a body).
    const std::vector<glm::dvec3>& volume_field() const { return field_; }
    double factor_ms() const { return factor_ms_; }

private:
    struct Lu;
    std::vector<Panel> panels_;
    std::vector<glm::dvec3> field_;
    std::unique_ptr<Lu> lu_;  // while factoring only
    std::vector<float> inverse_;  // A^-1, row-major (solve)
    double factor_ms_ = 0.0;
};

}  // namespace fs::vortex
