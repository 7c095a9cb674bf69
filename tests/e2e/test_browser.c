/*
 * A real browser opens every page `prof html` writes: headless Chromium
 * (Debian's `chromium`) loads the page of a counting run, a sampled run,
 * a sleep benchmark, a probe, an experiment and a pressure experiment
 * from the fixture databases. Each
 * page must be well-formed, log no console message (a script error is
 * one), run its flame graphs' scripts to the end (each marks its <svg>
 * data-ready), and give a screenshot that is not blank: its PNG must be
 * several times the size of a blank page's at the same window size, as
 * an empty picture compresses to almost nothing. In every picture no
 * text may cover another or stand outside it (the browser's own boxes of
 * the laid-out texts, flame graphs' frame labels aside, which are cut to
 * their frames); the sleep, ab and interval pictures are drawn and
 * checked with 1, 3 and 8 series (modes, compared arms, thread names).
 * Skipped, saying so, when chromium is not installed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <sys/stat.h>

#include "fixture_db.h"
#include "test_util.h"
#include "xml_check.h"

static char *workdir, *dbpath, *chromium;
static long blank_png;	/* bytes of a blank page's screenshot */

static char *find_chromium(void)
{
	static const char *const names[] = { "chromium", "chromium-browser",
					     "google-chrome" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char cmd[128], *path = NULL;
		snprintf(cmd, sizeof(cmd), "command -v %s 2>/dev/null", names[i]);
		FILE *p = popen(cmd, "r");
		char buf[512];
		if (p && fgets(buf, sizeof(buf), p)) {
			buf[strcspn(buf, "\n")] = '\0';
			path = strdup(buf);
		}
		if (p)
			pclose(p);
		if (path && *path)
			return path;
		free(path);
	}
	return NULL;
}

/* chromium --headless with args; its stdout, stderr in *err. */
static char *browse(const char *arg, const char *url, char **err)
{
	char *argv[] = { chromium, "--headless", "--no-sandbox", "--disable-gpu",
			 "--no-first-run", "--hide-scrollbars", "--enable-logging=stderr",
			 "--v=0", "--window-size=1280,1600", (char *)arg, (char *)url,
			 NULL };
	/* a fresh profile per run, in the test's folder */
	char home[600];
	snprintf(home, sizeof(home), "HOME=%s", workdir);
	char *env[] = { home, NULL };
	struct tu_run_opts o = { .timeout_s = 120 };
	struct tu_proc p = tu_run_ex(argv, env, &o);
	if (p.status != 0)
		fail_msg("chromium exited %d: %s", p.status, p.err);
	*err = p.err;
	return p.out;
}

static long screenshot(const char *name, const char *page)
{
	char arg[600], url[600], *err;
	snprintf(arg, sizeof(arg), "--screenshot=%s/%s.png", workdir, name);
	snprintf(url, sizeof(url), "file://%s/%s", workdir, page);
	free(browse(arg, url, &err));
	free(err);
	struct stat sb;
	snprintf(arg, sizeof(arg), "%s/%s.png", workdir, name);
	assert_int_equal(stat(arg, &sb), 0);
	return (long)sb.st_size;
}

static int setup_group(void **state)
{
	(void)state;
	chromium = find_chromium();
	workdir = tu_tmpdir();
	if (asprintf(&dbpath, "%s/fixture.db", workdir) < 0)
		return -1;
	fixture_db_build(dbpath);
	return 0;
}

static int teardown_group(void **state)
{
	(void)state;
	tu_rmrf(workdir);
	free(workdir);
	free(dbpath);
	free(chromium);
	return 0;
}

/* prof --db DB html ... -o NAME in the test's folder; the page's text. */
static char *page_of(const char *db, const char *name, const char *a1, const char *a2)
{
	char out[600];
	snprintf(out, sizeof(out), "%s/%s", workdir, name);
	char *argv[] = { PROF_BIN, "--db", (char *)db, "html", (char *)a1, (char *)a2,
			 "-o", out, NULL };
	if (!a2) {
		argv[5] = "-o";
		argv[6] = out;
		argv[7] = NULL;
	}
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status != 0)
		fail_msg("prof html exited %d: %s", p.status, p.err);
	tu_proc_release(&p);
	char *text = tu_slurp(out);
	assert_non_null(text);
	if (xc_have_xmllint())
		assert_int_equal(xc_lint(text, false), 0);
	/* self-contained: no URL but the two XML namespaces */
	assert_int_equal(xc_count(text, "http"),
			 1 + xc_count(text, "http://www.w3.org/2000/svg"));
	return text;
}

