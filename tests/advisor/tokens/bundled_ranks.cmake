# The rank files the build makes and installs (third_party/tiktoken_ranks/):
# OpenAI's SHA-256, their licence, `cmake --install` putting them under the
# prefix, and `ask --dry-run` in an empty environment counting exactly with
# them (bundled_ranks_check.sh). Included from tests/CMakeLists.txt; not when
# configured with -DCOOKGRAPH_BUNDLE_RANKS=OFF.
if(TARGET cookgraph_tiktoken_ranks)
  add_test(NAME tiktoken_ranks_installed_with_cookgraph
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/bundled_ranks_check.sh
      $<TARGET_FILE:cookgraph> ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  set_tests_properties(tiktoken_ranks_installed_with_cookgraph PROPERTIES TIMEOUT 120)
endif()
