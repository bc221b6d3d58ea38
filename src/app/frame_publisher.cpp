// FramePublisher: reading a frame from the solver (packed on the device for the interop, else
// into host arrays by the same kernels) and handing the latest one to the window.
#include "app/frame_publisher.hpp"

#include "core/memory.hpp"

namespace fs {

void FramePublisher::publish(const Solver& solver) {
    FrameData frame;
    read(solver, frame);
    std::lock_guard lock(mutex_);
    frame.version = frame_.version + 1;
    if (frame.on_device) front_ = 1 - front_;  // read() packed the back one
    frame_ = std::move(frame);
}

void FramePublisher::read(const Solver& solver, FrameData& frame) {
    frame.dimension = solver.dimension();
    frame.count = solver.particle_count();
    frame.radius = solver.particle_radius();
    solver.domain(frame.lo, frame.hi);
    frame.obstacles = solver.obstacles();
    frame.color_field = contents.color_field;
    if (contents.cell_overlay && solver.has_cell_grid()) solver.cell_grid(frame.cells);
    solver.cell_polygons(frame.polygon_xy, frame.polygon_start);
    if (contents.surface_mesh && !no_surface_mesh(solver)) {
        // On the FLIP grid's own cells (cell_scale 2): about 5 times faster than the export's
        // default, for a mesh every frame.
        SurfaceSettings settings;
        settings.method = *contents.surface_mesh;
        settings.cell_scale = 2.0;
        SurfaceMesh mesh = solver_surface(solver, settings, {});
        frame.mesh_points = std::move(mesh.points);
        frame.mesh_triangles = std::move(mesh.triangles);
    }
    const std::size_t n = static_cast<std::size_t>(frame.count);
    const Backend backend = solver.backend();
    bool has_kind = false;  // solvers with a "kind" field: 0 is fluid, the rest is drawn grey
    for (const auto& f : solver.fields()) has_kind |= f.name == "kind";

    // CUDA with interop: packed on the device (frame_pack.hpp), for copy_device_frame. Only
    // this thread writes the back buffer; the window reads the front one.
    if (backend == Backend::Cuda && contents.device_frames) {
        const auto position = solver.field_view("position");
        const auto color = solver.field_view(contents.color_field);
        const auto kind = solver.field_view("kind");
        if (position && color && (kind || !has_kind)) {
            DeviceFrame& back = device_frame_[1 - front_];
            back.copied.wait();  // the window's last copy out of this buffer comes first
            back.xyz.resize(3 * n);
            back.scalar.resize(n);
            pack_positions(backend, *position, back.xyz.data());
            back.range = pack_scalar(backend, *color, kind ? &*kind : nullptr, back.scalar.data());
            back.packed.record();
            back.count = frame.count;
            frame.range = back.range;
            frame.on_device = true;
        }
    }

    // Otherwise into the frame's host arrays, by the same kernels on the CPU: from the solver's
    // own arrays on the CPU backend, else from host copies (CUDA without interop, and fields that
    // are not one array each, such as the vortex solver's vortons-then-tracers).
    std::vector<double> copies[4];
    auto on_host = [&](const std::string& name, std::vector<double>& copy) {
        if (backend == Backend::Cpu)
            if (auto view = solver.field_view(name)) return *view;
        int components = 1;
        for (const auto& f : solver.fields())
            if (f.name == name) components = f.components;
        solver.read_field(name, copy);
        return f64_view(copy.data(), frame.count, components);
    };
    if (!frame.on_device) {
        frame.position.resize(3 * n);
        frame.scalar.resize(n);
        pack_positions(Backend::Cpu, on_host("position", copies[0]), frame.position.data());
        const FieldView color = on_host(contents.color_field, copies[1]);
        const FieldView kind = has_kind ? on_host("kind", copies[2]) : FieldView{};
        frame.range = pack_scalar(Backend::Cpu, color, has_kind ? &kind : nullptr, frame.scalar.data());
    }
    if (contents.velocity_overlay) {  // the vectors are drawn from host arrays on every path
        if (frame.position.empty()) {
            frame.position.resize(3 * n);
            pack_positions(Backend::Cpu, on_host("position", copies[0]), frame.position.data());
        }
        frame.velocity.resize(3 * n);
        pack_positions(Backend::Cpu, on_host("velocity", copies[3]), frame.velocity.data());
    }
}

int FramePublisher::copy_device_frame(float* xyz, float* scalar, int capacity, ScalarRange& range) const {
    std::lock_guard lock(mutex_);
    const DeviceFrame& f = device_frame_[front_];
    if (!frame_.on_device || f.count > capacity || f.count == 0) return 0;
    // Device to device on the window's stream, after the packing kernels on the simulation's;
    // the simulation may pack into this buffer again only after these copies (read()).
    f.packed.wait();
    mem_copy(xyz, MemorySpace::Device, f.xyz.data(), MemorySpace::Device, 3 * sizeof(float) * static_cast<std::size_t>(f.count));
    mem_copy(scalar, MemorySpace::Device, f.scalar.data(), MemorySpace::Device, sizeof(float) * static_cast<std::size_t>(f.count));
    f.copied.record();
    range = f.range;
    return f.count;
}

bool FramePublisher::take(FrameData& out) const {
    std::lock_guard lock(mutex_);
    if (frame_.version == out.version) return false;
    out = frame_;
    return true;
}

}  // namespace fs
