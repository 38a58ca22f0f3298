#include "commands.h"

namespace account {
int command_compare(const Args&) { throw UsageError{"compare: not built yet"}; }
}  // namespace account
