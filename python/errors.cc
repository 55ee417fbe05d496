#include "python/errors.h"

#include <exception>

namespace cookgraph::python {
namespace {

// The classes, created once by AddErrors and alive as long as the module.
PyObject* g_error = nullptr;
PyObject* g_input_error = nullptr;
PyObject* g_llm_error = nullptr;

PyObject* ClassOf(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInput:
      return g_input_error;
    case ErrorKind::kLlm:
      return g_llm_error;
    case ErrorKind::kInternal:
      break;
  }
  return g_error;
}

py::object OrNone(int64_t v) { return v > 0 ? py::object(py::int_(v)) : py::object(py::none()); }

void Raise(const RaisedError& raised) {
  PyObject* type = ClassOf(raised.kind);
  const Error& e = raised.error;
  py::object exception = py::reinterpret_borrow<py::object>(type)(Text(e.Format()));
  exception.attr("file") = FileName(e.file);
  exception.attr("line") = OrNone(e.line);
  exception.attr("column") = OrNone(e.column);
  exception.attr("where") = Text(e.where);
  exception.attr("message") = Text(e.message);
  PyErr_SetObject(type, exception.ptr());
}

PyObject* NewClass(const char* name, const char* doc, PyObject* base) {
  PyObject* type = PyErr_NewExceptionWithDoc(name, doc, base, nullptr);
  if (type == nullptr) throw py::error_already_set();
  return type;
}

}  // namespace

void AddErrors(py::module_& m) {
  g_error = NewClass("cookgraph.Error",
                     "Base class of cookgraph's errors. str(e) is the CLI's one-line message; "
                     "e.file, e.line, e.column (None when unknown), e.where and e.message are "
                     "its parts.",
                     nullptr);
  g_input_error = NewClass("cookgraph.InputError",
                           "An input, a knowledge pack or a config file that cannot be read or is "
                           "not valid (the CLI's exit code 2).",
                           g_error);
  g_llm_error = NewClass("cookgraph.LlmError",
                         "The LLM endpoint failed or refused (the CLI's exit code 3).", g_error);
  m.add_object("Error", py::handle(g_error));
  m.add_object("InputError", py::handle(g_input_error));
  m.add_object("LlmError", py::handle(g_llm_error));
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const RaisedError& raised) {
      Raise(raised);
    }
  });
}

py::str Text(std::string_view s) {
  PyObject* text = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (text == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(text);
}

py::str FileName(std::string_view name) {
  PyObject* text =
      PyUnicode_DecodeFSDefaultAndSize(name.data(), static_cast<Py_ssize_t>(name.size()));
  if (text == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(text);
}

void Throw(PyObject* type, std::string_view message) {
  PyErr_SetObject(type, Text(message).ptr());
  throw py::error_already_set();
}

py::dict ErrorDict(const Error& error) {
  py::dict d;
  d["file"] = FileName(error.file);
  d["line"] = OrNone(error.line);
  d["column"] = OrNone(error.column);
  d["where"] = Text(error.where);
  d["message"] = Text(error.message);
  d["error"] = Text(error.Format());
  return d;
}

}  // namespace cookgraph::python
