# The GStreamer adapter (adapters/gstreamer/gstreamer.h) against real GStreamer: each
# pipeline below is run by gst-launch-1.0 at test time with the latency and
# rusage tracers on and a .dot dump written (tests/tools/gst_record.sh, a
# fixture), then tests/tools/gst_check.py reads the dump and the log itself
# with Python's standard library and compares with what the adapter made
# (printed by gst_dump as a native snapshot): nodes, families (queue and mixer
# wait), element-level edges, each element's cooks (its records merged where
# they share an entry time) and frame_ms (the slowest streaming thread's
# buffer); with `cookgraph score DIR --format json` (the CLI reading the
# folder): per-element counts, means and population standard deviations, the
# streaming threads (elements, buffers, busy time, buffer period, CPU load),
# the process CPU load, latency_ms, frame_ms, frame_budget_ms, the bottleneck
# thread and the critical path (no waiting element on it); and with
# `cookgraph graph DIR --format svg` (waiting elements drawn as waiting, the
# slow element the hottest). `cookgraph score` and `cookgraph report
# --no-llm` must name the slow element first and the queue in front of it
# after it. Each check is paired with runs that perturb one expected value
# (gst_check.py --perturb WHAT, listed in its docstring): those pass only
# when the comparison catches the change, which shows the check can fail.
#
# The pipelines: linear (30 fps, so the budget is 33.333 ms); a tee into
# queued branches; nested bins with ghost pads; decodebin (a bin that builds
# its children); a mixer with two inputs (compositor, an aggregator: one
# element-latency record per output buffer, see
# adapters/gstreamer/gstreamer.h); audio (with a queue in front of a slow
# element); demux (decodebin over an ogg stream: oggdemux0 and multiqueue0
# push on two pads, the multiqueue from one thread per pad); avmux (audio and
# video into oggmux, a mixer, with a slow element behind a queue; the audio
# queue after vorbisenc is unbounded so vorbisenc never blocks on the muxer);
# avwait (issue 34's A/V pipeline, three seconds of it: theora and vorbis into
# oggmux with a JPEG branch beside it, where vorbisenc's pushes wait for the
# muxer, which waits for theoraenc: gst_check.py --waiter checks that the
# wait is not ranked, found or predicted as vorbisenc's work).
# Included from tests/CMakeLists.txt, after Python3 is found.
add_executable(gst_dump ${CMAKE_CURRENT_SOURCE_DIR}/tools/gst_dump.cc)
target_link_libraries(gst_dump PRIVATE cookgraph::adapters_gstreamer cookgraph::writers cookgraph_warnings)

find_program(COOKGRAPH_GST_LAUNCH gst-launch-1.0)
set(gst_work ${CMAKE_CURRENT_BINARY_DIR}/gstreamer)

# name | what gst_check.py must find | the pipeline, one gst-launch argument a word
set(gst_pipelines
  "linear|--slow identity0 --queue queue0|videotestsrc num-buffers=60 ! video/x-raw,width=320,height=240,framerate=30/1 ! videoconvert ! videoscale ! video/x-raw,width=160,height=120 ! queue ! identity sleep-time=5000 ! fakesink sync=false"
  "tee|--slow identity0 --queue queue0 --tee t-split|videotestsrc num-buffers=40 ! videoconvert ! tee name=t-split t-split. ! queue ! identity sleep-time=4000 ! fakesink sync=false t-split. ! queue name=fast-q ! videoscale ! fakesink name=sink-2 sync=false"
  "bins|--slow identity0 --queue queue0 --no-latency|videotestsrc num-buffers=30 ! queue ! bin.( name=my-bin videoconvert ! bin.( name=inner videoscale ! identity sleep-time=4000 ) ) ! fakesink sync=false"
  "decodebin|--bin decodebin0|videotestsrc num-buffers=30 ! jpegenc ! decodebin ! videoconvert ! fakesink sync=false"
  "mixer|--mixer mix|videotestsrc num-buffers=40 ! video/x-raw,width=160,height=120 ! compositor name=mix ! videoconvert ! fakesink sync=false videotestsrc num-buffers=40 pattern=ball ! video/x-raw,width=160,height=120 ! mix."
  "audio|--slow identity0 --queue queue0|audiotestsrc num-buffers=50 ! audioconvert ! volume volume=0.5 ! audioresample ! queue ! identity sleep-time=3000 ! fakesink sync=false"
  "demux|--bin d --mixer m|videotestsrc num-buffers=30 ! video/x-raw,framerate=30/1,width=320,height=240 ! theoraenc ! oggmux name=m ! decodebin name=d ! videoconvert ! fakesink sync=false d. ! audioconvert ! fakesink sync=false audiotestsrc num-buffers=30 ! vorbisenc ! m."
  "avmux|--slow identity0 --queue queue0 --mixer mux|videotestsrc num-buffers=30 ! video/x-raw,framerate=30/1,width=160,height=120 ! videoconvert ! queue ! identity sleep-time=20000 ! theoraenc ! oggmux name=mux ! fakesink sync=false audiotestsrc num-buffers=30 ! audioconvert ! vorbisenc ! queue max-size-buffers=0 max-size-time=0 max-size-bytes=0 ! mux."
  "avwait|--slow theoraenc0 --waiter vorbisenc0 --mixer mux|videotestsrc num-buffers=90 ! video/x-raw,width=640,height=480,framerate=30/1 ! tee name=t t. ! queue ! videoscale method=lanczos ! video/x-raw,width=1280,height=720 ! theoraenc ! oggmux name=mux ! fakesink sync=false t. ! queue ! videoconvert ! jpegenc ! fakesink sync=false audiotestsrc num-buffers=129 ! audioresample ! audio/x-raw,rate=22050 ! vorbisenc ! mux.")

