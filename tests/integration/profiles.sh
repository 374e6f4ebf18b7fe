#!/bin/sh
# Profiles from the config, with the real bwrap and a real server: extra
# writable roots, added deny-read paths, new-name patterns, protected
# paths and the read-only modes hold in native panes; a profile based on
# agent with its network open starts without the egress proxies; an
# unknown profile name is refused before anything starts, listing the
# valid ones; a broken profile is a config error naming the field.
. "$(dirname "$0")/../lib.sh"

if ! command -v bwrap >/dev/null 2>&1; then
	echo "not ok - needs bwrap"
	exit 1
fi
export HOME="$T_DIR/home"
mkdir -p "$HOME/private" "$T_DIR/work/locked" "$T_DIR/extra" "$T_DIR/review"
echo "top secret" >"$HOME/private/p.txt"
echo "readable" >"$T_DIR/review/existing.txt"
W=$(cd "$T_DIR/work" && pwd -P)
X=$(cd "$T_DIR/extra" && pwd -P)
R=$(cd "$T_DIR/review" && pwd -P)
LOG="$XDG_STATE_HOME/sandmux/events.jsonl"
mkdir -p "$XDG_CONFIG_HOME/sandmux"
cat >"$XDG_CONFIG_HOME/sandmux/config.json" <<JSON
{
  "profiles": {
    "ci": {
      "writable": ["$X"],
      "deny_read": ["~/private"],
      "deny_create_patterns": ["*.secret"],
      "protected_paths": ["$W/locked"]
    },
    "ro": { "mode": "review" },
    "agentish": { "base": "agent", "network": "open", "write_denies": [".envrc"] }
  }
}
JSON

pane_id() { sed -n 's/.*%\([0-9][0-9]*\).*/\1/p' | head -1; }
pane_json() { sm ls --json | tr -d ' \t\n' | sed 's/},{/}\n{/g' | grep "\"id\":$1,"; }
violations() { grep '"kind":"violation"' "$LOG" | grep -cF "\"target\":\"$1\""; }
# run NAME PROFILE DIR SCRIPT: a native pane running SCRIPT, output in DIR/NAME.out
run() {
	id=$(sm new -d -s "$1" -x 200 -y 50 --backend native --profile "$2" -c "$3" -- sh -c \
		"{ $4 } >'$3/$1.out' 2>&1; echo ALL-DONE; sleep 600" | pane_id)
	wait_for 30 capture_has "%$id" ALL-DONE
	echo "$id"
}

