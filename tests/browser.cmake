# `cookgraph serve` and `watch --serve` (docs/commands.md#cookgraph-serve), tested as a
# user meets them: tests/tools/serve_safety.py sends hostile requests (Host,
# Origin, token, '..' paths, sizes, streams) in every build, the sanitizer
# builds included; the browser tests drive the page in Debian's headless
# Chromium through playwright-core (tests/browser/, installed by the fixture
# explorer_browser) on the TouchDesigner example, a real GStreamer recording
# (the "bins" pipeline of gstreamer.cmake, nested bins to enter), a PyTorch
# trace with steps and a snapshot of hostile names, and the live page of
# `watch --serve`; the comparison of two snapshots and a folder's summary
# (tests/browser/views_test.mjs); the ask box's conversation
# (tests/browser/ask_thread_test.mjs). Screenshots go to test-artifacts/browser/. The browser
# tests are left out of the sanitizer builds (scripts/test-sanitizers.sh):
# they test the page, which the normal build serves the same.
# Included from tests/CMakeLists.txt, after gstreamer.cmake.
add_test(NAME serve_safety
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/serve_safety.py
    $<TARGET_FILE:cookgraph> ${PROJECT_SOURCE_DIR}/examples/touchdesigner_feedback.json)
set_tests_properties(serve_safety PROPERTIES TIMEOUT 180)
# Header floods, slow-loris and half-sent requests: the normal build measures
# the server's own memory (under 100 MB); scripts/test-sanitizers.sh runs it
# under ThreadSanitizer too.
if(NOT CMAKE_BUILD_TYPE STREQUAL "Sanitize")
  add_test(NAME serve_flood
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/serve_flood.py
      $<TARGET_FILE:cookgraph> ${PROJECT_SOURCE_DIR}/examples/touchdesigner_feedback.json)
  set_tests_properties(serve_flood PROPERTIES TIMEOUT 180)
  cookgraph_plain_test(serve_flood)
endif()

