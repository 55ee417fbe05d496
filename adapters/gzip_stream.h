#ifndef COOKGRAPH_ADAPTERS_GZIP_STREAM_H_
#define COOKGRAPH_ADAPTERS_GZIP_STREAM_H_
// A gzip file inflated as it is read, by ISA-L's inflater: about four times
// zlib's speed, in a megabyte of memory. ByteSource reads a large gzip file
// through it (one too large to inflate whole when opened), and turns to zlib
// at the first byte ISA-L cannot give: zlib then reads on from there, or
// fails where it fails, in its own words (adapters/byte_source.cc). Not in
// the build without zlib (COOKGRAPH_NO_ZLIB).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

struct inflate_state;

namespace cookgraph {

/// After a gzip member's end (`state` at ISAL_BLOCK_FINISH): when the bytes
/// ahead start another member, makes `state` ready to inflate it and returns
/// true; false at the end, or before bytes that are not gzip, which zlib
/// (and gzip(1)) ignore. Needs two bytes ahead to tell, where there are two.
bool StartNextMember(inflate_state& state);

/// False when the gzip member starting at `state`'s next byte sets a header
/// flag that gzip reserves (0xE0), which ISA-L ignores and zlib refuses
/// ("unknown header flags set"); true otherwise, and with fewer than four
/// bytes ahead (the inflater finds a header cut short).
bool KnownHeaderFlags(const inflate_state& state);

class GzipStream {
 public:
  /// A stream over the regular file `fd` (read with pread() from its start;
  /// the descriptor stays the caller's), or nullptr when the file does not
  /// start with gzip's magic bytes or the memory is not there.
  static std::unique_ptr<GzipStream> Open(int fd);
  ~GzipStream();
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  /// Inflates into `into`, filling all `capacity` bytes unless the input ends
  /// first, as gzread does: members one after another, bytes after the last
  /// member that are not another one ignored. The count written (0 at the
  /// end), or -1 when ISA-L failed: corrupt or cut-short data, a read error.
  /// After -1 the bytes this call wrote are not to be used.
  int64_t Read(char* into, size_t capacity);

 private:
  explicit GzipStream(int fd);
  bool Load();        // more input after what is left; false on a read error
  bool NextMember();  // after a member's end: the next one, or the end
  bool HeaderAhead();  // at a member's start: its first four bytes loaded, where the file has them
  int fd_;
  uint64_t file_offset_ = 0;  // bytes of the file read so far
  bool file_end_ = false;     // pread found the end of the file
  bool ended_ = false;        // the last member inflated: no more bytes
  bool member_start_ = true;  // the next byte starts a member: its flags not yet checked
  std::unique_ptr<inflate_state> state_;
  std::vector<uint8_t> in_;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_ADAPTERS_GZIP_STREAM_H_
