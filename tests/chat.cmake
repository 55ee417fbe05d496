# Conversations and tool calls of `cookgraph ask` (docs/testing.md#conversations-and-tool-calls),
# checked from the outside by tests/tools/chat_check.py: a scripted model
# (tests/tools/fake_llm_server.py, case `script`) that calls the tools, token
# counts recounted with js-tiktoken, tool results against `score --format
# json`, a session resumed byte for byte, a third-party mock server from npm
# without tools (@dwmkerr/mock-llm, pinned in tests/tools/openai_mock), and
# the questions with known answers of tests/data/chat_questions.json.
# Included from tests/CMakeLists.txt, after Python3 and node are looked for.
set(chat_check ${CMAKE_CURRENT_SOURCE_DIR}/tools/chat_check.py)
set(chat_work ${CMAKE_CURRENT_BINARY_DIR}/chat)
set(chat_args --cookgraph $<TARGET_FILE:cookgraph> --source ${PROJECT_SOURCE_DIR})

if(NOT COOKGRAPH_NODE)
  add_test(NAME chat_setup COMMAND sh -c
    "echo 'node not found: the conversation tests need Node.js and npm (scripts/install-deps.sh)' >&2; exit 1")
  set_tests_properties(chat_setup PROPERTIES LABELS chat)
  return()
endif()

# The set-up installs js-tiktoken (the token tests' pinned copy, as
# tests/tools/token_corpus.sh does) and mock-llm with npm ci when they are not
# installed already: the one step that needs the network. Both set-ups may
# run npm ci in tests/tools/tiktoken, so never at once.
add_test(NAME chat_setup COMMAND ${Python3_EXECUTABLE} ${chat_check} ${chat_args}
  --work ${chat_work}/setup setup)
set_tests_properties(chat_setup PROPERTIES FIXTURES_SETUP chat_npm RESOURCE_LOCK npm_tiktoken
  TIMEOUT 600 LABELS chat)
if(TEST tiktoken_reference_setup)
  set_tests_properties(tiktoken_reference_setup PROPERTIES RESOURCE_LOCK npm_tiktoken)
endif()

# name | mode and options
set(chat_checks
  "chat_conversation_within_20000_tokens|conversation --budget 20000"
  "chat_conversation_within_6000_tokens|conversation --budget 6000"
  "chat_session_resumes_byte_identically|resume --budget 20000"
  "chat_mock_server_ignoring_tools|mock --budget 20000"
  "chat_mock_server_refusing_tools|mock --refuse --budget 20000"
  "chat_questions_with_known_answers|questions")
# The checks can fail (they test the checker, so the sanitizer builds leave
# them out, see tests/CMakeLists.txt): a budget 1 token below the largest
# request, a statistic of the score JSON altered, the script asking for
# another node than the expected one.
if("perturbed" IN_LIST checker_variants)
  list(APPEND chat_checks
    "chat_check_notices_a_request_over_budget|conversation --budget 6000 --perturb budget"
    "chat_check_notices_a_changed_statistic|conversation --budget 6000 --perturb stat"
    "chat_check_notices_a_wrong_node|questions --perturb question")
endif()
foreach(entry ${chat_checks})
  string(FIND "${entry}" "|" bar)
  string(SUBSTRING "${entry}" 0 ${bar} name)
  math(EXPR rest_at "${bar} + 1")
  string(SUBSTRING "${entry}" ${rest_at} -1 options)
  separate_arguments(options UNIX_COMMAND "${options}")
  add_test(NAME ${name} COMMAND ${Python3_EXECUTABLE} ${chat_check} ${chat_args}
    --work ${chat_work}/${name} ${options})
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED chat_npm TIMEOUT 120 LABELS chat)
endforeach()
if("perturbed" IN_LIST checker_variants)
  set_tests_properties(chat_check_notices_a_request_over_budget PROPERTIES
    PASS_REGULAR_EXPRESSION "chat_check: FAIL \\(a\\) [^\n]*budget: request [0-9]+ has [0-9]+ tokens")
  set_tests_properties(chat_check_notices_a_changed_statistic PROPERTIES
    PASS_REGULAR_EXPRESSION "chat_check: FAIL \\(b\\) node [^\n]*: avg_ms: ")
  set_tests_properties(chat_check_notices_a_wrong_node PROPERTIES
    PASS_REGULAR_EXPRESSION "chat_check: FAIL \\(q\\) td_most_frames_saved: no tool result carries")
  cookgraph_plain_test(chat_check_notices_a_request_over_budget chat_check_notices_a_changed_statistic
                       chat_check_notices_a_wrong_node)
endif()
