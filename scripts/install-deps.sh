#!/usr/bin/env bash
# Installs everything cookgraph needs to build and test, from Debian 12 packages.
# Idempotent: packages already present are left alone; safe to run again.
set -euo pipefail

packages=(
  build-essential cmake pkg-config ninja-build  # toolchain (g++ 12, CMake 3.25)
  libboost-graph-dev                            # graph algorithms (SCC, topo order), hidden in graph/*.cc
  libboost-dev                                  # Boost.Math's Student's t (header-only) for diff's Welch test, in metrics/welch.cc
  nlohmann-json3-dev                            # streaming (SAX) JSON reading, JSON writing
  libyaml-dev                                   # streaming (event) YAML reading with line/column marks
  libyaml-cpp-dev                               # knowledge packs (small YAML documents) in advisor/
  zlib1g-dev                                    # .json.gz reading and writing
  libisal-dev                                   # ISA-L: .json.gz inflated, ~4x zlib's speed (adapters/byte_source_whole.cc, gzip_stream.cc)
  libcli11-dev                                  # command-line parsing
  libcurl4-openssl-dev                          # the OpenAI-compatible client (advisor/llm/)
  libcpp-httplib-dev                            # `cookgraph serve`: the explorer's HTTP server (server/)
  libpcre2-dev                                  # exact tokenizer: the pre-tokenizer's Unicode regex
  liblo-dev                                     # `cookgraph watch`: OSC bundles (liblo decodes messages; the test sender encodes them)
  libgraphviz-dev                               # libgvc + libcgraph: dot layout and SVG of the network heatmap, in memory
  libfmt-dev                                    # formatting of tables and messages
  libedit-dev                                   # `ask --chat`: line editing and history at the terminal (BSD licence, readline's API)
  libcmark-dev                                  # the report renders the LLM's Markdown answer (CommonMark's reference library, safe mode)
  libgtest-dev libgmock-dev                     # unit tests
  clang libclang-rt-14-dev                      # scripts/test-sanitizers.sh: libFuzzer targets, ASan+UBSan build of the suite
  libbenchmark-dev                              # microbenchmarks in bench/
  libsimdjson-dev                               # bench/simdjson_floor: the JSON floor bench/run.sh compares with
  python3 python3-yaml python3-jsonschema      # example generator, independent checks, schema test
  pybind11-dev                                  # the Python module's C++ half (python/): pybind11 headers and CMake package
  python3-dev                                   # Python's headers, for that module (Debian's python3, /usr/bin/python3)
  python3-pandas                                # the Python module returns pandas DataFrames
  python3-pytest                                # runs the Python module's tests (tests/python/)
  python3-distributed                           # cookgraph.dask: scoring on a Dask cluster (brings python3-dask)
  python3-networkx                              # bench/baseline_score.py: the Python baseline of bench/run.sh
  python3-plotly python3-pydot                  # Holistic Trace Analysis imports them: bench/run.sh's HTA load, tests/tools/hta_oracle.py --regenerate
  python3-mpmath                                # tests/tools/diff_check.py: Welch p-values recomputed without Boost
  libsqlite3-dev                                # the history of runs in an SQLite file (score --store, cookgraph history), store/sqlite_store.cc
  libpq-dev                                     # the history of runs in PostgreSQL (libpq's C API), store/postgres_store.cc
  postgresql                                    # a real PostgreSQL server for ctest history_store_postgresql (initdb in a temporary directory)
  time                                          # /usr/bin/time: wall time and peak memory in bench/run.sh and the ask fault tests
  openssl                                       # the self-signed loopback certificate of the TLS fault tests (tests/fake_llm_server.h)
  bsdutils                                      # script(1): tests run cookgraph on a pseudo-terminal
  chromium                                      # headless checks of `report`'s HTML, the heatmap and the explorer (ctest hostile_input_never_runs_in_chromium, report_heatmap_renders, explorer_browser_*)
  python3-markdown-it                           # renders the Markdown report to HTML, raw HTML allowed, for the hostile-input test
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good  # real pipelines for the GStreamer adapter's tests (gst-launch-1.0)
  python3-torch                                 # real PyTorch CPU recordings at test time (legacy export, tests/torch.cmake)
  python3-onnx                                  # builds the model of the ONNX Runtime recordings (tests/ort.cmake, tests/tools/ort_model.py)
  emscripten node-acorn dpkg-dev                # scripts/build-web.sh: the page's WebAssembly (emscripten 3.1.6; acorn for its optimiser; dpkg-source unpacks Debian's source packages)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

# Node.js and npm: the build converts the token rank files installed with
# cookgraph from js-tiktoken (third_party/tiktoken_ranks/), and the tests run
# it as the reference tokenizer. Some images ship them outside Debian's
# packages; install Debian's only when the commands are missing, so as not to
# fight an existing installation.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  missing+=(nodejs npm)
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
