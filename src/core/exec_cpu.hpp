// The CPU executor: the loop and the collective operations of the CPU backend (OpenMP; in the
// browser's threaded page, which has no OpenMP, a pool of std::threads: core/thread_pool.hpp).
//
// Determinism: every result is independent of the number of threads. Loops write disjoint
// outputs; reductions and scans cut the range into fixed blocks (kReduceBlock and kBlock
// elements, whatever the thread count), reduce each block serially, then join the block results in block order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <numeric>
#include <type_traits>
#include <vector>

#include "core/backend.hpp"
#include "core/buffer.hpp"
#ifdef FS_THREAD_POOL
#include <atomic>

#include "core/thread_pool.hpp"
#endif

namespace fs {

class CpuExec {
public:
    static constexpr Backend backend = Backend::Cpu;
    static constexpr MemorySpace space = MemorySpace::Host;
    static constexpr int kBlock = 1 << 14;
    // A reduction's blocks: small enough that a 2D scene's few thousand particles make several
    // (at kBlock, one: the SPH solves' Jacobi updates, half of each iteration, ran on one core).
    static constexpr int kReduceBlock = 512;

    // Loops shorter than this run on the calling thread: starting a team and meeting at its
    // barrier costs more than they do (multigrid's coarse levels issue many such loops, and a
    // barrier waiting on a descheduled thread costs a whole time slice on a busy machine:
    // measured, the OT lesson beside two busy loops took 42 s at 2048 against 9 s at 4096).
    // Loops whose items are costly (the soft contacts' particles) use parallel_chunks, which
    // shares any count.
    static constexpr int kSerialBelow = 4096;

    // A fixed sequence of launches replayed as one (CudaExec::replay); on the CPU there is no
    // launch overhead to save, and body() simply runs.
    struct Graph {};
    template <class F>
    void replay(Graph& /*graph*/, bool /*record*/, F&& body) {
        body();
    }

    // f(i) for i in [0, n); the iterations are independent.
    template <class F>
    void parallel_for(int n, const F& f) const {
        team_static(n >= kSerialBelow, n, f);
    }

    // f(i) for i in [0, n) as parallel_for, each thread one contiguous slice, the same slices
    // every call (a thread's part of the data stays in its core's cache from one call to the
    // next), but in parallel from `least` items instead of kSerialBelow: for loops whose items
    // cost tens of nanoseconds or more and that run many times a step (the SPH solves'
    // iterations over a few thousand fluid particles).
    template <class F>
    void parallel_slices(int n, int least, const F& f) const {
        team_static(n >= least, n, f);
    }

    // f(i) for i in [0, n) where each item is a large piece of work (a block of a grid, many
    // particles): in parallel however few there are, handed out one at a time so that empty or
    // light items do not leave a thread idle; the iterations are independent.
    template <class F>
    void parallel_tasks(int n, const F& f) const {
        team_dynamic(n > 1, n, f);
    }

    // f(i) for i in [0, n) where each item costs far more than a loop's overhead (a few hundred
    // nanoseconds: interpolating many fields): chunks of `chunk` items handed out as tasks, so
    // that a thousand items, too few for parallel_for, still share the threads.
    template <class F>
    void parallel_chunks(int n, int chunk, const F& f) const {
        parallel_tasks((n + chunk - 1) / chunk, [&](int t) {
            const int end = n < (t + 1) * chunk ? n : (t + 1) * chunk;
            for (int i = t * chunk; i < end; ++i) f(i);
        });
    }

    // op(...op(op(init, map(0)), map(1))..., map(n-1)) grouped in fixed blocks; op must be
    // associative (for floats: associative up to rounding, and the rounding is reproducible).
    template <class T, class Map, class Op>
    T transform_reduce(int n, T init, const Map& map, const Op& op) {
        const int blocks = (n + kReduceBlock - 1) / kReduceBlock;
        T* partial = scratch<T>(static_cast<std::size_t>(blocks));
        team_static(n >= kSerialBelow && blocks > 1, blocks, [&](int b) {
            const int end = std::min(n, (b + 1) * kReduceBlock);
            T acc = map(b * kReduceBlock);
            for (int i = b * kReduceBlock + 1; i < end; ++i) acc = op(acc, map(i));
            new (partial + b) T(acc);
        });
        T result = init;
        for (int b = 0; b < blocks; ++b) result = op(result, partial[b]);
        return result;
    }

