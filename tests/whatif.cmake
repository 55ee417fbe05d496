# `cookgraph whatif` (docs/architecture.md#what-if-predicted-gains) against
# tests/tools/whatif_check.py, which recomputes every number of its JSON from
# the raw input with Python's standard library (the serial, streaming and
# step critical path models of metrics/whatif.h; the GStreamer reading of
# tests/tools/gst_check.py and the HTA graph of tests/tools/critical_path_check.py
# are imported, not cookgraph's), and predictions against what the engine
# does: tests/tools/gen_whatif.py writes pairs of inputs WITH a known cost in
# one node and WITHOUT it (simulated again, not subtracted), and the
# prediction for the node at factor 0 on WITH must be within 1% of WITHOUT's
# measured mean. Checks paired with a perturbed input must report a mismatch.
# Included from tests/CMakeLists.txt, after Python3 is found.
set(whatif_check ${CMAKE_CURRENT_SOURCE_DIR}/tools/whatif_check.py)
set(whatif_work ${CMAKE_CURRENT_BINARY_DIR}/whatif)

# The generated pairs (tests/tools/gen_whatif.py: names, nodes and costs).
add_test(NAME whatif_generate_pairs
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/gen_whatif.py --out ${whatif_work})
set_tests_properties(whatif_generate_pairs PROPERTIES FIXTURES_SETUP whatif_pairs)

# case | node | extra arguments
set(whatif_pairs
  "snapshot_every|/project1/slow|"
  "snapshot_spikes|/project1/slow|"
  "trace_gpu|slow_kernel|--budget-ms 9"
  "trace_cpu|aten::slow_cpu_op|--budget-ms 9"
  "trace_offpath|side_stream_kernel|--budget-ms 9")
foreach(entry ${whatif_pairs})
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 case)
  list(GET parts 1 node)
  list(GET parts 2 extra)
  separate_arguments(extra UNIX_COMMAND "${extra}")
  add_test(NAME whatif_predicts_${case}
    COMMAND ${Python3_EXECUTABLE} ${whatif_check} --cookgraph $<TARGET_FILE:cookgraph>
      --pair ${whatif_work}/${case}_with.json ${whatif_work}/${case}_without.json
      --node ${node}=0 ${extra})
  set_tests_properties(whatif_predicts_${case} PROPERTIES FIXTURES_REQUIRED whatif_pairs
    TIMEOUT 60)
endforeach()

# Every node's gains on the generated traces (a node with no time on any
# step's critical path gains exactly 0); the side stream's kernel is off the path.
foreach(case trace_gpu trace_cpu)
  add_test(NAME whatif_gains_${case}
    COMMAND ${Python3_EXECUTABLE} ${whatif_check} --cookgraph $<TARGET_FILE:cookgraph>
      ${whatif_work}/${case}_with.json --budget-ms 9 --offpath-zero)
  set_tests_properties(whatif_gains_${case} PROPERTIES FIXTURES_REQUIRED whatif_pairs TIMEOUT 60)
endforeach()
add_test(NAME whatif_gains_trace_offpath
  COMMAND ${Python3_EXECUTABLE} ${whatif_check} --cookgraph $<TARGET_FILE:cookgraph>
    ${whatif_work}/trace_offpath_with.json --budget-ms 9 --expect-off-path side_stream_kernel)
set_tests_properties(whatif_gains_trace_offpath PROPERTIES FIXTURES_REQUIRED whatif_pairs
  TIMEOUT 60)

# The examples (serial frames: the GStreamer example is a converted snapshot),
# every node's gains and a change of two nodes at once.
set(whatif_examples
  "touchdesigner_feedback|--node /project1/fx/trails/blur_fb=0.5 --node /project1/control/script_osc=0"
  "pytorch_model|--node step/dataloader/enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__=0.25"
  "gstreamer_pipeline|--node /pipeline0/bin_record/x264enc8=0.5 --node /pipeline0/bin_webrtc/vp8enc0=0")
foreach(entry ${whatif_examples})
  string(FIND "${entry}" "|" bar)
  string(SUBSTRING "${entry}" 0 ${bar} example)
  math(EXPR rest_at "${bar} + 1")
  string(SUBSTRING "${entry}" ${rest_at} -1 changes)
  separate_arguments(changes UNIX_COMMAND "${changes}")
  add_test(NAME whatif_example_${example}_gains
    COMMAND ${Python3_EXECUTABLE} ${whatif_check} --cookgraph $<TARGET_FILE:cookgraph>
      ${PROJECT_SOURCE_DIR}/examples/${example}.json)
  add_test(NAME whatif_example_${example}_changes
    COMMAND ${Python3_EXECUTABLE} ${whatif_check} --cookgraph $<TARGET_FILE:cookgraph>
      ${PROJECT_SOURCE_DIR}/examples/${example}.json ${changes})
  set_tests_properties(whatif_example_${example}_gains whatif_example_${example}_changes
    PROPERTIES TIMEOUT 60)
