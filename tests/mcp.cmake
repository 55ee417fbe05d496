# `cookgraph mcp` (docs/testing.md#the-mcp-server):
# - mcp_client.INPUT: the official TypeScript client (@modelcontextprotocol/sdk,
#   StdioClientTransport) on the TouchDesigner example, a Kineto trace with GPU
#   kernels and a GStreamer recording made at test time (the avwait pipeline of
#   tests/gstreamer.cmake): every method and tool, top_nodes and node against
#   `score --format json`, whatif against `whatif --format json`, critical_path
#   against `graph --format json` (tests/mcp/client_test.mjs);
# - mcp_inspector: the MCP Inspector's CLI mode (tests/mcp/inspector_check.py);
# - mcp_hostile: malformed messages, a 100 MB line, paths outside --allow,
#   wrong types, pipelined requests (tests/mcp/hostile_check.py), run once
#   under ASan+UBSan like every test of the binary.
# Each has its perturbed twin, which must fail. The npm packages are installed
# by the fixture mcp_client (tests/mcp/setup.sh); the client and Inspector
# tests run in the normal build, with the browser's.
cookgraph_checker_test(mcp_hostile --perturb
  ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/mcp/hostile_check.py $<TARGET_FILE:cookgraph>
  ${PROJECT_SOURCE_DIR}/examples/touchdesigner_feedback.json)
set_tests_properties(mcp_hostile.check PROPERTIES TIMEOUT 300)
if(NOT COOKGRAPH_NODE OR CMAKE_BUILD_TYPE STREQUAL "Sanitize")
  return()
endif()
add_test(NAME mcp_client_setup COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/mcp/setup.sh)
set_tests_properties(mcp_client_setup PROPERTIES FIXTURES_SETUP mcp_client TIMEOUT 600)
cookgraph_plain_test(mcp_client_setup)
set(mcp_inputs
  "example|${PROJECT_SOURCE_DIR}/examples/touchdesigner_feedback.json|"
  "trace|${CMAKE_CURRENT_SOURCE_DIR}/data/fixtures/traces/kineto_alexnet_sync.json.gz|"
  "gstreamer|${gst_work}/avwait|gst_avwait")
foreach(entry ${mcp_inputs})
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 name)
  list(GET parts 1 input)
  list(GET parts 2 fixture)
  foreach(variant check perturbed)
    set(extra)
    if(variant STREQUAL perturbed)
      set(extra --perturb)
    endif()
    add_test(NAME mcp_client.${name}.${variant}
      COMMAND ${COOKGRAPH_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/mcp/client_test.mjs
        --cookgraph $<TARGET_FILE:cookgraph> --input ${input} ${extra})
    set_tests_properties(mcp_client.${name}.${variant} PROPERTIES
      FIXTURES_REQUIRED "mcp_client;${fixture}" TIMEOUT 300)
    if(variant STREQUAL perturbed)
      set_tests_properties(mcp_client.${name}.${variant} PROPERTIES WILL_FAIL TRUE)
    endif()
    cookgraph_plain_test(mcp_client.${name}.${variant})
  endforeach()
endforeach()
foreach(variant check perturbed)
  set(extra)
  if(variant STREQUAL perturbed)
    set(extra --perturb)
  endif()
  add_test(NAME mcp_inspector.${variant}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/mcp/inspector_check.py
      ${CMAKE_CURRENT_SOURCE_DIR}/mcp/node_modules/.bin/mcp-inspector $<TARGET_FILE:cookgraph>
      ${PROJECT_SOURCE_DIR}/examples/touchdesigner_feedback.json ${extra})
  set_tests_properties(mcp_inspector.${variant} PROPERTIES FIXTURES_REQUIRED mcp_client TIMEOUT 300)
  if(variant STREQUAL perturbed)
    set_tests_properties(mcp_inspector.${variant} PROPERTIES WILL_FAIL TRUE)
  endif()
  cookgraph_plain_test(mcp_inspector.${variant})
endforeach()
