# gst_record.sh GST_LAUNCH DIR PIPELINE...: runs PIPELINE (gst-launch-1.0
# words) with the latency tracer (element and pipeline latency) and the rusage
# tracer (thread-rusage and proc-rusage records: the CPU time of each thread
# and of the process) on and .dot dumps written, leaving in DIR the
# dumps (*.dot), the tracer log (trace.log) and the pipeline (pipeline.txt).
# DIR is emptied first. The ctest fixture of tests/gstreamer.cmake.
set -u
launch=$1 dir=$2
shift 2
rm -rf "$dir" && mkdir -p "$dir" || exit 1
GST_DEBUG_DUMP_DOT_DIR="$dir" \
GST_TRACERS="latency(flags=element+pipeline);rusage" \
GST_DEBUG="GST_TRACER:7" \
GST_DEBUG_NO_COLOR=1 \
GST_DEBUG_FILE="$dir/trace.log" \
  "$launch" -q "$@" >"$dir/gst-launch.out" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  cat "$dir/gst-launch.out" >&2
  echo "gst_record.sh: gst-launch-1.0 failed with $rc: $*" >&2
  exit 1
fi
if ! ls "$dir"/*PAUSED_PLAYING.dot >/dev/null 2>&1; then
  echo "gst_record.sh: no PAUSED_PLAYING dump in $dir" >&2
  exit 1
fi
if [ ! -s "$dir/trace.log" ]; then
  echo "gst_record.sh: no tracer log at $dir/trace.log" >&2
  exit 1
fi
printf '%s\n' "$*" >"$dir/pipeline.txt"
echo "gst_record.sh: $(grep -c 'element-latency, element-id=(string)0x' "$dir/trace.log") element-latency records in $dir/trace.log"
