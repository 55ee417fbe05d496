# The history of runs (docs/commands.md#history-of-runs), end to end through
# the CLI: 30 runs stored with `score --store`, one node 30% slower from run
# 20; `history` flags exactly that node at run 20, its p-values match mpmath's
# from the stored numbers, and the stored numbers those of the raw samples; a
# tampered copy and the series without the slowdown prove the checks can
# fail; two writers at once lose nothing; a writer killed mid-run leaves a
# readable database with an incomplete run. Once in SQLite and once in a real
# PostgreSQL server the test starts in a temporary directory (Debian's
# postgresql; the test fails without it). The sanitizer builds leave these
# out: they exercise sqlite3 and libpq more than cookgraph's own code, which
# tests/store runs under the sanitizers.
if(NOT CMAKE_BUILD_TYPE STREQUAL "Sanitize")
  foreach(backend sqlite postgresql)
    add_test(NAME history_store_${backend}
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/history_check.py
        $<TARGET_FILE:cookgraph> ${CMAKE_CURRENT_BINARY_DIR}/history_${backend} ${backend})
    set_tests_properties(history_store_${backend} PROPERTIES TIMEOUT 400)
    cookgraph_plain_test(history_store_${backend})
  endforeach()
endif()
# Traces stored run after run form one series (tests/tools/history_series_check.py):
# three PyTorch-named traces (host_pid.timestamp.pt.trace.json) of one job,
# the third 30% slower, are one series that history flags and
# --fail-on-regression fails on; --name forms one too; other names leave
# every series with one run and history warns. The perturbed twin makes the
# third run as fast as the others and must fail.
cookgraph_checker_test(history_series --perturb
  ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/history_series_check.py
  $<TARGET_FILE:cookgraph> ${CMAKE_CURRENT_BINARY_DIR}/history_series)
