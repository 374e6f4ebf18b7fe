#!/bin/sh
# TUI: Tab at the ":" prompt completes as tmux's does, for each kind of
# word: command names, targets after -t (session names, then SESSION:W
# once ':' is typed, SESSION:W.P after the '.', pane ids after '%'),
# backends after -b/--backend and profiles after -P/--profile (the
# built-in ones and the config's).  A unique match is completed with a
# blank after it; several are completed as far as they agree and listed
# above the prompt.
. "$(dirname "$0")/tui-lib"

mkdir -p "$XDG_CONFIG_HOME/sandmux"
cat >"$XDG_CONFIG_HOME/sandmux/config.json" <<'JSON'
{"profiles": {"reviewer": {"base": "agent", "mode": "review"},
              "ci": {"writable": ["/tmp"]}}}
JSON
sm new -d -s work >/dev/null
sm new -d -s other >/dev/null
sm new-window -t work >/dev/null
start_client -t work

# tab TEXT: open the prompt, type TEXT, press Tab.
tab() {
	prefix :
	keys "$1" Tab
}
# prompt_is TEXT: the prompt holds TEXT, the cursor after it (a blank at
# the end is only seen there: capture-pane drops trailing blanks).
prompt_is() {
	status_line | grep -qxF -- ":$(printf '%s' "$1" | sed 's/ *$//')" &&
		[ "$(outer_cursor)" = "$((1 + ${#1})),39" ]
}
# listed TEXT: the row above the prompt lists these matches
listed() { screen | tail -n 2 | head -n 1 | grep -q -- "^$1 *\$"; }
cancel() {
	keys Escape
	wait_for 2 status_matches '^\[' || true
}

tab "kill-w"
check "a command name: kill-w -> kill-window and a blank" wait_for 3 prompt_is "kill-window "
cancel
tab "choose-"
check "several command names: the prompt keeps what they share" wait_for 3 prompt_is "choose-"
check "... and lists them above it" wait_for 3 listed "choose-tree  choose-buffer"
keys t
check "the list goes at the next key" wait_for 3 screen_lacks "choose-tree  choose-buffer"
cancel

tab "select-pane -t wo"
check "a target: a session name (wo -> work)" wait_for 3 prompt_is "select-pane -t work "
cancel
tab "select-pane -t work:"
check "after ':' the session's windows" wait_for 3 listed "work:0  work:1"
check "... completed as far as they agree" prompt_is "select-pane -t work:"
keys 1 Tab
check "work:1 is unique at that level" wait_for 3 prompt_is "select-pane -t work:1 "
cancel
tab "select-pane -t work:1."
check "after '.' the window's panes (one here)" wait_for 3 prompt_is "select-pane -t work:1.0 "
keys Enter
check "... and the completed target runs (window 1 is shown)" wait_for 5 status_matches '1:[^ ]*\*'
tab "kill-pane -t :"
check "':' alone: the attached session's windows" wait_for 3 listed ":0  :1"
cancel
ids=$(sm ls --json | python3 -c '
import json, sys
print("  ".join("%%%d" % p["id"] for s in json.load(sys.stdin)["sessions"] for w in s["windows"] for p in w["panes"]))')
tab "kill-pane -t %"
check "after '%' every pane's id ($ids)" wait_for 3 listed "$ids"
cancel

tab "split -b na"
check "a backend after -b: na -> native" wait_for 3 prompt_is "split -b native "
cancel
tab "split -h --backend mi"
check "after --backend: mi -> microvm" wait_for 3 prompt_is "split -h --backend microvm "
cancel
tab "split -b n"
check "n: none and native listed" wait_for 3 listed "none  native"
check "... the prompt keeps the n they share" prompt_is "split -b n"
cancel

tab "split -P rev"
check "a profile after -P, from the config: rev -> reviewer" wait_for 3 prompt_is "split -P reviewer "
cancel
tab "new-window --profile a"
check "after --profile, a built-in one: a -> agent" wait_for 3 prompt_is "new-window --profile agent "
cancel
tab "split -P "
check "every profile listed: the built-in ones, then the config's" \
	wait_for 3 listed "terminal  agent  read_only  workspace_write  delete_guard  full_access  reviewer  ci"
cancel

tab "split -c /tm"
# The thing under test: Tab changes nothing here.  The half second is
# its chance to.
sleep 0.5
check "an option with free text is left as typed" prompt_is "split -c /tm"
cancel

sm ctl '{"cmd":"complete","kind":"nope"}' >"$T_DIR/bad" 2>&1
check "the complete request refuses an unknown kind with its code" grep -q invalid_argument "$T_DIR/bad"
finish
