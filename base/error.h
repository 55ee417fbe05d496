#ifndef COOKGRAPH_BASE_ERROR_H_
#define COOKGRAPH_BASE_ERROR_H_

// Errors as values. Library code returns Result<T> (or Status) and never prints
// or exits; only cli/ turns an Error into a message and an exit code.

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace cookgraph {

/// Where in an input something went wrong, and what.
struct Error {
  std::string file;     // input path as the user gave it; "-" for standard input; may be empty
  int64_t line = 0;     // 1-based; 0 = unknown
  int64_t column = 0;   // 1-based; 0 = unknown
  std::string where;    // e.g. "node '/project1/noise1'" or "nodes[3].inputs"; may be empty
  std::string message;  // what is wrong and, where possible, what to do

  /// One line: "file:line:column: where: message" with the empty parts left out.
  std::string Format() const;
};

/// Either a value or an Error.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}      // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(v_); }
  Error& error() { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

/// Success or an Error, for operations without a value.
class Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit by design
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_BASE_ERROR_H_
