/*
 * test_layout: which border a resize moves, and which panes it changes.
 *
 * Each case is a layout built by splits (as `split` builds it: the new
 * pane second, splitting the pane named), a pane, a direction and an
 * amount, and the widths (or heights) every pane must have afterwards.
 * The layouts nest splits of the same direction, where the split nearest
 * a pane in the tree is not the one on its right edge: in (A|B)|C the
 * A|B split is B's nearest, the B|C border belongs to the root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "layout.h"
#include "server.h"

/* Panes are only names to the layout. */
static struct pane *pane_named(int n)
{
	static char names[8];

	return (struct pane *)&names[n];
}

struct three {
	struct layout_cell *root, *a, *b, *c;
};

/* (A|B)|C, built as a window builds it: C split from A first, then B
 * split from A (each split laid out before the next, as a window is). */
static struct three nested(enum layout_type type, int w, int h)
{
	struct three t;

	t.root = layout_new_leaf(pane_named(0));
	layout_apply(t.root, 0, 0, w, h);
	t.c = layout_split(t.root, type, 50, pane_named(2));
	layout_apply(t.root, 0, 0, w, h);
	t.a = t.root->first;
	t.b = layout_split(t.a, type, 50, pane_named(1));
	t.a = t.a->first;
	layout_apply(t.root, 0, 0, w, h);
	assert_non_null(t.c);
	assert_non_null(t.b);
	return t;
}

static int size(const struct layout_cell *cell, enum layout_type type)
{
	return type == LAYOUT_LEFTRIGHT ? cell->w : cell->h;
}

struct resize_case {
	enum layout_type type;
	int pane; /* 0 A, 1 B, 2 C */
	int dir;  /* 0 left, 1 right, 2 up, 3 down */
	int amount;
	int delta[3]; /* each pane's change of size */
};

static const struct resize_case cases[] = {
    /* B's right edge is the B|C border: it moves; A keeps its width. */
    {LAYOUT_LEFTRIGHT, 1, 0, 4, {0, -4, 4}},
    {LAYOUT_LEFTRIGHT, 1, 1, 3, {0, 3, -3}},
    /* A's right edge is the A|B border: C is untouched. */
    {LAYOUT_LEFTRIGHT, 0, 1, 2, {2, -2, 0}},
    /* C is at the far edge: its left border, B|C, moves. */
    {LAYOUT_LEFTRIGHT, 2, 0, 5, {0, -5, 5}},
    /* The same stacked: B's bottom edge is the title line of C. */
    {LAYOUT_TOPBOTTOM, 1, 2, 3, {0, -3, 3}},
    {LAYOUT_TOPBOTTOM, 1, 3, 2, {0, 2, -2}},
    {LAYOUT_TOPBOTTOM, 2, 2, 4, {0, -4, 4}},
};

static void test_resize_moves_the_pane_own_border(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct resize_case *rc = &cases[i];
		struct three t = nested(rc->type, 121, 60);
		struct layout_cell *cells[3] = {t.a, t.b, t.c};
		int before[3];

		for (int k = 0; k < 3; k++)
			before[k] = size(cells[k], rc->type);
		assert_true(layout_resize(cells[rc->pane], rc->dir, rc->amount));
		layout_apply(t.root, 0, 0, 121, 60);
		for (int k = 0; k < 3; k++) {
			if (size(cells[k], rc->type) - before[k] != rc->delta[k])
				fail_msg("case %zu: pane %c changed by %d, want %d", i, 'A' + k,
					 size(cells[k], rc->type) - before[k], rc->delta[k]);
		}
		layout_free(t.root);
	}
}

/* A / (B / (C | (D / E))), built at 92x40 and then shrunk to 8 rows, the
 * smallest that holds it (each pane a title row and one row: A, B, then
 * D over E beside C).  Every pane must be inside the window: the ratios
 * once gave A four rows and left E below the last row. */
static void test_shrink_keeps_every_pane_inside(void **state)
{
	struct layout_cell *root = layout_new_leaf(pane_named(0)), *a, *b, *c, *d, *e;
	struct layout_cell *cells[5];

	(void)state;
	layout_apply(root, 0, 0, 92, 40);
	b = layout_split(root, LAYOUT_TOPBOTTOM, 50, pane_named(1));
	a = root->first;
	layout_apply(root, 0, 0, 92, 40);
	c = layout_split(b, LAYOUT_TOPBOTTOM, 50, pane_named(2));
	b = b->first;
	layout_apply(root, 0, 0, 92, 40);
	d = layout_split(c, LAYOUT_LEFTRIGHT, 50, pane_named(3));
	c = c->first;
	layout_apply(root, 0, 0, 92, 40);
	e = layout_split(d, LAYOUT_TOPBOTTOM, 50, pane_named(4));
	d = d->first;
	assert_non_null(e);
	layout_apply(root, 0, 0, 92, 8);
	cells[0] = a, cells[1] = b, cells[2] = c, cells[3] = d, cells[4] = e;
	for (int i = 0; i < 5; i++) {
		assert_true(cells[i]->h >= LAYOUT_MIN_H);
		assert_true(cells[i]->y + cells[i]->h <= 8);
		assert_true(cells[i]->x + cells[i]->w <= 92);
	}
	layout_free(root);
}

