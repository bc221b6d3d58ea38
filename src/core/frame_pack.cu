// frame_pack.hpp on the CUDA backend: the same kernel bodies as the CPU's, run by CudaExec.
#include "core/exec_cuda.cuh"
#include "core/frame_pack_kernels.hpp"

namespace fs::frame_pack_detail {

// One executor per thread that packs frames, kept for the program's life: a CudaExec owns the
// scratch its reductions use, and building one a frame allocated and freed that scratch every
// frame, and cudaFree waits for the whole device (every queued simulation kernel) to finish.
// Deliberately never destroyed: a destructor run at exit could free after the CUDA runtime has
// shut down.
static CudaExec& frame_exec() {
    thread_local CudaExec* exec = new CudaExec;
    return *exec;
}

void pack_positions_cuda(const FieldView& position, float* xyz) { pack_positions_with(frame_exec(), position, xyz); }

ScalarRange pack_scalar_cuda(const FieldView& field, const FieldView* kind, float* out) {
    return pack_scalar_with(frame_exec(), field, kind, out);
}

}  // namespace fs::frame_pack_detail