static char *page(const char *name, const char *a1, const char *a2)
{
	return page_of(dbpath, name, a1, a2);
}

/* In the browser: every <text> of every <svg> (but flame graphs'),
 * as laid out, against every other and the picture's edges; the pairs
 * that meet, counted first, into body's data-overlaps. */
static const char overlap_js[] =
	"(function(){var out=[],svgs=document.querySelectorAll('svg');\n"
	"for(var si=0;si<svgs.length;si++){var svg=svgs[si],sr=svg.getBoundingClientRect();\n"
	"var ts=[].slice.call(svg.querySelectorAll('text')).filter(function(t){\n"
	" return t.textContent.trim()&&!t.closest('.flame');});\n"
	"var rs=ts.map(function(t){return t.getBoundingClientRect();});\n"
	"for(var i=0;i<ts.length;i++){var r=rs[i];\n"
	" if(r.left<sr.left-1||r.right>sr.right+1||r.top<sr.top-1||r.bottom>sr.bottom+1)\n"
	"  out.push('picture '+si+': \"'+ts[i].textContent+'\" outside it');\n"
	" for(var j=i+1;j<ts.length;j++){var q=rs[j];\n"
	"  var ix=Math.min(r.right,q.right)-Math.max(r.left,q.left);\n"
	"  var iy=Math.min(r.bottom,q.bottom)-Math.max(r.top,q.top);\n"
	"  if(ix>1&&iy>1)out.push('picture '+si+': \"'+ts[i].textContent+'\" over \"'+\n"
	"   ts[j].textContent+'\"');}}}\n"
	"document.body.setAttribute('data-overlaps',out.length+'|'+out.join('; '));})();\n";

/* The page (or picture) name in the browser: no text over another. */
static void no_overlaps(const char *name)
{
	char path[700];
	snprintf(path, sizeof(path), "%s/%s", workdir, name);
	char *text = tu_slurp(path);
	assert_non_null(text);
	snprintf(path, sizeof(path), "%s/overlaps-%s.html", workdir, name);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	char *end = strstr(text, "</body>");
	if (end) {
		fprintf(fp, "%.*s<script>%s</script>%s", (int)(end - text), text, overlap_js,
			end);
	} else {
		/* a picture alone, put in a page */
		fprintf(fp, "<!DOCTYPE html><html><body>%s<script>%s</script></body></html>\n",
			text, overlap_js);
	}
	assert_int_equal(fclose(fp), 0);
	free(text);
	char url[720], *err;
	snprintf(url, sizeof(url), "file://%s", path);
	char *dom = browse("--dump-dom", url, &err);
	const char *r = strstr(dom, "data-overlaps=\"");
	if (!r)
		fail_msg("%s: the overlap check did not run:\n%s", name, err);
	r += strlen("data-overlaps=\"");
	if (atoi(r) != 0)
		fail_msg("%s: texts over texts: %.*s", name, (int)strcspn(r, "\""), r);
	free(dom);
	free(err);
}

/* Load the page, check the console and the scripts, take its picture. */
static void check_in_browser(const char *name, size_t flames)
{
	if (!chromium)
		skip();	/* apt-get install chromium (scripts/install-deps) */
	if (!blank_png) {
		char path[700];
		snprintf(path, sizeof(path), "%s/blank.html", workdir);
		FILE *fp = fopen(path, "w");
		assert_non_null(fp);
		fputs("<!DOCTYPE html><html><body></body></html>\n", fp);
		fclose(fp);
		blank_png = screenshot("blank", "blank.html");
	}
	char url[600], *err;
	snprintf(url, sizeof(url), "file://%s/%s", workdir, name);
	char *dom = browse("--dump-dom", url, &err);
	if (strstr(err, ":CONSOLE"))
		fail_msg("%s logged to the console:\n%s", name, err);
	assert_int_equal(xc_count(dom, "data-ready=\"1\""), flames);
	free(dom);
	free(err);
	char shot[64];
	snprintf(shot, sizeof(shot), "%.*s", (int)(strlen(name) - 5), name);
	long n = screenshot(shot, name);
	if (n < 4 * blank_png)
		fail_msg("the screenshot of %s looks blank: %ld bytes, a blank page's "
			 "%ld", name, n, blank_png);
	no_overlaps(name);
}

