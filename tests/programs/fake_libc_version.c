// Preloaded before the shim by a test: the C library then reports a version the
// shim has not been checked against, so it must patch nothing and say so
// ("libc_copies_counted": false).
const char* gnu_get_libc_version(void) {
  return "2.99";
}
