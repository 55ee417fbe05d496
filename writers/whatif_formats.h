#ifndef COOKGRAPH_WRITERS_WHATIF_FORMATS_H_
#define COOKGRAPH_WRITERS_WHATIF_FORMATS_H_

// Output of `cookgraph whatif` (docs/commands.md#cookgraph-whatif): the predicted frame
// time if nodes cooked faster, as a table, JSON or Markdown.

#include <cstddef>
#include <span>
#include <string>

#include "base/json_writer.h"
#include "model/snapshot.h"
#include "metrics/whatif.h"

namespace cookgraph {

enum class WhatIfFormat : uint8_t { kTable, kJson, kMarkdown };

/// With `changes` empty: every node that cooked and works, halved and
/// removed, the `top` largest savings (0 = all); with changes: their
/// prediction together and each alone. `file` is the input as given.
/// The JSON document of RenderWhatIf (`--format json`), written to `w`;
/// without `series`, the per-frame series of a prediction are left out (the
/// `whatif` tool's cut to fit its budget).
void WriteWhatIf(JsonWriter& w, const std::string& file, const Snapshot& snapshot,
                 const WhatIf& whatif, std::span<const WhatIfChange> changes, size_t top,
                 bool series = true);

std::string RenderWhatIf(WhatIfFormat format, const std::string& file, const Snapshot& snapshot,
                         const WhatIf& whatif, std::span<const WhatIfChange> changes, size_t top);

}  // namespace cookgraph

#endif  // COOKGRAPH_WRITERS_WHATIF_FORMATS_H_
