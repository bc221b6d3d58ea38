// Plain arrays to and from a byte blob (solver checkpoints): a length, then the elements; and
// plain values, as their bytes.
#pragma once

#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace fs::blob {

template <class T>
void put(std::vector<char>& out, const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const std::size_t n = v.size();
    const char* p = reinterpret_cast<const char*>(&n);
    out.insert(out.end(), p, p + sizeof n);
    p = reinterpret_cast<const char*>(v.data());
    out.insert(out.end(), p, p + n * sizeof(T));
}

// Reads what put() wrote at `at`, advancing it. Throws std::runtime_error when truncated.
template <class T>
void get(const std::vector<char>& in, std::size_t& at, std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::size_t n = 0;
    if (at + sizeof n > in.size()) throw std::runtime_error("checkpoint truncated");
    std::memcpy(&n, in.data() + at, sizeof n);
    at += sizeof n;
    if (n > (in.size() - at) / sizeof(T)) throw std::runtime_error("checkpoint truncated");
    v.resize(n);
    if (n > 0) std::memcpy(v.data(), in.data() + at, n * sizeof(T));  // an empty vector's data() may be null
    at += n * sizeof(T);
}

// One plain value (a struct of numbers), for the parts of a state that are not arrays.
template <class T>
    requires std::is_trivially_copyable_v<T>
void put(std::vector<char>& out, const T& v) {
    const char* p = reinterpret_cast<const char*>(&v);
    out.insert(out.end(), p, p + sizeof v);
}

template <class T>
    requires std::is_trivially_copyable_v<T>
void get(const std::vector<char>& in, std::size_t& at, T& v) {
    if (at + sizeof v > in.size()) throw std::runtime_error("checkpoint truncated");
    std::memcpy(&v, in.data() + at, sizeof v);
    at += sizeof v;
}

}  // namespace fs::blob
