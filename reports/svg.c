/*
 * svg: plain SVG 1.1 pictures, axes with nice ticks, the Okabe-Ito
 * palette. See svg.h for the document's shape.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "common/utf8.h"
#include "reports/svg.h"

/*
 * Okabe & Ito, "Color Universal Design" (2008): distinct under
 * protanopia, deuteranopia and tritanopia. Yellow comes last: it is the
 * one that fades on white paper.
 */
static const char *const palette[] = {
	"#0072B2", "#E69F00", "#009E73", "#CC79A7",
	"#56B4E9", "#D55E00", "#000000", "#F0E442",
};

const char *svg_colour(size_t i)
{
	return palette[i % (sizeof(palette) / sizeof(palette[0]))];
}

/* The palette for text: the same, but yellow, which a 10 px label on
 * white cannot be read in, darkened to an olive of the same hue. */
static const char *text_colour(size_t i)
{
	size_t k = i % (sizeof(palette) / sizeof(palette[0]));
	return k == 7 ? "#8A7F00" : palette[k];
}

void svg_escape(FILE *fp, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
		switch (*p) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs("&#39;", fp); break;
		default:
			if (*p >= 0x80) {
				/* well-formed UTF-8, or U+FFFD; XML has no U+FFFE
				 * or U+FFFF */
				uint32_t cp;
				size_t n = utf8_next_str(p, &cp);
				if (cp == UTF8_INVALID || cp == 0xFFFE || cp == 0xFFFF)
					utf8_put(fp, UTF8_REPLACEMENT);
				else
					fwrite(p, 1, n, fp);
				p += n;
				continue;
			}
			/* XML 1.0 allows no C0 controls but tab and newlines */
			if (*p < 0x20 && *p != '\t' && *p != '\n')
				fputc('?', fp);
			else
				fputc(*p, fp);
		}
		p++;
	}
}

void svg_begin(struct svg *s, FILE *fp, double width, double height,
	       const char *title)
{
	s->fp = fp;
	s->width = width;
	s->height = height;
	s->nboxes = 0;
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"class=\"prof-picture\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\">\n", width, height, width, height);
	if (title) {
		fputs("<title>", fp);
		svg_escape(fp, title);
		fputs("</title>\n", fp);
	}
	/* One font stack a system has: no web font is fetched. */
	fputs("<style type=\"text/css\"><![CDATA[\n"
	      ".prof-picture text{font-family:DejaVu Sans,Verdana,Arial,sans-serif;"
	      "font-size:12px;fill:#222}\n"
	      ".prof-picture .title{font-size:14px;font-weight:bold}\n"
	      ".prof-picture .small{font-size:10px;fill:#555}\n"
	      ".prof-picture .grid{stroke:#e4e4e4;stroke-width:1}\n"
	      ".prof-picture .frame{fill:none;stroke:#888;stroke-width:1}\n"
	      ".prof-picture .mark{stroke:#555;stroke-width:1;stroke-dasharray:4,3}\n"
	      "]]></style>\n", fp);
	fprintf(fp, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
		"fill=\"#ffffff\"/>\n", width, height);
}

void svg_end(struct svg *s)
{
	fputs("</svg>\n", s->fp);
}

/* DejaVu Sans, the font the pictures ask for first: an advance of about
 * 0.62 em a character (digits 0.64, a bold face about 0.72), 0.93 em
 * above the baseline and 0.24 below. A little over, so that boxes that
 * do not meet here do not meet on the page either. */
static double font_px(const char *cls)
{
	return cls && strstr(cls, "title") ? 14 : cls && strstr(cls, "small") ? 10 : 12;
}

static struct svg_box text_box(double x, double y, enum svg_anchor a, const char *cls,
			       const char *text)
{
	double size = font_px(cls), per = cls && strstr(cls, "title") ? 0.72 : 0.64;
	size_t n = 0;
	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		n += (*c & 0xC0) != 0x80;
	double w = (double)n * size * per;
	double x0 = a == SVG_MIDDLE ? x - w / 2 : a == SVG_END ? x - w : x;
	return (struct svg_box){ x0, y - 0.95 * size, x0 + w, y + 0.26 * size };
}

