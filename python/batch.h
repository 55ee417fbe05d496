#ifndef COOKGRAPH_PYTHON_BATCH_H_
#define COOKGRAPH_PYTHON_BATCH_H_

// expand_inputs(), score_inputs() and diff() of cookgraph._cookgraph
// (docs/python.md#score).

#include <pybind11/pybind11.h>

namespace cookgraph::python {

/// Adds expand_inputs, score_inputs and diff to `m`.
void BindBatch(pybind11::module_& m);

}  // namespace cookgraph::python

#endif  // COOKGRAPH_PYTHON_BATCH_H_
