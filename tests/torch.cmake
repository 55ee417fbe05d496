# PyTorch, recorded at test time: tests/tools/torch_record.py trains a small
# model on the CPU with Debian's python3-torch, which has no Kineto and writes
# the legacy autograd-profiler layout (docs/formats.md#pytorch-legacy-export),
# its steps opened as record_function("ProfilerStep#N"). Each recording is a
# ctest fixture; tests/tools/chrome_trace_check.py reads it independently
# (nodes, nesting with the export's whole-µs overlaps, self times, steps less
# the warm-up) and tests/tools/torch_legacy_check.py checks that cookgraph
# reads it as PyTorch: no frame budget, the warm-up named and left out, an
# event critical path. Each check is paired with a perturbed run that must fail.
# Included from tests/CMakeLists.txt, after Python3 and chrome_trace_dump.
set(torch_work ${CMAKE_CURRENT_BINARY_DIR}/torch)
# name | torch_record.py's options: an MLP on one intra-op thread, a small
# convolutional network on two.
set(torch_runs
  "mlp_1thread|--model mlp --threads 1"
  "conv_2threads|--model conv --threads 2")
foreach(entry ${torch_runs})
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 name)
  list(GET parts 1 options)
  separate_arguments(options UNIX_COMMAND "${options}")
  set(trace ${torch_work}/${name}.json)
  add_test(NAME TorchRecord.${name}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/torch_record.py ${trace}
      ${options})
  set_tests_properties(TorchRecord.${name} PROPERTIES FIXTURES_SETUP torch_${name} TIMEOUT 120)
  cookgraph_checker_test(ChromeTraceIndependent.torch_${name} --perturb
    ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/chrome_trace_check.py
    ${trace} --dump $<TARGET_FILE:chrome_trace_dump>)
  cookgraph_checker_test(TorchLegacy.${name} --perturb
    ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/torch_legacy_check.py
    $<TARGET_FILE:cookgraph> ${trace})
  foreach(variant ${checker_variants})
    set_tests_properties(ChromeTraceIndependent.torch_${name}.${variant}
      TorchLegacy.${name}.${variant} PROPERTIES FIXTURES_REQUIRED torch_${name})
  endforeach()
endforeach()