static void remember(struct svg *s, struct svg_box b)
{
	if (s->nboxes < SVG_MAX_BOXES)
		s->boxes[s->nboxes++] = b;
}

/* Whether b lies inside the picture and clear of every text so far. */
static bool free_box(const struct svg *s, struct svg_box b)
{
	if (b.x0 < 1 || b.y0 < 1 || b.x1 > s->width - 1 || b.y1 > s->height - 1)
		return false;
	for (size_t i = 0; i < s->nboxes; i++) {
		const struct svg_box *o = &s->boxes[i];
		if (b.x0 < o->x1 && o->x0 < b.x1 && b.y0 < o->y1 && o->y0 < b.y1)
			return false;
	}
	return true;
}

static const char *anchor_name(enum svg_anchor a)
{
	return a == SVG_MIDDLE ? "middle" : a == SVG_END ? "end" : "start";
}

static void text_open(FILE *fp, double x, double y, enum svg_anchor a,
		      const char *cls)
{
	fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
	if (a != SVG_START)
		fprintf(fp, " text-anchor=\"%s\"", anchor_name(a));
	if (cls)
		fprintf(fp, " class=\"%s\"", cls);
	fputc('>', fp);
}

/* The next line of text that fits in maxw px from *at: its length (at
 * least one word), *at moved past it and the spaces after it. */
static size_t wrap_next(const char **at, const char *cls, double maxw)
{
	const char *t = *at, *cut = NULL;
	for (const char *c = t;; c++) {
		if (*c != ' ' && *c)
			continue;
		char line[512];
		size_t n = (size_t)(c - t) < sizeof(line) - 1 ? (size_t)(c - t) : sizeof(line) - 1;
		memcpy(line, t, n);
		line[n] = '\0';
		struct svg_box b = text_box(0, 0, SVG_START, cls, line);
		if (cut && b.x1 > maxw)
			break;
		cut = c;
		if (!*c)
			break;
	}
	size_t len = (size_t)(cut - t);
	while (*cut == ' ')
		cut++;
	*at = cut;
	return len;
}

size_t svg_wrap_lines(const char *text, const char *cls, double maxw)
{
	size_t n = 0;
	for (const char *at = text; *at; n++)
		wrap_next(&at, cls, maxw);
	return n ? n : 1;
}

size_t svg_text_wrapped(struct svg *s, double x, double y, double maxw,
			const char *cls, const char *text)
{
	size_t n = 0;
	double step = font_px(cls) * 1.3;
	for (const char *at = text; *at; n++) {
		const char *line = at;
		size_t len = wrap_next(&at, cls, maxw);
		svg_text(s, x, y + step * (double)n, SVG_START, cls, "%.*s", (int)len, line);
	}
	return n;
}

void svg_text(struct svg *s, double x, double y, enum svg_anchor a,
	      const char *cls, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	remember(s, text_box(x, y, a, cls, buf));
	text_open(s->fp, x, y, a, cls);
	svg_escape(s->fp, buf);
	fputs("</text>\n", s->fp);
}

/* ---- axes --------------------------------------------------------------- */

/* The nice step (1, 2 or 5 times a power of ten) nearest above raw. */
static double nice_step(double raw)
{
	if (!(raw > 0) || !isfinite(raw))
		return 1;
	double p = pow(10, floor(log10(raw)));
	double f = raw / p;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

void svg_axis_fit(struct svg_axis *ax, const double *v, size_t n,
		  bool include_zero)
{
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]) || (ax->log && v[i] <= 0))
			continue;
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
	}
	if (ax->cats) {
		ax->lo = -0.5;
		ax->hi = (double)ax->ncats - 0.5;
		return;
	}
	if (ax->log) {
		if (lo > hi) {
			lo = 1;
			hi = 10;
		}
		ax->lo = pow(10, floor(log10(lo) + 1e-9));
		ax->hi = pow(10, ceil(log10(hi) - 1e-9));
		if (ax->hi <= ax->lo)
			ax->hi = ax->lo * 10;
		return;
	}
	if (lo > hi) {
		lo = 0;
		hi = 1;
	}
	if (include_zero) {
		lo = fmin(lo, 0);
		hi = fmax(hi, 0);
	}
	if (hi == lo) {
		double pad = lo ? fabs(lo) * 0.1 : 1;
		lo -= pad;
		hi += pad;
	}
	double step = nice_step((hi - lo) / 5);
	ax->lo = floor(lo / step + 1e-9) * step;
	ax->hi = ceil(hi / step - 1e-9) * step;
}

