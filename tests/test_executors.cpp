// CpuExec against serial references, and its results independent of the thread count.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

#include "core/backend.hpp"
#include "core/exec_cpu.hpp"
#include "solvers/common/cell_sort.hpp"
#include "solvers/flip/mac_grid.hpp"
#include "random_inputs.hpp"

namespace {

using fs::CpuExec;
using fs::View;

const int kSizes[] = {0, 1, 1000, (1 << 20) + 17};

template <class T>
View<T> view_of(std::vector<T>& v) {
    return {v.data(), static_cast<int>(v.size())};
}
template <class T>
View<const T> cview_of(const std::vector<T>& v) {
    return {v.data(), static_cast<int>(v.size())};
}

using fs_test::random_doubles;
using fs_test::random_ints;

// Runs f() with the CPU backend on `threads` threads, then restores the previous count.
template <class F>
auto with_threads(int threads, F f) {
    const int before = fs::cpu_threads();
    fs::set_cpu_threads(threads);
    auto result = f();
    fs::set_cpu_threads(before);
    return result;
}

// Several fields combined by one associative, commutative op.
struct Stats {
    double sum;
    double max;
    long long odd;  // how many odd keys
    int min_key;
};

constexpr Stats kStatsInit{0.0, -1.0, 0, INT_MAX};

struct StatsOp {
    Stats operator()(const Stats& a, const Stats& b) const {
        return {a.sum + b.sum, std::max(a.max, b.max), a.odd + b.odd,
                std::min(a.min_key, b.min_key)};
    }
};

double exec_sum(CpuExec& exec, const std::vector<double>& x) {
    const View<const double> v = cview_of(x);
    return exec.transform_reduce(
        v.size, 0.0, [=](int i) { return v[i]; }, [](double a, double b) { return a + b; });
}

Stats exec_stats(CpuExec& exec, const std::vector<double>& x, const std::vector<int>& key) {
    const View<const double> xv = cview_of(x);
    const View<const int> kv = cview_of(key);
    return exec.transform_reduce(
        xv.size, kStatsInit,
        [=](int i) { return Stats{xv[i], xv[i], kv[i] & 1, kv[i]}; }, StatsOp{});
}

template <class T>
std::vector<T> exec_scan(CpuExec& exec, const std::vector<T>& in) {
    std::vector<T> out(in.size());
    exec.exclusive_scan(cview_of(in), view_of(out));
    return out;
}

template <class T>
std::vector<T> serial_exclusive_scan(const std::vector<T>& in) {
    std::vector<T> out(in.size());
    T acc{};
    for (std::size_t i = 0; i < in.size(); ++i) {
        out[i] = acc;
        acc += in[i];
    }
    return out;
}

TEST(CpuExec, ParallelForVisitsEveryIndexOnce) {
    CpuExec exec;
    for (int n : kSizes) {
        std::vector<int> hits(static_cast<std::size_t>(n), 0);
        const View<int> h = view_of(hits);
        exec.parallel_for(n, [=](int i) { h[i] += i + 1; });
        for (int i = 0; i < n; ++i)
            ASSERT_EQ(hits[static_cast<std::size_t>(i)], i + 1) << "n=" << n;
    }
    exec.parallel_for(-5, [](int) { ADD_FAILURE() << "no iteration for n < 0"; });
}

TEST(CpuExec, ParallelChunksVisitsEveryIndexOnce) {
    // Chunks that divide n, that do not, larger than n, and of one item, on 2 threads.
    CpuExec exec;
    const int before = fs::loop_threads();
    fs::set_loop_threads(2);
    for (int n : {0, 1, 7, 1000, 4099})
        for (int chunk : {1, 3, 32, 5000}) {
            std::vector<int> hits(static_cast<std::size_t>(n), 0);
            const View<int> h = view_of(hits);
            exec.parallel_chunks(n, chunk, [=](int i) { h[i] += i + 1; });
            for (int i = 0; i < n; ++i)
                ASSERT_EQ(hits[static_cast<std::size_t>(i)], i + 1) << "n=" << n << " chunk=" << chunk;
        }
    fs::set_loop_threads(before);
}

TEST(CpuExec, ParallelSlicesVisitEveryIndexOnceInContiguousSlices) {
    // Below and above `least`, on 2 threads: each index once, and each thread one contiguous run
    // of indices (its slice), the same from call to call.
    CpuExec exec;
    const int before = fs::loop_threads();
    fs::set_loop_threads(2);
    for (int n : {0, 1, 511, 512, 3001})
        for (int call = 0; call < 2; ++call) {
            std::vector<int> hits(static_cast<std::size_t>(n), 0), thread(static_cast<std::size_t>(n), -1);
            const View<int> h = view_of(hits), t = view_of(thread);
            exec.parallel_slices(n, 512, [=](int i) {
                h[i] += i + 1;
                t[i] = omp_get_thread_num();
            });
            int changes = 0;
            for (int i = 0; i < n; ++i) {
                ASSERT_EQ(hits[static_cast<std::size_t>(i)], i + 1) << "n=" << n;
                if (i > 0 && thread[static_cast<std::size_t>(i)] != thread[static_cast<std::size_t>(i - 1)]) ++changes;
            }
            EXPECT_LE(changes, 1) << "n=" << n << ": a thread's indices are one run";
            if (n < 512) EXPECT_EQ(changes, 0) << "n=" << n << ": under `least`, one thread";
        }
    fs::set_loop_threads(before);
}

TEST(CpuExec, TransformReduceSum) {
    CpuExec exec;
    for (int n : kSizes) {
        const std::vector<double> x = random_doubles(n, 11 + n);
        const double expected = std::accumulate(x.begin(), x.end(), 0.0);
        const double got = exec_sum(exec, x);
        EXPECT_NEAR(got, expected, 1e-12 * expected) << "n=" << n;
    }
}

TEST(CpuExec, TransformReduceMax) {
    CpuExec exec;
    for (int n : kSizes) {
        const std::vector<int> x = random_ints<int>(n, -1'000'000'000, 1'000'000'000, 12 + n);
        const View<const int> v = cview_of(x);
        const int got = exec.transform_reduce(
            n, INT_MIN, [=](int i) { return v[i]; }, [](int a, int b) { return std::max(a, b); });
        EXPECT_EQ(got, n ? *std::max_element(x.begin(), x.end()) : INT_MIN) << "n=" << n;
    }
}

TEST(CpuExec, TransformReduceStruct) {
    CpuExec exec;
    for (int n : kSizes) {
        const std::vector<double> x = random_doubles(n, 13 + n);
        const std::vector<int> key = random_ints<int>(n, -50'000, 50'000, 14 + n);
        Stats expected = kStatsInit;
        for (int i = 0; i < n; ++i) {
            const std::size_t k = static_cast<std::size_t>(i);
            expected = StatsOp{}(expected, Stats{x[k], x[k], key[k] & 1, key[k]});
        }
        const Stats got = exec_stats(exec, x, key);
        EXPECT_NEAR(got.sum, expected.sum, 1e-12 * expected.sum) << "n=" << n;
        EXPECT_EQ(got.max, expected.max) << "n=" << n;
        EXPECT_EQ(got.odd, expected.odd) << "n=" << n;
        EXPECT_EQ(got.min_key, expected.min_key) << "n=" << n;
    }
}

TEST(CpuExec, ExclusiveScanInt) {
    CpuExec exec;
    for (int n : kSizes) {
        const std::vector<int> in = random_ints<int>(n, -1000, 1000, 21 + n);
        EXPECT_EQ(exec_scan(exec, in), serial_exclusive_scan(in)) << "n=" << n;
    }
}

TEST(CpuExec, ExclusiveScanLongLong) {
    CpuExec exec;
    for (int n : kSizes) {
        const std::vector<long long> in =
            random_ints<long long>(n, -1'000'000'000'000, 1'000'000'000'000, 22 + n);
        EXPECT_EQ(exec_scan(exec, in), serial_exclusive_scan(in)) << "n=" << n;
    }
}

TEST(CpuExec, ExclusiveScanInPlace) {
    CpuExec exec;
    for (int n : kSizes) {
        std::vector<int> data = random_ints<int>(n, 0, 1000, 23 + n);
        const std::vector<int> expected = serial_exclusive_scan(data);
        exec.exclusive_scan(cview_of(data), view_of(data));
        EXPECT_EQ(data, expected) << "n=" << n;
    }
}

// Keys with many duplicates (few distinct values) and full-range keys (every digit in use); the
// values are the original indices, so stability means equal keys keep increasing values.
TEST(CpuExec, SortByKeyIsStable) {
    CpuExec exec;
    for (std::uint32_t max_key : {999u, UINT32_MAX}) {
        for (int n : kSizes) {
            std::vector<std::uint32_t> keys =
                random_ints<std::uint32_t>(n, 0, max_key, 31 + n + max_key);
            std::vector<int> values(static_cast<std::size_t>(n));
            std::iota(values.begin(), values.end(), 0);
            std::vector<int> order = values;
            std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
                return keys[static_cast<std::size_t>(a)] < keys[static_cast<std::size_t>(b)];
            });
            std::vector<std::uint32_t> expected_keys(keys.size());
            for (std::size_t k = 0; k < order.size(); ++k)
                expected_keys[k] = keys[static_cast<std::size_t>(order[k])];

            exec.sort_by_key(view_of(keys), view_of(values));
            EXPECT_EQ(keys, expected_keys) << "n=" << n << " max_key=" << max_key;
            EXPECT_EQ(values, order) << "n=" << n << " max_key=" << max_key;
        }
    }
}

