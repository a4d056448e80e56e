/*
 * Shared libraries loaded on first use.  libarchive, libcrypto, the CUDA
 * runtime and NCCL serve one feature each (an archive input, --sha256,
 * replay): linked into hangdoc they cost every run their resident memory
 * and, for CUDA, stop the binary starting where the library is missing.
 * A user describes its library and the functions it calls once, as a
 * static struct hd_dl, and calls hd_dl_load() before the first call; the
 * library is opened and its symbols resolved at most once per process,
 * whichever thread asks first, and a failure is kept and given again to
 * every later caller.  The library is never closed.
 *
 * Ownership: a struct hd_dl lives as long as the process (a static).
 */
#ifndef HD_DL_H
#define HD_DL_H

#include <stdbool.h>
#include <glib.h>

/*
 * One function to resolve: its name in the library, and where its address
 * goes, the address of a function pointer of the function's own type
 * (declared with __typeof__(function) *, so that calls through it keep the
 * prototype the library's header gives).
 */
struct hd_dl_sym {
	const char *name;
	void *slot;
};

/*
 * For a user's X-macro list of the functions it calls: a pointer of each
 * function's own type, as a member of the user's struct var, and its
 * entry in the syms table.  A name a header maps to another (cudaMemset
 * to cudaMemset_ptds) is looked up by the name it maps to.
 */
#define HD_DL_POINTER(f)  __typeof__(f) *f;
#define HD_DL_SYM(var, f) { G_STRINGIFY(f), &(var).f },

/*
 * A library and what its user needs of it.  soname is what configure
 * found the build links against (HD_LIBARCHIVE_SONAME and the like in
 * config.h); dir, when not NULL, is a folder tried first, as dir/soname,
 * before the loader's own search by soname.  syms ends with a NULL name.
 * The rest is hd_dl_load()'s.
 */
struct hd_dl {
	const char *soname;
	const char *dir;
	const struct hd_dl_sym *syms;
	gsize state; /* 0 not tried yet; then one of hd-dl.c's states */
	char *error; /* why loading failed, set once */
	int loaded; /* atomic: the symbols are resolved */
};

/*
 * Opens dl's library and fills every slot of dl->syms, the first time it
 * is called for dl; thread-safe.  False, with error set (HD_ERROR_
 * UNSUPPORTED) naming the library and what the dynamic loader said, when
 * the library could not be opened or lacks a symbol (which is named); no
 * slot may then be called.
 */
bool hd_dl_load(struct hd_dl *dl, GError **error);

/*
 * Whether hd_dl_load() has succeeded for dl, without loading anything:
 * for cleanups that have nothing to do when the library was never used.
 */
bool hd_dl_loaded(struct hd_dl *dl);

#endif
