// Which target this build runs on, for the few places that differ: the browser build (make web,
// Emscripten: WebAssembly, WebGL2; threads only in its threaded page) or a desktop. Everything else is the same code.
#pragma once

namespace fs {

#ifdef __EMSCRIPTEN__
inline constexpr bool kInBrowser = true;
#else
inline constexpr bool kInBrowser = false;
#endif
// The browser's threaded page (make web's index-threads.js: FS_WEB_THREADS): the CPU executor's
// loops run on core/thread_pool.hpp's workers.
#ifdef FS_THREAD_POOL
inline constexpr bool kBrowserThreads = true;
#else
inline constexpr bool kBrowserThreads = false;
#endif

}  // namespace fs
