/*
 * wellformed: what a reader of prof's outputs asks of them, checked in
 * process so a fuzz target can ask it millions of times: JSON that a
 * parser such as Python's json.loads reads (RFC 8259: one value, strings
 * of valid UTF-8 with no raw control characters), and XML that is
 * well-formed (tags nested and closed, attributes quoted, '&' only in a
 * reference, '<' only in markup, valid UTF-8, no C0 control but tab and
 * line breaks). Header-only; each returns NULL when the text is good,
 * else what is wrong.
 */
#ifndef TESTS_FUZZ_WELLFORMED_H
#define TESTS_FUZZ_WELLFORMED_H

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "common/utf8.h"

struct wf {
	const unsigned char *p, *end;
	const char *why;
	int depth;
};

static inline void wf_ws(struct wf *w)
{
	while (w->p < w->end && (*w->p == ' ' || *w->p == '\t' || *w->p == '\n' ||
				 *w->p == '\r'))
		w->p++;
}

static inline bool wf_fail(struct wf *w, const char *why)
{
	if (!w->why)
		w->why = why;
	return false;
}

static inline bool wf_json_string(struct wf *w)
{
	w->p++;		/* the opening quote */
	while (w->p < w->end && *w->p != '"') {
		if (*w->p < 0x20)
			return wf_fail(w, "a raw control character in a JSON string");
		if (*w->p == '\\') {
			w->p++;
			if (w->p >= w->end)
				break;
			if (*w->p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (w->p + i >= w->end || !isxdigit(w->p[i]))
						return wf_fail(w, "a bad \\u escape");
				w->p += 5;
				continue;
			}
			if (!strchr("\"\\/bfnrt", *w->p))
				return wf_fail(w, "a bad escape in a JSON string");
			w->p++;
			continue;
		}
		uint32_t cp;
		size_t k = utf8_next(w->p, (size_t)(w->end - w->p), &cp);
		if (cp == UTF8_INVALID)
			return wf_fail(w, "invalid UTF-8 in a JSON string");
		w->p += k;
	}
	if (w->p >= w->end)
		return wf_fail(w, "a JSON string without its end");
	w->p++;
	return true;
}

static inline bool wf_json_value(struct wf *w);

static inline bool wf_json_number(struct wf *w)
{
	const unsigned char *s = w->p;
	if (w->p < w->end && *w->p == '-')
		w->p++;
	if (w->p >= w->end || !isdigit(*w->p))
		return wf_fail(w, "a bad JSON number");
	if (*w->p == '0')
		w->p++;
	else
		while (w->p < w->end && isdigit(*w->p))
			w->p++;
	if (w->p < w->end && *w->p == '.') {
		w->p++;
		if (w->p >= w->end || !isdigit(*w->p))
			return wf_fail(w, "a bad JSON fraction");
		while (w->p < w->end && isdigit(*w->p))
			w->p++;
	}
	if (w->p < w->end && (*w->p == 'e' || *w->p == 'E')) {
		w->p++;
		if (w->p < w->end && (*w->p == '+' || *w->p == '-'))
			w->p++;
		if (w->p >= w->end || !isdigit(*w->p))
			return wf_fail(w, "a bad JSON exponent");
		while (w->p < w->end && isdigit(*w->p))
			w->p++;
	}
	return w->p > s;
}

static inline bool wf_json_word(struct wf *w, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(w->end - w->p) < n || memcmp(w->p, word, n))
		return wf_fail(w, "not a JSON value (NaN, Infinity or a typo?)");
	w->p += n;
	return true;
}

