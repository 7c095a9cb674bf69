/*
 * html (reports): the frame of a self-contained results page. Tables
 * stay the verbs' own aligned text in <pre> (a reader diffs them as
 * text); pictures are inline SVG.
 */
#include <stdio.h>

#include "reports/html.h"
#include "reports/svg.h"

void html_begin(FILE *fp, const char *title, const char *subtitle)
{
	fputs("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n"
	      "<head>\n<meta charset=\"utf-8\"/>\n<title>", fp);
	svg_escape(fp, title);
	/* CDATA behind comments: read as XML and as HTML alike */
	fputs("</title>\n<style>/*<![CDATA[*/\n"
	      "body{font-family:DejaVu Sans,Verdana,Arial,sans-serif;margin:24px;"
	      "color:#222;background:#fff}\n"
	      "h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px;"
	      "border-bottom:1px solid #ddd;padding-bottom:4px}\n"
	      ".sub{color:#555;margin:0 0 12px}\n"
	      "pre{font-family:DejaVu Sans Mono,Menlo,Consolas,monospace;font-size:12px;"
	      "background:#f7f7f7;padding:8px;overflow-x:auto}\n"
	      "svg.prof-picture{max-width:100%;height:auto;display:block}\n"
	      "/*]]>*/</style>\n</head>\n<body>\n<h1>", fp);
	svg_escape(fp, title);
	fputs("</h1>\n", fp);
	if (subtitle) {
		fputs("<p class=\"sub\">", fp);
		svg_escape(fp, subtitle);
		fputs("</p>\n", fp);
	}
}

void html_section(FILE *fp, const char *heading)
{
	fputs("<h2>", fp);
	svg_escape(fp, heading);
	fputs("</h2>\n", fp);
}

void html_pre(FILE *fp, const char *text)
{
	fputs("<pre>", fp);
	svg_escape(fp, text);
	fputs("</pre>\n", fp);
}

void html_picture(FILE *fp, const char *svg)
{
	fputs("<div class=\"picture\">\n", fp);
	fputs(svg ? svg : "", fp);
	fputs("</div>\n", fp);
}

void html_note(FILE *fp, const char *text)
{
	fputs("<p class=\"sub\">", fp);
	svg_escape(fp, text);
	fputs("</p>\n", fp);
}

void html_end(FILE *fp)
{
	fputs("<p class=\"sub\">written by prof; nothing on this page is fetched from "
	      "the network</p>\n</body>\n</html>\n", fp);
}
