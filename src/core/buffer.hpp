// Buffer<T>: an owning array in host or device memory. View<T>: the light, by-value handle that
// kernels receive (pointer + size). A Buffer never reallocates unless it must grow, and then by
// at least half again, so steps that resize to similar sizes allocate nothing.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/backend.hpp"
#include "core/hd.hpp"
#include "core/memory.hpp"

namespace fs {

template <class T>
struct View {
    T* data = nullptr;
    int size = 0;

    FS_HDI T& operator[](int i) const { return data[i]; }
    // View<T> -> View<const T> (a template so that View<const T> does not convert to itself).
    template <class U = T>
        requires(!std::is_const_v<U>)
    FS_HDI operator View<const U>() const {
        return {data, size};
    }
};

template <class T>
class Buffer {
    static_assert(std::is_trivially_copyable_v<T>, "buffers hold plain data that memcpy can move");

public:
    explicit Buffer(MemorySpace space = MemorySpace::Host, std::size_t n = 0) : space_(space) {
        resize(n);
    }
    ~Buffer() { mem_free(space_, data_); }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    Buffer(Buffer&& o) noexcept
        : data_(std::exchange(o.data_, nullptr)),
          size_(std::exchange(o.size_, 0)),
          capacity_(std::exchange(o.capacity_, 0)),
          space_(o.space_) {}
    Buffer& operator=(Buffer&& o) noexcept {
        if (this != &o) {
            mem_free(space_, data_);
            data_ = std::exchange(o.data_, nullptr);
            size_ = std::exchange(o.size_, 0);
            capacity_ = std::exchange(o.capacity_, 0);
            space_ = o.space_;
        }
        return *this;
    }

    MemorySpace space() const { return space_; }
    std::size_t size() const { return size_; }
    std::size_t bytes() const { return size_ * sizeof(T); }
    T* data() { return data_; }
    const T* data() const { return data_; }

    View<T> view() { return {data_, checked_int(size_)}; }
    View<const T> view() const { return {data_, checked_int(size_)}; }
    View<const T> cview() const { return view(); }

    // Keeps the first min(size, n) elements; new elements are uninitialised.
    void resize(std::size_t n) {
        if (n > capacity_) {
            const std::size_t cap = std::max(n, capacity_ + capacity_ / 2);
            T* fresh = static_cast<T*>(mem_alloc(space_, cap * sizeof(T)));
            if (size_) mem_copy(fresh, space_, data_, space_, size_ * sizeof(T));
            mem_free(space_, data_);
            data_ = fresh;
            capacity_ = cap;
        }
        size_ = n;
    }

    // resize(n), then view(): for a spare buffer about to be written in full.
    View<T> resized(std::size_t n) {
        resize(n);
        return view();
    }

    void fill_zero() { mem_zero(data_, space_, bytes()); }

    void copy_from_host(const T* src, std::size_t n) {
        resize(n);
        mem_copy(data_, space_, src, MemorySpace::Host, n * sizeof(T));
    }
    void copy_from_host(const std::vector<T>& v) { copy_from_host(v.data(), v.size()); }
    void copy_to_host(std::vector<T>& out) const {
        out.resize(size_);
        mem_copy(out.data(), MemorySpace::Host, data_, space_, bytes());
    }
    std::vector<T> to_vector() const {
        std::vector<T> out;
        copy_to_host(out);
        return out;
    }

private:
    static int checked_int(std::size_t n) {
        if (n > static_cast<std::size_t>(INT32_MAX))
            throw std::length_error("buffer larger than 2^31 elements");
        return static_cast<int>(n);
    }

    T* data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
    MemorySpace space_;
};

}  // namespace fs
