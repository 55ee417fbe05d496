// live_send: streams seeded per-frame cook metrics to `cookgraph watch` over
// UDP, as JSON lines or as OSC bundles built with liblo, at a fixed rate. It
// knows nothing of cookgraph's code: the receiving side is checked against
// what this program says it sent (--log).
//
//   live_send --to 127.0.0.1:PORT --form json|osc --frames N --rate FPS
//             [--nodes K] [--seed S] [--first F] [--frame-ms] [--split K]
//             [--spike FRAME:NODE:MS]... [--skip FRAME]... [--garbage FRAME]...
//             [--log FILE]
//
// Frame numbers run from --first; --skip leaves a frame number out (a lost
// frame), --garbage sends a malformed datagram before that frame (in JSON the
// second, fourth, ... a number too large for a double), --spike sets
// a node's cook time in one frame, --split sends each frame in parts of K
// nodes (all but the last marked "more"). --log writes one JSON line per frame
// sent, holding the values exactly as the receiver decodes them (OSC floats
// are 32-bit, so the log holds the float's value).

#include <arpa/inet.h>
#include <lo/lo.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

// OSC's "immediately" time tag (sec 0, frac 1): liblo's LO_TT_IMMEDIATE is a
// C compound literal, which C++ does not have (clang: -Wc99-extensions).
lo_timetag Immediately() {
  lo_timetag t;
  t.sec = 0;
  t.frac = 1;
  return t;
}

struct Options {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string form = "json";
  long frames = 100;
  double rate = 600;
  int nodes = 12;
  unsigned long seed = 7;
  long first = 1000;
  bool frame_ms = false;
  int split = 0;
  std::map<long, std::pair<int, double>> spikes;  // frame -> (node, ms)
  std::set<long> skip, garbage;
  std::string log;
};

[[noreturn]] void Usage(const char* message) {
  std::fprintf(stderr, "live_send: %s\n", message);
  std::exit(2);
}

std::string Shortest(double v) {
  char text[64];
  auto [end, ec] = std::to_chars(text, text + sizeof text, v);
  return std::string(text, end);
}

void AppendJsonString(std::string& out, const std::string& s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", c);
      out += esc;
    } else {
      out += c;
    }
  }
  out += '"';
}

struct Cook {
  int node;
  double cook_ms, gpu_ms;  // gpu_ms NaN = not sent
  int cooks;
};

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) Usage(("missing value after " + a).c_str());
      return argv[++i];
    };
    if (a == "--to") {
      std::string to = next();
      size_t colon = to.rfind(':');
      if (colon == std::string::npos) Usage("--to HOST:PORT");
      o.host = to.substr(0, colon);
      o.port = std::atoi(to.c_str() + colon + 1);
    } else if (a == "--form") {
      o.form = next();
      if (o.form != "json" && o.form != "osc") Usage("--form json|osc");
    } else if (a == "--frames") {
      o.frames = std::atol(next().c_str());
    } else if (a == "--rate") {
      o.rate = std::atof(next().c_str());
    } else if (a == "--nodes") {
      o.nodes = std::atoi(next().c_str());
    } else if (a == "--seed") {
      o.seed = std::strtoul(next().c_str(), nullptr, 10);
    } else if (a == "--first") {
      o.first = std::atol(next().c_str());
    } else if (a == "--frame-ms") {
      o.frame_ms = true;
    } else if (a == "--split") {
      o.split = std::atoi(next().c_str());
    } else if (a == "--spike") {
      long frame = 0;
      int node = 0;
      double ms = 0;
      if (std::sscanf(next().c_str(), "%ld:%d:%lf", &frame, &node, &ms) != 3) {
        Usage("--spike FRAME:NODE:MS");
      }
      o.spikes[frame] = {node, ms};
    } else if (a == "--skip") {
      o.skip.insert(std::atol(next().c_str()));
    } else if (a == "--garbage") {
      o.garbage.insert(std::atol(next().c_str()));
    } else if (a == "--log") {
      o.log = next();
    } else {
      Usage(("unknown argument " + a).c_str());
    }
  }
  if (o.port <= 0) Usage("--to HOST:PORT is required");
  return o;
}

