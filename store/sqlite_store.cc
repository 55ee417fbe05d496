#include "store/sqlite_store.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string_view>
#include <thread>
#include <utility>

#include "store/run_builder.h"
#include "store/schema.h"

// SQLite keeps the history in one file (docs/commands.md#history-of-runs):
// write-ahead logging, so that `history` reads while `score --store` writes;
// every write in a BEGIN IMMEDIATE transaction, which takes the write lock at
// once (a deferred one that reads first can fail with SQLITE_BUSY_SNAPSHOT,
// which the busy handler does not retry, when another writer commits in
// between); a busy timeout, so that two writers take turns; synchronous=FULL,
// so that a committed snapshot survives a power cut too; and foreign keys on,
// so that no node row outlives its snapshot.

namespace cookgraph {
namespace {

using store_schema::Column;
using store_schema::Dialect;
using store_schema::Kind;

// A prepared statement, finalized when it goes out of scope.
class Statement {
 public:
  Statement() = default;
  explicit Statement(sqlite3_stmt* s) : s_(s) {}
  Statement(Statement&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Statement& operator=(Statement&& o) noexcept {
    std::swap(s_, o.s_);
    return *this;
  }
  ~Statement() { sqlite3_finalize(s_); }
  sqlite3_stmt* get() const { return s_; }

 private:
  sqlite3_stmt* s_ = nullptr;
};

void BindCell(sqlite3_stmt* s, int index, const ScoreValue& v) {
  if (const std::string* text = std::get_if<std::string>(&v)) {
    sqlite3_bind_text(s, index, text->data(), static_cast<int>(text->size()), SQLITE_STATIC);
  } else if (const double* d = std::get_if<double>(&v)) {
    sqlite3_bind_double(s, index, *d);
  } else if (const uint64_t* u = std::get_if<uint64_t>(&v)) {
    sqlite3_bind_int64(s, index, static_cast<sqlite3_int64>(*u));  // at most INT64_MAX (NodeCells)
  } else if (const int64_t* i = std::get_if<int64_t>(&v)) {
    sqlite3_bind_int64(s, index, *i);
  } else if (const bool* b = std::get_if<bool>(&v)) {
    sqlite3_bind_int(s, index, *b ? 1 : 0);
  } else {
    sqlite3_bind_null(s, index);
  }
}

std::string ColumnText(sqlite3_stmt* s, int index) {
  const unsigned char* text = sqlite3_column_text(s, index);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(s, index)));
}

ScoreValue ColumnCell(sqlite3_stmt* s, int index, Kind kind) {
  if (sqlite3_column_type(s, index) == SQLITE_NULL) return {};
  switch (kind) {
    case Kind::kText:
      return ColumnText(s, index);
    case Kind::kReal:
      return sqlite3_column_double(s, index);
    case Kind::kCount:
      return static_cast<uint64_t>(sqlite3_column_int64(s, index));
    case Kind::kFlag:
      return sqlite3_column_int(s, index) != 0;
  }
  return {};
}

// The cells of `columns` from the row of `s`, starting at column `first`.
std::vector<ScoreValue> ColumnCells(sqlite3_stmt* s, int first, std::span<const Column> columns) {
  std::vector<ScoreValue> cells;
  cells.reserve(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) {
    cells.push_back(ColumnCell(s, first + static_cast<int>(c), columns[c].kind));
  }
  return cells;
}

std::string Placeholders(size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += i ? ", ?" : "?";
  return out;
}

// `path` as an SQLite URI filename (file:...), every byte but the unreserved
// ones and '/' percent-encoded, so that '?', '#' and '%' in a name stay the name.
std::string FileUri(const std::string& path) {
  std::string uri = path.starts_with('/') ? "file://" : "file:";
  for (const unsigned char c : path) {
    if (std::isalnum(c) != 0 || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      uri += static_cast<char>(c);
    } else {
      uri += fmt::format("%{:02X}", c);
    }
  }
  return uri;
}

// What tells a file's contents changed: its size and modification time.
std::optional<std::pair<uintmax_t, std::filesystem::file_time_type>> FileStamp(
    const std::string& path) {
  std::error_code size_ec, time_ec;
  const uintmax_t size = std::filesystem::file_size(path, size_ec);
  const auto time = std::filesystem::last_write_time(path, time_ec);
  if (size_ec || time_ec) return std::nullopt;
  return std::make_pair(size, time);
}

// True when `path` + "-wal" holds frames: changes not yet in the database file.
bool WalHoldsChanges(const std::string& path) {
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path + "-wal", ec);
  return !ec && size > 0;
}

