/*
 * format: the expander (see format.h).  One table maps each name (and
 * tmux's one-letter form) to where its value lives in a format_context;
 * the expander walks the text once, recursing only into the branch a
 * conditional picks, never deeper than FORMAT_MAX_DEPTH, and writes into
 * a bounded buffer, so no text can make it loop, recurse without end or
 * write past what the caller gave.
 */
#include "format.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum format_kind { FORMAT_STRING, FORMAT_INT, FORMAT_BOOL, FORMAT_PANE_ID, FORMAT_HOST,
		   FORMAT_HOST_SHORT };

static const struct format_var {
	const char *name;
	char alias; /* tmux's #X, 0 none */
	enum format_kind kind;
	size_t offset;
} format_vars[] = {
#define VAR(name, alias, kind) {#name, alias, kind, offsetof(struct format_context, name)}
    VAR(session_name, 'S', FORMAT_STRING),
    VAR(session_windows, 0, FORMAT_INT),
    VAR(window_index, 'I', FORMAT_INT),
    VAR(window_name, 'W', FORMAT_STRING),
    VAR(window_panes, 0, FORMAT_INT),
    VAR(window_zoomed_flag, 0, FORMAT_BOOL),
    VAR(pane_id, 'D', FORMAT_PANE_ID),
    VAR(pane_index, 'P', FORMAT_INT),
    VAR(pane_title, 'T', FORMAT_STRING),
    VAR(pane_current_path, 0, FORMAT_STRING),
    VAR(pane_start_path, 0, FORMAT_STRING),
    VAR(pane_backend, 0, FORMAT_STRING),
    VAR(pane_violations, 0, FORMAT_INT),
    VAR(pane_width, 0, FORMAT_INT),
    VAR(pane_height, 0, FORMAT_INT),
    VAR(pane_active, 0, FORMAT_BOOL),
    VAR(pane_pid, 0, FORMAT_INT),
    VAR(client_width, 0, FORMAT_INT),
    VAR(client_height, 0, FORMAT_INT),
#undef VAR
    {"host", 'H', FORMAT_HOST, 0},
    {"host_short", 'h', FORMAT_HOST_SHORT, 0},
};

#define FORMAT_VAR_COUNT (sizeof format_vars / sizeof format_vars[0])

struct out {
	char *buf;
	size_t size, len;
};

static void out_append(struct out *out, const char *bytes, size_t len)
{
	size_t room = out->size - 1 - out->len;

	if (len > room)
		len = room;
	memcpy(out->buf + out->len, bytes, len);
	out->len += len;
}

/* The value of a variable into buf; false if the name is not one. */
static bool lookup(const struct format_context *ctx, const struct format_var *var, char *buf,
		   size_t size)
{
	const char *field = (const char *)ctx + var->offset;

	buf[0] = '\0';
	switch (var->kind) {
	case FORMAT_STRING: {
		const char *value;
		memcpy(&value, field, sizeof value);
		snprintf(buf, size, "%s", value ? value : "");
		break;
	}
	case FORMAT_INT: {
		int value;
		memcpy(&value, field, sizeof value);
		snprintf(buf, size, "%d", value);
		break;
	}
	case FORMAT_BOOL: {
		bool value;
		memcpy(&value, field, sizeof value);
		snprintf(buf, size, "%d", value ? 1 : 0);
		break;
	}
	case FORMAT_PANE_ID:
		if (ctx->pane_id >= 0)
			snprintf(buf, size, "%%%d", ctx->pane_id);
		break;
	case FORMAT_HOST:
	case FORMAT_HOST_SHORT:
		if (gethostname(buf, size) != 0)
			buf[0] = '\0';
		buf[size - 1] = '\0';
		if (var->kind == FORMAT_HOST_SHORT)
			buf[strcspn(buf, ".")] = '\0';
		break;
	}
	return true;
}

static const struct format_var *find_var(const char *name, size_t len)
{
	for (size_t i = 0; i < FORMAT_VAR_COUNT; i++)
		if (strlen(format_vars[i].name) == len && memcmp(format_vars[i].name, name, len) == 0)
			return &format_vars[i];
	return NULL;
}

static const struct format_var *find_alias(char alias)
{
	for (size_t i = 0; i < FORMAT_VAR_COUNT; i++)
		if (format_vars[i].alias == alias && alias != 0)
			return &format_vars[i];
	return NULL;
}

/* The '}' closing the "#{" whose content starts at p, or NULL. */
static const char *closing_brace(const char *p, const char *end)
{
	int depth = 1;

	for (; p < end; p++) {
		if (*p == '#' && p + 1 < end && (p[1] == '{' || p[1] == '#' || p[1] == ',' ||
						 p[1] == '}')) {
			depth += p[1] == '{';
			p++;
			continue;
		}
		if (*p == '}' && --depth == 0)
			return p;
	}
	return NULL;
}

/* The next ',' at this level of [p, end), or end. */
static const char *next_comma(const char *p, const char *end)
{
	for (; p < end; p++) {
		if (*p == '#' && p + 1 < end && p[1] == '{') {
			const char *close = closing_brace(p + 2, end);
			if (close == NULL)
				return end;
			p = close;
			continue;
		}
		if (*p == '#' && p + 1 < end) {
			p++; /* "#," is a comma, not a separator */
			continue;
		}
		if (*p == ',')
			return p;
	}
	return end;
}

