#ifndef COOKGRAPH_ADVISOR_TOKENS_TOKEN_COUNTER_H_
#define COOKGRAPH_ADVISOR_TOKENS_TOKEN_COUNTER_H_

// Token counting for the prompt builder (docs/architecture.md#token-counts): exact counts for
// OpenAI's o200k_base and cl100k_base from a .tiktoken rank file (those
// installed with cookgraph, or one of the user's), a conservative estimate
// without one. Text is counted as ordinary text: special tokens such as
// "<|endoftext|>" are byte-pair encoded like anything else.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"

namespace cookgraph {

/// The tokenizers cookgraph knows: o200k_base (gpt-4o and newer) and
/// cl100k_base (gpt-4, gpt-3.5).
enum class Encoding { kO200k, kCl100k };

/// "o200k_base" or "cl100k_base".
std::string_view EncodingName(Encoding encoding);

/// The encoding named `name` ("o200k_base", "cl100k_base"); nullopt otherwise.
std::optional<Encoding> ParseEncoding(std::string_view name);

/// Counts the tokens a model would see for a text.
class TokenCounter {
 public:
  virtual ~TokenCounter() = default;
  /// Tokens in `text`. Never fails: bytes that are not valid UTF-8 are still
  /// counted (each run of them is byte-pair encoded as a piece of its own).
  virtual size_t Count(std::string_view text) const = 0;
  /// True when Count is the tokenizer's exact count; false for an estimate
  /// that may be larger, never smaller, than the exact count.
  virtual bool exact() const = 0;
  /// One line for logs and --verbose, e.g. "o200k_base from /x/o200k_base.tiktoken".
  virtual std::string Describe() const = 0;
};

/// Reads a .tiktoken rank file (one "base64(token bytes) SPACE rank" a line)
/// and returns the exact counter for `encoding`. Errors name the file and line.
/// Describe() says "ENCODING from FILE", or "ENCODING (ORIGIN)" when `origin`
/// is given (RankFile::origin).
Result<std::unique_ptr<TokenCounter>> LoadTiktoken(const std::string& rank_file, Encoding encoding,
                                                   const std::string& origin = "");

/// As LoadTiktoken, from the file's contents; `file` only names it in errors
/// and in Describe().
Result<std::unique_ptr<TokenCounter>> ParseTiktoken(std::string_view contents,
                                                    const std::string& file, Encoding encoding,
                                                    const std::string& origin = "");

/// The estimate used without a rank file: never below the exact count of
/// either encoding on cookgraph's prompts (numbers, tables, JSON, ids, prose),
/// and typically 10-40% above it.
std::unique_ptr<TokenCounter> MakeEstimator();

/// A rank file FindRankFile found.
struct RankFile {
  std::string path;
  /// How Describe() names it instead of by its path: "installed with
  /// cookgraph" for the files the build makes; "" = by its path.
  std::string origin;
};

/// Where the rank file of `encoding` is (docs/formats.md#token-counts):
///  1. `explicit_path` when not empty (even if it does not exist, so that the
///     caller reports it);
///  2. the first of tiktoken's cache folders ($TIKTOKEN_CACHE_DIR, else
///     $DATA_GYM_CACHE_DIR, else $TMPDIR/data-gym-cache and
///     $XDG_CACHE_HOME/tiktoken) that holds the file, named by tiktoken
///     (SHA-1 hex of the download address) or plainly ("o200k_base.tiktoken");
///  3. the file installed with cookgraph, "o200k_base.tiktoken" in the first
///     of BundledRankFolders() that holds it.
/// nullopt when there is none.
std::optional<RankFile> FindRankFile(Encoding encoding, const std::string& explicit_path);

/// Where the rank files installed with cookgraph are looked for:
/// $COOKGRAPH_DATA_DIR/tiktoken alone when that variable is set (not empty);
/// else the executable's ../share/cookgraph/tiktoken (an installed cookgraph
/// wherever its prefix, or the build tree's cli/cookgraph), the installed
/// data folder's <prefix>/share/cookgraph/tiktoken, and the build tree's
/// share/cookgraph/tiktoken, both compiled in (a Python module, whose
/// executable is python3).
std::vector<std::string> BundledRankFolders();

/// The address tiktoken downloads the rank file of `encoding` from; its SHA-1
/// hex names the file in tiktoken's cache.
std::string_view RankFileUrl(Encoding encoding);

/// Tokens of a chat request: every message's content, plus 3 per message for
/// the framing, plus 3 that prime the reply (docs/formats.md#token-counts).
size_t CountChatTokens(const TokenCounter& counter,
                       const std::vector<std::pair<std::string, std::string>>& role_content);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_TOKENS_TOKEN_COUNTER_H_
