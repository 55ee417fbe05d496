// Session files of `ask --session` (advisor/conversation.h): the turns of a
// conversation as JSON, read back with the member that is wrong named, and
// appended to under a lock by runs that share the file.

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "advisor/conversation.h"
#include "base/text.h"
#include "writers/atomic_file.h"

namespace cookgraph {
namespace {

using ojson = nlohmann::ordered_json;
using json = nlohmann::json;

constexpr int kSessionVersion = 1;
constexpr size_t kMaxSessionBytes = size_t{64} << 20;

// ---- session files ---------------------------------------------------------

ojson ExchangeJson(const ToolExchange& e) {
  ojson j;
  j["id"] = e.call.id;
  j["name"] = e.call.name;
  j["arguments"] = e.call.arguments;
  j["result"] = e.result;
  j["nodes"] = e.nodes;
  return j;
}

/// Reads the session's members, naming the one that is wrong.
class SessionReader {
 public:
  explicit SessionReader(const std::string& file) : file_(file) {}

  Error Bad(const std::string& where, const std::string& what) const {
    return Error{.file = file_, .where = where, .message = what};
  }

  Result<std::string> String(const json& object, const char* key, const std::string& where,
                             bool required = true) const {
    const auto it = object.find(key);
    if (it == object.end()) {
      if (!required) return std::string();
      return Bad(where, fmt::format("\"{}\" is missing", key));
    }
    if (!it->is_string()) return Bad(where + "." + key, "must be a string");
    return it->get<std::string>();
  }

  Result<bool> Bool(const json& object, const char* key, const std::string& where) const {
    const auto it = object.find(key);
    if (it == object.end()) return false;
    if (!it->is_boolean()) return Bad(where + "." + key, "must be true or false");
    return it->get<bool>();
  }

  Status Known(const json& object, std::initializer_list<std::string_view> keys,
               const std::string& where) const {
    for (const auto& [key, value] : object.items()) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
        const std::string shown = Printable(key);
        return Bad(where.empty() ? shown : where + "." + shown,
                   "is not a member of a session file");
      }
    }
    return {};
  }

 private:
  std::string file_;
};

}  // namespace

std::string SessionJson(const Session& session) {
  ojson j;
  j["cookgraph_session"] = kSessionVersion;
  j["input"] = session.input;
  j["model"] = session.model;
  ojson turns = ojson::array();
  for (const Turn& t : session.turns) {
    ojson turn;
    turn["question"] = t.question;
    turn["answer"] = t.answer;
    turn["stopped"] = t.stopped;
    ojson rounds = ojson::array();
    for (const ToolRound& r : t.rounds) {
      ojson round;
      round["content"] = r.content;
      ojson calls = ojson::array();
      for (const ToolExchange& e : r.calls) calls.push_back(ExchangeJson(e));
      round["calls"] = std::move(calls);
      rounds.push_back(std::move(round));
    }
    turn["rounds"] = std::move(rounds);
    turns.push_back(std::move(turn));
  }
  j["turns"] = std::move(turns);
  return j.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n";
}

