// cookgraph._cookgraph: the C++ half of the Python package `cookgraph`
// (docs/python.md). The pure-Python half (python/cookgraph/__init__.py) turns
// what these functions return into pandas objects.

#include <pybind11/pybind11.h>

#include "python/batch.h"
#include "python/errors.h"
#include "python/snapshot.h"

PYBIND11_MODULE(_cookgraph, m) {
  namespace python = cookgraph::python;
  m.doc() = "cookgraph's libraries for Python; use the package `cookgraph`, not this module.";
  python::AddErrors(m);
  python::SnapshotClass snapshot = python::BindSnapshot(m);
  python::BindAdvisor(snapshot);
  python::BindBatch(m);
}
