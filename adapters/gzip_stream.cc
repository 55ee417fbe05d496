#include "adapters/gzip_stream.h"

#include <isa-l/igzip_lib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <new>

namespace cookgraph {
namespace {

// Compressed bytes read at a time: JSON inflates about ten times, so each
// read gives a few megabytes to inflate.
constexpr size_t kInBytes = size_t{1} << 18;

}  // namespace

bool StartNextMember(inflate_state& state) {
  if (state.avail_in < 2 || state.next_in[0] != 0x1f || state.next_in[1] != 0x8b) return false;
  uint8_t* next = state.next_in;
  const uint32_t left = state.avail_in;
  isal_inflate_reset(&state);
  state.crc_flag = ISAL_GZIP;
  state.next_in = next;
  state.avail_in = left;
  return true;
}

bool KnownHeaderFlags(const inflate_state& state) {
  return state.avail_in < 4 || (state.next_in[3] & 0xE0) == 0;
}

std::unique_ptr<GzipStream> GzipStream::Open(int fd) {
  unsigned char magic[2] = {0, 0};
  if (pread(fd, magic, 2, 0) != 2 || magic[0] != 0x1f || magic[1] != 0x8b) return nullptr;
  std::unique_ptr<GzipStream> stream(new (std::nothrow) GzipStream(fd));
  if (stream == nullptr) return nullptr;
  stream->state_.reset(new (std::nothrow) inflate_state);
  if (stream->state_ == nullptr) return nullptr;
  stream->in_.resize(kInBytes);
  isal_inflate_init(stream->state_.get());
  stream->state_->crc_flag = ISAL_GZIP;  // the header read, the trailer's CRC-32 and size checked
  stream->state_->avail_in = 0;
  return stream;
}

GzipStream::GzipStream(int fd) : fd_(fd) {}

GzipStream::~GzipStream() = default;

bool GzipStream::Load() {
  inflate_state& s = *state_;
  // What is left (a member's first bytes, when its header is looked at)
  // moves to the front; the rest of the buffer is filled.
  const size_t left = s.avail_in;
  if (left > 0) std::memmove(in_.data(), s.next_in, left);
  size_t got = left;
  while (got < in_.size() && !file_end_) {
    const ssize_t n =
        pread(fd_, in_.data() + got, in_.size() - got, static_cast<off_t>(file_offset_));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) file_end_ = true;
    got += static_cast<size_t>(n);
    file_offset_ += static_cast<uint64_t>(n);
    if (got > left) break;  // something new to inflate: no need to wait for more
  }
  s.next_in = in_.data();
  s.avail_in = static_cast<uint32_t>(got);
  return true;
}

bool GzipStream::NextMember() {
  inflate_state& s = *state_;
  while (s.avail_in < 2 && !file_end_) {
    if (!Load()) return false;
  }
  ended_ = !StartNextMember(s);
  member_start_ = !ended_;
  return true;
}

bool GzipStream::HeaderAhead() {
  inflate_state& s = *state_;
  while (s.avail_in < 4 && !file_end_) {
    if (!Load()) return false;
  }
  return true;
}

int64_t GzipStream::Read(char* into, size_t capacity) {
  inflate_state& s = *state_;
  size_t done = 0;
  while (done < capacity && !ended_) {
    if (s.block_state == ISAL_BLOCK_FINISH) {
      if (!NextMember()) return -1;
      continue;
    }
    if (member_start_) {
      if (!HeaderAhead() || !KnownHeaderFlags(s)) return -1;
      member_start_ = false;
    }
    if (s.avail_in == 0 && !file_end_ && !Load()) return -1;
    const uint32_t in_before = s.avail_in;
    s.next_out = reinterpret_cast<uint8_t*>(into + done);
    s.avail_out = static_cast<uint32_t>(
        std::min<size_t>(capacity - done, std::numeric_limits<uint32_t>::max()));
    const uint32_t room = s.avail_out;
    const int ret = isal_inflate(&s);
    done += room - s.avail_out;
    if (ret < 0) return -1;  // corrupt
    // No byte taken and none given: the input has ended inside a member (cut
    // short), or ISA-L needs what it cannot have. zlib reads it instead.
    if (s.block_state != ISAL_BLOCK_FINISH && s.avail_out == room && s.avail_in == in_before &&
        (file_end_ || s.avail_in > 0)) {
      return -1;
    }
  }
  return static_cast<int64_t>(done);
}

}  // namespace cookgraph
