// Per-step statistics: an ordered set of named numbers (scalars or small vectors such as the
// momentum). The stats writer turns it into one JSON line; the GUI plots it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fs {

struct Stat {
    std::string name;
    std::vector<double> value;  // one element for a scalar
    bool is_vector = false;
    bool is_count = false;  // an integer counter (written without a fraction)
};

class Stats {
public:
    void set(std::string_view name, double v) { put({std::string(name), {v}, false, false}); }
    void set(std::string_view name, std::vector<double> v) {
        put({std::string(name), std::move(v), true, false});
    }
    void set_count(std::string_view name, long long v) {
        put({std::string(name), {static_cast<double>(v)}, false, true});
    }
    void put(Stat s) { slot(s.name) = std::move(s); }
    const Stat* find(std::string_view name) const {
        for (const auto& s : items_)
            if (s.name == name) return &s;
        return nullptr;
    }
    // The scalar `name`, or `fallback` when absent.
    double get(std::string_view name, double fallback = 0.0) const {
        const Stat* s = find(name);
        return s && !s->value.empty() ? s->value[0] : fallback;
    }
    const std::vector<Stat>& items() const { return items_; }
    void clear() { items_.clear(); }

private:
    Stat& slot(std::string_view name) {
        for (auto& s : items_)
            if (s.name == name) return s;
        return items_.emplace_back();
    }
    std::vector<Stat> items_;
};

}  // namespace fs
