#include "adapters/byte_source.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#ifndef COOKGRAPH_NO_ZLIB
#include <zlib.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <new>

namespace cookgraph {
namespace {

constexpr size_t kBufferBytes = 1 << 18;  // 256 KiB: large reads keep zlib fast

#ifdef COOKGRAPH_NO_ZLIB
// A build without zlib (COOKGRAPH_NO_ZLIB, the WebAssembly build: the page
// inflates gzip before the bytes get here) reads files as they are, through
// the zlib calls this file makes, over POSIX read() and lseek(). Refill()
// refuses a gzip input.
struct PlainFile {
  int fd = -1;
  bool failed = false;  // the last read or seek failed (errno tells why)
};
using gzFile = PlainFile*;
using z_off_t = off_t;
constexpr int Z_OK = 0;
constexpr int Z_STREAM_END = 1;
constexpr int Z_ERRNO = -1;

gzFile gzdopen(int fd, const char* /*mode*/) { return new (std::nothrow) PlainFile{.fd = fd}; }
int gzbuffer(gzFile /*file*/, unsigned /*size*/) { return 0; }
int gzdirect(gzFile /*file*/) { return 1; }
z_off_t gzseek(gzFile file, z_off_t offset, int whence) {
  const off_t at = lseek(file->fd, offset, whence);
  file->failed = at < 0;
  return at;
}
// Reads until `size` bytes or the end, as gzread does: HeadIsWholeInput()
// counts on a full buffer.
int gzread(gzFile file, void* into, unsigned size) {
  unsigned done = 0;
  while (done < size) {
    const ssize_t n = read(file->fd, static_cast<char*>(into) + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      file->failed = true;
      return -1;
    }
    if (n == 0) break;
    done += static_cast<unsigned>(n);
  }
  return static_cast<int>(done);
}
const char* gzerror(gzFile file, int* code) {
  *code = file->failed ? Z_ERRNO : Z_OK;
  return "";
}
int gzclose(gzFile file) {
  const int closed = close(file->fd);
  delete file;
  return closed == 0 ? Z_OK : Z_ERRNO;
}
#endif

// gzerror() prefixes its message with "<fd:N>: " for files opened by gzdopen;
// the file name is already in the error.
std::string GzipMessage(const char* what) {
  std::string message = what;
  if (message.rfind("<fd:", 0) == 0) {
    if (size_t colon = message.find(": "); colon != std::string::npos) message.erase(0, colon + 2);
  }
  return message;
}

}  // namespace

Result<std::unique_ptr<ByteSource>> ByteSource::Open(const std::string& path,
                                                     const InputLimits& limits) {
  std::error_code ec;
  if (path != "-" && std::filesystem::is_directory(path, ec)) {
    return Error{.file = path, .message = "is a directory, not a snapshot file"};
  }
  int fd = path == "-" ? dup(STDIN_FILENO) : open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Error{.file = path, .message = std::string("cannot open: ") + std::strerror(errno)};
  }
  struct stat info {};
  const bool regular = fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
  const uint64_t stored_size = regular ? static_cast<uint64_t>(info.st_size) : 0;
  // gzdopen reads gzip transparently and passes other bytes through unchanged.
  gzFile gz = gzdopen(fd, "rb");
  if (gz == nullptr) {
    close(fd);
    return Error{.file = path, .message = "cannot open: out of memory"};
  }
  gzbuffer(gz, kBufferBytes);
  std::unique_ptr<ByteSource> source(new ByteSource());
  source->name_ = path;
  source->limits_ = limits;
  source->stored_size_ = stored_size;
  if (regular && path != "-") {
    source->device_ = static_cast<uint64_t>(info.st_dev);
    source->inode_ = static_cast<uint64_t>(info.st_ino);
  }
  source->gz_ = gz;
  source->storage_.resize(kBufferBytes);
  source->buffer_ = source->storage_.data();
  return source;
}

std::unique_ptr<ByteSource> ByteSource::FromString(std::string_view text, std::string name,
                                                   const InputLimits& limits) {
  std::unique_ptr<ByteSource> source(new ByteSource());
  source->name_ = std::move(name);
  source->limits_ = limits;
  source->stored_size_ = text.size();
  source->text_ = text;
  source->buffer_ = text.data();
  return source;
}

std::unique_ptr<ByteSource> ByteSource::Reopen() {
  if (gz_ == nullptr) return FromString(text_, name_, limits_);
  if (inode_ == 0 || gzdirect(static_cast<gzFile>(gz_)) != 1) return nullptr;
  auto opened = Open(name_, limits_);
  // gzdirect() also makes zlib look at the new file's first bytes now: a seek
  // before that would be a lazy skip, every byte up to it read and dropped.
  if (!opened || (*opened)->device_ != device_ || (*opened)->inode_ != inode_ ||
      (*opened)->stored_size_ != stored_size_ ||
      gzdirect(static_cast<gzFile>((*opened)->gz_)) != 1) {
    return nullptr;
  }
  return std::move(*opened);
}

