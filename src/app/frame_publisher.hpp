// FramePublisher: what the simulation thread reads from the solver for the window to draw (host
// arrays, or packed arrays left on the GPU, double-buffered) and its hand-over to the window.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/buffer.hpp"
#include "core/frame_pack.hpp"
#include "core/solver.hpp"
#include "surface/particle_surface.hpp"

namespace fs {

// What the window draws: particles as floats, 3 coordinates each (z = 0 in 2D).
struct FrameData {
    std::uint64_t version = 0;  // increases with every publication
    int dimension = 2;
    int count = 0;
    // On the CUDA backend with device frames on, the particles stay on the GPU: position and
    // scalar are empty and SimulationHost::copy_device_frame hands them to OpenGL.
    bool on_device = false;
    std::vector<float> position;  // 3 per particle
    std::vector<float> velocity;  // 3 per particle, while the velocity overlay is on
    std::vector<float> scalar;    // the colour field, 1 per particle (NaN: boundary particles)
    ScalarRange range;            // of the finite scalar values
    std::string color_field;
    double radius = 0.005;
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 0};
    std::vector<Obstacle> obstacles;
    CellGrid cells;  // filled while the cell overlay is on and the solver has a grid
    // The particles' own cells (2D, ot): cell k is polygon_xy[2 polygon_start[k] ..).
    std::vector<float> polygon_xy;
    std::vector<int> polygon_start;
    // The liquid's surface mesh (3D liquids), while the window draws it: 3 floats a vertex, 3
    // indices a triangle (surface/particle_surface.hpp).
    std::vector<float> mesh_points;
    std::vector<int> mesh_triangles;
};

// What the frames carry; the simulation thread's own (the host's commands change it there).
struct FrameContents {
    std::string color_field = "speed";
    bool cell_overlay = false;
    bool velocity_overlay = false;
    bool device_frames = false;  // CUDA-OpenGL interop: leave the particles on the GPU
    // The liquid's surface mesh, made by this method for each frame (3D liquids), or none.
    std::optional<SurfaceMethod> surface_mesh;
};

class FramePublisher {
public:
    FrameContents contents;  // simulation thread only

    // Simulation thread: reads the solver's particles into a new frame (may throw CudaError,
    // and then publishes nothing) and makes it the latest.
    void publish(const Solver& solver);
    // Window thread: copies the latest frame into `out` when it is newer than out.version.
    bool take(FrameData& out) const;
    // Window thread: the latest device frame, see SimulationHost::copy_device_frame.
    int copy_device_frame(float* xyz, float* scalar, int capacity, ScalarRange& range) const;

private:
    void read(const Solver& solver, FrameData& frame);

    // Device frames, double-buffered: the simulation thread packs into the back one, then
    // (under mutex_) makes it the front one that copy_device_frame reads.
    // A frame packed on the GPU. The simulation thread packs it on its stream and the window
    // copies it on its own (memory.hpp, StreamEvent): `packed` orders the copy after the packing
    // kernels, `copied` orders the next packing into this buffer after the window's last copy.
    struct DeviceFrame {
        Buffer<float> xyz{MemorySpace::Device}, scalar{MemorySpace::Device};
        int count = 0;
        ScalarRange range;
        mutable StreamEvent packed, copied;  // recorded and waited from const copy_device_frame too
    };
    DeviceFrame device_frame_[2];
    mutable std::mutex mutex_;  // guards front_ and frame_
    int front_ = 0;
    FrameData frame_;
};

}  // namespace fs
