/*
 * svg: the one picture writer of prof. Plain SVG 1.1, written by hand to
 * a caller-owned FILE, so no plotting library is needed to draw a result
 * and every number comes straight from the report's structs.
 *
 * Rules every picture follows: text stays text (<text>, selectable and
 * searchable, never paths); every axis says its unit; colours come from
 * the Okabe-Ito palette, which stays distinct for the common forms of
 * colour blindness and in grey print, and series also differ by marker
 * shape where they share a plot. Output is deterministic (coordinates to
 * 0.1 px), so pictures can be golden files.
 *
 * Shape of a document, for tests and for scripts that read it:
 *   <svg class="prof-picture">
 *     <g class="plot" data-title="...">          one per svg_plot_begin
 *       <g class="axis x">, <g class="axis y">    ticks, labels, units
 *       <g class="series" data-name="...">        one per svg_series_begin
 *
 * Use: svg_begin, then for each panel svg_plot_begin (axes drawn), series
 * and marks in data coordinates, svg_plot_end; text anywhere; svg_end.
 * svg_curve() draws a whole x/y panel with CI bars and vertical markers
 * in one call (for curves against a size: cache pressure, latency
 * probes). Not thread-safe; no shared state.
 */
#ifndef REPORTS_SVG_H
#define REPORTS_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Where a text lies, in px (an estimate from its length and size). */
struct svg_box {
	double x0, y0, x1, y1;
};

#define SVG_MAX_BOXES 1024

struct svg {
	FILE *fp;
	double width, height;
	/* Every text written so far, so that labels placed later (svg_note,
	 * svg_legend) keep clear of them; past SVG_MAX_BOXES texts are
	 * written but no longer remembered. */
	struct svg_box boxes[SVG_MAX_BOXES];
	size_t nboxes;
};

/* Okabe-Ito colour i (cycles through 8), as "#rrggbb". */
const char *svg_colour(size_t i);

/*
 * Open a document of width x height px with a title (NULL: none). No XML
 * declaration is written, so the same text can be inlined in HTML.
 */
void svg_begin(struct svg *s, FILE *fp, double width, double height,
	       const char *title);
void svg_end(struct svg *s);

/* Write s with &, <, >, " and ' escaped (NULL writes nothing). */
void svg_escape(FILE *fp, const char *s);

enum svg_anchor { SVG_START, SVG_MIDDLE, SVG_END };

