#include "git.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

extern char** environ;

namespace account {
namespace {

// Reads `fd` to its end into *into.
void drain(int fd, std::string* into) {
  char buf[8192];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      into->append(buf, size_t(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
}

// The directory as messages name it: absolute where it exists.
std::string dir_name(const std::string& dir) {
  char* real = realpath(dir.c_str(), nullptr);
  if (!real) return dir;
  std::string out = real;
  free(real);
  return out;
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.rfind("fatal: ", 0) == 0) line = line.substr(7);
  return line;
}

}  // namespace

bool run_git(const std::string& dir, const std::vector<std::string>& args, std::string* out,
             std::string* err) {
  std::vector<std::string> argv_s = {"git", "-C", dir};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    *err = fmt::format("cannot run git: {}", std::strerror(errno));
    return false;
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    *err = fmt::format("cannot run git: {}", std::strerror(errno));
    close(out_pipe[0]);
    close(out_pipe[1]);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, "git", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    *err = fmt::format("cannot run git: {} (install git)", std::strerror(rc));
    return false;
  }
  std::string output, errors;
  // git's standard error is small; read standard output first, then it.
  drain(out_pipe[0], &output);
  drain(err_pipe[0], &errors);
  close(out_pipe[0]);
  close(err_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (out) *out = std::move(output);
  bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!ok && err) *err = first_line(errors);
  return ok;
}

std::optional<std::string> git_top(const std::string& dir, std::string* error) {
  std::string out, err;
  if (!run_git(dir, {"rev-parse", "--show-toplevel"}, &out, &err)) {
    *error = err.rfind("cannot run git", 0) == 0
                 ? err
                 : fmt::format("{} is not a git repository", dir_name(dir));
    return std::nullopt;
  }
  return out.substr(0, out.find('\n'));
}

std::optional<CommitInfo> resolve_commit(const std::string& dir, const std::string& rev,
                                         std::string* error) {
  if (!git_top(dir, error)) return std::nullopt;
  std::string out, err;
  // "--end-of-options" keeps a revision that starts with '-' from being an option.
  if (!run_git(dir, {"rev-parse", "--verify", "--quiet", "--end-of-options", rev + "^{commit}"},
               &out, &err)) {
    *error = fmt::format("unknown revision '{}' in {}", rev, dir_name(dir));
    return std::nullopt;
  }
  std::string sha = out.substr(0, out.find('\n'));
  if (!run_git(dir, {"show", "-s", "--format=%H%n%ct%n%P%n%s", sha}, &out, &err)) {
    *error = fmt::format("cannot read commit {} in {}: {}", sha, dir, err);
    return std::nullopt;
  }
  std::istringstream lines(out);
  CommitInfo c;
  std::string time, parents;
  std::getline(lines, c.sha);
  std::getline(lines, time);
  std::getline(lines, parents);
  std::getline(lines, c.subject);
  c.time = std::stoll(time);
  std::istringstream words(parents);
  for (std::string p; words >> p;) c.parents.push_back(p);
  return c;
}

std::optional<std::vector<std::string>> first_parent_history(const std::string& dir,
                                                             const std::string& rev,
                                                             const std::string& since,
                                                             std::string* error) {
  std::optional<CommitInfo> tip = resolve_commit(dir, rev, error);
  if (!tip) return std::nullopt;
  std::vector<std::string> args = {"rev-list", "--first-parent", "--reverse", tip->sha};
  if (!since.empty()) {
    std::optional<CommitInfo> from = resolve_commit(dir, since, error);
    if (!from) return std::nullopt;
    // Exclude what comes before `since`, keep `since` itself.
    for (const std::string& p : from->parents) args.push_back("^" + p);
  }
  std::string out, err;
  if (!run_git(dir, args, &out, &err)) {
    *error = fmt::format("cannot list the history of '{}' in {}: {}", rev, dir, err);
    return std::nullopt;
  }
  std::vector<std::string> shas;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) shas.push_back(line);
  return shas;
}

}  // namespace account
