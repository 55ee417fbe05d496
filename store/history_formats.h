#ifndef COOKGRAPH_STORE_HISTORY_FORMATS_H_
#define COOKGRAPH_STORE_HISTORY_FORMATS_H_

// Output of `cookgraph history`: an aligned table, CSV or JSON
// (docs/commands.md#cookgraph-history). Beside the history (not in writers/),
// because writers/ sits below store/ in the layers.

#include <cstdint>
#include <string>

#include "store/history.h"

namespace cookgraph {

enum class HistoryFormat : uint8_t { kTable, kCsv, kJson };

/// `store` is the database as messages show it (DisplayTarget).
std::string RenderHistory(HistoryFormat format, const History& history, const std::string& store);

}  // namespace cookgraph

#endif  // COOKGRAPH_STORE_HISTORY_FORMATS_H_
