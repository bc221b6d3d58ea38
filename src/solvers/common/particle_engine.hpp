// The plumbing every particle solver's engine shares (euler, sph, flip, ot): the interface its
// Engine starts from, and the helpers its Pipeline<Exec> uses to move the HostState in and out
// and to name its fields. A solver's engine adds its stages, sums and inspection on top.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <type_traits>

#include "core/buffer.hpp"
#include "core/frame_pack.hpp"

namespace fs {

// What EngineSolver and Solver::field_view ask of an engine that owns particles on one backend.
template <class HostStateT>
class ParticleEngine {
public:
    using HostState = HostStateT;
    virtual ~ParticleEngine() = default;
    virtual void upload(const HostState& s) = 0;
    virtual void download(HostState& s) const = 0;
    virtual int size() const = 0;
    // A particle field where it lies (Solver::field_view); nullopt for fields it does not hold.
    virtual std::optional<FieldView> view(std::string_view name) const = 0;
    virtual void synchronize() = 0;
};

namespace detail {

// f(buffer, part) for each part of s (HostState::each order) and the buffer at its place; a buffer
// of another element type than its part, or a count that differs, is a programming error.
template <class HostState, class F, class... B>
void zip_parts(HostState& s, F&& f, B&... buffers) {
    std::size_t k = 0;
    std::remove_const_t<HostState>::each(s, [&](auto& part) {
        std::size_t j = 0;
        const auto one = [&](auto& b) {
            if (j++ != k) return;
            if constexpr (requires { f(b, part); })
                f(b, part);
            else
                throw std::logic_error("an engine's buffers do not match its HostState's parts");
        };
        (one(buffers), ...);
        ++k;
    });
    if (k != sizeof...(B)) throw std::logic_error("an engine's buffers do not match its HostState's parts");
}

}  // namespace detail

// An engine's upload: each part of s, in HostState::each order, into the buffer at its place.
template <class HostState, class... T>
void upload_parts(const HostState& s, Buffer<T>&... buffers) {
    detail::zip_parts(s, [](auto& b, const auto& part) -> decltype(b.copy_from_host(part)) { b.copy_from_host(part); },
                      buffers...);
}

// An engine's download: each buffer into the part of s at its place (HostState::each order).
template <class HostState, class... T>
void download_parts(HostState& s, const Buffer<T>&... buffers) {
    detail::zip_parts(s, [](const auto& b, auto& part) -> decltype(b.copy_to_host(part)) { b.copy_to_host(part); },
                      buffers...);
}

// The fields every particle pipeline holds, where they lie: "position", "velocity" (and "speed",
// which is read from it) and "id". V is dvec2 or dvec3.
template <class V>
std::optional<FieldView> motion_view(std::string_view name, const Buffer<V>& pos, const Buffer<V>& vel,
                                     const Buffer<int>& id) {
    const int n = static_cast<int>(pos.size());
    if (name == "position") return f64_view(pos.data(), n, V::length());
    if (name == "velocity" || name == "speed") return f64_view(vel.data(), n, V::length());
    if (name == "id") return i32_view(id.data(), n);
    return std::nullopt;
}

}  // namespace fs
