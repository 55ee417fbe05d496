#ifndef COOKGRAPH_ADAPTERS_BYTE_SOURCE_H_
#define COOKGRAPH_ADAPTERS_BYTE_SOURCE_H_

// The first stage of every reader: bytes from a file, standard input or a
// string, with gzip decoded on the fly (recognised by its magic bytes), and the
// line and column of the next byte kept for error messages. The source carries
// the input's limits (adapters/input_limits.h) to the stages after it, and
// enforces input-size itself: past it, reading fails as a corrupt gzip does.
// A build without zlib (COOKGRAPH_NO_ZLIB: the WebAssembly build) reads plain
// bytes only and fails on a gzip input, saying so.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/input_limits.h"
#include "base/error.h"

namespace cookgraph {

class GzipStream;  // adapters/gzip_stream.h

/// Bytes in pages of their own (mmap), in 2 MiB pages where the kernel has
/// them: a whole inflated input.
class MappedBytes {
 public:
  MappedBytes() = default;
  ~MappedBytes();
  MappedBytes(MappedBytes&& other) noexcept { *this = std::move(other); }
  MappedBytes& operator=(MappedBytes&& other) noexcept;
  /// Maps room for `size` bytes (the bytes held before are let go); false
  /// when the address space is not there. Pages are taken only as written.
  bool Map(size_t size);
  char* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  char* data_ = nullptr;
  size_t size_ = 0;
};

/// How a gzip file is inflated: block by block as it is read, or, for a
/// file to be read to its end, whole when opened if it is small (up to 32 MB
/// stored, 512 MB inflated): a string, which the JSON reader splits between
/// two threads. kWholeInBackground inflates such a file of 16 MB or more
/// (as its trailer says) on a thread of its own from Open() on, Read()
/// handing out the bytes as they come, so that reading overlaps inflating;
/// its reader calls Settle() when done (see there).
enum class GzipRead : uint8_t { kBlocks, kWholeWhenSmall, kWholeInBackground };

class ByteSource {
 public:
  /// Opens `path` ("-" = standard input). Fails with a message naming the file.
  static Result<std::unique_ptr<ByteSource>> Open(const std::string& path,
                                                  const InputLimits& limits = {},
                                                  GzipRead gzip = GzipRead::kBlocks);
  /// Reads from `text`, which must outlive the source.
  static std::unique_ptr<ByteSource> FromString(std::string_view text, std::string name,
                                                const InputLimits& limits = {});

  ~ByteSource();
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  /// The name used in errors: the path as given.
  const std::string& name() const { return name_; }
  /// The limits of this input, for every stage that reads it.
  const InputLimits& limits() const { return limits_; }
  /// The size of the input as stored (compressed for gzip read block by
  /// block, inflated for a small gzip file inflated whole when opened); 0
  /// when unknown (standard input, a pipe). For choosing how to read, never
  /// for limits.
  uint64_t stored_size() const { return stored_size_; }

