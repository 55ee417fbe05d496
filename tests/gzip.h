#ifndef COOKGRAPH_TESTS_GZIP_H_
#define COOKGRAPH_TESTS_GZIP_H_

// gzip files for the readers' tests, written by zlib.

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

namespace cookgraph::testing {

/// One gzip member of `text` at `level` (0: stored blocks), with a file name
/// of `name_bytes` bytes in its header when not 0 and `extra` as its extra field.
inline std::string GzipMember(const std::string& text, int level = 6, size_t name_bytes = 0,
                              const std::string& extra = "") {
  std::string out(
      deflateBound(nullptr, static_cast<uLong>(text.size())) + name_bytes + extra.size() + 64,
      '\0');
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string name(name_bytes, 'n');
  std::string extra_field = extra;
  gz_header header{};
  if (name_bytes > 0) header.name = reinterpret_cast<Bytef*>(name.data());
  if (!extra.empty()) {
    header.extra = reinterpret_cast<Bytef*>(extra_field.data());
    header.extra_len = static_cast<uInt>(extra_field.size());
  }
  EXPECT_EQ(deflateSetHeader(&z, &header), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace cookgraph::testing

#endif  // COOKGRAPH_TESTS_GZIP_H_
