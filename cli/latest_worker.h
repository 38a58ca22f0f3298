/// A thread that works on the newest text handed to it. A text handed over
/// while the last is still being worked on replaces any text still waiting,
/// so a slow consumer (a Pushgateway that does not answer) never holds up the
/// producer (the sampler) and never falls more than one text behind.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace account {

class LatestWorker {
 public:
  explicit LatestWorker(std::function<void(const std::string&)> work);
  /// finish()
  ~LatestWorker();
  LatestWorker(const LatestWorker&) = delete;
  LatestWorker& operator=(const LatestWorker&) = delete;

  /// Hands `text` over; returns at once.
  void submit(std::string text);
  /// Works on the text still waiting (if any), then ends the thread.
  void finish();

 private:
  void run();

  std::function<void(const std::string&)> work_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<std::string> waiting_;
  bool finishing_ = false;
  std::thread thread_;
};

}  // namespace account
