# The event critical path (metrics/event_path.h) against an independent
# reading of real traces in tests/data/fixtures/traces: the program
# critical_path_dump prints every edge of the graph, the events of the path and
# its length; tests/tools/critical_path_check.py recomputes them from the raw
# file with Python's standard library, following HTA's
# hta/analyzers/critical_path_analysis.py, and compares line for line. Each
# trace is checked with HTA's zero-weight launch edges (its tests' setting) and
# without (its default), each check paired with a run that perturbs one
# expected edge weight by 1 ns and must fail. Included from
# tests/CMakeLists.txt, after Python3 is found.
add_executable(critical_path_dump ${CMAKE_CURRENT_SOURCE_DIR}/tools/critical_path_dump.cc)
target_link_libraries(critical_path_dump PRIVATE cookgraph::adapters_chrome cookgraph::metrics
                      cookgraph_warnings)

set(critical_path_fixtures ${CMAKE_CURRENT_SOURCE_DIR}/data/fixtures/traces)
# trace|annotation|instance; an empty annotation is the whole trace.
set(critical_path_cases
  "kineto_cuda_event_sync.json.gz|ProfilerStep|0"
  "kineto_event_sync_multi_stream.json.gz||0"
  "kineto_alexnet_sync.json.gz|[param|pytorch.model.alex_net|0|0|0|measure|forward]|1"
  "kineto_nccl_rank0_5steps.json.gz|ProfilerStep|0"
  "hta_two_ranks/rank-0.json.gz|ProfilerStep|0")
foreach(case ${critical_path_cases})
  # The annotation may hold '|': the trace is before the first, the instance
  # after the last.
  string(FIND "${case}" "|" first_bar)
  string(FIND "${case}" "|" last_bar REVERSE)
  string(SUBSTRING "${case}" 0 ${first_bar} trace)
  math(EXPR annotation_at "${first_bar} + 1")
  math(EXPR annotation_length "${last_bar} - ${first_bar} - 1")
  string(SUBSTRING "${case}" ${annotation_at} ${annotation_length} annotation)
  math(EXPR instance_at "${last_bar} + 1")
  string(SUBSTRING "${case}" ${instance_at} -1 instance)
  string(REPLACE "/" "." label "${trace}")
  foreach(edges zero_weight no_zero_weight)
    foreach(variant ${checker_variants})
      set(name critical_path.${label}.${edges}.${variant})
      set(extra)
      if(edges STREQUAL no_zero_weight)
        list(APPEND extra --no-zero-weight-launch-edges)
      endif()
      if(variant STREQUAL perturbed)
        list(APPEND extra --perturb)
      endif()
      add_test(NAME ${name}
        COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/critical_path_check.py
          ${critical_path_fixtures}/${trace} "--annotation=${annotation}" --instance ${instance}
          --compare $<TARGET_FILE:critical_path_dump> ${extra})
      set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS critical_path)
      if(variant STREQUAL perturbed)
        set_tests_properties(${name} PROPERTIES WILL_FAIL TRUE)
      endif()
    endforeach()
  endforeach()
endforeach()

# The checker itself against the assertions HTA's
# tests/test_critical_path_analysis.py makes on the three traces copied from HTA.
add_test(NAME critical_path.hta_tests
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/critical_path_check.py --hta-tests
    --fixtures ${critical_path_fixtures})
set_tests_properties(critical_path.hta_tests PROPERTIES SKIP_RETURN_CODE 77 LABELS critical_path)
