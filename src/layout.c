/*
 * layout: a binary tree of splits over a window's area (see layout.h).
 *
 * Geometry rules: side-by-side children share the parent's width less one
 * border column; stacked children share its full height, because the
 * lower pane's title line already separates them.  Every leaf keeps at
 * least LAYOUT_MIN_W x LAYOUT_MIN_H (one title row and one content row).
 */
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "xalloc.h"

struct layout_cell *layout_new_leaf(struct pane *p)
{
	struct layout_cell *cell = xcalloc(1, sizeof *cell);

	cell->type = LAYOUT_PANE;
	cell->pane = p;
	return cell;
}

void layout_free(struct layout_cell *cell)
{
	if (cell == NULL)
		return;
	layout_free(cell->first);
	layout_free(cell->second);
	free(cell);
}

bool layout_can_split(const struct layout_cell *leaf, enum layout_type type)
{
	if (type == LAYOUT_LEFTRIGHT)
		return leaf->w >= 2 * LAYOUT_MIN_W + 1;
	return leaf->h >= 2 * LAYOUT_MIN_H;
}

struct layout_cell *layout_split(struct layout_cell *leaf, enum layout_type type, int percent,
				 struct pane *p)
{
	struct layout_cell *old, *added;

	if (leaf->type != LAYOUT_PANE || !layout_can_split(leaf, type))
		return NULL;
	if (percent <= 0 || percent >= 100)
		percent = 50;
	/* The leaf becomes the inner cell so pointers to it (the parent's,
	 * or the window's root) stay valid. */
	old = layout_new_leaf(leaf->pane);
	added = layout_new_leaf(p);
	added->parent = leaf;
	*old = (struct layout_cell){ .type = LAYOUT_PANE, .parent = leaf, .pane = leaf->pane,
				     .x = leaf->x, .y = leaf->y, .w = leaf->w, .h = leaf->h };
	leaf->type = type;
	leaf->pane = NULL;
	leaf->first = old;
	leaf->second = added;
	leaf->permille = 1000 - percent * 10;
	return added;
}

static void layout_reparent_panes(struct layout_cell *cell);

struct layout_cell *layout_split_whole(struct layout_cell *cell, enum layout_type type,
				       int percent, struct pane *p)
{
	struct layout_cell *old, *added;

	if (cell->type == LAYOUT_PANE) {
		added = layout_split(cell, type, percent, p);
		if (added != NULL)
			layout_reparent_panes(cell->first);
		return added;
	}
	if (!layout_can_split(cell, type))
		return NULL;
	if (percent <= 0 || percent >= 100)
		percent = 50;
	/* As layout_split: the cell keeps its place (the window's root
	 * pointer stays valid) and its old contents move one level down. */
	old = layout_new_leaf(NULL);
	*old = *cell;
	old->parent = cell;
	old->first->parent = old;
	old->second->parent = old;
	added = layout_new_leaf(p);
	added->parent = cell;
	cell->type = type;
	cell->first = old;
	cell->second = added;
	cell->permille = 1000 - percent * 10;
	layout_reparent_panes(old);
	return added;
}

struct layout_cell *layout_remove(struct layout_cell *root, struct layout_cell *leaf)
{
	struct layout_cell *parent = leaf->parent, *sibling;

	if (parent == NULL) {
		free(leaf);
		return NULL;
	}
	sibling = parent->first == leaf ? parent->second : parent->first;
	/* Copy the sibling into the parent's place so the parent pointer
	 * held by the grandparent (or the window root) stays valid. */
	parent->type = sibling->type;
	parent->pane = sibling->pane;
	parent->first = sibling->first;
	parent->second = sibling->second;
	parent->permille = sibling->permille;
	if (parent->first != NULL)
		parent->first->parent = parent;
	if (parent->second != NULL)
		parent->second->parent = parent;
	layout_reparent_panes(parent);
	free(sibling);
	free(leaf);
	return root;
}

/* Panes keep a pointer to their leaf; refresh it after cells moved. */
void layout_set_pane_cell(struct pane *p, struct layout_cell *cell);

static void layout_reparent_panes(struct layout_cell *cell)
{
	if (cell->type == LAYOUT_PANE) {
		layout_set_pane_cell(cell->pane, cell);
		return;
	}
	layout_reparent_panes(cell->first);
	layout_reparent_panes(cell->second);
}