// sort_by_key_near: keys mostly equal to a sorted hint (a particle sort given the last sort's
// cells). The elements whose key changed jump far (into the next row of cells) and near, alone
// and in runs (neighbours moving together), onto runs of equal keys (many particles a cell); the
// result is the stable sort's, on 1 and 2 threads. More than an eighth changed, or a hint of
// another length, and it declines, leaving the input as it was.
TEST(CpuExec, SortByKeyNearAHintIsTheStableSort) {
    CpuExec exec;
    const int n = 300'000;
    std::mt19937_64 rng(77);
    std::vector<std::uint32_t> hint(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) hint[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(i / 16);
    for (const double changed : {0.0, 0.001, 0.03, 0.1, 0.3}) {
        std::vector<std::uint32_t> keys = hint;
        for (int i = 0; i < n;) {
            const int run = 1 + static_cast<int>(rng() % 12);
            if (std::uniform_real_distribution<double>(0.0, 1.0)(rng) < changed / 6.5) {
                const std::uint32_t jump = (rng() & 1) ? 1u : 900u;
                const bool up = (rng() & 2) != 0;
                for (int r = i; r < std::min(n, i + run); ++r) {
                    std::uint32_t& k = keys[static_cast<std::size_t>(r)];
                    k = up ? k + jump : (k >= jump ? k - jump : k + 2);
                }
            }
            i += run;
        }
        long long differ = 0;
        for (int i = 0; i < n; ++i) differ += keys[static_cast<std::size_t>(i)] != hint[static_cast<std::size_t>(i)];
        std::vector<int> order(keys.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            return keys[static_cast<std::size_t>(a)] < keys[static_cast<std::size_t>(b)];
        });
        for (const int threads : {1, 2}) {
            std::vector<std::uint32_t> k = keys;
            std::vector<int> v(keys.size());
            std::iota(v.begin(), v.end(), 0);
            const bool done = with_threads(threads, [&] { return exec.sort_by_key_near(view_of(k), view_of(v), cview_of(hint)); });
            EXPECT_EQ(done, differ <= n / 8) << "changed " << changed;
            if (!done) {
                EXPECT_EQ(k, keys);  // untouched
                continue;
            }
            EXPECT_EQ(v, order) << "changed " << changed << ", " << threads << " thread(s)";
            EXPECT_TRUE(std::is_sorted(k.begin(), k.end())) << "changed " << changed;
        }
    }
    std::vector<std::uint32_t> shorter(hint.begin(), hint.end() - 1), k = hint;
    std::vector<int> v(hint.size(), 0);
    EXPECT_FALSE(exec.sort_by_key_near(view_of(k), view_of(v), cview_of(shorter)));
}

