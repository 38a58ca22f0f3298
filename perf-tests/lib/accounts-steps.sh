#!/usr/bin/env bash
# The steps of accounts-test.sh, each run as one command under `account run`, so
# every git process of a step is in that step's row.
#
#   accounts-steps.sh changes   GIT REPO CHANGES
#   accounts-steps.sh users     GIT REPO USERS
#   accounts-steps.sh reviewers GIT REPO CHANGES USERS SEED
#   accounts-steps.sh parallel  GIT URL CHANGES USERS SEED CLIENTS SECONDS OUT_DIR
#
# Layout (Gerrit's NoteDb, in one repository): account N (1000001, 1000002, ...) is
# refs/users/NN/N, NN its last two digits, a commit whose tree holds account.config;
# change C is refs/changes/NN/C/1 (the patch set: README.md with C lines, on top of
# change C-1) and refs/changes/NN/C/meta (an empty-tree commit per update; the
# reviewers step adds one naming 5-10 reviewers). Progress goes to descriptor 3
# when it is open.
set -euo pipefail

progress() { { printf '    %s\n' "$*" >&3; } 2>/dev/null || true; }
# shard N: NN, the last two digits of N, as Gerrit shards refs (no subshell).
shard() { printf -v NN '%02d' $(($1 % 100)); }
step=${1:?usage: accounts-steps.sh STEP GIT ...}
GIT=${2:?git path}
shift 2
every() { [ $(($1 % $2)) -eq 0 ] || [ "$1" -eq "$3" ]; }

case $step in
  changes)
    repo=$1 changes=$2
    cd "$repo"
    empty=$("$GIT" hash-object -t tree -w /dev/null)
    parent=$("$GIT" rev-parse --verify refs/heads/master)
    readme=''
    for ((c = 1; c <= changes; c++)); do
      shard "$c"
      # Here-strings, not pipes: no subshell processes in the accounting.
      readme+="${readme:+$'\n'}some content $c"
      blob=$("$GIT" hash-object -w --stdin <<<"$readme")
      tree=$("$GIT" mktree <<<"100644 blob $blob"$'\t'"README.md")
      printf -v msg 'update content %d\n\nChange-Id: I%040d' "$c" "$c"
      commit=$("$GIT" commit-tree "$tree" -p "$parent" <<<"$msg")
      printf -v msg 'Create change\n\nPatch-set: 1\nChange-id: I%040d\nSubject: update content %d\nBranch: refs/heads/master\nStatus: new\nCommit: %s' \
        "$c" "$c" "$commit"
      meta=$("$GIT" commit-tree "$empty" <<<"$msg")
      printf -v msg 'create refs/changes/%s/%d/1 %s\ncreate refs/changes/%s/%d/meta %s' \
        "$NN" "$c" "$commit" "$NN" "$c" "$meta"
      "$GIT" update-ref --stdin <<<"$msg"
      parent=$commit
      every "$c" 50 "$changes" && progress "create changes: $c/$changes"
    done
    ;;
  users)
    repo=$1 users=$2
    cd "$repo"
    for ((u = 1; u <= users; u++)); do
      id=$((1000000 + u))
      printf -v name 'test_%04d' "$u"
      printf -v msg '[account]\n\tfullName = %s\n\tpreferredEmail = %s@example.com\n\tactive = true' \
        "$name" "$name"
      blob=$("$GIT" hash-object -w --stdin <<<"$msg")
      tree=$("$GIT" mktree <<<"100644 blob $blob"$'\t'"account.config")
      commit=$("$GIT" commit-tree "$tree" <<<"Create account")
      shard "$id"
      "$GIT" update-ref "refs/users/$NN/$id" "$commit" ''
      every "$u" 200 "$users" && progress "create users: $u/$users"
    done
    ;;
  reviewers)
    repo=$1 changes=$2 users=$3 seed=$4
    cd "$repo"
    RANDOM=$seed
    empty=$("$GIT" hash-object -t tree /dev/null)
    for ((c = 1; c <= changes; c++)); do
      shard "$c"
      nn=$NN
      n=$((RANDOM % 6 + 5))
      first=$((RANDOM % (users - n) + 1))
      # Look every reviewer up, as Gerrit's set-reviewers reads the account.
      lookups=''
      for ((u = first; u < first + n; u++)); do
        id=$((1000000 + u))
        shard "$id"
        lookups+="${lookups:+$'\n'}refs/users/$NN/$id:account.config"
      done
      batch=$("$GIT" cat-file --batch <<<"$lookups")
      names=''
      found=0
      while IFS= read -r line; do
        case $line in $'\t'"fullName = "*) names+="${names:+$'\n'}${line#*= }"; found=$((found + 1)) ;; esac
      done <<<"$batch"
      [ "$found" -eq "$n" ] || {
        echo "accounts-steps.sh: change $c: looked up $n reviewers, found: $names" >&2
        exit 1
      }
      msg="Update patch set 1"$'\n\n'"Patch-set: 1"$'\n'
      u=$first
      while IFS= read -r name; do
        msg+="Reviewer: $name <$((1000000 + u))@gerrit>"$'\n'
        u=$((u + 1))
      done <<<"$names"
      meta=$("$GIT" commit-tree -p "refs/changes/$nn/$c/meta" "$empty" <<<"${msg%$'\n'}")
      "$GIT" update-ref "refs/changes/$nn/$c/meta" "$meta"
      every "$c" 50 "$changes" && progress "add reviewers: $c/$changes"
    done
    ;;
  parallel)
    url=$1 changes=$2 users=$3 seed=$4 clients=$5 seconds=$6 out=$7
    client() {  # K: queries until the deadline; writes "COUNT ELAPSED_US" to out/K.
      local k=$1 count=0 start now end c u id dir nn
      dir="$out/client-$k"
      "$GIT" init -q --bare "$dir"
      RANDOM=$((seed + 100 + k))
      start=${EPOCHREALTIME//[!0-9]/}
      end=$((start + seconds * 1000000))
      now=$start
      while [ "$now" -lt "$end" ]; do
        c=$((RANDOM % changes + 1))
        u=$((RANDOM % users + 1))
        id=$((1000000 + u))
        shard "$c"
        nn=$NN
        shard "$id"
        "$GIT" -C "$dir" fetch -q --no-tags "$url" "refs/changes/$nn/$c/meta" \
          "refs/changes/$nn/$c/1" "refs/users/$NN/$id"
        count=$((count + 1))
        now=${EPOCHREALTIME//[!0-9]/}
      done
      printf '%d %d\n' "$count" $((now - start)) >"$out/$k"
    }
    pids=()
    for ((k = 1; k <= clients; k++)); do
      client "$k" &
      pids+=($!)
    done
    status=0
    for p in "${pids[@]}"; do wait "$p" || status=1; done
    exit "$status"
    ;;
  *)
    echo "accounts-steps.sh: unknown step '$step'" >&2
    exit 1
    ;;
esac