  /// True when no byte is left (or reading failed: see failed()).
  bool AtEnd() { return pos_ == len_ && !Fill(); }
  /// The next byte; only valid when !AtEnd().
  char Current() const { return buffer_[pos_]; }
  /// Moves past the current byte.
  void Advance() {
    if (buffer_[pos_++] == '\n') {
      ++line_;
      previous_line_start_ = line_start_;
      line_start_ = offset_ + pos_;
    }
  }
  /// True once a read has found the end (AtEnd() without reading more).
  bool ReachedEnd() const { return reached_end_; }
  /// Line and column of the byte `back` (>= 1) bytes before the next one; exact
  /// when that byte is on the current or the previous line.
  std::pair<int64_t, int64_t> PositionBack(uint64_t back) const {
    uint64_t next = offset_ + pos_;
    uint64_t at = next >= back ? next - back : 0;
    if (at >= line_start_) return {line_, static_cast<int64_t>(at - line_start_) + 1};
    return {line_ - 1, static_cast<int64_t>(at - previous_line_start_) + 1};
  }
  /// Copies up to `n` bytes into `out`; returns how many (0 at the end).
  size_t Read(char* out, size_t n);
  /// The first non-blank byte ahead in the buffer without consuming it, or 0
  /// when the buffer holds only blanks (see HeadIsWholeInput).
  char PeekNonBlank();
  /// True when, before anything is read, Head() holds the whole input: a
  /// string source, or a file shorter than the buffer (gzread fills it
  /// unless the input ends first).
  bool HeadIsWholeInput() {
    Head();
    if (InflatesInBackground()) return false;  // a buffer's worth is there, and more comes
    return !cut_ && (gz_ == nullptr || (offset_ == 0 && len_ < storage_.size()));
  }
  /// The bytes ahead in the buffer without consuming them. Called before
  /// anything is read, the input's first bytes (decompressed): all of a string
  /// source, up to 256 KiB of a file. For recognising a format.
  std::string_view Head();

  int64_t line() const { return line_; }  // 1-based line of the next byte
  int64_t column() const { return static_cast<int64_t>(offset_ + pos_ - line_start_) + 1; }

  /// A second source over the same input, at its start, for reading two parts
  /// of it at once (adapters/json_tokenizer.cc's split parse); nullptr when the
  /// input cannot be read twice: standard input, a pipe, gzip (which must be
  /// inflated from the start), or a path that no longer names the same file.
  /// Call it after the first read, which tells gzip from plain bytes.
  std::unique_ptr<ByteSource> Reopen();
  /// Makes `offset` the offset of the next byte, on a source that Reopen()
  /// accepts. line() and column() are not kept across the jump (the JSON
  /// reader counts its own). False, with failed() set, on an I/O error.
  bool SkipTo(uint64_t offset);

  /// The bytes Read() would copy from here to the end, without the copy,
  /// where the input is in memory (a string source, a gzip file inflated
  /// whole; cut at the input-size limit as Read() cuts it); nullopt for
  /// other sources.
  std::optional<std::string_view> InMemoryRest() const;

  /// True while a gzip file opened kWholeInBackground is inflated on its
  /// thread and not Settle()d: Read() and Head() wait for its bytes; call
  /// Settle() before any other way of reading.
  bool InflatesInBackground() const { return inflation_ != nullptr && !settled_; }
  /// Waits for a background inflate to end. True when the source then reads
  /// the inflated string from where Read() left it, or, the inflate having
  /// failed before Read() handed out a byte, the file block by block from its
  /// start (as Open() does when inflating whole fails); false when it failed
  /// after Read() handed out bytes, which may be wrong: the caller reads the
  /// file again with Open(..., GzipRead::kBlocks), whose errors say where
  /// and why. True for every other source.
  bool Settle();
  // For the second half of a split parse (adapters/json_tokenizer.cc), on
  // its own thread while the first half reads a source inflating in the
  // background:
  /// Waits for the inflate to end: the whole inflated text, or nullopt when
  /// it failed.
  std::optional<std::string_view> AwaitInflated();
  /// The bytes Read() has handed out so far.
  uint64_t HandedOut();
  /// Holds Read() at `offset` (it returns 0 there) and calls `placed` while
  /// no read can pass it; false, and nothing held, when Read() has already
  /// handed out bytes past it. ReleaseStop() lets reads go on.
  bool StopReadsAt(uint64_t offset, const std::function<void()>& placed);
  void ReleaseStop();