// Node ids: a TouchDesigner-like path each, one with a quote and a non-ASCII
// letter so that both forms carry any UTF-8 id.
std::vector<std::string> NodeIds(int count) {
  std::vector<std::string> ids;
  for (int i = 0; i < count; ++i) {
    char id[64];
    std::snprintf(id, sizeof id, "/project1/op_%03d", i);
    ids.push_back(i == 1 ? "/project1/\"glsl\" caf\xc3\xa9" : id);
  }
  return ids;
}

std::string JsonFrame(const std::vector<std::string>& ids, long frame, double frame_ms,
                      const std::vector<Cook>& cooks, bool more) {
  std::string out = "{\"frame\": " + std::to_string(frame);
  if (!std::isnan(frame_ms)) out += ", \"frame_ms\": " + Shortest(frame_ms);
  if (more) out += ", \"more\": true";
  out += ", \"nodes\": {";
  for (size_t i = 0; i < cooks.size(); ++i) {
    const Cook& c = cooks[i];
    if (i > 0) out += ", ";
    AppendJsonString(out, ids[c.node]);
    out += ": ";
    if (std::isnan(c.gpu_ms) && c.cooks == 1 && c.node % 2 == 0) {
      out += Shortest(c.cook_ms);  // the short form: cook_ms only
    } else {
      out += "{\"cook_ms\": " + Shortest(c.cook_ms);
      if (!std::isnan(c.gpu_ms)) out += ", \"gpu_ms\": " + Shortest(c.gpu_ms);
      out += ", \"cooks\": " + std::to_string(c.cooks) + "}";
    }
  }
  out += "}}";
  return out;
}

