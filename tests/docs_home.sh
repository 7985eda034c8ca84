#!/usr/bin/env bash
# The home folder the docs test (tests/test_docs.py) runs each Markdown file's commands
# in: a git project ~/myapp with a subfolder, nothing remembered yet, and ~/memhooks holding the
# examples of the clone (as a clone would). Usage: docs_home.sh DIR REPO
set -euo pipefail
home=$1
repo=$2
mkdir -p "$home/memhooks"
cp -R "$repo/examples" "$home/memhooks/examples"
mkdir -p "$home/myapp/src"
printf '[user]\n\tname = You\n\temail = you@example.com\n[init]\n\tdefaultBranch = main\n' >"$home/.gitconfig"
cd "$home/myapp"
GIT_CONFIG_GLOBAL="$home/.gitconfig" git init -q
printf 'print("hello")\n' >src/app.py
