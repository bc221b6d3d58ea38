// A solver declared once: its stages and fields written in one table each, from which the
// Solver API (stages(), fields(), read_field()), the engine's field views, its upload and
// download and the host state's traversal (checkpoints, the move between backends) are derived.
//
// In the solver's engine header (seen by the solver and by both backends' pipelines):
//
//     struct HostState {
//         std::vector<dvec2> pos, vel;
//         std::vector<double> mass;
//         std::vector<int> id;
//         // Every part that travels, in checkpoint order.
//         static constexpr auto parts() { return std::tuple{&HostState::pos, &HostState::vel, ...}; }
//         // What the user sees: name, unit, meaning, and the part it is read from.
//         static constexpr auto fields() {
//             return std::tuple{field("position", "m", "particle position", &HostState::pos),
//                               norm("speed", "m/s", "|velocity|", &HostState::vel), ...};
//         }
//     };
//     inline constexpr StageDecl kStages[] = {{"forces", "the particle tutorial, gravity: ..."}, ...};
//
// and in the pipeline, the buffer of each part (in parts() order) and the method of each stage
// (in kStages order, by name; stage_runs_agree checks both at compile time):
//
//     static constexpr auto buffers() { return std::tuple{&Pipeline::pos_, &Pipeline::vel_, ...}; }
//     static constexpr auto runs() { return std::array{StageRun<Pipeline, Config>{"forces", &Pipeline::forces}, ...}; }
//
// Adding a field is one entry in fields() (and, for new state, a member, its entry in parts()
// and its buffer in buffers()); adding a stage is one entry in kStages and one in runs().
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/buffer.hpp"
#include "core/frame_pack.hpp"
#include "core/solver.hpp"
#include "solvers/common/motion_sums.hpp"