// The blocked reductions and scans give the same bits whatever the number of threads.
TEST(CpuExec, ResultsIndependentOfThreadCount) {
    const int n = (1 << 20) + 17;
    const std::vector<double> x = random_doubles(n, 41);
    const std::vector<int> key = random_ints<int>(n, -50'000, 50'000, 42);
    const std::vector<long long> big =
        random_ints<long long>(n, -1'000'000'000'000, 1'000'000'000'000, 43);

    CpuExec exec;
    const double sum1 = with_threads(1, [&] { return exec_sum(exec, x); });
    const double sum2 = with_threads(2, [&] { return exec_sum(exec, x); });
    EXPECT_EQ(sum1, sum2);  // exact, not near

    const Stats s1 = with_threads(1, [&] { return exec_stats(exec, x, key); });
    const Stats s2 = with_threads(2, [&] { return exec_stats(exec, x, key); });
    EXPECT_EQ(s1.sum, s2.sum);
    EXPECT_EQ(s1.max, s2.max);
    EXPECT_EQ(s1.odd, s2.odd);
    EXPECT_EQ(s1.min_key, s2.min_key);

    const auto scan1 = with_threads(1, [&] { return exec_scan(exec, x); });
    const auto scan2 = with_threads(2, [&] { return exec_scan(exec, x); });
    EXPECT_EQ(scan1, scan2);  // doubles: the same grouping of the sums, bit for bit
    const auto big1 = with_threads(1, [&] { return exec_scan(exec, big); });
    const auto big2 = with_threads(2, [&] { return exec_scan(exec, big); });
    EXPECT_EQ(big1, big2);
}