# --- a profile based on terminal ----------------------------------------------
ci=$(run ci ci "$W" "echo x >a.secret; echo secret=\$?; echo x >fine.txt; echo fine=\$?;
	echo x >'$X/out.txt'; echo extra=\$?; echo x >locked/f; echo locked=\$?;
	cat ~/private/p.txt; echo private=\$?; echo x >\$HOME/h.txt; echo home=\$?;")
# The three refusals' violations are in the log (or, failing, the checks say so).
wait_for 5 eval '[ "$(violations "$W/a.secret")" -ge 1 ] && [ "$(violations "$W/locked/f")" -ge 1 ] &&
	[ "$(violations "$HOME/private/p.txt")" -ge 1 ]'
pane_json "$ci" >"$T_DIR/ci.json"
check "ci: the pane runs native under its profile" \
	sh -c "grep -q '\"backend\":\"native\"' '$T_DIR/ci.json' && grep -q '\"profile\":\"ci\"' '$T_DIR/ci.json'"
check "ci: a *.secret name is refused" sh -c "grep -qx 'secret=[12]' '$W/ci.out' && [ ! -e '$W/a.secret' ]"
check "ci: ... as one file-write-create violation" [ "$(violations "$W/a.secret")" = 1 ]
check "ci: other names are fine" [ -e "$W/fine.txt" ]
check "ci: the extra writable root is writable" [ -e "$X/out.txt" ]
check "ci: the protected path is not, inside the work tree" \
	sh -c "grep -qx 'locked=[12]' '$W/ci.out' && [ ! -e '$W/locked/f' ]"
check "ci: ... and the refusal is reported" [ "$(violations "$W/locked/f")" -ge 1 ]
check "ci: the added deny-read path is unreadable" sh -c "grep -qx 'private=1' '$W/ci.out' && ! grep -q 'top secret' '$W/ci.out'"
check "ci: ... as a file-read* violation" [ "$(violations "$HOME/private/p.txt")" -ge 1 ]
# The terminal base's $HOME is its copy-on-write layer (one per profile).
check "ci: \$HOME stays writable (the terminal base), through the profile's layer" \
	sh -c "grep -qx 'home=0' '$W/ci.out' && [ ! -e '$HOME/h.txt' ] && [ -e '$XDG_STATE_HOME/sandmux/home-layer/ci/upper/h.txt' ]"

# --- mode review: the working directory and \$HOME read-only ------------------
# The output goes to the extra root of nothing: review has no writable
# root, so the script writes its report on the terminal instead.
ro=$(sm new -d -s ro -x 200 -y 50 --backend native --profile ro -c "$R" -- sh -c \
	"echo x >new.txt; echo new=\$?; cat existing.txt; echo x >\$HOME/r.txt; echo home=\$?; echo ALL-DONE; sleep 600" | pane_id)
wait_for 30 capture_has "%$ro" ALL-DONE
sm capture -t "%$ro" -S - >"$T_DIR/ro.txt"
check "review: nothing new in the working directory" \
	sh -c "grep -q 'new=[12]' '$T_DIR/ro.txt' && [ ! -e '$R/new.txt' ]"
check "review: existing files still read" grep -q readable "$T_DIR/ro.txt"
check "review: \$HOME is read-only too" sh -c "grep -q 'home=[12]' '$T_DIR/ro.txt' && [ ! -e '$HOME/r.txt' ]"

# --- based on agent, network open ----------------------------------------------
mkdir -p "$W/ag"
ag=$(run ag agentish "$W/ag" "echo x >.envrc; echo envrc=\$?; echo x >.env; echo env=\$?; echo x >.bashrc; echo bashrc=\$?;
	echo nets=\$(tail -n +3 /proc/net/dev | wc -l); ls -d /tmp/.sandmux-egress; echo egressdir=\$?;")
# The same in the built-in agent profile, for contrast (its network is
# the proxies': a new namespace with loopback alone).
mkdir -p "$W/ag2"
ag2=$(run ag2 agent "$W/ag2" "echo nets=\$(tail -n +3 /proc/net/dev | wc -l);")
hostnets=$(tail -n +3 /proc/net/dev | wc -l)
pane_json "$ag" >"$T_DIR/ag.json"
check "agentish: starts native" grep -q '"backend":"native"' "$T_DIR/ag.json"
check "agentish: the host's network ($hostnets interfaces): $(grep nets= "$W/ag/ag.out")" \
	grep -qx "nets=$hostnets" "$W/ag/ag.out"
check "agentish: no egress sockets bound in" grep -qx "egressdir=2" "$W/ag/ag.out"
check "agent (built in), for contrast: loopback alone: $(grep nets= "$W/ag2/ag2.out")" \
	grep -qx "nets=1" "$W/ag2/ag2.out"
check "agentish: its own write-deny (.envrc) holds" [ ! -e "$W/ag/.envrc" ]
check "agentish: the base's name patterns (.env) hold" [ ! -e "$W/ag/.env" ]
check "agentish: the base's write-denies were replaced (.bashrc allowed)" [ -e "$W/ag/.bashrc" ]

# --- names are strict ----------------------------------------------------------
out=$(sm split -t "%$ci" --backend native --profile nope 2>&1)
check "an unknown profile is refused: $out" sh -c "printf '%s' \"\$1\" | grep -q 'invalid_profile' && printf '%s' \"\$1\" | grep -q 'ci'" _ "$out"
n=$(sm ls --json | tr -d ' \t\n' | grep -o '"id":[0-9]*' | wc -l)
check "... and no pane was made for it ($n panes)" [ "$n" = 4 ]

# --- a broken profile is a config error naming the field -----------------------
printf '{"profiles":{"bad":{"writable":["relative"]}}}' >"$T_DIR/bad.json"
out=$("$SANDMUX_BIN" --check-config "$T_DIR/bad.json" 2>&1)
check "--check-config names the profile and field: $out" sh -c "printf '%s' \"\$1\" | grep -q 'bad.*writable'" _ "$out"
finish