size_t svg_ticks(const struct svg_axis *ax, double *t, size_t max)
{
	size_t n = 0;
	if (ax->cats) {
		for (size_t k = 0; k < ax->ncats && n < max; k++)
			t[n++] = (double)k;
		return n;
	}
	if (ax->log) {
		int d0 = (int)floor(log10(ax->lo) + 1e-9);
		int d1 = (int)ceil(log10(ax->hi) - 1e-9);
		bool fill = d1 - d0 <= 3;
		for (int d = d0; d <= d1 && n < max; d++) {
			static const double sub[] = { 1, 2, 5 };
			for (size_t k = 0; k < (fill ? 3u : 1u) && n < max; k++) {
				double v = sub[k] * pow(10, d);
				if (v >= ax->lo * (1 - 1e-9) && v <= ax->hi * (1 + 1e-9))
					t[n++] = v;
			}
		}
		return n;
	}
	double step = nice_step((ax->hi - ax->lo) / 5);
	for (double v = ceil(ax->lo / step - 1e-9) * step;
	     v <= ax->hi + step * 1e-6 && n < max; v += step)
		t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	return n;
}

void svg_tick_label(char *buf, size_t n, double v)
{
	static const struct { double f; const char *sfx; } big[] = {
		{ 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e4, "k" },
	};
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		if (fabs(v) >= big[i].f) {
			double f = i == 3 ? 1e3 : big[i].f;
			snprintf(buf, n, "%.3g%s", v / f, big[i].sfx);
			return;
		}
	}
	snprintf(buf, n, "%.4g", v);
}

/* ---- plots -------------------------------------------------------------- */

static double frac(const struct svg_axis *ax, double v)
{
	if (ax->log) {
		if (!(v > 0))
			return 0;
		return (log10(v) - log10(ax->lo)) / (log10(ax->hi) - log10(ax->lo));
	}
	return ax->hi > ax->lo ? (v - ax->lo) / (ax->hi - ax->lo) : 0.5;
}

static double clamp01(double f)
{
	return f < 0 ? 0 : f > 1 ? 1 : f;
}

double svg_px(const struct svg_plot *p, double x)
{
	return p->x + clamp01(frac(&p->ax, x)) * p->w;
}

double svg_py(const struct svg_plot *p, double y)
{
	return p->y + p->h - clamp01(frac(&p->ay, y)) * p->h;
}

static void axis_title(char *buf, size_t n, const struct svg_axis *ax)
{
	if (ax->unit && *ax->unit && !(ax->label && !strcmp(ax->label, ax->unit)))
		snprintf(buf, n, "%s (%s)", ax->label ? ax->label : "", ax->unit);
	else
		snprintf(buf, n, "%s", ax->label ? ax->label : "");
}

static void draw_x_axis(struct svg_plot *p)
{
	FILE *fp = p->s->fp;
	double t[64], base = p->y + p->h;
	size_t n = svg_ticks(&p->ax, t, 64);
	fprintf(fp, "<g class=\"axis x\"%s>\n", p->ax.log ? " data-scale=\"log\"" : "");
	for (size_t i = 0; i < n; i++) {
		double x = svg_px(p, t[i]);
		char lab[32];
		if (!p->ax.cats)
			fprintf(fp, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				"y2=\"%.1f\"/>\n", x, p->y, x, base);
		fprintf(fp, "<line stroke=\"#888\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\"/>\n", x, base, x, base + 4);
		if (p->ax.cats)
			snprintf(lab, sizeof(lab), "%s", p->ax.cats[(size_t)t[i]]);
		else
			svg_tick_label(lab, sizeof(lab), t[i]);
		/* clear of the y axis's lowest label, which ends about 7 px
		 * below the corner */
		svg_text(p->s, x, base + 18, SVG_MIDDLE, NULL, "%s", lab);
	}
	char title[160];
	axis_title(title, sizeof(title), &p->ax);
	if (*title)
		svg_text(p->s, p->x + p->w / 2, base + 32, SVG_MIDDLE, NULL, "%s", title);
	fputs("</g>\n", fp);
}

