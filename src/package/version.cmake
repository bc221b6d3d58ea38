# Run at every build (cmake -P): the program's version from the project's version and git, written
# into OUT_DIR/fs_version.cpp (for --version) and CPACK_OUT (for make package, cpack_version.cmake),
# each rewritten only when its text changes, so an unchanged commit rebuilds nothing.
#   -DSOURCE_DIR=... -DOUT_DIR=... -DCPACK_OUT=... -DPROJECT_VERSION=X.Y.Z
# The version: X.Y.Z where the commit is tagged vX.Y.Z, otherwise X.Y.Z+gitN.HASH (N the commits
# since the tag, or since the start when there is none; Debian orders such versions after X.Y.Z
# and by N); X.Y.Z alone outside a git checkout.
set(version "${PROJECT_VERSION}")
set(commit "unknown")
set(commit_date "unknown")
find_program(GIT git)
if(GIT AND EXISTS "${SOURCE_DIR}/.git")
    execute_process(COMMAND "${GIT}" -C "${SOURCE_DIR}" rev-parse HEAD
                    OUTPUT_VARIABLE head RESULT_VARIABLE head_rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(head_rc EQUAL 0)
        set(commit "${head}")
        string(SUBSTRING "${head}" 0 7 short)
        execute_process(COMMAND "${GIT}" -C "${SOURCE_DIR}" log -1 --format=%cs
                        OUTPUT_VARIABLE commit_date OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
        execute_process(COMMAND "${GIT}" -C "${SOURCE_DIR}" describe --tags --match "v${PROJECT_VERSION}"
                                --long --abbrev=7
                        OUTPUT_VARIABLE described RESULT_VARIABLE described_rc
                        OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
        if(described_rc EQUAL 0 AND described MATCHES "-([0-9]+)-g[0-9a-f]+$")
            set(since "${CMAKE_MATCH_1}")
        else()
            execute_process(COMMAND "${GIT}" -C "${SOURCE_DIR}" rev-list --count HEAD
                            OUTPUT_VARIABLE since OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
        endif()
        if(NOT since STREQUAL "0")
            set(version "${PROJECT_VERSION}+git${since}.${short}")
        endif()
    endif()
endif()

function(write_if_changed path text)
    if(EXISTS "${path}")
        file(READ "${path}" old)
        if(old STREQUAL text)
            return()
        endif()
    endif()
    file(WRITE "${path}" "${text}")
endfunction()

write_if_changed("${OUT_DIR}/fs_version.cpp" "// Written by src/package/version.cmake at build time.
#include \"core/version.hpp\"

namespace fs {
const char* build_version() { return \"${version}\"; }
const char* build_commit() { return \"${commit}\"; }
const char* build_commit_date() { return \"${commit_date}\"; }
}  // namespace fs
")
write_if_changed("${CPACK_OUT}" "# Written by src/package/version.cmake at build time; read by cpack.
set(CPACK_PACKAGE_VERSION \"${version}\")
set(CPACK_DEBIAN_PACKAGE_VERSION \"${version}\")
")