endforeach()

# The TouchDesigner example's facts: caching the OSC script saves all 15
# over-budget frames, the most; halving or removing the feedback loop's blur
# saves the most frame time.
add_test(NAME whatif_touchdesigner_names_the_fixes
  COMMAND ${Python3_EXECUTABLE} ${whatif_check} --cookgraph $<TARGET_FILE:cookgraph>
    ${PROJECT_SOURCE_DIR}/examples/touchdesigner_feedback.json
    --expect-most-frames-saved /project1/control/script_osc
    --expect-largest-saving /project1/fx/trails/blur_fb)
set_tests_properties(whatif_touchdesigner_names_the_fixes PROPERTIES TIMEOUT 60)

# Real traces (tests/data/fixtures/traces, see its README.md): one step, no step
# markers (the whole trace), three streams, a job of two ranks, and Kineto's
# 2021 schema (read as cookgraph reads it: docs/architecture.md#event-critical-path).
# kineto_resnet50_workers4 agrees too (852 comparisons) but its check is slow
# (docs/testing.md#what-if-predictions).
set(whatif_traces
  kineto_2021_schema.json
  kineto_cuda_event_sync.json.gz
  kineto_event_sync_multi_stream.json.gz
  kineto_alexnet_sync.json.gz
  hta_two_ranks)
foreach(trace ${whatif_traces})
  string(REGEX REPLACE "\\.json(\\.gz)?$" "" label "${trace}")
  add_test(NAME whatif_trace_${label}
    COMMAND ${Python3_EXECUTABLE} ${whatif_check} --cookgraph $<TARGET_FILE:cookgraph>
      ${CMAKE_CURRENT_SOURCE_DIR}/data/fixtures/traces/${trace} --offpath-zero)
  set_tests_properties(whatif_trace_${label} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)
endforeach()

# A GStreamer recording (streaming threads): the `linear` and `tee` pipelines
# that tests/gstreamer.cmake records (its fixtures gst_linear and gst_tee).
foreach(pipeline linear tee)
  add_test(NAME whatif_gstreamer_${pipeline}
    COMMAND ${Python3_EXECUTABLE} ${whatif_check} --cookgraph $<TARGET_FILE:cookgraph>
      ${CMAKE_CURRENT_BINARY_DIR}/gstreamer/${pipeline})
  set_tests_properties(whatif_gstreamer_${pipeline} PROPERTIES FIXTURES_REQUIRED gst_${pipeline}
    TIMEOUT 60)
endforeach()
add_test(NAME whatif_gstreamer_linear_changes
  COMMAND ${Python3_EXECUTABLE} ${whatif_check} --cookgraph $<TARGET_FILE:cookgraph>
    ${CMAKE_CURRENT_BINARY_DIR}/gstreamer/linear --node /pipeline0/identity0=0.5
    --node /pipeline0/videoconvert0=0)
set_tests_properties(whatif_gstreamer_linear_changes PROPERTIES FIXTURES_REQUIRED gst_linear
  TIMEOUT 60)

