# The event critical path (metrics/event_critical_path.h) against an independent
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
  "hta_two_ranks/rank-0.json.gz|ProfilerStep|0"
  # Kineto's 2021 schema: the step `cookgraph score` shows (ProfilerStep#5,
  # the slowest step other than the last) and a trace of one step.
  "kineto_resnet50_workers4.json.gz|ProfilerStep|0"
  "kineto_2021_schema.json|ProfilerStep|0"
  # The project's own Kineto traces (tests/data/chrome), which HTA cannot read
  # (tests/data/hta/critical_path.json's "refused"): the backward thread
  # merged into the forward one, and a shuffled trace with B/E pairs and
  # fractional µs.
  "chrome/autograd_thread.json|ProfilerStep|0"
  "chrome/synthetic_kineto.json|ProfilerStep|0")
# A DEPARTURE from HTA for the 2021 schema (categories Operator, Runtime, ...):
# HTA's node query knows only "cpu_op", "cuda_runtime" and "cuda_driver", so it
# has no result on such a trace (its query raises, or its launch-delay assert
# fails); cookgraph reads the old names as today's, and the checker does the
# same with --kineto-2021-names (see its docstring).
set(critical_path_kineto_2021 kineto_resnet50_workers4.json.gz kineto_2021_schema.json)
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
  set(trace_file ${critical_path_fixtures}/${trace})
  if(NOT EXISTS ${trace_file})
    set(trace_file ${CMAKE_CURRENT_SOURCE_DIR}/data/${trace})
  endif()
  foreach(edges zero_weight no_zero_weight)
    foreach(variant ${checker_variants})
      set(name critical_path.${label}.${edges}.${variant})
      set(extra)
      if(edges STREQUAL no_zero_weight)
        list(APPEND extra --no-zero-weight-launch-edges)
      endif()
      if(trace IN_LIST critical_path_kineto_2021)
        list(APPEND extra --kineto-2021-names)
      endif()
      if(variant STREQUAL perturbed)
        list(APPEND extra --perturb)
      endif()
      add_test(NAME ${name}
        COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/critical_path_check.py
          ${trace_file} "--annotation=${annotation}" --instance ${instance}
          --compare $<TARGET_FILE:critical_path_dump> ${extra})
      set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS critical_path)
      if(variant STREQUAL perturbed)
        set_tests_properties(${name} PROPERTIES WILL_FAIL TRUE)
        cookgraph_plain_test(${name})
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

# ForEachEventCriticalPath, many windows of a timeline in one pass, against
# EventCriticalPath one window at a time: critical_path_dump --all-steps
# compares every field of every window's result (each step forwards and
# backwards, the whole trace, ranges, errors; every timeline of the trace) and
# fails at the first difference; its --perturb run changes one weight and
# must report that difference.
set(critical_path_all_steps
  "kineto_cuda_event_sync.json.gz|ProfilerStep"
  "kineto_event_sync_multi_stream.json.gz|ProfilerStep"
  "kineto_alexnet_sync.json.gz|[param|pytorch.model.alex_net|0|0|0|measure|forward]"
  "kineto_nccl_rank0_5steps.json.gz|ProfilerStep"
  "hta_two_ranks/rank-0.json.gz|ProfilerStep"
  "hta_two_ranks/rank-1.json.gz|ProfilerStep"
  "kineto_resnet50_workers4.json.gz|ProfilerStep"
  "kineto_2021_schema.json|ProfilerStep"
  "kineto_memory_rank1_of_2.json.gz|ProfilerStep"
  "kineto_cpu_only.json.gz|ProfilerStep"
  "tf1_timeline_cpu_step.json|ProfilerStep")
foreach(case ${critical_path_all_steps})
  string(FIND "${case}" "|" first_bar)
  string(SUBSTRING "${case}" 0 ${first_bar} trace)
  math(EXPR annotation_at "${first_bar} + 1")
  string(SUBSTRING "${case}" ${annotation_at} -1 annotation)
  string(REPLACE "/" "." label "${trace}")
  foreach(variant ${checker_variants})
    set(name critical_path.all_steps.${label}.${variant})
    set(extra)
    if(variant STREQUAL perturbed)
      set(extra --perturb)
    endif()
    add_test(NAME ${name}
      COMMAND critical_path_dump ${critical_path_fixtures}/${trace} --all-steps
        "--annotation=${annotation}" ${extra})
    set_tests_properties(${name} PROPERTIES LABELS critical_path)
    if(variant STREQUAL perturbed)
      set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "many windows: edge ")
      cookgraph_plain_test(${name})
    endif()
  endforeach()
endforeach()

# HTA itself as the oracle (tests/tools/hta_oracle.py --critical-path): the
# length and the GPU events of the critical path that Meta's Holistic Trace
# Analysis at commit f4d0062 finds in one window of each fixture it reads (a
# trace in Kineto's 2021 schema given to it with today's category names), run
# by `hta_oracle.py --critical-path --regenerate` and kept in
# tests/data/hta/critical_path.json; cookgraph's path (critical_path_dump,
# HTA's default of no zero-weight launch edges) must be within 1% of the
# length with the same GPU events, and the perturbed twin (2% off every
# length) fail.
cookgraph_checker_test(HtaOracle.critical_path --perturb
  ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/hta_oracle.py --critical-path
  --compare $<TARGET_FILE:critical_path_dump> ${CMAKE_CURRENT_SOURCE_DIR}/data/hta/critical_path.json)