    // The same reduction, its result stored at `out` in this executor's memory instead of
    // returned (CudaExec: it stays on the GPU, no round trip; a later kernel reads it).
    template <class T, class Map, class Op>
    void transform_reduce_into(int n, T init, const Map& map, const Op& op, T* out) {
        *out = transform_reduce(n, init, map, op);
    }

    // out[i] = in[0] + ... + in[i-1]; out may alias in. Blocked two-pass scan.
    template <class T>
    void exclusive_scan(View<const T> in, View<T> out) {
        const int n = in.size;
        const int blocks = (n + kBlock - 1) / kBlock;
        T* block_sum = scratch<T>(static_cast<std::size_t>(blocks) + 1);
        for (int b = 0; b <= blocks; ++b) new (block_sum + b) T{};
        team_static(blocks > 1, blocks, [&](int b) {
            const int end = std::min(n, (b + 1) * kBlock);
            T acc{};
            for (int i = b * kBlock; i < end; ++i) acc += in[i];
            block_sum[b + 1] = acc;
        });
        for (int b = 0; b < blocks; ++b) block_sum[b + 1] += block_sum[b];
        team_static(blocks > 1, blocks, [&](int b) {
            const int end = std::min(n, (b + 1) * kBlock);
            T acc = block_sum[b];
            for (int i = b * kBlock; i < end; ++i) {
                const T v = in[i];
                out[i] = acc;
                acc += v;
            }
        });
    }

    // Stable sort of (keys, values) by key: LSD radix sort for unsigned integer keys, in as few
    // passes of at most 8 bits as the largest key needs (a grid of 2 million cells: three passes
    // of 7 bits, measured faster than two of 11 on the Euler gas at N = 1e6: grid_build 32 -> 27
    // ms on one thread). Each pass counts digits per fixed block of kBlock elements, gives every
    // (digit, block) its slots in digit-major order, then each block scatters its elements in
    // order: linear in n, and the result, being a stable sort, is the same for any thread count
    // and schedule (the loops are dynamically scheduled so that a descheduled thread's blocks are
    // taken by another).
    template <class K, class V>
    void sort_by_key(View<K> keys, View<V> values) {
        static_assert(std::is_unsigned_v<K>, "sort_by_key sorts unsigned integer keys");
        const int n = keys.size;
        if (n <= 1) return;
        radix_sort(keys.data, values.data, n, reserve<K>(sort_keys_, static_cast<std::size_t>(n)),
                   reserve<V>(sort_values_, static_cast<std::size_t>(n)));
    }

