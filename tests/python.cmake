# The Python module (python/, docs/python.md) against the CLI, run by Debian's
# python3 -m pytest with the module from the build tree
# (tests/python/test_module.py, test_notebook.py): nodes() and score() equal
# to `score --format csv` for every example, real trace, GStreamer recording
# and TouchDesigner exporter snapshot; diff() to `diff --format csv`;
# prompt() to `ask --dry-run`; ask() streamed from the fake LLM server; every
# error the CLI's message; load() without the GIL; the example notebook run.
# The Dask test (test_dask.py, label `long`) scores 2,000 generated snapshots
# on a local cluster of two worker processes, once more while one is killed.
# Not in the sanitizer builds, which do not build the module. Included from
# tests/CMakeLists.txt, after Python3 is found.
if(TARGET cookgraph_python)
  set(python_test_env
    PYTHONPATH=${CMAKE_BINARY_DIR}/python
    COOKGRAPH=$<TARGET_FILE:cookgraph>
    PYTHONDONTWRITEBYTECODE=1)
  set(pytest ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider)
  add_test(NAME python_module
    COMMAND ${pytest} ${CMAKE_CURRENT_SOURCE_DIR}/python/test_module.py
      ${CMAKE_CURRENT_SOURCE_DIR}/python/test_notebook.py
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(python_module PROPERTIES ENVIRONMENT "${python_test_env}" TIMEOUT 300)
  add_test(NAME python_dask_cluster
    COMMAND ${pytest} ${CMAKE_CURRENT_SOURCE_DIR}/python/test_dask.py
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(python_dask_cluster PROPERTIES
    ENVIRONMENT "${python_test_env}" TIMEOUT 600 LABELS long)
  cookgraph_plain_test(python_module python_dask_cluster)
endif()