static void draw_y_axis(struct svg_plot *p)
{
	FILE *fp = p->s->fp;
	double t[64], widest = 0;
	size_t n = svg_ticks(&p->ay, t, 64);
	fprintf(fp, "<g class=\"axis y\"%s>\n", p->ay.log ? " data-scale=\"log\"" : "");
	for (size_t i = 0; i < n; i++) {
		double y = svg_py(p, t[i]);
		char lab[32];
		if (!p->ay.cats)
			fprintf(fp, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				"y2=\"%.1f\"/>\n", p->x, y, p->x + p->w, y);
		fprintf(fp, "<line stroke=\"#888\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\"/>\n", p->x - 4, y, p->x, y);
		if (p->ay.cats)
			snprintf(lab, sizeof(lab), "%s", p->ay.cats[(size_t)t[i]]);
		else
			svg_tick_label(lab, sizeof(lab), t[i]);
		svg_text(p->s, p->x - 6, y + 4, SVG_END, NULL, "%s", lab);
		struct svg_box b = text_box(p->x - 6, y + 4, SVG_END, NULL, lab);
		widest = fmax(widest, b.x1 - b.x0);
	}
	char title[160];
	axis_title(title, sizeof(title), &p->ay);
	if (*title) {
		/* left of the widest tick label (0.0012 is wider than 0.5),
		 * as far as the picture allows */
		double cx = fmax(fmin(p->x - 48, p->x - 6 - widest - 8), 12);
		double cy = p->y + p->h / 2;
		fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
			"transform=\"rotate(-90 %.1f %.1f)\">", cx, cy, cx, cy);
		svg_escape(fp, title);
		fputs("</text>\n", fp);
	}
	fputs("</g>\n", fp);
}

void svg_plot_begin(struct svg *s, struct svg_plot *p, double x, double y,
		    double w, double h, const struct svg_axis *ax,
		    const struct svg_axis *ay, const char *title)
{
	*p = (struct svg_plot){ .s = s, .x = x, .y = y, .w = w, .h = h,
				.ax = *ax, .ay = *ay };
	fputs("<g class=\"plot\"", s->fp);
	if (title) {
		fputs(" data-title=\"", s->fp);
		svg_escape(s->fp, title);
		fputc('"', s->fp);
	}
	fputs(">\n", s->fp);
	p->title_end = x;
	if (title) {
		svg_text(s, x, y - 10, SVG_START, "title", "%s", title);
		p->title_end = text_box(x, y - 10, SVG_START, "title", title).x1;
	}
	draw_x_axis(p);
	draw_y_axis(p);
	fprintf(s->fp, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\"/>\n", x, y, w, h);
}

void svg_plot_end(struct svg_plot *p)
{
	if (p->in_series)
		svg_series_end(p);
	fputs("</g>\n", p->s->fp);
}

void svg_series_begin(struct svg_plot *p, const char *name, size_t colour)
{
	if (p->in_series)
		svg_series_end(p);
	fputs("<g class=\"series\" data-name=\"", p->s->fp);
	svg_escape(p->s->fp, name);
	fprintf(p->s->fp, "\" data-colour=\"%s\">\n", svg_colour(colour));
	p->in_series = true;
}

void svg_series_end(struct svg_plot *p)
{
	fputs("</g>\n", p->s->fp);
	p->in_series = false;
}

static void marker(FILE *fp, double x, double y, const char *c, enum svg_marker m)
{
	switch (m) {
	case SVG_SQUARE:
		fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"6\" "
			"fill=\"%s\"/>\n", x - 3, y - 3, c);
		break;
	case SVG_TRIANGLE:
		fprintf(fp, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\"/>\n",
			x, y - 4, x + 4, y + 3, x - 4, y + 3, c);
		break;
	case SVG_DIAMOND:
		fprintf(fp, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" "
			"fill=\"%s\"/>\n", x, y - 4, x + 4, y, x, y + 4, x - 4, y, c);
		break;
	default:
		fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
			x, y, c);
	}
}