// The CPU thread count is the whole process's: the window sets it before starting its simulation
// thread, whose loops must keep to it (OpenMP's own setting holds for the calling thread only).
TEST(CpuExecThreads, ACountSetBeforeAThreadStartsHoldsInThatThread) {
    const int before = fs::cpu_threads();
    fs::set_cpu_threads(1);
    int seen = 0, team = 0;
    std::thread t([&] {
        seen = fs::cpu_threads();
        CpuExec exec;
        std::vector<int> tid(1 << 16, -1);
        auto v = view_of(tid);
        exec.parallel_for(v.size, [&](int i) { v[i] = omp_get_thread_num(); });
        team = *std::max_element(tid.begin(), tid.end()) + 1;
    });
    t.join();
    fs::set_cpu_threads(before);
    EXPECT_EQ(seen, 1);
    EXPECT_EQ(team, 1);
}

}  // namespace

// CellSort's cell ranges against a count: cell c's slots are [start[c], start[c + 1]), whose
// length is the number of particles in c, and order() is the stable sort of the particles by
// cell. Occupancies from crowded cells to long empty runs (where the CPU's fill takes its loop
// rather than its four-cell writes), all particles in the first or in the last cell, and the
// blocks' edges (4 096 slots) falling inside runs of one cell; 1 and 2 threads, and a second
// build after the particles were put in cell order and a few moved (the in-order sort).
TEST(CellSort, CellRangesAreTheCountsAndTheOrderIsStable) {
    CpuExec exec;
    std::mt19937_64 rng(2026);
    struct Case {
        int n, cells;
        int mode;  // 0: uniform at random, 1: all in cell 0, 2: all in the last cell, 3: clustered
    };
    const Case cases[] = {{0, 5, 0},         {1, 1, 0},          {1, 9, 2},          {20'000, 20'000, 0},
                          {20'000, 200'000, 0}, {20'000, 500, 0}, {9'000, 40, 1},      {9'000, 40, 2},
                          {30'000, 90'000, 3},  {8'193, 3, 0}};
    for (const Case& t : cases) {
        std::vector<int> cell(static_cast<std::size_t>(t.n));
        for (int i = 0; i < t.n; ++i) {
            int c = static_cast<int>(rng() % static_cast<unsigned>(t.cells));
            if (t.mode == 1) c = 0;
            if (t.mode == 2) c = t.cells - 1;
            if (t.mode == 3) c = (static_cast<int>(rng() % 7) * 12'000 + static_cast<int>(rng() % 4'100)) % t.cells;
            cell[static_cast<std::size_t>(i)] = c;
        }
        for (const int threads : {1, 2}) {
            std::vector<int> now = cell;
            fs::grid::CellSort<CpuExec> sort;
            for (int build = 0; build < 2; ++build) {
                if (build == 1) {  // as a solver does: the particles permuted into cell order, then
                                   // one in fifty moves to the next cell
                    std::vector<int> sorted(now.size());
                    for (std::size_t s = 0; s < now.size(); ++s)
                        sorted[s] = now[static_cast<std::size_t>(sort.order().data[s])];
                    now = sorted;
                    for (int i = 0; i < t.n; i += 50) now[static_cast<std::size_t>(i)] = (now[static_cast<std::size_t>(i)] + 1) % t.cells;
                }
                std::vector<int> order(now.size());
                std::iota(order.begin(), order.end(), 0);
                std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
                    return now[static_cast<std::size_t>(a)] < now[static_cast<std::size_t>(b)];
                });
                std::vector<int> expect(static_cast<std::size_t>(t.cells) + 1, 0);
                for (const int c : now) ++expect[static_cast<std::size_t>(c) + 1];
                std::partial_sum(expect.begin(), expect.end(), expect.begin());
                const int* cells_of = now.data();
                with_threads(threads, [&] {
                    sort.build(exec, t.cells, t.n, [cells_of](int i) { return cells_of[i]; });
                    return 0;
                });
                const View<const int> start = sort.cell_start();
                ASSERT_EQ(start.size, t.cells + 1);
                EXPECT_TRUE(std::equal(expect.begin(), expect.end(), start.data))
                    << t.n << " particles in " << t.cells << " cells (mode " << t.mode << "), build " << build << ", "
                    << threads << " thread(s)";
                const View<const int> got = sort.order();
                EXPECT_TRUE(std::equal(order.begin(), order.end(), got.data)) << t.n << " particles, build " << build;
            }
        }
    }
}

