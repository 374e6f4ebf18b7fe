/*
 * sanitise: text from a sandboxed process reaches people's terminals
 * through every text output: the CLI (`sandmux events`, `--pretty`,
 * `--follow`, `profile suggest`, `ls`), the feed, and the client's
 * status line, titles and messages.  A file name or a program's name is
 * whatever bytes the pane chose: ESC ] 52 would write the reader's
 * clipboard, ESC [ 2J clear their screen, a newline forge a whole event
 * line, a lone 0x9b be a CSI to a terminal in 8-bit mode, a
 * right-to-left override make "gnp.exe" read as "exe.png".  This file
 * is the one rule for all of them: controls become '?', format
 * characters that reorder or hide text are dropped.  JSON output is left
 * exact (its encoder escapes control characters).
 */
#include <stdlib.h>
#include <string.h>

#include "sanitise.h"
#include "term.h"
#include "xalloc.h"

/* Format characters that reorder or hide text.  They cannot move the
 * cursor, but they could make a name read as something else. */
static bool is_bidi_or_invisible_format(uint32_t cp)
{
	return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e ||
	       cp == 0x200f || cp == 0x061c || cp == 0xfeff || (cp >= 0x2060 && cp <= 0x2064) ||
	       cp == 0x200b;
}

uint32_t sanitise_codepoint(uint32_t cp)
{
	if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
		return '?';
	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return '?';
	if (is_bidi_or_invisible_format(cp))
		return 0;
	return cp;
}

char *sanitise_text(const char *text)
{
	const char *s = text ? text : "";
	size_t len = strlen(s), n = 0;
	/* '?' for a byte is never longer than the byte; a character is
	 * never longer than its valid encoding. */
	char *out = xmalloc(len + 1);

	while (len > 0) {
		uint32_t cp;
		size_t used = term_utf8_decode(s, len, &cp);

		if (used == 0) { /* not UTF-8: this byte alone */
			used = 1;
			cp = '?';
		}
		cp = sanitise_codepoint(cp);
		if (cp != 0)
			n += term_utf8_encode(cp, out + n);
		s += used;
		len -= used;
	}
	out[n] = '\0';
	return out;
}

void sanitise_fputs(const char *text, FILE *out)
{
	char *safe = sanitise_text(text);

	fputs(safe, out);
	free(safe);
}