class SqliteStore final : public RunStore {
 public:
  // `immutable_uri`: the URI the file was opened by with immutable=1; "" = a
  // normal connection.
  SqliteStore(sqlite3* db, std::string path, std::string immutable_uri = "")
      : db_(db), path_(std::move(path)), immutable_uri_(std::move(immutable_uri)) {}
  ~SqliteStore() override { sqlite3_close_v2(db_); }
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  Status Init(StoreAccess access);
  // The extended result code of the last failure (SQLITE_READONLY_DIRECTORY, ...).
  int failed_code() const { return failed_code_; }
  // True when SQLite opened the file read-only although writing was asked for.
  bool read_only() const { return sqlite3_db_readonly(db_, "main") == 1; }
  void Warn(std::string message) { warnings_.push_back(Message(std::move(message))); }
  Result<int64_t> BeginRun(const RunInfo& info) override;
  Status AddSnapshot(int64_t run, const StoredSnapshot& snapshot) override;
  Status FinishRun(int64_t run) override;
  Result<std::vector<StoredRun>> ReadRuns() override;

 private:
  // The error of the last call on db_, saying what was being done.
  Error Fail(std::string_view doing) const;
  Error Message(std::string message) const {
    return Error{.file = path_, .message = std::move(message)};
  }
  Status Exec(const std::string& sql, std::string_view doing);
  Result<Statement> Prepare(const std::string& sql, std::string_view doing);
  // Steps `s` to its end (a statement without rows).
  Status Run(const Statement& s, std::string_view doing);
  Result<store_schema::SchemaState> ReadState();
  Result<std::vector<StoredRun>> ReadRunsOnce();
  Status UseWal();
  // BEGIN IMMEDIATE (a write) or BEGIN (a read); ROLLBACK undoes it.
  Status Begin(bool write) {
    return Exec(write ? "BEGIN IMMEDIATE" : "BEGIN", "starting a transaction");
  }
  Status Commit() { return Exec("COMMIT", "committing"); }
  void Rollback() { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }
  // Runs `body` in a transaction: committed when it succeeds, rolled back otherwise.
  template <typename Body>
  Status InTransaction(bool write, Body&& body) {
    if (Status s = Begin(write); !s) return s;
    Status s = body();
    if (s) s = Commit();
    if (!s) Rollback();
    return s;
  }

  sqlite3* db_;
  std::string path_;
  std::string immutable_uri_;  // opened with immutable=1: SQLite takes no locks
  mutable int failed_code_ = SQLITE_OK;
};

Error SqliteStore::Fail(std::string_view doing) const {
  const int code = sqlite3_errcode(db_);
  failed_code_ = sqlite3_extended_errcode(db_);
  const std::string what = sqlite3_errmsg(db_);
  switch (code) {
    case SQLITE_BUSY:
      return Message(fmt::format("{}: another writer held the database for {} s ({}); try again",
                                 doing, kSqliteBusyTimeoutMs / 1000, what));
    case SQLITE_NOTADB:
      return Message("is not an SQLite database, so not a cookgraph history (" + what + ")");
    case SQLITE_READONLY:
      if (failed_code_ == SQLITE_READONLY_DIRECTORY) {
        return Message(fmt::format(
            "{}: cannot write: no write permission for its folder, where SQLite keeps the "
            "write-ahead log beside it ({}-wal, {}-shm) ({})",
            doing, path_, path_, what));
      }
      return Message(fmt::format("{}: cannot write the file ({})", doing, what));
    default:
      return Message(fmt::format("{}: {}", doing, what));
  }
}

