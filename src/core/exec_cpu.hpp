// The CPU executor: the loop and the collective operations of the CPU backend (OpenMP).
//
// Determinism: every result is independent of the number of threads. Loops write disjoint
// outputs; reductions and scans cut the range into fixed blocks (kBlock elements, whatever the
// thread count), reduce each block serially, then join the block results in block order.
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

namespace fs {

class CpuExec {
public:
    static constexpr Backend backend = Backend::Cpu;
    static constexpr MemorySpace space = MemorySpace::Host;
    static constexpr int kBlock = 1 << 14;

    // Loops shorter than this run on the calling thread: starting a team and meeting at its
    // barrier costs more than they do (multigrid's coarse levels issue many such loops, and a
    // barrier waiting on a descheduled thread costs a whole time slice on a busy machine).
    static constexpr int kSerialBelow = 4096;

    // f(i) for i in [0, n); the iterations are independent.
    template <class F>
    void parallel_for(int n, const F& f) const {
#pragma omp parallel for schedule(static) if (n >= kSerialBelow)
        for (int i = 0; i < n; ++i) f(i);
    }

    // op(...op(op(init, map(0)), map(1))..., map(n-1)) grouped in fixed blocks; op must be
    // associative (for floats: associative up to rounding, and the rounding is reproducible).
    template <class T, class Map, class Op>
    T transform_reduce(int n, T init, const Map& map, const Op& op) {
        const int blocks = (n + kBlock - 1) / kBlock;
        T* partial = scratch<T>(static_cast<std::size_t>(blocks));
#pragma omp parallel for schedule(static) if (blocks > 1)
        for (int b = 0; b < blocks; ++b) {
            const int end = std::min(n, (b + 1) * kBlock);
            T acc = map(b * kBlock);
            for (int i = b * kBlock + 1; i < end; ++i) acc = op(acc, map(i));
            new (partial + b) T(acc);
        }
        T result = init;
        for (int b = 0; b < blocks; ++b) result = op(result, partial[b]);
        return result;
    }

    // out[i] = in[0] + ... + in[i-1]; out may alias in. Blocked two-pass scan.
    template <class T>
    void exclusive_scan(View<const T> in, View<T> out) {
        const int n = in.size;
        const int blocks = (n + kBlock - 1) / kBlock;
        T* block_sum = scratch<T>(static_cast<std::size_t>(blocks) + 1);
        for (int b = 0; b <= blocks; ++b) new (block_sum + b) T{};
#pragma omp parallel for schedule(static)
        for (int b = 0; b < blocks; ++b) {
            const int end = std::min(n, (b + 1) * kBlock);
            T acc{};
            for (int i = b * kBlock; i < end; ++i) acc += in[i];
            block_sum[b + 1] = acc;
        }
        for (int b = 0; b < blocks; ++b) block_sum[b + 1] += block_sum[b];
#pragma omp parallel for schedule(static)
        for (int b = 0; b < blocks; ++b) {
            const int end = std::min(n, (b + 1) * kBlock);
            T acc = block_sum[b];
            for (int i = b * kBlock; i < end; ++i) {
                const T v = in[i];
                out[i] = acc;
                acc += v;
            }
        }
    }

    // Stable sort of (keys, values) by key: LSD radix sort for unsigned integer keys.
    template <class K, class V>
    void sort_by_key(View<K> keys, View<V> values) {
        static_assert(std::is_unsigned_v<K>, "sort_by_key sorts unsigned integer keys");
        const int n = keys.size;
        std::vector<K> k2(static_cast<std::size_t>(n));
        std::vector<V> v2(static_cast<std::size_t>(n));
        K* ks = keys.data;
        V* vs = values.data;
        K* kd = k2.data();
        V* vd = v2.data();
        for (unsigned shift = 0; shift < sizeof(K) * 8; shift += 8) {
            std::size_t count[257] = {};
            for (int i = 0; i < n; ++i) ++count[((ks[i] >> shift) & 0xFF) + 1];
            if (count[1] == static_cast<std::size_t>(n) && shift > 0) continue;  // digit all zero
            for (int d = 0; d < 256; ++d) count[d + 1] += count[d];
            for (int i = 0; i < n; ++i) {
                const std::size_t at = count[(ks[i] >> shift) & 0xFF]++;
                kd[at] = ks[i];
                vd[at] = vs[i];
            }
            std::swap(ks, kd);
            std::swap(vs, vd);
        }
        if (ks != keys.data) {
            std::copy(ks, ks + n, keys.data);
            std::copy(vs, vs + n, values.data);
        }
    }

    void synchronize() const {}

private:
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
};

}  // namespace fs