static inline bool wf_json_value(struct wf *w)
{
	wf_ws(w);
	if (w->p >= w->end)
		return wf_fail(w, "a JSON value missing");
	if (++w->depth > 200)
		return wf_fail(w, "JSON nested past 200");
	bool ok;
	unsigned char c = *w->p;
	if (c == '{' || c == '[') {
		unsigned char close = c == '{' ? '}' : ']';
		w->p++;
		wf_ws(w);
		ok = true;
		if (w->p < w->end && *w->p == close) {
			w->p++;
		} else {
			for (;;) {
				if (c == '{') {
					wf_ws(w);
					if (w->p >= w->end || *w->p != '"') {
						ok = wf_fail(w, "a JSON key that is no string");
						break;
					}
					if (!(ok = wf_json_string(w)))
						break;
					wf_ws(w);
					if (w->p >= w->end || *w->p != ':') {
						ok = wf_fail(w, "a JSON key without ':'");
						break;
					}
					w->p++;
				}
				if (!(ok = wf_json_value(w)))
					break;
				wf_ws(w);
				if (w->p < w->end && *w->p == ',') {
					w->p++;
					continue;
				}
				if (w->p < w->end && *w->p == close) {
					w->p++;
					break;
				}
				ok = wf_fail(w, "a JSON list or object without ',' or its end");
				break;
			}
		}
	} else if (c == '"') {
		ok = wf_json_string(w);
	} else if (c == 't') {
		ok = wf_json_word(w, "true");
	} else if (c == 'f') {
		ok = wf_json_word(w, "false");
	} else if (c == 'n') {
		ok = wf_json_word(w, "null");
	} else {
		ok = wf_json_number(w);
	}
	w->depth--;
	return ok;
}

/* NULL when s[0..len) is one JSON value (white space around it). */
static inline const char *wf_json(const char *s, size_t len)
{
	struct wf w = { (const unsigned char *)s, (const unsigned char *)s + len, NULL, 0 };
	if (!wf_json_value(&w))
		return w.why;
	wf_ws(&w);
	return w.p == w.end ? NULL : "text after the JSON value";
}

/* A reference after '&': "amp;", "#39;", "#x1F;". */
static inline bool wf_xml_ref(struct wf *w)
{
	const unsigned char *q = w->p + 1;
	if (q < w->end && *q == '#') {
		q++;
		bool hex = q < w->end && *q == 'x';
		q += hex;
		const unsigned char *d = q;
		while (q < w->end && (hex ? isxdigit(*q) : isdigit(*q)))
			q++;
		if (q == d)
			return wf_fail(w, "a bad character reference");
	} else {
		const unsigned char *d = q;
		while (q < w->end && (isalnum(*q) || *q == '_' || *q == '-'))
			q++;
		if (q == d)
			return wf_fail(w, "an '&' that starts no reference");
	}
	if (q >= w->end || *q != ';')
		return wf_fail(w, "a reference without its ';'");
	w->p = q + 1;
	return true;
}

/* One character of text or an attribute's value. */
static inline bool wf_xml_char(struct wf *w)
{
	if (*w->p == '&')
		return wf_xml_ref(w);
	if (*w->p < 0x20 && *w->p != '\t' && *w->p != '\n' && *w->p != '\r')
		return wf_fail(w, "a control character XML does not allow");
	uint32_t cp;
	size_t k = utf8_next(w->p, (size_t)(w->end - w->p), &cp);
	if (cp == UTF8_INVALID || cp == 0xFFFE || cp == 0xFFFF)
		return wf_fail(w, "a byte or character XML does not allow");
	w->p += k;
	return true;
}

static inline bool wf_xml_skip_to(struct wf *w, const char *end, const char *why)
{
	size_t n = strlen(end);
	while ((size_t)(w->end - w->p) >= n) {
		if (!memcmp(w->p, end, n)) {
			w->p += n;
			return true;
		}
		if (*w->p < 0x80) {
			w->p++;
		} else {
			uint32_t cp;
			size_t k = utf8_next(w->p, (size_t)(w->end - w->p), &cp);
			if (cp == UTF8_INVALID)
				return wf_fail(w, "invalid UTF-8 in XML");
			w->p += k;
		}
	}
	return wf_fail(w, why);
}

