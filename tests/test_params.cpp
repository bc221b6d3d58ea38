// The parameter registry: validation, text and JSON setters, did-you-mean, save/load round trip.
#include <gtest/gtest.h>

#include <functional>

#include <nlohmann/json.hpp>

#include "core/params.hpp"

namespace {

using fs::ParamError;

struct Fixture {
    double tau = 0.005;
    long long n = 10;
    bool walls = true;
    int detector = 0;
    double dir[2] = {0, -1};
    long long diag = 3;
    fs::ParamRegistry reg;
    Fixture() {
        reg.add_real({"tau", "Time step", "Time", "s", "step", 1e-6, 0.1}, &tau);
        reg.add_int({"n_particles", "N", "Particles", "", "count", 1, 1e6, false, true}, &n);
        reg.add_bool({"walls", "Walls", "Borders", "", "walls"}, &walls);
        reg.add_choice({"detector", "Detector", "Collisions", "", "how"}, {"grid", "brute_force"},
                       &detector);
        reg.add_vec({"gravity_direction", "Dir", "Forces", "", "dir", -1, 1}, dir, 2);
        reg.add_int({"grid_side", "Cells", "Diagnostics", "", "diag", 0, 1e9, true}, &diag);
    }
};

std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const ParamError& e) {
        return e.what();
    }
    return "";
}

TEST(Params, SettersStoreIntoTheBoundMembers) {
    Fixture f;
    f.reg.at("tau").set_text("0.01");
    f.reg.at("n_particles").set_json(nlohmann::json(1e3));  // integral float accepted
    f.reg.at("walls").set_text("false");
    f.reg.at("detector").set_json("brute_force");
    f.reg.at("gravity_direction").set_text("1, 0");
    EXPECT_EQ(f.tau, 0.01);
    EXPECT_EQ(f.n, 1000);
    EXPECT_FALSE(f.walls);
    EXPECT_EQ(f.detector, 1);
    EXPECT_EQ(f.dir[0], 1.0);
    EXPECT_EQ(f.dir[1], 0.0);
}

TEST(Params, OutOfRangeAndWrongTypesAreRefusedWithWhatIsAllowed) {
    Fixture f;
    EXPECT_NE(message_of([&] { f.reg.at("tau").set_text("-1"); }).find("[1e-06, 0.1]"), std::string::npos);
    EXPECT_NE(message_of([&] { f.reg.at("tau").set_json("fast"); }).find("a string"), std::string::npos);
    EXPECT_NE(message_of([&] { f.reg.at("tau").set_text("nan"); }).find("finite"), std::string::npos);
    EXPECT_NE(message_of([&] { f.reg.at("n_particles").set_json(2.5); }).find("integer"), std::string::npos);
    EXPECT_NE(message_of([&] { f.reg.at("walls").set_json(1); }).find("true or false"), std::string::npos);
    EXPECT_NE(message_of([&] { f.reg.at("gravity_direction").set_text("1"); }).find("2 finite"),
              std::string::npos);
    const std::string choice = message_of([&] { f.reg.at("detector").set_json("gird"); });
    EXPECT_NE(choice.find("one of: grid, brute_force"), std::string::npos) << choice;
    EXPECT_NE(choice.find("did you mean \"grid\""), std::string::npos) << choice;
    EXPECT_EQ(f.tau, 0.005);  // refused values leave the parameter alone
}

TEST(Params, UnknownNamesSuggestTheClosest) {
    Fixture f;
    const std::string m = message_of([&] { f.reg.at("taux"); });
    EXPECT_NE(m.find("unknown parameter 'taux'"), std::string::npos) << m;
    EXPECT_NE(m.find("did you mean 'tau'"), std::string::npos) << m;
    EXPECT_EQ(fs::did_you_mean("zzzzzz", {"tau", "walls"}), "");
}

TEST(Params, DiagnosticsAreReadOnly) {
    Fixture f;
    EXPECT_NE(message_of([&] { f.reg.at("grid_side").set_json(4); }).find("read-only"), std::string::npos);
    EXPECT_EQ(f.diag, 3);
    EXPECT_FALSE(f.reg.to_json().contains("grid_side"));
}

TEST(Params, ResetPendingOnlyForRebuildParameters) {
    Fixture f;
    f.reg.at("tau").set_json(0.002);
    EXPECT_FALSE(f.reg.reset_pending());
    f.reg.at("n_particles").set_json(20);
    EXPECT_TRUE(f.reg.reset_pending());
}

TEST(Params, JsonRoundTripRestoresEveryValue) {
    Fixture a;
    a.reg.at("tau").set_json(0.0123);
    a.reg.at("detector").set_json("brute_force");
    a.reg.at("gravity_direction").set_json({0.5, 0.25});
    Fixture b;
    b.reg.set_json_object(a.reg.to_json());
    EXPECT_EQ(b.tau, 0.0123);
    EXPECT_EQ(b.detector, 1);
    EXPECT_EQ(b.dir[0], 0.5);
    EXPECT_EQ(b.dir[1], 0.25);
    EXPECT_EQ(a.reg.to_json(), b.reg.to_json());
}

}  // namespace
