// The floor of any LD_PRELOAD library on a process start: a library that
// defines nothing and runs nothing. Preloading it still costs the loader an
// open, a map and a place in every symbol lookup's search list, on every image
// that starts. overhead.sh's "process starts" rows show it as "empty preload",
// next to the shim, whose own start-up is what it costs beyond this.
typedef int empty_preload_defines_nothing;
