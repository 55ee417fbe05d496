// ByteSource's gzip files inflated whole (adapters/byte_source.h, GzipRead):
// at once when opened, or on a thread of its own while Read() hands out the
// bytes as they come (docs/performance.md#gzip).

#include <sys/mman.h>
#include <unistd.h>
#ifndef COOKGRAPH_NO_ZLIB
#include <isa-l/igzip_lib.h>

#include "adapters/gzip_stream.h"
#endif

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <new>
#include <optional>
#include <thread>

#include "adapters/byte_source.h"

namespace cookgraph {

#ifndef COOKGRAPH_NO_ZLIB
namespace {

// A gzip file up to kWholeStored bytes that inflates to at most kWholeInflated,
// and less than kWholeRatio times its size, is inflated whole when opened
// (InflateWhole, with ISA-L's inflater, about four times zlib's speed): the
// readers then read a string, which the JSON reader splits between two
// threads; inflated block by block (GzipStream, zlib where it fails), it is
// read on one (docs/performance.md#gzip).
constexpr uint64_t kWholeStored = uint64_t{32} << 20;
constexpr uint64_t kWholeInflated = uint64_t{512} << 20;
constexpr size_t kWholeStep = size_t{1} << 20;
constexpr uint64_t kWholeRatio = 256;  // inflated ÷ stored past which it is a bomb
// kWholeInBackground inflates on a thread of its own from this size on (the
// trailer's): below it, the JSON reader reads on one thread, and starting
// one costs more than the overlap saves. Not in a build without threads.
constexpr uint64_t kBackgroundInflated = uint64_t{16} << 20;

// The size gzip's trailer gives (the last member's, modulo 2^32) for a
// regular file of `size` bytes starting with gzip's magic bytes, else nullopt.
std::optional<uint64_t> GzipSizeHint(int fd, uint64_t size) {
  unsigned char head[2] = {0, 0}, tail[4] = {0, 0, 0, 0};
  if (size < 18 || pread(fd, head, 2, 0) != 2 || head[0] != 0x1f || head[1] != 0x8b ||
      pread(fd, tail, 4, static_cast<off_t>(size - 4)) != 4) {
    return std::nullopt;
  }
  return uint64_t{tail[0]} | uint64_t{tail[1]} << 8 | uint64_t{tail[2]} << 16 |
         uint64_t{tail[3]} << 24;
}

// Reads the `stored` bytes of the gzip file `fd`; nullptr when they cannot
// be had.
std::unique_ptr<uint8_t[]> ReadStored(int fd, uint64_t stored) {
  std::unique_ptr<uint8_t[]> in(new (std::nothrow) uint8_t[stored]);
  if (in == nullptr) return nullptr;
  for (uint64_t got = 0; got < stored;) {
    const ssize_t n = pread(fd, in.get() + got, stored - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return nullptr;
    got += static_cast<uint64_t>(n);
  }
  return in;
}

// Inflates the gzip members of in[0, stored) into `out`, which has room for
// most + 1 bytes, a megabyte at a time, calling `progress` with the length
// inflated after each (false from it stops: nullopt); the length inflated, or
// nullopt when the data is corrupt, cut short, over `most` or a bomb.
std::optional<size_t> InflateMembers(const uint8_t* in, uint64_t stored, char* out, uint64_t most,
                                     const std::function<bool(size_t)>& progress) {
  inflate_state state;
  isal_inflate_init(&state);
  state.crc_flag = ISAL_GZIP;  // the header read, the trailer's CRC-32 and size checked
  state.next_in = const_cast<uint8_t*>(in);
  state.avail_in = static_cast<uint32_t>(stored);
  if (!KnownHeaderFlags(state)) return std::nullopt;
  size_t len = 0;
  for (;;) {
    if (len > most) return std::nullopt;
    // A megabyte at a time, so that a bomb (a member that inflates a
    // thousandfold) is given up after one: JSON inflates tens of times.
    state.next_out = reinterpret_cast<uint8_t*>(out + len);
    state.avail_out = static_cast<uint32_t>(std::min<uint64_t>(most + 1 - len, kWholeStep));
    const uint32_t room = state.avail_out;
    // Corrupt: see InflateWhole's doc.
    if (isal_inflate(&state) != ISAL_DECOMP_OK) return std::nullopt;
    len += room - state.avail_out;
    const uint64_t consumed = stored - state.avail_in;
    if (len > most || (len > kWholeStep && len / kWholeRatio > consumed)) return std::nullopt;
    if (!progress(len)) return std::nullopt;
    if (state.block_state == ISAL_BLOCK_FINISH) {
      if (!StartNextMember(state)) return len;  // the whole input is here: the end
      if (!KnownHeaderFlags(state)) return std::nullopt;
    } else if (state.avail_in == 0 && state.avail_out > 0) {
      return std::nullopt;  // cut short: zlib, block by block, says so where it ends
    }
  }
}

}  // namespace
#endif

MappedBytes::~MappedBytes() {
  if (data_ != nullptr) munmap(data_, size_);
}

MappedBytes& MappedBytes::operator=(MappedBytes&& other) noexcept {
  std::swap(data_, other.data_);
  std::swap(size_, other.size_);
  return *this;
}

// A gzip file inflated whole on a thread of its own (kWholeInBackground):
// the thread writes `text` from its start and says how far it got, Read()
// hands out what is there and waits for more.
struct ByteSource::Inflation {
  std::mutex mutex;
  std::condition_variable moved;  // more bytes, the end, or the stop moved
  MappedBytes text;               // room for the most it may hold: never moves
  size_t ready = 0;               // bytes of `text` inflated
  bool ended = false;             // the thread is done: `ok` says how
  bool ok = false;
  uint64_t handed_out = 0;                               // bytes Read() gave
  uint64_t stop = std::numeric_limits<uint64_t>::max();  // Read() gives no byte past it
  std::atomic<bool> quit{false};                         // the source is going away
  std::thread thread;
};

#ifndef COOKGRAPH_NO_ZLIB
bool MappedBytes::Map(size_t size) {
  void* at = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (at == MAP_FAILED) return false;
  // 2 MiB pages where the kernel has them: a 24 MB inflated trace took
  // 6,000 page faults in 4 KiB pages, as long as inflating it.
  madvise(at, size, MADV_HUGEPAGE);
  if (data_ != nullptr) munmap(data_, size_);
  data_ = static_cast<char*>(at);
  size_ = size;
  return true;
}

bool ByteSource::InflateWhole(int fd, uint64_t stored, uint64_t hint) {
  const uint64_t most = std::min(kWholeInflated, limits_.input_size);
  if (hint > most) return false;
  const std::unique_ptr<uint8_t[]> in = ReadStored(fd, stored);
  // Room for the most it may hold: pages are taken only as they are written.
  MappedBytes text;
  if (in == nullptr || !text.Map(static_cast<size_t>(most + 1))) return false;
  const std::optional<size_t> len =
      InflateMembers(in.get(), stored, text.data(), most, [](size_t) { return true; });
  if (!len) return false;
  CloseFile();
  owned_ = std::move(text);
  text_ = std::string_view(owned_.data(), *len);
  buffer_ = text_.data();
  stored_size_ = *len;
  std::vector<char>().swap(storage_);
  return true;
}

bool ByteSource::InflateInBackground(int fd, uint64_t stored, uint64_t hint) {
  const uint64_t most = std::min(kWholeInflated, limits_.input_size);
  if (hint > most) return false;
  std::unique_ptr<uint8_t[]> in = ReadStored(fd, stored);
  auto job = std::make_unique<Inflation>();
  if (in == nullptr || !job->text.Map(static_cast<size_t>(most + 1))) return false;
  Inflation& j = *job;
  j.thread = std::thread([&j, in = std::move(in), stored, most] {
    const std::optional<size_t> len =
        InflateMembers(in.get(), stored, j.text.data(), most, [&j](size_t ready) {
          {
            const std::lock_guard lock(j.mutex);
            j.ready = ready;
          }
          j.moved.notify_all();
          return !j.quit.load(std::memory_order_relaxed);
        });
    {
      const std::lock_guard lock(j.mutex);
      j.ended = true;
      j.ok = len.has_value();
      if (len) j.ready = *len;
    }
    j.moved.notify_all();
  });
  inflation_ = std::move(job);
  stored_size_ = hint;  // until it ends: for planning only
  return true;
}

std::optional<bool> ByteSource::InflateOnOpen(int fd, uint64_t stored, GzipRead gzip) {
  if (stored > kWholeStored) return std::nullopt;
  const std::optional<uint64_t> hint = GzipSizeHint(fd, stored);
  if (!hint) return std::nullopt;
#ifndef COOKGRAPH_SINGLE_THREAD
  if (gzip == GzipRead::kWholeInBackground && *hint >= kBackgroundInflated &&
      InflateInBackground(fd, stored, *hint)) {
    return true;
  }
#else
  (void)gzip;
#endif
  return InflateWhole(fd, stored, *hint);
}

#endif

ByteSource::ByteSource() = default;

ByteSource::~ByteSource() {
  if (inflation_ != nullptr && inflation_->thread.joinable()) {
    inflation_->quit.store(true, std::memory_order_relaxed);
    inflation_->thread.join();
  }
  CloseFile();
}

std::optional<std::string_view> ByteSource::HeadInflating(size_t bytes) {
  // What the thread has inflated once it is `bytes`, as a file's first
  // Refill() would give; the whole string if it ends first.
  Inflation& j = *inflation_;
  {
    std::unique_lock lock(j.mutex);
    j.moved.wait(lock, [&] { return j.ended || j.ready >= bytes; });
    if (!j.ended || j.ok) return std::string_view(j.text.data(), j.ended ? j.ready : bytes);
  }
  Settle();  // nothing read yet: block by block, as Open() reads a corrupt file
  return std::nullopt;
}

size_t ByteSource::ReadInflating(char* out, size_t n) {
  Inflation& j = *inflation_;
  uint64_t from = 0;
  size_t take = 0;
  {
    std::unique_lock lock(j.mutex);
    j.moved.wait(lock, [&] { return j.ended || j.handed_out >= j.stop || j.ready > j.handed_out; });
    const uint64_t end = std::min<uint64_t>(j.ready, j.stop);
    if (j.handed_out >= end) {
      if (j.ended && !j.ok && j.handed_out < j.stop) error_ = "gzip data is corrupt";
      return 0;
    }
    from = j.handed_out;
    take = static_cast<size_t>(std::min<uint64_t>(n, end - from));
    j.handed_out += take;
  }
  // The bytes below `ready` are written once, before `ready` passed them.
  std::memcpy(out, j.text.data() + from, take);
  buffer_ = j.text.data();
  CountLines(static_cast<size_t>(from), take);
  return take;
}

void ByteSource::SwapState(ByteSource& other) {
  std::swap(name_, other.name_);
  std::swap(limits_, other.limits_);
  std::swap(stored_size_, other.stored_size_);
  std::swap(device_, other.device_);
  std::swap(inode_, other.inode_);
  std::swap(gz_, other.gz_);
#ifndef COOKGRAPH_NO_ZLIB
  std::swap(inflater_, other.inflater_);
#endif
  std::swap(text_, other.text_);
  std::swap(owned_, other.owned_);
  std::swap(inflation_, other.inflation_);
  std::swap(settled_, other.settled_);
  std::swap(rereads_, other.rereads_);
  std::swap(storage_, other.storage_);
  std::swap(buffer_, other.buffer_);
  std::swap(pos_, other.pos_);
  std::swap(len_, other.len_);
  std::swap(offset_, other.offset_);
  std::swap(line_start_, other.line_start_);
  std::swap(previous_line_start_, other.previous_line_start_);
  std::swap(line_, other.line_);
  std::swap(string_done_, other.string_done_);
  std::swap(cut_, other.cut_);
  std::swap(reached_end_, other.reached_end_);
  std::swap(error_, other.error_);
}

bool ByteSource::Settle() {
  if (inflation_ == nullptr || settled_) return !rereads_;
  Inflation& j = *inflation_;
  if (j.thread.joinable()) j.thread.join();
  settled_ = true;
  if (!j.ok) {
    if (j.handed_out > 0) {
      rereads_ = true;
      if (error_.empty()) error_ = "gzip data is corrupt";
      return false;
    }
    // Nothing read yet: block by block from the start, as Open() does when
    // the whole inflate fails.
    auto blocks = Open(name_, limits_, GzipRead::kBlocks);
    if (!blocks) {
      error_ = blocks.error().message;
      return true;
    }
    SwapState(**blocks);
    return true;
  }
  // The inflated string (j.text's: the second half of a split parse may
  // still read it), read on from where Read() left it.
  CloseFile();
  text_ = std::string_view(j.text.data(), j.ready);
  buffer_ = text_.data();
  stored_size_ = j.ready;
  offset_ = 0;
  pos_ = static_cast<size_t>(j.handed_out);
  len_ = pos_;
  string_done_ = pos_ > 0;
  if (string_done_) len_ = text_.size();
  std::vector<char>().swap(storage_);
  return true;
}

std::optional<std::string_view> ByteSource::AwaitInflated() {
  if (inflation_ == nullptr) return std::nullopt;
  Inflation& j = *inflation_;
  std::unique_lock lock(j.mutex);
  j.moved.wait(lock, [&] { return j.ended; });
  if (!j.ok) return std::nullopt;
  return std::string_view(j.text.data(), j.ready);
}

bool ByteSource::StopReadsAt(uint64_t offset, const std::function<void()>& placed) {
  if (inflation_ == nullptr) return false;
  Inflation& j = *inflation_;
  {
    const std::lock_guard lock(j.mutex);
    if (j.handed_out > offset) return false;
    j.stop = offset;
    placed();
  }
  j.moved.notify_all();
  return true;
}

uint64_t ByteSource::HandedOut() {
  if (inflation_ == nullptr) return 0;
  Inflation& j = *inflation_;
  const std::lock_guard lock(j.mutex);
  return j.handed_out;
}

void ByteSource::ReleaseStop() {
  if (inflation_ == nullptr) return;
  Inflation& j = *inflation_;
  {
    const std::lock_guard lock(j.mutex);
    j.stop = std::numeric_limits<uint64_t>::max();
  }
  j.moved.notify_all();
}

}  // namespace cookgraph