static void expand(const char *p, const char *end, const struct format_context *ctx,
		   struct out *out, int depth);

/* The value of a name or, if it holds a format, of its expansion. */
static void expand_value(const char *name, const char *end, const struct format_context *ctx,
			 char *buf, size_t size, int depth)
{
	const struct format_var *var;
	struct out value = {buf, size, 0};

	if (memchr(name, '#', (size_t)(end - name)) != NULL) {
		expand(name, end, ctx, &value, depth + 1);
		buf[value.len] = '\0';
	} else if ((var = find_var(name, (size_t)(end - name))) != NULL) {
		lookup(ctx, var, buf, size);
	} else {
		buf[0] = '\0'; /* unknown names expand to nothing, as in tmux */
	}
}

/* "#{?cond,then,else}": content is what follows the '?'. */
static void expand_conditional(const char *p, const char *end, const struct format_context *ctx,
			       struct out *out, int depth)
{
	const char *comma1 = next_comma(p, end), *comma2;
	char cond[1024];

	if (comma1 == end)
		return;
	comma2 = next_comma(comma1 + 1, end);
	expand_value(p, comma1, ctx, cond, sizeof cond, depth);
	if (cond[0] != '\0' && strcmp(cond, "0") != 0)
		expand(comma1 + 1, comma2, ctx, out, depth + 1);
	else if (comma2 < end)
		expand(comma2 + 1, end, ctx, out, depth + 1);
}

/* Keep the first n (n < 0: the last -n) characters of a UTF-8 string. */
static void truncate_utf8(char *text, long n)
{
	size_t chars = 0, len = strlen(text);

	for (size_t i = 0; i < len; i++)
		chars += ((unsigned char)text[i] & 0xc0) != 0x80;
	if (n >= 0) {
		size_t seen = 0, i = 0;
		for (; i < len; i++)
			if (((unsigned char)text[i] & 0xc0) != 0x80 && seen++ == (size_t)n)
				break;
		text[i] = '\0';
		return;
	}
	if ((size_t)-n >= chars)
		return;
	size_t skip = chars - (size_t)-n, seen = 0, i = 0;
	for (; i < len; i++)
		if (((unsigned char)text[i] & 0xc0) != 0x80 && seen++ == skip)
			break;
	memmove(text, text + i, len - i + 1);
}

/* The content of one "#{...}". */
static void expand_braces(const char *p, const char *end, const struct format_context *ctx,
			  struct out *out, int depth)
{
	char value[4096];

	if (p < end && *p == '?') {
		expand_conditional(p + 1, end, ctx, out, depth);
		return;
	}
	if (p < end && *p == '=') {
		char *digits_end;
		char number[24] = "";
		const char *colon = memchr(p, ':', (size_t)(end - p));
		if (colon != NULL && (size_t)(colon - p - 1) < sizeof number) {
			memcpy(number, p + 1, (size_t)(colon - p - 1));
			long n = strtol(number, &digits_end, 10);
			if (*number != '\0' && *digits_end == '\0') {
				expand_value(colon + 1, end, ctx, value, sizeof value, depth);
				truncate_utf8(value, n);
				out_append(out, value, strlen(value));
			}
		}
		return;
	}
	expand_value(p, end, ctx, value, sizeof value, depth);
	out_append(out, value, strlen(value));
}

static void expand(const char *p, const char *end, const struct format_context *ctx,
		   struct out *out, int depth)
{
	if (depth > FORMAT_MAX_DEPTH)
		return;
	while (p < end) {
		const char *hash = memchr(p, '#', (size_t)(end - p));
		if (hash == NULL) {
			out_append(out, p, (size_t)(end - p));
			return;
		}
		out_append(out, p, (size_t)(hash - p));
		p = hash + 1;
		if (p == end) {
			out_append(out, "#", 1);
			return;
		}
		if (*p == '{') {
			const char *close = closing_brace(p + 1, end);
			if (close == NULL) {
				out_append(out, hash, (size_t)(end - hash)); /* unterminated: text */
				return;
			}
			expand_braces(p + 1, close, ctx, out, depth);
			p = close + 1;
			continue;
		}
		const struct format_var *var = find_alias(*p);
		if (var != NULL) {
			char value[4096];
			lookup(ctx, var, value, sizeof value);
			out_append(out, value, strlen(value));
		} else if (*p == '#' || *p == ',' || *p == '}') {
			out_append(out, p, 1);
		} else {
			out_append(out, "#", 1);
			continue; /* a lone '#' is itself; what follows is read normally */
		}
		p++;
	}
}

size_t format_expand(const char *text, const struct format_context *ctx, char *out, size_t size)
{
	struct out buffer = {out, size, 0};

	if (size == 0)
		return 0;
	expand(text, text + strlen(text), ctx, &buffer, 0);
	/* Cut short: drop a partial UTF-8 character at the end. */
	if (buffer.len == size - 1) {
		size_t start = buffer.len;
		while (start > 0 && ((unsigned char)out[start - 1] & 0xc0) == 0x80)
			start--;
		if (start > 0 && ((unsigned char)out[start - 1] & 0x80)) {
			unsigned char lead = (unsigned char)out[start - 1];
			size_t need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
			if (buffer.len - (start - 1) < need)
				buffer.len = start - 1;
		}
	}
	out[buffer.len] = '\0';
	return buffer.len;
}
