# Shared by the tests of tests/security/: an unprivileged user (nobody) attacks
# a root `account`. Sourced; sets $work (removed on exit) and defines helpers.
set -eu
[ "$(id -u)" -eq 0 ] || { echo "fail: these tests act as nobody against root; run them as root"; exit 1; }
work=$(mktemp -d)
chmod 0755 "$work"
trap 'rm -rf "$work"' EXIT
nobody=65534

as_nobody() {  # as_nobody COMMAND...: runs it as uid/gid 65534, no groups
  setpriv --reuid=$nobody --regid=$nobody --clear-groups "$@"
}

fail() {
  echo "fail: $*"
  exit 1
}

# A directory only root can enter, and one nobody owns.
root_dir=$work/root-only
mkdir -m 0700 "$root_dir"
nobody_dir=$work/nobody
mkdir -m 0755 "$nobody_dir"
chown $nobody:$nobody "$nobody_dir"
