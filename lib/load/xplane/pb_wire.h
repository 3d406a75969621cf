/*
 * pb_wire.h — the protobuf wire format, read field by field with every
 * length checked against its enclosing message.
 *
 * XLA's profiles are protobuf messages (XSpace); a generated parser would
 * need protoc and a runtime library, while the reader needs only a handful
 * of fields: a cursor over one message's fields is enough, and a damaged
 * file (truncated, lengths past the end, varints over 10 bytes) ends the
 * message being read instead of reading out of bounds.
 */
#ifndef KT_PB_WIRE_H
#define KT_PB_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct kt_pb {
    const uint8_t *p, *end;
    bool bad;          /* the message broke off (truncated or malformed) */
} kt_pb;

typedef struct kt_pb_field {
    uint32_t num;      /* field number                                 */
    int wire;          /* 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32 */
    uint64_t v;        /* varint or fixed value                        */
    kt_pb sub;         /* wire 2: the bytes (a nested message or text) */
} kt_pb_field;

static inline kt_pb kt_pb_of(const void *data, size_t len)
{
    return (kt_pb){ (const uint8_t *)data, (const uint8_t *)data + len, false };
}
/* The next field of m; false at its end or where it breaks (m->bad). */
bool kt_pb_next(kt_pb *m, kt_pb_field *f);
static inline size_t kt_pb_len(const kt_pb *m) { return (size_t)(m->end - m->p); }

#endif