/* split -f (tmux's split-window -f), as the feed opens below A|B: the
 * new pane spans the window's whole width under both, and A and B keep
 * their leaves (their panes' cells follow them). */
static void test_split_whole_spans_the_window(void **state)
{
	static struct pane a, b, c;
	struct layout_cell *root = layout_new_leaf(&a), *added;

	(void)state;
	a.cell = root;
	layout_apply(root, 0, 0, 80, 24);
	b.cell = layout_split(root, LAYOUT_LEFTRIGHT, 50, &b);
	a.cell = root->first;
	layout_apply(root, 0, 0, 80, 24);
	added = layout_split_whole(root, LAYOUT_TOPBOTTOM, 33, &c);
	assert_non_null(added);
	layout_apply(root, 0, 0, 80, 24);
	assert_int_equal(added->x, 0);
	assert_int_equal(added->w, 80);
	assert_int_equal(added->y + added->h, 24);
	assert_ptr_equal(a.cell->pane, &a);
	assert_ptr_equal(b.cell->pane, &b);
	assert_int_equal(a.cell->y, 0);
	assert_int_equal(b.cell->y, 0);
	assert_int_equal(a.cell->y + a.cell->h, added->y);
	assert_int_equal(a.cell->w + 1 + b.cell->w, 80);
	layout_free(root);
}

/* Floating boxes: input (asked for, window size), expected box. */
struct float_case {
	struct layout_float want;
	int area_w, area_h;
	struct layout_float box;
};

static void test_float_place_clamps_to_the_window(void **state)
{
	static const struct float_case cases[] = {
		/* Fits: where it was asked. */
		{ { 10, 3, 40, 10 }, 80, 24, { 10, 3, 40, 10 } },
		/* Past the right and bottom edges: moved in, size kept. */
		{ { 70, 20, 40, 10 }, 80, 24, { 40, 14, 40, 10 } },
		/* Larger than the window: cut to it, at its corner. */
		{ { 5, 5, 200, 100 }, 80, 24, { 0, 0, 80, 24 } },
		/* Nothing asked: half the window, centred. */
		{ { -1, -1, 0, 0 }, 80, 24, { 20, 6, 40, 12 } },
		/* Centred with a size. */
		{ { -1, -1, 20, 4 }, 80, 24, { 30, 10, 20, 4 } },
		/* Below the minimum: the smallest box with a title, a row and
		 * a border. */
		{ { 0, 0, 1, 1 }, 80, 24, { 0, 0, LAYOUT_FLOAT_MIN_W, LAYOUT_FLOAT_MIN_H } },
		/* A window smaller than the minimum: the window. */
		{ { 0, 0, 10, 10 }, 3, 2, { 0, 0, 3, 2 } },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct layout_float box;

		layout_float_place(&cases[i].want, cases[i].area_w, cases[i].area_h, &box);
		assert_int_equal(box.x, cases[i].box.x);
		assert_int_equal(box.y, cases[i].box.y);
		assert_int_equal(box.w, cases[i].box.w);
		assert_int_equal(box.h, cases[i].box.h);
		assert_true(box.x + box.w <= cases[i].area_w);
		assert_true(box.y + box.h <= cases[i].area_h);
	}
}

/* A window that shrinks and grows again gives the box back where it was. */
static void test_float_survives_a_window_resize(void **state)
{
	const struct layout_float want = { 50, 5, 40, 10 };
	struct layout_float box;
	int x, y, cols, rows;

	(void)state;
	layout_float_place(&want, 120, 40, &box);
	assert_int_equal(box.x, 50);
	assert_int_equal(box.w, 40);
	layout_float_place(&want, 30, 8, &box);
	assert_int_equal(box.x, 0);
	assert_int_equal(box.y, 0);
	assert_int_equal(box.w, 30);
	assert_int_equal(box.h, 8);
	layout_float_place(&want, 120, 40, &box);
	assert_int_equal(box.x, 50);
	assert_int_equal(box.y, 5);
	assert_int_equal(box.w, 40);
	assert_int_equal(box.h, 10);
	/* The content is inside the border, below the title row. */
	layout_float_content(&box, &x, &y, &cols, &rows);
	assert_int_equal(x, 51);
	assert_int_equal(y, 6);
	assert_int_equal(cols, 38);
	assert_int_equal(rows, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_resize_moves_the_pane_own_border),
	    cmocka_unit_test(test_shrink_keeps_every_pane_inside),
	    cmocka_unit_test(test_split_whole_spans_the_window),
	    cmocka_unit_test(test_float_place_clamps_to_the_window),
	    cmocka_unit_test(test_float_survives_a_window_resize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