static void test_browser__counting_run(void **state)
{
	(void)state;
	char *t = page("run1.html", "1", NULL);
	assert_non_null(strstr(t, "<h2>per thread</h2>"));
	assert_non_null(strstr(t, "<h2>per thread name</h2>"));
	free(t);
	check_in_browser("run1.html", 0);
}

static void test_browser__sampled_run(void **state)
{
	(void)state;
	char *t = page("run5.html", "5", NULL);
	/* one flame graph per sampled event (cpu-clock, page-faults) */
	assert_int_equal(xc_count(t, "<g class=\"flame\""), 2);
	assert_non_null(strstr(t, "<h2>hottest symbols</h2>"));
	free(t);
	check_in_browser("run5.html", 2);
}

static void test_browser__sleep_run(void **state)
{
	(void)state;
	char *t = page("run6.html", "6", NULL);
	assert_int_equal(xc_count(t, "<svg "), 1);
	free(t);
	check_in_browser("run6.html", 0);
}

static void test_browser__probe_run(void **state)
{
	(void)state;
	char *t = page("run35.html", "35", NULL);
	assert_int_equal(xc_count(t, "<svg "), 1);
	free(t);
	check_in_browser("run35.html", 0);
}

static void test_browser__frames_intervals_run(void **state)
{
	(void)state;
	char *t = page("run37.html", "37", NULL);
	assert_int_equal(xc_count(t, "<svg "), 2);
	free(t);
	check_in_browser("run37.html", 0);
}

static void test_browser__experiment(void **state)
{
	(void)state;
	char *t = page("exp2.html", "--experiment", "2");
	assert_int_equal(xc_count(t, "<svg "), 1);
	assert_non_null(strstr(t, "<h2>statistics</h2>"));
	free(t);
	check_in_browser("exp2.html", 0);
}

/* A pressure experiment's page (made-up values, tests/fixture_db.h). */
static void test_browser__pressure_experiment(void **state)
{
	(void)state;
	char db[600];
	snprintf(db, sizeof(db), "%s/pressure.db", workdir);
	fixture_pressure_db_build(db);
	char *t = page_of(db, "pressure.html", "--experiment", "1");
	assert_int_equal(xc_count(t, "<svg "), 1);
	assert_non_null(strstr(t, "<h2>cache pressure curves</h2>"));
	free(t);
	check_in_browser("pressure.html", 0);
}

/* prof --db DB ARGS...: must exit 0. */
static void prof_ok(const char *db, char *const *args)
{
	char *argv[32] = { PROF_BIN, "--db", (char *)db };
	size_t n = 3;
	for (size_t i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status != 0)
		fail_msg("prof %s exited %d: %s", args[0], p.status, p.err);
	tu_proc_release(&p);
}

/* The last run's picture (report --format svg, with extra) as name. */
static void picture(const char *db, const char *name, const char *extra)
{
	char out[700];
	snprintf(out, sizeof(out), "%s/%s", workdir, name);
	char *args[] = { "report", "last", "--format", "svg", "-o", out, (char *)extra, NULL };
	prof_ok(db, args);
	char *t = tu_slurp(out);
	assert_non_null(t);
	if (xc_have_xmllint())
		assert_int_equal(xc_lint(t, false), 0);
	free(t);
	check_in_browser(name, 0);
}

/*
 * Pictures with 1, 3 and 8 series, measured here: a sleep benchmark of
 * 1, 3 and 8 modes; an experiment of 2, 4 and 9 arms (1, 3 and 8
 * compared with the baseline); intervals of 1, 3 and 8 thread names
 * (copies of sleep under other names, beside the shell that starts them).
 */
