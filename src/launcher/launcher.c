/*
 * sidecar-init's entrypoint, DIR/sidecar-init: a static program with no libc
 * at all (its own _start and system calls), so it starts in any Linux image,
 * glibc, musl, static or scratch. It finds the folder it was started from and
 * replaces itself (execve, so the PID stays: PID 1 stays PID 1) with the glibc
 * loader sidecar-init carries in DIR/sidecar-init.runtime/, running the single
 * executable there against the libraries beside it:
 *
 *   DIR/sidecar-init.runtime/ld-linux-ARCH.so.N --inhibit-cache
 *       --library-path DIR/sidecar-init.runtime --argv0 ARGV0
 *       DIR/sidecar-init.runtime/sidecar-init ARGS...
 *
 * The loader's options apply to this one process only: nothing is put into
 * the environment for the loader (no LD_LIBRARY_PATH, no LD_PRELOAD), so what
 * sidecar-init starts runs with the image's own environment and its own
 * loader. One variable tells the executable where this launcher is (what it
 * calls its own path, where its addon is beside it); the executable removes
 * it from its environment before anything else runs (scripts/build-binary.mjs).
 *
 * Before it execs, it checks that the folder holds the loader, the
 * executable and every library (RUNTIME_LIBRARIES): without a library the
 * loader would silently take the image's own from /lib, and without the
 * executable the user would get the loader's raw "cannot open shared object
 * file". It says which are missing and how to fix it.
 *
 * It has no limit of its own on arguments or variables: their pointer
 * arrays are mapped (mmap) at the size the kernel gave. What it adds (the
 * loader's options, its paths, one variable) can still push a command the
 * kernel just took over the kernel's limit: that is said as E2BIG, exit 126,
 * as a shell says it (docs/install.md states the limit).
 *
 * Built by scripts/build-runtime.mjs with -nostdlib -static: nothing of a C
 * library is linked in, so the same source gives the same bytes from the same
 * compiler, and no library's licence comes with it. The build passes
 * RUNTIME_LIBRARIES, the names it puts in the folder, as one list.
 */

#ifndef RUNTIME_LIBRARIES
#error "build with -DRUNTIME_LIBRARIES='\"libc.so.6\", ...' (scripts/build-runtime.mjs does)"
#endif

#define LAUNCHER_VARIABLE "SIDECAR_INIT_LAUNCHER="
#define RUNTIME_SUFFIX ".runtime/"
#define EXECUTABLE_NAME "sidecar-init"
#define PATH_BYTES 4096
/* What the launcher puts before the user's arguments: the loader, its five options and values, the executable. */
#define ADDED_ARGS 7
/* What a shell reports when a program cannot be run: as the kernel's own ENOENT would. */
#define EXIT_CANNOT_RUN 127
/* What a shell reports for a program found but not started (E2BIG: "Argument list too long"). */
#define EXIT_NOT_STARTED 126
#define E2BIG_ERRNO 7
#define ENOENT_ERRNO 2
#define EACCES_ERRNO 13
#define F_OK 0
#define PROT_READ 1
#define PROT_WRITE 2
#define MAP_PRIVATE 2
#define MAP_ANONYMOUS 0x20

#if defined(__x86_64__)
#define LOADER_NAME "ld-linux-x86-64.so.2"
#define SYS_write 1
#define SYS_mmap 9
#define SYS_execve 59
#define SYS_faccessat 269
#define SYS_exit_group 231
#define SYS_readlinkat 267
__asm__(".text\n"
        ".global _start\n"
        "_start:\n"
        "  xor %rbp, %rbp\n"
        "  mov %rsp, %rdi\n"
        "  and $-16, %rsp\n"
        "  call launch\n"
        "  hlt\n");

