#ifndef COOKGRAPH_ADAPTERS_INPUT_LIMITS_H_
#define COOKGRAPH_ADAPTERS_INPUT_LIMITS_H_

// Bounds on what one input may hold, so that hostile or broken input ends in
// one clear error instead of exhausted memory, a stack overflow or a hang.
// Every reader checks them as it goes (before it buffers or allocates what
// the limit is about), and every error names the limit, its value and the
// option that raises it. The defaults never refuse a real input: they sit far
// above the largest cases docs/performance.md#memory-and-speed supports (a 10 GB trace,
// 100k-node snapshots of 600 frames, 1M-node networks).

#include <cstdint>
#include <string>
#include <string_view>

#include "base/error.h"

namespace cookgraph {

/// The limits a reader applies to one input (one file, or a GStreamer dump
/// and its log). Plain values; the defaults live here and nowhere else.
struct InputLimits {
  /// Bytes read from one file after decompression: a gzip bomb stops here.
  uint64_t input_size = uint64_t{64} << 30;  // 64 GiB
  /// Arrays and objects (JSON, YAML) open at once, and subgraphs in a .dot dump.
  uint64_t depth = 256;
  /// Nodes of one network: native nodes, distinct Chrome-trace operators,
  /// GStreamer elements (of the dump and of the log).
  uint64_t nodes = 10'000'000;
  /// Bytes of one name: node ids, types, families, parents, object keys,
  /// the ids an edge or a series names, event names, categories, threads,
  /// flow ids, GStreamer element and pad names. Keys are refused as soon as
  /// they pass it, before they are buffered whole.
  uint64_t name_length = uint64_t{64} << 10;  // 64 KiB
  /// Bytes of any other single value held whole: a string value (params,
  /// args), a number, a YAML scalar, a captured Chrome-trace arg.
  uint64_t string_length = uint64_t{16} << 20;  // 16 MiB
  /// frames × nodes of the sample table of a Chrome trace or a GStreamer
  /// recording, where a node that did not run in a frame still takes a slot
  /// (native snapshots hold only the values they spell out: input-size bounds
  /// them). 8 bytes a slot per metric.
  uint64_t samples = 100'000'000;
  /// Bytes of a GStreamer .dot dump, which is parsed whole in memory (real
  /// dumps are kilobytes to a few megabytes).
  uint64_t dot_size = uint64_t{64} << 20;  // 64 MiB
};

/// The names of the limits as `--limit` spells them, in a line for messages:
/// "input-size, depth, nodes, name-length, string-length, samples, dot-size".
std::string_view LimitNames();

/// Every limit as `--limit` takes it: "input-size=64G depth=256 ...".
std::string SpellLimits(const InputLimits& limits);

/// Sets one limit from `KEY=VALUE` (the argument of `--limit`). Sizes
/// (input-size, name-length, string-length, dot-size) take a number of bytes
/// with an optional binary suffix K, M, G or T (KiB, MiB, ... also spelled
/// so); counts (depth, nodes, samples) a whole number. Every value is >= 1.
/// The error says what was wrong, for a usage message.
Status SetLimit(InputLimits& limits, std::string_view key_equals_value);

/// The message of an input that passed `limit` (&InputLimits::depth, ...):
/// `what` happened ("arrays and objects nest deeper than"), the limit's value,
/// and how to raise it: "arrays and objects nest deeper than the depth limit of
/// 256; if the input is genuine, raise it with --limit depth=1024".
std::string LimitMessage(const InputLimits& limits, uint64_t InputLimits::*limit,
                         std::string_view what);

/// LimitMessage for a name past name-length: "`what` is N bytes long, longer
/// than the name-length limit of ...".
std::string NameTooLong(const InputLimits& limits, std::string_view what, uint64_t bytes);

/// A size as messages show it: "64 GiB", "16 MiB", "1000 bytes".
std::string ShowSize(uint64_t bytes);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADAPTERS_INPUT_LIMITS_H_
