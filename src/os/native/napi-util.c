#define _GNU_SOURCE
#include "napi-util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAMED(name) {name, #name}

/* Every errno Linux defines, by name, as Node's system errors are coded. Where
 * two names share a number the first listed wins (EAGAIN, not EWOULDBLOCK). */
static const struct {
  int number;
  const char *name;
} ERRNO_NAMES[] = {
  NAMED(EPERM), NAMED(ENOENT), NAMED(ESRCH), NAMED(EINTR), NAMED(EIO), NAMED(ENXIO), NAMED(E2BIG), NAMED(ENOEXEC),
  NAMED(EBADF), NAMED(ECHILD), NAMED(EAGAIN), NAMED(ENOMEM), NAMED(EACCES), NAMED(EFAULT), NAMED(ENOTBLK),
  NAMED(EBUSY), NAMED(EEXIST), NAMED(EXDEV), NAMED(ENODEV), NAMED(ENOTDIR), NAMED(EISDIR), NAMED(EINVAL),
  NAMED(ENFILE), NAMED(EMFILE), NAMED(ENOTTY), NAMED(ETXTBSY), NAMED(EFBIG), NAMED(ENOSPC), NAMED(ESPIPE),
  NAMED(EROFS), NAMED(EMLINK), NAMED(EPIPE), NAMED(EDOM), NAMED(ERANGE), NAMED(EDEADLK), NAMED(ENAMETOOLONG),
  NAMED(ENOLCK), NAMED(ENOSYS), NAMED(ENOTEMPTY), NAMED(ELOOP), NAMED(ENOMSG), NAMED(EIDRM), NAMED(ECHRNG),
  NAMED(EL2NSYNC), NAMED(EL3HLT), NAMED(EL3RST), NAMED(ELNRNG), NAMED(EUNATCH), NAMED(ENOCSI), NAMED(EL2HLT),
  NAMED(EBADE), NAMED(EBADR), NAMED(EXFULL), NAMED(ENOANO), NAMED(EBADRQC), NAMED(EBADSLT), NAMED(EBFONT),
  NAMED(ENOSTR), NAMED(ENODATA), NAMED(ETIME), NAMED(ENOSR), NAMED(ENONET), NAMED(ENOPKG), NAMED(EREMOTE),
  NAMED(ENOLINK), NAMED(EADV), NAMED(ESRMNT), NAMED(ECOMM), NAMED(EPROTO), NAMED(EMULTIHOP), NAMED(EDOTDOT),
  NAMED(EBADMSG), NAMED(EOVERFLOW), NAMED(ENOTUNIQ), NAMED(EBADFD), NAMED(EREMCHG), NAMED(ELIBACC), NAMED(ELIBBAD),
  NAMED(ELIBSCN), NAMED(ELIBMAX), NAMED(ELIBEXEC), NAMED(EILSEQ), NAMED(ERESTART), NAMED(ESTRPIPE), NAMED(EUSERS),
  NAMED(ENOTSOCK), NAMED(EDESTADDRREQ), NAMED(EMSGSIZE), NAMED(EPROTOTYPE), NAMED(ENOPROTOOPT), NAMED(EPROTONOSUPPORT),
  NAMED(ESOCKTNOSUPPORT), NAMED(ENOTSUP), NAMED(EPFNOSUPPORT), NAMED(EAFNOSUPPORT), NAMED(EADDRINUSE),
  NAMED(EADDRNOTAVAIL), NAMED(ENETDOWN), NAMED(ENETUNREACH), NAMED(ENETRESET), NAMED(ECONNABORTED), NAMED(ECONNRESET),
  NAMED(ENOBUFS), NAMED(EISCONN), NAMED(ENOTCONN), NAMED(ESHUTDOWN), NAMED(ETOOMANYREFS), NAMED(ETIMEDOUT),
  NAMED(ECONNREFUSED), NAMED(EHOSTDOWN), NAMED(EHOSTUNREACH), NAMED(EALREADY), NAMED(EINPROGRESS), NAMED(ESTALE),
  NAMED(EUCLEAN), NAMED(ENOTNAM), NAMED(ENAVAIL), NAMED(EISNAM), NAMED(EREMOTEIO), NAMED(EDQUOT), NAMED(ENOMEDIUM),
  NAMED(EMEDIUMTYPE), NAMED(ECANCELED), NAMED(ENOKEY), NAMED(EKEYEXPIRED), NAMED(EKEYREVOKED), NAMED(EKEYREJECTED),
  NAMED(EOWNERDEAD), NAMED(ENOTRECOVERABLE), NAMED(ERFKILL),
};

const char *errno_name(int err) {
  for (size_t index = 0; index < sizeof ERRNO_NAMES / sizeof ERRNO_NAMES[0]; index++) {
    if (ERRNO_NAMES[index].number == err) return ERRNO_NAMES[index].name;
  }
  return "EUNKNOWN";
}

napi_value throw_errno(napi_env env, const char *call, int err) {
  char message[256];
  snprintf(message, sizeof message, "%s failed: %s (%s, errno %d)", call, strerror(err), errno_name(err), err);
  napi_value code, text, error, syscall;
  if (napi_create_string_utf8(env, errno_name(err), NAPI_AUTO_LENGTH, &code) != napi_ok ||
      napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &text) != napi_ok || napi_create_error(env, code, text, &error) != napi_ok ||
      napi_create_string_utf8(env, call, NAPI_AUTO_LENGTH, &syscall) != napi_ok ||
      napi_set_named_property(env, error, "syscall", syscall) != napi_ok) {
    napi_throw_error(env, errno_name(err), message);
    return NULL;
  }
  napi_throw(env, error);
  return NULL;
}