static int layout_clamp(int first, int total, int min)
{
	if (first > total - min)
		first = total - min;
	if (first < min)
		first = min;
	return first;
}

/* The smallest a cell can be across axis with every pane in it at its
 * minimum: a split of that direction adds its children (and a border
 * column between side-by-side cells), the other kind takes the larger. */
static int layout_min(const struct layout_cell *cell, enum layout_type axis)
{
	int a, b;

	if (cell->type == LAYOUT_PANE)
		return axis == LAYOUT_LEFTRIGHT ? LAYOUT_MIN_W : LAYOUT_MIN_H;
	a = layout_min(cell->first, axis);
	b = layout_min(cell->second, axis);
	if (cell->type == axis)
		return a + b + (axis == LAYOUT_LEFTRIGHT ? 1 : 0);
	return a > b ? a : b;
}

/* The first child's share of avail: its ratio, but never so much that
 * the second cannot hold its panes at their minimum, nor less than the
 * first's own minimum.  Only the pane count's minimum matters, not a
 * lone pane's: three panes stacked under one need six rows, and a
 * ratio that gave them two put the last pane below the window. */
static int layout_share(const struct layout_cell *cell, int avail)
{
	enum layout_type axis = cell->type;
	int first = avail * cell->permille / 1000;
	int hi = avail - layout_min(cell->second, axis), lo = layout_min(cell->first, axis);

	if (first > hi)
		first = hi;
	if (first < lo)
		first = lo;
	return first;
}

void layout_apply(struct layout_cell *cell, int x, int y, int w, int h)
{
	int first;

	cell->x = x;
	cell->y = y;
	cell->w = w;
	cell->h = h;
	if (cell->type == LAYOUT_LEFTRIGHT) {
		int avail = w - 1;
		first = layout_share(cell, avail);
		layout_apply(cell->first, x, y, first, h);
		layout_apply(cell->second, x + first + 1, y, avail - first, h);
	} else if (cell->type == LAYOUT_TOPBOTTOM) {
		first = layout_share(cell, h);
		layout_apply(cell->first, x, y, w, first);
		layout_apply(cell->second, x, y + first, w, h - first);
	}
}

static void layout_collect(struct layout_cell *cell, struct layout_cell **out, int *n, int max)
{
	if (cell->type == LAYOUT_PANE) {
		if (*n < max)
			out[(*n)++] = cell;
		return;
	}
	layout_collect(cell->first, out, n, max);
	layout_collect(cell->second, out, n, max);
}

static int overlap(int a0, int a1, int b0, int b1)
{
	int lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
	return hi - lo;
}

bool layout_direction_from_name(const char *name, enum layout_direction *out)
{
	static const char *const names[] = { [LAYOUT_LEFT] = "left", [LAYOUT_RIGHT] = "right",
					     [LAYOUT_UP] = "up", [LAYOUT_DOWN] = "down" };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i]) == 0) {
			*out = (enum layout_direction)i;
			return true;
		}
	return false;
}

static bool horizontal(enum layout_direction dir)
{
	return dir == LAYOUT_LEFT || dir == LAYOUT_RIGHT;
}

struct layout_cell *layout_neighbour(struct layout_cell *root, struct layout_cell *from,
				     enum layout_direction dir, const struct layout_cell *prefer)
{
	struct layout_cell *leaves[256], *best = NULL;
	int n = 0, best_overlap = 0;

	layout_collect(root, leaves, &n, 256);
	for (int i = 0; i < n; i++) {
		struct layout_cell *c = leaves[i];
		bool adjacent;
		int ov;

		if (c == from)
			continue;
		if (horizontal(dir)) {
			adjacent = dir == LAYOUT_LEFT ? c->x + c->w + 1 == from->x
						      : from->x + from->w + 1 == c->x;
			ov = overlap(c->y, c->y + c->h, from->y, from->y + from->h);
		} else {
			adjacent = dir == LAYOUT_UP ? c->y + c->h == from->y : from->y + from->h == c->y;
			ov = overlap(c->x, c->x + c->w, from->x, from->x + from->w);
		}
		if (adjacent && ov > 0 && c == prefer)
			return c;
		if (adjacent && ov > best_overlap) {
			best = c;
			best_overlap = ov;
		}
	}
	return best;
}

