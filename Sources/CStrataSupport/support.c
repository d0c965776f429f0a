#define _GNU_SOURCE
#include "CStrataSupport.h"
#include <fcntl.h>
#include <string.h>
#include <grp.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>
#include <errno.h>
#include <time.h>
#include <sys/vfs.h>

#if defined(__x86_64__)
#include <cpuid.h>
int strata_crc32c_hardware_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    return (ecx & bit_SSE4_2) != 0;
}

__attribute__((target("sse4.2")))
uint32_t strata_crc32c_hardware_update(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = (const unsigned char *)bytes;
    uint64_t c = crc;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = __builtin_ia32_crc32di(c, word);
        p += 8;
        count -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (count > 0) {
        c32 = __builtin_ia32_crc32qi(c32, *p);
        p += 1;
        count -= 1;
    }
    return c32;
}
#else
int strata_crc32c_hardware_available(void) { return 0; }
uint32_t strata_crc32c_hardware_update(uint32_t crc, const void *bytes, size_t count) {
    (void)bytes; (void)count;
    return crc;  // never called: availability is 0
}
#endif

int strata_f_ofd_getlk(void) { return F_OFD_GETLK; }
int strata_f_ofd_setlk(void) { return F_OFD_SETLK; }
int strata_f_ofd_setlkw(void) { return F_OFD_SETLKW; }

int strata_is_tmpfs_with_room(const char *path, uint64_t free_bytes) {
    struct statfs system;
    if (statfs(path, &system) != 0) return -1;
    if ((unsigned long)system.f_type != 0x01021994UL) return 0;  // TMPFS_MAGIC, linux/magic.h
    uint64_t blocks = (uint64_t)system.f_bavail, size = (uint64_t)system.f_bsize;
    if (size != 0 && blocks > UINT64_MAX / size) return 1;
    return blocks * size >= free_bytes ? 1 : 0;
}

int strata_fcntl_lock(int fd, int command, short type, off_t start, off_t length) {
    struct flock lock;
    memset(&lock, 0, sizeof lock);
    lock.l_type = type;
    lock.l_whence = SEEK_SET;
    lock.l_start = start;
    lock.l_len = length;
    lock.l_pid = 0;  // required to be 0 for OFD locks
    return fcntl(fd, command, &lock);
}

// The thread-locals the API reads on every call use the initial-exec model: one load at a
// fixed offset from the thread pointer instead of a call to __tls_get_addr. The support code
// is linked into the program itself (SwiftPM links targets statically), where that model
// always applies.
#define STRATA_FAST_TLS __attribute__((tls_model("initial-exec")))

static uint64_t strata_next_thread_identity = 1;
static _Thread_local uint64_t strata_thread_identity_value STRATA_FAST_TLS = 0;

static _Thread_local uint64_t strata_impersonated STRATA_FAST_TLS = 0;

// What `strata_thread_identity` answers: the impersonated identity, else the thread's own
// once it has one (0 until then: the header's inline reader then calls the slow path).
_Thread_local uint64_t strata_effective_thread_identity STRATA_FAST_TLS = 0;

void strata_set_impersonated_identity(uint64_t identity) {
    strata_impersonated = identity;
    strata_effective_thread_identity = identity != 0 ? identity : strata_thread_identity_value;
}

uint64_t strata_impersonated_identity(void) { return strata_impersonated; }

uint64_t strata_thread_identity_slow(void) {
    if (strata_impersonated != 0) return strata_impersonated;
    if (strata_thread_identity_value == 0) {
        strata_thread_identity_value = __atomic_fetch_add(&strata_next_thread_identity, 1, __ATOMIC_RELAXED);
    }
    strata_effective_thread_identity = strata_thread_identity_value;
    return strata_thread_identity_value;
}

// The Swift runtime's try-retain (libswiftCore, which every Swift program links): it returns
// the object when it retained it and NULL when the object is being deinitialized.
extern void *swift_tryRetain(void *object);

bool strata_try_retain(const void *object) { return swift_tryRetain((void *)object) != NULL; }

static _Thread_local int64_t strata_persisted_ordinal STRATA_FAST_TLS = 0;

int64_t strata_persisted_next_ordinal(void) { return strata_persisted_ordinal++; }

int64_t strata_persisted_take_ordinal_count(void) {
    int64_t count = strata_persisted_ordinal;
    strata_persisted_ordinal = 0;
    return count;
}

int64_t strata_persisted_pop(int64_t count) {
    strata_persisted_ordinal -= count;
    if (strata_persisted_ordinal < 0) strata_persisted_ordinal = 0;
    return strata_persisted_ordinal;
}

static _Thread_local uintptr_t strata_persisted_expected_type STRATA_FAST_TLS = 0;
static _Thread_local int64_t strata_persisted_expected_count STRATA_FAST_TLS = -1;

void strata_persisted_expect(uintptr_t type, int64_t count) {
    strata_persisted_expected_type = type;
    strata_persisted_expected_count = count;
}

static _Thread_local uintptr_t strata_persisted_known_type STRATA_FAST_TLS = 0;
static _Thread_local int64_t strata_persisted_known_count STRATA_FAST_TLS = -1;

int64_t strata_persisted_take_expected(uintptr_t type) {
    if (type == 0) return -1;
    if (type == strata_persisted_expected_type) {
        strata_persisted_expected_type = 0;
        return strata_persisted_expected_count;
    }
    return type == strata_persisted_known_type ? strata_persisted_known_count : -1;
}

void strata_persisted_remember(uintptr_t type, int64_t count) {
    strata_persisted_known_type = type;
    strata_persisted_known_count = count;
}

// Swift's runtime entry (libswift_Concurrency), called with the C convention: its arguments are
// two words and a word of flags, passed in the same registers by both conventions on the
// platforms Strata builds for. Flags 0: report a mismatch, never trap on one.
extern bool swift_task_isCurrentExecutorWithFlags(const void *identity, uintptr_t implementation, uint64_t flags);

bool strata_is_current_executor(const void *identity, uintptr_t implementation) {
    return swift_task_isCurrentExecutorWithFlags(identity, implementation, 0);
}

int strata_spawn_restricted(const char *path, char *const argv[], int output_fd, long long file_size_limit, int uid) {
    pid_t pid = fork();
    if (pid != 0) return (int)pid;
    // The child: async-signal-safe calls only until exec.
    if (dup2(output_fd, 1) < 0 || dup2(output_fd, 2) < 0) _exit(126);
    signal(SIGXFSZ, SIG_DFL);
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, SIGXFSZ);
    sigprocmask(SIG_UNBLOCK, &unblock, NULL);
    if (file_size_limit >= 0) {
        struct rlimit limit = { (rlim_t)file_size_limit, (rlim_t)file_size_limit };
        if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(124);
    }
    if (uid >= 0) {
        if (setgroups(0, NULL) != 0 && geteuid() == 0) _exit(125);
        if (setgid((gid_t)uid) != 0 || setuid((uid_t)uid) != 0) _exit(125);
        if (getuid() != (uid_t)uid || geteuid() != (uid_t)uid) _exit(125);
        if (uid != 0 && setuid(0) == 0) _exit(125);
    }
    // ETXTBSY: another thread of the parent may have forked while a copy of the program was
    // still open for writing; that child holds the descriptor only until its own exec.
    for (int attempt = 0; attempt < 500; attempt++) {
        execv(path, argv);
        if (errno != ETXTBSY) break;
        struct timespec pause = { 0, 10 * 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
    _exit(127);
}
