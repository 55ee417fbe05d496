# The bad-input corpus (tests/data/bad, README.md there): one ctest per case
# of tests/data/bad/cases.tsv (bad_input.NAME), run by
# tests/tools/bad_input_check.py: exit code, the one error line, peak memory,
# nothing left behind; accepted cases equal their clean input. The cases too
# large to commit (2 GB sparse files, gzip bombs of 4 GiB, names of a million
# characters) are written at test time by tests/tools/bad_corpus.py into the
# build folder (about 50 MB on disk; the sparse files take none).
# Included from tests/CMakeLists.txt, after Python3 is found.
set(bad_corpus_dir ${CMAKE_CURRENT_SOURCE_DIR}/data/bad)
set(bad_generated_dir ${CMAKE_CURRENT_BINARY_DIR}/bad_input)
set(bad_manifest ${bad_corpus_dir}/cases.tsv)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${bad_manifest})

add_test(NAME bad_input_generate
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/bad_corpus.py large ${bad_generated_dir})
set_tests_properties(bad_input_generate PROPERTIES FIXTURES_SETUP bad_input_large TIMEOUT 300)

# The committed small cases are what the script writes, byte for byte.
add_test(NAME bad_input_corpus_is_reproducible
  COMMAND sh -c "d=$(mktemp -d) && ${Python3_EXECUTABLE} tests/tools/bad_corpus.py small $d && for f in native gzip chrome gstreamer config pack accepted; do diff -r $d/$f tests/data/bad/$f || exit 1; done; rm -rf $d"
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})

# One test per case. Semicolons in the regexes would split file(STRINGS)
# lines into list items, so only the names are taken, from the whole text.
# In a sanitizer build (scripts/test-sanitizers.sh) the memory bounds allow
# for ASan's redzones and quarantine.
set(bad_check_flags)
if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=")
  set(bad_check_flags --sanitized)
endif()
file(READ ${bad_manifest} bad_manifest_text)
string(REGEX MATCHALL "\n[a-z0-9_]+\t" bad_case_lines "${bad_manifest_text}")
foreach(line ${bad_case_lines})
  string(STRIP "${line}" case)
  if(case STREQUAL "name")  # the header
    continue()
  endif()
  add_test(NAME bad_input.${case}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/bad_input_check.py
      $<TARGET_FILE:cookgraph> ${PROJECT_SOURCE_DIR} ${bad_generated_dir} ${bad_manifest} ${case}
      ${bad_check_flags})
  set_tests_properties(bad_input.${case} PROPERTIES TIMEOUT 180)
  string(REGEX MATCH "\n${case}\t[^\n]*\\{gen\\}" uses_generated "${bad_manifest_text}")
  if(uses_generated)
    set_tests_properties(bad_input.${case} PROPERTIES FIXTURES_REQUIRED bad_input_large)
  endif()
endforeach()

# Nothing is lost in a batch: score over one folder holding every corpus input
# and good ones (-j 1 and -j 2, JSON and CSV, three shards) gives every bad
# input's error and every good input's results exactly as they are alone.
# The sanitizer half runs this batch under ThreadSanitizer instead
# (scripts/test-sanitizers.sh); under ASan each input is checked alone by
# bad_input.* above.
if(NOT CMAKE_BUILD_TYPE STREQUAL "Sanitize")
  add_test(NAME bad_input_batch_loses_nothing
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/bad_input_batch.py
      $<TARGET_FILE:cookgraph> ${PROJECT_SOURCE_DIR} ${bad_generated_dir}
      ${CMAKE_CURRENT_BINARY_DIR}/bad_input_batch)
  set_tests_properties(bad_input_batch_loses_nothing PROPERTIES
    FIXTURES_REQUIRED bad_input_large TIMEOUT 600)
  cookgraph_plain_test(bad_input_batch_loses_nothing)
endif()
