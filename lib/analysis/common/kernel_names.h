/*
 * kernel_names.h — short, readable kernel names that stay distinct.
 *
 * Full C++ kernel names run to kilobytes of template arguments; tables need
 * a short form.  Shortening must not merge distinct kernels into identical
 * rows (the seed analyzer showed two "CatArrayBatchedCopy<..." rows), so
 * display names are lengthened, then numbered, until they differ.
 */
#ifndef KT_KERNEL_NAMES_H
#define KT_KERNEL_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* Short form: no return type, template arguments, parameter lists or
 * namespaces ("void at::native::(anonymous namespace)::CatArrayBatchedCopy<
 * ...>(...)" → "CatArrayBatchedCopy").  A generic last component keeps
 * context ("cutlass::Kernel<cutlass_80_..._align1>" → "cutlass_80_..._align1",
 * "internal::gemvx::kernel<...>" → "gemvx::kernel").  Names without '<' or
 * '(' and memcpy/memset names are kept.  Returns a malloc'd string or NULL. */
char *kt_kernel_short_name(const char *name);
/* HTA's shorten_name (kt_shorten_name) in a malloc'd string; NULL when out
 * of memory.                                                               */
char *kt_hta_short_name(const char *name);

/* Display names for n distinct full names (in row order): the short form;
 * where short forms collide, short form + simplified template arguments;
 * where those collide too, " #1", " #2", ... in row order.  out[i] are
 * malloc'd.  Returns false on allocation failure (out then all NULL).     */
bool kt_kernel_display_names(const char *const *full, size_t n, char **out);

#endif
