#include "python/columns.h"

#include <pybind11/numpy.h>

#include <cmath>
#include <limits>
#include <type_traits>
#include <variant>

#include "python/errors.h"

namespace cookgraph::python {
namespace {

enum class Kind : uint8_t { kEmpty, kFloat, kInt, kBool, kObject };

// What read_csv makes of column `c`: see Columns.
Kind KindOf(const ScoreTable& table, size_t c) {
  bool text = false, floating = false, integer = false, boolean = false, empty = false;
  for (const std::vector<ScoreValue>& row : table.rows) {
    switch (row[c].index()) {
      case 0:
        empty = true;
        break;
      case 1:
        (std::get<std::string>(row[c]).empty() ? empty : text) = true;
        break;
      case 2:
        floating = true;
        break;
      case 3:
      case 4:
        integer = true;
        break;
      case 5:
        boolean = true;
        break;
    }
  }
  const bool number = floating || integer;
  if (text || (boolean && number)) return Kind::kObject;
  if (boolean) return empty ? Kind::kObject : Kind::kBool;
  if (floating || (integer && empty)) return Kind::kFloat;
  if (integer) return Kind::kInt;
  return Kind::kEmpty;  // no rows, or every cell empty
}

double AsDouble(const ScoreValue& v) {
  return std::visit(
      [](const auto& x) -> double {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_arithmetic_v<T>) {
          return static_cast<double>(x);
        } else {
          return std::numeric_limits<double>::quiet_NaN();
        }
      },
      v);
}

py::object AsObject(const ScoreValue& v) {
  return std::visit(
      [](const auto& x) -> py::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return py::float_(std::numeric_limits<double>::quiet_NaN());
        } else if constexpr (std::is_same_v<T, std::string>) {
          if (x.empty()) return py::float_(std::numeric_limits<double>::quiet_NaN());
          return Text(x);
        } else if constexpr (std::is_same_v<T, bool>) {
          return py::bool_(x);
        } else if constexpr (std::is_same_v<T, double>) {
          return py::float_(x);
        } else {
          return py::int_(x);
        }
      },
      v);
}

template <typename T, typename F>
py::array_t<T> Array(const ScoreTable& table, F value) {
  py::array_t<T> array(static_cast<py::ssize_t>(table.rows.size()));
  auto out = array.template mutable_unchecked<1>();
  for (size_t r = 0; r < table.rows.size(); ++r)
    out(static_cast<py::ssize_t>(r)) = value(table.rows[r]);
  return array;
}

}  // namespace

py::dict Columns(const ScoreTable& table) {
  py::dict columns;
  for (size_t c = 0; c < table.columns.size(); ++c) {
    py::object values;
    switch (KindOf(table, c)) {
      case Kind::kEmpty:
      case Kind::kFloat:
        values = Array<double>(table, [c](const auto& row) { return AsDouble(row[c]); });
        break;
      case Kind::kInt:
        values = Array<int64_t>(table, [c](const auto& row) {
          return std::holds_alternative<uint64_t>(row[c])
                     ? static_cast<int64_t>(std::get<uint64_t>(row[c]))
                     : std::get<int64_t>(row[c]);
        });
        break;
      case Kind::kBool:
        values = Array<bool>(table, [c](const auto& row) { return std::get<bool>(row[c]); });
        break;
      case Kind::kObject: {
        py::list list(table.rows.size());
        for (size_t r = 0; r < table.rows.size(); ++r) list[r] = AsObject(table.rows[r][c]);
        values = std::move(list);
        break;
      }
    }
    columns[Text(table.columns[c])] = std::move(values);
  }
  return columns;
}

}  // namespace cookgraph::python
