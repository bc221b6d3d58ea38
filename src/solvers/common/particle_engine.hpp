// The interface every particle solver's engine starts from (euler, sph, flip, ot); its
// Pipeline<Exec> moves the HostState in and out and names its fields through the solver's
// declaration (declaration.hpp). A solver's engine adds its stages, sums and inspection on top.
#pragma once

#include <optional>
#include <string_view>

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

}  // namespace fs
