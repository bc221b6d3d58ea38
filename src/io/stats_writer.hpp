// Writes one JSON object per step (JSON Lines): the common stats of the headless contract, the
// solver's own, and the per-stage timings.
#pragma once

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/solver.hpp"

namespace fs {

// Stats as a JSON object, name -> number (an integer for a count; null where not finite), or an
// array for a vector: a stats line's numbers, and the browser page's (app.cpp).
nlohmann::ordered_json stats_record(const Stats& stats);

// The last completed step of `solver` as one JSON object (what a stats line holds).
nlohmann::ordered_json step_record(const Solver& solver);

class StatsWriter {
public:
    // Throws std::runtime_error naming the file when it cannot be created.
    explicit StatsWriter(const std::string& path);
    void write(const Solver& solver);
    void flush() { out_.flush(); }

private:
    std::string path_;
    std::ofstream out_;
};

}  // namespace fs
