#pragma once
// Programmer errors: invariants that no user input can break. Always checked (they are cheap
// and a silently wrong prediction is worse than a crash).

#include <cstdio>
#include <cstdlib>

#define PIPESIM_ASSERT(cond, msg)                                                                  \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::fprintf(stderr, "pipesim: internal error at %s:%d: %s (%s)\n", __FILE__, __LINE__, msg, \
                   #cond);                                                                         \
      std::abort();                                                                                \
    }                                                                                              \
  } while (false)
