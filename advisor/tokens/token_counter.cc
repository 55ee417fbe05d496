#include "advisor/tokens/token_counter.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "advisor/tokens/token_sha1.h"

// The data folders the build compiles in (../../CMakeLists.txt); none when
// built otherwise.
#ifndef COOKGRAPH_DATA_INSTALL_DIR
#define COOKGRAPH_DATA_INSTALL_DIR ""
#endif
#ifndef COOKGRAPH_DATA_BUILD_DIR
#define COOKGRAPH_DATA_BUILD_DIR ""
#endif

namespace cookgraph {
namespace {

/// The value of environment variable `name`; nullopt when it is not set.
std::optional<std::string> Env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

bool IsFile(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

}  // namespace

std::string_view EncodingName(Encoding encoding) {
  return encoding == Encoding::kO200k ? "o200k_base" : "cl100k_base";
}

std::optional<Encoding> ParseEncoding(std::string_view name) {
  if (name == "o200k_base") return Encoding::kO200k;
  if (name == "cl100k_base") return Encoding::kCl100k;
  return std::nullopt;
}

std::string_view RankFileUrl(Encoding encoding) {
  return encoding == Encoding::kO200k
             ? "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
             : "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken";
}

std::vector<std::string> BundledRankFolders() {
  if (auto chosen = Env("COOKGRAPH_DATA_DIR"); chosen && !chosen->empty()) {
    return {(std::filesystem::path(*chosen) / "tiktoken").string()};
  }
  std::vector<std::string> folders;
  // Beside the executable, wherever the install prefix put it.
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && exe.has_parent_path()) {
    folders.push_back(
        (exe.parent_path().parent_path() / "share" / "cookgraph" / "tiktoken").string());
  }
  for (const char* data : {COOKGRAPH_DATA_INSTALL_DIR, COOKGRAPH_DATA_BUILD_DIR}) {
    if (*data == '\0') continue;
    const std::string folder = (std::filesystem::path(data) / "tiktoken").string();
    if (std::find(folders.begin(), folders.end(), folder) == folders.end()) {
      folders.push_back(folder);
    }
  }
  return folders;
}

std::optional<RankFile> FindRankFile(Encoding encoding, const std::string& explicit_path) {
  if (!explicit_path.empty()) return RankFile{.path = explicit_path};
  // tiktoken's own order (tiktoken/load.py): a cache folder the user chose
  // wins; an empty one turns the cache off. Older tiktoken caches under the
  // temporary folder, newer under ~/.cache; look in both.
  std::vector<std::filesystem::path> folders;
  auto chosen = Env("TIKTOKEN_CACHE_DIR");
  if (!chosen) chosen = Env("DATA_GYM_CACHE_DIR");
  if (chosen) {
    if (!chosen->empty()) folders.emplace_back(*chosen);
  } else {
    auto tmp = Env("TMPDIR");
    folders.push_back(std::filesystem::path(tmp && !tmp->empty() ? *tmp : "/tmp") /
                      "data-gym-cache");
    if (auto xdg = Env("XDG_CACHE_HOME"); xdg && !xdg->empty()) {
      folders.push_back(std::filesystem::path(*xdg) / "tiktoken");
    } else if (auto home = Env("HOME"); home && !home->empty()) {
      folders.push_back(std::filesystem::path(*home) / ".cache" / "tiktoken");
    }
  }
  const std::string hashed = Sha1Hex(RankFileUrl(encoding));
  const std::string plain = std::string(EncodingName(encoding)) + ".tiktoken";
  for (const auto& folder : folders) {
    for (const std::string& name : {hashed, plain}) {
      if (IsFile(folder / name)) return RankFile{.path = (folder / name).string()};
    }
  }
  // The files the build made from js-tiktoken's tables (third_party/tiktoken_ranks/);
  // one the user put in $COOKGRAPH_DATA_DIR is named by its path.
  const bool chosen_data = Env("COOKGRAPH_DATA_DIR").value_or("") != "";
  for (const std::string& folder : BundledRankFolders()) {
    const std::filesystem::path path = std::filesystem::path(folder) / plain;
    if (IsFile(path)) {
      return RankFile{.path = path.lexically_normal().string(),
                      .origin = chosen_data ? "" : "installed with cookgraph"};
    }
  }
  return std::nullopt;
}

size_t CountChatTokens(const TokenCounter& counter,
                       const std::vector<std::pair<std::string, std::string>>& role_content) {
  // OpenAI's cookbook ("How to count tokens with tiktoken"): 3 tokens frame
  // each message, its role and content are counted as text, and 3 more prime
  // the reply.
  size_t total = 3;
  for (const auto& [role, content] : role_content) {
    total += 3 + counter.Count(role) + counter.Count(content);
  }
  return total;
}

}  // namespace cookgraph
