/*
 * flame (reports): folded stacks to an interactive SVG flame graph.
 * Built as a tree of frames (children by name, merged across samples),
 * laid out left to right in name order as flamegraph.pl does, so the
 * same profile always draws the same picture.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "reports/flame.h"
#include "reports/svg.h"

#define WIDTH 1200.0
#define FRAME_H 17.0
#define PAD 10.0
#define TOP 64.0	/* title, subtitle, buttons */
#define BOTTOM 28.0	/* the details line */
/* Frames narrower than this are left out: they cannot be seen or
 * clicked, and a large profile would otherwise weigh megabytes. */
#define MIN_PX 0.3

struct fnode {
	char *name;
	uint64_t value;
	size_t *kids;
	size_t nkids, capkids;
};

struct ftree {
	struct fnode *v;
	size_t n, cap;
	size_t depth;	/* the deepest stack */
};

static size_t node_new(struct ftree *t, const char *name, size_t len)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		struct fnode *v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return SIZE_MAX;
		t->v = v;
		t->cap = cap;
	}
	struct fnode *f = &t->v[t->n];
	memset(f, 0, sizeof(*f));
	f->name = strndup(name, len);
	if (!f->name)
		return SIZE_MAX;
	return t->n++;
}

static size_t child_of(struct ftree *t, size_t parent, const char *name, size_t len)
{
	struct fnode *p = &t->v[parent];
	for (size_t i = 0; i < p->nkids; i++) {
		const char *k = t->v[p->kids[i]].name;
		if (strlen(k) == len && !memcmp(k, name, len))
			return p->kids[i];
	}
	size_t id = node_new(t, name, len);
	if (id == SIZE_MAX)
		return id;
	p = &t->v[parent];	/* node_new may move the array */
	if (p->nkids == p->capkids) {
		size_t cap = p->capkids ? 2 * p->capkids : 4;
		size_t *k = realloc(p->kids, cap * sizeof(*k));
		if (!k)
			return SIZE_MAX;
		p->kids = k;
		p->capkids = cap;
	}
	p->kids[p->nkids++] = id;
	return id;
}

/* One "a;b;c 12" line into the tree. */
static int add_line(struct ftree *t, const char *line, size_t len)
{
	const char *sp = NULL;
	for (size_t i = len; i-- > 0;)
		if (line[i] == ' ') {
			sp = line + i;
			break;
		}
	if (!sp || sp == line)
		return 0;
	char *end;
	unsigned long long count = strtoull(sp + 1, &end, 10);
	if (end != line + len || !count)
		return 0;
	size_t cur = 0, d = 0;
	t->v[0].value += count;
	for (const char *p = line; p < sp;) {
		const char *semi = memchr(p, ';', (size_t)(sp - p));
		const char *e = semi ? semi : sp;
		cur = child_of(t, cur, p, (size_t)(e - p));
		if (cur == SIZE_MAX)
			return -ENOMEM;
		t->v[cur].value += count;
		d++;
		p = semi ? semi + 1 : sp;
	}
	if (d > t->depth)
		t->depth = d;
	return 0;
}

static const struct ftree *sort_tree;

static int by_name(const void *a, const void *b)
{
	return strcmp(sort_tree->v[*(const size_t *)a].name,
		      sort_tree->v[*(const size_t *)b].name);
}

static void tree_release(struct ftree *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].kids);
	}
	free(t->v);
}

/* Frame colours: kernel blue, unknown grey, the rest a warm tint picked
 * by the name, so a function keeps its colour across pictures. */
static void frame_fill(const char *name, char *buf, size_t n)
{
	size_t len = strlen(name);
	if (len > 4 && !strcmp(name + len - 4, "_[k]")) {
		snprintf(buf, n, "#9fd3f0");
		return;
	}
	if (strstr(name, "+0x") || name[0] == '[') {
		snprintf(buf, n, "#c8c8c8");
		return;
	}
	uint32_t h = 2166136261u;
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	/* orange (#E69F00) towards yellow, light enough for black text */
	unsigned r = 235 + h % 20, g = 150 + (h >> 8) % 80, b = 40 + (h >> 16) % 50;
	snprintf(buf, n, "#%02x%02x%02x", r, g, b);
}

struct draw {
	FILE *fp;
	const struct ftree *t;
	bool icicle;
	double scale;	/* px per count */
	double total;
	const char *unit;
};

static double frame_y(const struct draw *d, size_t depth)
{
	if (d->icicle)
		return TOP + FRAME_H * (double)depth;
	return TOP + FRAME_H * (double)d->t->depth - FRAME_H * (double)depth;
}

/* The label that fits in w px, about 7 px a character, cut between
 * characters. */
