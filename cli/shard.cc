#include "cli/shard.h"

#include <fmt/format.h>

#include <charconv>
#include <nlohmann/json.hpp>

namespace cookgraph::cli {
namespace {

bool Number(std::string_view text, uint64_t& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

constexpr uint64_t kMaxShards = 1000000;

// An environment variable that must hold a whole number.
Result<std::optional<uint64_t>> EnvNumber(const Getenv& getenv, const char* name) {
  const char* value = getenv(name);
  if (value == nullptr) return std::optional<uint64_t>();
  uint64_t n = 0;
  if (!Number(value, n)) {
    return Error{.where = "--shard auto",
                 .message = fmt::format("{} is '{}', not a whole number", name,
                                        std::string_view(value).substr(0, 40))};
  }
  return std::optional<uint64_t>(n);
}

Result<ShardSpec> FromEnvironment(const Getenv& getenv) {
  auto fail = [](std::string message) {
    return Error{.where = "--shard auto", .message = std::move(message)};
  };
  Result<std::optional<uint64_t>> slurm_id = EnvNumber(getenv, "SLURM_ARRAY_TASK_ID");
  if (!slurm_id) return slurm_id.error();
  if (*slurm_id) {
    Result<std::optional<uint64_t>> count = EnvNumber(getenv, "SLURM_ARRAY_TASK_COUNT");
    Result<std::optional<uint64_t>> min = EnvNumber(getenv, "SLURM_ARRAY_TASK_MIN");
    Result<std::optional<uint64_t>> step = EnvNumber(getenv, "SLURM_ARRAY_TASK_STEP");
    for (const auto* r : {&count, &min, &step}) {
      if (!*r) return r->error();
    }
    if (!*count) return fail("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not");
    const uint64_t first = min->value_or(0), stride = std::max<uint64_t>(step->value_or(1), 1);
    const uint64_t id = **slurm_id;
    if (id < first || (id - first) % stride != 0) {
      return fail(fmt::format("SLURM_ARRAY_TASK_ID {} is not in the array {}-…:{}", id, first,
                              stride));
    }
    const uint64_t index = (id - first) / stride;
    if (**count == 0 || **count > kMaxShards || index >= **count) {
      return fail(fmt::format("SLURM_ARRAY_TASK_ID {} gives shard {}, not below "
                              "SLURM_ARRAY_TASK_COUNT {}",
                              id, index, **count));
    }
    return ShardSpec{.index = index, .count = **count};
  }
  Result<std::optional<uint64_t>> k8s_index = EnvNumber(getenv, "JOB_COMPLETION_INDEX");
  if (!k8s_index) return k8s_index.error();
  if (*k8s_index) {
    Result<std::optional<uint64_t>> count = EnvNumber(getenv, "JOB_COMPLETIONS");
    if (!count) return count.error();
    if (!*count) {
      return fail("JOB_COMPLETION_INDEX is set but JOB_COMPLETIONS is not: set it to the "
                  "Job's .spec.completions in the pod's env");
    }
    if (**count == 0 || **count > kMaxShards || **k8s_index >= **count) {
      return fail(fmt::format("JOB_COMPLETION_INDEX {} is not below JOB_COMPLETIONS {}",
                              **k8s_index, **count));
    }
    return ShardSpec{.index = **k8s_index, .count = **count};
  }
  return fail("neither SLURM_ARRAY_TASK_ID (a Slurm array) nor JOB_COMPLETION_INDEX "
              "(a Kubernetes indexed Job) is set");
}

}  // namespace

Result<ShardSpec> ParseShard(const std::string& spec, const Getenv& getenv) {
  if (spec == "auto") return FromEnvironment(getenv);
  auto bad = [&] {
    return Error{.where = "--shard",
                 .message = "expected auto or K/N with 1 <= K <= N <= 1000000 (e.g. 2/8), got '" +
                            spec.substr(0, 40) + "'"};
  };
  const size_t slash = spec.find('/');
  if (slash == std::string::npos) return bad();
  uint64_t k = 0, n = 0;
  if (!Number(std::string_view(spec).substr(0, slash), k) ||
      !Number(std::string_view(spec).substr(slash + 1), n) || n == 0 || n > kMaxShards ||
      k == 0 || k > n) {
    return bad();
  }
  return ShardSpec{.index = k - 1, .count = n};
}

std::vector<Input> Slice(const std::vector<Input>& files, const ShardSpec& shard) {
  const size_t begin = files.size() * shard.index / shard.count;
  const size_t end = files.size() * (shard.index + 1) / shard.count;
  return std::vector<Input>(files.begin() + static_cast<ptrdiff_t>(begin),
                            files.begin() + static_cast<ptrdiff_t>(end));
}

std::string ListDigest(const std::vector<Input>& files) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64
  auto add = [&](std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 0x100000001b3ull;
    }
    h ^= 0xff;  // a separator no name contains
    h *= 0x100000001b3ull;
  };
  for (const Input& input : files) add(input.name());
  return fmt::format("{:016x}", h);
}

std::string ShardRecordJson(const ShardRecord& r) {
  nlohmann::ordered_json j;
  j["index"] = r.shard.index;
  j["count"] = r.shard.count;
  j["inputs"] = r.inputs;
  j["list"] = r.list;
  j["options"] = r.options;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<ShardRecord> ParseShardRecord(std::string_view text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  auto bad = [] { return Error{.message = "its shard record is damaged"}; };
  if (!j.is_object()) return bad();
  for (const char* key : {"index", "count", "inputs"}) {
    if (!j.contains(key) || !j[key].is_number_unsigned()) return bad();
  }
  for (const char* key : {"list", "options"}) {
    if (!j.contains(key) || !j[key].is_string()) return bad();
  }
  ShardRecord r;
  r.shard.index = j["index"].get<size_t>();
  r.shard.count = j["count"].get<size_t>();
  r.inputs = j["inputs"].get<size_t>();
  r.list = j["list"].get<std::string>();
  r.options = j["options"].get<std::string>();
  if (r.shard.count == 0 || r.shard.count > kMaxShards || r.shard.index >= r.shard.count) {
    return bad();
  }
  return r;
}

}  // namespace cookgraph::cli