/*
 * The split whose border is the leaf's right (or bottom) edge: the
 * nearest ancestor of that type holding the leaf in its first child.  A
 * leaf at the far edge has no such border and moves its left (top) one,
 * the nearest ancestor of the type, as tmux's resize-pane does.  Only
 * the nearest ancestor is not enough: in (%1|%5)|%2 the split nearest
 * %5 is its left border with %1, while its right edge, the border with
 * %2, belongs to the root.
 */
static struct layout_cell *resize_split(struct layout_cell *leaf, enum layout_type want)
{
	struct layout_cell *nearest = NULL;

	for (struct layout_cell *child = leaf; child->parent != NULL; child = child->parent) {
		struct layout_cell *parent = child->parent;

		if (parent->type != want)
			continue;
		if (parent->first == child)
			return parent;
		if (nearest == NULL)
			nearest = parent;
	}
	return nearest;
}

static int cell_size(const struct layout_cell *cell, enum layout_type axis)
{
	return axis == LAYOUT_LEFTRIGHT ? cell->w : cell->h;
}

static int split_permille(int first, int avail)
{
	int permille = avail > 0 ? (first * 1000 + avail - 1) / avail : 500;

	return permille < 1 ? 1 : permille > 999 ? 999 : permille;
}

/*
 * A moved border changes the size of the cells on either side of it; the
 * change belongs to the panes that touch the border, never to the ones
 * further away (tmux moves exactly one border).  Splits keep ratios, so
 * each nested split of the same direction is given the ratio that keeps
 * its far child's size: toward_end is true for a cell left of (above)
 * the border, whose second child touches it.
 */
static void keep_far_side(struct layout_cell *cell, enum layout_type axis, int size, bool toward_end)
{
	int avail, min, first;

	if (cell->type == LAYOUT_PANE)
		return;
	if (cell->type != axis) {
		keep_far_side(cell->first, axis, size, toward_end);
		keep_far_side(cell->second, axis, size, toward_end);
		return;
	}
	avail = axis == LAYOUT_LEFTRIGHT ? size - 1 : size;
	min = axis == LAYOUT_LEFTRIGHT ? LAYOUT_MIN_W : LAYOUT_MIN_H;
	if (avail < 2 * min)
		return;
	first = toward_end ? cell_size(cell->first, axis)
			   : avail - cell_size(cell->second, axis);
	first = layout_clamp(first, avail, min);
	cell->permille = split_permille(first, avail);
	if (toward_end)
		keep_far_side(cell->second, axis, avail - first, true);
	else
		keep_far_side(cell->first, axis, first, false);
}

bool layout_resize(struct layout_cell *leaf, enum layout_direction dir, int amount)
{
	enum layout_type want = horizontal(dir) ? LAYOUT_LEFTRIGHT : LAYOUT_TOPBOTTOM;
	struct layout_cell *parent = resize_split(leaf, want);
	int size, delta;

	if (parent == NULL)
		return false;
	size = want == LAYOUT_LEFTRIGHT ? parent->w - 1 : parent->h;
	if (size <= 0)
		return false;
	/* dir says which way the border moves: right/down grows the first
	 * child, whichever side the pane is on (tmux's resize-pane -L/-R). */
	delta = (dir == LAYOUT_RIGHT || dir == LAYOUT_DOWN) ? amount : -amount;
	{
		int first = want == LAYOUT_LEFTRIGHT ? parent->first->w : parent->first->h;
		int min = want == LAYOUT_LEFTRIGHT ? LAYOUT_MIN_W : LAYOUT_MIN_H;
		first = layout_clamp(first + delta, size, min);
		parent->permille = split_permille(first, size);
		keep_far_side(parent->first, want, first, true);
		keep_far_side(parent->second, want, size - first, false);
	}
	return true;
}

/* Grow a leaf by delta cells (shrink when negative) across axis, as
 * tmux's resize-pane -x/-y: the border resize_split picks moves
 * whichever way does that.  The leaf may be either side of it: a leaf
 * at the far edge grows when its left (top) border moves left (up). */
bool layout_grow(struct layout_cell *leaf, enum layout_type axis, int delta)
{
	struct layout_cell *parent = resize_split(leaf, axis);
	bool in_first = false;

	if (parent == NULL || delta == 0)
		return false;
	for (const struct layout_cell *child = leaf; child != parent; child = child->parent)
		if (child->parent == parent)
			in_first = parent->first == child;
	if (axis == LAYOUT_LEFTRIGHT)
		return layout_resize(leaf, in_first ? LAYOUT_RIGHT : LAYOUT_LEFT, delta);
	return layout_resize(leaf, in_first ? LAYOUT_DOWN : LAYOUT_UP, delta);
}

