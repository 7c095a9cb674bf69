/*
 * json_tree: a small JSON reader for tests that check a document's
 * structure (keys, types, how lists relate), not only that it is well
 * formed (fuzz/wellformed.h checks that, as json.loads would). Parses
 * RFC 8259 JSON into a tree; strings keep their escapes decoded to
 * UTF-8. Header-only, like test_util.h; not for untrusted sizes (it
 * recurses once per nesting level).
 */
#ifndef TESTS_JSON_TREE_H
#define TESTS_JSON_TREE_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum jt_type { JT_NULL, JT_BOOL, JT_NUM, JT_STR, JT_ARR, JT_OBJ };

struct jt {
	enum jt_type type;
	bool b;
	double num;
	char *str;		/* JT_STR */
	size_t n;		/* JT_ARR, JT_OBJ: items */
	struct jt *items;
	char **keys;		/* JT_OBJ: one per item */
};

struct jt_parser {
	const char *p;
	bool bad;
};

static inline void jt_release(struct jt *v)
{
	for (size_t i = 0; i < v->n; i++) {
		jt_release(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	memset(v, 0, sizeof(*v));
}

static inline void jt_ws(struct jt_parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
}

/* A code point as UTF-8 onto out. */
static inline size_t jt_utf8(unsigned cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static inline char *jt_string(struct jt_parser *ps)
{
	if (*ps->p != '"') {
		ps->bad = true;
		return NULL;
	}
	ps->p++;
	size_t cap = strlen(ps->p) + 1, n = 0;
	char *out = malloc(cap);
	while (out && *ps->p && *ps->p != '"') {
		unsigned char c = (unsigned char)*ps->p++;
		if (c < 0x20) {
			ps->bad = true;
			break;
		}
		if (c != '\\') {
			out[n++] = (char)c;
			continue;
		}
		char e = *ps->p;
		if (!e) {
			ps->bad = true;
			break;
		}
		ps->p++;
		const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
		const char *k = strchr(from, e);
		if (k) {
			out[n++] = to[k - from];
		} else if (e == 'u') {
			char hex[5] = { 0 };
			memcpy(hex, ps->p, strnlen(ps->p, 4));
			char *end;
			unsigned cp = (unsigned)strtoul(hex, &end, 16);
			if (end != hex + 4) {
				ps->bad = true;
				break;
			}
			ps->p += 4;
			n += jt_utf8(cp, out + n);	/* a surrogate as it is */
		} else {
			ps->bad = true;
			break;
		}
	}
	if (!out || *ps->p != '"')
		ps->bad = true;
	else
		ps->p++;
	if (out)
		out[n] = '\0';
	return out;
}

static inline void jt_value(struct jt_parser *ps, struct jt *v, int depth);

/* The items of an array or object, after its opening bracket. */
static inline void jt_items(struct jt_parser *ps, struct jt *v, bool obj, int depth)
{
	char close = obj ? '}' : ']';
	jt_ws(ps);
	if (*ps->p == close) {
		ps->p++;
		return;
	}
	size_t cap = 0;
	while (!ps->bad) {
		if (v->n == cap) {
			cap = cap ? 2 * cap : 8;
			v->items = realloc(v->items, cap * sizeof(*v->items));
			if (obj)
				v->keys = realloc(v->keys, cap * sizeof(*v->keys));
		}
		jt_ws(ps);
		if (obj) {
			v->keys[v->n] = jt_string(ps);
			jt_ws(ps);
			if (*ps->p == ':')
				ps->p++;
			else
				ps->bad = true;
		}
		memset(&v->items[v->n], 0, sizeof(*v->items));
		v->n++;
		if (!ps->bad)
			jt_value(ps, &v->items[v->n - 1], depth + 1);
		jt_ws(ps);
		if (*ps->p == ',') {
			ps->p++;
		} else if (*ps->p == close) {
			ps->p++;
			return;
		} else {
			ps->bad = true;
		}
	}
}

static inline void jt_value(struct jt_parser *ps, struct jt *v, int depth)
{
	jt_ws(ps);
	const char *p = ps->p;
	if (depth > 64) {
		ps->bad = true;
	} else if (*p == '{' || *p == '[') {
		v->type = *p == '{' ? JT_OBJ : JT_ARR;
		ps->p++;
		jt_items(ps, v, *p == '{', depth);
	} else if (*p == '"') {
		v->type = JT_STR;
		v->str = jt_string(ps);
	} else if (!strncmp(p, "true", 4) || !strncmp(p, "false", 5)) {
		v->type = JT_BOOL;
		v->b = *p == 't';
		ps->p += v->b ? 4 : 5;
	} else if (!strncmp(p, "null", 4)) {
		v->type = JT_NULL;
		ps->p += 4;
	} else if (*p == '-' || (*p >= '0' && *p <= '9')) {
		char *end;
		v->type = JT_NUM;
		v->num = strtod(p, &end);
		ps->bad |= end == p;
		ps->p = end;
	} else {
		ps->bad = true;
	}
}

/* Parse text into *out: true, or false (and *out released) when it is
 * not one JSON value. */
static inline bool jt_parse(const char *text, struct jt *out)
{
	struct jt_parser ps = { text, false };
	memset(out, 0, sizeof(*out));
	jt_value(&ps, out, 0);
	jt_ws(&ps);
	if (ps.bad || *ps.p) {
		jt_release(out);
		return false;
	}
	return true;
}

/* The member key of an object, or NULL (also when v is no object). */
static inline const struct jt *jt_get(const struct jt *v, const char *key)
{
	if (!v || v->type != JT_OBJ)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (v->keys[i] && !strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

/* jt_get's member when it has type t, else NULL. */
static inline const struct jt *jt_get_type(const struct jt *v, const char *key,
					   enum jt_type t)
{
	const struct jt *m = jt_get(v, key);
	return m && m->type == t ? m : NULL;
}

#endif
