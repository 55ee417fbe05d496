# ONNX Runtime, recorded at test time: tests/ort/setup.sh installs
# onnxruntime-node (npm, CPU binaries, --ignore-scripts), tests/tools/ort_model.py
# writes a two-branch model with Debian's python3-onnx, and
# tests/tools/ort_record.mjs runs it eight times with profiling on, per
# executor (sequential, parallel) and intra-op thread count (1, 2). Each
# profile is a ctest fixture; tests/tools/chrome_trace_check.py reads it
# independently (nodes, self times, runs less the warm-up) and
# tests/tools/ort_check.py checks what cookgraph makes of it: the warm-up run
# named, the time outside nodes per run, the executor-overhead finding, no
# share over 100% in any output, the intra-op threads per node. Each check is paired with a perturbed run
# that must fail. Included from tests/CMakeLists.txt, after Python3 and
# chrome_trace_dump.
find_program(COOKGRAPH_NODE node)
set(ort_work ${CMAKE_CURRENT_BINARY_DIR}/ort)
if(COOKGRAPH_NODE)
  add_test(NAME OrtRecord.setup COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/ort/setup.sh)
else()
  add_test(NAME OrtRecord.setup COMMAND sh -c
    "echo 'node not found: the ONNX Runtime recordings need Node.js (scripts/install-deps.sh)' >&2; exit 1")
endif()
set_tests_properties(OrtRecord.setup PROPERTIES FIXTURES_SETUP ort_setup TIMEOUT 300
  RESOURCE_LOCK npm)
add_test(NAME OrtRecord.model
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/ort_model.py
    ${ort_work}/two_branches.onnx)
set_tests_properties(OrtRecord.model PROPERTIES FIXTURES_SETUP ort_model)
file(MAKE_DIRECTORY ${ort_work})
foreach(mode sequential parallel)
  foreach(threads 1 2)
    set(name ${mode}_${threads}thread)
    set(trace ${ort_work}/${name}.json)
    add_test(NAME OrtRecord.${name}
      COMMAND ${COOKGRAPH_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/ort_record.mjs
        ${ort_work}/two_branches.onnx ${trace} ${mode} ${threads} 8)
    set_tests_properties(OrtRecord.${name} PROPERTIES FIXTURES_SETUP ort_${name}
      FIXTURES_REQUIRED "ort_setup;ort_model" TIMEOUT 120)
    cookgraph_checker_test(ChromeTraceIndependent.ort_${name} --perturb
      ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/chrome_trace_check.py
      ${trace} --dump $<TARGET_FILE:chrome_trace_dump>)
    cookgraph_checker_test(OrtProfile.${name} --perturb
      ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/ort_check.py
      $<TARGET_FILE:cookgraph> ${trace})
    foreach(variant ${checker_variants})
      set_tests_properties(ChromeTraceIndependent.ort_${name}.${variant}
        OrtProfile.${name}.${variant} PROPERTIES FIXTURES_REQUIRED ort_${name})
    endforeach()
    if(threads GREATER 1 AND "perturbed" IN_LIST checker_variants)
      # The intra-op figures' own perturbed twin (the one above perturbs the
      # time outside nodes).
      add_test(NAME OrtProfile.${name}.intra_op_perturbed
        COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/ort_check.py
          $<TARGET_FILE:cookgraph> ${trace} --perturb intra-op)
      set_tests_properties(OrtProfile.${name}.intra_op_perturbed PROPERTIES WILL_FAIL TRUE
        FIXTURES_REQUIRED ort_${name})
      cookgraph_plain_test(OrtProfile.${name}.intra_op_perturbed)
    endif()
  endforeach()
endforeach()
# diff names changed thread settings: the intra-op threads, the executor, both,
# and none.
foreach(pair sequential_1thread:sequential_2thread sequential_2thread:parallel_2thread
        sequential_1thread:parallel_2thread parallel_1thread:parallel_1thread)
  string(REPLACE ":" ";" sides ${pair})
  list(GET sides 0 before)
  list(GET sides 1 after)
  cookgraph_checker_test(OrtDiff.${before}_${after} --perturb
    ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/ort_check.py
    $<TARGET_FILE:cookgraph> ${ort_work}/${before}.json --against ${ort_work}/${after}.json)
  foreach(variant ${checker_variants})
    set_tests_properties(OrtDiff.${before}_${after}.${variant} PROPERTIES
      FIXTURES_REQUIRED "ort_${before};ort_${after}")
  endforeach()
endforeach()
