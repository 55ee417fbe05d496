// The history store in SQLite (store/sqlite_store.cc): the schema, its
// version, transactions, and that what is stored reads back unchanged.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <fstream>
#include <thread>
#include <variant>

#include "adapters/native/snapshot_reader.h"
#include "metrics/analysis.h"
#include "store/store.h"
#include "tests/temp_dir.h"
#include "writers/score.h"
#include "writers/summary.h"

namespace cookgraph {
namespace {

using testing::TempDir;

// A real snapshot as `score --store` stores it: the summary and every node.
StoredSnapshot Example(const std::string& name = "touchdesigner_feedback") {
  const std::string file = std::string(COOKGRAPH_SOURCE_DIR) + "/examples/" + name + ".json";
  Result<Snapshot> snapshot = ReadSnapshotFile(file);
  EXPECT_TRUE(snapshot) << snapshot.error().Format();
  const Analysis analysis = Analyse(*snapshot);
  StoredSnapshot s;
  s.summary = Summarise(file, *snapshot, analysis);
  s.summary.warnings = 2;  // the advisor's counts, filled by the caller
  s.nodes = ScoreRows({file, *snapshot, analysis}, ScoreOptions{});
  return s;
}

std::unique_ptr<RunStore> Open(const std::string& path, StoreAccess access = StoreAccess::kWrite) {
  Result<std::unique_ptr<RunStore>> store = OpenRunStore(path, access);
  EXPECT_TRUE(store) << store.error().Format();
  return store ? std::move(*store) : nullptr;
}

std::string OpenError(const std::string& path, StoreAccess access = StoreAccess::kWrite) {
  Result<std::unique_ptr<RunStore>> store = OpenRunStore(path, access);
  EXPECT_FALSE(store);
  return store ? "" : store.error().Format();
}

// Runs `sql` on the file directly (not through the store); returns the first
// column of the first row, or "" when there is none.
std::string Sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::string out;
  int rc = sqlite3_step(s);
  if (rc == SQLITE_ROW && sqlite3_column_text(s, 0)) {
    out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  }
  while (rc == SQLITE_ROW) rc = sqlite3_step(s);
  EXPECT_EQ(rc, SQLITE_DONE) << sqlite3_errmsg(db);
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
}

TEST(SqliteStore, ANewFileGetsTheSchemaWalAndItsVersion) {
  TempDir dir;
  const std::string path = dir / "runs.db";
  ASSERT_TRUE(Open(path));
  EXPECT_EQ(Sql(path,
                "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master "
                "WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name)"),
            "meta,nodes,runs,snapshots");
  EXPECT_EQ(Sql(path, "SELECT value FROM meta WHERE key = 'schema_version'"), "3");
  EXPECT_EQ(Sql(path, "SELECT value FROM meta WHERE key = 'application'"), "cookgraph-history");
  EXPECT_EQ(Sql(path, "PRAGMA journal_mode"), "wal");
  // Opening again changes nothing.
  ASSERT_TRUE(Open(path));
  EXPECT_EQ(Sql(path, "SELECT count(*) FROM meta"), "2");
}

TEST(SqliteStore, WhatIsStoredReadsBackUnchanged) {
  TempDir dir;
  const std::string path = dir / "runs.db";
  auto store = Open(path);
  ASSERT_TRUE(store);
  const StoredSnapshot a = Example("touchdesigner_feedback");
  const StoredSnapshot b = Example("gstreamer_pipeline");
  Result<int64_t> run = store->BeginRun({"abc123", "--budget-ms 20", "0.1.0"});
  ASSERT_TRUE(run) << run.error().Format();
  ASSERT_TRUE(store->AddSnapshot(*run, a));
  ASSERT_TRUE(store->AddSnapshot(*run, b));
  ASSERT_TRUE(store->FinishRun(*run));

  auto reader = Open(path, StoreAccess::kRead);
  ASSERT_TRUE(reader);
  Result<std::vector<StoredRun>> runs = reader->ReadRuns();
  ASSERT_TRUE(runs) << runs.error().Format();
  ASSERT_EQ(runs->size(), 1u);
  const StoredRun& r = runs->front();
  EXPECT_EQ(r.id, *run);
  EXPECT_EQ(r.info.label, "abc123");
  EXPECT_EQ(r.info.options, "--budget-ms 20");
  EXPECT_EQ(r.info.version, "0.1.0");
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.started_at.size(), 24u) << r.started_at;  // 2026-11-27T09:30:00.125Z
  EXPECT_EQ(r.started_at.back(), 'Z');
  EXPECT_LE(r.started_at, r.finished_at);
  ASSERT_EQ(r.snapshots.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const StoredSnapshot& want = i == 0 ? a : b;
    const StoredSnapshot& got = r.snapshots[i];
    EXPECT_EQ(got.summary.file, want.summary.file);
    EXPECT_EQ(got.summary.name, want.summary.name);
    EXPECT_EQ(got.summary.frames, want.summary.frames);
    EXPECT_EQ(got.summary.frame_mean_ms, want.summary.frame_mean_ms);
    EXPECT_EQ(got.summary.frame_std_ms, want.summary.frame_std_ms);
    EXPECT_EQ(got.summary.budget_ms, want.summary.budget_ms);
    EXPECT_EQ(got.summary.top_node, want.summary.top_node);
    EXPECT_EQ(got.summary.warnings, 2u);
    EXPECT_EQ(got.nodes.columns, want.nodes.columns);
    ASSERT_EQ(got.nodes.rows.size(), want.nodes.rows.size());
    for (size_t row = 0; row < want.nodes.rows.size(); ++row) {
      // Bit for bit: doubles as doubles, counts as counts, nulls as nulls.
      ASSERT_EQ(got.nodes.rows[row], want.nodes.rows[row]) << "row " << row;
    }
  }
  EXPECT_GT(a.nodes.rows.size(), 300u);
}

