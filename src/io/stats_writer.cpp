#include "io/stats_writer.hpp"

#include <cmath>
#include <stdexcept>

namespace fs {

namespace {
// JSON has no NaN or Inf; they are written as null so a line always parses.
nlohmann::ordered_json number(double v) {
    return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json();
}
}  // namespace

nlohmann::ordered_json stats_record(const Stats& stats) {
    nlohmann::ordered_json line = nlohmann::ordered_json::object();
    for (const Stat& s : stats.items()) {
        if (s.is_vector) {
            nlohmann::ordered_json a = nlohmann::ordered_json::array();
            for (double v : s.value) a.push_back(number(v));
            line[s.name] = a;
        } else if (s.is_count) {
            line[s.name] = static_cast<long long>(s.value.empty() ? 0.0 : s.value[0]);
        } else {
            line[s.name] = number(s.value.empty() ? 0.0 : s.value[0]);
        }
    }
    return line;
}

nlohmann::ordered_json step_record(const Solver& solver) {
    nlohmann::ordered_json line = stats_record(solver.stats());
    nlohmann::ordered_json stages = nlohmann::ordered_json::object();
    const auto& info = solver.stages();
    const auto& ms = solver.stage_ms();
    for (std::size_t i = 0; i < info.size() && i < ms.size(); ++i) stages[info[i].name] = ms[i];
    line["stages_ms"] = stages;
    return line;
}

StatsWriter::StatsWriter(const std::string& path) : path_(path), out_(path, std::ios::trunc) {
    if (!out_) throw std::runtime_error(path + ": cannot create the stats file");
}

void StatsWriter::write(const Solver& solver) {
    out_ << step_record(solver).dump() << '\n';
    if (!out_) throw std::runtime_error(path_ + ": write failed (disk full?)");
}

}  // namespace fs