if(NOT CMAKE_BUILD_TYPE STREQUAL "Sanitize")
  set(browser_artifacts ${PROJECT_BINARY_DIR}/test-artifacts/browser)
  add_test(NAME explorer_browser_setup COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/browser/setup.sh)
  set_tests_properties(explorer_browser_setup PROPERTIES FIXTURES_SETUP explorer_browser TIMEOUT 600)
  set(explorer_inputs
    "touchdesigner|${PROJECT_SOURCE_DIR}/examples/touchdesigner_feedback.json"
    "gstreamer|${CMAKE_CURRENT_BINARY_DIR}/gstreamer/bins"
    "pytorch|${CMAKE_CURRENT_SOURCE_DIR}/data/fixtures/traces/kineto_nccl_rank0_5steps.json.gz"
    "hostile|${CMAKE_CURRENT_SOURCE_DIR}/data/explorer/hostile.json|--hostile")
  foreach(entry ${explorer_inputs})
    string(REPLACE "|" ";" parts "${entry}")
    list(GET parts 0 name)
    list(GET parts 1 input)
    list(LENGTH parts n)
    set(extra)
    if(n GREATER 2)
      list(GET parts 2 extra)
    endif()
    add_test(NAME explorer_browser_${name}
      COMMAND ${COOKGRAPH_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/browser/explorer_test.mjs
        --cookgraph $<TARGET_FILE:cookgraph> --input ${input} --out ${browser_artifacts}/${name}
        --fake-llm ${CMAKE_CURRENT_SOURCE_DIR}/tools/fake_llm_server.py ${extra})
    set(fixtures explorer_browser)
    if(name STREQUAL "gstreamer")
      list(APPEND fixtures gst_bins)
    endif()
    set_tests_properties(explorer_browser_${name} PROPERTIES
      FIXTURES_REQUIRED "${fixtures}" RESOURCE_LOCK chromium TIMEOUT 300)
  endforeach()
  # What a TouchDesigner artist reads first (tests/browser/first_fix_test.mjs):
  # the report's HTML and the explorer's first view lead with script_osc,
  # whose removal saves all 15 over-budget frames, and the seven "renders
  # 3840x2160" findings are one entry; the perturbed twin expects blur_fb
  # (the largest mean saving, which saves no over-budget frame) and must fail.
  foreach(variant check perturbed)
    set(expect /project1/control/script_osc)
    if(variant STREQUAL perturbed)
      set(expect /project1/fx/trails/blur_fb)
    endif()
    add_test(NAME explorer_browser_first_fix.${variant}
      COMMAND ${COOKGRAPH_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/browser/first_fix_test.mjs
        --cookgraph $<TARGET_FILE:cookgraph> --input ${PROJECT_SOURCE_DIR}/examples/touchdesigner_feedback.json
        --out ${browser_artifacts}/first_fix_${variant} --expect ${expect} --frames "15 of 15"
        --folded "renders 3840x2160")
    set_tests_properties(explorer_browser_first_fix.${variant} PROPERTIES
      FIXTURES_REQUIRED explorer_browser RESOURCE_LOCK chromium TIMEOUT 300)
  endforeach()
  set_tests_properties(explorer_browser_first_fix.perturbed PROPERTIES WILL_FAIL TRUE)
  # The container totals' own twin: each expected total 0.001 ms off.
  add_test(NAME explorer_browser_first_fix.containers_perturbed
    COMMAND ${COOKGRAPH_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/browser/first_fix_test.mjs
      --cookgraph $<TARGET_FILE:cookgraph> --input ${PROJECT_SOURCE_DIR}/examples/touchdesigner_feedback.json
      --out ${browser_artifacts}/first_fix_containers_perturbed --expect /project1/control/script_osc
      --frames "15 of 15" --container-offset 0.001)
  set_tests_properties(explorer_browser_first_fix.containers_perturbed PROPERTIES WILL_FAIL TRUE
    FIXTURES_REQUIRED explorer_browser RESOURCE_LOCK chromium TIMEOUT 300)
  # The engine's words (tests/browser/engine_words_test.mjs): no output of a
  # trace says "frame" where it means a step, over every trace fixture, the
  # hand-written ONNX Runtime and TensorFlow GPU traces and the PyTorch and
  # ONNX Runtime runs recorded at test time (the table, both reports, every
  # tab of the explorer); the perturbed twin reads the TouchDesigner example,
  # which says "frame" rightly, and must fail.
  file(GLOB word_traces ${CMAKE_CURRENT_SOURCE_DIR}/data/fixtures/traces/*)
  list(FILTER word_traces EXCLUDE REGEX "README")
  foreach(variant check perturbed)
    set(inputs ${word_traces} ${CMAKE_CURRENT_SOURCE_DIR}/data/chrome/onnxruntime_profile.json
      ${CMAKE_CURRENT_SOURCE_DIR}/data/chrome/tf1_gpu_timeline.json
      ${CMAKE_CURRENT_BINARY_DIR}/torch/conv_2threads.json ${CMAKE_CURRENT_BINARY_DIR}/ort/parallel_2thread.json)
    set(fixtures explorer_browser torch_conv_2threads ort_parallel_2thread)
    if(variant STREQUAL perturbed)
      set(inputs ${PROJECT_SOURCE_DIR}/examples/touchdesigner_feedback.json)
      set(fixtures explorer_browser)
    endif()
    add_test(NAME engine_words.${variant}
      COMMAND ${COOKGRAPH_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/browser/engine_words_test.mjs
        --cookgraph $<TARGET_FILE:cookgraph> --out ${browser_artifacts}/engine_words_${variant}
        --word step ${inputs})
    set_tests_properties(engine_words.${variant} PROPERTIES
      FIXTURES_REQUIRED "${fixtures}" RESOURCE_LOCK chromium TIMEOUT 300)
  endforeach()
  # The twin fails for the reason it must: its explorer says "frame" (the
  # last surface read, so every one before it was read too).
  set_tests_properties(engine_words.perturbed PROPERTIES
    PASS_REGULAR_EXPRESSION "engine_words_test: explorer, view [^\n]* says \"[Ff]rames?\"")
  add_test(NAME explorer_browser_views
    COMMAND ${COOKGRAPH_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/browser/views_test.mjs
      --cookgraph $<TARGET_FILE:cookgraph> --work ${CMAKE_CURRENT_BINARY_DIR}/explorer_views
      --out ${browser_artifacts}/views --gen-pair ${CMAKE_CURRENT_SOURCE_DIR}/tools/gen_diff_pair.py
      --examples ${PROJECT_SOURCE_DIR}/examples)
  set_tests_properties(explorer_browser_views PROPERTIES
    FIXTURES_REQUIRED explorer_browser RESOURCE_LOCK chromium TIMEOUT 300)
  # The ask box as a conversation: two questions in a row against the fake
  # server's scripted model (a call of the tool node, then a follow-up that must carry
  # the first turn), "New conversation" (tests/browser/ask_thread_test.mjs).
  add_test(NAME explorer_browser_ask_thread
    COMMAND ${COOKGRAPH_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/browser/ask_thread_test.mjs
      --cookgraph $<TARGET_FILE:cookgraph> --input ${PROJECT_SOURCE_DIR}/examples/touchdesigner_feedback.json
      --out ${browser_artifacts}/ask_thread --fake-llm ${CMAKE_CURRENT_SOURCE_DIR}/tools/fake_llm_server.py)
  set_tests_properties(explorer_browser_ask_thread PROPERTIES
    FIXTURES_REQUIRED explorer_browser RESOURCE_LOCK chromium TIMEOUT 300)
  add_test(NAME explorer_browser_live
    COMMAND ${COOKGRAPH_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/browser/live_test.mjs
      --cookgraph $<TARGET_FILE:cookgraph> --out ${browser_artifacts}/live)
  set_tests_properties(explorer_browser_live PROPERTIES
    FIXTURES_REQUIRED explorer_browser RESOURCE_LOCK chromium TIMEOUT 300)
  # The one-file page (docs/web.md), built by scripts/build-web.sh and opened
  # from its file (tests/browser/web_page_test.mjs): cookgraph.score() in the
  # page equals the native `score --format json` for every example, a YAML
  # copy of the TouchDesigner one, every trace fixture (the two ranks of one
  # job as a folder) and three GStreamer pipelines recorded here; the Nodes
  # tab names the top node of a file chosen through the file input; hostile
  # names run no script; a 1 GB input is refused; no request leaves the page.
  # The perturbed twin adds 1e-6 to every native number and must fail.
  add_test(NAME web_page_build COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/build-web.sh)
  set_tests_properties(web_page_build PROPERTIES FIXTURES_SETUP web_page TIMEOUT 1800)
  set(web_work ${CMAKE_CURRENT_BINARY_DIR}/web_page)
  add_test(NAME web_page_yaml COMMAND ${Python3_EXECUTABLE} -c
    "import json, os, sys, yaml; os.makedirs(sys.argv[2], exist_ok=True); yaml.safe_dump(json.load(open(sys.argv[1])), open(sys.argv[2] + '/touchdesigner_feedback.yaml', 'w'), sort_keys=False)"
    ${PROJECT_SOURCE_DIR}/examples/touchdesigner_feedback.json ${web_work})
  set_tests_properties(web_page_yaml PROPERTIES FIXTURES_SETUP web_page_yaml)
  file(GLOB web_examples ${PROJECT_SOURCE_DIR}/examples/*.json)
  file(GLOB web_traces ${CMAKE_CURRENT_SOURCE_DIR}/data/fixtures/traces/*)
  list(FILTER web_traces EXCLUDE REGEX "README")
  foreach(variant check perturbed)
    set(offset 0)
    if(variant STREQUAL perturbed)
      set(offset 1e-6)
    endif()
    add_test(NAME web_page.${variant}
      COMMAND ${COOKGRAPH_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/browser/web_page_test.mjs
        --cookgraph $<TARGET_FILE:cookgraph> --page ${PROJECT_SOURCE_DIR}/build-web/cookgraph.html
        --out ${browser_artifacts}/web_page_${variant} --offset ${offset}
        --hostile ${CMAKE_CURRENT_SOURCE_DIR}/data/explorer/hostile.json
        --bad ${CMAKE_CURRENT_SOURCE_DIR}/data/bad/native/duplicate_key.json
        ${PROJECT_SOURCE_DIR}/examples/touchdesigner_feedback.json ${web_examples}
        ${web_work}/touchdesigner_feedback.yaml ${web_traces}
        ${gst_work}/linear ${gst_work}/tee ${gst_work}/avwait)
    set_tests_properties(web_page.${variant} PROPERTIES
      FIXTURES_REQUIRED "explorer_browser;web_page;web_page_yaml;gst_linear;gst_tee;gst_avwait"
      RESOURCE_LOCK chromium TIMEOUT 600)
  endforeach()
  # The page's Ask tab against the fake LLM server with CORS
  # (tests/browser/web_ask_test.mjs): its requests are `cookgraph ask`'s, byte
  # for byte, its preview counts the tokens `ask --dry-run` counts, the key is
  # kept only when asked, and a 401, an endpoint without CORS and Stop are
  # said. The perturbed twin asks natively with a smaller budget and must fail.
  foreach(variant check perturbed)
    set(offset 0)
    if(variant STREQUAL perturbed)
      set(offset -16000)
    endif()
    add_test(NAME web_ask.${variant}
      COMMAND ${COOKGRAPH_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/browser/web_ask_test.mjs
        --cookgraph $<TARGET_FILE:cookgraph> --page ${PROJECT_SOURCE_DIR}/build-web/cookgraph.html
        --input ${PROJECT_SOURCE_DIR}/examples/touchdesigner_feedback.json
        --fake-llm ${CMAKE_CURRENT_SOURCE_DIR}/tools/fake_llm_server.py
        --out ${browser_artifacts}/web_ask_${variant} --budget-offset ${offset})
    set_tests_properties(web_ask.${variant} PROPERTIES
      FIXTURES_REQUIRED "explorer_browser;web_page" RESOURCE_LOCK chromium TIMEOUT 300)
  endforeach()
  set_tests_properties(web_ask.perturbed PROPERTIES
    PASS_REGULAR_EXPRESSION "web_ask_test: request 1 differs from cookgraph ask's")
  # It fails for the reason it must: score() differs from the native numbers.
  set_tests_properties(web_page.perturbed PROPERTIES
    PASS_REGULAR_EXPRESSION "web_page_test: score[(][)]: [^\n]*: [0-9.e+-]+ != ")
  foreach(entry ${explorer_inputs})
    string(REGEX REPLACE "[|].*" "" name "${entry}")
    cookgraph_plain_test(explorer_browser_${name})
  endforeach()
  cookgraph_plain_test(web_page_build web_page_yaml web_page.check web_page.perturbed
    web_ask.check web_ask.perturbed)
  # scripts/test.sh builds the page beside the sanitizer half and runs these
  # last (`ctest -L web`), not with the other plain tests.
  set_property(TEST web_page_build web_page_yaml web_page.check web_page.perturbed
    web_ask.check web_ask.perturbed APPEND PROPERTY LABELS web)
  cookgraph_plain_test(explorer_browser_views explorer_browser_ask_thread explorer_browser_live
    explorer_browser_first_fix.check explorer_browser_first_fix.perturbed
    explorer_browser_first_fix.containers_perturbed engine_words.check engine_words.perturbed)
endif()
