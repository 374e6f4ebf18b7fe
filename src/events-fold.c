/*
 * events-fold: how a violation enters the events log, so that a pane
 * flooding it cannot drown what matters.
 *
 *   - A target or raw path longer than 1 KiB is cut there (at a UTF-8
 *     boundary), and the event says how long it was ("target_cut",
 *     "raw_cut": the length in bytes).  Threat: paths of 4 KiB each fill
 *     the log four times as fast.
 *   - Identical violations (pane, action, target) fold: the first is
 *     logged at once; the repeats within the second after it are
 *     counted, and logged as one event, the latest of them, with
 *     "count" (how many it stands for) when that second is over, or
 *     before the pane's next violation of another kind, so that a
 *     pane's lines stay in the order its calls were refused.  A repeat
 *     after it logs at once again.  Threat: the same denied call in a
 *     loop, a line each time.  Nothing is dropped: every repeat is in
 *     some line's count, and the pending ones are written at shutdown.
 *   - A pane making more than 1,000 violations in a second is flooding:
 *     a "flood" event (state "start") goes to the log and the feed, the
 *     pane's listing says "flooding": true, until a second passes with
 *     fewer (state "end", with how many the flood made).
 *
 * Folding holds at most FOLD_MAX distinct violations at a time; beyond
 * that, a new one is logged without folding, as without this file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "events-internal.h"
#include "server.h"
#include "xalloc.h"

#define FOLD_BUCKETS 1024
#define FOLD_MAX 4096
#define FOLD_SECONDS 1.0
#define FOLD_TICK_MS 250

struct fold {
	struct fold *next; /* in its bucket */
	uint32_t hash;
	int pane;
	char *action, *target;
	double logged; /* when the one logged at once came (monotonic) */
	int count;     /* repeats since */
	cJSON *latest; /* the latest repeat, owned */
};

static struct fold *buckets[FOLD_BUCKETS];
/* Each pane's fold with repeats not yet written (by pane id; two panes
 * sharing a slot only write theirs sooner). */
static struct fold *pending[FOLD_BUCKETS];
static size_t nfolds;
static uv_timer_t tick;
static bool tick_ready;

static double now_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void cut_field(cJSON *ev, const char *key, const char *cut_key)
{
	cJSON *item = cJSON_GetObjectItem(ev, key);
	size_t len, at = EVENTS_FIELD_MAX;

	if (!cJSON_IsString(item) || (len = strlen(item->valuestring)) <= EVENTS_FIELD_MAX)
		return;
	while (at > 0 && ((unsigned char)item->valuestring[at] & 0xC0) == 0x80)
		at--;
	item->valuestring[at] = '\0';
	cJSON_AddNumberToObject(ev, cut_key, (double)len);
}

void events_cut_fields(cJSON *ev)
{
	cut_field(ev, "target", "target_cut");
	cut_field(ev, "raw", "raw_cut");
}

/* --- the flood mark -------------------------------------------------------- */

static void flood_event(struct pane *p, const char *state)
{
	cJSON *ev = events_lifecycle("flood", p);

	cJSON_AddStringToObject(ev, "state", state);
	cJSON_AddNumberToObject(ev, "rate", EVENTS_FLOOD_RATE);
	cJSON_AddNumberToObject(ev, "violations", p->flood_total);
	events_write(ev);
	if (p->window != NULL)
		server_broadcast_layout(p->window->session);
}

static void flood_end(struct pane *p)
{
	p->flooding = false;
	flood_event(p, "end");
}

static void start_tick(void);

void events_flood_count(struct pane *p)
{
	long second = (long)now_monotonic();

	if (second != p->flood_second) {
		/* The second before this one was not a flood's. */
		if (p->flooding &&
		    (second > p->flood_second + 1 || p->flood_count <= EVENTS_FLOOD_RATE))
			flood_end(p);
		p->flood_second = second;
		p->flood_count = 0;
	}
	p->flood_count++;
	if (p->flooding) {
		p->flood_total++;
	} else if (p->flood_count > EVENTS_FLOOD_RATE) {
		p->flooding = true;
		p->flood_total = p->flood_count;
		flood_event(p, "start");
		start_tick();
	}
}

/* --- folding --------------------------------------------------------------- */

