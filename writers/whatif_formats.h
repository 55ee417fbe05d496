#ifndef COOKGRAPH_WRITERS_WHATIF_FORMATS_H_
#define COOKGRAPH_WRITERS_WHATIF_FORMATS_H_

// Output of `cookgraph whatif` (docs/commands.md#cookgraph-whatif): the predicted frame
// time if nodes cooked faster, as a table, JSON or Markdown.

#include <cstddef>
#include <span>
#include <nlohmann/json.hpp>
#include <string>

#include "model/snapshot.h"
#include "metrics/whatif.h"

namespace cookgraph {

enum class WhatIfFormat : uint8_t { kTable, kJson, kMarkdown };

/// With `changes` empty: every node that cooked and works, halved and
/// removed, the `top` largest savings (0 = all); with changes: their
/// prediction together and each alone. `file` is the input as given.
/// The JSON document of RenderWhatIf (`--format json`), as a value.
nlohmann::ordered_json WhatIfJson(const std::string& file, const Snapshot& snapshot,
                                  const WhatIf& whatif, std::span<const WhatIfChange> changes,
                                  size_t top);

std::string RenderWhatIf(WhatIfFormat format, const std::string& file, const Snapshot& snapshot,
                         const WhatIf& whatif, std::span<const WhatIfChange> changes, size_t top);

}  // namespace cookgraph

#endif  // COOKGRAPH_WRITERS_WHATIF_FORMATS_H_
