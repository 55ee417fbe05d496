# The dependencies of the WebAssembly build (COOKGRAPH_WEB, ../CMakeLists.txt),
# included instead of the native build's find_package calls. Configured by
# scripts/build-web.sh with emcmake, which builds the C and C++ libraries from
# Debian's source packages into build-web/deps, COOKGRAPH_WEB_DEPS. No
# emscripten ports: they download at build time.
if(NOT EMSCRIPTEN)
  message(FATAL_ERROR "COOKGRAPH_WEB is the WebAssembly build: configure it with emcmake (scripts/build-web.sh)")
endif()
set(COOKGRAPH_WEB_DEPS "" CACHE PATH
    "The WebAssembly build: the prefix of libyaml, yaml-cpp, pcre2 and cmark built with emcc")
if(NOT EXISTS "${COOKGRAPH_WEB_DEPS}/lib/pkgconfig")
  message(FATAL_ERROR "COOKGRAPH_WEB_DEPS (\"${COOKGRAPH_WEB_DEPS}\") holds no lib/pkgconfig: scripts/build-web.sh builds the libraries there")
endif()
# find_package and find_library look there (emscripten's toolchain lets them
# look under CMAKE_FIND_ROOT_PATH only), and pkg-config there alone: never at
# the build machine's own libraries.
list(APPEND CMAKE_FIND_ROOT_PATH ${COOKGRAPH_WEB_DEPS})
set(ENV{PKG_CONFIG_LIBDIR} ${COOKGRAPH_WEB_DEPS}/lib/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# The header-only libraries are the build machine's (Debian's libfmt-dev,
# nlohmann-json3-dev and libboost-dev), through a folder that holds them alone:
# -isystem /usr/include would put glibc's headers before emscripten's libc.
set(COOKGRAPH_WEB_HEADERS /usr/include CACHE PATH
    "The WebAssembly build: the folder that holds fmt/, nlohmann/ and boost/")
set(web_headers ${PROJECT_BINARY_DIR}/web-headers)
file(MAKE_DIRECTORY ${web_headers})
foreach(dir fmt nlohmann boost)
  if(NOT EXISTS ${COOKGRAPH_WEB_HEADERS}/${dir})
    message(FATAL_ERROR "${COOKGRAPH_WEB_HEADERS}/${dir} not found: install libfmt-dev, nlohmann-json3-dev and libboost-dev")
  endif()
  file(CREATE_LINK ${COOKGRAPH_WEB_HEADERS}/${dir} ${web_headers}/${dir} SYMBOLIC)
endforeach()
foreach(target Boost::boost nlohmann_json::nlohmann_json fmt::fmt)
  add_library(${target} INTERFACE IMPORTED)
  set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${web_headers})
endforeach()
set_target_properties(fmt::fmt PROPERTIES INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY)
# No threads: the libraries take their one-thread paths (COOKGRAPH_SINGLE_THREAD).
add_library(Threads::Threads INTERFACE IMPORTED)

find_package(PkgConfig REQUIRED)
pkg_check_modules(YAML REQUIRED IMPORTED_TARGET yaml-0.1)
pkg_check_modules(PCRE2 REQUIRED IMPORTED_TARGET libpcre2-8)
pkg_check_modules(CMARK REQUIRED IMPORTED_TARGET libcmark)  # the Markdown report's advice
find_package(yaml-cpp REQUIRED)

# Exceptions (the code catches std::bad_alloc, std::regex_error and
# yaml-cpp's, which must be built alike): emscripten's, through JavaScript
# (-fexceptions: every browser with WebAssembly), or WebAssembly's own
# (-fwasm-exceptions: a smaller and faster module, for Chrome 95, Firefox 100,
# Safari 15.2 and node 17 on).
set(COOKGRAPH_WEB_EXCEPTIONS -fexceptions CACHE STRING
    "The WebAssembly build: -fexceptions or -fwasm-exceptions")
# Every file of the build: one thread; no zlib (byte_source.cc reads plain
# files and refuses gzip, which the page inflates before); SSE2 intrinsics
# (json_tokenizer.cc's string scan) as WebAssembly SIMD; and the floating-point
# <charconv> that emscripten's libc++ lacks (charconv_compat.h).
add_compile_definitions(COOKGRAPH_SINGLE_THREAD COOKGRAPH_NO_ZLIB)
add_compile_options(${COOKGRAPH_WEB_EXCEPTIONS} -msimd128 -msse2
                    "SHELL:-include ${PROJECT_SOURCE_DIR}/web/charconv_compat.h")
add_link_options(${COOKGRAPH_WEB_EXCEPTIONS})
# One static executable: no position-independent code (the native build
# makes it for the Python module's shared object).
set(CMAKE_POSITION_INDEPENDENT_CODE OFF)
