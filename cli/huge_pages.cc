// The program's operator new: blocks of 2 MiB and more (a trace's event
// tables, a snapshot's series) start on a 2 MiB boundary and are advised to
// the kernel as transparent huge pages (madvise MADV_HUGEPAGE), so that each
// 2 MiB of them is one page fault instead of 512. On a virtual machine a page
// fault costs microseconds: a 200 MB trace took 63,000 of them and spent a
// third of its time in the kernel (docs/performance.md#huge-pages). Where the
// kernel's THP mode is `never` the advice does nothing; where it is `always`
// it changes nothing; `madvise` (Ubuntu's default, and many clouds') is where
// it counts.
//
// Only the tail of a block past its last whole 2 MiB stays in small pages, so
// a block holds no more memory than it touches, rounded up to 2 MiB where it
// is touched at all. Blocks of that size are mapped on their own and given
// back when freed (main.cc's M_MMAP_THRESHOLD). Smaller blocks come from
// malloc as before. Not in sanitizer builds, whose runtimes bring their own
// operator new.

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <new>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define COOKGRAPH_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define COOKGRAPH_SANITIZED 1
#endif

#ifndef COOKGRAPH_SANITIZED
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::uintptr_t kPage = 4096;

// A block of `size` bytes: on a huge-page boundary, and advised, from 2 MiB.
void* Allocate(std::size_t size) {
  if (size < kHugePage) return std::malloc(size == 0 ? 1 : size);
  void* block = nullptr;
  if (posix_memalign(&block, kHugePage, size) != 0) return nullptr;
  // To the end of the block's last small page: a block this size is mapped
  // on its own (M_MMAP_THRESHOLD), so the advice reaches no neighbour.
  const auto begin = reinterpret_cast<std::uintptr_t>(block);
  const std::uintptr_t end = (begin + size + kPage - 1) & ~(kPage - 1);
  // Advice, not a request: a kernel without THP refuses it, and the block
  // is then an ordinary one.
  (void)madvise(block, end - begin, MADV_HUGEPAGE);
  return block;
}

}  // namespace

// The replaceable operator new ([new.delete.single]): it calls the new-handler
// and tries again while there is one, and throws std::bad_alloc when there is
// not. libstdc++'s array and nothrow forms call this one, and its operator
// delete hands every block to free(), which takes back both kinds.
void* operator new(std::size_t size) {
  for (;;) {
    if (void* block = Allocate(size)) return block;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}
#endif  // COOKGRAPH_SANITIZED
