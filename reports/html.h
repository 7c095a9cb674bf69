/*
 * html (reports): one self-contained page of results, for `prof html`:
 * a heading, then sections of preformatted tables (the verbs' own table
 * text, escaped) and inline SVG pictures (reports/svg.h, flame.h). The
 * page needs nothing else: no script, style sheet or font is fetched,
 * and it is well-formed XML as well as HTML, so xmllint can check it.
 * Writes to a caller-owned FILE; no state.
 */
#ifndef REPORTS_HTML_H
#define REPORTS_HTML_H

#include <stdio.h>

void html_begin(FILE *fp, const char *title, const char *subtitle);
void html_section(FILE *fp, const char *heading);
/* text in a <pre>, escaped */
void html_pre(FILE *fp, const char *text);
/* an SVG document inline, as svg_begin wrote it */
void html_picture(FILE *fp, const char *svg);
void html_note(FILE *fp, const char *text);
void html_end(FILE *fp);

#endif
