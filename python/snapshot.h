#ifndef COOKGRAPH_PYTHON_SNAPSHOT_H_
#define COOKGRAPH_PYTHON_SNAPSHOT_H_

// cookgraph._cookgraph.Snapshot: one input read and analysed, what
// cookgraph.load() returns wrapped in cookgraph.Snapshot (docs/python.md#snapshot).

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <string>

#include "advisor/judge.h"

namespace cookgraph::python {

namespace py = pybind11;

struct LoadedSnapshot {
  std::string file;  // the input as given: its path, or the paths joined by " + "
  /// The snapshot and its analysis (fixed once loaded); the knowledge pack
  /// and findings of the last ApplyPack, which `pack_mutex` guards.
  Judged judged;
  std::mutex pack_mutex;
};

using SnapshotClass = py::class_<LoadedSnapshot, std::shared_ptr<LoadedSnapshot>>;

/// Adds the Snapshot class and load() to `m`.
SnapshotClass BindSnapshot(py::module_& m);

/// Adds prompt() and ask() to the class (advisor.cc).
void BindAdvisor(SnapshotClass& cls);

}  // namespace cookgraph::python

#endif  // COOKGRAPH_PYTHON_SNAPSHOT_H_
