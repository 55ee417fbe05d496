// gst_dump OUT.json PATH...: reads a GStreamer recording (a .dot dump and a
// tracer log, or their directory) with cookgraph's adapter
// (adapters/gstreamer/gstreamer.h) and writes the Snapshot in the native format, for
// tests/tools/gst_check.py to compare with its own reading of the files. The
// warnings go to standard error, one a line, after "warning: ".

#include <cstdio>
#include <string>
#include <vector>

#include "adapters/gstreamer/gstreamer.h"
#include "writers/snapshot_writer.h"

int main(int argc, char** argv) {
  using namespace cookgraph;
  if (argc < 3) {
    std::fprintf(stderr, "usage: gst_dump OUT.json PATH...\n");
    return 2;
  }
  const std::vector<std::string> paths(argv + 2, argv + argc);
  auto read = ReadGstreamer(paths);
  if (!read) {
    std::fprintf(stderr, "%s\n", read.error().Format().c_str());
    return 2;
  }
  for (const std::string& w : read->warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  if (Status written = WriteSnapshotFile(*read, argv[1]); !written) {
    std::fprintf(stderr, "%s\n", written.error().Format().c_str());
    return 2;
  }
  return 0;
}
