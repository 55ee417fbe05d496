#!/usr/bin/env bash
# scripts/build-web.sh: cookgraph in one HTML file (docs/web.md), the
# WebAssembly build of its pipeline (docs/architecture.md#the-pipeline: reading,
# analysis, findings, the explorer's documents), in build-web/, with Debian's
# emscripten and no emscripten ports:
#
#   build-web/debsrc/   Debian's source packages of the C libraries it needs
#                       (libyaml, yaml-cpp, pcre2, cmark), fetched with apt-get source
#   build-web/src/      those unpacked, Debian's patches applied
#   build-web/deps/     those, built with emcc as static libraries
#   build-web/cmake/    cookgraph (-DCOOKGRAPH_WEB=ON): the libraries and the
#                       page's module, web/cookgraph_web.cc
#   build-web/cookgraph.html   the page: the explorer's, the module inlined
#                       (web/assemble.py)
#
# No zlib (the page inflates gzip itself; a gzip input is refused) and no
# threads (a page opened from file:// has no SharedArrayBuffer). Work already
# done is skipped: a second run rebuilds only what changed.
#
# Environment: JOBS, the compile jobs at once (default 2, at nice 10);
# WEB_EXCEPTIONS, how C++ exceptions are compiled: -fwasm-exceptions (the
# default: WebAssembly's own, a module a fifth smaller and faster, for Chrome
# 95, Firefox 100, Safari 15.2 and later) or -fexceptions (emscripten's,
# through JavaScript, for older browsers).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$root/build-web
jobs=${JOBS:-2}
exceptions=${WEB_EXCEPTIONS:--fwasm-exceptions}
case $exceptions in
  -fexceptions | -fwasm-exceptions) ;;
  *) echo "build-web: WEB_EXCEPTIONS is -fexceptions or -fwasm-exceptions" >&2; exit 2 ;;
esac