TEST(SqliteStore, ASnapshotThatCouldNotBeScoredIsKeptWithItsError) {
  TempDir dir;
  auto store = Open(dir / "runs.db");
  Result<int64_t> run = store->BeginRun({});
  StoredSnapshot failed;
  failed.summary.file = "broken.json";
  failed.summary.error = "broken.json:1:2: invalid JSON";
  ASSERT_TRUE(store->AddSnapshot(*run, failed));
  Result<std::vector<StoredRun>> runs = store->ReadRuns();
  ASSERT_TRUE(runs);
  ASSERT_EQ(runs->at(0).snapshots.size(), 1u);
  EXPECT_EQ(runs->at(0).snapshots[0].summary.error, "broken.json:1:2: invalid JSON");
  EXPECT_TRUE(runs->at(0).snapshots[0].nodes.rows.empty());
  EXPECT_FALSE(runs->at(0).complete());
}

TEST(SqliteStore, AFailedSnapshotLeavesNothingHalfWritten) {
  TempDir dir;
  const std::string path = dir / "runs.db";
  auto store = Open(path);
  Result<int64_t> run = store->BeginRun({});
  ASSERT_TRUE(store->AddSnapshot(*run, Example()));
  // The last node repeats the first one's id: the snapshot row and every
  // node before it are written, then the unique key stops the transaction.
  StoredSnapshot bad = Example();
  bad.nodes.rows.push_back(bad.nodes.rows.front());
  Status s = store->AddSnapshot(*run, bad);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().Format().find("UNIQUE constraint failed"), std::string::npos)
      << s.error().Format();
  EXPECT_EQ(s.error().file, path);
  EXPECT_EQ(Sql(path, "SELECT count(*) FROM snapshots"), "1");
  EXPECT_EQ(Sql(path, "SELECT count(*) FROM nodes"), std::to_string(Example().nodes.rows.size()));
  // The store still works after the rollback.
  ASSERT_TRUE(store->AddSnapshot(*run, Example()));
  EXPECT_EQ(Sql(path, "SELECT count(*) FROM snapshots"), "2");
}

