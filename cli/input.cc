#include "cli/input.h"

#include <charconv>
#include <cmath>
#include <regex>

#include "adapters/input_files.h"

namespace cookgraph::cli {

std::string InputArgs::name() const { return Input{paths}.name(); }

ReadOptions InputArgs::options() const {
  ReadOptions options;
  if (format_in) options.format = ParseInputFormat(*format_in);  // checked by CLI11
  options.frame_marker = frame_marker;
  options.keep_warmup = keep_warmup;
  options.hta_rounding = hta_rounding;
  for (const std::string& limit : limits) (void)SetLimit(options.limits, limit);  // checked
  return options;
}

void AddPathWindowOptions(CLI::App& sub, PathWindow& window) {
  CLI::Option* step = sub.add_option(
      "--step", window.step,
      "traces: the event critical path of step N (ProfilerStep#N; default: the slowest step "
      "but the last, on the rank where it is longest)");
  CLI::Option* annotation = sub.add_option(
      "--annotation", window.annotation,
      "traces: the event critical path in the window of the events whose name contains NAME, "
      "as Holistic Trace Analysis chooses it (\"\" = the whole trace; the first rank)");
  sub.add_option("--instance", window.instance,
                 "with --annotation: which of those events, from 0 in file order (default 0)")
      ->needs(annotation);
  step->excludes(annotation);
}

void AddBudgetOption(CLI::App& sub, std::optional<double>& budget_ms) {
  sub.add_option("--budget-ms", budget_ms,
                 "frame budget in ms (default: the snapshot's, else 1000/fps, else 16.667; "
                 "training and inference traces have none unless given)")
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            double v = 0;
            auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            bool ok = ec == std::errc() && end == text.data() + text.size() && std::isfinite(v) &&
                      v > 0 && v <= 1e9;
            return ok ? "" : "must be a number of milliseconds > 0, got '" + text.substr(0, 40) + "'";
          },
          "MS"));
}

void AddFormatOptions(CLI::App& sub, InputArgs& args) {
  sub.add_option("--format-in", args.format_in,
                 "read the input as this format instead of recognising it: native, chrome "
                 "(Chrome trace: PyTorch, TensorFlow, ONNX Runtime, Perfetto) or gstreamer")
      ->check(CLI::IsMember({"native", "snapshot", "chrome", "chrome-trace", "perfetto",
                             "pytorch", "gstreamer", "gst"}));
  sub.add_option("--frame-marker", args.frame_marker,
                 "Chrome traces: a regex naming the events that mark frames (default: "
                 "ProfilerStep#N, else ONNX Runtime's model_run, else the whole trace is one "
                 "frame)")
      ->check([](const std::string& pattern) -> std::string {
        try {
          std::regex check(pattern);
        } catch (const std::regex_error& e) {
          return "not a valid regex: " + std::string(e.what());
        }
        return "";
      });
  sub.add_flag("--keep-warmup", args.keep_warmup,
               "PyTorch, TensorFlow and ONNX Runtime traces: keep a first step that is a "
               "warm-up (1.5x the median of the "
               "others or more) in the step statistics; by default it is named and left out");
  sub.add_flag("--hta-rounding", args.hta_rounding,
               "Chrome traces with fractional-microsecond times: round each start up and each "
               "end down to a whole microsecond, as Holistic Trace Analysis does, to reproduce "
               "its figures; by default times are kept to the nanosecond");
  sub.add_option("--limit", args.limits,
                 "KEY=VALUE, repeatable: a bound on what one input may hold; past it the input "
                 "is refused with a message naming the limit (sizes take K, M, G, T). "
                 "Defaults: " +
                     SpellLimits(InputLimits{}))
      ->expected(1)
      ->allow_extra_args(false)  // one KEY=VALUE per --limit: INPUT may follow
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->check([](const std::string& value) -> std::string {
        InputLimits scratch;
        Status set = SetLimit(scratch, value);
        return set ? "" : set.error().message;
      });
}

void AddInputArgument(CLI::App& sub, InputArgs& args) {
  sub.add_option("INPUT", args.paths,
                 "a snapshot or a Chrome trace (file, or - for standard input); a GStreamer "
                 "recording: its .dot dump and tracer log, or the folder holding them")
      ->required()
      ->expected(1, 2);
  AddFormatOptions(sub, args);
}

}  // namespace cookgraph::cli
