#include "commands.h"

namespace account {
int command_report(const Args&) { throw UsageError{"report: not built yet"}; }
}  // namespace account
