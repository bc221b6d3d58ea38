// EngineSolver: the plumbing every solver shares, so a solver's own files hold only its physics,
// parameters and stages. It owns the Engine (the state on one backend) and moves that state in
// and out: set_state/state (tests, export), checkpoints, and the switch to the other backend.
//
// A solver (Derived) provides three things for it:
//   - an Engine class with upload(const HostState&), download(HostState&) const and synchronize();
//   - a HostState declared as solvers/common/declaration.hpp says: its parts() (every part of the
//     state that travels: its arrays, and any plain value such as the vortex solver's grid shape,
//     in one fixed order) and its fields(), from which this class gives fields() and read_field();
//     a HostState with an `id` array is returned by state() in order of id;
//   - its two factories, make_cpu_engine() and make_cuda_engine() (which throws CudaError when
//     no GPU is usable).
// What a solver keeps beside the engine's arrays (the last step's speed, emission counters) goes
// through save_extra/load_extra; what the engine must be told after every upload (the vortex
// solver's bodies) through on_upload.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/blob.hpp"
#include "core/params.hpp"
#include "core/solver.hpp"
#include "solvers/common/declaration.hpp"
#include "solvers/common/pair_list.hpp"

namespace fs {

template <class Derived, class EngineT, class HostStateT, std::unique_ptr<EngineT> (*MakeCpu)(),
          std::unique_ptr<EngineT> (*MakeCuda)()>
class EngineSolver : public Solver {
public:
    using Engine = EngineT;
    using HostState = HostStateT;

    // What the solver named at construction: its kind, its dimension, its traits and the stages
    // of its step (a solver whose step depends on a parameter overrides stages()).
    std::string_view kind() const final { return kind_; }
    int dimension() const final { return dimension_; }
    SolverTraits traits() const final { return traits_; }
    const std::vector<StageInfo>& stages() const override { return stages_; }

    // The fields HostState declares; read from the engine's state as it lies (not sorted by id:
    // every field in the same order until the next step), computed ones from the solver.
    std::vector<FieldInfo> fields() const override { return field_infos<HostState>(); }
    void read_field(std::string_view name, std::vector<double>& out) const override {
        HostState s;
        engine_->download(s);
        read_declared_field(kind(), name, s, static_cast<const Derived&>(*this), out);
    }

    // The whole state in host memory (particles in order of id where the state has ids).
    HostState state() const {
        HostState raw;
        if (!engine_) return raw;
        engine_->download(raw);
        if constexpr (requires { raw.id; }) return sorted_by_id(raw);
        return raw;
    }
    int particle_count() const override {
        if constexpr (requires(const Engine& e) { e.size(); })
            return engine_ ? engine_->size() : 0;
        else
            return 0;
    }
    std::optional<FieldView> field_view(std::string_view name) const override {
        if constexpr (requires(const Engine& e) { e.view(name); })
            return engine_ ? engine_->view(name) : std::nullopt;
        else
            return std::nullopt;
    }
    // Replaces the state (reset, tests); the particle count becomes the state's.
    void set_state(const HostState& s) {
        if (!engine_) engine_ = make_engine(backend());
        engine_->upload(s);
        on_upload();
    }
    // Position and velocity, for every solver whose state holds them as `pos` and `vel`.
    std::vector<std::string> writable_fields() const override {
        if constexpr (requires(HostState h) { h.pos; h.vel; })
            return {"position", "velocity"};
        else
            return {};
    }
    void write_field(std::string_view name, const std::vector<double>& values) override {
        if constexpr (requires(HostState h) { h.pos; h.vel; }) {
            if (name == "position" || name == "velocity") {
                HostState s;
                engine_->download(s);  // as it lies: the order read_field gives
                auto& v = name == "position" ? s.pos : s.vel;
                write_vectors(name, values, v);
                set_state(s);
                on_written(s);
                return;
            }
        }
        Solver::write_field(name, values);
    }
    // The engine itself (tests drive single stages and read its grids).
    Engine& engine() { return *engine_; }
    const Engine& engine() const { return *engine_; }

protected:
    EngineSolver(Backend backend, std::string_view kind, int dimension, SolverTraits traits,
                 std::vector<StageInfo> stages = {})
        : Solver(backend), kind_(kind), dimension_(dimension), traits_(std::move(traits)), stages_(std::move(stages)) {}

    virtual void on_upload() {}
    // After write_field replaced part of the state: what the solver keeps of the state beside the
    // engine (the last speed an adaptive dt reads) follows it.
    virtual void on_written(const HostState& /*s*/) {}

    // values (L per particle, L = V::length()) into v, which keeps its count; throws
    // std::invalid_argument for another count.
    template <class V>
    static void write_vectors(std::string_view name, const std::vector<double>& values, std::vector<V>& v) {
        constexpr std::size_t L = V::length();
        if (values.size() != L * v.size())
            throw std::invalid_argument(std::string(name) + ": expected " + std::to_string(v.size()) + " x " +
                                        std::to_string(L) + " values (the state's particles), got " +
                                        std::to_string(values.size()));
        for (std::size_t i = 0; i < v.size(); ++i)
            for (std::size_t k = 0; k < L; ++k) v[i][static_cast<int>(k)] = values[L * i + k];
    }
    virtual void save_extra(std::vector<char>& /*out*/) const {}
    virtual void load_extra(const std::vector<char>& /*in*/, std::size_t& /*at*/) {}

