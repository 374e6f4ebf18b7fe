#!/bin/sh
# TUI: UTF-8, wide and combining characters are drawn in the right cells,
# and a wide character never straddles a pane's edge: with an odd-width
# pane full of CJK text, the border beside it stays in its column on
# every row.
. "$(dirname "$0")/tui-lib"

# border_intact COLUMN FIRST LAST: rows FIRST..LAST have the border
# character at display column COLUMN (wide characters count two).
border_intact() {
	screen | python3 -c '
import sys, unicodedata
col, first, last = (int(a) for a in sys.argv[1:4])
rows = sys.stdin.read().split("\n")
for y in range(first, last + 1):
    x = 0
    found = False
    for ch in rows[y]:
        if x == col:
            found = ch == "\u2502" or ch in "\u251c\u2524\u253c\u252c\u2534"
            break
        if unicodedata.combining(ch):
            continue
        x += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    if not found:
        print("# row %d: no border at column %d: %r" % (y, col, rows[y]))
        sys.exit(1)
' "$@"
}

start_client
prefix %
wait_for 5 pane_count_is 2
left=$(panes | awk 'NR == 1 { print $1 }')
prefix :
keys "select-pane -t %$left" Enter
wait_for 3 active_pane_is "$left"
# Make the left pane an odd number of columns wide.
cols=$(panes | awk -v id="$left" '$1 == id { print $4 }')
if [ $((cols % 2)) -eq 0 ]; then
	prefix :
	keys "resize-pane -R 1" Enter
	cols_odd() { [ $(($(panes | awk -v id="$left" '$1 == id { print $4 }') % 2)) -eq 1 ]; }
	wait_for 5 cols_odd
	cols=$(panes | awk -v id="$left" '$1 == id { print $4 }')
fi
rows=$(panes | awk -v id="$left" '$1 == id { print $5 }')
top=$(panes | awk -v id="$left" '$1 == id { print $3 }')

keys "clear; printf '中文字符%.0s' \$(seq 1 60); echo; echo 'cafe\\314\\201 done-wide'" Enter
check "wide text is drawn" wait_screen "中文字符中文字符"
# The accent stays a combining mark on the e's cell: "cafe" + U+0301,
# and " done-wide" follows at column 4.
check "a combining accent joins its letter" wait_for 3 screen_has "$(printf 'cafe\314\201 done-wide')"
check "the left pane is odd-width ($cols columns)" [ $((cols % 2)) -eq 1 ]
check "the border stays in column $cols on every row" border_intact "$cols" "$top" $((top + rows - 1))
finish
