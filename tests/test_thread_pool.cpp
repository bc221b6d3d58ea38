// ThreadPool (core/thread_pool.hpp): the browser's threaded page's CPU executor. Natively the
// executor uses OpenMP; the pool is tested here as a class, the page's results in tests/web.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "core/thread_pool.hpp"

namespace fs {
namespace {

TEST(ThreadPool, EveryPartRunsOnceOnItsOwnThread) {
    ThreadPool pool;
    pool.reserve(4);
    ASSERT_EQ(pool.workers(), 3);
    for (int round = 0; round < 200; ++round) {
        for (int threads = 1; threads <= 4; ++threads) {
            std::vector<std::atomic<int>> runs(static_cast<std::size_t>(threads));
            std::vector<std::thread::id> who(static_cast<std::size_t>(threads));
            pool.run(threads, [&](int k) {
                runs[static_cast<std::size_t>(k)].fetch_add(1);
                who[static_cast<std::size_t>(k)] = std::this_thread::get_id();
            });
            std::set<std::thread::id> distinct(who.begin(), who.end());
            for (auto& r : runs) EXPECT_EQ(r.load(), 1);
            EXPECT_EQ(static_cast<int>(distinct.size()), threads);
            EXPECT_EQ(who[0], std::this_thread::get_id());  // the caller takes part 0
        }
    }
}

TEST(ThreadPool, MorePartsThanThreadsRunOnTheCaller) {
    ThreadPool pool;
    pool.reserve(2);
    std::vector<std::atomic<int>> runs(5);
    pool.run(5, [&](int k) { runs[static_cast<std::size_t>(k)].fetch_add(1); });
    for (auto& r : runs) EXPECT_EQ(r.load(), 1);
}

TEST(ThreadPool, ANestedCallRunsItsPartsInOrderOnItsThread) {
    ThreadPool pool;
    pool.reserve(3);
    std::vector<std::vector<int>> order(3);
    std::atomic<int> foreign{0};
    pool.run(3, [&](int k) {
        const auto me = std::this_thread::get_id();
        pool.run(4, [&](int j) {
            order[static_cast<std::size_t>(k)].push_back(j);
            if (std::this_thread::get_id() != me) foreign.fetch_add(1);
        });
    });
    for (const auto& o : order) EXPECT_EQ(o, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(foreign.load(), 0);
}

TEST(ThreadPool, TwoCallersAtOnceBothFinishEveryPart) {
    ThreadPool pool;
    pool.reserve(2);
    std::atomic<long> sum{0};
    auto caller = [&] {
        for (int round = 0; round < 500; ++round) pool.run(2, [&](int k) { sum.fetch_add(k + 1); });
    };
    std::thread other(caller);
    caller();
    other.join();
    EXPECT_EQ(sum.load(), 2 * 500 * 3);
}

}  // namespace
}  // namespace fs
