// frame_pack.hpp on the CUDA backend: the same kernel bodies as the CPU's, run by CudaExec.
#include "core/exec_cuda.cuh"
#include "core/frame_pack_kernels.hpp"

namespace fs::frame_pack_detail {

void pack_positions_cuda(const FieldView& position, float* xyz) {
    pack_positions_with(CudaExec{}, position, xyz);
}

ScalarRange pack_scalar_cuda(const FieldView& field, const FieldView* kind, float* out) {
    CudaExec exec;
    return pack_scalar_with(exec, field, kind, out);
}

}  // namespace fs::frame_pack_detail
