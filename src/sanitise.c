/*
 * sanitise: text from a sandboxed process reaches people's terminals
 * through every text output (sandmux events, events --pretty and
 * --follow, profile suggest, ls, the feed).  A file name is whatever
 * bytes the pane chose: ESC ] 52 would write the reader's clipboard,
 * ESC [ 2J clear their screen, a newline forge a whole event line, a
 * lone 0x9b be a CSI to a terminal in 8-bit mode.  Here each of those
 * becomes '?', once, for every output; JSON output is left exact (its
 * encoder escapes control characters).
 */
#include <stdlib.h>
#include <string.h>

#include "sanitise.h"
#include "xalloc.h"

/* The length of the valid UTF-8 sequence at s that is not a control
 * character, or 0. */
static size_t printable_length(const unsigned char *s)
{
	size_t n;
	unsigned int cp;

	if (s[0] >= 0x20 && s[0] < 0x7f)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0; /* C0, DEL, a lone continuation byte, 0xc0/0xc1, 0xf5.. */
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, past U+10FFFF, and the C1 controls. */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp < 0xa0))
		return 0;
	return n;
}

char *sanitise_text(const char *text)
{
	const unsigned char *s = (const unsigned char *)(text ? text : "");
	char *out = xmalloc(strlen((const char *)s) + 1), *o = out;

	while (*s != '\0') {
		size_t n = printable_length(s);

		if (n == 0) {
			*o++ = '?';
			s++;
			continue;
		}
		memcpy(o, s, n);
		o += n;
		s += n;
	}
	*o = '\0';
	return out;
}

void sanitise_fputs(const char *text, FILE *out)
{
	char *safe = sanitise_text(text);

	fputs(safe, out);
	free(safe);
}