TEST(SqliteStore, NodeColumnsOutsideTheSchemaAreRefusedNotDropped) {
  TempDir dir;
  auto store = Open(dir / "runs.db");
  Result<int64_t> run = store->BeginRun({});
  StoredSnapshot extra = Example();
  extra.nodes.columns.push_back("baseline_avg_ms");
  for (auto& row : extra.nodes.rows) row.emplace_back(1.0);
  Status s = store->AddSnapshot(*run, extra);
  ASSERT_FALSE(s);
  EXPECT_NE(
      s.error().message.find("column 'baseline_avg_ms' is not in the history schema (version 3)"),
      std::string::npos)
      << s.error().message;

  StoredSnapshot missing = Example();
  missing.nodes.columns.erase(missing.nodes.columns.begin() + 8);  // avg_ms
  for (auto& row : missing.nodes.rows) row.erase(row.begin() + 8);
  s = store->AddSnapshot(*run, missing);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("the nodes have no column 'avg_ms'"), std::string::npos)
      << s.error().message;

  StoredSnapshot wrong = Example();
  wrong.nodes.rows[3][8] = std::string("fast");
  s = store->AddSnapshot(*run, wrong);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("node row 4: column 'avg_ms' must hold a number or nothing"),
            std::string::npos)
      << s.error().message;
  EXPECT_TRUE(store->ReadRuns()->at(0).snapshots.empty());
}

TEST(SqliteStore, RunsAreFinishedOnceAndOnlyKnownRunsTakeSnapshots) {
  TempDir dir;
  auto store = Open(dir / "runs.db");
  Result<int64_t> run = store->BeginRun({"one", "", ""});
  ASSERT_TRUE(store->FinishRun(*run));
  Status again = store->FinishRun(*run);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().message, "finishing run 1: no such unfinished run");
  Status late = store->AddSnapshot(*run, Example());
  ASSERT_FALSE(late);
  EXPECT_NE(late.error().message.find("run 1 is already finished"), std::string::npos);
  Status unknown = store->AddSnapshot(42, Example());
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("run 42 is not in the history"), std::string::npos);
}

TEST(SqliteStore, ADatabaseOfANewerSchemaIsRefused) {
  TempDir dir;
  const std::string path = dir / "runs.db";
  ASSERT_TRUE(Open(path));
  Sql(path, "UPDATE meta SET value = '4' WHERE key = 'schema_version'");
  const std::string want = path +
                           ": was written by a newer cookgraph (history schema version 4; this "
                           "cookgraph knows versions up to 3): use that cookgraph or a newer one";
  EXPECT_EQ(OpenError(path), want);
  EXPECT_EQ(OpenError(path, StoreAccess::kRead), want);
  EXPECT_EQ(Sql(path, "SELECT value FROM meta WHERE key = 'schema_version'"), "4");  // untouched
}

