// particle_surface.hpp on the CPU backend, the dispatch to CUDA (particle_surface.cu, or a
// refusal in builds without CUDA), and the radius's calibration.
#include "surface/particle_surface.hpp"

#include <algorithm>
#include <cmath>
#include <vector>
#include <stdexcept>

#include "core/exec_cpu.hpp"
#include "core/solver.hpp"
#include "surface/particle_surface_kernels.hpp"

namespace fs {

#if FS_HAVE_CUDA
namespace surface_detail {
SurfaceMesh particle_surface_cuda(const FieldView& positions, const double lo[3], const double hi[3],
                                  const SurfaceSettings& settings, const std::vector<CarriedField>& carried);
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

std::optional<SurfaceMethod> surface_method_from(std::string_view name) {
    if (name == "zhu_bridson") return SurfaceMethod::ZhuBridson;
    if (name == "smooth") return SurfaceMethod::Smooth;
    return std::nullopt;
}

const char* to_string(SurfaceMethod m) { return m == SurfaceMethod::ZhuBridson ? "zhu_bridson" : "smooth"; }

double full_kernel_sum(double support_scale) {
    const double R = support_scale;
    const int K = static_cast<int>(std::ceil(R));
    double w = 0.0;
    for (int k = -K; k <= K; ++k)
        for (int j = -K; j <= K; ++j)
            for (int i = -K; i <= K; ++i) w += surface_detail::zb_kernel((i * i + j * j + k * k) / (R * R));
    return w;
}

SurfaceMesh particle_surface(Backend backend, const FieldView& positions, const double lo[3], const double hi[3],
                             const SurfaceSettings& settings, const std::vector<CarriedField>& carried) {
    if (backend == Backend::Cuda) {
#if FS_HAVE_CUDA
        return surface_detail::particle_surface_cuda(positions, lo, hi, settings, carried);
#else
        throw CudaError("particle_surface: this build has no CUDA backend");
#endif
    }
    // Kept for the thread's life, as the CUDA half's: an export meshes every frame, and the
    // buffers are reused instead of allocated each time.
    CpuExec exec;
    thread_local surface_detail::ParticleSurface<CpuExec> surface;
    return surface.build(exec, positions, lo, hi, settings, carried);
}

std::optional<std::string> no_surface_mesh(const Solver& solver) {
    if (solver.traits().surface_mesh) return std::nullopt;
    return "the surface mesh needs a 3D liquid (flip); the " + std::string(solver.kind()) + " solver's particles are " +
           (solver.dimension() == 2 ? "2D" : "not a liquid");
}

SurfaceMesh solver_surface(const Solver& solver, SurfaceSettings settings, const std::vector<std::string>& fields) {
    if (const auto why = no_surface_mesh(solver)) throw std::invalid_argument(*why);
    if (!(settings.spacing > 0.0)) settings.spacing = 2.0 * solver.particle_radius();
    double lo[3], hi[3];
    solver.domain(lo, hi);
    // Each field where it lies when the solver has a view of it (read on the host otherwise,
    // and then everything is meshed on the host).
    std::vector<std::optional<FieldView>> views;
    bool all_views = true;
    views.push_back(solver.field_view("position"));
    const std::vector<FieldInfo> infos = solver.fields();
    for (const std::string& name : fields) {
        const auto info = std::find_if(infos.begin(), infos.end(), [&](const FieldInfo& f) { return f.name == name; });
        if (info == infos.end())
            throw std::invalid_argument("the " + std::string(solver.kind()) + " solver has no field '" + name + "'");
        auto view = solver.field_view(name);
        const int components = info->components;
        // a view of another shape (speed read from velocity) or of integers: read it instead
        if (view && (view->type != FieldView::Type::F64 || view->components != components)) view.reset();
        views.push_back(view);
    }
    for (const auto& v : views) all_views &= v.has_value();
    std::vector<CarriedField> carried;
    if (all_views) {
        for (std::size_t k = 0; k < fields.size(); ++k) carried.push_back({fields[k], *views[k + 1]});
        return particle_surface(solver.backend(), *views[0], lo, hi, settings, carried);
    }
    std::vector<std::vector<double>> host(fields.size() + 1);
    solver.read_field("position", host[0]);
    const int n = solver.particle_count();
    for (std::size_t k = 0; k < fields.size(); ++k) {
        solver.read_field(fields[k], host[k + 1]);
        const int components = n > 0 ? static_cast<int>(host[k + 1].size() / static_cast<std::size_t>(n)) : 1;
        carried.push_back({fields[k], f64_view(host[k + 1].data(), n, components)});
    }
    return particle_surface(Backend::Cpu, f64_view(host[0].data(), n, 3), lo, hi, settings, carried);
}

}  // namespace fs
