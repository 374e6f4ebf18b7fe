/*
 * layout-float: the geometry of floating panes (see layout.h).
 *
 * A floating pane is not part of the split tree: it is a box over it,
 * drawn after the tiled panes.  Its border takes a column on each side
 * and a row at the bottom; the top row is its title line, as every
 * pane's first row is.  Placement is pure arithmetic on the box asked
 * for and the window's size, so that a window's resize, a drag and a
 * restored session all place a box the same way.
 */
#include "layout.h"

static int clamp(int value, int low, int high)
{
	if (value > high)
		value = high;
	return value < low ? low : value;
}

/* One axis: the length asked for (0: half the window's) and its start
 * (-1: centred), cut and moved inside length `area`. */
static void place_axis(int want_at, int want_len, int minimum, int area, int *at, int *len)
{
	int length = want_len > 0 ? want_len : area / 2;

	/* A window smaller than the minimum box still gets one that fits. */
	if (minimum > area)
		minimum = area;
	length = clamp(length, minimum, area);
	*len = length;
	*at = want_at < 0 ? (area - length) / 2 : clamp(want_at, 0, area - length);
}

void layout_float_place(const struct layout_float *want, int area_w, int area_h,
			struct layout_float *out)
{
	place_axis(want->x, want->w, LAYOUT_FLOAT_MIN_W, area_w, &out->x, &out->w);
	place_axis(want->y, want->h, LAYOUT_FLOAT_MIN_H, area_h, &out->y, &out->h);
}

void layout_float_content(const struct layout_float *box, int *x, int *y, int *cols, int *rows)
{
	*x = box->x + 1;
	*y = box->y + 1;
	*cols = box->w > 2 ? box->w - 2 : 1;
	*rows = box->h > 2 ? box->h - 2 : 1;
}
