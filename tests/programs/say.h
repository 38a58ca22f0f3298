// Output for test programs without stdio buffers: stdout's buffer would be a
// malloc of its own and spoil exact counts. vsnprintf does not allocate for the
// integer and string conversions used here.
#pragma once
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static inline void say(const char* format, ...) {
  char line[512];
  va_list ap;
  va_start(ap, format);
  int n = vsnprintf(line, sizeof line, format, ap);
  va_end(ap);
  if (n > (int)sizeof line - 1) n = (int)sizeof line - 1;
  const char* p = line;
  while (n > 0) {
    ssize_t w = write(1, p, (size_t)n);
    if (w <= 0) break;
    p += w, n -= (int)w;
  }
}
