#!/bin/sh
# TUI: floating panes on the server's drawing path.  A floating pane
# opens above the tiled layout with its border and label, C-b W hides it
# and shows it again with its content kept, the mouse moves it by its
# title and sizes it by its corner, and a popup closes when its command
# exits.
. "$(dirname "$0")/tui-lib"

# text_at_is ROW COL TEXT: the user sees TEXT there (0-based, in columns)
text_at_is() {
	screen | python3 -c '
import sys
rows = sys.stdin.read().split("\n")
row, col, text = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
sys.exit(0 if row < len(rows) and rows[row][col:col + len(text)] == text else 1)' "$1" "$2" "$3"
}
# float_box PANE: "x y width height hidden" of a floating pane, from the server
float_box() {
	sm ctl '{"cmd":"list"}' | python3 -c '
import json, sys
d = json.load(sys.stdin)
for s in d["result"]["sessions"]:
    for w in s["windows"]:
        for p in w["panes"]:
            if p["id"] == int(sys.argv[1]) and "float" in p:
                b = p["float"]
                print(b["x"], b["y"], b["width"], b["height"], str(b["hidden"]).lower())' "$1"
}
float_box_is() { [ "$(float_box "$1")" = "$2" ]; }

start_client
tiled=$(active_pane)
keys "for i in \$(seq 1 38); do echo TILED-\$i; done" Enter
wait_screen "TILED-38"

float=$(sm split --float -t "%$tiled" -w 40 --height 10 -x 10 -y 5 | grep -o '%[0-9]*' | tr -d %)
check "split --float opens a pane" wait_for 5 pane_count_is 2
check "... floating where it was asked" float_box_is "$float" "10 5 40 10 false"
check "... its top-left corner and label above the tiled pane" wait_for 5 text_at_is 5 10 "┌ none "
check "... its bottom border" wait_for 3 text_at_is 14 10 "└──"
check "... and it has the focus" wait_for 3 active_pane_is "$float"
keys "echo FLOAT-\$((6 * 7))" Enter
check "typed text goes to the floating pane, drawn inside its border" \
	wait_for 5 text_at_is 7 11 "FLOAT-42"
check "... over the tiled pane's text" sh -c '! tmux -u -L "$1" -f "$2" capture-pane -p -t main | sed -n 8p | grep -q "^TILED.*TILED"' - "$TMUX_NAME" "$T_DIR/tmux.conf"

# A title the program chose, on the box's top row: through the one
# sanitiser (a right-to-left override dropped), quoted when it holds a
# label's word, as on every pane's title line.
keys "printf '\\033]2;native\\342\\200\\256 X\\007'" Enter
row_has() { screen | sed -n "$(($1 + 1))p" | grep -qF -- "$2"; }
check "its title is sanitised and quoted beside its label" wait_for 5 row_has 5 '┌ none  "native X"'
prefix W
check "C-b W hides the floating pane" wait_screen_gone "FLOAT-42"
check "... which the server keeps, hidden" float_box_is "$float" "10 5 40 10 true"
check "... and lists as such" sh -c '"$1" -L "$2" list-panes | grep -q "%$3 none (floating, hidden)\$"' - "$SANDMUX_BIN" "$T_NAME" "$float"
check "... and the focus goes back to the tiled pane" wait_for 3 active_pane_is "$tiled"
check "... whose text is seen again where the float was" wait_for 3 text_at_is 7 0 "TILED-"
# Hidden, it goes on running: what it is sent now is there when shown.
sm send-keys -t "%$float" "echo HIDDEN-\$((2 * 3))" Enter
hidden_output() { sm capture -t "%$float" | grep -q "^HIDDEN-6"; }
check "... and goes on running while hidden" wait_for 5 hidden_output
check "... still not drawn" screen_lacks "HIDDEN-6"
prefix W
check "C-b W shows it again with its content" wait_for 5 text_at_is 7 11 "FLOAT-42"
# Inside the box: rows 6 to 13, from its content's first column.
in_box() { for row in 6 7 8 9 10 11 12 13; do text_at_is "$row" 11 "$1" && return 0; done; return 1; }
check "... and what it printed while hidden" wait_for 3 in_box "HIDDEN-6"
check "... focused" wait_for 3 active_pane_is "$float"

# Drag by the title row: pressed 3 columns into the box, let go at 33,12.
mouse 0 13 5
mouse 32 33 12
mouse 3 33 12
check "dragging its title moves the box" wait_for 3 float_box_is "$float" "30 12 40 10 false"
check "... drawn there, content kept" wait_for 3 text_at_is 14 31 "FLOAT-42"
# Its bottom-right corner (69,21) dragged 5 right and 2 down.
mouse 0 69 21
mouse 32 74 23
mouse 3 74 23
check "dragging its corner sizes the box" wait_for 3 float_box_is "$float" "30 12 45 12 false"
pane_cols_is() { [ "$(pane_field "$1" cols)" = "$2" ]; }
check "... and the pane inside it" wait_for 3 pane_cols_is "$float" 43

# Focus: a click on the tiled pane, then on the floating one's content.
mouse 0 2 30
mouse 3 2 30
check "a click on the tiled pane focuses it" wait_for 3 active_pane_is "$tiled"
keys "echo TYPED-\$((3 * 3))" Enter
check "... and typing goes there" wait_screen "TYPED-9"
mouse 0 40 16
mouse 3 40 16
check "a click on the floating pane's content focuses it" wait_for 3 active_pane_is "$float"
sm select-pane -t "%$tiled"
check "select-pane reaches the tiled pane" wait_for 3 active_pane_is "$tiled"
sm select-pane -t "%$float"
check "... and the floating one" wait_for 3 active_pane_is "$float"

# A popup: a one-shot floating pane, gone when its command exits.
sm display-popup -w 30 -h 6 -x 60 -y 2 -- sh -c 'echo POPUP-UP; read answer' >/dev/null
check "display-popup opens a floating pane" wait_screen "POPUP-UP"
check "... on top" wait_for 3 text_at_is 2 60 "┌ none "
keys Enter
check "... which closes when its command exits" wait_screen_gone "POPUP-UP"
check "... leaving the other two" wait_for 3 pane_count_is 2
prefix P
check "C-b P opens a popup with a shell" wait_for 5 pane_count_is 3
keys "exit" Enter
check "... closed by exit" wait_for 5 pane_count_is 2

# The feed, floating.
sm feed --float >/dev/null
feed_is_floating() { pane_count_is 3 && [ -n "$(float_box "$(active_pane)")" ]; }
check "feed --float opens the feed as a floating pane" wait_for 5 feed_is_floating
check "... drawing the feed inside it" wait_screen "feed"

exit $T_FAILED
