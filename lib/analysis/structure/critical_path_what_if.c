/*
 * critical_path_what_if.c — see critical_path_what_if.h.
 */
#include "analysis/structure/critical_path_what_if.h"
#include "model/json_number.h"

#include <stdio.h>
#include <stdlib.h>

static const struct {
    const char *name;
    cp_class cls;
} class_names[] = {
    { "launch", CP_CLASS_LAUNCH }, { "kernel_gap", CP_CLASS_KERNEL_GAP }, { "cpu", CP_CLASS_CPU },
    { "gpu", CP_CLASS_GPU },       { "comm", CP_CLASS_COMM },
};

static bool parse_term(const char *s, size_t len, cp_scenario *sc, char *err, size_t errlen)
{
    const char *eq = memchr(s, '=', len);
    size_t nlen = eq ? (size_t)(eq - s) : len;
    for (size_t i = 0; eq && i < sizeof class_names / sizeof *class_names; i++) {
        if (strlen(class_names[i].name) != nlen || strncmp(s, class_names[i].name, nlen)) continue;
        char num[32];
        size_t vlen = len - nlen - 1;
        if (vlen == 0 || vlen >= sizeof num) break;
        memcpy(num, eq + 1, vlen);
        num[vlen] = '\0';
        kt_num v;
        if (kt_parse_number(num, num + vlen, &v) != num + vlen || !(v.f >= 0) || v.f > 1e6) break;
        double f = v.f;
        sc->scale[class_names[i].cls] = f;
        return true;
    }
    snprintf(err, errlen, "--what-if: bad term \"%.*s\" (want CLASS=FACTOR, CLASS one of launch, kernel_gap, "
             "cpu, gpu, comm, FACTOR >= 0)", (int)len, s);
    return false;
}

static bool parse_scenario(const char *s, size_t len, cp_scenario *sc, char *err, size_t errlen)
{
    for (int c = 0; c < CP__NCLASSES; c++) sc->scale[c] = 1.0;
    if (len == 0) {
        snprintf(err, errlen, "--what-if: empty scenario");
        return false;
    }
    snprintf(sc->text, sizeof sc->text, "%.*s", (int)len, s);
    const char *end = s + len;
    while (s < end) {
        const char *plus = memchr(s, '+', (size_t)(end - s));
        const char *stop = plus ? plus : end;
        if (!parse_term(s, (size_t)(stop - s), sc, err, errlen)) return false;
        s = plus ? plus + 1 : end;
    }
    return true;
}

kt_status cp_parse_what_if(const char *text, cp_scenario *out, size_t *n, char *err, size_t errlen)
{
    *n = 0;
    if (!text) return KT_OK;
    const char *s = text, *end = text + strlen(text);
    do {
        const char *comma = strchr(s, ',');
        const char *stop = comma ? comma : end;
        if (*n == CP_MAX_SCENARIOS) {
            snprintf(err, errlen, "--what-if: at most %d scenarios", CP_MAX_SCENARIOS);
            return KT_EUSAGE;
        }
        if (!parse_scenario(s, (size_t)(stop - s), &out[*n], err, errlen)) return KT_EUSAGE;
        (*n)++;
        s = comma ? comma + 1 : end;
    } while (s < end);
    return KT_OK;
}
