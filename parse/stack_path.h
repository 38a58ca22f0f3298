/// How a call stack of the backtraces is named as one line, the same in the
/// folded exports and in `account compare --backtraces`: the program, then
/// its frames root first, each the function where account could name it,
/// else module+offset (or the bare address of a frame in no module), joined
/// by ';'. Equal paths of two processes, or two builds, are one stack.
#pragma once

#include <string>

#include "backtrace_record.h"
#include "backtrace_report.h"

namespace account {

/// What allocations no kept stack holds are named by, under their program.
inline constexpr char kUnkeptStacks[] = "[stacks not kept in the record]";

/// A frame or label made safe for a folded line: ';' (the separator) becomes
/// ':', control characters spaces.
std::string folded_clean(std::string text);

/// The program's name: the executable's basename (argv[0]'s when there is no
/// exe), or "pid N".
std::string program_name(const ProcessBacktraces& p);

/// The group's frames, root first, ';'-joined (no leading ';').
std::string frames_path(const ProcessBacktraces& p, const AllocationGroup& g,
                        const SymbolTable& symbols);

}  // namespace account