Result<Session> ParseSession(std::string_view text, const std::string& file) {
  if (text.size() > kMaxSessionBytes) {
    return Error{.file = file,
                 .message = fmt::format("a session file is at most {} MiB; this one is larger",
                                        kMaxSessionBytes >> 20)};
  }
  if (const size_t bad = FirstInvalidUtf8(text); bad != std::string_view::npos) {
    return Error{.file = file, .message = fmt::format("byte {} is not UTF-8", bad)};
  }
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    // nlohmann's byte offset, as line and column.
    const size_t at = std::min(e.byte > 0 ? e.byte - 1 : 0, text.size());
    const size_t line = 1 + std::count(text.begin(), text.begin() + at, '\n');
    const size_t line_start = text.rfind('\n', at == 0 ? 0 : at - 1);
    const size_t column = at - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
    return Error{.file = file,
                 .line = static_cast<int64_t>(line),
                 .column = static_cast<int64_t>(column),
                 .message = "not JSON: a session file is what `ask --session` wrote"};
  } catch (const json::exception&) {  // a number out of range, ...
    return Error{.file = file,
                 .message = "not a session file: it holds a value JSON cannot read "
                            "(a number out of range?)"};
  }
  const SessionReader r(file);
  if (!j.is_object()) return r.Bad("", "a session file is a JSON object");
  const auto version = j.find("cookgraph_session");
  if (version == j.end()) {
    return r.Bad("", "\"cookgraph_session\" is missing: not a session file of `ask --session`");
  }
  // Only a number is shown: any other value could be arbitrarily deep.
  if (!version->is_number_integer()) {
    return r.Bad("cookgraph_session", fmt::format("must be the number {}", kSessionVersion));
  }
  if (version->get<int64_t>() != kSessionVersion) {
    return r.Bad("cookgraph_session", fmt::format("version {} is not one this cookgraph reads ({})",
                                                  version->get<int64_t>(), kSessionVersion));
  }
  if (Status s = r.Known(j, {"cookgraph_session", "input", "model", "turns"}, ""); !s) {
    return s.error();
  }
  Session session;
  auto input = r.String(j, "input", "", /*required=*/false);
  if (!input) return input.error();
  session.input = *input;
  auto model = r.String(j, "model", "", /*required=*/false);
  if (!model) return model.error();
  session.model = *model;
  const auto turns = j.find("turns");
  if (turns == j.end() || !turns->is_array()) return r.Bad("turns", "must be a list");
  for (size_t i = 0; i < turns->size(); ++i) {
    const json& t = (*turns)[i];
    const std::string where = fmt::format("turns[{}]", i);
    if (!t.is_object()) return r.Bad(where, "must be an object");
    if (Status s = r.Known(t, {"question", "answer", "stopped", "rounds"}, where); !s) {
      return s.error();
    }
    Turn turn;
    auto q = r.String(t, "question", where);
    if (!q) return q.error();
    if (q->find_first_not_of(" \t\r\n") == std::string::npos) {
      return r.Bad(where + ".question", "is empty");
    }
    turn.question = *q;
    auto a = r.String(t, "answer", where);
    if (!a) return a.error();
    turn.answer = *a;
    auto stopped = r.Bool(t, "stopped", where);
    if (!stopped) return stopped.error();
    turn.stopped = *stopped;
    if (const auto rounds = t.find("rounds"); rounds != t.end()) {
      if (!rounds->is_array()) return r.Bad(where + ".rounds", "must be a list");
      for (size_t k = 0; k < rounds->size(); ++k) {
        const json& rj = (*rounds)[k];
        const std::string rw = fmt::format("{}.rounds[{}]", where, k);
        if (!rj.is_object()) return r.Bad(rw, "must be an object");
        if (Status s = r.Known(rj, {"content", "calls"}, rw); !s) return s.error();
        ToolRound round;
        auto content = r.String(rj, "content", rw, /*required=*/false);
        if (!content) return content.error();
        round.content = *content;
        const auto calls = rj.find("calls");
        if (calls == rj.end() || !calls->is_array()) return r.Bad(rw + ".calls", "must be a list");
        for (size_t c = 0; c < calls->size(); ++c) {
          const json& cj = (*calls)[c];
          const std::string cw = fmt::format("{}.calls[{}]", rw, c);
          if (!cj.is_object()) return r.Bad(cw, "must be an object");
          if (Status s = r.Known(cj, {"id", "name", "arguments", "result", "nodes"}, cw); !s) {
            return s.error();
          }
          ToolExchange e;
          for (auto [key, out] : {std::pair{"id", &e.call.id}, std::pair{"name", &e.call.name},
                                  std::pair{"arguments", &e.call.arguments},
                                  std::pair{"result", &e.result}}) {
            auto v = r.String(cj, key, cw);
            if (!v) return v.error();
            *out = *v;
          }
          if (const auto nodes = cj.find("nodes"); nodes != cj.end()) {
            if (!nodes->is_array()) return r.Bad(cw + ".nodes", "must be a list of node ids");
            for (const json& n : *nodes) {
              if (!n.is_string()) return r.Bad(cw + ".nodes", "must be a list of node ids");
              e.nodes.push_back(n.get<std::string>());
            }
          }
          round.calls.push_back(std::move(e));
        }
        turn.rounds.push_back(std::move(round));
      }
    }
    session.turns.push_back(std::move(turn));
  }
  return session;
}

Result<Session> LoadSession(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Error{.file = path, .message = "is a folder, not a session file"};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return Session{};
    return Error{.file = path, .message = fmt::format("cannot read: {}", std::strerror(errno))};
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Error{.file = path, .message = "cannot read"};
  return ParseSession(text.str(), path);
}

Status SaveSession(const std::string& path, const Session& session) {
  return WriteFileAtomically(path, SessionJson(session));
}

Status AppendSessionTurns(const std::string& path, const std::string& input,
                          const std::string& model, const std::vector<Turn>& turns,
                          std::chrono::milliseconds wait) {
  // The lock is a separate file that stays: the session file itself is
  // replaced by every save (a rename), so a lock on it would be on a file
  // that is gone; and removing the lock file after use would let a writer
  // that opened the old one and a writer that created a new one hold "the"
  // lock at once. Its existence means nothing: flock(2) is held by an open
  // descriptor and let go when the process ends, however it ends.
  const std::string lock_path = path + ".lock";
  int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0 && (errno == EACCES || errno == EROFS)) {
    fd = open(lock_path.c_str(), O_RDONLY | O_CLOEXEC);  // flock needs no write access
  }
  if (fd < 0) {
    return Error{.file = path,
                 .message = fmt::format("cannot open the session's lock file {}: {}", lock_path,
                                        std::strerror(errno))};
  }
  struct Closer {
    int fd;
    ~Closer() { close(fd); }  // also lets go of the lock
  } closer{fd};
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) {
      return Error{.file = path,
                   .message = fmt::format("cannot lock the session's lock file {}: {}", lock_path,
                                          std::strerror(errno))};
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return Error{
          .file = path,
          .message = fmt::format(
              "another process held the session's lock ({}) for {:g} s, so this turn was not "
              "saved; ask again when it is done",
              lock_path, std::chrono::duration<double>(wait).count())};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // Under the lock: what the file holds now, which other runs may have added to.
  Result<Session> current = LoadSession(path);
  if (!current) return current.error();
  current->input = input;
  current->model = model;
  current->turns.insert(current->turns.end(), turns.begin(), turns.end());
  return SaveSession(path, *current);
}

}  // namespace cookgraph
