#include "backtrace_symbolize.h"

#include <cxxabi.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "symbol_source.h"

extern char** environ;

namespace account {

namespace {

constexpr size_t kBatch = 256;  // addresses per addr2line run

// Runs argv, returns its standard output (empty if it could not run).
std::string capture_output(const std::vector<std::string>& args) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return {};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  int err = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  std::string out;
  if (err == 0) {
    char buf[65536];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
      if (n > 0) out.append(buf, size_t(n));
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) out.clear();
  }
  close(fds[0]);
  return out;
}

std::string clean_location(std::string loc) {
  if (auto d = loc.find(" (discriminator"); d != std::string::npos) loc.erase(d);
  if (loc.rfind("??", 0) == 0 || loc.ends_with(":0") || loc.ends_with(":?")) return {};
  return loc;
}

class Addr2line : public Symbolizer {
 public:
  Addr2line(std::string program, std::vector<std::string> debug_roots)
      : program_(std::move(program)), debug_roots_(std::move(debug_roots)) {}

  std::vector<SymbolizedFrame> resolve(const std::string& path,
                                       const std::vector<uint64_t>& addresses) override {
    std::vector<SymbolizedFrame> frames(addresses.size());
    struct stat st;
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return frames;
    std::optional<SymbolSource> source = find_symbol_source(path, debug_roots_);
    if (!source) return frames;
    if (source->symbols.empty()) {
      for (size_t i = 0; i < addresses.size(); ++i)
        frames[i].function = demangle(exported_function_at(*source, addresses[i]));
      return frames;
    }
    for (size_t first = 0; first < addresses.size(); first += kBatch) {
      size_t last = std::min(addresses.size(), first + kBatch);
      std::vector<std::string> args{program_, "-f", "-e", source->symbols};
      for (size_t i = first; i < last; ++i) args.push_back(fmt::format("{:#x}", addresses[i]));
      std::string out = capture_output(args);
      // Two lines an address: function, then file:line.
      size_t pos = 0;
      for (size_t i = first; i < last && pos < out.size(); ++i) {
        size_t nl = out.find('\n', pos);
        if (nl == std::string::npos) break;
        std::string function = out.substr(pos, nl - pos);
        pos = nl + 1;
        nl = out.find('\n', pos);
        if (nl == std::string::npos) nl = out.size();
        std::string location = out.substr(pos, nl - pos);
        pos = nl + 1;
        if (function != "??") frames[i].function = demangle(function);
        frames[i].location = clean_location(location);
      }
    }
    return frames;
  }

 private:
  std::string program_;
  std::vector<std::string> debug_roots_;
};

}  // namespace

std::unique_ptr<Symbolizer> make_addr2line_symbolizer(const std::string& program,
                                                      std::vector<std::string> debug_roots) {
  return std::make_unique<Addr2line>(program, std::move(debug_roots));
}

std::string demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  char* text = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !text) return name;
  std::string out(text);
  std::free(text);
  return out;
}

}  // namespace account