static inline size_t wf_xml_name(struct wf *w)
{
	const unsigned char *s = w->p;
	while (w->p < w->end && (isalnum(*w->p) || strchr("_:-.", *w->p)) && *w->p)
		w->p++;
	return (size_t)(w->p - s);
}

/* NULL when s[0..len) is well-formed XML (an XHTML page or an SVG). */
static inline const char *wf_xml(const char *s, size_t len)
{
	struct wf w = { (const unsigned char *)s, (const unsigned char *)s + len, NULL, 0 };
	const unsigned char *open[256];
	size_t openlen[256];
	int depth = 0, roots = 0;
	while (w.p < w.end && !w.why) {
		if (*w.p != '<') {
			if (!depth && !isspace(*w.p))
				return "text outside the root element";
			if (!wf_xml_char(&w))
				break;
			continue;
		}
		size_t left = (size_t)(w.end - w.p);
		if (left >= 4 && !memcmp(w.p, "<!--", 4)) {
			wf_xml_skip_to(&w, "-->", "a comment without its end");
		} else if (left >= 9 && !memcmp(w.p, "<![CDATA[", 9)) {
			if (!depth)
				wf_fail(&w, "CDATA outside the root");
			wf_xml_skip_to(&w, "]]>", "CDATA without its end");
		} else if (left >= 2 && (w.p[1] == '?' || w.p[1] == '!')) {
			if (depth)
				wf_fail(&w, "a declaration inside an element");
			wf_xml_skip_to(&w, ">", "a declaration without its end");
		} else if (left >= 2 && w.p[1] == '/') {
			w.p += 2;
			const unsigned char *name = w.p;
			size_t n = wf_xml_name(&w);
			wf_ws(&w);
			if (!depth || n != openlen[depth - 1] || memcmp(name, open[depth - 1], n))
				wf_fail(&w, "an end tag that closes no open element");
			else if (w.p >= w.end || *w.p != '>')
				wf_fail(&w, "an end tag without its '>'");
			else
				w.p++, depth--;
		} else {
			w.p++;
			const unsigned char *name = w.p;
			size_t n = wf_xml_name(&w);
			if (!n) {
				wf_fail(&w, "a '<' that starts no tag");
				break;
			}
			if (!depth && roots++)
				wf_fail(&w, "a second root element");
			bool empty = false;
			for (;;) {
				bool space = w.p < w.end && isspace(*w.p);
				wf_ws(&w);
				if (w.p >= w.end) {
					wf_fail(&w, "a tag without its end");
					break;
				}
				if (*w.p == '>') {
					w.p++;
					break;
				}
				if (*w.p == '/' && w.p + 1 < w.end && w.p[1] == '>') {
					w.p += 2;
					empty = true;
					break;
				}
				if (!space || !wf_xml_name(&w)) {
					wf_fail(&w, "a bad attribute");
					break;
				}
				wf_ws(&w);
				if (w.p >= w.end || *w.p != '=') {
					wf_fail(&w, "an attribute without '='");
					break;
				}
				w.p++;
				wf_ws(&w);
				if (w.p >= w.end || (*w.p != '"' && *w.p != '\'')) {
					wf_fail(&w, "an attribute's value not quoted");
					break;
				}
				unsigned char q = *w.p++;
				while (w.p < w.end && *w.p != q && !w.why) {
					if (*w.p == '<')
						wf_fail(&w, "a '<' in an attribute's value");
					else
						wf_xml_char(&w);
				}
				if (w.p >= w.end)
					wf_fail(&w, "an attribute's value without its end");
				else
					w.p++;
			}
			if (!empty && !w.why) {
				if (depth == 256)
					return "XML nested past 256";
				open[depth] = name;
				openlen[depth++] = n;
			}
		}
	}
	if (w.why)
		return w.why;
	if (depth)
		return "an element left open";
	return roots == 1 ? NULL : "no root element";
}

#endif
