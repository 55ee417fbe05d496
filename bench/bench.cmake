# The bench smoke test (bench/smoke_check.py): bench/'s generators at tiny
# sizes, `cookgraph score` reading what they write, and the Python baseline of
# bench/run.sh agreeing with cookgraph's avg, std and score per node within
# 1e-9 relative. Timings are bench/run.sh's business, never a test's.
# Included from tests/CMakeLists.txt, after Python3 is found; the simdjson
# floor is bench/'s target, configured later, so it is passed as a path and
# used only when it was built.
add_test(NAME bench_smoke
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/bench/smoke_check.py
    $<TARGET_FILE:cookgraph> ${CMAKE_CURRENT_BINARY_DIR}/bench_smoke
    ${PROJECT_BINARY_DIR}/bench/simdjson_floor)
set_tests_properties(bench_smoke PROPERTIES TIMEOUT 60)
cookgraph_plain_test(bench_smoke)  # with the simdjson floor, which only the normal build has
