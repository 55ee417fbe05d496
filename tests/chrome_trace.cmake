# The Chrome trace adapter (adapters/chrome/chrome_trace.h) against an independent
# reading of real traces in tests/data/fixtures/traces and of a synthetic
# one: the program chrome_trace_dump prints what the adapter made,
# tests/tools/chrome_trace_check.py recomputes the same facts from the raw
# file with Python's standard library and compares. Each check is paired
# with a run that perturbs one expected cook time by 1 ns and must fail.
# Included from tests/CMakeLists.txt, after Python3 is found.
add_executable(chrome_trace_dump ${CMAKE_CURRENT_SOURCE_DIR}/tools/chrome_trace_dump.cc)
target_link_libraries(chrome_trace_dump PRIVATE cookgraph::adapters_chrome cookgraph_warnings)

set(chrome_fixtures ${CMAKE_CURRENT_SOURCE_DIR}/data/fixtures/traces)
set(chrome_traces)
foreach(trace kineto_cuda_event_sync.json.gz kineto_cpu_only.json.gz kineto_2021_schema.json
        tf1_timeline_cpu_step.json)
  list(APPEND chrome_traces ${chrome_fixtures}/${trace})
endforeach()
# Written by tests/data/chrome/make_synthetic_kineto.py: GPU work that runs in
# the next step's time, B/E ranges, fwdbwd flows, events out of order.
list(APPEND chrome_traces ${CMAKE_CURRENT_SOURCE_DIR}/data/chrome/synthetic_kineto.json)
# The forward thread waiting in `## backward ##` for the autograd thread.
list(APPEND chrome_traces ${CMAKE_CURRENT_SOURCE_DIR}/data/chrome/autograd_thread.json)
# TensorFlow 1 on a GPU: per-stream processes, stream:all and memcpy copies.
list(APPEND chrome_traces ${CMAKE_CURRENT_SOURCE_DIR}/data/chrome/tf1_gpu_timeline.json)
foreach(path ${chrome_traces})
  get_filename_component(trace ${path} NAME)
  cookgraph_checker_test(ChromeTraceIndependent.${trace} --perturb
    ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/chrome_trace_check.py
    ${path} --dump $<TARGET_FILE:chrome_trace_dump>)
endforeach()

# GPU time, launch statistics, overlap, memory peaks and step times
# (metrics/trace_summary.h) against tests/tools/hta_check.py, which follows
# Holistic Trace Analysis' definitions line by line from the raw file. Every
# real trace, and the two ranks of one job read as one; each paired with a
# run whose expected idle time is perturbed and must fail.
set(hta_inputs)
foreach(trace kineto_2021_schema.json kineto_alexnet_sync.json.gz kineto_cpu_only.json.gz
        kineto_cuda_event_sync.json.gz kineto_event_sync_multi_stream.json.gz
        kineto_memory_rank1_of_2.json.gz kineto_nccl_rank0_5steps.json.gz
        kineto_resnet50_workers4.json.gz tf1_timeline_cpu_step.json hta_two_ranks)
  cookgraph_checker_test(HtaBreakdown.${trace} --perturb
    ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/hta_check.py
    --compare $<TARGET_FILE:cookgraph> ${chrome_fixtures}/${trace})
endforeach()
# HTA itself as the oracle (tests/tools/hta_oracle.py): the launch delays and
# the temporal and idle breakdown that Meta's Holistic Trace Analysis at commit
# f4d0062 computes for every GPU fixture and for a fractional-µs copy of one
# (tests/data/hta/alexnet_fractional.json.gz), run by `hta_oracle.py
# --regenerate` and kept in tests/data/hta/gpu_time.json; cookgraph's, with
# --hta-rounding, must equal them, its exact variant differ on the fractional
# trace, and the perturbed twin fail.
cookgraph_checker_test(HtaOracle.launches --perturb
  ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/hta_oracle.py
  --compare $<TARGET_FILE:cookgraph> ${CMAKE_CURRENT_SOURCE_DIR}/data/hta/gpu_time.json)

# TensorFlow 1's GPU streams (tests/tools/tf_gpu_check.py): each GPU event
# counted once, per stream and per node, and the GPU breakdown.
cookgraph_checker_test(TfGpu.tf1_gpu_timeline --perturb
  ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/tf_gpu_check.py
  $<TARGET_FILE:cookgraph> ${CMAKE_CURRENT_SOURCE_DIR}/data/chrome/tf1_gpu_timeline.json)

add_test(NAME HtaBreakdown.self_test
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/hta_check.py --self-test)
