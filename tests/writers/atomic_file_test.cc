#include "writers/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "adapters/native/snapshot_reader.h"
#include "metrics/analysis.h"
#include "tests/shell.h"
#include "tests/temp_dir.h"
#include "writers/chrome_trace_writer.h"
#include "writers/snapshot_writer.h"

namespace cookgraph {
namespace {

namespace fs = std::filesystem;
using testing::Slurp;
using testing::TempDir;

const std::string kExample = COOKGRAPH_SOURCE_DIR "/examples/touchdesigner_feedback.json";
constexpr std::string_view kOld = "the old contents\n";

std::vector<std::string> Names(const TempDir& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// A file-size limit (ulimit -f, which binds root too) for the scope: writes
// past `bytes` fail with EFBIG half-way through the output.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &before_);
    rlimit limit = before_;
    limit.rlim_cur = bytes;
    ok_ = setrlimit(RLIMIT_FSIZE, &limit) == 0;
  }
  ~FileSizeLimit() { setrlimit(RLIMIT_FSIZE, &before_); }
  bool ok() const { return ok_; }

 private:
  rlimit before_{};
  bool ok_ = false;
};

// Every writer, failing half-way: the error names the target and says why, the
// old target is untouched and no temporary file is left.
void ExpectFailureHalfWayKeepsTheOldFile(const std::string& name,
                                         const std::function<Status(const std::string&)>& write) {
  SCOPED_TRACE(name);
  TempDir dir;
  const std::string target = dir / name;
  std::ofstream(target, std::ios::binary) << kOld;
  Status written = Status{};
  {
    FileSizeLimit limit(4096);
    ASSERT_TRUE(limit.ok());
    written = write(target);
  }
  ASSERT_FALSE(written) << "the write should have hit the 4 KiB limit";
  EXPECT_EQ(written.error().file, target);
  EXPECT_EQ(written.error().message, "cannot write: File too large");
  EXPECT_EQ(Slurp(target), kOld);
  EXPECT_EQ(Names(dir), std::vector<std::string>{name}) << "a temporary file was left";
  // Without the limit the same write succeeds and replaces the file whole.
  ASSERT_TRUE(write(target));
  EXPECT_GT(fs::file_size(target), 4096u);
  EXPECT_EQ(Names(dir), std::vector<std::string>{name});
}

TEST(AtomicFile, EveryWriterFailingHalfWayLeavesTheOldFileAndNoTemporary) {
  Result<Snapshot> snapshot = ReadSnapshotFile(kExample);
  ASSERT_TRUE(snapshot) << snapshot.error().Format();
  const Analysis analysis = Analyse(*snapshot);
  const std::string text(64 * 1024, 'x');
  ExpectFailureHalfWayKeepsTheOldFile(
      "report.html", [&](const std::string& path) { return WriteFileAtomically(path, text); });
  for (const char* name : {"snapshot.json", "snapshot.json.gz", "snapshot.yaml"}) {
    ExpectFailureHalfWayKeepsTheOldFile(
        name, [&](const std::string& path) { return WriteSnapshotFile(*snapshot, path); });
  }
  ExpectFailureHalfWayKeepsTheOldFile("trace.json", [&](const std::string& path) {
    return WriteTraceFile(*snapshot, analysis, path);
  });
}

TEST(AtomicFile, AFolderThatIsAFileIsAnErrorNamingTheTarget) {
  TempDir dir;
  std::ofstream(dir / "plain") << kOld;
  const std::string target = dir / "plain/report.html";
  Status written = WriteFileAtomically(target, "x");
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().file, target);
  EXPECT_EQ(written.error().message, "cannot write: Not a directory");
  EXPECT_EQ(Names(dir), std::vector<std::string>{"plain"});
}

TEST(AtomicFile, AReplacedFileKeepsItsPermissionsAndANewOneGetsTheUsualOnes) {
  TempDir dir;
  const std::string kept = dir / "private.md";
  std::ofstream(kept) << kOld;
  ASSERT_EQ(chmod(kept.c_str(), 0640), 0);
  ASSERT_TRUE(WriteFileAtomically(kept, "new\n"));
  EXPECT_EQ(Slurp(kept), "new\n");
  struct stat st = {};
  ASSERT_EQ(stat(kept.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);

  const mode_t mask = umask(022);
  const std::string fresh = dir / "fresh.md";
  Status written = WriteFileAtomically(fresh, "new\n");
  umask(mask);
  ASSERT_TRUE(written);
  ASSERT_EQ(stat(fresh.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u) << "not mkstemp's 0600";
}

TEST(AtomicFile, AnUncommittedTemporaryFileIsRemoved) {
  TempDir dir;
  {
    TemporaryFile temporary(dir / "out.json");
    ASSERT_TRUE(temporary.ok());
    EXPECT_TRUE(temporary.path().starts_with(dir / "out.json.tmp."));
    EXPECT_TRUE(fs::exists(temporary.path()));
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

}  // namespace
}  // namespace cookgraph