Status SqliteStore::Exec(const std::string& sql, std::string_view doing) {
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) return Fail(doing);
  return {};
}

Result<Statement> SqliteStore::Prepare(const std::string& sql, std::string_view doing) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &s, nullptr) !=
      SQLITE_OK) {
    sqlite3_finalize(s);
    return Fail(doing);
  }
  return Statement(s);
}

Status SqliteStore::Run(const Statement& s, std::string_view doing) {
  int rc = SQLITE_ROW;
  while (rc == SQLITE_ROW) rc = sqlite3_step(s.get());
  if (rc != SQLITE_DONE) return Fail(doing);
  return {};
}

Result<store_schema::SchemaState> SqliteStore::ReadState() {
  store_schema::SchemaState state;
  Result<Statement> tables =
      Prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
              "reading the schema");
  if (!tables) return tables.error();
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(tables->get())) == SQLITE_ROW) {
    state.empty = false;
    if (ColumnText(tables->get(), 0) == "meta") state.has_meta = true;
  }
  if (rc != SQLITE_DONE) return Fail("reading the schema");
  if (!state.has_meta) return state;
  Result<Statement> meta = Prepare("SELECT key, value FROM meta", "reading the meta table");
  if (!meta) return meta.error();
  while ((rc = sqlite3_step(meta->get())) == SQLITE_ROW) {
    state.meta[ColumnText(meta->get(), 0)] = ColumnText(meta->get(), 1);
  }
  if (rc != SQLITE_DONE) return Fail("reading the meta table");
  return state;
}

Status SqliteStore::UseWal() {
  // Persistent: once set, every later connection of every process uses WAL.
  // Switching needs the file to itself, and SQLite answers SQLITE_BUSY at once
  // (without its busy handler) while another connection has it open, as when
  // two writers create a history together: so it is retried here, as long as
  // the busy timeout.
  const char* doing = "switching to write-ahead logging";
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kSqliteBusyTimeoutMs);
  for (const char* sql = "PRAGMA journal_mode";; sql = "PRAGMA journal_mode = WAL") {
    Result<Statement> mode = Prepare(sql, doing);
    if (!mode) return mode.error();
    const int rc = sqlite3_step(mode->get());
    if (rc == SQLITE_ROW && ColumnText(mode->get(), 0) == "wal") return {};
    if (rc == SQLITE_BUSY && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    if (rc != SQLITE_ROW) return Fail(doing);
    if (std::string_view(sql) != "PRAGMA journal_mode") {
      return Message("cannot use write-ahead logging (the journal mode stays '" +
                     ColumnText(mode->get(), 0) + "'); keep the history on a local file system");
    }
  }
}

