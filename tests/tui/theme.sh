#!/bin/sh
# TUI: themes and the config file.  A theme chosen by --theme or the
# config colours the labels; a broken theme is reported naming the file
# and the field, and the built-in theme is used; NO_COLOR turns the
# client's colours off; the config's prefix and bindings take effect;
# --check-config validates without starting anything.
. "$(dirname "$0")/tui-lib"

ansi() { tm capture-pane -e -p -t main; }
# The label " none " drawn with a given background (SGR 48;5;N or 4N).
label_bg_is() { ansi | grep -q "$1 none "; }
no_colour_codes() { ! ansi | grep -q '\[3[0-7]m\|\[4[0-7]m\|[34]8;5;\|[34]8;2;'; }
restart_client() {
	tm kill-server >/dev/null 2>&1
	wait_for 5 tmux_gone
	start_client "$@"
}

mkdir -p "$XDG_CONFIG_HOME/sandmux/themes"
cat >"$XDG_CONFIG_HOME/sandmux/themes/loud.json" <<'JSON'
{"name": "loud", "label": {"none": {"fg": "black", "bg": "colour201"}}}
JSON
cat >"$T_DIR/broken.json" <<'JSON'
{"label": {"native": {"fg": "grren"}}}
JSON

start_client --theme loud
check "--theme NAME is found in the config dir and colours the none label" wait_for 3 label_bg_is '48;5;201m'

restart_client --theme "$T_DIR/broken.json"
check "a broken theme is reported with its file" wait_for 3 status_matches "broken.json"
check "and the field" status_matches "label.native.fg"
check "and the built-in theme is used" wait_for 3 label_bg_is '48;5;250m'

restart_client --theme solarized-dark
check "a shipped theme (RGB) is found next to the binary and mapped to 256 colours" \
	wait_for 3 label_bg_is '48;5;\(109\|246\|247\|248\)m'

restart_client NO_COLOR=1
check "NO_COLOR: the client draws no colours" wait_for 3 no_colour_codes
check "NO_COLOR: the labels are still drawn" screen_has " none "

cat >"$XDG_CONFIG_HOME/sandmux/config.json" <<'JSON'
{
	"prefix": "C-a",
	"theme": "loud",
	"bindings": {"|": "split -h", "%": ""}
}
JSON
restart_client
check "the config's theme is used" wait_for 3 label_bg_is '48;5;201m'
tm send-keys -t main C-a '|'
check "the config's prefix and binding split the pane" wait_for 5 pane_count_is 2
tm send-keys -t main C-a '%'
tm send-keys -t main C-a '?'
check "the help shows the configured prefix" wait_screen "prefix C-a"
# (the help came after the unbound key: that key was taken by then)
check "an unbound key does nothing" pane_count_is 2
# The list is longer than a screen: the binding is on the first page or,
# after PageDown, on the last.
listed() {
	screen_matches '|  *split -h' && return 0
	screen >"$T_DIR/help-page"
	tm send-keys -t main PageDown
	wait_for 3 screen_changed "$T_DIR/help-page"
	screen_matches '|  *split -h'
}
check "the help lists the configured binding" listed
keys q

"$SANDMUX_BIN" --check-config >"$T_DIR/check.out" 2>&1
check "--check-config accepts the config" [ $? -eq 0 ]
printf '{"prefix": "C-a", "colour": "red"}\n' >"$T_DIR/bad-config.json"
"$SANDMUX_BIN" --check-config "$T_DIR/bad-config.json" >"$T_DIR/check.out" 2>&1
check "--check-config FILE rejects an unknown key" [ $? -ne 0 ]
check "and names the key and the code" grep -q 'colour.*config_unknown_key' "$T_DIR/check.out"
printf '{"theme": "%s"}\n' "$T_DIR/broken.json" >"$T_DIR/bad-theme-config.json"
"$SANDMUX_BIN" --check-config "$T_DIR/bad-theme-config.json" >"$T_DIR/check.out" 2>&1
check "--check-config checks the theme the config names" [ $? -ne 0 ]
check "and names the theme's file and field" grep -q 'broken.json.*label.native.fg' "$T_DIR/check.out"

printf '{"prefix": "C-a"\n' >"$XDG_CONFIG_HOME/sandmux/config.json"
restart_client
check "a broken config is reported in the status line" wait_for 3 status_matches "config.json"
prefix %
check "the default prefix still works after a broken config" wait_for 5 pane_count_is 3
finish