// Version 1 had no latency columns, nor version 2 the inclusive time: a
// database written then is upgraded when a run is stored, and its old rows
// read back with those columns empty.
TEST(SqliteStore, AVersion1DatabaseIsUpgradedWhenARunIsStored) {
  TempDir dir;
  const std::string path = dir / "runs.db";
  {
    auto store = Open(path);
    Result<int64_t> run = store->BeginRun({"old", "", "0.1.0"});
    ASSERT_TRUE(store->AddSnapshot(*run, Example()));
    ASSERT_TRUE(store->FinishRun(*run));
  }
  // What version 1 wrote: the same tables without the latency and inclusive columns.
  for (const char* c : {"latency_avg_ms", "latency_std_ms", "latency_max_ms", "inclusive_avg_ms"}) {
    Sql(path, std::string("ALTER TABLE nodes DROP COLUMN \"") + c + "\"");
  }
  Sql(path, "UPDATE meta SET value = '1' WHERE key = 'schema_version'");
  EXPECT_EQ(OpenError(path, StoreAccess::kRead),
            path + ": has history schema version 1, older than this cookgraph's 3: storing a run "
                   "in it (`cookgraph score INPUT --store DB`) upgrades it");

  auto store = Open(path);
  ASSERT_TRUE(store);
  EXPECT_EQ(Sql(path, "SELECT value FROM meta WHERE key = 'schema_version'"), "3");
  StoredSnapshot gst = Example("gstreamer_pipeline");
  Result<int64_t> run = store->BeginRun({"new", "", "0.2.0"});
  ASSERT_TRUE(store->AddSnapshot(*run, gst));
  ASSERT_TRUE(store->FinishRun(*run));
  Result<std::vector<StoredRun>> runs = store->ReadRuns();
  ASSERT_TRUE(runs) << runs.error().Format();
  ASSERT_EQ(runs->size(), 2u);
  const ScoreTable& old_nodes = runs->at(0).snapshots.at(0).nodes;
  const auto column = [&](const ScoreTable& t, const std::string& name) {
    return static_cast<size_t>(std::find(t.columns.begin(), t.columns.end(), name) -
                               t.columns.begin());
  };
  const size_t latency = column(old_nodes, "latency_avg_ms");
  ASSERT_LT(latency, old_nodes.columns.size());
  for (const auto& row : old_nodes.rows) {
    EXPECT_TRUE(std::holds_alternative<std::monostate>(row[latency]));
  }
  EXPECT_EQ(runs->at(1).snapshots.at(0).nodes.rows, gst.nodes.rows);
}

TEST(SqliteStore, AnotherSqliteDatabaseIsRefusedAndLeftAlone) {
  TempDir dir;
  const std::string path = dir / "other.db";
  Sql(path, "CREATE TABLE customers (id INTEGER)");
  EXPECT_EQ(OpenError(path), path +
                                 ": holds tables that are not a cookgraph history; give --store a "
                                 "new file (or, for PostgreSQL, a database whose schema "
                                 "'cookgraph' is cookgraph's)");
  EXPECT_EQ(Sql(path, "SELECT count(*) FROM sqlite_master"), "1");
}

TEST(SqliteStore, AFileThatIsNotSqliteIsRefusedAndLeftAlone) {
  TempDir dir;
  const std::string path = dir / "notes.txt";
  std::ofstream(path) << "these are notes, not a database; they are long enough to have a header\n";
  const std::string error = OpenError(path);
  EXPECT_EQ(
      error,
      path + ": is not an SQLite database, so not a cookgraph history (file is not a database)");
  EXPECT_EQ(OpenError(path, StoreAccess::kRead), error);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.substr(0, 10), "these are ");
}

TEST(SqliteStore, ReadingNeedsAnExistingHistory) {
  TempDir dir;
  EXPECT_EQ(OpenError(dir / "missing.db", StoreAccess::kRead),
            dir / "missing.db" +
                ": no such file; store runs first with `cookgraph score INPUT --store " +
                (dir / "missing.db") + "`");
  EXPECT_FALSE(std::filesystem::exists(dir / "missing.db"));
  std::ofstream(dir / "empty.db").flush();
  EXPECT_EQ(OpenError(dir / "empty.db", StoreAccess::kRead),
            dir / "empty.db" +
                ": holds no history yet; store runs first with `cookgraph score INPUT --store DB`");
  EXPECT_EQ(OpenError(dir.path(), StoreAccess::kRead),
            dir.path() + ": is a folder, not a history database");
}