static void write_label(FILE *fp, const char *name, double w)
{
	size_t fit = (size_t)((w - 6) / 7);
	if (fit < 3)
		return;
	size_t chars = 0, cut = 0, o = 0;
	const unsigned char *p = (const unsigned char *)name;
	while (p[o]) {
		uint32_t cp;
		o += utf8_next_str(p + o, &cp);
		if (++chars == fit - 2)
			cut = o;
	}
	if (chars <= fit) {
		svg_escape(fp, name);
		return;
	}
	char *s = strndup(name, cut);
	if (!s)
		return;
	svg_escape(fp, s);
	fputs("..", fp);
	free(s);
}

static void draw_node(const struct draw *d, size_t id, size_t depth, double x0)
{
	const struct fnode *f = &d->t->v[id];
	double w = (double)f->value * d->scale;
	if (w < MIN_PX)
		return;
	if (id) {
		FILE *fp = d->fp;
		double y = frame_y(d, depth - 1);
		char fill[16];
		frame_fill(f->name, fill, sizeof(fill));
		fprintf(fp, "<g class=\"f\" data-d=\"%zu\" data-v=\"%llu\"><title>", depth,
			(unsigned long long)f->value);
		svg_escape(fp, f->name);
		fprintf(fp, " (%llu %s, %.2f%%)</title>", (unsigned long long)f->value,
			d->unit, 100.0 * (double)f->value / d->total);
		fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			"fill=\"%s\" rx=\"2\"/><text x=\"%.1f\" y=\"%.1f\">", x0, y, w,
			FRAME_H - 1, fill, x0 + 3, y + FRAME_H - 5);
		write_label(fp, f->name, w);
		fputs("</text></g>\n", fp);
	}
	double x = x0;
	for (size_t i = 0; i < f->nkids; i++) {
		draw_node(d, f->kids[i], depth + 1, x);
		x += (double)d->t->v[f->kids[i]].value * d->scale;
	}
}

/*
 * The interaction, inline (no network): zoom recomputes each frame's x
 * and width from its place in the tree, which the drawing order gives
 * back (data-d is the depth; a frame's children follow it). Search
 * colours matches and sums the samples of the outermost ones.
 */
static const char flame_js[] =
"(function(){\n"
"var me=document.currentScript,svg=me.ownerSVGElement||me.parentNode;\n"
"var root=svg.querySelector('g.flame');\n"
"var W=+root.getAttribute('data-plotw'),X0=+root.getAttribute('data-x0');\n"
"var fs=Array.prototype.slice.call(svg.querySelectorAll('g.f'));\n"
"var info=svg.querySelector('.details'),unit=root.getAttribute('data-unit');\n"
"var total=+root.getAttribute('data-total');\n"
"fs.forEach(function(g){var r=g.querySelector('rect'),t=g.querySelector('text');\n"
" g._x=+r.getAttribute('x');g._w=+r.getAttribute('width');g._d=+g.getAttribute('data-d');\n"
" g._name=g.querySelector('title').textContent.replace(/ \\([^()]*\\)$/,'');\n"
" g._fill=r.getAttribute('fill');\n"
" g.addEventListener('click',function(){zoom(g);});\n"
" g.addEventListener('mouseover',function(){info.textContent=g.querySelector('title').textContent;});\n"
" g.addEventListener('mouseout',function(){info.textContent=' ';});});\n"
"function label(g,w){var t=g.querySelector('text'),n=g._name,fit=Math.floor((w-6)/7);\n"
" t.textContent=fit<3?'':(n.length<=fit?n:n.substring(0,fit-2)+'..');}\n"
"function place(g,x,w,vis,dim){var r=g.querySelector('rect'),t=g.querySelector('text');\n"
" g.style.display=vis?'':'none';if(!vis)return;r.setAttribute('x',x.toFixed(1));\n"
" r.setAttribute('width',w.toFixed(1));t.setAttribute('x',(x+3).toFixed(1));\n"
" g.style.opacity=dim?'0.5':'';label(g,w);}\n"
"function zoom(z){var zx=z._x,zw=z._w,zd=z._d;\n"
" fs.forEach(function(g){var inside=g._x>=zx-0.05&&g._x+g._w<=zx+zw+0.05;\n"
"  if(g._d>=zd&&inside)place(g,X0+(g._x-zx)*W/zw,g._w*W/zw,true,false);\n"
"  else if(g._d<zd&&g._x<=zx+0.05&&g._x+g._w>=zx+zw-0.05)place(g,X0,W,true,true);\n"
"  else place(g,0,0,false,false);});\n"
" svg.querySelector('.reset').style.opacity='1';}\n"
"function reset(){fs.forEach(function(g){place(g,g._x,g._w,true,false);});\n"
" svg.querySelector('.reset').style.opacity='0.3';}\n"
"function search(){var term=window.prompt('Search frames (regular expression)','');\n"
" if(term===null)return;var re;try{re=new RegExp(term);}catch(e){info.textContent='bad expression';return;}\n"
" var sum=0,end=-1;fs.forEach(function(g){var r=g.querySelector('rect');\n"
"  var hit=term!==''&&re.test(g._name);r.setAttribute('fill',hit?'#CC79A7':g._fill);\n"
"  if(hit&&g._x>=end-0.05){sum+=+g.getAttribute('data-v');end=g._x+g._w;}});\n"
" svg.querySelector('.matched').textContent=term===''?' ':\n"
"  'matched: '+(100*sum/total).toFixed(1)+'% of '+unit;}\n"
"svg.querySelector('.reset').addEventListener('click',reset);\n"
"svg.querySelector('.search').addEventListener('click',search);\n"
"svg.setAttribute('data-ready','1');\n"
"})();\n";