foreach(entry ${gst_pipelines})
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 name)
  list(GET parts 1 expect)
  list(GET parts 2 pipeline)
  separate_arguments(expect UNIX_COMMAND "${expect}")
  separate_arguments(pipeline UNIX_COMMAND "${pipeline}")
  set(dir ${gst_work}/${name})
  if(COOKGRAPH_GST_LAUNCH)
    add_test(NAME GstreamerRecord.${name}
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tools/gst_record.sh ${COOKGRAPH_GST_LAUNCH} ${dir}
        ${pipeline})
  else()
    add_test(NAME GstreamerRecord.${name} COMMAND sh -c
      "echo 'gst-launch-1.0 not found: the GStreamer tests need gstreamer1.0-tools (scripts/install-deps.sh)' >&2; exit 1")
  endif()
  set_tests_properties(GstreamerRecord.${name} PROPERTIES FIXTURES_SETUP gst_${name} TIMEOUT 120)
  set(variants check perturb-mean perturb-count perturb-std perturb-frame perturb-edge
    perturb-family perturb-thread perturb-cpu perturb-latency perturb-budget perturb-bottleneck
    perturb-elatency)
  if("--slow" IN_LIST expect)
    list(APPEND variants perturb-advice perturb-rank perturb-critical)
  endif()
  if("--waiter" IN_LIST expect)  # issue 34's pipeline: waiting, thread names, encoder advice
    list(APPEND variants perturb-nowait perturb-name perturb-terms)
  endif()
  if(NOT "perturbed" IN_LIST checker_variants)  # the sanitizer builds: see tests/CMakeLists.txt
    set(variants check)
  endif()
  foreach(variant ${variants})
    set(test GstreamerIndependent.${name}.${variant})
    set(extra)
    if(NOT variant STREQUAL check)
      string(REPLACE "perturb-" "" what ${variant})
      set(extra --perturb ${what})
    endif()
    add_test(NAME ${test}
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/gst_check.py ${dir}
        --dump $<TARGET_FILE:gst_dump> --cookgraph $<TARGET_FILE:cookgraph> ${expect} ${extra})
    set_tests_properties(${test} PROPERTIES FIXTURES_REQUIRED gst_${name} TIMEOUT 120)
    if(NOT variant STREQUAL check)
      cookgraph_plain_test(${test})
    endif()
  endforeach()
endforeach()

# `cookgraph record` with the real gst-launch-1.0: the folder it keeps, what it
# prints, its errors (a folder not empty, a program that does not exist, a
# pipeline that fails, no command) and --env (tests/tools/record_check.py).
if(COOKGRAPH_GST_LAUNCH)
  add_test(NAME cli_record
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/record_check.py
      $<TARGET_FILE:cookgraph> ${COOKGRAPH_GST_LAUNCH} ${CMAKE_CURRENT_BINARY_DIR}/record_check)
  set_tests_properties(cli_record PROPERTIES TIMEOUT 120)
endif()
