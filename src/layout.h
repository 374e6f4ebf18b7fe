/*
 * layout: how a window's area is divided among its panes.
 *
 * A binary tree: a leaf holds one pane; an inner cell splits its
 * rectangle between two children, either side by side (LAYOUT_LEFTRIGHT,
 * with a one-column border between them) or stacked (LAYOUT_TOPBOTTOM,
 * where the lower pane's title line separates them).  Each leaf's
 * rectangle includes the pane's title line as its first row, so the
 * pane's content is the rectangle less that row.  Sizes are kept as a
 * ratio on the inner cell so they survive window resizes.
 */
#ifndef SANDMUX_LAYOUT_H
#define SANDMUX_LAYOUT_H

#include <stdbool.h>

struct pane;

enum layout_type { LAYOUT_PANE, LAYOUT_LEFTRIGHT, LAYOUT_TOPBOTTOM };

struct layout_cell {
	enum layout_type type;
	struct layout_cell *parent;
	struct layout_cell *first, *second; /* inner cells only */
	int permille; /* share of the first child, 1..999 */
	struct pane *pane; /* leaves only */
	int x, y, w, h;
};

#define LAYOUT_MIN_W 2
#define LAYOUT_MIN_H 2

struct layout_cell *layout_new_leaf(struct pane *p);
void layout_free(struct layout_cell *cell);
/* Split leaf into two; the new pane goes second.  Returns the new leaf,
 * or NULL if there is no room for it. */
struct layout_cell *layout_split(struct layout_cell *leaf, enum layout_type type, int percent,
				 struct pane *p);
/* Split a whole subtree (tmux's split-window -f on the window's root):
 * the new pane takes the full width or height of cell.  Pane cells are
 * updated; returns the new leaf, or NULL if there is no room. */
struct layout_cell *layout_split_whole(struct layout_cell *cell, enum layout_type type,
				       int percent, struct pane *p);
/* Remove a leaf; its sibling takes the parent's place.  Returns the new
 * root (NULL when the tree is empty). */
struct layout_cell *layout_remove(struct layout_cell *root, struct layout_cell *leaf);
/* Assign rectangles to every cell of the tree for a w x h area. */
void layout_apply(struct layout_cell *root, int x, int y, int w, int h);
/* A direction on screen, as select-pane and resize-pane take it. */
enum layout_direction { LAYOUT_LEFT, LAYOUT_RIGHT, LAYOUT_UP, LAYOUT_DOWN };

/* The direction called name ("left", "right", "up", "down"); false if none. */
bool layout_direction_from_name(const char *name, enum layout_direction *out);
/* Leaf adjacent to `from` in a direction: `prefer` when it is one of
 * the adjacent leaves (the pane used last, as tmux goes back to it),
 * else the one sharing the longest edge. */
struct layout_cell *layout_neighbour(struct layout_cell *root, struct layout_cell *from,
				     enum layout_direction dir, const struct layout_cell *prefer);
/* Move the border on the leaf's right (left/right) or bottom (up/down)
 * edge, or its left/top one if it has none there, amount cells in dir
 * (tmux's resize-pane: right/down moves it right/down). */
bool layout_resize(struct layout_cell *leaf, enum layout_direction dir, int amount);
/* Grow a leaf by delta columns (LEFTRIGHT) or rows: resize-pane -x/-y. */
bool layout_grow(struct layout_cell *leaf, enum layout_type axis, int delta);
/* Can a rectangle of w x h be split this way at all? */
bool layout_can_split(const struct layout_cell *leaf, enum layout_type type);

/* tmux's five preset layouts, in next-layout's order. */
enum layout_preset {
	LAYOUT_EVEN_HORIZONTAL,
	LAYOUT_EVEN_VERTICAL,
	LAYOUT_MAIN_HORIZONTAL,
	LAYOUT_MAIN_VERTICAL,
	LAYOUT_TILED,
	LAYOUT_NPRESETS,
};

/* The preset called name ("even-horizontal", ...); false if none. */
bool layout_preset_from_name(const char *name, enum layout_preset *out);
const char *layout_preset_name(enum layout_preset preset);
/* A new tree arranging n panes (n >= 1, in this order, the first the
 * main pane) the preset's way over a w x h area; each pane's cell is set
 * to its new leaf.  The caller frees the old tree. */
struct layout_cell *layout_build_preset(enum layout_preset preset, struct pane **panes, int n,
					int w, int h);

/* A floating pane's box, drawn over the tiled layout (its border, the
 * top row holding the title and label, and the content inside): where
 * it was asked to be and how big (x or y -1: centred; w or h 0: half the
 * window's), and where it is for a window's size.  The box asked for is
 * kept, so a window that shrinks and grows again gives it back. */
struct layout_float {
	int x, y, w, h;
};

#define LAYOUT_FLOAT_MIN_W (LAYOUT_MIN_W + 2)
#define LAYOUT_FLOAT_MIN_H 3

/* The box want takes in an area_w x area_h window: its size cut to the
 * window (never below the minimum the window allows), its place moved
 * in so that the whole box is inside. */
void layout_float_place(const struct layout_float *want, int area_w, int area_h,
			struct layout_float *out);
/* The content rectangle of a placed box: inside its border, below the
 * title row. */
void layout_float_content(const struct layout_float *box, int *x, int *y, int *cols, int *rows);

#endif
