# The tools the model can call (docs/architecture.md#tools-the-model-can-call)
# against cookgraph's own commands and the raw input: the program tool_call
# runs them as `cookgraph ask` builds them, and tests/tools/tools_check.py
# compares node's object for every node past the first 100 of the ranking
# with `score --format json --top 0`'s (and gain_ms with `--sort gain`),
# whatif with `cookgraph whatif --node ID=0.5 --format json`, and (native
# snapshots) frames and container with the raw series and ids. Each
# example's check is paired with a run that perturbs one expected number and
# must fail. Included from tests/CMakeLists.txt, after Python3 is found.
add_executable(tool_call ${CMAKE_CURRENT_SOURCE_DIR}/tools/tool_call.cc)
target_link_libraries(tool_call PRIVATE cookgraph::advisor cookgraph::pipeline cookgraph::adapters cookgraph_warnings)

set(tools_check ${CMAKE_CURRENT_SOURCE_DIR}/tools/tools_check.py)
foreach(example pytorch_model gstreamer_pipeline touchdesigner_feedback)
  foreach(variant ${checker_variants})
    set(perturb "")
    set(name tools_check_${example})
    if(variant STREQUAL "perturbed")
      set(perturb --perturb)
      set(name tools_check_notices_a_changed_number_${example})
    endif()
    add_test(NAME ${name}
      COMMAND ${Python3_EXECUTABLE} ${tools_check} --cookgraph $<TARGET_FILE:cookgraph>
        --tool-call $<TARGET_FILE:tool_call> ${PROJECT_SOURCE_DIR}/examples/${example}.json
        ${perturb})
    set_tests_properties(${name} PROPERTIES TIMEOUT 120)
    if(variant STREQUAL "perturbed")
      set_tests_properties(${name} PROPERTIES
        PASS_REGULAR_EXPRESSION "tools_check: MISMATCH [^\n]*(avg_ms|after)")
      cookgraph_plain_test(${name})
    endif()
  endforeach()
endforeach()
# A trace (step critical paths; no budget): node and whatif.
add_test(NAME tools_check_trace_kineto_2021_schema
  COMMAND ${Python3_EXECUTABLE} ${tools_check} --cookgraph $<TARGET_FILE:cookgraph>
    --tool-call $<TARGET_FILE:tool_call>
    ${CMAKE_CURRENT_SOURCE_DIR}/data/fixtures/traces/kineto_2021_schema.json --skip-top 0)
set_tests_properties(tools_check_trace_kineto_2021_schema PROPERTIES TIMEOUT 120)
