#ifndef COOKGRAPH_WRITERS_ATOMIC_FILE_H_
#define COOKGRAPH_WRITERS_ATOMIC_FILE_H_

// Files appear whole or not at all: written to a temporary file beside the
// target, flushed to the disk, then renamed over it (keeping the replaced
// file's permissions). An error, or an interruption by SIGINT, SIGTERM
// or SIGHUP, removes the temporary file; only an uncatchable end (SIGKILL, power
// loss) can leave a "<target>.tmp.XXXXXX" behind, never a partial target.

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include "base/error.h"

namespace cookgraph {

/// A temporary file in the target's folder, removed unless committed.
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::string& target);
  ~TemporaryFile();
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  bool ok() const { return error_.message.empty(); }
  const Error& error() const { return error_; }
  /// The temporary file's path, to write to.
  const std::string& path() const { return path_; }
  /// Renames the temporary file over the target.
  Status Commit();

 private:
  std::string target_;
  std::string path_;
  Error error_;
  bool committed_ = false;
  int slot_ = -1;  // where the signal handler finds path_; -1 = none
};

/// "cannot write: <strerror>" naming `file`.
Error CannotWrite(const std::string& file, int error_number);

/// Writes `contents` to `path` atomically.
Status WriteFileAtomically(const std::string& path, std::string_view contents);

/// Writes to `path` atomically what `write` writes to the file it is given;
/// `write` returns false when a write failed (errno then says why).
Status WriteFileAtomically(const std::string& path,
                           const std::function<bool(std::FILE*)>& write);

}  // namespace cookgraph

#endif  // COOKGRAPH_WRITERS_ATOMIC_FILE_H_
