/// The run's directory of image files (libaccount/image_file.h) as the tree
/// sampler looks at it: an inotify watch, set before the command starts, says
/// which names were created and removed since the last look; when it cannot
/// tell (the first look, no watch, an overflow), the directory is listed,
/// kept open between looks (a rewind instead of an open, a stat, a close).
///
/// The run that made the directory holds its flock for as long as any of its
/// processes lives (account run, then its lingering sampler, which inherits
/// the lock with the descriptor): what tells the next run that the directory
/// is in use, not left by a killed run (cli/run_leftovers.h).
///
/// The images of processes that dropped root are in its user directories,
/// u<uid>/ (libaccount/image_file.h): their names here are u<uid>/<name>.
#pragma once

#include <dirent.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace account {

class ImageDirectory {
 public:
  /// `path`: the directory ("" for none: every look finds nothing). Takes
  /// the directory's lock.
  explicit ImageDirectory(std::string path);
  ~ImageDirectory();
  ImageDirectory(const ImageDirectory&) = delete;
  ImageDirectory& operator=(const ImageDirectory&) = delete;

  bool none() const { return path_.empty(); }
  const std::string& path() const { return path_; }
  std::string path_of(const std::string& name) const { return path_ + "/" + name; }

  /// Names created and removed since the last call; false when the watch
  /// cannot tell (the first call, no watch, an overflow): then list().
  bool changes(std::vector<std::string>* created, std::set<std::string>* removed);
  /// Appends every name in the directory now (false: it cannot be read).
  bool list(std::vector<std::string>* names);
  /// True for the descriptors it holds.
  bool holds(int fd) const;
  /// Stops watching and listing, removes the user directories (image_file.h)
  /// and then the directory if it is empty, and lets its lock go.
  void remove();

  /// Takes the lock of the run directory open at `dir_fd` (it lasts while the
  /// descriptor is open, here or in a fork); false while a run holds it.
  static bool claim(int dir_fd);
  /// Removes the directory `name` in `base_fd` with all it holds, not
  /// following links; each directory in it is made this user's first, so
  /// that the user it belonged to adds nothing while it is emptied.
  static bool remove_all(int base_fd, const char* name);

 private:
  std::string path_;
  DIR* stream_ = nullptr;  // listed when the watch cannot tell
  int watch_ = -1;         // inotify: names created and removed in path_
  int lock_ = -1;          // the directory, open and locked (claim())
  bool listed_once_ = false;
  int run_watch_ = -1;                       // the watch's descriptor for path_
  std::map<int, std::string> user_watches_;  // ... for each user directory

  // Watches the user directory `dir` (once) and appends the names in it now,
  // as dir/name: what was made in it before the watch is not missed.
  void take_user_dir(const std::string& dir, std::vector<std::string>* names);
};

}  // namespace account