void svg_points(struct svg_plot *p, const double *x, const double *y, size_t n,
		size_t colour, enum svg_marker m)
{
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]) && isfinite(y[i]))
			marker(p->s->fp, svg_px(p, x[i]), svg_py(p, y[i]),
			       svg_colour(colour), m);
}

void svg_line(struct svg_plot *p, const double *x, const double *y, size_t n,
	      const char *colour, double width, bool dashed)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]) || !isfinite(y[i]))
			continue;
		if (k++ == 0)
			fputs("<polyline fill=\"none\" points=\"", p->s->fp);
		else
			fputc(' ', p->s->fp);
		fprintf(p->s->fp, "%.1f,%.1f", svg_px(p, x[i]), svg_py(p, y[i]));
	}
	if (k)
		fprintf(p->s->fp, "\" stroke=\"%s\" stroke-width=\"%.1f\"%s/>\n", colour,
			width, dashed ? " stroke-dasharray=\"4,3\"" : "");
}

static void seg(FILE *fp, double x1, double y1, double x2, double y2, const char *c)
{
	fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		"stroke-width=\"1.5\"/>\n", x1, y1, x2, y2, c);
}

void svg_vbar(struct svg_plot *p, double x, double lo, double hi, size_t colour)
{
	if (!isfinite(x) || !isfinite(lo) || !isfinite(hi))
		return;
	double px = svg_px(p, x), y0 = svg_py(p, lo), y1 = svg_py(p, hi);
	const char *c = svg_colour(colour);
	fputs("<g class=\"ci\">", p->s->fp);
	seg(p->s->fp, px, y0, px, y1, c);
	seg(p->s->fp, px - 4, y0, px + 4, y0, c);
	seg(p->s->fp, px - 4, y1, px + 4, y1, c);
	fputs("</g>\n", p->s->fp);
}

void svg_hbar(struct svg_plot *p, double y, double lo, double hi, size_t colour)
{
	if (!isfinite(y) || !isfinite(lo) || !isfinite(hi))
		return;
	double py = svg_py(p, y), x0 = svg_px(p, lo), x1 = svg_px(p, hi);
	const char *c = svg_colour(colour);
	fputs("<g class=\"ci\">", p->s->fp);
	seg(p->s->fp, x0, py, x1, py, c);
	seg(p->s->fp, x0, py - 5, x0, py + 5, c);
	seg(p->s->fp, x1, py - 5, x1, py + 5, c);
	fputs("</g>\n", p->s->fp);
}

void svg_rect(struct svg_plot *p, double x0, double y0, double x1, double y1,
	      const char *fill, double opacity)
{
	double a = svg_px(p, x0), b = svg_px(p, x1);
	double c = svg_py(p, y0), d = svg_py(p, y1);
	fprintf(p->s->fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		"fill=\"%s\" fill-opacity=\"%.2f\"/>\n", fmin(a, b), fmin(c, d),
		fabs(b - a), fabs(d - c), fill, opacity);
}

void svg_vmark(struct svg_plot *p, double x, const char *label)
{
	if (!isfinite(x))
		return;
	double px = svg_px(p, x);
	fprintf(p->s->fp, "<line class=\"mark\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\"/>\n", px, p->y, px, p->y + p->h);
	/* the label beside the line, on the side with room */
	if (label && px > p->x + p->w * 0.6)
		svg_text(p->s, px - 3, p->y + 12, SVG_END, "small", "%s", label);
	else if (label)
		svg_text(p->s, px + 3, p->y + 12, SVG_START, "small", "%s", label);
}

void svg_hmark(struct svg_plot *p, double y, const char *label)
{
	if (!isfinite(y))
		return;
	double py = svg_py(p, y);
	fprintf(p->s->fp, "<line class=\"mark\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\"/>\n", p->x, py, p->x + p->w, py);
	if (label)
		svg_text(p->s, p->x + p->w - 3, py - 3, SVG_END, "small", "%s", label);
}