    // The engine's arrays as they are (not sorted by id), so a restored or moved run continues
    // bit for bit.
    void move_to(Backend to) final {
        HostState s;
        engine_->download(s);
        auto fresh = make_engine(to);
        fresh->upload(s);
        engine_ = std::move(fresh);
        on_upload();
    }
    void save_state(std::vector<char>& out) const final {
        HostState s;
        engine_->download(s);
        out.clear();
        for_each_part(s, [&](const auto& part) { blob::put(out, part); });
        save_extra(out);
    }
    void load_state(const std::vector<char>& in) final {
        HostState s;
        std::size_t at = 0;
        for_each_part(s, [&](auto& part) { blob::get(in, at, part); });
        load_extra(in, at);
        set_state(s);
    }
    void synchronize() override {
        if (engine_) engine_->synchronize();
    }

    // The registrations every scene has, worded alike in every solver.
    void add_seed(long long* seed, const std::string& group, const std::string& what) {
        params_.add_int({"seed", "Random seed", group, "", "Seed of " + what + ".", 0, 9e15, false, true}, seed);
    }
    void add_gravity(double* magnitude, double* direction, int components, const std::string& default_note = "") {
        params_.add_real({"gravity", "Gravity", "Forces", "m/s^2",
                          "Magnitude of gravity" + default_note + ". W/A/S/D turn its direction.", 0, 1e3},
                         magnitude);
        params_.add_vec({"gravity_direction", "Gravity direction", "Forces", "",
                         "Direction of gravity (normalised before use; zero turns gravity off).", -1, 1},
                        direction, components);
    }

    // The hand's settings (core/hands.hpp), for the tools in `tools` (a HandTools mask).
    void add_hands(HandSettings* h, unsigned tools) {
        const std::string g = "Hands";
        if (tools & (kHandPushPull | kHandPour))
            params_.add_real({"hand_radius", "Hand radius", g, "m",
                              "Push, pull and pour act within this distance of the cursor (the circle drawn there).", 1e-4,
                              1e3},
                             &h->radius);
        if (tools & kHandPushPull)
            params_.add_real({"hand_strength", "Hand strength", g, "m/s^2",
                              "Push and pull: the acceleration at the cursor, falling to 0 at the radius.", 0, 1e4},
                             &h->strength);
        if (tools & kHandDrag)
            params_.add_real({"drag_speed", "Drag speed", g, "m/s",
                              "The fastest a dragged body follows the cursor (the fluid feels this velocity).", 1e-3, 100},
                             &h->drag_speed);
        if (tools & kHandPour) {
            params_.add_real({"pour_rate", "Pour rate", g, "1/s", "Particles poured per second while the button is held.",
                              0, 1e7},
                             &h->pour_rate);
            params_.add_real({"pour_speed", "Pour speed", g, "m/s", "Poured liquid leaves the hand along gravity at this speed.",
                              0, 100},
                             &h->pour_speed);
            params_.add_int({"max_particles", "Particle budget", g, "",
                             "Pouring stops at this many particles (0: twice as many as the scene starts with).", 0, 1e9},
                            &h->max_particles);
            params_.add_int({"poured", "Poured", "Diagnostics", "", "Particles poured since the scene started.", 0, 9e15,
                             true},
                            &h->poured);
        }
    }

    std::unique_ptr<Engine> engine_;

private:
    std::string_view kind_;
    int dimension_;
    SolverTraits traits_;
    std::vector<StageInfo> stages_;

private:
    static std::unique_ptr<Engine> make_engine(Backend b) { return b == Backend::Cuda ? MakeCuda() : MakeCpu(); }

    static HostState sorted_by_id(const HostState& raw) {
        const std::vector<std::size_t> order = grid::order_by_id(raw.id);
        std::vector<const void*> sources;
        for_each_part(raw, [&](const auto& part) { sources.push_back(&part); });
        HostState s;
        std::size_t k = 0;
        // Per-particle arrays follow the order; any other part (an array of another length, such
        // as APIC's affine vectors while the transfer is not APIC: empty) is copied as it is.
        for_each_part(s, [&](auto& part) {
            using Part = std::remove_cvref_t<decltype(part)>;
            const Part& from = *static_cast<const Part*>(sources[k++]);
            if constexpr (requires { from.size(); from[0]; }) {
                if (from.size() == order.size()) {
                    part.resize(order.size());
                    for (std::size_t r = 0; r < order.size(); ++r) part[r] = from[order[r]];
                    return;
                }
            }
            part = from;
        });
        return s;
    }
};

}  // namespace fs
