/*
 * pb_wire.c — protobuf wire fields with bounds checks (pb_wire.h).
 */
#include "pb_wire.h"

#include <string.h>

static bool varint(kt_pb *m, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70 && m->p < m->end; shift += 7) {
        uint8_t b = *m->p++;
        if (shift == 63 && b > 1) break; /* more than 64 bits */
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return true;
        }
    }
    m->bad = true;
    return false;
}

bool kt_pb_next(kt_pb *m, kt_pb_field *f)
{
    if (m->bad || m->p >= m->end) return false;
    uint64_t key;
    if (!varint(m, &key)) return false;
    f->num = (uint32_t)(key >> 3);
    f->wire = (int)(key & 7);
    switch (f->wire) {
    case 0: return varint(m, &f->v);
    case 1: case 5: {
        size_t n = f->wire == 1 ? 8 : 4;
        if (kt_pb_len(m) < n) break;
        uint64_t v = 0;
        memcpy(&v, m->p, n); /* little-endian hosts */
        f->v = v;
        m->p += n;
        return true;
    }
    case 2: {
        uint64_t n;
        if (!varint(m, &n) || n > kt_pb_len(m)) break;
        f->sub = kt_pb_of(m->p, (size_t)n);
        m->p += n;
        return true;
    }
    default: break; /* groups (3, 4) and unknown wire types */
    }
    m->bad = true;
    return false;
}
