/* index_stub.c — placeholder until the indexes land (delete when replaced). */
#include "index.h"
#include <stdlib.h>
void kt_index_free(kt_index *idx) { free(idx); }
