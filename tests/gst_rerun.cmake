# Real re-runs of `cookgraph whatif` (metrics/whatif.h, the streaming threads
# model): tests/tools/gst_rerun_pairs.py records GStreamer pipelines in pairs
# that differ in one element's property (videoscale lanczos against
# nearest-neighbour in one thread and behind a tee with queued branches, the
# other branch's sleep calibrated to the machine; an identity's sleep-time
# behind a queue), predicts the second recording's frame time from the first
# with that element scaled by the ratio of its measured means, and fails when
# any prediction is more than 15% off the second recording's measured
# per-buffer time (read by tests/tools/gst_check.py), the first 10 buffers
# (the start-up) left out of every mean.
# Both directions of each pair are checked, and cookgraph's prediction must
# equal the script's own reading of the model. The table it writes
# (gst_rerun/pairs.txt and pairs.md in the build's tests folder) is the one the
# README reports. The test times real work, so it runs alone (RUN_SERIAL) and
# records under `chrt -r 10` where permitted: work beside it on the same cores
# would change its elements' wall times between the two recordings of a pair.
# Included from tests/CMakeLists.txt, after tests/gstreamer.cmake (which finds
# gst-launch-1.0) and after Python3 is found.
find_program(COOKGRAPH_GST_LAUNCH gst-launch-1.0)
set(gst_rerun_work ${CMAKE_CURRENT_BINARY_DIR}/gst_rerun)
if(COOKGRAPH_GST_LAUNCH)
  add_test(NAME gst_rerun_pairs
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/gst_rerun_pairs.py
      --gst-launch ${COOKGRAPH_GST_LAUNCH} --record ${CMAKE_CURRENT_SOURCE_DIR}/tools/gst_record.sh
      --cookgraph $<TARGET_FILE:cookgraph> --work ${gst_rerun_work}
      --out ${gst_rerun_work}/pairs.txt --markdown ${gst_rerun_work}/pairs.md)
  # Its twin: every ratio 1.5 times what was measured, for cookgraph and the
  # script's model alike, must fail on the error limit, so the limit is live.
  add_test(NAME gst_rerun_pairs_notices_a_wrong_ratio
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/gst_rerun_pairs.py
      --gst-launch ${COOKGRAPH_GST_LAUNCH} --record ${CMAKE_CURRENT_SOURCE_DIR}/tools/gst_record.sh
      --cookgraph $<TARGET_FILE:cookgraph> --work ${gst_rerun_work}/perturbed
      --pairs single-thread --perturb-ratio 1.5)
  set_tests_properties(gst_rerun_pairs_notices_a_wrong_ratio PROPERTIES
    PASS_REGULAR_EXPRESSION "gst_rerun_pairs: single-thread [^\n]*error [0-9.]+% > 15%")
else()
  foreach(name gst_rerun_pairs gst_rerun_pairs_notices_a_wrong_ratio)
    add_test(NAME ${name} COMMAND sh -c
      "echo 'gst-launch-1.0 not found: skipped (gstreamer1.0-tools, scripts/install-deps.sh)' >&2; exit 77")
  endforeach()
endif()
set_tests_properties(gst_rerun_pairs gst_rerun_pairs_notices_a_wrong_ratio PROPERTIES
  SKIP_RETURN_CODE 77 RUN_SERIAL TRUE TIMEOUT 300)
cookgraph_plain_test(gst_rerun_pairs gst_rerun_pairs_notices_a_wrong_ratio)
