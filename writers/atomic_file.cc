#include "writers/atomic_file.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>

namespace cookgraph {
namespace {

// Temporary files to remove if a signal ends the process. A signal handler may
// only touch plain memory and call async-signal-safe functions (unlink), so the
// paths live in fixed buffers claimed through atomic flags.
constexpr int kSlots = 8;
constexpr size_t kPathBytes = 4096;
struct Slot {
  std::atomic<bool> used{false};
  std::atomic<bool> armed{false};
  char path[kPathBytes];
};
Slot g_slots[kSlots];

extern "C" void RemoveTemporariesAndDie(int signal_number) {
  for (Slot& slot : g_slots) {
    if (slot.armed.load()) unlink(slot.path);
  }
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

void InstallHandlersOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction action = {};
      sigaction(sig, nullptr, &action);
      if (action.sa_handler == SIG_IGN) continue;  // e.g. nohup: keep ignoring
      action.sa_handler = RemoveTemporariesAndDie;
      sigemptyset(&action.sa_mask);
      action.sa_flags = 0;
      sigaction(sig, &action, nullptr);
    }
    // A file-size limit (ulimit -f) signals SIGXFSZ, whose default ends the
    // process with a core dump and leaves the temporary file. Ignored, the
    // write fails with EFBIG instead and the error path removes it.
    struct sigaction xfsz = {};
    sigaction(SIGXFSZ, nullptr, &xfsz);
    if (xfsz.sa_handler == SIG_DFL) std::signal(SIGXFSZ, SIG_IGN);
  });
}

// Returns the claimed slot, or -1 when all are busy or the path is too long
// (then an interruption may leave that temporary file behind).
int Arm(const std::string& path) {
  if (path.size() >= kPathBytes) return -1;
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (g_slots[i].used.compare_exchange_strong(expected, true)) {
      std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
      g_slots[i].armed.store(true);
      return i;
    }
  }
  return -1;
}

void Disarm(int slot) {
  if (slot < 0) return;
  g_slots[slot].armed.store(false);
  g_slots[slot].used.store(false);
}

}  // namespace

TemporaryFile::TemporaryFile(const std::string& target) : target_(target) {
  InstallHandlersOnce();
  // The stop signals wait while the file is made and armed: one that came in
  // between would leave it behind.
  sigset_t stops, before;
  sigemptyset(&stops);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stops, sig);
  pthread_sigmask(SIG_BLOCK, &stops, &before);
  // mkstemp in the target's own folder, so that rename() stays on one file system.
  std::string pattern = target + ".tmp.XXXXXX";
  int fd = mkstemp(pattern.data());
  if (fd < 0) {
    error_ = CannotWrite(target, errno);
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    return;
  }
  path_ = pattern;
  slot_ = Arm(path_);
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  // mkstemp creates the file 0600; give it the permissions of the file it
  // replaces, else the usual ones of a new file.
  mode_t mask = umask(0);
  umask(mask);
  mode_t mode = 0666 & ~mask;
  struct stat existing = {};
  if (stat(target.c_str(), &existing) == 0 && S_ISREG(existing.st_mode)) {
    mode = existing.st_mode & 07777;
  }
  fchmod(fd, mode);
  close(fd);
}

TemporaryFile::~TemporaryFile() {
  if (!committed_ && !path_.empty()) std::remove(path_.c_str());
  Disarm(slot_);
}

Status TemporaryFile::Commit() {
  if (!ok()) return error_;
  // On the disk before the rename, so that after a power loss the target is
  // the old file or the whole new one, never an empty or a partial one.
  const int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || fsync(fd) != 0) {
    const int saved = errno;
    if (fd >= 0) close(fd);
    return CannotWrite(target_, saved);
  }
  close(fd);
  if (std::rename(path_.c_str(), target_.c_str()) != 0) {
    return CannotWrite(target_, errno);
  }
  committed_ = true;
  Disarm(slot_);
  slot_ = -1;
  return {};
}

Error CannotWrite(const std::string& file, int error_number) {
  return Error{.file = file,
               .message = std::string("cannot write: ") + std::strerror(error_number)};
}

Status WriteFileAtomically(const std::string& path, std::string_view contents) {
  return WriteFileAtomically(path, [contents](std::FILE* file) {
    return std::fwrite(contents.data(), 1, contents.size(), file) == contents.size();
  });
}

Status WriteFileAtomically(const std::string& path,
                           const std::function<bool(std::FILE*)>& write) {
  TemporaryFile temporary(path);
  if (!temporary.ok()) return temporary.error();
  std::FILE* file = std::fopen(temporary.path().c_str(), "wb");
  if (file == nullptr) {
    return CannotWrite(path, errno);
  }
  const bool written = write(file);
  const int write_error = errno;  // why a write failed, when one did
  const bool closed = std::fclose(file) == 0;
  // fclose flushes what was buffered: its errno, when the writes went well.
  if (!written) return CannotWrite(path, write_error);
  if (!closed) return CannotWrite(path, errno);
  return temporary.Commit();
}

}  // namespace cookgraph
