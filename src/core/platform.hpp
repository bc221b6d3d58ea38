// Which target this build runs on, for the few places that differ: the browser build (make web,
// Emscripten: WebAssembly, WebGL2) or a desktop. Everything else is the same code.
#pragma once

#ifdef __EMSCRIPTEN__
#include <emscripten/threading.h>
#endif

namespace fs {

#ifdef __EMSCRIPTEN__
inline constexpr bool kInBrowser = true;
#else
inline constexpr bool kInBrowser = false;
#endif

// Whether this is the browser's threaded program (make web's index-threads.js, linked with
// Emscripten's pthreads), where the CPU executor's loops run on core/thread_pool.hpp's workers.
// The browser's two programs are one compilation linked twice, so this is known at run time only.
inline bool browser_threads() {
#ifdef __EMSCRIPTEN__
    return emscripten_has_threading_support() != 0;
#else
    return false;
#endif
}

}  // namespace fs
