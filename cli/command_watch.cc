#include "commands.h"

namespace account {
int command_watch(const Args&) { throw UsageError{"watch: not built yet"}; }
}  // namespace account
