// Fuzz target: an input file as `cookgraph score FILE` opens it: gzip or not,
// the format recognised from the content, then that format's reader. The
// bytes are put in an in-memory file so the whole path from open() runs.
#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include "adapters/input_reader.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cookgraph;
  const int fd = memfd_create("fuzz-input", 0);
  FUZZ_CHECK(fd >= 0);
  size_t written = 0;
  while (written < size) {
    const ssize_t n = write(fd, data + written, size - written);
    FUZZ_CHECK(n > 0);
    written += static_cast<size_t>(n);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  Result<Snapshot> snapshot = ReadInput({path});
  if (!snapshot) fuzz::CheckError(snapshot.error());
  close(fd);
  return 0;
}
