#include "pipesim/core/allocator.hpp"

#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

namespace pipesim::core {

void keep_freed_memory_for_reuse() {
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
  // Blocks up to 32 MiB (glibc's largest mmap threshold) come from the heap rather than their
  // own mapping, and the heap's free top is kept up to 1 GiB. The results are ignored on
  // purpose: a refused setting leaves glibc's defaults.
  constexpr int kHeapBlocksUpTo = 32 << 20;
  constexpr int kKeepFreeTopUpTo = 1 << 30;
  (void)mallopt(M_MMAP_THRESHOLD, kHeapBlocksUpTo);
  (void)mallopt(M_TRIM_THRESHOLD, kKeepFreeTopUpTo);
#endif
}

}  // namespace pipesim::core
