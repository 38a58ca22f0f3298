#include "latest_worker.h"

namespace account {

LatestWorker::LatestWorker(std::function<void(const std::string&)> work)
    : work_(std::move(work)), thread_([this] { run(); }) {}

LatestWorker::~LatestWorker() {
  finish();
}

void LatestWorker::submit(std::string text) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    waiting_ = std::move(text);
  }
  wake_.notify_one();
}

void LatestWorker::finish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finishing_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void LatestWorker::run() {
  for (;;) {
    std::string text;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return waiting_ || finishing_; });
      if (!waiting_) return;  // finishing, nothing left
      text = std::move(*waiting_);
      waiting_.reset();
    }
    work_(text);
  }
}

}  // namespace account