void svg_note(struct svg_plot *p, double x, double y, const char *text,
	      size_t colour)
{
	if (!isfinite(x) || !isfinite(y))
		return;
	double px = svg_px(p, x), py = svg_py(p, y);
	/* above right (where it always went), below right, above left,
	 * below left, then further up and down */
	static const struct { double dx, dy; enum svg_anchor a; } at[] = {
		{ 5, -5, SVG_START }, { 5, 13, SVG_START }, { -5, -5, SVG_END },
		{ -5, 13, SVG_END }, { 5, -18, SVG_START }, { 5, 26, SVG_START },
		{ -5, -18, SVG_END }, { -5, 26, SVG_END },
	};
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		double tx = px + at[i].dx, ty = py + at[i].dy;
		struct svg_box b = text_box(tx, ty, at[i].a, "small", text);
		/* inside its panel, where a panel beside it cannot draw later */
		if (b.x0 < p->x || b.x1 > p->x + p->w || b.y0 < p->y - 4 ||
		    b.y1 > p->y + p->h + 4 || !free_box(p->s, b))
			continue;
		remember(p->s, b);
		FILE *fp = p->s->fp;
		fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\"", tx, ty);
		if (at[i].a == SVG_END)
			fputs(" text-anchor=\"end\"", fp);
		fprintf(fp, " class=\"small\" style=\"fill:%s\">", text_colour(colour));
		svg_escape(fp, text);
		fputs("</text>\n", fp);
		return;
	}
	p->notes_left_out++;
}

/* An entry's width: its swatch, its name and the gap after it. */
static double legend_entry_w(const char *name)
{
	struct svg_box b = text_box(0, 0, SVG_START, NULL, name);
	return 13 + (b.x1 - b.x0) + 10;
}

/* Whether the legend fits in one row between the title and the right
 * edge of the panel. */
static bool legend_beside_title(const struct svg_plot *p, const char *const *names,
				size_t n)
{
	double w = 0;
	for (size_t i = 0; i < n; i++)
		w += legend_entry_w(names[i]);
	if (p->title_end + 12 + w > p->x + p->w)
		return false;
	/* nor over a text already there (a mark's label at the top) */
	double x = p->x + p->w;
	for (size_t i = n; i-- > 0;) {
		x -= legend_entry_w(names[i]);
		struct svg_box b = text_box(x, p->y - 11, SVG_START, NULL, names[i]);
		b.x1 += 13;
		if (!free_box(p->s, b))
			return false;
	}
	return true;
}

size_t svg_legend_rows(const struct svg_plot *p, const char *const *names, size_t n)
{
	if (!n || legend_beside_title(p, names, n))
		return 0;
	size_t rows = 1;
	double x = 0;
	for (size_t i = 0; i < n; i++) {
		double w = legend_entry_w(names[i]);
		if (x > 0 && x + w > p->w) {
			rows++;
			x = 0;
		}
		x += w;
	}
	return rows;
}

static void legend_entry(struct svg_plot *p, double x, double y, const char *name,
			 size_t i)
{
	fprintf(p->s->fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" "
		"fill=\"%s\"/>\n", x, y - 9, svg_colour(i));
	svg_text(p->s, x + 13, y, SVG_START, NULL, "%s", name);
}

void svg_legend(struct svg_plot *p, const char *const *names, size_t n)
{
	FILE *fp = p->s->fp;
	fputs("<g class=\"legend\">\n", fp);
	if (legend_beside_title(p, names, n)) {
		/* right to left, ending at the panel's right edge */
		double x = p->x + p->w;
		for (size_t i = n; i-- > 0;) {
			x -= legend_entry_w(names[i]) - 10;
			legend_entry(p, x, p->y - 11, names[i], i);
			x -= 10;
		}
	} else {
		/* left to right under the x axis's title, wrapping at the
		 * panel's width */
		double x = p->x, y = p->y + p->h + 50;
		for (size_t i = 0; i < n; i++) {
			double w = legend_entry_w(names[i]);
			if (x > p->x && x + w > p->x + p->w) {
				x = p->x;
				y += 16;
			}
			legend_entry(p, x, y, names[i], i);
			x += w;
		}
	}
	fputs("</g>\n", fp);
}

struct ranked {
	size_t k;
	double total;
};

static int by_total_desc(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;
	return a->total < b->total ? 1 : a->total > b->total ? -1 : (a->k > b->k) - (a->k < b->k);
}

