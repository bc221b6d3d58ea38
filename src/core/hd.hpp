// One macro set that lets a function or lambda body serve both backends (see docs/design.md, "One kernel
// body, two backends"): under nvcc it is compiled for host and device, under g++ for the host only.
#pragma once

#if defined(__CUDACC__)
#define FS_HD __host__ __device__
#else
#define FS_HD
#endif

// Inline host-device function.
#define FS_HDI FS_HD inline

// A kernel body: a by-value lambda that both executors can run, e.g.
//   exec.parallel_for(n, FS_LAMBDA(int i) { out[i] = 2 * in[i]; });
// Capture views and plain values only (never `this`): the body may run on a GPU.
#if defined(__CUDACC__)
#define FS_LAMBDA [=] __host__ __device__
#else
#define FS_LAMBDA [=]
#endif

// The parity demonstration (docs/gpu.md, "The parity contract"; tests/gpu/run.sh, part "demo"): a
// build configured with -DFS_PARITY_DEMO=ON computes a few results one part in a million off on
// the GPU only (a bug the size of a mistyped constant), so the parity tests can be watched
// catching it. 1.0 in every other build, which the compiler folds away.
#if defined(FS_PARITY_DEMO) && defined(__CUDA_ARCH__)
#define FS_PARITY_DEMO_FACTOR (1.0 + 1e-6)
#else
#define FS_PARITY_DEMO_FACTOR 1.0
#endif

namespace fs {

// Integer atomic add, returning the old value. Integer sums are exact whatever the order, so
// counting with it keeps results independent of scheduling (float accumulations never use it).
FS_HDI int atomic_add(int* p, int v) {
#if defined(__CUDA_ARCH__)
    return atomicAdd(p, v);
#else
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}

// A hint that *p will be read soon, for a loop that touches a sparse, irregular subset of an
// array in ascending order (which the CPU's own prefetchers do not follow). Nothing on the GPU.
FS_HDI void prefetch(const void* p) {
#if !defined(__CUDA_ARCH__)
    __builtin_prefetch(p);
#else
    (void)p;
#endif
}

// n / d for 0 <= n < 2^31 and a divisor 1 <= d < 2^31 fixed outside a loop, by a multiply and a
// shift instead of an integer division (tens of cycles): with l = ceil(log2 d), s = 31 + l and
// m = ceil(2^s / d), floor(n m / 2^s) = floor(n / d) exactly, since m d - 2^s < d and n < 2^31
// make the error n (m d - 2^s) / (d 2^s) less than 1/d (Granlund and Montgomery, "Division by
// invariant integers using multiplication", PLDI 1994, theorem 4.2).
struct Divider {
    unsigned long long m = 1ull << 31;
    int s = 31;
    Divider() = default;
    explicit Divider(int d) {
        int l = 0;
        while ((1ll << l) < d) ++l;
        s = 31 + l;
        m = ((1ull << s) + static_cast<unsigned long long>(d) - 1) / static_cast<unsigned long long>(d);
    }
    FS_HDI int operator()(int n) const {
        return static_cast<int>((static_cast<unsigned long long>(n) * m) >> s);
    }
};

template <class T>
FS_HDI T min_of(T a, T b) {
    return b < a ? b : a;
}
template <class T>
FS_HDI T max_of(T a, T b) {
    return a < b ? b : a;
}
template <class T>
FS_HDI T clamp_to(T v, T lo, T hi) {
    return v < lo ? lo : (hi < v ? hi : v);
}

}  // namespace fs
