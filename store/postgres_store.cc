#include "store/postgres_store.h"

#include <fmt/format.h>
#include <libpq-fe.h>

#include <charconv>
#include <optional>
#include <utility>

#include "base/lazy_library.h"
#include "base/text.h"
#include "store/run_builder.h"
#include "store/schema.h"

// PostgreSQL keeps a team's history (docs/commands.md#history-of-runs), in the
// schema `cookgraph` of the database the URL names, so that a shared database's
// other tables are never touched. Every snapshot is one transaction (its nodes
// sent with COPY); the schema is created or upgraded under a transaction-level
// advisory lock, so that two writers starting at once on an empty database do
// not both create it (CREATE ... IF NOT EXISTS alone races on the catalogs).
// Numbers travel as text in their shortest exact form both ways
// (extra_float_digits = 3), so a stored value reads back bit for bit.

namespace cookgraph {
namespace {

using store_schema::Column;
using store_schema::Dialect;
using store_schema::Kind;

// The advisory lock that serialises schema creation: "cookgrap" in ASCII.
constexpr int64_t kSchemaLock = 0x636F6F6B67726170;
// How long a connection attempt may take, unless the URL says otherwise.
constexpr const char* kConnectTimeoutS = "10";

// libpq's functions, from libpq.so.5 opened on first use (base/lazy_library.h):
// a command that never opens a postgresql:// history does not load libpq and
// the Kerberos, LDAP and TLS libraries it brings. Throws LibraryMissing.
struct PqApi {
  decltype(&PQclear) clear;
  decltype(&PQcmdTuples) cmdTuples;
  decltype(&PQconnectdbParams) connectdbParams;
  decltype(&PQerrorMessage) errorMessage;
  decltype(&PQexec) exec;
  decltype(&PQexecParams) execParams;
  decltype(&PQfinish) finish;
  decltype(&PQgetResult) getResult;
  decltype(&PQgetisnull) getisnull;
  decltype(&PQgetlength) getlength;
  decltype(&PQgetvalue) getvalue;
  decltype(&PQntuples) ntuples;
  decltype(&PQputCopyData) putCopyData;
  decltype(&PQputCopyEnd) putCopyEnd;
  decltype(&PQresultErrorField) resultErrorField;
  decltype(&PQresultStatus) resultStatus;
  decltype(&PQsetNoticeProcessor) setNoticeProcessor;
  decltype(&PQstatus) status;
};
const PqApi& Pq() {
  static const PqApi api = [] {
    static const LazyLibrary library("libpq.so.5", "libpq5");
    PqApi a{};
    library.Load(a.clear, "PQclear");
    library.Load(a.cmdTuples, "PQcmdTuples");
    library.Load(a.connectdbParams, "PQconnectdbParams");
    library.Load(a.errorMessage, "PQerrorMessage");
    library.Load(a.exec, "PQexec");
    library.Load(a.execParams, "PQexecParams");
    library.Load(a.finish, "PQfinish");
    library.Load(a.getResult, "PQgetResult");
    library.Load(a.getisnull, "PQgetisnull");
    library.Load(a.getlength, "PQgetlength");
    library.Load(a.getvalue, "PQgetvalue");
    library.Load(a.ntuples, "PQntuples");
    library.Load(a.putCopyData, "PQputCopyData");
    library.Load(a.putCopyEnd, "PQputCopyEnd");
    library.Load(a.resultErrorField, "PQresultErrorField");
    library.Load(a.resultStatus, "PQresultStatus");
    library.Load(a.setNoticeProcessor, "PQsetNoticeProcessor");
    library.Load(a.status, "PQstatus");
    return a;
  }();
  return api;
}

struct ResultDeleter {
  void operator()(PGresult* r) const { Pq().clear(r); }
};
using PgResult = std::unique_ptr<PGresult, ResultDeleter>;

// libpq's messages end in a newline and may span lines, indented by tabs: one line.
std::string OneLine(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::optional<std::string> CellText(const ScoreValue& v) {
  if (const std::string* s = std::get_if<std::string>(&v)) return *s;
  if (const double* d = std::get_if<double>(&v)) return fmt::format("{}", *d);
  if (const uint64_t* u = std::get_if<uint64_t>(&v)) return std::to_string(*u);
  if (const int64_t* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const bool* b = std::get_if<bool>(&v)) return std::string(*b ? "true" : "false");
  return std::nullopt;
}

ScoreValue ParseCell(const PGresult* r, int row, int column, Kind kind) {
  if (Pq().getisnull(r, row, column)) return {};
  const char* text = Pq().getvalue(r, row, column);
  const std::string_view s(text, static_cast<size_t>(Pq().getlength(r, row, column)));
  switch (kind) {
    case Kind::kText:
      return std::string(s);
    case Kind::kReal: {
      double v = 0;
      std::from_chars(s.data(), s.data() + s.size(), v);
      return v;
    }
    case Kind::kCount: {
      uint64_t v = 0;
      std::from_chars(s.data(), s.data() + s.size(), v);
      return v;
    }
    case Kind::kFlag:
      return s == "t";
  }
  return {};
}

// The cells of `columns` from row `row` of `r`, starting at column `first`.
std::vector<ScoreValue> ParseCells(const PGresult* r, int row, int first,
                                   std::span<const Column> columns) {
  std::vector<ScoreValue> cells;
  cells.reserve(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) {
    cells.push_back(ParseCell(r, row, first + static_cast<int>(c), columns[c].kind));
  }
  return cells;
}

int64_t ParseId(const PGresult* r, int row, int column) {
  int64_t v = 0;
  const char* text = Pq().getvalue(r, row, column);
  std::from_chars(text, text + Pq().getlength(r, row, column), v);
  return v;
}

bool HasNul(const std::vector<ScoreValue>& cells) {
  for (const ScoreValue& v : cells) {
    if (const std::string* s = std::get_if<std::string>(&v);
        s && s->find('\0') != std::string::npos)
      return true;
  }
  return false;
}

// Times as StoredRun has them.
std::string TimeText(std::string_view column) {
  return fmt::format("to_char({} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')", column);
}

class PostgresStore final : public RunStore {
 public:
  PostgresStore(PGconn* conn, std::string url) : conn_(conn), url_(std::move(url)) {}
  ~PostgresStore() override { Pq().finish(conn_); }
  PostgresStore(const PostgresStore&) = delete;
  PostgresStore& operator=(const PostgresStore&) = delete;

  Status Init(StoreAccess access);
  Result<int64_t> BeginRun(const RunInfo& info) override;
  Status AddSnapshot(int64_t run, const StoredSnapshot& snapshot) override;
  Status FinishRun(int64_t run) override;
  Result<std::vector<StoredRun>> ReadRuns() override;

 private:
  Error Message(std::string message) const {
    return Error{.file = DisplayTarget(url_), .message = HidePassword(message, url_)};
  }
  // The error of `r` (or of the connection), saying what was being done.
  Error Fail(std::string_view doing, const PGresult* r) const;
  // Runs `sql` with `params` (text; nullopt = NULL); `expect` is the status of success.
  Result<PgResult> Exec(const std::string& sql, std::string_view doing,
                        const std::vector<std::optional<std::string>>& params = {},
                        ExecStatusType expect = PGRES_COMMAND_OK);
  Result<PgResult> Query(const std::string& sql, std::string_view doing,
                         const std::vector<std::optional<std::string>>& params = {}) {
    return Exec(sql, doing, params, PGRES_TUPLES_OK);
  }
  Status Copy(const std::string& sql, const std::string& data, std::string_view doing);
  Result<store_schema::SchemaState> ReadState();
  template <typename Body>
  Status InTransaction(const char* begin, Body&& body) {
    if (Result<PgResult> r = Exec(begin, "starting a transaction"); !r) return r.error();
    Status s = body();
    if (s) {
      if (Result<PgResult> r = Exec("COMMIT", "committing"); !r) s = r.error();
    }
    if (!s) PgResult(Pq().exec(conn_, "ROLLBACK"));
    return s;
  }

  PGconn* conn_;
  std::string url_;
};

Error PostgresStore::Fail(std::string_view doing, const PGresult* r) const {
  std::string what;
  if (r != nullptr) {
    const char* primary = Pq().resultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
    if (primary != nullptr) what = primary;
    if (const char* detail = Pq().resultErrorField(r, PG_DIAG_MESSAGE_DETAIL))
      what += std::string(" (") + detail + ")";
  }
  if (what.empty()) what = Pq().errorMessage(conn_);
  if (Pq().status(conn_) == CONNECTION_BAD) what = "the connection to the server was lost: " + what;
  return Message(fmt::format("{}: {}", doing, OneLine(what)));
}

Result<PgResult> PostgresStore::Exec(const std::string& sql, std::string_view doing,
                                     const std::vector<std::optional<std::string>>& params,
                                     ExecStatusType expect) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  PgResult r(params.empty() ? Pq().exec(conn_, sql.c_str())
                            : Pq().execParams(conn_, sql.c_str(), static_cast<int>(values.size()),
                                           nullptr, values.data(), nullptr, nullptr, 0));
  if (!r || Pq().resultStatus(r.get()) != expect) return Fail(doing, r.get());
  return r;
}

Status PostgresStore::Copy(const std::string& sql, const std::string& data,
                           std::string_view doing) {
  if (Result<PgResult> r = Exec(sql, doing, {}, PGRES_COPY_IN); !r) return r.error();
  // In pieces of 1 MiB: PQputCopyData takes an int length.
  constexpr size_t kPiece = 1 << 20;
  bool sent = true;
  for (size_t at = 0; at < data.size() && sent; at += kPiece) {
    const size_t n = std::min(kPiece, data.size() - at);
    sent = Pq().putCopyData(conn_, data.data() + at, static_cast<int>(n)) == 1;
  }
  if (Pq().putCopyEnd(conn_, sent ? nullptr : "cookgraph could not send the rows") != 1) sent = false;
  Status status;
  while (PGresult* raw = Pq().getResult(conn_)) {
    PgResult r(raw);
    if (status && Pq().resultStatus(raw) != PGRES_COMMAND_OK) status = Fail(doing, raw);
  }
  if (status && !sent) status = Fail(doing, nullptr);
  return status;
}

Result<store_schema::SchemaState> PostgresStore::ReadState() {
  store_schema::SchemaState state;
  Result<PgResult> tables = Query(
      "SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
      "ON n.oid = c.relnamespace WHERE n.nspname = 'cookgraph' AND c.relkind IN ('r', 'p')",
      "reading the schema");
  if (!tables) return tables.error();
  for (int i = 0; i < Pq().ntuples(tables->get()); ++i) {
    state.empty = false;
    if (std::string_view(Pq().getvalue(tables->get(), i, 0)) == "meta") state.has_meta = true;
  }
  if (!state.has_meta) return state;
  Result<PgResult> meta = Query("SELECT key, value FROM cookgraph.meta", "reading the meta table");
  if (!meta) return meta.error();
  for (int i = 0; i < Pq().ntuples(meta->get()); ++i) {
    state.meta[Pq().getvalue(meta->get(), i, 0)] = Pq().getvalue(meta->get(), i, 1);
  }
  return state;
}

Status PostgresStore::Init(StoreAccess access) {
  const bool write = access == StoreAccess::kWrite;
  if (Result<PgResult> r = Exec("SET extra_float_digits = 3", "setting up"); !r) return r.error();
  const char* begin = write ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY";
  return InTransaction(begin, [&]() -> Status {
    if (write) {
      if (Result<PgResult> r = Query(fmt::format("SELECT pg_advisory_xact_lock({})", kSchemaLock),
                                     "locking the schema");
          !r) {
        return r.error();
      }
    }
    Result<store_schema::SchemaState> state = ReadState();
    if (!state) return state.error();
    Result<store_schema::SchemaPlan> plan = store_schema::PlanSchema(*state, access);
    if (!plan) return Message(plan.error().message);
    if (plan->action == store_schema::SchemaAction::kUpToDate) return {};
    for (const std::string& sql :
         store_schema::MigrationStatements(Dialect::kPostgres, plan->from_version)) {
      if (Result<PgResult> r = Exec(sql, "creating the history schema"); !r) return r.error();
    }
    for (const auto& [key, value] : store_schema::MetaRows()) {
      Result<PgResult> r = Exec(
          "INSERT INTO cookgraph.meta (key, value) VALUES ($1, $2) "
          "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
          "writing the meta table", {key, value});
      if (!r) return r.error();
    }
    return {};
  });
}

Result<int64_t> PostgresStore::BeginRun(const RunInfo& info) {
  if (HasNul({info.label, info.options, info.version})) {
    return Message("starting a run: the label holds a NUL byte, which PostgreSQL cannot store");
  }
  Result<PgResult> r = Query(
      "INSERT INTO cookgraph.runs (started_at, label, options, version) "
      "VALUES ($1::timestamptz, $2, $3, $4) RETURNING id",
      "starting a run", {store_schema::UtcNow(), info.label, info.options, info.version});
  if (!r) return r.error();
  return ParseId(r->get(), 0, 0);
}

Status PostgresStore::AddSnapshot(int64_t run, const StoredSnapshot& snapshot) {
  Result<std::vector<std::vector<ScoreValue>>> nodes = store_schema::NodeCells(snapshot);
  if (!nodes) {
    return Message(fmt::format("cannot store snapshot '{}': {}", snapshot.summary.file,
                               nodes.error().message));
  }
  const std::string doing = fmt::format("storing snapshot '{}'", snapshot.summary.file);
  const std::vector<ScoreValue> cells = store_schema::SummaryCells(snapshot.summary);
  bool nul = HasNul(cells);
  for (const auto& row : *nodes) nul = nul || HasNul(row);
  if (nul) return Message(doing + ": a text holds a NUL byte, which PostgreSQL cannot store");

  return InTransaction("BEGIN", [&]() -> Status {
    Result<PgResult> owner =
        Query("SELECT finished_at IS NOT NULL FROM cookgraph.runs WHERE id = $1", doing,
              {std::to_string(run)});
    if (!owner) return owner.error();
    if (Pq().ntuples(owner->get()) == 0)
      return Message(fmt::format("{}: run {} is not in the history", doing, run));
    if (std::string_view(Pq().getvalue(owner->get(), 0, 0)) == "t") {
      return Message(fmt::format("{}: run {} is already finished", doing, run));
    }
    const auto columns = store_schema::SnapshotColumns();
    std::string placeholders;
    std::vector<std::optional<std::string>> params = {std::to_string(run)};
    for (size_t c = 0; c < columns.size(); ++c) {
      placeholders += fmt::format(", ${}", c + 2);
      params.push_back(CellText(cells[c]));
    }
    Result<PgResult> inserted =
        Query(fmt::format("INSERT INTO cookgraph.snapshots (run_id, {}) VALUES ($1{}) RETURNING id",
                          store_schema::QuotedNames(columns), placeholders),
              doing, params);
    if (!inserted) return inserted.error();
    if (nodes->empty()) return {};
    // The nodes in COPY's text format: tab-separated, \N for NULL.
    const std::string id = Pq().getvalue(inserted->get(), 0, 0);
    std::string data;
    for (size_t r = 0; r < nodes->size(); ++r) {
      data += id;
      data += '\t';
      data += std::to_string(r);
      for (const ScoreValue& v : (*nodes)[r]) {
        data += '\t';
        if (std::optional<std::string> text = CellText(v)) {
          data += EscapeTabField(*text);  // COPY's text format
        } else {
          data += "\\N";
        }
      }
      data += '\n';
    }
    return Copy(fmt::format("COPY cookgraph.nodes (snapshot_id, position, {}) FROM STDIN",
                            store_schema::QuotedNames(store_schema::NodeColumns())),
                data, doing);
  });
}

Status PostgresStore::FinishRun(int64_t run) {
  Result<PgResult> r = Exec(
      "UPDATE cookgraph.runs SET finished_at = $1::timestamptz WHERE id = $2 AND finished_at IS "
      "NULL",
      "finishing a run", {store_schema::UtcNow(), std::to_string(run)});
  if (!r) return r.error();
  if (std::string_view(Pq().cmdTuples(r->get())) != "1") {
    return Message(fmt::format("finishing run {}: no such unfinished run", run));
  }
  return {};
}

Result<std::vector<StoredRun>> PostgresStore::ReadRuns() {
  std::optional<Result<std::vector<StoredRun>>> runs;
  Status s = InTransaction("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", [&]() -> Status {
    const char* doing = "reading the runs";
    store_schema::RunBuilder builder;
    Result<PgResult> selected = Query(
        fmt::format("SELECT id, {}, {}, label, options, version FROM cookgraph.runs ORDER BY id",
                    TimeText("started_at"), TimeText("finished_at")),
        doing);
    if (!selected) return selected.error();
    const PGresult* r = selected->get();
    for (int i = 0; i < Pq().ntuples(r); ++i) {
      builder.AddRun({.id = ParseId(r, i, 0),
                      .started_at = Pq().getvalue(r, i, 1),
                      .finished_at = Pq().getvalue(r, i, 2),  // "" for NULL
                      .info = {Pq().getvalue(r, i, 3), Pq().getvalue(r, i, 4), Pq().getvalue(r, i, 5)}});
    }

    const auto summary_columns = store_schema::SnapshotColumns();
    Result<PgResult> snapshots =
        Query(fmt::format("SELECT id, run_id, {} FROM cookgraph.snapshots ORDER BY id",
                          store_schema::QuotedNames(summary_columns)),
              doing);
    if (!snapshots) return snapshots.error();
    r = snapshots->get();
    for (int i = 0; i < Pq().ntuples(r); ++i) {
      Status added = builder.AddSnapshot(ParseId(r, i, 0), ParseId(r, i, 1),
                                         ParseCells(r, i, 2, summary_columns));
      if (!added) return Message(added.error().message);
    }

    const auto node_columns = store_schema::NodeColumns();
    Result<PgResult> nodes = Query(
        fmt::format("SELECT snapshot_id, {} FROM cookgraph.nodes ORDER BY snapshot_id, position",
                    store_schema::QuotedNames(node_columns)),
        doing);
    if (!nodes) return nodes.error();
    r = nodes->get();
    for (int i = 0; i < Pq().ntuples(r); ++i)
      builder.AddNode(ParseId(r, i, 0), ParseCells(r, i, 1, node_columns));
    runs = std::move(builder).Finish();
    return {};
  });
  if (!s) return s.error();
  if (!*runs) return Message(runs->error().message);
  return std::move(**runs);
}

void IgnoreNotice(void*, const char*) {
}  // the library never prints (CREATE ... IF NOT EXISTS notices)

}  // namespace

Result<std::unique_ptr<RunStore>> OpenPostgresStore(const std::string& url, StoreAccess access) {
  // The URL's own settings win over these defaults (expand_dbname: later
  // keywords override earlier ones, and the URL is expanded in dbname's place).
  const char* keywords[] = {"connect_timeout", "fallback_application_name", "client_encoding",
                            "dbname", nullptr};
  const char* values[] = {kConnectTimeoutS, "cookgraph", "UTF8", url.c_str(), nullptr};
  try {
    Pq();
  } catch (const LibraryMissing& missing) {
    return Error{.file = DisplayTarget(url), .message = missing.what()};
  }
  PGconn* conn = Pq().connectdbParams(keywords, values, 1);
  if (conn == nullptr)
    return Error{.file = DisplayTarget(url), .message = "cannot connect: out of memory"};
  if (Pq().status(conn) != CONNECTION_OK) {
    std::string what = OneLine(Pq().errorMessage(conn));
    Pq().finish(conn);
    return Error{.file = DisplayTarget(url),
                 .message = "cannot connect: " + HidePassword(what, url)};
  }
  Pq().setNoticeProcessor(conn, IgnoreNotice, nullptr);
  auto store = std::make_unique<PostgresStore>(conn, url);
  if (Status s = store->Init(access); !s) return s.error();
  return std::unique_ptr<RunStore>(std::move(store));
}

}  // namespace cookgraph
