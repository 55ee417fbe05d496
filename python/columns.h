#ifndef COOKGRAPH_PYTHON_COLUMNS_H_
#define COOKGRAPH_PYTHON_COLUMNS_H_

// A typed table of the writers (ScoreRows, DiffRows) as the columns of a
// pandas DataFrame, typed as pandas.read_csv types the CSV that the CLI
// writes from the same rows (docs/python.md#dataframes).

#include <pybind11/pybind11.h>

#include "writers/score.h"

namespace cookgraph::python {

namespace py = pybind11;

/// {column name: values} in the table's column order. A column whose values
/// are all numbers is a float64 NumPy array (NaN where a cell is empty), or
/// int64 when they are all whole numbers of integer type and none is empty;
/// all booleans and none empty, a bool array; all empty, float64 NaN;
/// anything else (text, booleans with gaps) a list of Python objects with
/// NaN for an empty cell. An empty text is an empty cell, as in the CSV.
py::dict Columns(const ScoreTable& table);

}  // namespace cookgraph::python

#endif  // COOKGRAPH_PYTHON_COLUMNS_H_