  /// True while ISA-L inflates this gzip file block by block (GzipStream);
  /// false once zlib reads on from where it failed, and for other inputs.
  bool InflatesWithIsal() const;
  /// Set when reading failed part-way (corrupt gzip, I/O error, the input-size
  /// limit passed).
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  ByteSource();  // byte_source_whole.cc, where Inflation is complete
  // Inflates the gzip file `fd` (`stored` bytes, about `hint` inflated) into
  // owned_ and reads it as a string; false when it is corrupt, cut short or
  // larger than kWholeInflated or input-size: Open() then reads it block by
  // block, which fails where it fails and says why, in zlib's words.
  bool InflateWhole(int fd, uint64_t stored, uint64_t hint);
  // For Open(): nullopt when the regular file `fd` (`stored` bytes) is not a
  // gzip file to inflate whole (too large, not gzip); else whether
  // InflateWhole() or, for kWholeInBackground, InflateInBackground() took it.
  std::optional<bool> InflateOnOpen(int fd, uint64_t stored, GzipRead gzip);
  // The same on a thread of its own (kWholeInBackground); false when it
  // cannot start (the file unread, the memory not there).
  bool InflateInBackground(int fd, uint64_t stored, uint64_t hint);
  size_t ReadInflating(char* out, size_t n);  // Read() while inflating
  // Head() while inflating: the first `bytes`, or all if it ends first;
  // nullopt when the inflate failed and the source now reads block by block.
  std::optional<std::string_view> HeadInflating(size_t bytes);
  void CloseFile();  // gz_, if open
  // Counts the line breaks of buffer_[at, at + n), just read.
  void CountLines(size_t at, size_t n);
  // Exchanges every member with `other` (Settle() taking a block-by-block
  // source's place).
  void SwapState(ByteSource& other);
  bool Fill();  // refills buffer_ from storage_; false at the end or on error
  // Fill() into `into` (buffer_ then points there; gzip sources only).
  bool FillInto(char* into, size_t capacity);
  bool Refill(char* into, size_t capacity);  // FillInto() without keeping track of the end

  // Records that reading went past input-size; returns false (no more bytes).
  bool SizeLimitPassed();

  std::string name_;
  InputLimits limits_;
  uint64_t stored_size_ = 0;
  uint64_t device_ = 0, inode_ = 0;  // regular files: which file, for Reopen()
  void* gz_ = nullptr;               // gzFile (without zlib, a plain file); nullptr for strings
#ifndef COOKGRAPH_NO_ZLIB
  // A gzip file read block by block: ISA-L inflates it while it can; gz_,
  // untouched until then, reads on from where it stopped (ReadOnWithZlib).
  std::unique_ptr<GzipStream> inflater_;
  bool ReadOnWithZlib();
#endif
  std::string_view text_;            // string sources
  MappedBytes owned_;                // a gzip file inflated whole: text_'s bytes
  struct Inflation;                  // byte_source.cc
  std::unique_ptr<Inflation> inflation_;  // kWholeInBackground's
  bool settled_ = false;                  // Settle() ran
  bool rereads_ = false;                  // Settle() said to read the file again
  std::vector<char> storage_;        // file sources' buffer
  const char* buffer_ = nullptr;
  size_t pos_ = 0, len_ = 0;
  uint64_t offset_ = 0;               // bytes before buffer_[0]
  uint64_t line_start_ = 0;           // offset of the current line's first byte
  uint64_t previous_line_start_ = 0;  // offset of the previous line's first byte
  int64_t line_ = 1;
  bool string_done_ = false;
  bool cut_ = false;          // input-size was reached: the next read fails
  bool reached_end_ = false;  // Fill() found no more bytes
  std::string error_;
};

/// Why a folder's entry at `path` is not read as a file, for a search of
/// folders that must name every entry it passes over (docs/commands.md#folders-of-inputs):
/// "" for a regular file or a symbolic link to one; else "not a regular file
/// but a FIFO (never opened: reading it could block)", "... a socket", "... a
/// character device", "a symbolic link to a missing file (TARGET)", "a
/// symbolic link that loops", or "cannot be examined (REASON)". Never opens
/// the entry; a folder is "a folder".
std::string NotAFileReason(const std::string& path);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADAPTERS_BYTE_SOURCE_H_
