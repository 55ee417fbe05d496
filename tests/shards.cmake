# `score --shard` (K/N and auto under simulated Slurm and Kubernetes variables)
# merged by `cookgraph merge` is byte-identical to the unsharded run, for JSON,
# CSV and the one-row-per-snapshot summaries; parts that overlap, miss a shard,
# differ in options or input list, or were cut short are refused
# (tests/tools/shard_merge_check.py). Included from tests/CMakeLists.txt.
set(shard_merge_extra)
if(CMAKE_BUILD_TYPE STREQUAL "Sanitize")
  set(shard_merge_extra --quick)  # JSON and CSV, two splits: the rest in the normal build
endif()
add_test(NAME shard_merge_is_the_unsharded_run
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/shard_merge_check.py
    $<TARGET_FILE:cookgraph>
    ${PROJECT_SOURCE_DIR}/examples
    ${CMAKE_CURRENT_SOURCE_DIR}/data/gstreamer/tee_bin.dot
    ${CMAKE_CURRENT_SOURCE_DIR}/data/gstreamer/tee_bin.log
    ${CMAKE_CURRENT_SOURCE_DIR}/data/fixtures/traces/kineto_cpu_only.json.gz
    ${CMAKE_CURRENT_SOURCE_DIR}/data/fixtures/traces/kineto_cuda_event_sync.json.gz
    ${CMAKE_CURRENT_SOURCE_DIR}/data/fixtures/traces/tf1_timeline_cpu_step.json
    ${CMAKE_CURRENT_SOURCE_DIR}/data/fixtures/traces/hta_two_ranks ${shard_merge_extra})
set_tests_properties(shard_merge_is_the_unsharded_run PROPERTIES TIMEOUT 600)
cookgraph_plain_test(shard_merge_is_the_unsharded_run)  # every format and split

# One row per snapshot (`--format summary*`) against an independent reading of
# the native examples (tests/tools/summary_check.py), and its perturbed twin.
foreach(variant ${checker_variants})
  set(extra)
  if(variant STREQUAL perturbed)
    set(extra --perturb)
  endif()
  add_test(NAME summary_rows_match_an_independent_reading.${variant}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/summary_check.py
      $<TARGET_FILE:cookgraph> ${PROJECT_SOURCE_DIR}/examples/gstreamer_pipeline.json
      ${PROJECT_SOURCE_DIR}/examples/pytorch_model.json
      ${PROJECT_SOURCE_DIR}/examples/touchdesigner_feedback.json ${extra})
  if(variant STREQUAL perturbed)
    set_tests_properties(summary_rows_match_an_independent_reading.${variant} PROPERTIES WILL_FAIL TRUE)
    cookgraph_plain_test(summary_rows_match_an_independent_reading.${variant})
  endif()
endforeach()