// Divider's multiply and shift against the integer division: every divisor to 3 000 and large
// ones, at multiples of the divisor and one either side, at random, and at 2^31 - 1. CellCoords
// against MacGrid::cell_coords on grids of every shape the multigrid makes.
TEST(Divider, IsTheIntegerDivision) {
    std::mt19937_64 rng(31);
    std::vector<int> divisors;
    for (int d = 1; d <= 3000; ++d) divisors.push_back(d);
    for (const int d : {65'535, 65'536, 65'537, 1'000'003, 1 << 30, INT_MAX - 1, INT_MAX}) divisors.push_back(d);
    for (int r = 0; r < 200; ++r) divisors.push_back(1 + static_cast<int>(rng() % static_cast<unsigned>(INT_MAX)));
    long long wrong = 0;
    for (const int d : divisors) {
        const fs::Divider div(d);
        auto check = [&](long long n) {
            if (n < 0 || n > INT_MAX) return;
            wrong += div(static_cast<int>(n)) != static_cast<int>(n) / d;
        };
        for (long long k : {0ll, 1ll, 2ll, 3ll, 7ll, 1000ll, static_cast<long long>(INT_MAX) / d - 1,
                            static_cast<long long>(INT_MAX) / d, static_cast<long long>(INT_MAX) / d + 1})
            for (long long e = -1; e <= 1; ++e) check(k * d + e);
        for (int r = 0; r < 64; ++r) check(static_cast<long long>(rng() % (static_cast<unsigned long long>(INT_MAX) + 1)));
        check(INT_MAX);
    }
    EXPECT_EQ(wrong, 0);
    for (const glm::ivec3 n : {glm::ivec3(1, 1, 1), glm::ivec3(2, 3, 5), glm::ivec3(64, 64, 64), glm::ivec3(33, 17, 9),
                               glm::ivec3(128, 1, 7), glm::ivec3(1, 96, 3)}) {
        fs::flip::MacGrid g;
        g.nx = n.x;
        g.ny = n.y;
        g.nz = n.z;
        const fs::flip::CellCoords coords(g);
        int differ = 0;
        for (int c = 0; c < g.cells(); ++c) differ += coords(c) != g.cell_coords(c);
        EXPECT_EQ(differ, 0) << n.x << "x" << n.y << "x" << n.z;
    }
}
