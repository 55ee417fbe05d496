// The program's operator new (cli/huge_pages.cc), checked from inside a
// program that links it and sets malloc's mmap threshold as cookgraph does
// (cli/main.cc): a block of 2 MiB or more starts on a 2 MiB boundary, and the
// kernel lists its whole 2 MiB pages, and its last partial one where that
// holds 512 KiB or more, as advised for huge pages (`hg` among the VmFlags
// of /proc/self/smaps), and nothing past them, also for a block malloc cuts
// from its heap; what malloc says such a block holds (malloc_usable_size)
// reaches its last 2 MiB page's end; a shorter tail is left in small pages;
// a smaller block is plain malloc's; a block that
// cannot be had calls the new-handler, then throws std::bad_alloc. Built
// twice (tests/CMakeLists.txt): with huge_pages.cc, and without it, the twin
// that must fail. Exit 0 when all hold, 1 when one does not (named on
// stderr), 77 when the kernel has no transparent huge pages or its smaps no
// VmFlags.

#include <malloc.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <vector>

namespace huge_pages_check {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

bool any_vm_flags = false;  // whether smaps lists VmFlags at all

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
    } else if (line.rfind("VmFlags:", 0) == 0) {
      any_vm_flags = true;
      if (inside) return line.substr(8) + " ";
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

bool Advised(const void* address) { return VmFlagsAt(address).find(" hg ") != std::string::npos; }

}  // namespace huge_pages_check

int main() {
  using namespace huge_pages_check;
  mallopt(M_MMAP_THRESHOLD, 2 << 20);  // as cli/main.cc
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) {
    std::fprintf(stderr, "huge_pages_check: this kernel has no transparent huge pages\n");
    return 77;
  }
  const std::size_t big = 3 * kHugePage + kHugePage / 2;  // a 1 MiB tail
  const std::size_t rounded = 4 * kHugePage;
  const std::unique_ptr<char[]> block(new char[big]);
  block[0] = block[big - 1] = 1;
  const bool advised = Advised(block.get());
  if (!any_vm_flags) {
    std::fprintf(stderr, "huge_pages_check: /proc/self/smaps lists no VmFlags\n");
    return 77;
  }
  Expect(reinterpret_cast<std::uintptr_t>(block.get()) % kHugePage == 0,
         "a 7 MiB block does not start on a 2 MiB boundary");
  Expect(advised, "a 7 MiB block's first 2 MiB are not advised for huge pages");
  Expect(Advised(block.get() + 3 * kHugePage - 1),
         "a 7 MiB block's last whole 2 MiB are not advised for huge pages");
  Expect(Advised(block.get() + 3 * kHugePage),
         "a 7 MiB block's last, partial 2 MiB page (1 MiB) is not advised for huge pages");
  Expect(malloc_usable_size(block.get()) >= rounded,
         "a 7 MiB block was not asked of malloc in whole 2 MiB pages");
  Expect(!Advised(block.get() + rounded),
         "the advice reaches past a 7 MiB block's last 2 MiB page");

  const std::size_t short_tail = 2 * kHugePage + 12345;  // a 12 KiB tail
  const std::unique_ptr<char[]> shorter(new char[short_tail]);
  shorter[0] = shorter[short_tail - 1] = 1;
  Expect(Advised(shorter.get() + 2 * kHugePage - 1),
         "a 4 MiB block's last whole 2 MiB are not advised for huge pages");
  Expect(!Advised(shorter.get() + 2 * kHugePage),
         "the advice reaches a 4 MiB block's 12 KiB tail, or past it");

  // A block cut from the heap: 8 MiB of small blocks freed into one free
  // area below a block still held, which malloc takes before it maps.
  std::vector<std::unique_ptr<char[]>> smalls;
  for (int i = 0; i < 8192; ++i) smalls.emplace_back(new char[1024]);
  const std::unique_ptr<char[]> held(new char[1024]);
  smalls.clear();
  const std::size_t medium = kHugePage + kHugePage / 2;
  const std::unique_ptr<char[]> cut(new char[medium]);
  cut[0] = cut[medium - 1] = 1;
  Expect(Advised(cut.get()), "a 3 MiB block's first 2 MiB are not advised for huge pages");
  Expect(Advised(cut.get() + kHugePage),
         "a 3 MiB block's last, partial 2 MiB page is not advised for huge pages");
  Expect(!Advised(cut.get() + 2 * kHugePage),
         "the advice reaches past a 3 MiB block's last 2 MiB page");

  const std::unique_ptr<char[]> small(new char[kHugePage / 2]);
  small[0] = 1;
  Expect(!Advised(small.get()), "a 1 MiB block is advised for huge pages");

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
