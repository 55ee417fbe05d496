# Runs `cookgraph score` and `cookgraph graph` on INPUT and checks both outputs
# with tests/tools/independent_check.py. Variables: COOKGRAPH, PYTHON, SOURCE,
# INPUT, WORK.
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${COOKGRAPH} score ${INPUT} --format json
  OUTPUT_FILE ${WORK}/score.json RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cookgraph score failed with ${rc}")
endif()
execute_process(COMMAND ${COOKGRAPH} graph ${INPUT} --format json
  OUTPUT_FILE ${WORK}/graph.json RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cookgraph graph failed with ${rc}")
endif()
execute_process(COMMAND ${PYTHON} ${SOURCE}/tests/tools/independent_check.py ${INPUT}
  --score ${WORK}/score.json --graph ${WORK}/graph.json RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "independent check failed")
endif()