    // The same sort where most keys equal those of `hint`, a sorted sequence as long (a particle
    // sort by cell, given the cells of its last sort: from one step to the next most particles
    // stay in their cell). The elements whose key equals the hint's are in order already (the
    // hint is sorted); the others, a few, are radix sorted and merged back by (key, position),
    // which is the stable sort's order, so the result is sort_by_key's exactly. Every pass but
    // the few's sort reads and writes in order. Returns false, having changed nothing, when more
    // than an eighth of the keys differ from the hint's (then sort_by_key is the faster).
    template <class K, class V>
    bool sort_by_key_near(View<K> keys, View<V> values, View<const K> hint) {
        static_assert(std::is_unsigned_v<K>, "sort_by_key_near sorts unsigned integer keys");
        const int n = keys.size;
        if (hint.size != n || n < 2) return false;
        const K* k = keys.data;
        const K* was = hint.data;
        const V* v = values.data;
        const int blocks = (n + kBlock - 1) / kBlock;
        int* moving = reserve<int>(sort_counts_, static_cast<std::size_t>(blocks));
        team_dynamic(blocks > 1, blocks, [&](int b) {
            int count = 0;
            const int end = std::min(n, (b + 1) * kBlock);
            for (int i = b * kBlock; i < end; ++i) count += k[i] != was[i] ? 1 : 0;
            moving[b] = count;
        });
        int move = 0;
        for (int b = 0; b < blocks; ++b) {  // each block's first place in the moving list
            const int here = moving[b];
            moving[b] = move;
            move += here;
        }
        if (move > n / 8) return false;
        const int stay = n - move;
        K* stay_k = reserve<K>(sort_keys_, static_cast<std::size_t>(stay));
        V* stay_v = reserve<V>(sort_values_, static_cast<std::size_t>(stay));
        int* stay_at = reserve<int>(sort_positions_, static_cast<std::size_t>(stay));
        K* move_k = reserve<K>(sort_moving_keys_, 2 * static_cast<std::size_t>(move));
        Moving<V>* move_v = reserve<Moving<V>>(sort_moving_values_, 2 * static_cast<std::size_t>(move));
        team_dynamic(blocks > 1, blocks, [&](int b) {
            const int first = b * kBlock, end = std::min(n, (b + 1) * kBlock);
            int m = moving[b], s = first - m;
            for (int i = first; i < end; ++i) {
                if (k[i] == was[i]) {
                    stay_k[s] = k[i];
                    stay_v[s] = v[i];
                    stay_at[s++] = i;
                } else {
                    move_k[m] = k[i];
                    move_v[m++] = {i, v[i]};
                }
            }
        });
        // The moving ones, listed in position order, by key (stable), then the merge by (key,
        // position) in fixed chunks of the staying list: a chunk's share of the moving list starts
        // at the first that comes after the chunk's first staying element.
        if (move > 1) radix_sort(move_k, move_v, move, move_k + move, move_v + move);
        auto before = [](K ka, int pa, K kb, int pb) { return ka < kb || (ka == kb && pa < pb); };
        auto moving_before = [&](int s) {  // how many moving elements come before staying element s
            int lo = 0, hi = move;
            while (lo < hi) {
                const int mid = (lo + hi) / 2;
                if (before(move_k[mid], move_v[mid].position, stay_k[s], stay_at[s])) lo = mid + 1;
                else hi = mid;
            }
            return lo;
        };
        const int chunks = (stay + kBlock - 1) / kBlock;
        K* out_k = keys.data;
        V* out_v = values.data;
        team_dynamic(chunks > 1, chunks, [&](int c) {
            int s = c * kBlock, m = c == 0 ? 0 : moving_before(s);
            const int s_end = std::min(stay, (c + 1) * kBlock);
            const int m_end = c == chunks - 1 ? move : moving_before(s_end);
            int out = s + m;
            // Without branches on which comes first: the moving elements fall among the staying
            // ones at random, and that branch mispredicted (perf: half the merge's time, the merge
            // 12% of the Euler gas's step on 2 threads).
            while (s < s_end && m < m_end) {
                const K mk = move_k[m], sk = stay_k[s];
                const int mp = move_v[m].position, sp = stay_at[s];
                const bool take = (mk < sk) | ((mk == sk) & (mp < sp));  // before(), as a value
                const V mv = move_v[m].value, sv = stay_v[s];
                out_k[out] = take ? mk : sk;
                out_v[out++] = take ? mv : sv;
                m += take;
                s += !take;
            }
            for (; m < m_end; ++m, ++out) out_k[out] = move_k[m], out_v[out] = move_v[m].value;
            for (; s < s_end; ++s, ++out) out_k[out] = stay_k[s], out_v[out] = stay_v[s];
        });
        if (chunks == 0)  // everything moved (n <= 8)
            for (int m = 0; m < move; ++m) out_k[m] = move_k[m], out_v[m] = move_v[m].value;
        return true;
    }

    void synchronize() const {}

private:
    // f(i) for i in [0, n) on loop_threads() threads when `parallel`, else on the calling thread.
    // team_static gives each thread one contiguous slice (OpenMP's schedule(static): the first
    // n % threads slices one longer); team_dynamic hands the items out one at a time. Under
    // FS_THREAD_POOL (the browser's threaded page, which has no OpenMP) the same on ThreadPool.
    template <class F>
    static void team_static(bool parallel, int n, const F& f) {
#ifdef FS_THREAD_POOL
        const int threads = parallel ? std::min(loop_threads(), n) : 1;
        if (threads <= 1) {
            for (int i = 0; i < n; ++i) f(i);
            return;
        }
        ThreadPool::instance().run(threads, [&](int k) {
            const int base = n / threads, extra = n % threads;
            const int begin = k * base + std::min(k, extra), end = begin + base + (k < extra ? 1 : 0);
            for (int i = begin; i < end; ++i) f(i);
        });
#else
#pragma omp parallel for schedule(static) if (parallel) num_threads(loop_threads())
        for (int i = 0; i < n; ++i) f(i);
#endif
    }
    template <class F>
    static void team_dynamic(bool parallel, int n, const F& f) {
#ifdef FS_THREAD_POOL
        const int threads = parallel ? std::min(loop_threads(), n) : 1;
        if (threads <= 1) {
            for (int i = 0; i < n; ++i) f(i);
            return;
        }
        std::atomic<int> next{0};
        ThreadPool::instance().run(threads, [&](int) {
            for (int i = next.fetch_add(1, std::memory_order_relaxed); i < n; i = next.fetch_add(1, std::memory_order_relaxed))
                f(i);
        });
#else
#pragma omp parallel for schedule(dynamic) if (parallel) num_threads(loop_threads())
        for (int i = 0; i < n; ++i) f(i);
#endif
    }

