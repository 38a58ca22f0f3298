/// Where a process image's shared state lives.
///
/// Standalone, the Region, timeline and backtrace groups are anonymous shared
/// mappings, inherited by the image's own sampler process. Under `account run`
/// (ACCOUNT_RUN_DIR names the run's private 0700 directory, on tmpfs) they are
/// parts of one file per image, DIR/<pid>-<ppid>-<start>, so that account run's tree
/// sampler can read them live, write the sampled peaks into them, and still
/// write the record of an image that died without running any code. The image
/// never holds a descriptor to its file: it is opened, sized, mapped and closed.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "region.h"
#include "settings.h"

namespace account {

struct SharedTimeline;
struct BacktraceStore;

/// What a sampler outside the image needs to write its record: the image's
/// identity and settings, copied once into the file.
struct ImageInfo {
  Identity identity;
  Settings settings;
};

/// Where map_image_region put a Region.
struct ImagePlace {
  bool in_file = false;
  /// Not in a file: `path` is the image's marker (kStandaloneMarker).
  bool marker = false;
  /// Not in a file, but under a live account run: its directory is there and
  /// this image cannot use it (a process that dropped root cannot create a
  /// file in root's run directory; a full tmpfs). The run's tree sampler
  /// watches it as a process without the shim.
  bool run_watches = false;
  char path[kPathCapacity];
};

constexpr size_t kImagePage = 4096;
constexpr size_t image_round_up(size_t n) {
  return (n + kImagePage - 1) / kImagePage * kImagePage;
}
/// What an image file holds after its Region once Region::info_published is 1:
/// the ImageInfo's scalars, then only the strings in use, one after another
/// (the identity's exe and argv, test, op, output), so that a usual image
/// writes one page of it, not the two its fixed-size arrays would spread over.
struct PackedInfo {
  pid_t pid;
  pid_t ppid;
  pid_t namespace_pid;
  uint64_t start_realtime_ns;
  uint64_t start_monotonic_ns;
  uint64_t argv_len;
  int argc;
  bool argv_truncated;
  bool has_output;
  bool timeline;
  bool record_argv;
  uint32_t exe_len;
  uint32_t sample_ms;
  uint32_t timeline_points;
  uint32_t backtrace_depth;
  uint64_t backtrace_min;
  uint32_t test_len;
  uint32_t op_len;
  uint32_t output_len;
  char host[kHostCapacity];
  char text[kPathCapacity + kArgvCapacity + 2 * kLabelCapacity + kPathCapacity];
};

/// Packs the bytes in use of an identity and settings.
void pack_image_info(const Identity& identity, const Settings& settings, PackedInfo* out);
/// How many bytes pack_image_info writes for them.
size_t packed_info_size(const Identity& identity, const Settings& settings);
/// Rebuilds the ImageInfo a PackedInfo holds (lengths beyond capacity are cut).
void unpack_image_info(const PackedInfo& packed, ImageInfo* out);

/// The PackedInfo follows the Region; both are mapped together (also when
/// anonymous, so every Region mapping has the same size; untouched pages cost
/// nothing).
constexpr size_t kInfoOffset = image_round_up(sizeof(Region));
constexpr size_t kHeadBytes = image_round_up(kInfoOffset + sizeof(PackedInfo));

/// What an image file's name, <pid>-<ppid>-<start on CLOCK_MONOTONIC>, says.
struct ImageName {
  pid_t pid = 0;
  pid_t ppid = 0;
  uint64_t start_monotonic_ns = 0;  // later images of one pid have larger ones
};
/// False for any name that is not an image file's: <pid>-<ppid>-<start>, or
/// u<uid>/<pid>-<ppid>-<start> for one in a user directory.
bool parse_image_name(const char* name, ImageName* out);

/// A process that dropped root cannot create a file in the run's directory
/// (root's, 0700): its image file goes into the run directory's user
/// directory for its effective uid, u<uid> (0700, owned by that uid). A root
/// image of the run makes it when it changes its effective user
/// (prepare_user_dir, before setuid, seteuid, setreuid or setresuid) and lets
/// other users through the run's directory (0711), never into it. Only that
/// user and the run write there, so the run reads a file in u<uid> only as
/// that user's: a regular file it owns, with one name (image_view.cc).
/// True, with *uid, for a user directory's name ("u65534").
bool parse_user_dir_name(const char* name, uid_t* uid);
/// Makes the run's user directory for `euid` when this root image is about to
/// take it as its effective user (nothing outside account run, for root, or
/// when the image is not root).
void prepare_user_dir(uid_t euid);

/// Maps a fresh, initialized Region for this image: a new image file when
/// ACCOUNT_RUN_DIR is set and usable, otherwise an anonymous shared mapping.
/// nullptr if neither can be mapped. Then exactly one of:
Region* map_image_region(ImagePlace* place);
/// ... the Region is this image's (g_region): later parts go to its file.
void adopt_image_region(const ImagePlace& place);
/// ... the Region is not used (another thread's won the race).
void discard_image_region(Region* r, const ImagePlace& place);
/// Unmaps a Region this process no longer uses (a fork child's inherited one).
void unmap_image_region(Region* r);
/// True when this image's Region is in an image file (a tree sampler watches it,
/// so the image starts no sampler of its own).
bool image_in_file();
/// True when the Region is anonymous under account run because an image
/// file would pass `ulimit -f`: the image's empty marker file tells the run
/// it has the shim, and the run's tree sampler, not one of the image's own,
/// watches it (kStandaloneMarker).
bool image_marked_standalone();
/// True under a live account run, image file or not: the run's tree sampler
/// watches the image, so it starts no sampler of its own, and the run, not
/// the image, says on its stderr what could not be recorded.
bool image_watched_by_run();
/// True under a live account run for an image that could not use the run's
/// directory (ImagePlace::run_watches: it dropped root, the directory is out
/// of its view, its tmpfs is full): the run counts it as a process without
/// the shim, so it writes no record, which would count it twice.
bool image_counted_without_shim();
/// Whether the image itself says on stderr that its record was lost: not when
/// the run counts the loss (an image file), nor when the run counts the image
/// as one without the shim (it could not use the run's directory).
bool image_says_own_loss();
/// Called once the image wrote its own record without an error: it removes its
/// image file itself. A tree sampler would otherwise open, read, close and
/// unlink it (four system calls an image, on the core beside the program); it
/// sees the file come and go in its directory watch instead. Any other file
/// (an image killed, or one whose record was lost) is the sampler's to remove.
void remove_own_image_file();
/// The rule both sides follow: an image whose own record write ended with
/// `write_error` removes its file itself when this is true.
constexpr bool image_removes_own_file(uint32_t write_error) {
  return write_error == 0;
}

/// Maps `size` more bytes of shared state for this image: appended to its image
/// file (*offset receives where) or anonymous (*offset = 0). nullptr on failure.
void* map_image_part(size_t size, uint64_t* offset);

/// (image_view.cc from here on.)
/// Packs g_identity and g_settings (the bytes in use) into the image file.
void publish_image_info();

/// An image file mapped by a sampler outside the image.
/// The file is the image's to write at any time: the sizes its parts claim are
/// read once, checked against the mapping, and kept here; a reader uses these,
/// never the file's (which may have changed since).
struct ImageFileView {
  Region* region = nullptr;
  SharedTimeline* timeline = nullptr;
  const BacktraceStore* backtraces = nullptr;
  uint32_t timeline_capacity = 0;
  uint32_t backtrace_capacity = 0;
  uint32_t backtrace_depth = 0;
  void* base = nullptr;
  size_t mapped = 0;
  int guard = -1;  // its slot in mapping_guard.h's table
};

/// Maps the whole file at `path` (read-write: the sampler raises peaks and claims
/// the record). False if it cannot be opened or is not an image file.
bool map_image_file(const char* path, ImageFileView* view);
/// What look_at_image_file found: an image still to be watched (mapped), one
/// whose record is already written (not mapped: nothing to watch), a file
/// that cannot be read as an image file yet (still being set up), or no file
/// (the sampler removed it once done with it); or the marker of an image that
/// runs with the shim but without its Region in the file (kStandaloneMarker)
/// because `ulimit -f` is below an image file's size: an empty file of mode
/// 0400. It writes its own record and removes the marker: one of the tree's
/// processes with the shim, sampled from /proc, whose record is the tree
/// sampler's to write only if it dies with the marker still there.
enum class ImageFileLook { kMapped, kRecorded, kNotYet, kMissing, kStandaloneMarker };
inline constexpr mode_t kStandaloneMarkerMode = 0400;
/// A first look at a new image file: reads the Region's head, and keeps the
/// whole file mapped only if the image's record is not written yet. For kRecorded,
/// *write_error gets the errno of the image's failed write (0: written).
ImageFileLook look_at_image_file(const char* path, ImageFileView* view, uint32_t* write_error);
/// Maps again if the image has added parts since (a timeline, backtraces).
bool refresh_image_file(const char* path, ImageFileView* view);
void unmap_image_file(ImageFileView* view);
/// True once the image truncated its file under the view: what was read from
/// it since reads zeros (mapping_guard.h), and nothing in it is the image's.
bool image_file_lost(const ImageFileView& view);
/// The identity and settings the image published in its file (nullptr before
/// it did, or if the file says they are anywhere but in Region::inline_info or
/// at kInfoOffset).
const PackedInfo* published_info(const ImageFileView& view);

/// The environment variables account run sets for its tree: its directory,
/// and the identity (DEV:INO) of the directory that holds it (/dev/shm) as
/// the run sees it.
constexpr const char kRunDirVariable[] = "ACCOUNT_RUN_DIR";
constexpr const char kRunDirParentVariable[] = "ACCOUNT_RUN_DIR_PARENT";

}  // namespace account