napi_value throw_message(napi_env env, const char *message) {
  napi_throw_error(env, NULL, message);
  return NULL;
}

bool read_args(napi_env env, napi_callback_info info, size_t count, napi_value *argv) {
  size_t argc = count;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) {
    throw_message(env, "could not read the arguments");
    return false;
  }
  return true;
}

static const char *type_name(napi_env env, napi_value value) {
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok) return "something unknown";
  switch (type) {
    case napi_undefined: return "undefined";
    case napi_null: return "null";
    case napi_boolean: return "a boolean";
    case napi_number: return "a number";
    case napi_string: return "a string";
    case napi_symbol: return "a symbol";
    case napi_object: return "an object";
    case napi_function: return "a function";
    case napi_external: return "an external";
    case napi_bigint: return "a bigint";
  }
  return "something unknown";
}

static bool is_type(napi_env env, napi_value value, napi_valuetype expected) {
  napi_valuetype type;
  return napi_typeof(env, value, &type) == napi_ok && type == expected;
}

/* TypeError("NAME must be EXPECTED, not TYPE"), code ERR_INVALID_ARG_TYPE. */
static bool wrong_type(napi_env env, napi_value value, const char *name, const char *expected) {
  char message[256];
  snprintf(message, sizeof message, "%s must be %s, not %s", name, expected, type_name(env, value));
  napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", message);
  return false;
}

bool read_integer(napi_env env, napi_value value, const char *name, int64_t minimum, int64_t maximum, int64_t *out) {
  double number;
  if (!is_type(env, value, napi_number) || napi_get_value_double(env, value, &number) != napi_ok) {
    return wrong_type(env, value, name, "an integer");
  }
  /* Written so that NaN fails too; in range first, so the cast below is defined. */
  if (!(number >= (double)minimum && number <= (double)maximum) || (double)(int64_t)number != number) {
    char message[256];
    snprintf(message, sizeof message, "%s must be an integer from %" PRId64 " to %" PRId64 ", not %g", name, minimum, maximum, number);
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", message);
    return false;
  }
  *out = (int64_t)number;
  return true;
}

bool read_int(napi_env env, napi_value value, const char *name, int minimum, int maximum, int *out) {
  int64_t number;
  if (!read_integer(env, value, name, minimum, maximum, &number)) return false;
  *out = (int)number;
  return true;
}

bool read_boolean(napi_env env, napi_value value, const char *name, bool *out) {
  if (!is_type(env, value, napi_boolean) || napi_get_value_bool(env, value, out) != napi_ok) return wrong_type(env, value, name, "a boolean");
  return true;
}

bool read_object(napi_env env, napi_value value, const char *name) {
  if (!is_type(env, value, napi_object)) return wrong_type(env, value, name, "an object");
  return true;
}

bool read_array(napi_env env, napi_value value, const char *name, uint32_t *length) {
  bool is_array = false;
  if (napi_is_array(env, value, &is_array) != napi_ok || !is_array || napi_get_array_length(env, value, length) != napi_ok) {
    return wrong_type(env, value, name, "an array");
  }
  return true;
}

bool read_function(napi_env env, napi_value value, const char *name) {
  if (!is_type(env, value, napi_function)) return wrong_type(env, value, name, "a function");
  return true;
}

bool read_string(napi_env env, napi_value value, const char *name, char **out) {
  size_t length;
  if (!is_type(env, value, napi_string) || napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) {
    return wrong_type(env, value, name, "a string");
  }
  char *text = malloc(length + 1);
  if (text == NULL) {
    throw_message(env, "out of memory");
    return false;
  }
  napi_get_value_string_utf8(env, value, text, length + 1, &length);
  /* A NUL inside would cut the string short where C reads it: refused, as Node refuses it in a spawn's argv. */
  if (strlen(text) != length) {
    free(text);
    char message[256];
    snprintf(message, sizeof message, "%s must be a string without NUL bytes", name);
    napi_throw_type_error(env, "ERR_INVALID_ARG_VALUE", message);
    return false;
  }
  *out = text;
  return true;
}

bool read_strings(napi_env env, napi_value value, const char *name, char ***out) {
  uint32_t length;
  if (!read_array(env, value, name, &length)) return false;
  char **strings = calloc((size_t)length + 1, sizeof *strings);
  if (strings == NULL) {
    throw_message(env, "out of memory");
    return false;
  }
  for (uint32_t index = 0; index < length; index++) {
    napi_value element;
    char element_name[256];
    snprintf(element_name, sizeof element_name, "%s[%u]", name, index);
    if (napi_get_element(env, value, index, &element) != napi_ok || !read_string(env, element, element_name, &strings[index])) {
      free_strings(strings);
      return false;
    }
  }
  *out = strings;
  return true;
}

void free_strings(char **strings) {
  if (strings == NULL) return;
  for (char **string = strings; *string != NULL; string++) free(*string);
  free(strings);
}

napi_status set_number(napi_env env, napi_value object, const char *name, int64_t value) {
  napi_value number;
  napi_status status = napi_create_int64(env, value, &number);
  if (status != napi_ok) return status;
  return napi_set_named_property(env, object, name, number);
}

void call_js(napi_env env, napi_async_context context, napi_value callback, size_t argc, napi_value *argv) {
  napi_value receiver, result;
  if (napi_get_global(env, &receiver) != napi_ok) return;
  if (napi_make_callback(env, context, receiver, callback, argc, argv, &result) == napi_ok) return;
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (!pending) return;
  napi_value error;
  napi_get_and_clear_last_exception(env, &error);
  napi_fatal_exception(env, error);
}