static long syscall3(long number, long a, long b, long c) {
  long result;
  __asm__ volatile("syscall" : "=a"(result) : "a"(number), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
  return result;
}

static long syscall4(long number, long a, long b, long c, long d) {
  long result;
  register long r10 __asm__("r10") = d;
  __asm__ volatile("syscall" : "=a"(result) : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
  return result;
}

static long syscall6(long number, long a, long b, long c, long d, long e, long f) {
  long result;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  __asm__ volatile("syscall" : "=a"(result) : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9) : "rcx", "r11", "memory");
  return result;
}
#elif defined(__aarch64__)
#define LOADER_NAME "ld-linux-aarch64.so.1"
#define SYS_faccessat 48
#define SYS_readlinkat 78
#define SYS_write 64
#define SYS_mmap 222
#define SYS_exit_group 94
#define SYS_execve 221
__asm__(".text\n"
        ".global _start\n"
        "_start:\n"
        "  mov x29, #0\n"
        "  mov x30, #0\n"
        "  mov x0, sp\n"
        "  bl launch\n"
        "  brk #0\n");

static long syscall4(long number, long a, long b, long c, long d) {
  register long x8 __asm__("x8") = number;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
  return x0;
}

static long syscall6(long number, long a, long b, long c, long d, long e, long f) {
  register long x8 __asm__("x8") = number;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  register long x4 __asm__("x4") = e;
  register long x5 __asm__("x5") = f;
  __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
  return x0;
}

static long syscall3(long number, long a, long b, long c) {
  return syscall4(number, a, b, c, 0);
}
#else
#error "sidecar-init's launcher is built for x86-64 and arm64 only"
#endif

#define AT_FDCWD (-100)

static unsigned long length(const char *text) {
  unsigned long count = 0;
  while (text[count] != '\0') count += 1;
  return count;
}

static int starts_with(const char *text, const char *prefix) {
  for (; *prefix != '\0'; prefix += 1, text += 1) {
    if (*text != *prefix) return 0;
  }
  return 1;
}

/* Appends `text` at `*end` within `buffer` of PATH_BYTES; 0 if it does not fit. */
static int append(char *buffer, unsigned long *end, const char *text) {
  unsigned long size = length(text);
  if (*end + size + 1 > PATH_BYTES) return 0;
  for (unsigned long index = 0; index < size; index += 1) buffer[*end + index] = text[index];
  *end += size;
  buffer[*end] = '\0';
  return 1;
}

static void say(const char *text) {
  syscall3(SYS_write, 2, (long)text, (long)length(text));
}

__attribute__((noreturn)) static void fail_with(int code, const char *what, const char *path, const char *fix) {
  say("sidecar-init: ");
  say(what);
  if (path != 0) {
    say(" ");
    say(path);
  }
  say("; ");
  say(fix);
  say("\n");
  syscall3(SYS_exit_group, code, 0, 0);
  __builtin_unreachable();
}

__attribute__((noreturn)) static void fail(const char *what, const char *path, const char *fix) {
  fail_with(EXIT_CANNOT_RUN, what, path, fix);
}

/* A zeroed, private mapping of `bytes`, for the pointer arrays; 0 when the kernel has none to give. */
static void *map(unsigned long bytes) {
  long address = syscall6(SYS_mmap, 0, (long)bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return address < 0 && address > -4096 ? 0 : (void *)address;
}

static int exists(const char *path) {
  return syscall4(SYS_faccessat, AT_FDCWD, (long)path, F_OK, 0) == 0;
}

static const char *const LIBRARIES[] = {RUNTIME_LIBRARIES};

/*
 * Every file the runtime folder must hold, checked before the exec: the
 * loader, the executable and each library. A folder that is not there at all
 * is said as such; one that lacks files names each, in one line.
 */
static void check_runtime(const char *runtime, const char *loader, const char *executable) {
  if (!exists(runtime)) {
    fail("cannot start: the glibc runtime it carries is missing:", loader,
         "copy the sidecar-init.runtime folder beside sidecar-init (sidecar-init install DIR writes both)");
  }
  static char path[PATH_BYTES];
  int missing = 0;
  const char *names[2 + sizeof LIBRARIES / sizeof LIBRARIES[0]];
  unsigned long count = 0;
  names[count++] = loader;
  names[count++] = executable;
  for (unsigned long index = 0; index < sizeof LIBRARIES / sizeof LIBRARIES[0]; index += 1) names[count++] = LIBRARIES[index];
  for (unsigned long index = 0; index < count; index += 1) {
    /* The loader and the executable are whole paths already; a library is a name in the folder. */
    const char *checked = names[index];
    if (index >= 2) {
      unsigned long end = 0;
      if (!append(path, &end, runtime) || !append(path, &end, names[index])) continue;
      checked = path;
    }
    if (exists(checked)) continue;
    say(missing == 0 ? "sidecar-init: cannot start: its runtime folder " : ", ");
    if (missing == 0) {
      say(runtime);
      say(" lacks ");
    }
    const char *name = names[index];
    for (const char *cursor = name; *cursor != '\0'; cursor += 1) {
      if (*cursor == '/') name = cursor + 1;
    }
    say(name);
    missing += 1;
  }
  if (missing > 0) {
    say(" (without them the loader would take the image's own libraries, or fail); reinstall with sidecar-init install DIR\n");
    syscall3(SYS_exit_group, EXIT_CANNOT_RUN, 0, 0);
  }
}

/*
 * This program's own path: /proc/self/exe, which is absolute and names the
 * file whatever argv[0] says; without /proc (a bare chroot), argv[0] when it
 * is a path.
 */
static void own_path(char *buffer, const char *argv0) {
  long size = syscall4(SYS_readlinkat, AT_FDCWD, (long)"/proc/self/exe", (long)buffer, PATH_BYTES - 1);
  if (size > 0 && size < PATH_BYTES - 1) {
    buffer[size] = '\0';
    return;
  }
  unsigned long end = 0;
  int is_path = 0;
  for (const char *cursor = argv0; cursor != 0 && *cursor != '\0'; cursor += 1) is_path |= *cursor == '/';
  if (!is_path || !append(buffer, &end, argv0)) {
    fail("cannot find the folder it was started from: /proc is not mounted and it was started by the name", argv0,
         "start it by its path (e.g. /opt/sidecar-init/sidecar-init), or mount /proc");
  }
}

static char self[PATH_BYTES];
static char runtime[PATH_BYTES];
static char loader[PATH_BYTES];
static char executable[PATH_BYTES];
static char variable[PATH_BYTES + sizeof(LAUNCHER_VARIABLE)];

__attribute__((noreturn, used)) void launch(long *stack) {
  long argc = stack[0];
  char **argv = (char **)(stack + 1);
  char **envp = argv + argc + 1;
  long envc = 0;
  while (envp[envc] != 0) envc += 1;
  /* As many as the kernel gave, plus ours and the NULLs. */
  char **arguments = map((unsigned long)(argc + ADDED_ARGS + 1) * sizeof(char *));
  char **environment = map((unsigned long)(envc + 2) * sizeof(char *));
  if (arguments == 0 || environment == 0) fail("cannot start: no memory for its arguments", 0, "give the container more memory");

  own_path(self, argc > 0 ? argv[0] : 0);
  unsigned long end = 0;
  if (!append(runtime, &end, self) || !append(runtime, &end, RUNTIME_SUFFIX)) fail("cannot start: path too long:", self, "install it at a shorter path");
  end = 0;
  if (!append(loader, &end, runtime) || !append(loader, &end, LOADER_NAME)) fail("cannot start: path too long:", self, "install it at a shorter path");
  end = 0;
  if (!append(executable, &end, runtime) || !append(executable, &end, EXECUTABLE_NAME)) fail("cannot start: path too long:", self, "install it at a shorter path");
  end = 0;
  append(variable, &end, LAUNCHER_VARIABLE);
  append(variable, &end, self);

  long count = 0;
  arguments[count++] = loader;
  arguments[count++] = "--inhibit-cache";
  arguments[count++] = "--library-path";
  arguments[count++] = runtime;
  arguments[count++] = "--argv0";
  arguments[count++] = argc > 0 ? argv[0] : executable;
  arguments[count++] = executable;
  for (long index = 1; index < argc; index += 1) arguments[count++] = argv[index];
  arguments[count] = 0;

  /* The environment as given, but for a variable of that name (only this launcher sets it), then ours. */
  long kept = 0;
  for (char **entry = envp; *entry != 0; entry += 1) {
    if (!starts_with(*entry, LAUNCHER_VARIABLE)) environment[kept++] = *entry;
  }
  environment[kept++] = variable;
  environment[kept] = 0;

  check_runtime(runtime, loader, executable);
  long error = -syscall3(SYS_execve, (long)loader, (long)arguments, (long)environment);
  if (error == E2BIG_ERRNO) {
    fail_with(EXIT_NOT_STARTED,
              "cannot start: its arguments and environment are too long for the kernel (E2BIG, \"Argument list too long\") once it adds "
              "the loader's options, its paths and SIDECAR_INIT_LAUNCHER to them:",
              runtime, "pass fewer or shorter arguments or variables, or raise the stack limit (ulimit -s; the kernel takes a quarter of it)");
  }
  if (error == ENOENT_ERRNO) {
    fail("cannot start: the glibc runtime it carries is missing:", loader,
         "copy the sidecar-init.runtime folder beside sidecar-init (sidecar-init install DIR writes both)");
  }
  if (error == EACCES_ERRNO) fail("cannot start: permission denied (or mounted noexec):", loader, "mount its folder executable");
  fail("cannot start the loader it carries:", loader, "reinstall with sidecar-init install DIR");
}