size_t svg_series_top(double *const *y, size_t n, size_t len, size_t *keep,
		      double *other, size_t *nother)
{
	struct ranked *r = malloc((n ? n : 1) * sizeof(*r));
	if (!r)
		xalloc_die();
	size_t nr = 0;
	for (size_t k = 0; k < n; k++) {
		bool any = false;
		double t = 0;
		for (size_t i = 0; i < len; i++)
			if (!isnan(y[k][i])) {
				any = true;
				t += fabs(y[k][i]);
			}
		if (any)
			r[nr++] = (struct ranked){ k, t };
	}
	qsort(r, nr, sizeof(*r), by_total_desc);
	size_t nkeep = nr > SVG_SERIES_MAX ? SVG_SERIES_MAX - 1 : nr;
	for (size_t i = 0; i < nkeep; i++)
		keep[i] = r[i].k;
	*nother = nr - nkeep;
	for (size_t i = 0; *nother && i < len; i++) {
		other[i] = NAN;
		for (size_t j = nkeep; j < nr; j++)
			if (!isnan(y[r[j].k][i]))
				other[i] = (isnan(other[i]) ? 0 : other[i]) + y[r[j].k][i];
	}
	free(r);
	return nkeep;
}

/* ---- one-call panels ---------------------------------------------------- */

static void fit_curves(struct svg_axis *ax, const struct svg_curve *c, size_t nc,
		       int which, const double *extra, size_t nextra)
{
	size_t total = nextra;
	for (size_t i = 0; i < nc; i++)
		total += c[i].n * (which ? 3 : 1);
	double *v = malloc((total ? total : 1) * sizeof(*v));
	if (!v)
		xalloc_die();
	size_t k = 0;
	for (size_t i = 0; i < nc; i++) {
		for (size_t j = 0; j < c[i].n; j++) {
			if (!which) {
				v[k++] = c[i].x[j];
				continue;
			}
			v[k++] = c[i].y[j];
			v[k++] = c[i].lo ? c[i].lo[j] : NAN;
			v[k++] = c[i].hi ? c[i].hi[j] : NAN;
		}
	}
	for (size_t i = 0; i < nextra; i++)
		v[k++] = extra[i];
	svg_axis_fit(ax, v, k, !ax->log && which);
	free(v);
}

void svg_curve_open(struct svg *s, struct svg_plot *p, double x, double y,
		    double w, double h, const struct svg_axis *ax,
		    const struct svg_axis *ay, const char *title,
		    const struct svg_curve *c, size_t ncurves, const double *marks,
		    const char *const *mark_labels, size_t nmarks)
{
	struct svg_axis fx = *ax, fy = *ay;
	fit_curves(&fx, c, ncurves, 0, marks, nmarks);
	fit_curves(&fy, c, ncurves, 1, NULL, 0);
	svg_plot_begin(s, p, x, y, w, h, &fx, &fy, title);
	for (size_t i = 0; i < nmarks; i++)
		svg_vmark(p, marks[i], mark_labels ? mark_labels[i] : NULL);
	for (size_t i = 0; i < ncurves; i++) {
		svg_series_begin(p, c[i].name, i);
		svg_line(p, c[i].x, c[i].y, c[i].n, svg_colour(i), 1.5, false);
		for (size_t j = 0; c[i].lo && c[i].hi && j < c[i].n; j++)
			svg_vbar(p, c[i].x[j], c[i].lo[j], c[i].hi[j], i);
		svg_points(p, c[i].x, c[i].y, c[i].n, i, (enum svg_marker)(i % 4));
	}
	if (ncurves > 1) {
		const char **names = malloc(ncurves * sizeof(*names));
		if (!names)
			xalloc_die();
		for (size_t i = 0; i < ncurves; i++)
			names[i] = c[i].name;
		if (p->in_series)
			svg_series_end(p);
		svg_legend(p, names, ncurves);
		free(names);
	}
}

void svg_curve(struct svg *s, double x, double y, double w, double h,
	       const struct svg_axis *ax, const struct svg_axis *ay,
	       const char *title, const struct svg_curve *c, size_t ncurves,
	       const double *marks, const char *const *mark_labels,
	       size_t nmarks)
{
	struct svg_plot p;
	svg_curve_open(s, &p, x, y, w, h, ax, ay, title, c, ncurves, marks,
		       mark_labels, nmarks);
	svg_plot_end(&p);
}