namespace fs {

// ---- Stages ---------------------------------------------------------------------------------

// A stage as the user sees it: the source document's word, and where its equation comes from.
struct StageDecl {
    const char* name;
    const char* source;
};

// A stage as a pipeline runs it: its name (checked against the StageDecl at its place) and method.
template <class P, class Config>
struct StageRun {
    const char* name;
    void (P::*run)(const Config&);
};

namespace detail {
constexpr bool same_name(const char* a, const char* b) {
    while (*a && *a == *b) ++a, ++b;
    return *a == *b;
}
}  // namespace detail

// True when the pipeline's runs name the declared stages, one for one, in order.
template <std::size_t N, class Runs>
constexpr bool stage_runs_agree(const StageDecl (&stages)[N], const Runs& runs) {
    if (runs.size() != N) return false;
    for (std::size_t k = 0; k < N; ++k)
        if (!detail::same_name(stages[k].name, runs[k].name)) return false;
    return true;
}

template <std::size_t N>
std::vector<StageInfo> stage_infos(const StageDecl (&stages)[N]) {
    std::vector<StageInfo> out;
    for (const StageDecl& s : stages) out.push_back({s.name, s.source});
    return out;
}

// ---- State: its parts, and the engine's buffer for each -------------------------------------

namespace detail {
// f(std::integral_constant<std::size_t, K>) for K = 0 .. N-1, in order.
template <class F, std::size_t... K>
void for_index(F&& f, std::index_sequence<K...>) {
    (f(std::integral_constant<std::size_t, K>{}), ...);
}
template <std::size_t N, class F>
void for_index(F&& f) {
    for_index(f, std::make_index_sequence<N>{});
}
template <class H>
constexpr std::size_t part_count = std::tuple_size_v<decltype(H::parts())>;
}  // namespace detail

// f(part) for each part of s, in H::parts() order (s may be const).
template <class S, class F>
void for_each_part(S& s, F&& f) {
    using H = std::remove_const_t<S>;
    std::apply([&](auto... member) { (f(s.*member), ...); }, H::parts());
}

// The engine's upload and download: each part of s into (out of) the buffer at its place.
template <class H, class P>
void upload_declared(const H& s, P& pipeline) {
    static_assert(detail::part_count<H> == std::tuple_size_v<decltype(P::buffers())>,
                  "a pipeline's buffers() must list one buffer per HostState part");
    detail::for_index<detail::part_count<H>>([&](auto k) {
        (pipeline.*std::get<k>(P::buffers())).copy_from_host(s.*std::get<k>(H::parts()));
    });
}
template <class H, class P>
void download_declared(H& s, const P& pipeline) {
    detail::for_index<detail::part_count<H>>([&](auto k) {
        (pipeline.*std::get<k>(P::buffers())).copy_to_host(s.*std::get<k>(H::parts()));
    });
}

// ---- Fields ---------------------------------------------------------------------------------

// A field of the host state's part `part` (T: double, int or a glm vector): read as it is stored,
// or (Length) as the length of each vector, the speed of the velocity, whose view is then the
// vector part's (the window takes the length where it draws).
template <class H, class T, bool Length = false>
struct Field {
    const char* name;
    const char* unit;
    const char* description;
    std::vector<T> H::*part;
};
template <class H, class T>
constexpr Field<H, T> field(const char* name, const char* unit, const char* description, std::vector<T> H::*part) {
    return {name, unit, description, part};
}
template <class H, class V>
constexpr Field<H, V, true> norm(const char* name, const char* unit, const char* description, std::vector<V> H::*part) {
    return {name, unit, description, part};
}

namespace detail {
template <class T>
constexpr int components() {
    if constexpr (std::is_arithmetic_v<T>)
        return 1;
    else
        return T::length();
}
template <class H, class T, bool Length>
FieldInfo info(const Field<H, T, Length>& f) {
    return {f.name, Length ? 1 : components<T>(), f.unit, f.description};
}
template <class H, class T, bool Length>
void read(const Field<H, T, Length>& f, const H& s, std::vector<double>& out) {
    const std::vector<T>& v = s.*f.part;
    out.clear();
    out.reserve((Length ? 1 : components<T>()) * v.size());
    for (const T& x : v) {
        if constexpr (Length)
            out.push_back(std::sqrt(speed2(x)));
        else if constexpr (std::is_arithmetic_v<T>)
            out.push_back(static_cast<double>(x));
        else
            for (int k = 0; k < T::length(); ++k) out.push_back(x[k]);
    }
}
template <class T>
FieldView view_of(const Buffer<T>& b) {
    const int n = static_cast<int>(b.size());
    if constexpr (std::is_same_v<T, int>)
        return i32_view(b.data(), n);
    else
        return f64_view(b.data(), n, components<T>());
}
}  // namespace detail

// The declared fields as the Solver API lists them.
template <class H>
std::vector<FieldInfo> field_infos() {
    std::vector<FieldInfo> out;
    std::apply([&](const auto&... f) { (out.push_back(detail::info(f)), ...); }, H::fields());
    return out;
}

// The field `name` of s into out (components per particle, particle after particle); throws
// ParamError naming the solver's fields for a name it does not declare.
template <class H>
void read_declared_field(std::string_view solver, std::string_view name, const H& s, std::vector<double>& out) {
    bool found = false;
    std::apply([&](const auto&... f) { ((!found && name == f.name ? (detail::read(f, s, out), found = true) : false), ...); },
               H::fields());
    if (found) return;
    std::string allowed;
    std::apply([&](const auto&... f) { ((allowed += (allowed.empty() ? "" : ", ") + std::string(f.name)), ...); },
               H::fields());
    throw ParamError("the " + std::string(solver) + " solver has no field '" + std::string(name) + "' (allowed: " +
                     allowed + ")");
}

namespace detail {
// The view of the buffer at place K when H's part K is `part` (written as a function template, not
// a generic lambda: GCC 12 discards an `if constexpr` on decltype of a captured lambda parameter).
template <std::size_t K, class H, class P, class Part>
void view_if_part(const P& pipeline, Part part, std::optional<FieldView>& out) {
    using Member = std::remove_cv_t<std::tuple_element_t<K, decltype(H::parts())>>;
    if constexpr (std::is_same_v<Member, Part>)
        if (!out && std::get<K>(H::parts()) == part) out = view_of(pipeline.*std::get<K>(P::buffers()));
}
template <class H, class P, class Part, std::size_t... K>
void view_of_part(const P& pipeline, Part part, std::optional<FieldView>& out, std::index_sequence<K...>) {
    (view_if_part<K, H>(pipeline, part, out), ...);
}
}  // namespace detail

// The field `name` where the pipeline holds it (the buffer of its part); nullopt for a name it
// does not declare.
template <class H, class P>
std::optional<FieldView> declared_view(std::string_view name, const P& pipeline) {
    std::optional<FieldView> out;
    std::apply(
        [&](const auto&... f) {
            ((!out && name == f.name
                  ? (detail::view_of_part<H>(pipeline, f.part, out, std::make_index_sequence<detail::part_count<H>>{}), 0)
                  : 0),
             ...);
        },
        H::fields());
    return out;
}

}  // namespace fs
