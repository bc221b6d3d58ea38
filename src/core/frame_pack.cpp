// frame_pack.hpp on the CPU backend (the CUDA half: frame_pack.cu, or a refusal in builds
// without CUDA, below).
#include "core/exec_cpu.hpp"
#include "core/frame_pack_kernels.hpp"
#include "core/memory.hpp"

namespace fs {

#if FS_HAVE_CUDA
namespace frame_pack_detail {
void pack_positions_cuda(const FieldView& position, float* xyz);
ScalarRange pack_scalar_cuda(const FieldView& field, const FieldView* kind, float* out);
}  // namespace frame_pack_detail
#endif

void pack_positions(Backend backend, const FieldView& position, float* xyz) {
    if (backend == Backend::Cuda) {
#if FS_HAVE_CUDA
        frame_pack_detail::pack_positions_cuda(position, xyz);
        return;
#else
        throw CudaError("pack_positions: this build has no CUDA backend");
#endif
    }
    frame_pack_detail::pack_positions_with(CpuExec{}, position, xyz);
}

ScalarRange pack_scalar(Backend backend, const FieldView& field, const FieldView* kind, float* out) {
    if (backend == Backend::Cuda) {
#if FS_HAVE_CUDA
        return frame_pack_detail::pack_scalar_cuda(field, kind, out);
#else
        throw CudaError("pack_scalar: this build has no CUDA backend");
#endif
    }
    CpuExec exec;
    return frame_pack_detail::pack_scalar_with(exec, field, kind, out);
}

}  // namespace fs
