// ThreadPool: the CPU executor's threads where there is no OpenMP (the browser's threaded page,
// Emscripten pthreads; core/exec_cpu.hpp under FS_THREAD_POOL). A fixed set of std::thread
// workers started once, and run(threads, body), which calls body(k) once for each k in
// [0, threads), the caller taking k = 0 and workers the rest, and returns when all are done.
// What each k does is the caller's: CpuExec gives thread k the k-th contiguous slice of a loop,
// as OpenMP's schedule(static) does, so that every result stays independent of the thread count.
//
// A call from inside a body, or while another thread's call runs, runs every k on its own thread
// in order (the pool has one team), which gives the same results.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace fs {

class ThreadPool {
public:
    // The process's pool; its workers start on its first use with threads > 1.
    static ThreadPool& instance();

    ThreadPool() = default;
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    // Starts workers until `threads` threads (the caller and threads - 1 workers) can run a team.
    // In the browser a worker must exist before it is waited for (PTHREAD_POOL_SIZE): the page
    // reserves as many as the most threads it will ask for.
    void reserve(int threads);
    int workers() const { return static_cast<int>(workers_.size()); }

    template <class F>
    void run(int threads, const F& body) {
        run_erased(threads, [](const void* f, int k) { (*static_cast<const F*>(f))(k); }, &body);
    }

private:
    using Call = void (*)(const void*, int);
    void run_erased(int threads, Call call, const void* body);
    void work(int k);

    std::vector<std::thread> workers_;
    std::mutex team_;            // one team at a time
    std::mutex m_;               // guards what follows
    std::condition_variable go_;
    long long generation_ = 0;   // a new team's number: workers wait for it to change
    int team_size_ = 0;          // threads in the current team (worker k runs while k < team_size_)
    std::atomic<int> running_{0};  // workers of the current team not yet done
    Call call_ = nullptr;
    const void* body_ = nullptr;
    bool stop_ = false;
};

}  // namespace fs
