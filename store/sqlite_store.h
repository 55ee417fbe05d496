#ifndef COOKGRAPH_STORE_SQLITE_STORE_H_
#define COOKGRAPH_STORE_SQLITE_STORE_H_

// Internal to store/: the history in an SQLite file, through sqlite3's C API
// (docs/commands.md#history-of-runs).

#include <memory>
#include <string>

#include "store/store.h"

namespace cookgraph {

/// How long a writer waits for another one's transaction before giving up.
inline constexpr int kSqliteBusyTimeoutMs = 60'000;

Result<std::unique_ptr<RunStore>> OpenSqliteStore(const std::string& path, StoreAccess access);

}  // namespace cookgraph

#endif  // COOKGRAPH_STORE_SQLITE_STORE_H_
