// ExplorerServer (server/http_server.h): opens the module that holds the
// HTTP server (server/http_backend.h) the first time one starts, and hands
// each call to the backend it makes.

#include "server/http_server.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "base/text.h"
#include "server/http_backend.h"

namespace cookgraph::server {
namespace {

// The module's entry, or why it cannot be had: opened once per process and
// never closed (the servers it makes run its code until the process ends).
struct Module {
  HttpBackendEntry entry = nullptr;
  std::string problem;
};

// Where the module is looked for: beside the executable, then in
// ../lib/cookgraph from it (the build tree's place and the installed one).
std::vector<std::filesystem::path> ModulePlaces() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return {};
  const std::filesystem::path dir = self.parent_path();
  return {dir / kHttpModule, dir / ".." / "lib" / "cookgraph" / kHttpModule};
}

Module OpenModule() {
  const std::vector<std::filesystem::path> places = ModulePlaces();
  for (const std::filesystem::path& place : places) {
    std::error_code error;
    if (!std::filesystem::exists(place, error)) continue;
    // RTLD_NOW: a library it needs that is missing (cpp-httplib, OpenSSL)
    // fails here, once, and not in the middle of a request.
    void* handle = dlopen(place.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      return {.problem = fmt::format("cannot load {} (it needs Debian's libcpp-httplib0.11): {}",
                                     place.lexically_normal().string(),
                                     why != nullptr ? why : "unknown reason")};
    }
    dlerror();
    void* entry = dlsym(handle, kHttpModuleEntry);
    if (entry == nullptr) {
      return {.problem = fmt::format("{} has no {}: not cookgraph's explorer module",
                                     place.lexically_normal().string(), kHttpModuleEntry)};
    }
    return {.entry = reinterpret_cast<HttpBackendEntry>(entry)};
  }
  std::string looked;
  for (const std::filesystem::path& place : places) {
    looked += (looked.empty() ? "" : " or ") + place.lexically_normal().parent_path().string();
  }
  return {.problem = fmt::format(
              "the explorer's HTTP server, {}, is not installed (looked in {})", kHttpModule,
              looked.empty() ? "no place: /proc/self/exe is unreadable" : looked)};
}

const Module& TheModule() {
  static const Module module = OpenModule();
  return module;
}

}  // namespace

bool IsAddressLiteral(std::string_view host) {
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    return host.find_first_not_of("0123456789abcdef:.", 1) == host.size() - 1;
  }
  return !host.empty() && host.find_first_not_of("0123456789.") == std::string_view::npos;
}

bool IsLoopback(const std::string& host) {
  const std::string h = AsciiLower(host);
  return h == "localhost" || h == "::1" || h == "[::1]" ||
         (h.rfind("127.", 0) == 0 && IsAddressLiteral(h));
}

std::string RandomToken() {
  std::random_device device;
  std::string token;
  for (int i = 0; i < 4; ++i) token += fmt::format("{:08x}", device());
  return token;
}

Status ExplorerServer::Load() {
  if (TheModule().entry == nullptr) return Error{.message = TheModule().problem};
  return {};
}

ExplorerServer::ExplorerServer(Explorer& explorer, ServeOptions options)
    : explorer_(explorer), options_(std::move(options)) {}

ExplorerServer::~ExplorerServer() = default;  // the backend's own stops it

Status ExplorerServer::Start() {
  if (backend_ == nullptr) {
    if (Status loaded = Load(); !loaded) return loaded;
    backend_.reset(TheModule().entry(explorer_, options_));
    if (backend_ == nullptr)
      return Error{.message = "out of memory starting the explorer's server"};
  }
  return backend_->Start();
}

int ExplorerServer::port() const { return backend_ != nullptr ? backend_->port() : 0; }

std::string ExplorerServer::Url() const {
  const std::string host = options_.host.find(':') != std::string::npos ? "[" + options_.host + "]"
                                                                         : options_.host;
  std::string url = fmt::format("http://{}:{}/", host, port());
  if (!options_.token.empty()) url += "?token=" + options_.token;
  return url;
}

void ExplorerServer::Stop() {
  if (backend_ != nullptr) backend_->Stop();
}

void ExplorerServer::Wait() {
  if (backend_ != nullptr) backend_->Wait();
}

bool ExplorerServer::running() const { return backend_ != nullptr && backend_->running(); }

}  // namespace cookgraph::server
