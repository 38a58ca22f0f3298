/// The entry points of the in-test API (<account/account.h>, api/): versioned C
/// functions the API finds with dlsym, so a program linked without the shim
/// finds none and reports "not counting".
#pragma once

#include "region.h"

namespace account {

/// The calling thread has just taken `s`: its thread figures start here (a
/// recycled slot still holds the counts of the threads before).
void start_thread_window(Slot* s);

}  // namespace account