static const char *const preset_names[LAYOUT_NPRESETS] = {
	[LAYOUT_EVEN_HORIZONTAL] = "even-horizontal", [LAYOUT_EVEN_VERTICAL] = "even-vertical",
	[LAYOUT_MAIN_HORIZONTAL] = "main-horizontal", [LAYOUT_MAIN_VERTICAL] = "main-vertical",
	[LAYOUT_TILED] = "tiled",
};

bool layout_preset_from_name(const char *name, enum layout_preset *out)
{
	for (int i = 0; i < LAYOUT_NPRESETS; i++)
		if (strcmp(name, preset_names[i]) == 0) {
			*out = (enum layout_preset)i;
			return true;
		}
	return false;
}

const char *layout_preset_name(enum layout_preset preset)
{
	return preset_names[preset];
}

static struct layout_cell *layout_inner(enum layout_type type, int permille,
					struct layout_cell *first, struct layout_cell *second)
{
	struct layout_cell *cell = xcalloc(1, sizeof *cell);

	cell->type = type;
	cell->permille = permille < 1 ? 1 : permille > 999 ? 999 : permille;
	cell->first = first;
	cell->second = second;
	first->parent = cell;
	second->parent = cell;
	return cell;
}

/* n cells side by side (or stacked) with equal shares: a chain in which
 * each inner cell gives its first child 1/k of what is left, rounded up
 * because layout_apply rounds down. */
static struct layout_cell *layout_chain(enum layout_type type, struct layout_cell **cells, int n)
{
	if (n == 1)
		return cells[0];
	return layout_inner(type, (1000 + n - 1) / n, cells[0], layout_chain(type, cells + 1, n - 1));
}

static struct layout_cell *layout_leaves(struct pane **panes, int n, struct layout_cell **out)
{
	for (int i = 0; i < n; i++) {
		out[i] = layout_new_leaf(panes[i]);
		layout_set_pane_cell(panes[i], out[i]);
	}
	return out[0];
}

/* tmux's main-pane-height and main-pane-width defaults. */
#define MAIN_PANE_HEIGHT 24
#define MAIN_PANE_WIDTH 80

struct layout_cell *layout_build_preset(enum layout_preset preset, struct pane **panes, int n,
					int w, int h)
{
	struct layout_cell **cells = xcalloc((size_t)n, sizeof *cells), *root;
	int cols, rows;

	layout_leaves(panes, n, cells);
	switch (preset) {
	case LAYOUT_EVEN_HORIZONTAL:
		root = layout_chain(LAYOUT_LEFTRIGHT, cells, n);
		break;
	case LAYOUT_EVEN_VERTICAL:
		root = layout_chain(LAYOUT_TOPBOTTOM, cells, n);
		break;
	case LAYOUT_MAIN_HORIZONTAL:
		root = n == 1 ? cells[0]
			      : layout_inner(LAYOUT_TOPBOTTOM,
					     h > MAIN_PANE_HEIGHT ? (MAIN_PANE_HEIGHT * 1000 + h - 1) / h : 500,
					     cells[0], layout_chain(LAYOUT_LEFTRIGHT, cells + 1, n - 1));
		break;
	case LAYOUT_MAIN_VERTICAL:
		root = n == 1 ? cells[0]
			      : layout_inner(LAYOUT_LEFTRIGHT,
					     w > MAIN_PANE_WIDTH + 1
						 ? (MAIN_PANE_WIDTH * 1000 + w - 2) / (w - 1)
						 : 500,
					     cells[0], layout_chain(LAYOUT_TOPBOTTOM, cells + 1, n - 1));
		break;
	default: /* LAYOUT_TILED: rows of ceil(sqrt(n)) panes; the last row's share the width */
		for (cols = 1; cols * cols < n; cols++)
			;
		rows = (n + cols - 1) / cols;
		{
			struct layout_cell **row_cells = xcalloc((size_t)rows, sizeof *row_cells);
			for (int r = 0; r < rows; r++) {
				int first = r * cols, count = n - first < cols ? n - first : cols;
				row_cells[r] = layout_chain(LAYOUT_LEFTRIGHT, cells + first, count);
			}
			root = layout_chain(LAYOUT_TOPBOTTOM, row_cells, rows);
			free(row_cells);
		}
		break;
	}
	free(cells);
	root->parent = NULL;
	return root;
}
