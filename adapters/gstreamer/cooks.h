// The cooks of a GStreamer recording's elements and the streaming threads
// that ran them, as the build stage (build.cc) finds them: which elements
// each thread ran, its work per buffer, its buffer period from the caps, its
// CPU load from the rusage tracer, and which threads set the frame. Not a
// public header.

#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "adapters/gstreamer/records.h"
#include "model/snapshot.h"

namespace cookgraph::gst::build_internal {

// One cook of an element: one input buffer (docs/formats.md#gstreamer).
struct Cook {
  double ms = kMissing;       // what is scored: the work where measured (see ScoreWork), else latency_ms
  double latency_ms = kMissing;  // the tracer's time (element-latency): work and waiting
  double work_ms = kMissing;     // the element's own time in it (LogRecord::work_ms); NaN = unknown
  uint32_t thread = kNoThread;
  int64_t line = 0;       // of its first record
  std::string_view pad;  // of its first record
  int64_t entry_ns = -1;  // when the buffer entered the element (ts - time); -1 = unknown
};

// The cooks of an element from all its records, in log order: consecutive
// records with one entry time (ts - time) are one input buffer, a tee pushing
// it on each src pad in turn, and its time is the smallest (the time before
// the first push, the tee's own work).
std::vector<Cook> CooksOf(const std::vector<const LogElement*>& elements);

// An element that works (not a queue, mixer or bin) is scored on the work in
// each cook where its thread's rusage records measured it: the rest of the
// tracer's time was waiting downstream
// (docs/architecture.md#work-and-waiting-in-a-gstreamer-pipeline). Queues and
// mixers keep the tracer's time, which is waiting anyway (a queue's runs from
// a push in one thread to a push in another).
void ScoreWork(std::vector<Cook>& cooks);

// What the thread analysis reads: the network, the log, the dump, and the
// build's tables of caps by element.
struct ThreadSources {
  const Network& network;
  const GstLog& log;
  const DotPipeline& dot;
  const std::unordered_map<NodeIndex, int>& element_of_node;  // node -> dot element
  const std::vector<std::vector<std::pair<std::string_view, std::string_view>>>&
      out_caps;  // dot element -> (src pad, caps)
  const std::vector<std::vector<std::string_view>>& in_caps;  // dot element -> caps into it
};

// frames per second from "framerate=30/1" in a compact caps string; 0 = none.
double Framerate(std::string_view caps);

// ms per buffer of raw audio caps ("audio/x-raw, ..., rate=44100, ...") with
// `samples` per buffer; 0 = not raw audio or no rate.
double AudioPeriodMs(std::string_view caps, double samples);

// Samples per buffer of raw audio: a `samplesperbuffer` property in the
// dump, else audiotestsrc's default of 1024 when the pipeline has one; 0 =
// unknown.
double SamplesPerBuffer(const DotPipeline& dot);

// The streaming threads: which elements each ran, its work per buffer, its
// buffer period from the caps and its CPU load from the rusage tracer.
Streaming Threads(const ThreadSources& src,
                  const std::vector<std::pair<NodeIndex, std::vector<Cook>>>& series);

// Threads at another rate than the bottleneck thread's (a known, different
// buffer period) do not set the frame (StreamingThread::sets_frame): audio
// buffers are not video frames. Without a bottleneck period, every thread
// does. A warning names the others.
void MarkFrameThreads(Streaming& streaming);

// frame_ms of frame k: the largest, over the streaming threads that set the
// frame (MarkFrameThreads), of the sum of the thread's working elements'
// k-th cooks in it. Empty when no record
// names its thread (a log of bare records).
std::vector<double> FrameMs(const ThreadSources& src,
                            const std::vector<std::pair<NodeIndex, std::vector<Cook>>>& series,
                            size_t frames, const Streaming& streaming);

// The statistics of every readable `latency` record.
std::optional<LatencyStats> Latency(const GstLog& log);

}  // namespace cookgraph::gst::build_internal
