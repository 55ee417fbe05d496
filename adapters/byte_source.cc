#include "adapters/byte_source.h"

#include <emmintrin.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifndef COOKGRAPH_NO_ZLIB
#include <isa-l/igzip_lib.h>
#include <zlib.h>

#include "adapters/gzip_stream.h"
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <new>
#include <optional>

namespace cookgraph {
namespace {

constexpr size_t kBufferBytes = 1 << 18;  // 256 KiB: large reads keep inflating fast
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

// Why reading `gz` failed: an I/O error's reason, or zlib's words.
std::string ZlibError(gzFile gz) {
  int code = 0;
  const char* what = gzerror(gz, &code);
  return code == Z_ERRNO ? std::string("read error: ") + std::strerror(errno)
                         : "gzip data is corrupt: " + GzipMessage(what);
}

// The '\n' bytes of [p, p + n), sixteen at a time: each block's matches
// (0xFF) subtracted into per-byte counters, summed before one can pass 255.
size_t CountLineBreaks(const char* p, size_t n) {
  const __m128i lf = _mm_set1_epi8('\n');
  size_t count = 0, i = 0;
  while (n - i >= 16) {
    const size_t blocks = std::min<size_t>((n - i) / 16, 255);
    __m128i counters = _mm_setzero_si128();
    for (size_t b = 0; b < blocks; ++b, i += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      counters = _mm_sub_epi8(counters, _mm_cmpeq_epi8(v, lf));
    }
    const __m128i sums = _mm_sad_epu8(counters, _mm_setzero_si128());
    count += static_cast<size_t>(_mm_cvtsi128_si32(sums)) +
             static_cast<size_t>(_mm_extract_epi16(sums, 4));
  }
  for (; i < n; ++i) count += p[i] == '\n';
  return count;
}

}  // namespace

Result<std::unique_ptr<ByteSource>> ByteSource::Open(const std::string& path,
                                                     const InputLimits& limits, GzipRead gzip) {
  const bool whole = gzip != GzipRead::kBlocks;
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
#ifndef COOKGRAPH_NO_ZLIB
  // Inflated whole, or opened again to be read block by block (the same
  // bytes, the same errors at the same places). Inflated whole, it needs no
  // buffer of its own: 64 page faults fewer.
  if (whole && regular && path != "-") {
    if (const std::optional<bool> inflated = source->InflateOnOpen(fd, stored_size, gzip)) {
      if (!*inflated) return Open(path, limits, GzipRead::kBlocks);
      return source;
    }
  }
#else
  (void)whole;
#endif
  source->storage_.resize(kBufferBytes);
  source->buffer_ = source->storage_.data();
#ifndef COOKGRAPH_NO_ZLIB
  if (regular && path != "-" && source->gz_ != nullptr) source->inflater_ = GzipStream::Open(fd);
#endif
  return source;
}

std::string NotAFileReason(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);  // follows links; opens nothing
  if (ec) {
    std::error_code link_ec;
    if (fs::is_symlink(fs::symlink_status(path, link_ec))) {
      if (ec == std::errc::no_such_file_or_directory) {
        const fs::path target = fs::read_symlink(path, link_ec);
        return link_ec ? std::string("a symbolic link to a missing file")
                       : "a symbolic link to a missing file (" + target.string() + ")";
      }
      if (ec == std::errc::too_many_symbolic_link_levels) return "a symbolic link that loops";
    }
    return "cannot be examined (" + ec.message() + ")";
  }
  switch (status.type()) {
    case fs::file_type::regular:
      return "";
    case fs::file_type::directory:
      return "a folder";
    case fs::file_type::fifo:
      return "not a regular file but a FIFO (never opened: reading it could block)";
    case fs::file_type::socket:
      return "not a regular file but a socket";
    case fs::file_type::character:
      return "not a regular file but a character device";
    case fs::file_type::block:
      return "not a regular file but a block device";
    default:
      return "not a regular file";
  }
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
  if (InflatesInBackground() && !Settle()) return nullptr;
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
  if (InflatesInBackground() && !Settle()) return false;
#ifndef COOKGRAPH_NO_ZLIB
  inflater_.reset();  // zlib seeks from the start it has not left
#endif
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

void ByteSource::CloseFile() {
  if (gz_ != nullptr) gzclose(static_cast<gzFile>(gz_));
  gz_ = nullptr;
}

bool ByteSource::Fill() {
  // Reading byte by byte, or a string's end: a background inflate ends first.
  if (InflatesInBackground() && Settle() && pos_ < len_) return true;
  return FillInto(storage_.data(), storage_.size());
}

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
  const auto want = static_cast<unsigned>(std::min<size_t>(capacity, size_t{1} << 30));
  int64_t n = -1;
#ifndef COOKGRAPH_NO_ZLIB
  if (inflater_ != nullptr) n = inflater_->Read(into, want);
  if (n < 0 && inflater_ != nullptr && !ReadOnWithZlib()) return false;
#endif
  if (n < 0) n = gzread(gz, into, want);
  if (n < 0) {
    error_ = ZlibError(gz);
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

bool ByteSource::InflatesWithIsal() const {
#ifndef COOKGRAPH_NO_ZLIB
  return inflater_ != nullptr;
#else
  return false;
#endif
}

#ifndef COOKGRAPH_NO_ZLIB
bool ByteSource::ReadOnWithZlib() {
  inflater_.reset();
  // zlib has read nothing yet: it inflates from the start, drops the bytes
  // before offset_ (which ISA-L gave) and reads on.
  auto gz = static_cast<gzFile>(gz_);
  if (offset_ == 0 || gzseek(gz, static_cast<z_off_t>(offset_), SEEK_SET) >= 0) return true;
  error_ = ZlibError(gz);
  return false;
}
#endif

bool ByteSource::SizeLimitPassed() {
  error_ = fmt::format(
      "at byte {}: {}", limits_.input_size,
      LimitMessage(limits_, &InputLimits::input_size, "the input (decompressed) is larger than"));
  return false;
}

size_t ByteSource::Read(char* out, size_t n) {
  if (InflatesInBackground()) return ReadInflating(out, n);
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
    CountLines(pos_, take);
    pos_ += take;
    done += take;
  }
  return done;
}

void ByteSource::CountLines(size_t at, size_t n) {
  // Keeps line() and column() right, as Advance() does byte by byte: the
  // line breaks counted, and the starts of the last two lines found back.
  const char* from = buffer_ + at;
  if (const size_t breaks = CountLineBreaks(from, n); breaks > 0) {
    const auto* last = static_cast<const char*>(memrchr(from, '\n', n));
    if (breaks == 1) {
      previous_line_start_ = line_start_;
    } else {
      const auto* before =
          static_cast<const char*>(memrchr(from, '\n', static_cast<size_t>(last - from)));
      previous_line_start_ = offset_ + static_cast<uint64_t>(before - buffer_) + 1;
    }
    line_start_ = offset_ + static_cast<uint64_t>(last - buffer_) + 1;
    line_ += static_cast<int64_t>(breaks);
  }
}

std::optional<std::string_view> ByteSource::InMemoryRest() const {
  if (InflatesInBackground()) return std::nullopt;
  if (gz_ != nullptr) return std::nullopt;
  if (!string_done_) {  // nothing read yet: the string from its start, as Refill() serves it
    return text_.substr(0,
                        static_cast<size_t>(std::min<uint64_t>(text_.size(), limits_.input_size)));
  }
  return std::string_view(buffer_ + pos_, len_ - pos_);
}

std::string_view ByteSource::Head() {
  if (InflatesInBackground()) {
    if (const std::optional<std::string_view> head = HeadInflating(kBufferBytes)) return *head;
  }
  if (AtEnd()) return {};
  return {buffer_ + pos_, len_ - pos_};
}

char ByteSource::PeekNonBlank() {
  // Skips nothing: looks ahead within the buffer only, which always holds the
  // start of a file when this is called before reading.
  const std::string_view head = Head();
  size_t i = 0;
  if (head.size() >= 3 && head.substr(0, 3) == "\xEF\xBB\xBF") i = 3;  // UTF-8 BOM
  for (; i < head.size(); ++i) {
    const char c = head[i];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return c;
  }
  return 0;
}

}  // namespace cookgraph
