# The TouchDesigner exporter (examples/touchdesigner/cookgraph_export.py) run
# inside a stand-in td module (tests/tools/td_standin/): its snapshot must
# validate against the schema, and `cookgraph score` / `cookgraph graph` on it
# must give the numbers and the structure the stand-in's own schedule implies.
# The second test makes deliberate mistakes in copies of the exporter (ignoring
# cookAbsFrame, forcing a cook, ...) and passes only when the first test's
# checks catch every one. Python3_EXECUTABLE comes from tests/CMakeLists.txt.
set(td_exporter_work ${CMAKE_CURRENT_BINARY_DIR}/touchdesigner_exporter)
add_test(NAME touchdesigner_exporter
  COMMAND ${Python3_EXECUTABLE} tests/tools/td_standin/check_exporter.py
    --cookgraph $<TARGET_FILE:cookgraph> --work ${td_exporter_work}
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(touchdesigner_exporter PROPERTIES TIMEOUT 300)
# The mutants test the checks (Python), not cookgraph: the sanitizer build,
# whose cookgraph the first test already runs, leaves them out.
if(NOT CMAKE_BUILD_TYPE STREQUAL "Sanitize")
  add_test(NAME touchdesigner_exporter_catches_mistakes
    COMMAND ${Python3_EXECUTABLE} tests/tools/td_standin/check_exporter.py
      --cookgraph $<TARGET_FILE:cookgraph> --work ${td_exporter_work} --mutants
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(touchdesigner_exporter_catches_mistakes PROPERTIES TIMEOUT 300)
  cookgraph_plain_test(touchdesigner_exporter_catches_mistakes)
endif()
# The exporter's live mode streaming to a real `cookgraph watch`, both wire forms.
add_test(NAME touchdesigner_exporter_live
  COMMAND ${Python3_EXECUTABLE} tests/tools/td_standin/check_live.py
    --cookgraph $<TARGET_FILE:cookgraph> --work ${td_exporter_work}
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(touchdesigner_exporter_live PROPERTIES TIMEOUT 300)
# Every TouchDesigner snippet of the knowledge packs, run in the stand-in,
# does what its rule claims (tests/tools/td_standin/check_snippets.py); the
# perturbed twin, heavy-top's old snippet that set the Resolution parameters
# without Output Resolution, must fail.
cookgraph_checker_test(touchdesigner_snippets --perturb
  ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/td_standin/check_snippets.py
  ${PROJECT_SOURCE_DIR}/advisor/packs/touchdesigner.yaml)
