#include "watch_metrics.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "commands/export.h"
#include "output_file.h"

namespace account {

namespace {

// How long one push may take: the next is due after --every (1 s at least).
constexpr std::chrono::milliseconds kPushTimeout(2000);

}  // namespace

std::string textfile_name(pid_t pid) {
  return fmt::format("account-watch-{}.prom", pid);
}

std::string probe_textfile_dir(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) return std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return "not a directory";
  std::string temp = dir + "/.account-watch-probe.XXXXXX";
  int fd = mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) return std::strerror(errno);
  close(fd);
  unlink(temp.c_str());
  return "";
}

WatchMetrics::WatchMetrics(WatchMetricsOptions options)
    : options_(std::move(options)),
      textfile_warning_(fmt::format("account: watch: --textfile {}", options_.textfile_dir)),
      push_warning_(
          fmt::format("account: watch: push to {}", options_.push ? options_.push->url : "")),
      export_warning_("account: watch: metrics") {
  if (options_.push) {
    push_path_ = push_group_path(*options_.push, options_.hostname, options_.pid);
    pusher_ = std::make_unique<LatestWorker>([this](const std::string& metrics) {
      push_warning_.report(put_metrics(*options_.push, push_path_, metrics, kPushTimeout));
    });
  }
  exporter_ = std::make_unique<LatestWorker>([this](const std::string& r) { publish(r); });
}

WatchMetrics::~WatchMetrics() {
  finish();
}

void WatchMetrics::record_written(const std::string& line) {
  written_ += line;
}

void WatchMetrics::snapshot(const std::string& running_records) {
  exporter_->submit(written_ + running_records);
}

void WatchMetrics::finish() {
  if (!exporter_) return;
  if (!written_.empty()) exporter_->submit(written_);  // empty: the watch never started
  exporter_->finish();
  if (pusher_) pusher_->finish();
  exporter_.reset();
}

void WatchMetrics::publish(const std::string& records) {
  ExportOptions o;
  o.format = ExportFormat::kOpenMetrics;
  std::string metrics, messages;
  int status =
      run_export_text(o, records, fmt::format("<records of the watch of {}>", options_.pid),
                      &metrics, [&](const std::string& m) {
                        if (messages.empty()) messages = m;  // the first says it
                      });
  // The watch composed every record itself: a message here is a bug, said once.
  export_warning_.report(messages);
  if (status == 1) return;
  if (!options_.textfile_dir.empty())
    textfile_warning_.report(
        replace_file(options_.textfile_dir + "/" + textfile_name(options_.pid), metrics, 0644));
  if (pusher_) pusher_->submit(metrics);
}

}  // namespace account
