#!/usr/bin/env bash
# On the GPU machine: bring its copy of .git up to main. The device tool sends the working tree, but the machine's
# .git is the one the session started with, so a protocol committed since then reads as uncommitted there and
# `tilewise bench --protocol` refuses it (the freeze check). Fetching the commits made since, from a bundle, gives
# that check the real commits.
#   here:  git bundle create build/carry/since.bundle <the session's first commit>..main
#   there: scripts/device-git.sh build/carry/since.bundle [BRANCH]  (with build/carry in the run's carry; BRANCH is the
#          bundle's branch the working tree holds, main unless named)
set -euo pipefail
bundle=${1:?usage: scripts/device-git.sh BUNDLE [BRANCH]}
git fetch -q "$bundle" "${2:-main}:refs/heads/carried"
git reset -q --mixed carried  # the index and HEAD move; the working tree is already main's
echo "device git: $(git log -1 --format='%h %s' | cut -c1-100); $(git status --porcelain --untracked-files=no | wc -l) tracked changes"