    // A moving element of sort_by_key_near: where it was, and its value.
    template <class V>
    struct Moving {
        int position;
        V value;
    };

    // sort_by_key's radix sort of n (key, value) pairs, with room for n more of each at kd, vd.
    template <class K, class V>
    void radix_sort(K* ks, V* vs, int n, K* kd, V* vd) {
        K* const keys = ks;
        V* const values = vs;
        K top = 0;
        for (int i = 0; i < n; ++i) top = ks[i] > top ? ks[i] : top;
        unsigned bits = 1;
        while (bits < sizeof(K) * 8 && (top >> bits) != 0) ++bits;
        const unsigned passes = (bits + 7) / 8;
        const unsigned width = (bits + passes - 1) / passes;
        const std::size_t digits = std::size_t{1} << width;
        const K mask = static_cast<K>(digits - 1);
        const int blocks = (n + kBlock - 1) / kBlock;
        int* count = reserve<int>(sort_counts_, static_cast<std::size_t>(blocks) * digits);
        for (unsigned pass = 0, shift = 0; pass < passes; ++pass, shift += width) {
            team_dynamic(blocks > 1, blocks, [&](int b) {
                int* c = count + static_cast<std::size_t>(b) * digits;
                std::fill(c, c + digits, 0);
                const int end = std::min(n, (b + 1) * kBlock);
                for (int i = b * kBlock; i < end; ++i) ++c[(ks[i] >> shift) & mask];
            });
            int at = 0;  // slots: digit-major, then block order
            for (std::size_t d = 0; d < digits; ++d)
                for (int b = 0; b < blocks; ++b) {
                    int& c = count[static_cast<std::size_t>(b) * digits + d];
                    const int here = c;
                    c = at;
                    at += here;
                }
            team_dynamic(blocks > 1, blocks, [&](int b) {
                int* c = count + static_cast<std::size_t>(b) * digits;
                const int end = std::min(n, (b + 1) * kBlock);
                for (int i = b * kBlock; i < end; ++i) {
                    const int to = c[(ks[i] >> shift) & mask]++;
                    kd[to] = ks[i];
                    vd[to] = vs[i];
                }
            });
            std::swap(ks, kd);
            std::swap(vs, vd);
        }
        if (ks != keys) {
            std::copy(ks, ks + n, keys);
            std::copy(vs, vs + n, values);
        }
    }

    // Room for n values of a plain type, reused from call to call (the per-block results of
    // reductions and scans): once warm, no call allocates.
    template <class T>
    T* scratch(std::size_t n) {
        static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
        static_assert(alignof(T) <= alignof(std::max_align_t));
        const std::size_t words = (n * sizeof(T) + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
        if (scratch_.size() < words) scratch_.resize(words);
        return reinterpret_cast<T*>(scratch_.data());
    }
    std::vector<std::max_align_t> scratch_;

    // Room for n values of T in `store` (grows only).
    template <class T>
    static T* reserve(std::vector<std::max_align_t>& store, std::size_t n) {
        const std::size_t words = (n * sizeof(T) + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
        if (store.size() < words) store.resize(words);
        return reinterpret_cast<T*>(store.data());
    }
    // sort_by_key's alternate arrays and digit counts; sort_by_key_near's staying elements (in
    // the first two) and their positions, and its moving elements with room for their sort.
    std::vector<std::max_align_t> sort_keys_, sort_values_, sort_counts_, sort_positions_, sort_moving_keys_,
        sort_moving_values_;
};

}  // namespace fs