int flame_svg(const char *folded, const struct flame_opts *fo, FILE *fp)
{
	struct ftree t = { 0 };
	if (node_new(&t, "all", 3) == SIZE_MAX)
		return -ENOMEM;
	int rc = 0;
	for (const char *p = folded; p && *p && !rc;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		rc = add_line(&t, p, len);
		p += len + (nl ? 1 : 0);
	}
	if (rc) {
		tree_release(&t);
		return rc;
	}
	sort_tree = &t;
	for (size_t i = 0; i < t.n; i++)
		if (t.v[i].nkids > 1)
			qsort(t.v[i].kids, t.v[i].nkids, sizeof(size_t), by_name);
	sort_tree = NULL;

	const char *unit = fo->unit ? fo->unit : "samples";
	double plotw = WIDTH - 2 * PAD;
	double height = TOP + FRAME_H * (double)(t.depth ? t.depth : 1) + BOTTOM;
	struct svg s;
	svg_begin(&s, fp, WIDTH, height, fo->title ? fo->title : "Flame graph");
	fprintf(fp, "<g class=\"flame%s\" data-x0=\"%.1f\" data-plotw=\"%.1f\" "
		"data-total=\"%llu\" data-unit=\"", fo->icicle ? " icicle" : "", PAD,
		plotw, (unsigned long long)t.v[0].value);
	svg_escape(fp, unit);
	fputs("\">\n", fp);
	svg_text(&s, WIDTH / 2, 22, SVG_MIDDLE, "title", "%s",
		 fo->title ? fo->title : "Flame graph");
	if (fo->subtitle)
		svg_text(&s, WIDTH / 2, 40, SVG_MIDDLE, "small", "%s", fo->subtitle);
	fputs("<text x=\"10\" y=\"22\" class=\"reset\" style=\"cursor:pointer;opacity:0.3\">"
	      "Reset zoom</text>\n", fp);
	fprintf(fp, "<text x=\"%.1f\" y=\"22\" text-anchor=\"end\" class=\"search\" "
		"style=\"cursor:pointer\">Search</text>\n", WIDTH - PAD);
	fprintf(fp, "<text x=\"%.1f\" y=\"40\" text-anchor=\"end\" class=\"matched small\">"
		" </text>\n", WIDTH - PAD);
	if (!t.v[0].value)
		svg_text(&s, WIDTH / 2, TOP + 12, SVG_MIDDLE, NULL, "no samples");
	struct draw d = { .fp = fp, .t = &t, .icicle = fo->icicle,
			  .scale = t.v[0].value ? plotw / (double)t.v[0].value : 0,
			  .total = (double)t.v[0].value, .unit = unit };
	if (t.v[0].value)
		draw_node(&d, 0, 0, PAD);
	fprintf(fp, "<text x=\"10\" y=\"%.1f\" class=\"details\"> </text>\n",
		height - 10);
	fputs("</g>\n", fp);
	/* the script finds its own <svg>; the <g> above holds the numbers */
	fputs("<script type=\"text/ecmascript\"><![CDATA[\n", fp);
	fputs(flame_js, fp);
	fputs("]]></script>\n", fp);
	svg_end(&s);
	tree_release(&t);
	return 0;
}

int report_flame(const struct db_run *run, const struct db_profile *p,
		 const struct profile_opts *o, bool icicle, FILE *fp)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem)
		return -ENOMEM;
	struct profile_opts fo = *o;
	fo.fmt = OUT_FOLDED;
	report_profile(run, p, &fo, mem);
	if (fclose(mem)) {
		free(text);
		return -ENOMEM;
	}
	int e = o->event >= 0 ? o->event : 0;
	const char *ev = p->nevents > (size_t)e ? p->events[e].name : "?";
	char title[160], sub[400];
	snprintf(title, sizeof(title), "%s of run %lld: %s", icicle ? "Icicle graph"
		 : "Flame graph", (long long)run->id, ev);
	snprintf(sub, sizeof(sub), "%s", run->command ? run->command : "");
	struct flame_opts f = { .icicle = icicle, .title = title, .subtitle = sub,
				.unit = "samples" };
	int rc = flame_svg(text, &f, fp);
	free(text);
	return rc;
}
