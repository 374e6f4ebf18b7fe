/*
 * cmd-buffer: the paste buffer commands, as tmux names them —
 * set-buffer, list-buffers, show-buffer (save-buffer's request),
 * paste-buffer, delete-buffer.  The buffers themselves are in buffers.c.
 */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "term.h"

/* The buffer a request names ("name"), else the top one. */
static struct paste_buffer *named_buffer(const cJSON *req, struct sm_error *err)
{
	const char *name = NULL;
	struct paste_buffer *b;

	if (cmd_get_string(req, "name", false, &name, err) < 0)
		return NULL;
	b = name != NULL ? buffers_find(name) : buffers_list();
	if (b == NULL)
		sm_error_set(err, SM_ERR_NO_SUCH_BUFFER, name != NULL ? "no buffer %.32s"
								       : "no buffers%.0s",
			     name != NULL ? name : "");
	return b;
}

CMD_HANDLER(cmd_set_buffer)
{
	const char *name = NULL, *text = NULL;
	struct paste_buffer *b;
	struct pane *source = NULL;
	int source_id = -1;

	if (cmd_get_string(req, "name", false, &name, err) < 0 ||
	    cmd_get_string(req, "text", true, &text, err) < 0 ||
	    cmd_get_int(req, "source", false, &source_id, err) < 0)
		return -1;
	if (name != NULL && (name[0] == 0 || strlen(name) >= sizeof b->name)) {
		sm_error_set(err, SM_ERR_INVALID_ARGUMENT, "a buffer name is 1..%zu bytes",
			     sizeof b->name - 1);
		return -1;
	}
	/* The client that copied says from which pane: the buffer carries
	 * that pane's backend, so pasting it elsewhere can ask first. */
	if (source_id >= 0 && (source = pane_find(source_id)) == NULL) {
		sm_error_set(err, SM_ERR_NO_SUCH_PANE, "no pane %%%d", source_id);
		return -1;
	}
	b = buffers_set(name, text, strlen(text), source);
	cJSON_AddStringToObject(result, "name", b->name);
	return 0;
}

CMD_HANDLER(cmd_list_buffers)
{
	cJSON *list = cJSON_AddArrayToObject(result, "buffers");

	(void)c;
	(void)req;
	(void)err;
	for (struct paste_buffer *b = buffers_list(); b != NULL; b = b->next) {
		cJSON *o = cJSON_CreateObject();
		char sample[64];

		snprintf(sample, sizeof sample, "%.50s", b->text);
		cJSON_AddStringToObject(o, "name", b->name);
		cJSON_AddNumberToObject(o, "size", (double)b->len);
		cJSON_AddStringToObject(o, "label", b->from_pane ? b->label : "");
		cJSON_AddStringToObject(o, "sample", sample);
		cJSON_AddItemToArray(list, o);
	}
	return 0;
}

CMD_HANDLER(cmd_show_buffer)
{
	struct paste_buffer *b = named_buffer(req, err);

	(void)c;
	if (b == NULL)
		return -1;
	cJSON_AddStringToObject(result, "name", b->name);
	cJSON_AddStringToObject(result, "text", b->text);
	return 0;
}

CMD_HANDLER(cmd_delete_buffer)
{
	struct paste_buffer *b = named_buffer(req, err);

	(void)c;
	(void)result;
	if (b == NULL)
		return -1;
	buffers_delete(b->name);
	return 0;
}

CMD_HANDLER(cmd_paste_buffer)
{
	struct paste_buffer *b = named_buffer(req, err);
	struct pane *p;

	if (b == NULL || (p = cmd_target_pane(c, req, err)) == NULL)
		return -1;
	/* Text copied in a pane of one backend and pasted into a pane of
	 * another crosses the boundary the backends draw (a host shell's
	 * text is one way data leaves the host): with paste_across_backends
	 * "ask", the first such paste of a buffer into a pane is refused
	 * until the client asks its user and repeats it with "confirmed". */
	if (server.paste_across_ask && b->from_pane && b->backend != p->requested &&
	    b->confirmed_for != p->id && !cmd_get_bool(req, "confirmed", false)) {
		sm_error_set(err, SM_ERR_CONFIRM_NEEDED, "paste %s text into a %s pane?", b->label,
			     pane_backend_label(p));
		return -1;
	}
	if (b->from_pane && b->backend != p->requested)
		b->confirmed_for = p->id;
	term_send_paste(p->term, b->text, b->len);
	cJSON_AddStringToObject(result, "name", b->name);
	return 0;
}
