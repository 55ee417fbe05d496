# `cookgraph watch` end to end: tests/tools/live_send.cc streams seeded frames
# over loopback at 600 frames/s (JSON lines or OSC bundles built with liblo),
# tests/tools/live_check.py checks that none was lost, that watch's rolling
# statistics equal those computed from what was sent and those of `cookgraph
# score` on watch's --record, and that a planted spike raises exactly one node
# alert and one budget alert (and that no alert fires without it).
# Python3_EXECUTABLE comes from tests/CMakeLists.txt.
add_executable(live_send ${CMAKE_CURRENT_SOURCE_DIR}/tools/live_send.cc)
target_link_libraries(live_send PRIVATE PkgConfig::LIBLO cookgraph_warnings)
target_compile_features(live_send PRIVATE cxx_std_20)

set(live_work ${CMAKE_CURRENT_BINARY_DIR}/live)
function(cookgraph_live_test name)
  add_test(NAME ${name}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/live_check.py
      --cookgraph $<TARGET_FILE:cookgraph> --sender $<TARGET_FILE:live_send> --work ${live_work}
      ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 200)
endfunction()
# 10,000 frames each form; the window covers every frame, so watch's final
# statistics must equal `score` on the record.
cookgraph_live_test(watch_live_json_10000_spike --form json --frames 10000 --rate 600
  --window 10000 --spike 6000:3:40)
cookgraph_live_test(watch_live_osc_10000 --form osc --frames 10000 --rate 600 --window 10000)
# A window of the last 500 frames, lost frames, a malformed datagram (exit 2)
# and frames split into parts, in OSC.
cookgraph_live_test(watch_live_osc_window_gaps_parts --form osc --frames 3000 --rate 600
  --window 500 --spike 3800:3:40 --skip 1500 --skip 2222 --garbage 1100 --split 5)
# Stopped by SIGINT or SIGTERM: the result is printed and the record written all the same.
# In JSON, two malformed datagrams: a syntax error and a number too large for
# a double (out_of_range in nlohmann once ended the watch).
cookgraph_live_test(watch_live_json_interrupted --form json --frames 2000 --rate 600
  --window 2000 --skip 1300 --split 4 --garbage 1700 --garbage 1900 --interrupt INT)
cookgraph_live_test(watch_live_osc_terminated --form osc --frames 1000 --rate 600
  --window 300 --spike 1900:5:40 --interrupt TERM)
