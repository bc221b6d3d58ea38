# Run by the target fs_package_files (cmake -P): what the Debian package carries beyond the build.
#   -DOUT=... -DSOURCE_DIR=... -DMKDOCS=... -DGZIP=... -DVERSION_FILE=cpack_version.cmake
include(${VERSION_FILE})  # CPACK_PACKAGE_VERSION
set(here ${CMAKE_CURRENT_LIST_DIR})

# The manual, built without the browser page (the package carries the desktop program).
if(NOT MKDOCS)
    message(FATAL_ERROR "make package builds the manual with mkdocs: make deps installs it")
endif()
set(ENV{FS_WEB_DIR} ${OUT}/no-web-build)
execute_process(COMMAND ${MKDOCS} build --strict --quiet -f ${SOURCE_DIR}/mkdocs.yml -d ${OUT}/manual
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mkdocs build of the manual failed (run: mkdocs build --strict)")
endif()
file(WRITE ${OUT}/manual/sandbox/index.html
     "<!doctype html><meta charset=\"utf-8\"><title>fluid-sandbox</title>"
     "<p>This manual came with the Debian package, which installs the desktop program: run "
     "<code>fluid-sandbox</code>, or open <em>Fluid Sandbox</em> from the desktop's menu. The page "
     "that runs the sandbox in a browser is built from the source (<code>make web</code>, the "
     "manual's page <em>The browser build</em>).</p>\n")
# A search engine's site map means nothing in an installed copy.
file(REMOVE ${OUT}/manual/sitemap.xml ${OUT}/manual/sitemap.xml.gz)
# KaTeX from Debian's libjs-katex (the package recommends it) instead of a copy: a link relative to
# the installed manual, /usr/share/doc/fluid-sandbox/manual/katex -> /usr/share/javascript/katex.
if(EXISTS ${OUT}/manual/katex)
    file(REMOVE_RECURSE ${OUT}/manual/katex)
    file(CREATE_LINK ../../../javascript/katex ${OUT}/manual/katex SYMBOLIC)
endif()

function(gzip_n from to)
    execute_process(COMMAND ${GZIP} -9n -c ${from} OUTPUT_FILE ${to} RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "gzip ${from} failed")
    endif()
endfunction()

# The manual page, dated and versioned as the build.
string(TIMESTAMP today "%Y-%m-%d" UTC)
file(READ ${here}/fluid-sandbox.1 page)
string(REPLACE "@VERSION@" "${CPACK_PACKAGE_VERSION}" page "${page}")
file(WRITE ${OUT}/fluid-sandbox.1 "${page}")
gzip_n(${OUT}/fluid-sandbox.1 ${OUT}/fluid-sandbox.1.gz)

# Debian's changelog: one entry, the build's version, pointing at the project's own changelog.
execute_process(COMMAND date -R OUTPUT_VARIABLE now OUTPUT_STRIP_TRAILING_WHITESPACE)
file(WRITE ${OUT}/changelog "fluid-sandbox (${CPACK_PACKAGE_VERSION}) unstable; urgency=medium

  * Built from the project's sources; the changes are in the manual's changelog
    (/usr/share/doc/fluid-sandbox/manual/changelog/).

 -- fluid-sandbox developers <fluid-sandbox@users.noreply.example.org>  ${now}
")
gzip_n(${OUT}/changelog ${OUT}/changelog.gz)
