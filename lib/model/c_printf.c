/*
 * c_printf.c — printf's text as in the C locale, whatever LC_NUMERIC the
 * host program set (json_number.h): machine text needs '.' as the radix.
 * The C locale is made current for the calling thread only, and restored.
 */
#include "json_number.h"

#include <locale.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); /* glibc: its static C locale, no allocation */
}

int kt_c_snprintf(char *b, size_t cap, const char *fmt, ...)
{
    pthread_once(&c_locale_once, make_c_locale);
    locale_t old = c_locale ? uselocale(c_locale) : (locale_t)0;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b, cap, fmt, ap);
    va_end(ap);
    if (c_locale) uselocale(old);
    return n;
}