Status SqliteStore::Init(StoreAccess access) {
  const bool write = access == StoreAccess::kWrite;
  sqlite3_busy_timeout(db_, kSqliteBusyTimeoutMs);
  if (Status s = Exec("PRAGMA foreign_keys = ON", "setting up"); !s) return s;
  if (write) {
    if (Status s = UseWal(); !s) return s;
    if (Status s = Exec("PRAGMA synchronous = FULL", "setting up"); !s) return s;
  }
  return InTransaction(write, [&]() -> Status {
    Result<store_schema::SchemaState> state = ReadState();
    if (!state) return state.error();
    Result<store_schema::SchemaPlan> plan = store_schema::PlanSchema(*state, access);
    if (!plan) return Message(plan.error().message);
    if (plan->action == store_schema::SchemaAction::kUpToDate) return {};
    for (const std::string& sql :
         store_schema::MigrationStatements(Dialect::kSqlite, plan->from_version)) {
      if (Status s = Exec(sql, "creating the history schema"); !s) return s;
    }
    Result<Statement> meta = Prepare(
        "INSERT INTO meta (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        "writing the meta table");
    if (!meta) return meta.error();
    for (const auto& [key, value] : store_schema::MetaRows()) {
      sqlite3_reset(meta->get());
      sqlite3_bind_text(meta->get(), 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
      sqlite3_bind_text(meta->get(), 2, value.data(), static_cast<int>(value.size()),
                        SQLITE_STATIC);
      if (Status s = Run(*meta, "writing the meta table"); !s) return s;
    }
    return {};
  });
}

Result<int64_t> SqliteStore::BeginRun(const RunInfo& info) {
  int64_t id = 0;
  const std::string now = store_schema::UtcNow();
  Status s = InTransaction(true, [&]() -> Status {
    Result<Statement> insert =
        Prepare("INSERT INTO runs (started_at, label, options, version) VALUES (?, ?, ?, ?)",
                "starting a run");
    if (!insert) return insert.error();
    int i = 1;
    for (const std::string* text : {&now, &info.label, &info.options, &info.version}) {
      sqlite3_bind_text(insert->get(), i++, text->data(), static_cast<int>(text->size()),
                        SQLITE_STATIC);
    }
    if (Status r = Run(*insert, "starting a run"); !r) return r;
    id = sqlite3_last_insert_rowid(db_);
    return {};
  });
  if (!s) return s.error();
  return id;
}

Status SqliteStore::AddSnapshot(int64_t run, const StoredSnapshot& snapshot) {
  Result<std::vector<std::vector<ScoreValue>>> nodes = store_schema::NodeCells(snapshot);
  if (!nodes) {
    return Message(fmt::format("cannot store snapshot '{}': {}", snapshot.summary.file,
                               nodes.error().message));
  }
  const std::string doing = fmt::format("storing snapshot '{}'", snapshot.summary.file);
  return InTransaction(true, [&]() -> Status {
    Result<Statement> owner =
        Prepare("SELECT finished_at IS NOT NULL FROM runs WHERE id = ?", doing);
    if (!owner) return owner.error();
    sqlite3_bind_int64(owner->get(), 1, run);
    const int rc = sqlite3_step(owner->get());
    if (rc == SQLITE_DONE)
      return Message(fmt::format("{}: run {} is not in the history", doing, run));
    if (rc != SQLITE_ROW) return Fail(doing);
    if (sqlite3_column_int(owner->get(), 0) != 0) {
      return Message(fmt::format("{}: run {} is already finished", doing, run));
    }

    const auto summary_columns = store_schema::SnapshotColumns();
    Result<Statement> insert =
        Prepare(fmt::format("INSERT INTO snapshots (run_id, {}) VALUES (?, {})",
                            store_schema::QuotedNames(summary_columns),
                            Placeholders(summary_columns.size())),
                doing);
    if (!insert) return insert.error();
    sqlite3_bind_int64(insert->get(), 1, run);
    const std::vector<ScoreValue> cells = store_schema::SummaryCells(snapshot.summary);
    for (size_t c = 0; c < cells.size(); ++c)
      BindCell(insert->get(), static_cast<int>(c) + 2, cells[c]);
    if (Status s = Run(*insert, doing); !s) return s;
    const int64_t snapshot_id = sqlite3_last_insert_rowid(db_);

    const auto node_columns = store_schema::NodeColumns();
    Result<Statement> node = Prepare(
        fmt::format("INSERT INTO nodes (snapshot_id, position, {}) VALUES (?, ?, {})",
                    store_schema::QuotedNames(node_columns), Placeholders(node_columns.size())),
        doing);
    if (!node) return node.error();
    for (size_t r = 0; r < nodes->size(); ++r) {
      sqlite3_reset(node->get());
      sqlite3_bind_int64(node->get(), 1, snapshot_id);
      sqlite3_bind_int64(node->get(), 2, static_cast<sqlite3_int64>(r));
      const std::vector<ScoreValue>& row = (*nodes)[r];
      for (size_t c = 0; c < row.size(); ++c)
        BindCell(node->get(), static_cast<int>(c) + 3, row[c]);
      if (Status s = Run(*node, doing); !s) return s;
    }
    return {};
  });
}

Status SqliteStore::FinishRun(int64_t run) {
  const std::string now = store_schema::UtcNow();
  return InTransaction(true, [&]() -> Status {
    Result<Statement> update = Prepare(
        "UPDATE runs SET finished_at = ? WHERE id = ? AND finished_at IS NULL", "finishing a run");
    if (!update) return update.error();
    sqlite3_bind_text(update->get(), 1, now.data(), static_cast<int>(now.size()), SQLITE_STATIC);
    sqlite3_bind_int64(update->get(), 2, run);
    if (Status s = Run(*update, "finishing a run"); !s) return s;
    if (sqlite3_changes(db_) != 1) {
      return Message(fmt::format("finishing run {}: no such unfinished run", run));
    }
    return {};
  });
}

Result<std::vector<StoredRun>> SqliteStore::ReadRuns() {
  if (immutable_uri_.empty()) return ReadRunsOnce();
  // Without locks, a writer could change the file under the read: it is read
  // again, on a new connection (no page cached from before), when its size or
  // time moved, or a write-ahead log appeared.
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (attempt > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      sqlite3_close_v2(db_);
      db_ = nullptr;
      if (sqlite3_open_v2(immutable_uri_.c_str(), &db_,
                          SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_FULLMUTEX,
                          nullptr) != SQLITE_OK) {
        return Fail("opening it again");
      }
    }
    const auto before = FileStamp(path_);
    Result<std::vector<StoredRun>> runs = ReadRunsOnce();
    if (!before || (before == FileStamp(path_) && !WalHoldsChanges(path_))) return runs;
  }
  return Message(
      "changed three times while it was read without locks (read-only, no write permission "
      "for its folder); try again when no run is being stored");
}

Result<std::vector<StoredRun>> SqliteStore::ReadRunsOnce() {
  std::optional<Result<std::vector<StoredRun>>> runs;
  Status s = InTransaction(false, [&]() -> Status {
    const char* doing = "reading the runs";
    store_schema::RunBuilder builder;
    Result<Statement> select = Prepare(
        "SELECT id, started_at, finished_at, label, options, version FROM runs ORDER BY id", doing);
    if (!select) return select.error();
    int rc = SQLITE_ROW;
    while ((rc = sqlite3_step(select->get())) == SQLITE_ROW) {
      sqlite3_stmt* row = select->get();
      builder.AddRun({.id = sqlite3_column_int64(row, 0),
                      .started_at = ColumnText(row, 1),
                      .finished_at = ColumnText(row, 2),
                      .info = {ColumnText(row, 3), ColumnText(row, 4), ColumnText(row, 5)}});
    }
    if (rc != SQLITE_DONE) return Fail(doing);

    const auto summary_columns = store_schema::SnapshotColumns();
    Result<Statement> snapshots =
        Prepare(fmt::format("SELECT id, run_id, {} FROM snapshots ORDER BY id",
                            store_schema::QuotedNames(summary_columns)),
                doing);
    if (!snapshots) return snapshots.error();
    while ((rc = sqlite3_step(snapshots->get())) == SQLITE_ROW) {
      Status added = builder.AddSnapshot(sqlite3_column_int64(snapshots->get(), 0),
                                         sqlite3_column_int64(snapshots->get(), 1),
                                         ColumnCells(snapshots->get(), 2, summary_columns));
      if (!added) return Message(added.error().message);
    }
    if (rc != SQLITE_DONE) return Fail(doing);

    const auto node_columns = store_schema::NodeColumns();
    Result<Statement> nodes =
        Prepare(fmt::format("SELECT snapshot_id, {} FROM nodes ORDER BY snapshot_id, position",
                            store_schema::QuotedNames(node_columns)),
                doing);
    if (!nodes) return nodes.error();
    while ((rc = sqlite3_step(nodes->get())) == SQLITE_ROW) {
      builder.AddNode(sqlite3_column_int64(nodes->get(), 0),
                      ColumnCells(nodes->get(), 1, node_columns));
    }
    if (rc != SQLITE_DONE) return Fail(doing);
    runs = std::move(builder).Finish();
    return {};
  });
  if (!s) return s.error();
  if (!*runs) return Message(runs->error().message);
  return std::move(**runs);
}

}  // namespace

