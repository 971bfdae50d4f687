/*
 * trimMemory(): boolean. Hands the free pages of malloc's arenas back to the
 * kernel (malloc_trim(0)). Whatever the start allocated and freed (V8's parser
 * and compiler zones, mostly) stays resident and private otherwise: free()
 * returns memory only from the top of the heap, and the start's leftovers sit
 * below what is still in use. True when some memory was released; always false
 * where the C library has no malloc_trim (the addon is built for glibc).
 */
#include <malloc.h>

#include <node_api.h>

#include "addon.h"

static napi_value trim_memory(napi_env env, napi_callback_info info) {
  (void)info;
#ifdef __GLIBC__
  int released = malloc_trim(0);
#else
  int released = 0;
#endif
  napi_value value;
  if (napi_get_boolean(env, released != 0, &value) != napi_ok) return NULL;
  return value;
}

napi_status define_memory_trim(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
    {"trimMemory", NULL, trim_memory, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
}
