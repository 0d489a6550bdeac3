#ifndef CTK_JANSSON_SHIM_H
#define CTK_JANSSON_SHIM_H
#include <jansson.h>

/* json_decref, json_incref and json_typeof are inline functions or macros in jansson.h. */
static inline void ctk_json_decref(json_t *json) { json_decref(json); }
static inline json_t *ctk_json_incref(json_t *json) { return json_incref(json); }
static inline int ctk_json_typeof(const json_t *json) { return (int)json_typeof(json); }
/* json_object_foreach is a macro: iterate with iter/key/value helpers instead. */
static inline const char *ctk_json_object_iter_key(void *iter) { return json_object_iter_key(iter); }
static inline size_t ctk_json_object_iter_key_len(void *iter) { return json_object_iter_key_len(iter); }
#endif
