#include "core/thread_pool.hpp"

namespace fs {

namespace {
thread_local bool t_in_team = false;  // the calling thread runs part of a team now
}

ThreadPool& ThreadPool::instance() {
    static ThreadPool pool;
    return pool;
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(m_);
        stop_ = true;
    }
    go_.notify_all();
    for (auto& w : workers_) w.join();
}

void ThreadPool::reserve(int threads) {
    std::lock_guard<std::mutex> team(team_);
    while (static_cast<int>(workers_.size()) + 1 < threads) {
        const int k = static_cast<int>(workers_.size()) + 1;
        workers_.emplace_back([this, k] { work(k); });
    }
}

void ThreadPool::work(int k) {
    long long seen = 0;
    for (;;) {
        Call call = nullptr;
        const void* body = nullptr;
        {
            std::unique_lock<std::mutex> lock(m_);
            go_.wait(lock, [&] { return stop_ || (generation_ != seen && k < team_size_); });
            if (stop_) return;
            seen = generation_;
            call = call_;
            body = body_;
        }
        t_in_team = true;
        call(body, k);
        t_in_team = false;
        running_.fetch_sub(1, std::memory_order_release);
    }
}

void ThreadPool::run_erased(int threads, Call call, const void* body) {
    const int most = static_cast<int>(workers_.size()) + 1;
    std::unique_lock<std::mutex> team(team_, std::defer_lock);
    if (threads <= 1 || t_in_team || most < 2 || !team.try_lock()) {
        for (int k = 0; k < threads; ++k) call(body, k);
        return;
    }
    // A team never waits on a worker that does not exist: the ks beyond the pool run here.
    const int size = threads < most ? threads : most;
    {
        std::lock_guard<std::mutex> lock(m_);
        call_ = call;
        body_ = body;
        team_size_ = size;
        running_.store(size - 1, std::memory_order_relaxed);
        ++generation_;
    }
    go_.notify_all();
    t_in_team = true;
    call(body, 0);
    for (int k = size; k < threads; ++k) call(body, k);
    t_in_team = false;
    // The caller waits by spinning, not on a condition variable: the parts are of a size, so the
    // wait is short, and the browser's page thread may not sleep (Emscripten warns on its
    // pthread_cond_wait, and a long wait there stalls the page).
    while (running_.load(std::memory_order_acquire) != 0) std::this_thread::yield();
    std::lock_guard<std::mutex> lock(m_);
    team_size_ = 0;
}

}  // namespace fs
