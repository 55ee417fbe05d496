// The program's operator new (cli/huge_pages.cc), checked from inside a
// program that links it as cookgraph does: a block of 2 MiB or more starts on
// a 2 MiB boundary and the kernel lists its mapping as advised for huge pages
// (`hg` among the VmFlags of /proc/self/smaps); a smaller block is plain
// malloc's; a block that cannot be had calls the new-handler, then throws
// std::bad_alloc. Built twice (tests/CMakeLists.txt): with huge_pages.cc, and
// without it, the twin that must fail. Exit 0 when all hold, 1 when one does
// not (named on stderr), 77 when the kernel has no transparent huge pages.

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <new>
#include <sstream>
#include <string>

namespace huge_pages_check {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

// The VmFlags of the mapping that holds `address`; empty if none does.
std::string VmFlagsAt(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t begin = 0;
    std::uintptr_t end = 0;
    char dash = 0;
    std::istringstream head(line);
    // A mapping's first line: "begin-end perms offset dev inode [path]".
    if (head >> std::hex >> begin >> dash >> end && dash == '-' &&
        line.find(':') > line.find(' ')) {
      inside = begin <= at && at < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.substr(8) + " ";
    }
  }
  return "";
}

int failures = 0;
void Expect(bool holds, const char* what) {
  if (holds) return;
  std::fprintf(stderr, "huge_pages_check: %s\n", what);
  ++failures;
}

int handler_calls = 0;
void GiveUp() {
  ++handler_calls;
  std::set_new_handler(nullptr);  // the next failure throws
}

}  // namespace huge_pages_check

int main() {
  using namespace huge_pages_check;
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) {
    std::fprintf(stderr, "huge_pages_check: this kernel has no transparent huge pages\n");
    return 77;
  }
  const std::size_t big = 3 * kHugePage + 12345;
  const std::unique_ptr<char[]> block(new char[big]);
  block[0] = block[big - 1] = 1;
  Expect(reinterpret_cast<std::uintptr_t>(block.get()) % kHugePage == 0,
         "a 6 MiB block does not start on a 2 MiB boundary");
  Expect(VmFlagsAt(block.get()).find(" hg ") != std::string::npos,
         "a 6 MiB block's mapping is not advised for huge pages (no hg in its VmFlags)");
  Expect(VmFlagsAt(block.get() + big - 1).find(" hg ") != std::string::npos,
         "a 6 MiB block's last byte is not in a mapping advised for huge pages");

  const std::unique_ptr<char[]> small(new char[kHugePage / 2]);
  small[0] = 1;
  Expect(VmFlagsAt(small.get()).find(" hg ") == std::string::npos,
         "a 1 MiB block is advised for huge pages");

  std::set_new_handler(GiveUp);
  bool threw = false;
  volatile std::size_t impossible = SIZE_MAX / 4;  // read at run time: no compiler refuses it
  try {
    ::operator delete(::operator new(impossible));
  } catch (const std::bad_alloc&) {
    threw = true;
  }
  Expect(threw, "a block of a quarter of the address space did not throw std::bad_alloc");
  Expect(handler_calls == 1, "the new-handler was not called once before std::bad_alloc");
  if (failures == 0) std::printf("huge_pages_check: all hold\n");
  return failures == 0 ? 0 : 1;
}
