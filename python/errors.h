#ifndef COOKGRAPH_PYTHON_ERRORS_H_
#define COOKGRAPH_PYTHON_ERRORS_H_

// The module's exceptions (docs/python.md#errors): cookgraph.Error and its
// subclasses InputError and LlmError, sorted as the CLI's exit codes sort
// errors (docs/architecture.md#errors-and-exit-codes), and how a C++ Error
// becomes one of them.

#include <pybind11/pybind11.h>

#include <string_view>

#include "base/error.h"

namespace cookgraph::python {

namespace py = pybind11;

/// Which Python class an Error is raised as.
enum class ErrorKind : uint8_t {
  kInternal,  // cookgraph.Error: cookgraph's own failure (the CLI's exit 1)
  kInput,     // cookgraph.InputError: bad or unreadable input or settings (exit 2)
  kLlm,       // cookgraph.LlmError: the LLM endpoint failed or refused (exit 3)
};

/// Thrown by the bindings (with or without the GIL held); the module's
/// translator raises it as the class of `kind`, whose str() is
/// Error::Format(), the CLI's one line after "cookgraph: error: ", and whose
/// attributes are file, line, column (None when unknown), where and message
/// (as ErrorDict gives them).
struct RaisedError {
  ErrorKind kind;
  Error error;
};

/// Creates cookgraph.Error, InputError and LlmError in `m` and registers the
/// translator of RaisedError.
void AddErrors(py::module_& m);

/// `s` as a Python str: UTF-8, with bytes that are not UTF-8 replaced by
/// U+FFFD (as the JSON writers replace them).
py::str Text(std::string_view s);

/// A file name (bytes, as the C++ side has it) as os.fsdecode gives it: bytes
/// that are not UTF-8 become surrogate escapes, so that the str names the
/// same file when passed back to open() or cookgraph.load().
py::str FileName(std::string_view name);

/// Raises the Python exception `type` (PyExc_ValueError, PyExc_KeyError) with
/// Text(message): unlike py::value_error, a message holding a file name that
/// is not UTF-8 does not turn into a UnicodeDecodeError.
[[noreturn]] void Throw(PyObject* type, std::string_view message);

/// An error collected rather than raised (score's errors="collect"):
/// {"file", "line", "column", "where", "message", "error"}, "error" being
/// Error::Format(); "file" is FileName(), the texts Text() (as the CLI prints
/// them: a byte that is not UTF-8 is U+FFFD).
py::dict ErrorDict(const Error& error);

}  // namespace cookgraph::python

#endif  // COOKGRAPH_PYTHON_ERRORS_H_
