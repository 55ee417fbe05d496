#include "adapters/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <mutex>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

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
  });
}

// Returns the claimed slot, or -1 when all are busy or the path is too long
// (then an interruption may leave that temporary file behind).
int Arm(const std::string& path) {
  if (path.size() >= kPathBytes) return -1;
  InstallHandlersOnce();
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
  slot_ = Arm(path_);
}

TemporaryFile::~TemporaryFile() {
  if (!committed_ && !path_.empty()) std::remove(path_.c_str());
  Disarm(slot_);
}

Status TemporaryFile::Commit() {
  if (!ok()) return error_;
  if (std::rename(path_.c_str(), target_.c_str()) != 0) {
    return Error{.file = target_, .message = std::string("cannot write: ") + std::strerror(errno)};
  }
  committed_ = true;
  Disarm(slot_);
  slot_ = -1;
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
