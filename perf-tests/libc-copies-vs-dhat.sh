#!/bin/bash
# Issue 17's target: the shim's copied_bytes against valgrind DHAT's copy mode
# (memcpy, memmove, mempcpy, __memcpy_chk rows) for the same git process, on
#   diff:  git diff -p <empty tree> HEAD over a commit of ~10 MB of C headers
#          (the first files of /usr/include in sorted order)
#   log:   git log -p over this project's repository
# Prints, per workload, each tool's bytes and calls, DHAT's per-function rows,
# and the ratio account/DHAT (target: within 2 %). See docs/comparison.md.
#
# usage: perf-tests/libc-copies-vs-dhat.sh [--build DIR] [--work DIR] [--mib N]
#   --build DIR  a build with libaccount.so (default: build-libc, else build)
#   --work DIR   scratch space, about 2×N MiB (default: a new directory under /tmp)
#   --mib N      size of the header commit (default 10)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=
work=
mib=10
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --mib) mib=$2; shift 2 ;;
    -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "libc-copies-vs-dhat.sh: unknown option $1" >&2; exit 1 ;;
  esac
done
if [ -z "$build" ]; then
  for b in "$top/build-libc" "$top/build"; do
    [ -f "$b/libaccount/libaccount.so" ] && { build=$b; break; }
  done
fi
shim=$(cd "$build" && pwd)/libaccount/libaccount.so
[ -f "$shim" ] || { echo "no libaccount.so under $build" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind is needed" >&2; exit 1; }
if [ -z "$work" ]; then
  work=$(mktemp -d /tmp/libc-copies-vs-dhat.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"

# A deterministic git: no user or system config, fixed identity and dates, no pager.
export GIT_CONFIG_NOSYSTEM=1 HOME=$work LC_ALL=C GIT_PAGER=cat PAGER=cat
export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@example.com GIT_COMMITTER_NAME=a
export GIT_COMMITTER_EMAIL=a@example.com GIT_AUTHOR_DATE='2024-01-01T00:00:00Z'
export GIT_COMMITTER_DATE='2024-01-01T00:00:00Z'
unset ACCOUNT_OUTPUT ACCOUNT_RUN_DIR ACCOUNT_TEST ACCOUNT_OP ACCOUNT_LIBC_COPIES

repo=$work/headers
if [ ! -d "$repo/.git" ]; then
  mkdir -p "$repo"
  (cd /usr/include && find . -type f -name '*.h' -printf '%p %s\n') | LC_ALL=C sort >"$work/all"
  awk -v limit=$((mib * 1024 * 1024)) '{ if (total < limit) print $1; total += $2 }' \
    "$work/all" >"$work/files"
  (cd /usr/include && tar -cf - -T "$work/files") | (cd "$repo" && tar -xf -)
  git -C "$repo" init -q
  git -C "$repo" add -A
  git -C "$repo" commit -q -m headers
fi
empty_tree=$(git -C "$repo" hash-object -t tree /dev/null)

# account: the record of the git process (ACCOUNT_SAMPLE_MS=0: no sampler).
account_figures() {  # name, git args...
  local name=$1
  shift
  rm -f "$work/$name.jsonl"
  ACCOUNT_OUTPUT=$work/$name.jsonl ACCOUNT_SAMPLE_MS=0 LD_PRELOAD=$shim "$@" >/dev/null
  python3 - "$work/$name.jsonl" <<'EOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
r = [x for x in recs if x.get("argv", [""])[0].endswith("git")][0]
print(r["copied_bytes"], r["copied_calls"], r.get("libc_copied_bytes", 0),
      r.get("libc_copied_calls", 0))
EOF
}

dhat_figures() {  # name, git args...
  local name=$1
  shift
  valgrind -q --tool=dhat --mode=copy --dhat-out-file="$work/$name.dhat.json" "$@" \
    >/dev/null 2>"$work/$name.dhat.err"
  python3 - "$work/$name.dhat.json" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
rows = {}
for pp in d["pps"]:
    frame = d["ftbl"][pp["fs"][0]]
    m = re.match(r"0x[0-9A-Fa-f]+: ([^ ]+)", frame)
    fn = m.group(1) if m else frame
    b, c = rows.get(fn, (0, 0))
    rows[fn] = (b + pp["tb"], c + pp["tbk"])
want = re.compile(r"^(memcpy|memmove|mempcpy|__memcpy_chk)(@.*)?$")
mb = sum(b for f, (b, c) in rows.items() if want.match(f))
mc = sum(c for f, (b, c) in rows.items() if want.match(f))
print(mb, mc)
for f, (b, c) in sorted(rows.items(), key=lambda x: -x[1][0]):
    print("  dhat row %-28s %12d bytes %9d calls%s" % (f, b, c, "" if want.match(f) else "  (not compared)"))
EOF
}

compare() {  # name, git args...
  local name=$1
  read -r abytes acalls lbytes lcalls < <(account_figures "$@")
  dhat_out=$(dhat_figures "$@")
  read -r dbytes dcalls <<<"$(head -1 <<<"$dhat_out")"
  echo "== $name: ${*:2}"
  printf '  account copied_bytes %12d  copied_calls %9d  (libc_copied_bytes %d, libc_copied_calls %d)\n' \
    "$abytes" "$acalls" "$lbytes" "$lcalls"
  printf '  dhat mem* rows       %12d  calls        %9d\n' "$dbytes" "$dcalls"
  tail -n +2 <<<"$dhat_out"
  python3 -c "
a, d, ac, dc = $abytes, $dbytes, $acalls, $dcalls
r = a / d if d else float('nan')
print('  ratio bytes account/dhat %.4f (%+.2f %%), calls %.4f; target within 2 %%: %s'
      % (r, (r - 1) * 100, ac / dc if dc else float('nan'), 'met' if abs(r - 1) <= 0.02 else 'MISSED'))"
}

echo "libaccount.so: $shim"
echo "glibc: $(getconf GNU_LIBC_VERSION), valgrind: $(valgrind --version)"
echo "header commit: $(wc -l <"$work/files") files, $(du -sk "$repo" --exclude=.git | cut -f1) KiB"
compare diff git -C "$repo" diff -p "$empty_tree" HEAD
head=$(git -C "$top" rev-parse HEAD)  # pinned: others may commit meanwhile
compare log git -C "$top" log -p "$head"
