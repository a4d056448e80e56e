/*
 * Libraries loaded on first use, with dlopen() and dlsym().  RTLD_NOW: a
 * library whose own dependencies are missing fails here, with the
 * loader's reason, instead of at some later call.  RTLD_LOCAL: its
 * symbols stay out of the global scope, where they could satisfy another
 * library's references by accident.
 */
#include "config.h"

#include "hd-dl.h"

#include <dlfcn.h>
#include <string.h>

#include "hd-error.h"
#include "hd-banned.h"

enum { DL_OK = 1, DL_FAILED };

/*
 * C converts a void * to a function pointer only by a cast that pedantic
 * compilers refuse; POSIX makes them the same size, so dlsym()'s result
 * is copied into the slot instead.
 */
G_STATIC_ASSERT(sizeof(void *) == sizeof(void (*)(void)));

/* dlerror()'s text, never NULL. */
static const char *dl_why(void)
{
	const char *e = dlerror();

	return e ? e : "no reason given";
}

/* dir/soname when dir is given, else (or then) soname; why says why not. */
static void *dl_open(const struct hd_dl *dl, GString *why)
{
	void *h;

	if (dl->dir) {
		g_autofree char *path =
			g_build_filename(dl->dir, dl->soname, NULL);

		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (h)
			return h;
		g_string_append_printf(why, "%s; ", dl_why());
	}
	h = dlopen(dl->soname, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		g_string_append(why, dl_why());
	return h;
}

/* Empties every slot, so that a call through one faults plainly. */
static void dl_clear(const struct hd_dl *dl)
{
	void *none = NULL;

	for (const struct hd_dl_sym *s = dl->syms; s->name; s++)
		memcpy(s->slot, &none, sizeof(none));
}

/* Fills every slot from h; false at the first name h lacks. */
static bool dl_resolve(const struct hd_dl *dl, void *h, GString *why)
{
	for (const struct hd_dl_sym *s = dl->syms; s->name; s++) {
		void *p;

		dlerror(); /* only the error of this dlsym() */
		p = dlsym(h, s->name);
		if (!p) {
			g_string_append_printf(why, "no function %s (%s)",
					       s->name, dl_why());
			return false;
		}
		memcpy(s->slot, &p, sizeof(p));
	}
	return true;
}

/* The one attempt: DL_OK, or DL_FAILED with dl->error set. */
static gsize dl_try(struct hd_dl *dl)
{
	g_autoptr(GString) why = g_string_new(NULL);
	void *h = dl_open(dl, why);

	if (h && dl_resolve(dl, h, why)) {
		g_atomic_int_set(&dl->loaded, 1);
		return DL_OK;
	}
	if (h) {
		dl_clear(dl);
		dlclose(h);
	}
	dl->error = g_strdup_printf("cannot load %s: %s", dl->soname, why->str);
	return DL_FAILED;
}

bool hd_dl_load(struct hd_dl *dl, GError **error)
{
	/* the first caller tries; the others wait for it and see its result */
	if (g_once_init_enter(&dl->state))
		g_once_init_leave(&dl->state, dl_try(dl));
	if (dl->state == DL_OK)
		return true;
	g_set_error_literal(error, HD_ERROR, HD_ERROR_UNSUPPORTED, dl->error);
	return false;
}

bool hd_dl_loaded(struct hd_dl *dl)
{
	return g_atomic_int_get(&dl->loaded) != 0;
}