# The checks can fail: a model input with one cook (or one critical-path edge)
# altered, compared with cookgraph's output for the original, and a pair whose
# WITHOUT is another case's, must each report a mismatch. They test the
# checker, so the sanitizer builds leave them out (see tests/CMakeLists.txt).
if("perturbed" IN_LIST checker_variants)
  add_test(NAME whatif_check_notices_a_changed_cook
    COMMAND ${Python3_EXECUTABLE} ${whatif_check} --cookgraph $<TARGET_FILE:cookgraph>
      ${PROJECT_SOURCE_DIR}/examples/touchdesigner_feedback.json --perturb)
  add_test(NAME whatif_check_notices_a_changed_path_edge
    COMMAND ${Python3_EXECUTABLE} ${whatif_check} --cookgraph $<TARGET_FILE:cookgraph>
      ${whatif_work}/trace_gpu_with.json --budget-ms 9 --perturb)
  add_test(NAME whatif_check_notices_a_changed_buffer
    COMMAND ${Python3_EXECUTABLE} ${whatif_check} --cookgraph $<TARGET_FILE:cookgraph>
      ${CMAKE_CURRENT_BINARY_DIR}/gstreamer/linear --perturb)
  add_test(NAME whatif_check_notices_a_wrong_pair
    COMMAND ${Python3_EXECUTABLE} ${whatif_check} --cookgraph $<TARGET_FILE:cookgraph>
      --pair ${whatif_work}/snapshot_every_with.json ${whatif_work}/snapshot_spikes_without.json
      --node /project1/slow=0)
  add_test(NAME whatif_check_notices_a_wrong_trace_pair
    COMMAND ${Python3_EXECUTABLE} ${whatif_check} --cookgraph $<TARGET_FILE:cookgraph>
      --pair ${whatif_work}/trace_gpu_with.json ${whatif_work}/trace_cpu_without.json
      --node slow_kernel=0)
  set_tests_properties(whatif_check_notices_a_changed_cook whatif_check_notices_a_changed_path_edge
    whatif_check_notices_a_changed_buffer PROPERTIES
    PASS_REGULAR_EXPRESSION "whatif_check: MISMATCH [^\n]*: (before|after|nodes|series)" TIMEOUT 60)
  set_tests_properties(whatif_check_notices_a_wrong_pair whatif_check_notices_a_wrong_trace_pair
    PROPERTIES PASS_REGULAR_EXPRESSION "whatif_check: MISMATCH [^\n]*predicted after mean"
    TIMEOUT 60)
  set_tests_properties(whatif_check_notices_a_changed_path_edge whatif_check_notices_a_wrong_pair
    whatif_check_notices_a_wrong_trace_pair PROPERTIES FIXTURES_REQUIRED whatif_pairs)
  set_tests_properties(whatif_check_notices_a_changed_buffer PROPERTIES
    FIXTURES_REQUIRED gst_linear)
  cookgraph_plain_test(whatif_check_notices_a_changed_cook whatif_check_notices_a_changed_path_edge
    whatif_check_notices_a_changed_buffer whatif_check_notices_a_wrong_pair
    whatif_check_notices_a_wrong_trace_pair)
endif()

# What a user can get wrong: each is one line naming the input and the
# option, exit 2, and nothing written where -o points.
set(whatif_td ${PROJECT_SOURCE_DIR}/examples/touchdesigner_feedback.json)
foreach(entry
    "unknown_id|/project1/nope=0|--node '/project1/nope=0': no node has this id"
    "bad_factor|/project1/fx/trails/blur_fb=fast|the factor 'fast' is not a number >= 0"
    "negative_factor|/project1/fx/trails/blur_fb=-0.5|the factor '-0.5' is not a number >= 0"
    "infinite_factor|/project1/fx/trails/blur_fb=inf|the factor 'inf' is not a number >= 0"
    "no_factor|/project1/fx/trails/blur_fb|expected ID=F")
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 name)
  list(GET parts 1 node)
  list(GET parts 2 message)
  add_test(NAME whatif_refuses_${name}
    COMMAND sh -c "d=$(mktemp -d) && $<TARGET_FILE:cookgraph> whatif ${whatif_td} --node '${node}' -o $d/out.json 2>$d/err; rc=$?; cat $d/err; n=$(wc -l < $d/err); ls $d/out.json 2>/dev/null; rm -rf $d; [ $rc -eq 2 ] && [ $n -eq 1 ] && echo REFUSED_CLEANLY"
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(whatif_refuses_${name} PROPERTIES
    PASS_REGULAR_EXPRESSION "examples/touchdesigner_feedback.json: .*${message}.*REFUSED_CLEANLY"
    FAIL_REGULAR_EXPRESSION "out.json")
endforeach()

# Markdown and table carry the same headline as JSON; -o writes the file.
add_test(NAME whatif_formats_agree
  COMMAND sh -c "d=$(mktemp -d) && $<TARGET_FILE:cookgraph> whatif ${whatif_td} --format md -o $d/w.md && $<TARGET_FILE:cookgraph> whatif ${whatif_td} > $d/w.txt && grep -q 'most over-budget frames saved: `/project1/control/script\\\\_osc` removed: 15 of 15' $d/w.md && grep -q 'largest mean saving: /project1/fx/trails/blur_fb removed: 1.907 ms per frame' $d/w.txt && grep -q '^| 1 | `/project1/fx/trails/blur\\\\_fb` |' $d/w.md; rc=$?; rm -rf $d; exit $rc"
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
