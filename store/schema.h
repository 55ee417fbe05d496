#ifndef COOKGRAPH_STORE_SCHEMA_H_
#define COOKGRAPH_STORE_SCHEMA_H_

// Internal to store/: the history's schema, written once for both databases
// (docs/formats.md#the-history-database). The tables' columns, their SQL for
// SQLite and PostgreSQL, the migrations between versions, what to do with a
// database of a given version, and the mapping between the stored rows and
// StoredSnapshot, so that the two backends cannot drift apart.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"
#include "store/store.h"

namespace cookgraph::store_schema {

/// The version this cookgraph writes. A database of a higher version is
/// refused; a lower one is upgraded by MigrationStatements when writing.
inline constexpr int kSchemaVersion = 3;
/// meta's "application" value, which tells a cookgraph history from another database.
inline constexpr std::string_view kApplication = "cookgraph-history";

enum class Dialect : uint8_t { kSqlite, kPostgres };

/// How a column's values are stored and read back (as ScoreValue).
enum class Kind : uint8_t {
  kText,   // std::string; SQL TEXT
  kReal,   // double; SQLite REAL, PostgreSQL DOUBLE PRECISION
  kCount,  // uint64_t; SQLite INTEGER, PostgreSQL BIGINT (at most INT64_MAX)
  kFlag,   // bool; SQLite INTEGER 0/1, PostgreSQL BOOLEAN
};

struct Column {
  std::string_view name;
  Kind kind;
  bool nullable;  // NULL (monostate) allowed
};

/// The columns of `snapshots` after id and run_id: SnapshotSummary's fields.
std::span<const Column> SnapshotColumns();
/// The columns of `nodes` after snapshot_id and position: the node columns of
/// `score --format csv` (writers/score_columns.h), id included.
std::span<const Column> NodeColumns();

/// A table's name as SQL: "runs" in SQLite, "cookgraph.runs" in PostgreSQL
/// (its own schema, so that a team database's other tables are never touched).
std::string Table(Dialect dialect, std::string_view name);
/// `columns`' names, double-quoted and comma-separated.
std::string QuotedNames(std::span<const Column> columns);

/// The statements that take a database from `from_version` (0 = empty) to
/// kSchemaVersion, meta's rows excepted (the caller writes them with the
/// parameters of its driver).
std::vector<std::string> MigrationStatements(Dialect dialect, int from_version);

/// meta's rows as this cookgraph writes them: application and schema_version.
std::vector<std::pair<std::string, std::string>> MetaRows();

/// What a database holds before it is opened.
struct SchemaState {
  bool empty =
      true;  // no table of cookgraph's (SQLite: none at all; PostgreSQL: none in schema cookgraph)
  bool has_meta = false;
  std::map<std::string, std::string> meta;  // key -> value
};
enum class SchemaAction : uint8_t { kCreate, kUpToDate, kUpgrade };
/// The schema version to upgrade from (kUpgrade), or what to do; an error
/// (message only) for a database that is not a cookgraph history, one written
/// by a newer cookgraph, or one that kRead cannot use as it is.
struct SchemaPlan {
  SchemaAction action = SchemaAction::kCreate;
  int from_version = 0;
};
Result<SchemaPlan> PlanSchema(const SchemaState& state, StoreAccess access);

/// SnapshotColumns' values of `s`.
std::vector<ScoreValue> SummaryCells(const SnapshotSummary& s);
/// The inverse of SummaryCells, `cells` in SnapshotColumns' order.
SnapshotSummary SummaryFromCells(std::span<const ScoreValue> cells);

/// The rows of `snapshot.nodes` in NodeColumns' order, each value of the
/// column's kind; an error (message only) for a column the schema does not
/// have or lacks, a value of another kind, or a file/name/engine cell other
/// than the summary's.
Result<std::vector<std::vector<ScoreValue>>> NodeCells(const StoredSnapshot& snapshot);
/// The inverse: the ScoreTable of `score --format csv` (file, name, engine,
/// then NodeColumns) from rows in NodeColumns' order.
ScoreTable NodeTable(const SnapshotSummary& summary, std::vector<std::vector<ScoreValue>> rows);

/// The current time in UTC as StoredRun writes it: "2026-11-27T09:30:00.125Z".
std::string UtcNow();

}  // namespace cookgraph::store_schema

#endif  // COOKGRAPH_STORE_SCHEMA_H_
