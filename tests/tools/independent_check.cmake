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

# The check can fail: a relative error of 1e-8 in one statistic, or one edge
# dropped from the topological order's constraints, must be caught.
execute_process(COMMAND ${PYTHON} -c "
import json, sys
work = sys.argv[1]
score = json.load(open(work + '/score.json'))
node = score['snapshots'][0]['nodes'][0]
node['std_ms'] = node['std_ms'] * (1 + 1e-8) + 1e-12
json.dump(score, open(work + '/score_perturbed.json', 'w'))
graph = json.load(open(work + '/graph.json'))
graph['order'].reverse()
json.dump(graph, open(work + '/graph_perturbed.json', 'w'))
" ${WORK} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "could not write the perturbed outputs")
endif()
foreach(broken score graph)
  if(broken STREQUAL score)
    set(args --score ${WORK}/score_perturbed.json)
  else()
    set(args --graph ${WORK}/graph_perturbed.json)
  endif()
  execute_process(COMMAND ${PYTHON} ${SOURCE}/tests/tools/independent_check.py ${INPUT} ${args}
    OUTPUT_QUIET ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0)
    message(FATAL_ERROR "the independent check did not notice a perturbed ${broken} output")
  endif()
endforeach()
