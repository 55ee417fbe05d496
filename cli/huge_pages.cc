// The program's operator new: blocks of 2 MiB and more (a trace's event
// tables, a snapshot's series) start on a 2 MiB boundary, and their whole
// 2 MiB pages are advised to the kernel as transparent huge pages (madvise
// MADV_HUGEPAGE), so that each is one page fault instead of 512. On a
// virtual machine a page fault costs microseconds: a 200 MB trace took 63,000
// of them and spent a third of its time in the kernel
// (docs/performance.md#huge-pages). Where the kernel's THP mode is `never`
// the advice does nothing; `madvise` (Ubuntu's default, and many clouds') is
// where it counts; under `always` the blocks already got huge pages where
// aligned, and the advice adds the boundary and, with THP's `defrag` at its
// default `madvise`, compaction at the fault when no free 2 MiB block is left.
//
// A block whose last, partial 2 MiB holds 512 KiB or more is asked for in
// whole 2 MiB pages, so that its tail is one fault too, not 128 to 511: a
// trace's per-event tables are 3 MiB, and their last MiB in small pages was
// 256 faults each: 7,300 of the 200 MB trace's 17,600
// (docs/performance.md#2026-12-02-evening-a-blocks-last-2-mib-in-one-fault).
// A block holds the 2 MiB pages it touches, so one whose last page is
// touched holds up to 1.5 MiB more than its bytes; a shorter tail stays in small pages, where
// rounding would cost up to 2 MiB for a few faults (a native snapshot's
// nine 2.3 MiB blocks peaked 14 MB higher that way). The advice covers
// only the block, rounded or not, memory malloc handed to it alone, whether
// it was mapped on its own (main.cc's M_MMAP_THRESHOLD) or cut from the
// heap. Smaller blocks, and the over-aligned forms of operator new, are
// malloc's as before. Not in sanitizer builds, whose runtimes bring their
// own operator new.

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

constexpr std::size_t kRoundedTail = kHugePage / 4;

// A block of `size` bytes: from 2 MiB on, on a huge-page boundary, its last
// 2 MiB page whole when it holds kRoundedTail or more, and its whole huge
// pages advised.
void* Allocate(std::size_t size) {
  if (size < kHugePage) return std::malloc(size == 0 ? 1 : size);
  if (size > SIZE_MAX - kHugePage) return nullptr;  // no such block, rounded or not
  const std::size_t tail = size & (kHugePage - 1);
  const std::size_t asked = tail >= kRoundedTail ? size - tail + kHugePage : size;
  void* block = nullptr;
  if (posix_memalign(&block, kHugePage, asked) != 0) return nullptr;
  // Advice, not a request: a kernel without THP refuses it, and the block
  // is then an ordinary one.
  (void)madvise(block, asked & ~(kHugePage - 1), MADV_HUGEPAGE);
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
