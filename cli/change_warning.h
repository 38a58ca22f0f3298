/// One warning line on stderr per failure, not one per attempt: a reason is
/// printed when it differs from the last one printed; a success forgets it, so
/// the next failure is printed again.
#pragma once

#include <string>

namespace account {

class ChangeWarning {
 public:
  /// `what` starts each line: "account: watch: push to http://...".
  explicit ChangeWarning(std::string what) : what_(std::move(what)) {}
  /// `reason` empty: it worked.
  void report(const std::string& reason);

 private:
  std::string what_;
  std::string last_;
};

}  // namespace account