std::string OscFrame(const std::vector<std::string>& ids, long frame, double frame_ms,
                     const std::vector<Cook>& cooks, bool more) {
  lo_bundle bundle = lo_bundle_new(Immediately());
  lo_message head = lo_message_new();
  lo_message_add_int32(head, static_cast<int32_t>(frame));
  if (!std::isnan(frame_ms)) lo_message_add_float(head, static_cast<float>(frame_ms));
  lo_bundle_add_message(bundle, "/cookgraph/frame", head);
  for (const Cook& c : cooks) {
    lo_message m = lo_message_new();
    lo_message_add_string(m, ids[c.node].c_str());
    lo_message_add_float(m, static_cast<float>(c.cook_ms));
    if (!std::isnan(c.gpu_ms) || c.cooks != 1) {
      if (std::isnan(c.gpu_ms)) {
        lo_message_add_nil(m);  // no GPU time, but a cook count follows
      } else {
        lo_message_add_float(m, static_cast<float>(c.gpu_ms));
      }
      lo_message_add_int32(m, c.cooks);
    }
    lo_bundle_add_message(bundle, "/cookgraph/cook", m);
  }
  if (more) lo_bundle_add_message(bundle, "/cookgraph/more", lo_message_new());
  size_t size = 0;
  void* data = lo_bundle_serialise(bundle, nullptr, &size);
  std::string out(static_cast<char*>(data), size);
  std::free(data);
  lo_bundle_free_recursive(bundle);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = Parse(argc, argv);
  const bool osc = o.form == "osc";
  std::vector<std::string> ids = NodeIds(o.nodes);
  std::mt19937_64 random(o.seed);
  std::uniform_real_distribution<double> noise(0.8, 1.2);

  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(o.port));
  if (inet_pton(AF_INET, o.host.c_str(), &to.sin_addr) != 1) Usage("--to: an IPv4 address");
  std::FILE* log = o.log.empty() ? nullptr : std::fopen(o.log.c_str(), "w");
  if (!o.log.empty() && log == nullptr) Usage("cannot write --log");

  auto send = [&](const std::string& datagram) {
    if (sendto(fd, datagram.data(), datagram.size(), 0, reinterpret_cast<sockaddr*>(&to),
               sizeof to) != static_cast<ssize_t>(datagram.size())) {
      std::perror("live_send: sendto");
      std::exit(1);
    }
  };
  // As the receiver will read it: OSC carries 32-bit floats.
  auto wire = [&](double v) { return osc ? static_cast<double>(static_cast<float>(v)) : v; };

  timespec next{};
  clock_gettime(CLOCK_MONOTONIC, &next);
  timespec begin = next;
  const long period_ns = o.rate > 0 ? static_cast<long>(1e9 / o.rate) : 0;
  long sent = 0;
  for (long f = o.first; f < o.first + o.frames; ++f) {
    // Every frame draws its random numbers, sent or not, so that --skip changes nothing else.
    std::vector<Cook> cooks;
    for (int n = 0; n < o.nodes; ++n) {
      const double base = 0.05 + 0.1 * n;
      const double r = noise(random);
      if (n % 5 == 4 && (f % 3) == 0) continue;  // some nodes skip frames: "did not cook"
      Cook c{n, wire(base * r), NAN, 1};
      if (n % 3 == 0) c.gpu_ms = wire(base * r * 0.5);
      if (n % 4 == 1) c.cooks = 1 + static_cast<int>(f % 2);
      cooks.push_back(c);
    }
    if (auto spike = o.spikes.find(f); spike != o.spikes.end()) {
      for (Cook& c : cooks) {
        if (c.node == spike->second.first) c.cook_ms = wire(spike->second.second);
      }
    }
    double frame_ms = NAN;
    if (o.frame_ms) {
      frame_ms = 0.5;
      for (const Cook& c : cooks) frame_ms += c.cook_ms;
      frame_ms = wire(frame_ms);
    }
    if (o.skip.count(f)) continue;
    if (period_ns > 0) {
      clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr);
      next.tv_nsec += period_ns;
      while (next.tv_nsec >= 1000000000L) {
        next.tv_nsec -= 1000000000L;
        ++next.tv_sec;
      }
    }
    // Garbage: a cut OSC bundle; in JSON, alternately a syntax error and a
    // number too large for a double (which once ended the watch).
    if (o.garbage.count(f)) {
      const bool overflow = std::distance(o.garbage.begin(), o.garbage.find(f)) % 2 == 1;
      send(osc        ? std::string("#bundle\0\0\0", 11)
           : overflow ? "{\"frame\": 1e999, \"nodes\": {}}"
                      : "{\"frame\": oops}");
    }
    const size_t part = o.split > 0 ? static_cast<size_t>(o.split) : cooks.size() + 1;
    for (size_t at = 0; at == 0 || at < cooks.size(); at += part) {
      std::vector<Cook> piece(cooks.begin() + static_cast<long>(std::min(at, cooks.size())),
                              cooks.begin() + static_cast<long>(std::min(at + part, cooks.size())));
      const bool more = at + part < cooks.size();
      const double ms = at == 0 ? frame_ms : NAN;
      send(osc ? OscFrame(ids, f, ms, piece, more) : JsonFrame(ids, f, ms, piece, more));
    }
    if (log != nullptr) {
      // Long form for every node, so the checker reads one shape.
      std::string line = "{\"frame\": " + std::to_string(f);
      if (!std::isnan(frame_ms)) line += ", \"frame_ms\": " + Shortest(frame_ms);
      line += ", \"nodes\": {";
      for (size_t i = 0; i < cooks.size(); ++i) {
        const Cook& c = cooks[i];
        if (i > 0) line += ", ";
        AppendJsonString(line, ids[c.node]);
        line += ": {\"cook_ms\": " + Shortest(c.cook_ms);
        if (!std::isnan(c.gpu_ms)) line += ", \"gpu_ms\": " + Shortest(c.gpu_ms);
        line += ", \"cooks\": " + std::to_string(c.cooks) + "}";
      }
      line += "}}\n";
      std::fputs(line.c_str(), log);
    }
    ++sent;
  }
  timespec end{};
  clock_gettime(CLOCK_MONOTONIC, &end);
  const double seconds = (end.tv_sec - begin.tv_sec) + (end.tv_nsec - begin.tv_nsec) / 1e9;
  if (log != nullptr) std::fclose(log);
  std::fprintf(stderr, "live_send: sent %ld frames (%s) in %.3f s: %.1f frames/s\n", sent,
               o.form.c_str(), seconds, seconds > 0 ? sent / seconds : 0.0);
  close(fd);
  return 0;
}
