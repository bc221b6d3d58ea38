// particle_surface.hpp on the CPU backend, the dispatch to CUDA (particle_surface.cu, or a
// refusal in builds without CUDA), and the radius's calibration.
#include "surface/particle_surface.hpp"

#include <cmath>
#include <stdexcept>

#include "core/exec_cpu.hpp"
#include "core/solver.hpp"
#include "surface/particle_surface_kernels.hpp"

namespace fs {

#if FS_HAVE_CUDA
namespace surface_detail {
SurfaceMesh particle_surface_cuda(const FieldView& positions, const double lo[3], const double hi[3],
                                  const SurfaceSettings& settings);
}  // namespace surface_detail
#endif

double calibrated_radius(double support_scale) {
    // A half-space of particles at ((i + 1/2) h, (j + 1/2) h, -(k + 1/2) h), k >= 0: the
    // kernel-weighted mean height zbar seen from the node at the origin, on the surface. phi = 0
    // there when r = |0 - xbar| = -zbar (the lateral parts of xbar cancel by symmetry).
    const double R = support_scale;
    const int K = static_cast<int>(std::ceil(R)) + 1;
    double w = 0.0, wz = 0.0;
    for (int k = 0; k <= K; ++k)
        for (int j = -K; j < K; ++j)
            for (int i = -K; i < K; ++i) {
                const double x = i + 0.5, y = j + 0.5, z = -(k + 0.5);
                const double wk = surface_detail::zb_kernel((x * x + y * y + z * z) / (R * R));
                w += wk;
                wz += wk * z;
            }
    if (!(w > 0.0)) throw std::invalid_argument("calibrated_radius: the kernel reaches no particle (support_scale too small)");
    return -wz / w;
}

SurfaceMesh particle_surface(Backend backend, const FieldView& positions, const double lo[3], const double hi[3],
                             const SurfaceSettings& settings) {
    if (backend == Backend::Cuda) {
#if FS_HAVE_CUDA
        return surface_detail::particle_surface_cuda(positions, lo, hi, settings);
#else
        throw CudaError("particle_surface: this build has no CUDA backend");
#endif
    }
    // Kept for the thread's life, as the CUDA half's: an export meshes every frame, and the
    // buffers are reused instead of allocated each time.
    CpuExec exec;
    thread_local surface_detail::ParticleSurface<CpuExec> surface;
    return surface.build(exec, positions, lo, hi, settings);
}

std::optional<std::string> no_surface_mesh(const Solver& solver) {
    if (solver.kind() == "flip") return std::nullopt;
    return "the surface mesh needs a 3D liquid (flip); the " + std::string(solver.kind()) + " solver's particles are " +
           (solver.dimension() == 2 ? "2D" : "not a liquid");
}

SurfaceMesh solver_surface(const Solver& solver, SurfaceSettings settings) {
    if (const auto why = no_surface_mesh(solver)) throw std::invalid_argument(*why);
    if (!(settings.spacing > 0.0)) settings.spacing = 2.0 * solver.particle_radius();
    double lo[3], hi[3];
    solver.domain(lo, hi);
    std::vector<double> host;
    FieldView positions;
    if (auto view = solver.field_view("position")) {
        positions = *view;
    } else {
        solver.read_field("position", host);
        positions = f64_view(host.data(), solver.particle_count(), 3);
        return particle_surface(Backend::Cpu, positions, lo, hi, settings);
    }
    return particle_surface(solver.backend(), positions, lo, hi, settings);
}

}  // namespace fs
