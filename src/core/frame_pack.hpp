// What the window draws, packed where the solver's state lives. A solver shows its particle
// fields as FieldViews (Solver::field_view); pack_positions and pack_scalar turn them into the
// floats the particle renderer reads (3 per position, 1 per colour value) with one kernel body
// for both backends (frame_pack_kernels.hpp). On the CPU backend that fills the frame's host
// arrays without a copy of the whole state; on CUDA it fills device buffers that reach OpenGL
// through CUDA-OpenGL interop, never passing through host memory.
#pragma once

#include "core/backend.hpp"

namespace fs {

// A particle field in a solver's memory (host for the CPU backend, device for CUDA): `count`
// particles of `stride` values of `type` each, of which the first `components` are the field
// (a glm::dvec2 position: stride 2, components 2).
struct FieldView {
    enum class Type { F64, I32 };
    const void* data = nullptr;
    Type type = Type::F64;
    int components = 1;
    int stride = 1;
    int count = 0;
};

// `count` particles of `components` packed doubles (a glm::dvec3 array: 3) or of one int.
inline FieldView f64_view(const void* data, int count, int components) {
    return {data, FieldView::Type::F64, components, components, count};
}
inline FieldView i32_view(const void* data, int count) { return {data, FieldView::Type::I32, 1, 1, count}; }

// Finite values' range of a packed scalar; lo > hi when there was none.
struct ScalarRange {
    float lo = 1.0f, hi = 0.0f;
};

// xyz[3i + c] = component c of particle i (0 past the field's components: z in 2D).
void pack_positions(Backend backend, const FieldView& position, float* xyz);

// out[i] = the field's value at particle i, or its length for a vector field; NaN where
// kind (when given) is not 0, as boundary particles are drawn grey. Returns the
// range over the finite values (for the colour legend's auto range).
ScalarRange pack_scalar(Backend backend, const FieldView& field, const FieldView* kind, float* out);

}  // namespace fs
