#include "core/params.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <numeric>

#include <nlohmann/json.hpp>

namespace fs {

std::string number_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
}

std::string scientific_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1e", v);
    const std::string t = buf;
    const auto e = t.find('e');
    if (e == std::string::npos) return t;  // inf, nan
    std::string exp = t.substr(e + 1);
    const bool minus = exp[0] == '-';
    exp = exp.substr(1);
    exp.erase(0, std::min(exp.find_first_not_of('0'), exp.size() - 1));
    return t.substr(0, e) + "e" + (minus ? "-" : "") + exp;
}

namespace {

std::string describe(const ParamValue& v) {
    struct {
        std::string operator()(double d) const { return number_text(d); }
        std::string operator()(long long i) const { return std::to_string(i); }
        std::string operator()(bool b) const { return b ? "true" : "false"; }
        std::string operator()(const std::string& s) const { return "\"" + s + "\""; }
        std::string operator()(const std::vector<double>& v) const {
            std::string s = "[";
            for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + number_text(v[i]);
            return s + "]";
        }
    } visitor;
    return std::visit(visitor, v);
}

std::string range_text(const ParamSpec& s) {
    const bool lo = std::isfinite(s.min), hi = std::isfinite(s.max);
    if (lo && hi) return " in [" + number_text(s.min) + ", " + number_text(s.max) + "]";
    if (lo) return " >= " + number_text(s.min);
    if (hi) return " <= " + number_text(s.max);
    return "";
}

std::string json_type_name(const nlohmann::json& j) {
    if (j.is_number_integer() || j.is_number_unsigned()) return "an integer";
    if (j.is_number()) return "a number";
    return std::string(j.type_name() == std::string("array") ? "an " : "a ") + j.type_name();
}

bool parse_double(std::string_view t, double& out) {
    std::string s(t);
    if (s.empty()) return false;
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size();
}

std::string trim(std::string_view t) {
    std::size_t a = 0, b = t.size();
    while (a < b && std::isspace(static_cast<unsigned char>(t[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(t[b - 1]))) --b;
    return std::string(t.substr(a, b - a));
}

}  // namespace

std::string Param::allowed() const {
    const std::string unit = spec_.unit.empty() ? "" : " (" + spec_.unit + ")";
    switch (type_) {
        case ParamType::Real:
            return "a finite number" + range_text(spec_) + unit;
        case ParamType::Int:
            return "an integer" + range_text(spec_) + unit;
        case ParamType::Bool:
            return "true or false";
        case ParamType::Choice:
            return "one of: " + join(choices_);
        case ParamType::Vec:
            if (components_ == 0)
                return "an array of groups of " + std::to_string(stride_) + " finite numbers (at most " +
                       std::to_string(max_groups_) + " groups)" + range_text(spec_) + unit;
            return "an array of " + std::to_string(components_) + " finite numbers" +
                   range_text(spec_) + unit;
    }
    return "";
}

void Param::set(const ParamValue& v) {
    if (spec_.read_only)
        throw ParamError("is read-only (a diagnostic the solver reports), it cannot be set");
    auto refuse = [&](const std::string& got) {
        throw ParamError("expected " + allowed() + ", got " + got);
    };
    auto in_range = [&](double d) { return std::isfinite(d) && d >= spec_.min && d <= spec_.max; };
    ParamValue stored;
    switch (type_) {
        case ParamType::Real: {
            double d = 0.0;  // refuse() throws where it is not set
            if (auto p = std::get_if<double>(&v))
                d = *p;
            else if (auto q = std::get_if<long long>(&v))
                d = static_cast<double>(*q);
            else
                refuse(describe(v));
            if (!in_range(d)) refuse(number_text(d));
            stored = d;
            break;
        }
        case ParamType::Int: {
            long long i = 0;  // refuse() throws where it is not set
            if (auto q = std::get_if<long long>(&v))
                i = *q;
            else if (auto p = std::get_if<double>(&v);
                     p && std::isfinite(*p) && std::floor(*p) == *p && std::fabs(*p) < 9e18)
                i = static_cast<long long>(*p);
            else
                refuse(describe(v));
            if (!in_range(static_cast<double>(i))) refuse(std::to_string(i));
            stored = i;
            break;
        }
        case ParamType::Bool:
            if (!std::holds_alternative<bool>(v)) refuse(describe(v));
            stored = v;
            break;
        case ParamType::Choice: {
            auto s = std::get_if<std::string>(&v);
            if (!s) refuse(describe(v));
            if (std::find(choices_.begin(), choices_.end(), *s) == choices_.end()) {
                const std::string guess = did_you_mean(*s, choices_);
                throw ParamError("expected " + allowed() + ", got \"" + *s + "\"" +
                                 (guess.empty() ? "" : "; did you mean \"" + guess + "\"?"));
            }
            stored = v;
            break;
        }
        case ParamType::Vec: {
            auto a = std::get_if<std::vector<double>>(&v);
            const bool fits = a && (components_ > 0 ? static_cast<int>(a->size()) == components_
                                                    : a->size() % static_cast<std::size_t>(stride_) == 0 &&
                                                          a->size() / static_cast<std::size_t>(stride_) <=
                                                              static_cast<std::size_t>(max_groups_));
            if (!fits) refuse(describe(v));
            for (double d : *a)
                if (!in_range(d)) refuse(describe(v));
            stored = v;
            break;
        }
    }
    set_(stored);
    if (spec_.needs_reset && reset_flag_) *reset_flag_ = true;
}

void Param::set_json(const nlohmann::json& j) {
    switch (type_) {
        case ParamType::Real:
        case ParamType::Int:
            if (j.is_number_integer())
                return set(static_cast<long long>(j.get<long long>()));
            if (j.is_number_unsigned())
                return set(static_cast<double>(j.get<unsigned long long>()));
            if (j.is_number()) return set(j.get<double>());
            break;
        case ParamType::Bool:
            if (j.is_boolean()) return set(j.get<bool>());
            break;
        case ParamType::Choice:
            if (j.is_string()) return set(j.get<std::string>());
            break;
        case ParamType::Vec:
            if (j.is_array()) {
                std::vector<double> v;
                for (const auto& e : j) {
                    if (!e.is_number()) break;
                    v.push_back(e.get<double>());
                }
                if (v.size() == j.size()) return set(v);
            }
            break;
    }
    throw ParamError("expected " + allowed() + ", got " + json_type_name(j) + " (" + j.dump() + ")");
}

void Param::set_text(std::string_view text) {
    const std::string t = trim(text);
    double d;
    switch (type_) {
        case ParamType::Real:
        case ParamType::Int:
            if (!parse_double(t, d)) throw ParamError("expected " + allowed() + ", got \"" + t + "\"");
            if (type_ == ParamType::Int) {
                long long i;
                auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), i);
                if (ec == std::errc() && p == t.data() + t.size()) return set(i);
            }
            return set(d);
        case ParamType::Bool:
            if (t == "true" || t == "1" || t == "on") return set(true);
            if (t == "false" || t == "0" || t == "off") return set(false);
            throw ParamError("expected " + allowed() + ", got \"" + t + "\"");
        case ParamType::Choice:
            return set(t);
        case ParamType::Vec: {
            std::vector<double> v;
            std::string s = t;
            if (!s.empty() && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
            if (components_ == 0 && trim(s).empty()) return set(v);  // an empty list
            std::size_t start = 0;
            while (start <= s.size()) {
                const std::size_t comma = std::min(s.find(',', start), s.size());
                if (!parse_double(trim(std::string_view(s).substr(start, comma - start)), d))
                    throw ParamError("expected " + allowed() + " separated by commas, got \"" + t + "\"");
                v.push_back(d);
                start = comma + 1;
            }
            return set(v);
        }
    }
}

nlohmann::json Param::to_json() const {
    const ParamValue v = get();
    return std::visit([](const auto& x) { return nlohmann::json(x); }, v);
}

std::string Param::to_text() const {
    const ParamValue v = get();
    if (auto s = std::get_if<std::string>(&v)) return *s;
    return describe(v);
}

Param& ParamRegistry::add(ParamSpec spec, ParamType type) {
    if (find(spec.name)) throw std::logic_error("parameter registered twice: " + spec.name);
    auto p = std::make_unique<Param>();
    p->spec_ = std::move(spec);
    p->type_ = type;
    p->reset_flag_ = &reset_pending_;
    params_.push_back(std::move(p));
    return *params_.back();
}

Param& ParamRegistry::add_real(ParamSpec spec, double* value) {
    Param& p = add(std::move(spec), ParamType::Real);
    p.get_ = [value] { return ParamValue(*value); };
    p.set_ = [value](const ParamValue& v) { *value = std::get<double>(v); };
    return p;
}

Param& ParamRegistry::add_int(ParamSpec spec, long long* value) {
    Param& p = add(std::move(spec), ParamType::Int);
    p.get_ = [value] { return ParamValue(*value); };
    p.set_ = [value](const ParamValue& v) { *value = std::get<long long>(v); };
    return p;
}

Param& ParamRegistry::add_bool(ParamSpec spec, bool* value) {
    Param& p = add(std::move(spec), ParamType::Bool);
    p.get_ = [value] { return ParamValue(*value); };
    p.set_ = [value](const ParamValue& v) { *value = std::get<bool>(v); };
    return p;
}

Param& ParamRegistry::add_choice(ParamSpec spec, std::vector<std::string> choices, int* index) {
    Param& p = add(std::move(spec), ParamType::Choice);
    p.choices_ = std::move(choices);
    const std::vector<std::string>* names = &p.choices_;
    p.get_ = [index, names] { return ParamValue((*names)[static_cast<std::size_t>(*index)]); };
    p.set_ = [index, names](const ParamValue& v) {
        const auto& s = std::get<std::string>(v);
        *index = static_cast<int>(std::find(names->begin(), names->end(), s) - names->begin());
    };
    return p;
}

Param& ParamRegistry::add_vec(ParamSpec spec, double* values, int components) {
    Param& p = add(std::move(spec), ParamType::Vec);
    p.components_ = components;
    p.get_ = [values, components] { return ParamValue(std::vector<double>(values, values + components)); };
    p.set_ = [values](const ParamValue& v) {
        const auto& a = std::get<std::vector<double>>(v);
        std::copy(a.begin(), a.end(), values);
    };
    return p;
}

Param& ParamRegistry::add_list(ParamSpec spec, std::vector<double>* values, int stride, int max_groups) {
    Param& p = add(std::move(spec), ParamType::Vec);
    p.components_ = 0;
    p.stride_ = stride;
    p.max_groups_ = max_groups;
    p.get_ = [values] { return ParamValue(*values); };
    p.set_ = [values](const ParamValue& v) { *values = std::get<std::vector<double>>(v); };
    return p;
}

Param* ParamRegistry::find(std::string_view name) const {
    for (const auto& p : params_)
        if (p->name() == name) return p.get();
    return nullptr;
}

Param& ParamRegistry::at(std::string_view name) const {
    if (Param* p = find(name)) return *p;
    const std::string guess = did_you_mean(name, names());
    throw ParamError("unknown parameter '" + std::string(name) + "'" +
                     (guess.empty() ? "" : "; did you mean '" + guess + "'?") +
                     " (allowed: " + join(names()) + ")");
}

std::vector<std::string> ParamRegistry::names() const {
    std::vector<std::string> out;
    for (const auto& p : params_)
        if (!p->spec().read_only) out.push_back(p->name());
    return out;
}

void ParamRegistry::set_json_object(const nlohmann::json& obj) {
    if (!obj.is_object())
        throw ParamError("expected an object of parameter name -> value, got " + json_type_name(obj));
    for (const auto& [key, value] : obj.items()) {
        try {
            at(key).set_json(value);
        } catch (const ParamError& e) {
            throw ParamError(key + ": " + e.what());
        }
    }
}

nlohmann::json ParamRegistry::to_json() const {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& p : params_)
        if (!p->spec().read_only) out[p->name()] = p->to_json();
    return out;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
    // Levenshtein distance; a suggestion must be closer than a third of the word (at least 2).
    auto distance = [](std::string_view a, std::string_view b) {
        std::vector<std::size_t> row(b.size() + 1);
        std::iota(row.begin(), row.end(), std::size_t{0});
        for (std::size_t i = 1; i <= a.size(); ++i) {
            std::size_t diag = row[0];
            row[0] = i;
            for (std::size_t j = 1; j <= b.size(); ++j) {
                const std::size_t up = row[j];
                row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
                diag = up;
            }
        }
        return row[b.size()];
    };
    std::string best;
    std::size_t best_d = std::max<std::size_t>(2, word.size() / 3) + 1;
    for (const auto& c : candidates) {
        const std::size_t d = distance(word, c);
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    return best;
}

std::string join(const std::vector<std::string>& words, std::string_view sep) {
    std::string out;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (i) out += sep;
        out += words[i];
    }
    return out;
}

}  // namespace fs
