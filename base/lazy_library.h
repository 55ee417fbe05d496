#ifndef COOKGRAPH_BASE_LAZY_LIBRARY_H_
#define COOKGRAPH_BASE_LAZY_LIBRARY_H_

// A shared library opened the first time a function of it is asked for, so
// that a command which never needs it does not load it, nor what it brings
// (libcurl brings GnuTLS, Kerberos and LDAP): docs/performance.md#start-up.

#include <stdexcept>
#include <string>

namespace cookgraph {

/// A library that cannot be opened, or lacks a function: what() is one line
/// naming the library and what the dynamic loader said.
class LibraryMissing : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class LazyLibrary {
 public:
  /// `soname`: the library's file name with its ABI version, such as
  /// "libcurl.so.4"; `package`: the Debian package that installs it, for the
  /// message when it is missing.
  LazyLibrary(std::string soname, std::string package);
  LazyLibrary(const LazyLibrary&) = delete;
  LazyLibrary& operator=(const LazyLibrary&) = delete;

  /// Sets `function` to the library's function (or variable) `name`, typed as
  /// the header declares it (decltype(&curl_easy_init)). Opens the
  /// library on the first call; throws LibraryMissing when it or the function
  /// cannot be found. The library stays loaded until the process ends.
  template <typename F>
  void Load(F*& function, const char* name) const {
    function = reinterpret_cast<F*>(Symbol(name));
  }

 private:
  void* Symbol(const char* name) const;

  std::string soname_, package_;
  void* handle_;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_BASE_LAZY_LIBRARY_H_