TEST(SqliteStore, AReaderDoesNotWrite) {
  TempDir dir;
  const std::string path = dir / "runs.db";
  { ASSERT_TRUE(Open(path)); }
  auto reader = Open(path, StoreAccess::kRead);
  ASSERT_TRUE(reader);
  Result<int64_t> run = reader->BeginRun({});
  ASSERT_FALSE(run);
  EXPECT_NE(run.error().message.find("starting a run: cannot write the file"), std::string::npos)
      << run.error().message;
}

TEST(SqliteStore, TwoConnectionsWritingAtOnceLoseNothing) {
  TempDir dir;
  const std::string path = dir / "runs.db";
  const StoredSnapshot snapshot = Example("gstreamer_pipeline");
  auto writer = [&](int id, std::vector<std::string>& errors) {
    auto store = Open(path);
    if (!store) return errors.push_back("open");
    for (int i = 0; i < 10; ++i) {
      Result<int64_t> run =
          store->BeginRun({"w" + std::to_string(id) + "-" + std::to_string(i), "", ""});
      if (!run) return errors.push_back(run.error().Format());
      for (int k = 0; k < 3; ++k) {
        if (Status s = store->AddSnapshot(*run, snapshot); !s)
          return errors.push_back(s.error().Format());
      }
      if (Status s = store->FinishRun(*run); !s) return errors.push_back(s.error().Format());
    }
  };
  std::vector<std::string> errors_a, errors_b;
  std::thread a(writer, 1, std::ref(errors_a));
  std::thread b(writer, 2, std::ref(errors_b));
  a.join();
  b.join();
  EXPECT_TRUE(errors_a.empty()) << errors_a.front();
  EXPECT_TRUE(errors_b.empty()) << errors_b.front();
  EXPECT_EQ(Sql(path, "SELECT count(*) FROM runs WHERE finished_at IS NOT NULL"), "20");
  EXPECT_EQ(Sql(path, "SELECT count(*) FROM snapshots"), "60");
  EXPECT_EQ(Sql(path, "SELECT count(*) FROM nodes"),
            std::to_string(60 * snapshot.nodes.rows.size()));
  EXPECT_EQ(Sql(path, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(Sql(path, "PRAGMA foreign_key_check"), "");
}

TEST(StoreTarget, PasswordsNeverShow) {
  EXPECT_TRUE(IsPostgresTarget("postgresql://h/db"));
  EXPECT_TRUE(IsPostgresTarget("POSTGRES://h/db"));
  EXPECT_FALSE(IsPostgresTarget("runs.db"));
  EXPECT_FALSE(IsPostgresTarget("postgresql.db"));
  EXPECT_EQ(DisplayTarget("runs.db"), "runs.db");
  EXPECT_EQ(DisplayTarget("postgresql://ci:s3cret@db.example:5432/perf"),
            "postgresql://ci:***@db.example:5432/perf");
  EXPECT_EQ(DisplayTarget("postgresql://ci@db.example/perf?sslmode=require&password=s3cret"),
            "postgresql://ci@db.example/perf?sslmode=require&password=***");
  EXPECT_EQ(DisplayTarget("postgresql:///perf?host=/tmp/pg"), "postgresql:///perf?host=/tmp/pg");
}

TEST(StoreTarget, AFailedConnectionNamesTheServerWithoutItsPassword) {
  // Port 1 on the loopback: nothing listens there, so the connection is refused at once.
  Result<std::unique_ptr<RunStore>> store =
      OpenRunStore("postgresql://ci:p%40ss@127.0.0.1:1/perf?connect_timeout=2");
  ASSERT_FALSE(store);
  const std::string text = store.error().Format();
  EXPECT_EQ(
      text.rfind("postgresql://ci:***@127.0.0.1:1/perf?connect_timeout=2: cannot connect: ", 0), 0u)
      << text;
  EXPECT_EQ(text.find("p%40ss"), std::string::npos);
  EXPECT_EQ(text.find("p@ss"), std::string::npos);
  EXPECT_EQ(text.find_first_of("\n\t"), std::string::npos);
}

}  // namespace
}  // namespace cookgraph
