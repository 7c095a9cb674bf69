/*
 * utf8: reading workload text as UTF-8, and cutting it on a character's
 * boundary.
 */
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"

size_t utf8_next(const unsigned char *p, size_t n, uint32_t *cp)
{
	unsigned char b = p[0];
	*cp = UTF8_INVALID;
	if (b < 0x80) {
		*cp = b;
		return 1;
	}
	/* The length a lead byte announces, and the range its second byte
	 * must fall in (narrower where overlong forms, surrogates or code
	 * points past U+10FFFF would start). */
	size_t len;
	unsigned char lo = 0x80, hi = 0xBF;
	if (b >= 0xC2 && b <= 0xDF)
		len = 2;
	else if (b >= 0xE0 && b <= 0xEF)
		len = 3, lo = b == 0xE0 ? 0xA0 : 0x80, hi = b == 0xED ? 0x9F : 0xBF;
	else if (b >= 0xF0 && b <= 0xF4)
		len = 4, lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
	else
		return 1;
	uint32_t v = b & (0x7F >> len);
	size_t i = 1;
	for (; i < len && i < n; i++) {
		unsigned char c = p[i];
		if (i == 1 ? c < lo || c > hi : (c & 0xC0) != 0x80)
			return i;
		v = v << 6 | (c & 0x3F);
	}
	if (i < len)
		return i;
	*cp = v;
	return len;
}

size_t utf8_next_str(const unsigned char *p, uint32_t *cp)
{
	size_t n = 1;
	while (n < 4 && p[n])
		n++;
	return utf8_next(p, n, cp);
}

size_t utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;
	while (o < len) {
		uint32_t cp;
		size_t k = utf8_next(p + o, len - o, &cp);
		if (o + k > max)
			break;
		o += k;
	}
	return o;
}

size_t utf8_trim_cut(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;
	while (o < len) {
		uint32_t cp;
		size_t k = utf8_next(p + o, len - o, &cp);
		/* an invalid piece that runs to the end and starts with a lead
		 * byte: the start of a character whose rest was cut */
		if (cp == UTF8_INVALID && o + k == len && p[o] >= 0xC2 && p[o] <= 0xF4) {
			unsigned char b = p[o];
			size_t want = b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
			if (k < want)
				return o;
		}
		o += k;
	}
	return len;
}

bool utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t o = 0; o < len;) {
		uint32_t cp;
		size_t k = utf8_next(p + o, len - o, &cp);
		if (cp == UTF8_INVALID)
			return false;
		o += k;
	}
	return true;
}

void utf8_put(FILE *fp, uint32_t cp)
{
	if (cp < 0x80) {
		fputc((int)cp, fp);
	} else if (cp < 0x800) {
		fputc((int)(0xC0 | cp >> 6), fp);
		fputc((int)(0x80 | (cp & 0x3F)), fp);
	} else if (cp < 0x10000) {
		fputc((int)(0xE0 | cp >> 12), fp);
		fputc((int)(0x80 | (cp >> 6 & 0x3F)), fp);
		fputc((int)(0x80 | (cp & 0x3F)), fp);
	} else {
		fputc((int)(0xF0 | cp >> 18), fp);
		fputc((int)(0x80 | (cp >> 12 & 0x3F)), fp);
		fputc((int)(0x80 | (cp >> 6 & 0x3F)), fp);
		fputc((int)(0x80 | (cp & 0x3F)), fp);
	}
}

void utf8_put_shown(FILE *fp, uint32_t cp)
{
	utf8_put(fp, cp == UTF8_INVALID ? UTF8_REPLACEMENT : cp);
}

char *utf8_clean(const char *s)
{
	if (!s)
		return NULL;
	size_t len = strlen(s);
	/* An invalid piece is one byte or more; each becomes three. */
	char *out = malloc(len * 3 + 1);
	if (!out)
		return NULL;
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t k = utf8_next(p + i, len - i, &cp);
		if (cp == UTF8_INVALID) {
			memcpy(out + o, "\xEF\xBF\xBD", 3);
			o += 3;
		} else {
			memcpy(out + o, s + i, k);
			o += k;
		}
		i += k;
	}
	out[o] = '\0';
	return out;
}