# Debian's packages it needs: emscripten 3.1.6 (and Debian's acorn for its
# JavaScript optimiser), the tools, and the header-only libraries.
needs=()
command -v emcc >/dev/null || needs+=(emscripten node-acorn)
command -v dpkg-source >/dev/null || needs+=(dpkg-dev)
command -v cmake >/dev/null || needs+=(cmake)
command -v npm >/dev/null || needs+=(nodejs npm)  # the token rank files (third_party/tiktoken_ranks)
command -v ninja >/dev/null || needs+=(ninja-build)
command -v pkg-config >/dev/null || needs+=(pkgconf)
[ -d /usr/include/fmt ] || needs+=(libfmt-dev)
[ -d /usr/include/nlohmann ] || needs+=(nlohmann-json3-dev)
[ -d /usr/include/boost/graph ] || needs+=(libboost-dev)
if [ ${#needs[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "build-web: missing Debian packages: apt-get install ${needs[*]} (as root)" >&2
    exit 1
  fi
  apt-get install -y "${needs[@]}" || { apt-get update && apt-get install -y "${needs[@]}"; }
fi
# emscripten's JavaScript optimiser finds Debian's acorn (node-acorn) here.
export NODE_PATH=${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs
# One log per step; shown when the step fails.
logs=$out/logs
mkdir -p "$logs"
step() {
  local log=$logs/$1.log
  shift
  if ! "$@" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "build-web: failed: $* (the whole log: $log)" >&2
    exit 1
  fi
}

# Debian's source packages (bookworm), through a private apt configuration:
# nothing in /etc/apt changes. apt checks them against the signed Sources
# index; dpkg-source against the .dsc's checksums when it unpacks them.
packages=(libyaml yaml-cpp pcre2 cmark)
deb=$out/debsrc
missing=()
for p in "${packages[@]}"; do
  compgen -G "$deb/${p}_*.dsc" >/dev/null || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  mkdir -p "$deb/parts" "$deb/lists/partial" "$deb/cache/archives/partial"
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    >"$deb/parts/src.sources"
  apt=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$deb/parts"
       -o "Dir::State::Lists=$deb/lists" -o "Dir::Cache=$deb/cache")
  fetch() (cd "$deb" && apt-get "${apt[@]}" source --download-only "$@")
  step apt-update apt-get "${apt[@]}" update
  step apt-source fetch "${missing[@]}"
fi
for p in "${packages[@]}"; do
  if [ ! -f "$out/src/$p.stamp" ]; then
    rm -rf "$out/src/$p"
    dsc=$(compgen -G "$deb/${p}_*.dsc" | sort | tail -n 1)
    mkdir -p "$out/src"
    step "unpack-$p" dpkg-source --no-copy -x "$dsc" "$out/src/$p"
    touch "$out/src/$p.stamp"
  fi
done

# The libraries, static, -O2, into build-web/deps (headers, .a, CMake and
# pkg-config files); each built again when its options change. yaml-cpp
# throws: its exceptions are compiled as cookgraph's are.
deps=$out/deps
dep() {
  local name=$1
  shift
  [ "$(cat "$deps/$name.stamp" 2>/dev/null)" = "$*" ] && return
  rm -rf "$out/deps-build/$name"
  step "configure-$name" emcmake cmake -S "$out/src/$name" -B "$out/deps-build/$name" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$deps" -DBUILD_SHARED_LIBS=OFF "$@"
  step "build-$name" nice -n 10 cmake --build "$out/deps-build/$name" -j "$jobs"
  step "install-$name" cmake --install "$out/deps-build/$name"
  echo "$*" >"$deps/$name.stamp"
}
dep libyaml -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" -DBUILD_TESTING=OFF -DINSTALL_LIB_DIR=lib \
  -DINSTALL_INCLUDE_DIR=include
# libyaml's CMake installs no pkg-config file; cookgraph finds it as yaml-0.1.
mkdir -p "$deps/lib/pkgconfig"
# shellcheck disable=SC2016  # ${prefix} and the others are pkg-config's
printf 'prefix=%s\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\n\nName: LibYAML\nDescription: Library to parse and emit YAML\nVersion: 0.2.5\nCflags: -I${includedir}\nLibs: -L${libdir} -lyaml\n' \
  "$deps" >"$deps/lib/pkgconfig/yaml-0.1.pc"
# Its own -Wshadow, which comes after the flags given to CMake, warns of its
# enums (as in Debian's build): emcc adds EMCC_CFLAGS last.
EMCC_CFLAGS=-Wno-shadow dep yaml-cpp -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
  -DCMAKE_CXX_FLAGS="$exceptions" -DYAML_CPP_BUILD_TESTS=OFF -DYAML_CPP_BUILD_TOOLS=OFF \
  -DYAML_CPP_BUILD_CONTRIB=OFF -DYAML_BUILD_SHARED_LIBS=OFF
# The exact token counter's pre-tokenizer: 8-bit, Unicode, no JIT (WebAssembly has none).
dep pcre2 -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" -DPCRE2_BUILD_PCRE2_8=ON -DPCRE2_SUPPORT_JIT=OFF \
  -DPCRE2_SUPPORT_UNICODE=ON -DPCRE2_BUILD_PCRE2GREP=OFF -DPCRE2_BUILD_TESTS=OFF \
  -DPCRE2_SHOW_REPORT=OFF

# The Markdown report renders a model's answer through cmark (report_advice.cc).
dep cmark -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMARK_TESTS=OFF -DCMARK_SHARED=OFF \
  -DCMARK_STATIC=ON

# cookgraph, over those libraries (COOKGRAPH_WEB_DEPS) and Debian's header-only
# ones from /usr/include: fmt, nlohmann/json, Boost (web/dependencies.cmake).
# Configured every time (a second or two), so that the options above apply.
step configure-cookgraph emcmake cmake -S . -B "$out/cmake" -G Ninja -DCOOKGRAPH_WEB=ON \
  -DCOOKGRAPH_WEB_DEPS="$deps" -DCOOKGRAPH_WEB_EXCEPTIONS="$exceptions" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DCOOKGRAPH_WERROR=ON
step build-cookgraph nice -n 10 cmake --build "$out/cmake" -j "$jobs"
step assemble /usr/bin/python3 web/assemble.py . "$out/cmake/web/cookgraph_web.js" "$out/cookgraph.html" \
  "$out/cmake/web/o200k_base.ranks.gz" "$out/cmake/web/cl100k_base.ranks.gz"
echo "build-web: wrote build-web/cookgraph.html ($(du -b "$out/cookgraph.html" | cut -f1) bytes): open it in a browser"