bool ByteSource::SkipTo(uint64_t offset) {
  pos_ = len_ = 0;
  reached_end_ = false;
  if (gz_ == nullptr) {
    // The string from `offset` on, as Refill() serves a string: in one piece.
    offset_ = std::min<uint64_t>(offset, text_.size());
    buffer_ = text_.data() + offset_;
    len_ = text_.size() - offset_;
    string_done_ = true;
    if (offset_ + len_ > limits_.input_size) {  // as Refill() cuts a string
      len_ = static_cast<size_t>(limits_.input_size > offset_ ? limits_.input_size - offset_ : 0);
      cut_ = true;
    }
    return true;
  }
  if (!error_.empty()) return false;
  auto gz = static_cast<gzFile>(gz_);
  if (offset > static_cast<uint64_t>(std::numeric_limits<z_off_t>::max())) {
    error_ = "cannot seek: the offset is past what zlib can seek to";
    return false;
  }
  if (gzseek(gz, static_cast<z_off_t>(offset), SEEK_SET) < 0) {
    int code = 0;
    const char* what = gzerror(gz, &code);
    error_ = code == Z_ERRNO ? std::string("read error: ") + std::strerror(errno)
                             : "cannot seek: " + GzipMessage(what);
    return false;
  }
  offset_ = offset;
  buffer_ = storage_.data();
  return true;
}

ByteSource::~ByteSource() {
  if (gz_ != nullptr) gzclose(static_cast<gzFile>(gz_));
}

bool ByteSource::Fill() { return FillInto(storage_.data(), storage_.size()); }

bool ByteSource::FillInto(char* into, size_t capacity) {
  reached_end_ = !Refill(into, capacity);
  return !reached_end_;
}

bool ByteSource::Refill(char* into, size_t capacity) {
  offset_ += len_;
  pos_ = len_ = 0;
  if (gz_ == nullptr) {
    if (cut_) return SizeLimitPassed();
    if (string_done_) return false;
    string_done_ = true;
    len_ = text_.size();
    if (len_ > limits_.input_size) {
      len_ = static_cast<size_t>(limits_.input_size);
      cut_ = true;
    }
    return len_ > 0;
  }
  if (!error_.empty()) return false;
  if (cut_) return SizeLimitPassed();
  auto gz = static_cast<gzFile>(gz_);
  buffer_ = into;
  int n = gzread(gz, into, static_cast<unsigned>(std::min<size_t>(capacity, size_t{1} << 30)));
  if (n < 0) {
    int code = 0;
    const char* what = gzerror(gz, &code);
    error_ = code == Z_ERRNO ? std::string("read error: ") + std::strerror(errno)
                             : "gzip data is corrupt: " + GzipMessage(what);
    return false;
  }
  if (n == 0) {
    // A truncated gzip stream ends without an error from gzread; gzerror tells.
    int code = 0;
    const char* what = gzerror(gz, &code);
    if (code != Z_OK && code != Z_STREAM_END) {
      error_ = "gzip data is corrupt: " + GzipMessage(what);
    }
    return false;
  }
  len_ = static_cast<size_t>(n);
#ifdef COOKGRAPH_NO_ZLIB
  if (offset_ == 0 && len_ >= 2 && into[0] == '\x1f' && into[1] == '\x8b') {
    error_ = "gzip-compressed, and this build reads no gzip: decompress it first";
    len_ = 0;
    return false;
  }
#endif
  if (offset_ + len_ > limits_.input_size) {
    // The bytes up to the limit are read; the next read fails.
    len_ = static_cast<size_t>(limits_.input_size - offset_);
    cut_ = true;
    if (len_ == 0) return SizeLimitPassed();
  }
  return true;
}

bool ByteSource::SizeLimitPassed() {
  error_ = fmt::format(
      "at byte {}: {}", limits_.input_size,
      LimitMessage(limits_, &InputLimits::input_size, "the input (decompressed) is larger than"));
  return false;
}

size_t ByteSource::Read(char* out, size_t n) {
  size_t done = 0;
  while (done < n) {
    if (pos_ == len_ && gz_ != nullptr && n - done >= storage_.size()) {
      // A large read goes straight into `out` (zlib reads a plain file there
      // too), not through storage_: one copy of the input fewer.
      if (!FillInto(out + done, n - done)) break;
    } else if (AtEnd()) {
      break;
    }
    size_t take = std::min(n - done, len_ - pos_);
    const char* from = buffer_ + pos_;
    if (from != out + done) std::memcpy(out + done, from, take);
    // Keeps line() and column() right, as Advance() does byte by byte.
    for (const char* p = from;
         (p = static_cast<const char*>(std::memchr(p, '\n', from + take - p))); ++p) {
      ++line_;
      previous_line_start_ = line_start_;
      line_start_ = offset_ + static_cast<uint64_t>(p - buffer_) + 1;
    }
    pos_ += take;
    done += take;
  }
  return done;
}

std::string_view ByteSource::Head() {
  if (AtEnd()) return {};
  return {buffer_ + pos_, len_ - pos_};
}

char ByteSource::PeekNonBlank() {
  // Skips nothing: looks ahead within the buffer only, which always holds the
  // start of a file when this is called before reading.
  if (AtEnd()) return 0;
  size_t i = pos_;
  if (len_ - i >= 3 && std::memcmp(buffer_ + i, "\xEF\xBB\xBF", 3) == 0) i += 3;  // UTF-8 BOM
  for (; i < len_; ++i) {
    char c = buffer_[i];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return c;
  }
  return 0;
}

}  // namespace cookgraph
