// What the build is: its version, the commit it was built from, and which backends it carries
// (fluid-sandbox --version). The first three are written at build time from git
// (src/package/version.cmake).
#pragma once

#include <string>

namespace fs {

// "0.1.0", or "0.1.0+git312.9d6a00e" between tagged releases (a Debian version).
const char* build_version();
// The commit's full hash, "unknown" outside a git checkout.
const char* build_commit();
// The commit's date, YYYY-MM-DD.
const char* build_commit_date();

// The lines of --version: the version, the commit, the backends built in.
std::string version_text(bool window_built_in);

}  // namespace fs
