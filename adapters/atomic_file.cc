#include "adapters/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace cookgraph {

TemporaryFile::TemporaryFile(const std::string& target) : target_(target) {
  // mkstemp in the target's own folder, so that rename() stays on one file system.
  std::string pattern = target + ".tmp.XXXXXX";
  int fd = mkstemp(pattern.data());
  if (fd < 0) {
    error_ = Error{.file = target, .message = std::string("cannot write: ") + std::strerror(errno)};
    return;
  }
  // mkstemp creates the file 0600; give it the usual permissions of a new file.
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  close(fd);
  path_ = pattern;
}

TemporaryFile::~TemporaryFile() {
  if (!committed_ && !path_.empty()) std::remove(path_.c_str());
}

Status TemporaryFile::Commit() {
  if (!ok()) return error_;
  if (std::rename(path_.c_str(), target_.c_str()) != 0) {
    return Error{.file = target_, .message = std::string("cannot write: ") + std::strerror(errno)};
  }
  committed_ = true;
  return {};
}

Status WriteFileAtomically(const std::string& path, std::string_view contents) {
  TemporaryFile temporary(path);
  if (!temporary.ok()) return temporary.error();
  std::FILE* file = std::fopen(temporary.path().c_str(), "wb");
  if (file == nullptr) {
    return Error{.file = path, .message = std::string("cannot write: ") + std::strerror(errno)};
  }
  bool ok = std::fwrite(contents.data(), 1, contents.size(), file) == contents.size();
  ok = (std::fclose(file) == 0) && ok;
  if (!ok) return Error{.file = path, .message = std::string("cannot write: ") + std::strerror(errno)};
  return temporary.Commit();
}

}  // namespace cookgraph
