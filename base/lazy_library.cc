#include "base/lazy_library.h"

#include <dlfcn.h>

#include <utility>

namespace cookgraph {

LazyLibrary::LazyLibrary(std::string soname, std::string package)
    : soname_(std::move(soname)), package_(std::move(package)) {
  // RTLD_NOW: a missing symbol of its own dependencies fails here, once, and
  // not in the middle of a request.
  handle_ = dlopen(soname_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = dlerror();
    throw LibraryMissing("cannot load " + soname_ + " (install Debian's " + package_ +
                         "): " + (why != nullptr ? why : "unknown reason"));
  }
}

void* LazyLibrary::Symbol(const char* name) const {
  dlerror();  // clears an earlier error
  void* address = dlsym(handle_, name);
  if (address == nullptr) {
    const char* why = dlerror();
    throw LibraryMissing(soname_ + " has no " + name + " (install Debian's " + package_ +
                         "): " + (why != nullptr ? why : "a null symbol"));
  }
  return address;
}

}  // namespace cookgraph