static void test_browser__pictures_with_1_3_and_8_series(void **state)
{
	(void)state;
	if (!chromium)
		skip();	/* apt-get install chromium (scripts/install-deps) */
	char db[600], name[64];
	snprintf(db, sizeof(db), "%s/series.db", workdir);
	static const char *const modes[3] = { "nanosleep", "nanosleep,timerfd,spin",
					      "nanosleep,slack1,clock-abs,timerfd,condvar,"
					      "yield,spin,hybrid" };
	static const int series[3] = { 1, 3, 8 };
	for (int k = 0; k < 3; k++) {
		char *sl[] = { "sleep", "--modes", (char *)modes[k], "--calls", "100",
			       "--durations", "10,50", NULL };
		prof_ok(db, sl);
		snprintf(name, sizeof(name), "sleep%d.svg", series[k]);
		picture(db, name, NULL);

		char *ab[32] = { "ab", "-q", "--rounds", "2" };
		char arms[9][32];
		size_t n = 4;
		for (int a = 0; a <= series[k]; a++) {
			snprintf(arms[a], sizeof(arms[a]), "--arm=%c=true", 'a' + a);
			ab[n++] = arms[a];
		}
		ab[n] = NULL;
		prof_ok(db, ab);
		snprintf(name, sizeof(name), "exp%d.html", series[k]);
		char out[700];
		snprintf(out, sizeof(out), "%s/%s", workdir, name);
		char *html[] = { "html", "--experiment", "last", "-o", out, NULL };
		prof_ok(db, html);
		check_in_browser(name, 0);

		char cmd[900] = "";
		size_t len = 0;
		for (int t = 1; t <= series[k]; t++)
			len += (size_t)snprintf(cmd + len, sizeof(cmd) - len,
						"cp \"$(command -v sleep)\" %s/w%d && ", workdir, t);
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, "for i in $(seq %d); do "
					"%s/w$i 0.25 & done; wait", series[k], workdir);
		char *run[] = { "run", "-q", "-I", "50", "--", "sh", "-c", cmd, NULL };
		prof_ok(db, run);
		snprintf(name, sizeof(name), "intervals%d.svg", series[k]);
		picture(db, name, "--intervals");
	}
}

/*
 * The flame graph's script, driven in the browser: a click on `render`
 * widens it to the full 1180 px and hides the frames beside it; Search
 * (its prompt answered "memcpy") reports memcpy's share, 20 of run 5's
 * 47 cpu-clock samples; Reset zoom puts the frame back.
 */
static void test_browser__flame_graph_zooms_and_searches(void **state)
{
	(void)state;
	char *t = page("run5.html", "5", NULL);
	free(t);
	if (!chromium)
		skip();	/* apt-get install chromium (scripts/install-deps) */
	char path[700];
	snprintf(path, sizeof(path), "%s/run5.html", workdir);
	char *html = tu_slurp(path);
	char *end = strstr(html, "</body>");
	assert_non_null(end);
	*end = '\0';
	snprintf(path, sizeof(path), "%s/drive.html", workdir);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "%s<script>\n"
		"var svg=document.querySelector('svg.prof-picture'),tgt=null;\n"
		"var gs=svg.querySelectorAll('g.f');\n"
		"gs.forEach(function(g){if(!tgt&&g.querySelector('title').textContent"
		".indexOf('render (')==0)tgt=g;});\n"
		"function w(){return tgt.querySelector('rect').getAttribute('width');}\n"
		"var before=w();\n"
		"tgt.dispatchEvent(new MouseEvent('click',{bubbles:true}));\n"
		"var mid=w();\n"
		"var hidden=0;gs.forEach(function(g){if(g.style.display=='none')hidden++;});\n"
		"window.prompt=function(){return 'memcpy';};\n"
		"svg.querySelector('.search').dispatchEvent(new MouseEvent('click'));\n"
		"var found=svg.querySelector('.matched').textContent;\n"
		"svg.querySelector('.reset').dispatchEvent(new MouseEvent('click'));\n"
		"document.body.setAttribute('data-result',"
		"'zoom '+before+' '+mid+' '+(hidden>0)+' '+w()+'|'+found);\n"
		"</script></body></html>\n", html);
	fclose(fp);
	free(html);
	char url[720], *err;
	snprintf(url, sizeof(url), "file://%s", path);
	char *dom = browse("--dump-dom", url, &err);
	if (strstr(err, ":CONSOLE"))
		fail_msg("the driven page logged to the console:\n%s", err);
	/* 828.5 px before, full width while zoomed, 828.5 again after reset */
	if (!strstr(dom, "data-result=\"zoom 828.5 1180.0 true 828.5|matched: 42.6% of samples\""))
		fail_msg("the flame graph did not zoom and search as expected:\n%s",
			 strstr(dom, "data-result") ? strstr(dom, "data-result") : dom);
	free(dom);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_browser__counting_run),
		cmocka_unit_test(test_browser__sampled_run),
		cmocka_unit_test(test_browser__sleep_run),
		cmocka_unit_test(test_browser__probe_run),
		cmocka_unit_test(test_browser__frames_intervals_run),
		cmocka_unit_test(test_browser__experiment),
		cmocka_unit_test(test_browser__pressure_experiment),
		cmocka_unit_test(test_browser__flame_graph_zooms_and_searches),
		cmocka_unit_test(test_browser__pictures_with_1_3_and_8_series),
	};
	return cmocka_run_group_tests(tests, setup_group, teardown_group);
}
