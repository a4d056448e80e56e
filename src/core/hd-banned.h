/*
 * Functions that have no place in hangdoc (unbounded copies, static buffers,
 * locale-sensitive time, numbers read from input with no error and no range:
 * use g_ascii_strtoll() and check the end and the range); included last so
 * a use fails to compile (git).
 */
#ifndef HD_BANNED_H
#define HD_BANNED_H

#define HD_BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) HD_BANNED(strcpy)
#undef strcat
#define strcat(x, y) HD_BANNED(strcat)
#undef sprintf
#define sprintf(...) HD_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) HD_BANNED(vsprintf)
#undef strtok
#define strtok(x, y) HD_BANNED(strtok)
#undef gmtime
#define gmtime(t) HD_BANNED(gmtime)
#undef localtime
#define localtime(t) HD_BANNED(localtime)
#undef atoi
#define atoi(s) HD_BANNED(atoi)
#undef atol
#define atol(s) HD_BANNED(atol)
#undef atoll
#define atoll(s) HD_BANNED(atoll)
#undef atof
#define atof(s) HD_BANNED(atof)

#endif