/* Text at (x, y) px; cls is a CSS class or NULL ("title", "small"...). */
void svg_text(struct svg *s, double x, double y, enum svg_anchor a,
	      const char *cls, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/*
 * text in lines of at most maxw px (broken at spaces; a longer word stands
 * alone), the first with its baseline at y, 1.3 font sizes apart. Returns
 * the number of lines; svg_wrap_lines counts them beforehand, for the
 * layout.
 */
size_t svg_text_wrapped(struct svg *s, double x, double y, double maxw,
			const char *cls, const char *text);
size_t svg_wrap_lines(const char *text, const char *cls, double maxw);

/* ---- axes --------------------------------------------------------------- */

struct svg_axis {
	double lo, hi;		/* data range shown; svg_axis_fit sets it */
	bool log;		/* base-10 logarithmic; lo must be > 0 */
	const char *label;	/* "overshoot" */
	const char *unit;	/* "us"; NULL or "" for none (then "fraction"...) */
	/* Categories instead of numbers: tick k at value k is named cats[k]. */
	const char *const *cats;
	size_t ncats;
};

/*
 * Widen ax to hold v[0..n) (NaNs and, for a log axis, values <= 0 are
 * skipped) and round its ends out to nice steps. include_zero: a linear
 * axis reaches 0 too. An empty set gives [0, 1] ([1, 10] for log).
 */
void svg_axis_fit(struct svg_axis *ax, const double *v, size_t n,
		  bool include_zero);

/*
 * Nice tick values for ax (1, 2 or 5 times a power of ten apart; on a
 * log axis each decade, with 2 and 5 between when there are few); at
 * most max of them into t. Returns how many.
 */
size_t svg_ticks(const struct svg_axis *ax, double *t, size_t max);

/* A tick's label: "0.5", "20", "1k", "2.5M", without unit. */
void svg_tick_label(char *buf, size_t n, double v);

/* ---- plots -------------------------------------------------------------- */

/* A plot panel: its data area in px and its two axes. */
struct svg_plot {
	struct svg *s;
	double x, y, w, h;	/* the data area (axes drawn outside it) */
	struct svg_axis ax, ay;
	bool in_series;
	double title_end;	/* px where the title ends (x when none) */
	size_t notes_left_out;	/* svg_note labels with no free place */
};

/*
 * Start a panel whose data area is (x, y, w, h) px: draws its title (may
 * be NULL), frame, grid, ticks and axis labels with units. Leave about
 * 60 px left, 40 below and 24 above the area for them.
 */
void svg_plot_begin(struct svg *s, struct svg_plot *p, double x, double y,
		    double w, double h, const struct svg_axis *ax,
		    const struct svg_axis *ay, const char *title);
void svg_plot_end(struct svg_plot *p);

/* Data to px; values outside the axis are clamped to its ends. */
double svg_px(const struct svg_plot *p, double x);
double svg_py(const struct svg_plot *p, double y);

/* Group what follows as one named series (a legend entry in tooltips). */
void svg_series_begin(struct svg_plot *p, const char *name, size_t colour);
void svg_series_end(struct svg_plot *p);

enum svg_marker { SVG_DOT, SVG_SQUARE, SVG_TRIANGLE, SVG_DIAMOND };

/* Points (NaN skipped), a line through them, or both. */
void svg_points(struct svg_plot *p, const double *x, const double *y, size_t n,
		size_t colour, enum svg_marker m);
void svg_line(struct svg_plot *p, const double *x, const double *y, size_t n,
	      const char *colour, double width, bool dashed);

/* An error bar: vertical at x from lo to hi, or horizontal at y. */
void svg_vbar(struct svg_plot *p, double x, double lo, double hi, size_t colour);
void svg_hbar(struct svg_plot *p, double y, double lo, double hi, size_t colour);

/* A filled rectangle in data coordinates (bars, bands). */
void svg_rect(struct svg_plot *p, double x0, double y0, double x1, double y1,
	      const char *fill, double opacity);

/* A dashed vertical line across the panel at data x, labelled at the top
 * (label may be NULL); horizontal likewise at data y. */
void svg_vmark(struct svg_plot *p, double x, const char *label);
void svg_hmark(struct svg_plot *p, double y, const char *label);

/*
 * A short label next to a data point: above and right of it, or where
 * that is taken by another text, below it or on its left; where every
 * place would cover a text or leave the panel, it is left out and
 * counted in p->notes_left_out. The point itself stays drawn.
 */
void svg_note(struct svg_plot *p, double x, double y, const char *text,
	      size_t colour);

/*
 * The legend, one entry per name: one row at the top right of the panel
 * where it fits beside the title, else rows under the x axis's title
 * (about 16 px a row: svg_legend_rows says how many, for the layout).
 */
void svg_legend(struct svg_plot *p, const char *const *names, size_t n);
size_t svg_legend_rows(const struct svg_plot *p, const char *const *names, size_t n);

/*
 * At most SVG_SERIES_MAX curves a panel (the palette's 8 colours): of n
 * series y[k][0..len) (NaN where a series has no point), the indices of
 * the ones to draw into keep[], largest sum first, and their number.
 * Where n > SVG_SERIES_MAX that is SVG_SERIES_MAX - 1 and the rest are
 * summed into other[0..len) (NaN where none of them has a point):
 * *nother says how many, 0 when none were summed. Series with no point
 * at all are left out.
 */
#define SVG_SERIES_MAX 8
size_t svg_series_top(double *const *y, size_t n, size_t len, size_t *keep,
		      double *other, size_t *nother);

/* ---- one-call panels ---------------------------------------------------- */

struct svg_curve {
	const char *name;
	const double *x, *y;
	const double *lo, *hi;	/* the CI per point; NULL: no bars */
	size_t n;
};

/*
 * A whole panel: curves of y against x, each point with its CI bar,
 * dashed markers at marks[0..nmarks) labelled mark_labels[i] (may be
 * NULL), axes fitted to the data and the marks. ax and ay give the
 * labels, units and log flags; their ranges are fitted here.
 */
void svg_curve(struct svg *s, double x, double y, double w, double h,
	       const struct svg_axis *ax, const struct svg_axis *ay,
	       const char *title, const struct svg_curve *c, size_t ncurves,
	       const double *marks, const char *const *mark_labels,
	       size_t nmarks);

/*
 * svg_curve with the panel left open in *p, so that the caller can add
 * notes or points in data coordinates (a probe's knees); it then calls
 * svg_plot_end(p).
 */
void svg_curve_open(struct svg *s, struct svg_plot *p, double x, double y,
		    double w, double h, const struct svg_axis *ax,
		    const struct svg_axis *ay, const char *title,
		    const struct svg_curve *c, size_t ncurves, const double *marks,
		    const char *const *mark_labels, size_t nmarks);

#endif
