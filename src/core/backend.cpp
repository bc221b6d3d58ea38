#include "core/backend.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <atomic>
#include <thread>

#ifdef FS_THREAD_POOL
#include "core/platform.hpp"
#include "core/thread_pool.hpp"
#endif

namespace fs {

std::string_view to_string(Backend b) { return b == Backend::Cuda ? "cuda" : "cpu"; }

std::optional<Backend> backend_from_string(std::string_view s) {
    if (s == "cpu") return Backend::Cpu;
    if (s == "cuda") return Backend::Cuda;
    return std::nullopt;
}

std::string cuda_setup_message(std::string_view what) {
    return "CUDA, setting up the scene: " + std::string(what) + "; allowed: --backend cpu";
}

// Process-wide. omp_set_num_threads alone sets the count for the calling thread only: a thread
// started afterwards (the window's simulation thread) saw OpenMP's default, every core, and the
// window's own core went to the simulation (measured: FLIP's dam break drew 11 frames/s).
namespace {
std::atomic<int> g_cpu_threads{0};  // 0: OpenMP's default
}

int cpu_threads() {
#ifdef _OPENMP
    const int n = g_cpu_threads.load();
    return n > 0 ? n : omp_get_max_threads();
#elif defined(FS_THREAD_POOL)
    // The browser: its pool's threads in the threaded program (set_cpu_threads reserves them),
    // one in the single-threaded one.
    const int n = g_cpu_threads.load();
    return n > 0 ? n : 1;
#else
    return 1;  // a build without OpenMP or the pool: every loop runs on the calling thread
#endif
}
void set_cpu_threads(int n) {
#ifdef FS_THREAD_POOL
    // No more than the workers the page started (PTHREAD_POOL_SIZE) and its own thread: a
    // std::thread beyond them would wait for the page's thread, which waits for it. The
    // single-threaded program (the same compilation, linked without pthreads) has none.
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    const int most = browser_threads() ? std::max(1, std::min(cores, 8)) : 1;
    n = std::min(n, most);
    if (n > 1) ThreadPool::instance().reserve(n);
#endif
    g_cpu_threads.store(n > 0 ? n : 0);
#ifdef _OPENMP
    if (n > 0) omp_set_num_threads(n);
#endif
}

namespace {
thread_local int t_loop_threads = 0;
}

int loop_threads() {
    const int most = cpu_threads();
    return t_loop_threads > 0 && t_loop_threads < most ? t_loop_threads : most;
}
void set_loop_threads(int n) { t_loop_threads = n > 0 ? n : 0; }

namespace {
std::atomic<bool> g_governed{true};
}
bool governed_threads() { return g_governed.load(); }
void set_governed_threads(bool on) { g_governed.store(on); }

}  // namespace fs
