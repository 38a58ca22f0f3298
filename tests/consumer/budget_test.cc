#include <account/gtest.h>
#include <stdlib.h>

static void* (*volatile do_malloc)(size_t) = malloc;

static void take_4096() {
  free(do_malloc(4096));
}

TEST(Budget, Holds) {
  EXPECT_MALLOC_BYTES_AT_MOST(take_4096(), 4096);
}

TEST(Budget, Exceeded) {
  EXPECT_NO_MALLOC(take_4096());
}
