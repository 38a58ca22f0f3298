/// Where libaccount.so is: $ACCOUNT_LIB, else next to the account binary in the
/// build tree (../libaccount/) or in an installed prefix (../lib*/).
#pragma once

#include <string>

namespace account {

/// The absolute path of the shim, or "" with *error set.
std::string find_shim(std::string* error);

}  // namespace account
