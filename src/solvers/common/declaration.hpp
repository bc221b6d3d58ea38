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
#include <iterator>
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

// A stage as a pipeline runs it: its name (checked against the StageDecl at its place) and method,
// which takes what the engine's run_stage passes on (Args: the Config, and what else a solver's
// stages need, such as FLIP's pressure settings).
template <class P, class... Args>
struct StageRun {
    const char* name;
    void (P::*run)(Args...);
};

// Runs stage `stage` of P::runs() (nothing for an index outside them, or a stage without a
// method: one the solver runs on the host).
template <class P, class... A>
void run_declared_stage(P& pipeline, int stage, A&&... args) {
    constexpr auto runs = P::runs();
    if (stage < 0 || static_cast<std::size_t>(stage) >= runs.size() || !runs[stage].run) return;
    (pipeline.*runs[stage].run)(std::forward<A>(args)...);
}

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

namespace detail {
// f(part), or f on each element of a part that is an array of parts (FLIP's affine vectors).
template <class Part, class F>
void visit_part(Part& part, F& f) {
    if constexpr (std::is_array_v<Part>)
        for (auto& element : part) f(element);
    else
        f(part);
}
}  // namespace detail

// f(part) for each part of s, in H::parts() order (s may be const): checkpoints, the order by id.
template <class S, class F>
void for_each_part(S& s, F&& f) {
    using H = std::remove_const_t<S>;
    std::apply([&](auto... member) { (detail::visit_part(s.*member, f), ...); }, H::parts());
}

namespace detail {
// f(buffer, part) for each part of s and the pipeline's buffer at its place (element by element
// where both are arrays).
template <class H, class P, class F>
void zip_declared(H& s, P& pipeline, F&& f) {
    using Host = std::remove_const_t<H>;
    using Pipe = std::remove_const_t<P>;
    static_assert(part_count<Host> == std::tuple_size_v<decltype(Pipe::buffers())>,
                  "a pipeline's buffers() must list one buffer per HostState part");
    for_index<part_count<Host>>([&](auto k) {
        auto& buffer = pipeline.*std::get<k>(Pipe::buffers());
        auto& part = s.*std::get<k>(Host::parts());
        if constexpr (std::is_array_v<std::remove_reference_t<decltype(part)>>)
            for (std::size_t e = 0; e < std::size(part); ++e) f(buffer[e], part[e]);
        else
            f(buffer, part);
    });
}
}  // namespace detail

// The engine's upload and download: each part of s into (out of) the buffer at its place.
template <class H, class P>
void upload_declared(const H& s, P& pipeline) {
    detail::zip_declared(s, pipeline, [](auto& buffer, const auto& part) { buffer.copy_from_host(part); });
}
template <class H, class P>
void download_declared(H& s, const P& pipeline) {
    detail::zip_declared(s, pipeline, [](const auto& buffer, auto& part) { buffer.copy_to_host(part); });
}

// ---- Fields ---------------------------------------------------------------------------------

// A field of the host state's part `part` (T: double, int or a glm vector): read as it is stored,
// or (Length) as the length of each vector, the speed of the velocity, whose view is then the
// vector part's (the window takes the length where it draws). `then`, where a state holds two
// kinds of particle (the vortex solver's vortons and tracers), is the second kind's part, read
// after the first's; a state with a static rows(s) pads a field to that many rows with zeros
// (a tracer's vorticity).
template <class H, class T, bool Length = false>
struct Field {
    const char* name;
    const char* unit;
    const char* description;
    std::vector<T> H::*part;
    std::vector<T> H::*then = nullptr;
};
template <class H, class T>
constexpr Field<H, T> field(const char* name, const char* unit, const char* description, std::vector<T> H::*part,
                            std::vector<T> H::*then = nullptr) {
    return {name, unit, description, part, then};
}
template <class H, class V>
constexpr Field<H, V, true> norm(const char* name, const char* unit, const char* description, std::vector<V> H::*part,
                                 std::vector<V> H::*then = nullptr) {
    return {name, unit, description, part, then};
}

// A field the state does not hold as it is read: `read` makes it from the solver (Ctx, which
// EngineSolver passes) and the state as it lies. It has no view where the engine keeps it.
template <class Ctx, class H>
struct Computed {
    const char* name;
    const char* unit;
    const char* description;
    int components;
    void (*read)(const Ctx&, const H&, std::vector<double>&);
};
template <class Ctx, class H>
constexpr Computed<Ctx, H> computed(const char* name, const char* unit, const char* description, int components,
                                    void (*read)(const Ctx&, const H&, std::vector<double>&)) {
    return {name, unit, description, components, read};
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
template <class Ctx, class H>
FieldInfo info(const Computed<Ctx, H>& f) {
    return {f.name, f.components, f.unit, f.description};
}
template <class H, class T, bool Length, class Ctx>
void read(const Field<H, T, Length>& f, const H& s, const Ctx&, std::vector<double>& out) {
    constexpr int kComponents = Length ? 1 : components<T>();
    out.clear();
    const auto append = [&](const std::vector<T>& v) {
        for (const T& x : v) {
            if constexpr (Length)
                out.push_back(std::sqrt(speed2(x)));
            else if constexpr (std::is_arithmetic_v<T>)
                out.push_back(static_cast<double>(x));
            else
                for (int k = 0; k < T::length(); ++k) out.push_back(x[k]);
        }
    };
    append(s.*f.part);
    if (f.then) append(s.*f.then);
    if constexpr (requires { H::rows(s); }) out.resize(kComponents * H::rows(s), 0.0);
}
template <class Ctx, class H>
void read(const Computed<Ctx, H>& f, const H& s, const Ctx& ctx, std::vector<double>& out) {
    out.clear();
    f.read(ctx, s, out);
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

// The field `name` of s into out (components per particle, particle after particle), computed
// fields from ctx (the solver); throws ParamError naming the solver's fields for a name it does
// not declare.
template <class H, class Ctx>
void read_declared_field(std::string_view solver, std::string_view name, const H& s, const Ctx& ctx,
                         std::vector<double>& out) {
    bool found = false;
    std::apply(
        [&](const auto&... f) { ((!found && name == f.name ? (detail::read(f, s, ctx, out), found = true) : false), ...); },
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

template <class H, class P, class F>
void view_if_field(const P& pipeline, std::string_view name, const F& f, std::optional<FieldView>& out) {
    if constexpr (requires { f.part; })
        if (!out && name == f.name && !f.then)
            view_of_part<H>(pipeline, f.part, out, std::make_index_sequence<part_count<H>>{});
}
}  // namespace detail

// The field `name` where the pipeline holds it (the buffer of its part); nullopt for a name it
// does not declare, a computed field, or one read from two parts.
template <class H, class P>
std::optional<FieldView> declared_view(std::string_view name, const P& pipeline) {
    std::optional<FieldView> out;
    std::apply([&](const auto&... f) { (detail::view_if_field<H>(pipeline, name, f, out), ...); }, H::fields());
    return out;
}

}  // namespace fs
