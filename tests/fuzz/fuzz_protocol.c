/*
 * fuzz_protocol: both ends of the JSON-lines protocol, without a socket.
 *
 * Server side: the input is cut into lines as conn_consume does, each
 * line goes through cJSON_Parse (conn_handle_line's step) and then
 * through every field helper the command handlers use: cmd_get_int,
 * cmd_get_string, cmd_get_bool on the protocol's field names, and
 * cmd_parse_spawn (argv, env, cwd, backend, profile, remain), which is
 * the request parsing of new-session and split.  cmd_dispatch itself
 * needs a live connection and would start processes, so it is not
 * called; the parsing it delegates to is.
 *
 * The user's terminal: the same bytes as what a terminal sends the
 * server (term_input_decode, as server-tty.c reads them), a cut
 * sequence decoded once more with the escape timeout's `final`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "error.h"
#include "term.h"

static const char *const int_fields[] = { "id", "pane", "cols", "rows", "start", "end",
					  "size", "amount", "index", "version", "row",
					  "col", "button" };
static const char *const string_fields[] = { "cmd", "session", "name", "cwd", "dir",
					     "text", "key", "backend", "profile",
					     "direction", "action" };

static void server_side(const cJSON *req)
{
	struct sm_error err = { 0 };
	struct pane_spawn spawn;
	const char *s;
	int n;

	for (size_t i = 0; i < sizeof int_fields / sizeof int_fields[0]; i++) {
		cmd_get_int(req, int_fields[i], false, &n, &err);
		cmd_get_int(req, int_fields[i], true, &n, &err);
	}
	for (size_t i = 0; i < sizeof string_fields / sizeof string_fields[0]; i++)
		cmd_get_string(req, string_fields[i], true, &s, &err);
	cmd_get_bool(req, "literal", false);
	cmd_get_bool(req, "pressed", true);
	if (cmd_parse_spawn(req, &spawn, &err) == 0)
		cmd_free_spawn(&spawn);
}

static void terminal_side(const char *bytes, size_t len)
{
	struct term_input in;
	size_t used;

	while (len > 0) {
		used = term_input_decode(bytes, len, false, &in);
		if (used == 0)
			used = term_input_decode(bytes, len, true, &in);
		if (used == 0 || used > len)
			abort(); /* the decoder must always make progress when final */
		bytes += used;
		len -= used;
	}
}

static void handle_line(const char *line)
{
	cJSON *req = cJSON_Parse(line);
	char *printed;

	if (req != NULL && cJSON_IsObject(req)) {
		server_side(req);
		printed = cJSON_PrintUnformatted(req);
		free(printed);
	}
	cJSON_Delete(req);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	size_t start = 0;

	memcpy(buf, data, size);
	buf[size] = '\0';
	for (size_t i = 0; i <= size; i++) {
		if (i < size && buf[i] != '\n')
			continue;
		buf[i] = '\0';
		if (i > start)
			handle_line(buf + start);
		start = i + 1;
	}
	free(buf);
	terminal_side((const char *)data, size);
	return 0;
}
