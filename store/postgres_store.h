#ifndef COOKGRAPH_STORE_POSTGRES_STORE_H_
#define COOKGRAPH_STORE_POSTGRES_STORE_H_

// Internal to store/: the history in a PostgreSQL database, through libpq's C
// API, in the database's schema `cookgraph` (docs/commands.md#history-of-runs).

#include <memory>
#include <string>

#include "store/store.h"

namespace cookgraph {

/// `url` is a postgresql:// or postgres:// URL as libpq reads it
/// (postgresql://user:password@host:port/database?param=value...).
Result<std::unique_ptr<RunStore>> OpenPostgresStore(const std::string& url, StoreAccess access);

/// `text` with every occurrence of `url`'s password (as written, and
/// percent-decoded) replaced by "***": libpq's messages may quote parts of the
/// URL. In store.cc, beside DisplayTarget, which reads the URL the same way.
std::string HidePassword(const std::string& text, const std::string& url);

}  // namespace cookgraph

#endif  // COOKGRAPH_STORE_POSTGRES_STORE_H_
