// OSC bundles through liblo: the bundle framing ("#bundle", a time tag, then
// size-prefixed elements) is read here; each element is a message that
// liblo's lo_message_deserialise checks and decodes (type tags, padding,
// byte order). Nested bundles are read as part of the same frame.

#include <lo/lo.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "graph/network.h"
#include "live/decode.h"

namespace cookgraph {
namespace {

constexpr std::string_view kBundleTag("#bundle\0", 8);
constexpr size_t kBundleHeader = 16;  // the tag and the 8-byte time tag
constexpr int kMaxNesting = 8;

struct MessageDeleter {
  void operator()(lo_message m) const { lo_message_free(m); }
};
using MessagePtr = std::unique_ptr<std::remove_pointer_t<lo_message>, MessageDeleter>;

uint32_t BigEndian32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
}

// The argument's value as a T. liblo's argv points into the message's data,
// where OSC aligns arguments to 4 bytes only: reading an 8-byte member of the
// lo_arg union there is a misaligned access (UBSan), so the bytes are copied.
template <typename T>
T Load(const lo_arg* arg) {
  T value;
  std::memcpy(&value, arg, sizeof value);
  return value;
}

// A number argument of any OSC numeric type, as a double; nullopt otherwise.
std::optional<double> Number(char type, const lo_arg* arg) {
  switch (type) {
    case LO_FLOAT:
      return Load<float>(arg);
    case LO_DOUBLE:
      return Load<double>(arg);
    case LO_INT32:
      return Load<int32_t>(arg);
    case LO_INT64:
      return static_cast<double>(Load<int64_t>(arg));
    default:
      return std::nullopt;
  }
}

struct Reader {
  FrameRecord record;
  bool has_frame = false;
  size_t message_index = 0;  // 1-based, counted over the whole bundle

  Status Fail(const std::string& message) const {
    // Errors in the bundle's framing come before any message.
    return Error{.where = message_index > 0 ? "message " + std::to_string(message_index) : "",
                 .message = message};
  }

  // A time or count from argument `i`: finite, 0 to kMaxLiveValue.
  Status Value(std::string_view path, const char* types, lo_arg** argv, int i, double& out,
               bool whole = false) const {
    if (types[i] == LO_NIL) {  // a place holder: gpu_ms not given, cooks after it
      out = kMissing;
      return {};
    }
    std::optional<double> v = Number(types[i], argv[i]);
    if (!v) {
      return Fail(std::string(path) + ": argument " + std::to_string(i + 1) +
                  " must be a number (f, d, i or h) or nil (N), got type '" + types[i] + "'");
    }
    if (!std::isfinite(*v) || *v < 0 || *v > kMaxLiveValue || (whole && *v != std::floor(*v))) {
      return Fail(std::string(path) + ": argument " + std::to_string(i + 1) + " out of range: " +
                  std::to_string(*v) + (whole ? " (expected a whole number)" : " (0 to 1e12)"));
    }
    out = *v;
    return {};
  }

  Status Message(const char* data, size_t size) {
    ++message_index;
    int result = 0;
    MessagePtr m(lo_message_deserialise(const_cast<char*>(data), size, &result));
    if (!m) return Fail("malformed OSC message (liblo error " + std::to_string(result) + ")");
    const std::string path = lo_get_path(const_cast<char*>(data), static_cast<ssize_t>(size));
    const char* types = lo_message_get_types(m.get());
    const int argc = lo_message_get_argc(m.get());
    lo_arg** argv = lo_message_get_argv(m.get());
    if (path == "/cookgraph/frame") {
      if (has_frame) return Fail("a second /cookgraph/frame in one bundle");
      if (argc < 1 || argc > 2 || (types[0] != LO_INT32 && types[0] != LO_INT64)) {
        return Fail(
            "/cookgraph/frame takes the frame number (i or h) and optionally the frame "
            "time in ms (f or d); got types '" +
            std::string(types) + "'");
      }
      record.frame = types[0] == LO_INT32 ? Load<int32_t>(argv[0]) : Load<int64_t>(argv[0]);
      if (argc == 2) {
        if (Status s = Value(path, types, argv, 1, record.frame_ms); !s) return s;
      }
      has_frame = true;
      return {};
    }
    if (path == "/cookgraph/cook") {
      if (argc < 2 || argc > 4 || types[0] != LO_STRING) {
        return Fail(
            "/cookgraph/cook takes the node id (s), cook_ms, and optionally gpu_ms and "
            "cooks; got types '" +
            std::string(types) + "'");
      }
      NodeSample sample{.id =
                            reinterpret_cast<const char*>(argv[0])};  // a char array: any alignment
      if (sample.id.empty()) return Fail("/cookgraph/cook: the node id is empty");
      if (ContainerDepth(sample.id) > kMaxContainerDepth) {
        return Fail("/cookgraph/cook: node '" + sample.id + "' nests more than 256 containers");
      }
      static constexpr Metric kOrder[] = {Metric::kCookMs, Metric::kGpuMs, Metric::kCooks};
      for (int i = 1; i < argc; ++i) {
        const Metric metric = kOrder[i - 1];
        double& slot = sample.values[static_cast<size_t>(metric)];
        if (Status s = Value(path, types, argv, i, slot, metric == Metric::kCooks); !s) return s;
      }
      record.nodes.push_back(std::move(sample));
      return {};
    }
    if (path == "/cookgraph/more") {
      record.more = true;
      return {};
    }
    return Fail("unknown address '" + path +
                "' (expected /cookgraph/frame, /cookgraph/cook, /cookgraph/more)");
  }

  Status Bundle(std::string_view bytes, int depth) {
    if (depth > kMaxNesting) return Fail("bundles nested more than 8 deep");
    if (bytes.size() < kBundleHeader || bytes.substr(0, 8) != kBundleTag) {
      return Fail("not an OSC bundle (it must start with \"#bundle\" and a time tag)");
    }
    size_t at = kBundleHeader;
    while (at < bytes.size()) {
      if (bytes.size() - at < 4) return Fail("bundle: a truncated element size");
      const uint32_t size = BigEndian32(bytes.data() + at);
      at += 4;
      if (size == 0 || size % 4 != 0 || size > bytes.size() - at) {
        return Fail("bundle: an element of " + std::to_string(size) + " bytes where " +
                    std::to_string(bytes.size() - at) + " are left (sizes are multiples of 4)");
      }
      std::string_view element = bytes.substr(at, size);
      at += size;
      Status s =
          element[0] == '#' ? Bundle(element, depth + 1) : Message(element.data(), element.size());
      if (!s) return s;
    }
    return {};
  }
};

}  // namespace

Status DecodeOscBundle(std::string_view datagram, std::vector<FrameRecord>& out) {
  Reader reader;
  if (Status s = reader.Bundle(datagram, 0); !s) return s;
  if (!reader.has_frame) {
    return Error{.message =
                     "an OSC bundle without /cookgraph/frame (the frame number comes first)"};
  }
  out.push_back(std::move(reader.record));
  return {};
}

}  // namespace cookgraph