Result<std::unique_ptr<RunStore>> OpenSqliteStore(const std::string& path, StoreAccess access) {
  int flags = SQLITE_OPEN_FULLMUTEX;
  if (access == StoreAccess::kRead) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(status)) {
      return Error{
          .file = path,
          .message =
              "no such file; store runs first with `cookgraph score INPUT --store " + path + "`"};
    }
    if (std::filesystem::is_directory(status)) {
      return Error{.file = path, .message = "is a folder, not a history database"};
    }
    flags |= SQLITE_OPEN_READONLY;
  } else {
    flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  }
  auto connect = [&](const std::string& name, int with,
                     bool immutable) -> Result<std::unique_ptr<SqliteStore>> {
    sqlite3* db = nullptr;
    const int rc = sqlite3_open_v2(name.c_str(), &db, with, nullptr);
    if (rc != SQLITE_OK) {
      std::string what = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
      sqlite3_close_v2(db);
      return Error{.file = path, .message = "cannot open the history database (" + what + ")"};
    }
    return std::make_unique<SqliteStore>(db, path, immutable ? name : "");
  };
  Result<std::unique_ptr<SqliteStore>> store = connect(path, flags, false);
  if (!store) return store.error();
  if (access == StoreAccess::kWrite && (*store)->read_only()) {
    return Error{.file = path,
                 .message = "cannot store runs here: no write permission for the file (SQLite "
                            "opened it read-only); `cookgraph history` can still read it"};
  }
  Status init = (*store)->Init(access);
  // A WAL database whose folder the reader may not write: SQLite cannot make
  // the shared-memory index (-shm) a reader needs, and says "attempt to write
  // a readonly database". Without a -wal holding changes, the file alone is
  // the whole history: it is read as immutable (no -shm, no locks).
  const int failed = (*store)->failed_code() & 0xff;
  if (!init && access == StoreAccess::kRead &&
      (failed == SQLITE_READONLY || failed == SQLITE_CANTOPEN)) {
    if (WalHoldsChanges(path)) {
      return Error{
          .file = path,
          .message = fmt::format(
              "cannot be read: its write-ahead log {}-wal holds changes not yet in the file, "
              "and SQLite cannot make or use the index {}-shm that reading them takes ({}); "
              "read it as a user who may write its folder, or once the writer has closed it",
              path, path, init.error().message)};
    }
    if (failed != SQLITE_READONLY) return init.error();
    const bool folder = (*store)->failed_code() == SQLITE_READONLY_DIRECTORY;
    store = connect(FileUri(path) + "?immutable=1", flags | SQLITE_OPEN_URI, true);
    if (!store) return store.error();
    init = (*store)->Init(access);
    if (init) {
      (*store)->Warn(fmt::format(
          "opened read-only ({}): read as an unchanging file, without locks",
          folder ? "no write permission for its folder, so SQLite cannot make " + path + "-shm"
                 : "without write permission SQLite cannot use " + path + "-shm"));
    }
  }
  if (!init) return init.error();
  return std::unique_ptr<RunStore>(std::move(*store));
}

}  // namespace cookgraph
