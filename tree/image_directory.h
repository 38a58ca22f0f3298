/// The run's directory of image files (libaccount/image_file.h) as the tree
/// sampler looks at it: an inotify watch, set before the command starts, says
/// which names were created and removed since the last look; when it cannot
/// tell (the first look, no watch, an overflow), the directory is listed,
/// kept open between looks (a rewind instead of an open, a stat, a close).
#pragma once

#include <dirent.h>

#include <set>
#include <string>
#include <vector>

namespace account {

class ImageDirectory {
 public:
  /// `path`: the directory ("" for none: every look finds nothing).
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
  /// Stops watching and listing, and removes the directory if it is empty.
  void remove();

 private:
  std::string path_;
  DIR* stream_ = nullptr;  // listed when the watch cannot tell
  int watch_ = -1;         // inotify: names created and removed in path_
  bool listed_once_ = false;
};

}  // namespace account