static uint32_t fold_hash(int pane, const char *action, const char *target)
{
	uint32_t h = 2166136261u ^ (uint32_t)pane;

	for (const char *s = action; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	h = (h ^ 0xff) * 16777619u;
	for (const char *s = target; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The pending repeats of f as one event, written now. */
static void fold_write(struct fold *f)
{
	cJSON *ev = f->latest;

	if (f->count == 0)
		return;
	cJSON_DeleteItemFromObject(ev, "count");
	cJSON_AddNumberToObject(ev, "count", f->count);
	f->latest = NULL;
	f->count = 0;
	events_write(ev);
}

static void fold_free(struct fold *f)
{
	cJSON_Delete(f->latest);
	free(f->action);
	free(f->target);
	free(f);
}

bool events_fold(cJSON *ev)
{
	const cJSON *pane_item = cJSON_GetObjectItem(ev, "pane");
	const char *action = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "action"));
	const char *target = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "target"));
	int pane = cJSON_IsNumber(pane_item) ? pane_item->valueint : 0;
	double now = now_monotonic();
	uint32_t hash;
	struct fold *f;

	struct fold **slot = &pending[(unsigned)pane % FOLD_BUCKETS];

	if (action == NULL || target == NULL)
		return false;
	hash = fold_hash(pane, action, target);
	for (f = buckets[hash % FOLD_BUCKETS]; f != NULL; f = f->next)
		if (f->hash == hash && f->pane == pane && strcmp(f->action, action) == 0 &&
		    strcmp(f->target, target) == 0)
			break;
	/* Another kind of violation of the pane: its pending repeats
	 * first, in the order they came. */
	if (*slot != NULL && *slot != f)
		fold_write(*slot);
	*slot = NULL;
	if (f != NULL) {
		if (now - f->logged < FOLD_SECONDS) {
			cJSON_Delete(f->latest);
			f->latest = ev;
			f->count++;
			*slot = f;
			return true;
		}
		fold_write(f);
		f->logged = now;
		return false;
	}
	if (nfolds >= FOLD_MAX)
		return false;
	f = xcalloc(1, sizeof *f);
	*f = (struct fold){.next = buckets[hash % FOLD_BUCKETS],
			   .hash = hash,
			   .pane = pane,
			   .action = xstrdup(action),
			   .target = xstrdup(target),
			   .logged = now};
	buckets[hash % FOLD_BUCKETS] = f;
	nfolds++;
	start_tick();
	return false;
}

/* Write and forget every fold whose second is over (all, with force). */
static void fold_expire(bool force)
{
	double now = now_monotonic();

	for (size_t b = 0; b < FOLD_BUCKETS; b++) {
		struct fold **link = &buckets[b];

		while (*link != NULL) {
			struct fold *f = *link;

			if (!force && now - f->logged < FOLD_SECONDS) {
				link = &f->next;
				continue;
			}
			fold_write(f);
			*link = f->next;
			if (pending[(unsigned)f->pane % FOLD_BUCKETS] == f)
				pending[(unsigned)f->pane % FOLD_BUCKETS] = NULL;
			fold_free(f);
			nfolds--;
		}
	}
}

void events_fold_flush(void)
{
	fold_expire(true);
}

/* A flood ends when a second passes without one more violation. */
static bool flood_check_ends(void)
{
	long second = (long)now_monotonic();
	bool any = false;

	for (struct session *s = server.sessions; s != NULL; s = s->next)
		for (struct window *w = s->windows; w != NULL; w = w->next)
			for (struct pane *p = w->panes; p != NULL; p = p->next) {
				if (p->flooding && second > p->flood_second + 1)
					flood_end(p);
				any = any || p->flooding;
			}
	return any;
}

static void on_tick(uv_timer_t *timer)
{
	bool flooding;

	fold_expire(false);
	flooding = flood_check_ends();
	if (nfolds == 0 && !flooding)
		uv_timer_stop(timer);
}

static void start_tick(void)
{
	if (server.loop == NULL)
		return;
	if (!tick_ready) {
		uv_timer_init(server.loop, &tick);
		/* It never keeps the server alive: shutdown writes what is pending. */
		uv_unref((uv_handle_t *)&tick);
		tick_ready = true;
	}
	if (!uv_is_active((uv_handle_t *)&tick))
		uv_timer_start(&tick, on_tick, FOLD_TICK_MS, FOLD_TICK_MS);
}
