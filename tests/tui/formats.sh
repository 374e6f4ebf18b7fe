#!/bin/sh
# TUI: tmux's formats.  status_left and status_right in the config and
# display-message at the ":" prompt expand #{session_name},
# #{window_index}, #{pane_id}, #{pane_current_path}, #{pane_backend},
# #{pane_violations}, conditionals and ##; hostile text is shown, not
# obeyed, and nothing crashes.
. "$(dirname "$0")/tui-lib"

mkdir -p "$XDG_CONFIG_HOME/sandmux"
cat >"$XDG_CONFIG_HOME/sandmux/config.json" <<'JSON'
{
  "status_left": "<#{session_name}/#{window_index}/#{pane_id}/#{pane_backend}/v#{pane_violations}> ",
  "status_right": "#{?pane_active,on,off} at #{pane_current_path} ## "
}
JSON
mkdir -p "$T_DIR/work dir"
cd "$T_DIR"
start_client
session=$(sm ls | awk 'NR == 1 { sub(":$", "", $1); print $1 }')
pane=$(active_pane)
check "status_left expands session, window, pane, backend and violations" \
	wait_for 5 status_matches "^<$session/0/%$pane/none/v0> "
check "status_right expands a conditional, the current path and ##" \
	wait_for 5 status_matches "on at $T_DIR # *\$"

keys "cd '$T_DIR/work dir'" Enter
check "status_right follows the shell's cd" wait_for 5 status_matches "on at $T_DIR/work dir # *\$"

prefix :
keys "display-message [#{session_name}:#{window_index}.#{pane_index} #{pane_id} #{pane_backend} v#{pane_violations} #{pane_current_path}]" Enter
check "display-message expands the formats" \
	wait_for 5 status_matches "\[$session:0.0 %$pane none v0 $T_DIR/work dir\]"

prefix :
keys "display-message #S/#I/#{?window_zoomed_flag,zoomed,flat}/#{nonsense}/##/#{=4:pane_backend}|" Enter
check "display-message: short forms, conditionals, unknown names, ## and =N" \
	wait_for 5 status_matches "$session/0/flat//#/none|"

prefix :
keys "display-message open #{session_name and #{?pane_active,#{" Enter
check "an unterminated #{ is shown as text" \
	wait_for 5 status_matches "open #{session_name and #{?pane_active,#{"

# Quotes group the words and are not shown (tmux): once the words were
# joined back as a command line, and "'#{pane_id} x'" showed "%1 x".
prefix :
keys "display-message '#{pane_id} quoted' \"and #{pane_backend}\"" Enter
check "display-message shows quoted text without its quotes" \
	wait_for 5 status_matches "%$pane quoted and none *\$"

keys "echo still-alive" Enter
check "the client and server survive hostile formats" wait_screen "still-alive"
check "the server answers" eval 'sm ls >/dev/null'

# -t: the formats are those of the pane named, not the focused one.
prefix %
wait_for 5 pane_count_is 2
check "the split pane is focused" [ "$(active_pane)" != "$pane" ]
prefix :
keys "display-message -t %$pane at #{pane_id} #{?pane_active,focused,unfocused}" Enter
check "display-message -t PANE expands for that pane" \
	wait_for 5 status_matches "at %$pane unfocused"

finish
