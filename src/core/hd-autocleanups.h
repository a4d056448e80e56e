/*
 * g_autoptr() support for the library types hangdoc holds.
 */
#ifndef HD_AUTOCLEANUPS_H
#define HD_AUTOCLEANUPS_H

#include <glib.h>
#include <jansson.h>
#include <cjson/cJSON.h>
#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <pcre2.h>

G_DEFINE_AUTOPTR_CLEANUP_FUNC(pcre2_code, pcre2_code_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(pcre2_match_data, pcre2_match_data_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(json_t, json_decref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(cJSON, cJSON_Delete)

#endif
