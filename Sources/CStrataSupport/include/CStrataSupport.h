// CStrataSupport: the few things Swift cannot express on Linux.
//
// 1. Atomics on words inside shared memory maps (the lock file). Swift's `Atomic` cannot be
//    placed in mapped memory, so the engine reaches these words through the functions below.
//    Every function takes a raw pointer that must be naturally aligned.
// 2. CRC32C with the SSE4.2 instruction when the CPU has it (checked once at run time).
// 3. Constants Glibc's Swift overlay does not import (OFD record locks).
#ifndef CSTRATA_SUPPORT_H
#define CSTRATA_SUPPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: atomics (sequentially consistent unless the name says otherwise)
//
// All `static inline`, so Swift inlines them: the begin and end of every read transaction
// touch a few of these words, and an out-of-line call cost more than the access itself.

static inline uint64_t strata_atomic_load_u64(const void *address) {
    return __atomic_load_n((const uint64_t *)address, __ATOMIC_SEQ_CST);
}
static inline uint64_t strata_atomic_load_u64_acquire(const void *address) {
    return __atomic_load_n((const uint64_t *)address, __ATOMIC_ACQUIRE);
}
static inline uint64_t strata_atomic_load_u64_relaxed(const void *address) {
    return __atomic_load_n((const uint64_t *)address, __ATOMIC_RELAXED);
}
static inline void strata_atomic_store_u64(void *address, uint64_t value) {
    __atomic_store_n((uint64_t *)address, value, __ATOMIC_SEQ_CST);
}
static inline void strata_atomic_store_u64_release(void *address, uint64_t value) {
    __atomic_store_n((uint64_t *)address, value, __ATOMIC_RELEASE);
}
static inline void strata_atomic_store_u64_relaxed(void *address, uint64_t value) {
    __atomic_store_n((uint64_t *)address, value, __ATOMIC_RELAXED);
}
/// Returns 1 when `*address` held `expected` and now holds `desired`.
static inline int strata_atomic_cas_u64(void *address, uint64_t expected, uint64_t desired) {
    return __atomic_compare_exchange_n((uint64_t *)address, &expected, desired, 0,
                                       __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
static inline uint64_t strata_atomic_add_u64(void *address, uint64_t delta) {
    return __atomic_add_fetch((uint64_t *)address, delta, __ATOMIC_SEQ_CST);
}
static inline uint32_t strata_atomic_load_u32(const void *address) {
    return __atomic_load_n((const uint32_t *)address, __ATOMIC_SEQ_CST);
}
static inline void strata_atomic_store_u32(void *address, uint32_t value) {
    __atomic_store_n((uint32_t *)address, value, __ATOMIC_SEQ_CST);
}
static inline int strata_atomic_cas_u32(void *address, uint32_t expected, uint32_t desired) {
    return __atomic_compare_exchange_n((uint32_t *)address, &expected, desired, 0,
                                       __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
static inline void strata_atomic_fence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void strata_atomic_fence_acquire(void) { __atomic_thread_fence(__ATOMIC_ACQUIRE); }

// The names the checksum cache uses (the same relaxed accesses as above).
static inline uint64_t strata_atomic_load_u64_relaxed_inline(const void *address) {
    return __atomic_load_n((const uint64_t *)address, __ATOMIC_RELAXED);
}
static inline void strata_atomic_store_u64_relaxed_inline(void *address, uint64_t value) {
    __atomic_store_n((uint64_t *)address, value, __ATOMIC_RELAXED);
}

// MARK: CRC32C (Castagnoli)

/// 1 when the running CPU has the SSE4.2 crc32 instruction.
int strata_crc32c_hardware_available(void);
/// Continues a CRC32C over `count` bytes. `crc` is the running value *before* final inversion
/// convention handling: callers pass ~0 to start and invert the result at the end.
uint32_t strata_crc32c_hardware_update(uint32_t crc, const void *bytes, size_t count);

// MARK: Linux constants missing from the Swift Glibc overlay

int strata_f_ofd_getlk(void);
int strata_f_ofd_setlk(void);
int strata_f_ofd_setlkw(void);
/// fcntl(fd, cmd, &flock) with a whole-struct argument (the variadic call is not importable).
int strata_fcntl_lock(int fd, int command, short type, off_t start, off_t length);
/// 1 if `path` is on a tmpfs and at least `free_bytes` of it are available to this user, 0 if
/// not, -1 if statfs failed (sys/vfs.h is not in the Glibc overlay).
int strata_is_tmpfs_with_room(const char *path, uint64_t free_bytes);

#ifdef __cplusplus
}
#endif

// Object lifetime for the Realm API (Sources/Strata).
/// Retains the Swift object at `object` unless its deinitialization has begun (its strong
/// count reached zero): true when it was retained. The caller must know the memory is still
/// the object's (for `RealmCoreLink`: the object clears the pointer in its `deinit`, under the
/// lock the caller holds). The Swift runtime's own entry point, which weak references use.
bool strata_try_retain(const void *object);

// Thread identity and property ordinals for the Realm API (Sources/Strata).
/// A number naming the calling thread for its whole life; never reused within the process
/// (unlike pthread_t, which a new thread may inherit from one that exited). The API reads it
/// through `ThreadIdentity` (Sources/Strata), where the harness's impersonation sits.
/// Inline: every property read asks (one thread-local load at a fixed offset, the
/// initial-exec model, since SwiftPM links this code into the program itself).
extern _Thread_local uint64_t strata_effective_thread_identity __attribute__((tls_model("initial-exec")));
uint64_t strata_thread_identity_slow(void);
static inline uint64_t strata_thread_identity(void) {
    uint64_t identity = strata_effective_thread_identity;
    return identity != 0 ? identity : strata_thread_identity_slow();
}
/// Makes the calling thread's `strata_thread_identity` answer `identity` (0: its own again);
/// the harness runs one thread's steps on another this way. One thread-local read is all the
/// check costs when nobody impersonates.
void strata_set_impersonated_identity(uint64_t identity);
/// The identity the calling thread impersonates, or 0.
uint64_t strata_impersonated_identity(void);
/// The calling thread's count of @Persisted wrappers initialized since the last take, then
/// one more: the wrapper's ordinal within the object being initialized.
int64_t strata_persisted_next_ordinal(void);
/// Returns the calling thread's count of @Persisted wrappers initialized since the last take
/// and resets it to 0 (Object.init calls it once every wrapper of the object is initialized).
int64_t strata_persisted_take_ordinal_count(void);
/// Takes `count` wrappers off the calling thread's count (an object whose `count` wrappers are
/// all initialized) and returns the count left: the ordinal of the object's first wrapper. An
/// object created inside another's property initializer thus leaves the outer count as it was.
int64_t strata_persisted_pop(int64_t count);
/// Tells the next `Object.init` of the class `type` (an ObjectIdentifier's bits) on this
/// thread how many wrappers it has, so it need not look the class up.
void strata_persisted_expect(uintptr_t type, int64_t count);
/// The count `strata_persisted_expect` gave for `type` (then forgotten), else the count
/// `strata_persisted_remember` last recorded for `type` on this thread, or -1.
int64_t strata_persisted_take_expected(uintptr_t type);
/// Records on this thread that objects of `type` have `count` wrappers, so that making many
/// unmanaged objects of one class in a row looks the count up once.
void strata_persisted_remember(uintptr_t type, int64_t count);

/// Whether the calling task runs on the serial executor `(identity, implementation)` (the two
/// words of Swift's `UnownedSerialExecutor`): the check behind actor-confined realms (Spec
/// C15). Swift has no public non-trapping form (`preconditionIsolated` traps), so this asks
/// the concurrency runtime's own check with no flags: it answers false instead of trapping.
bool strata_is_current_executor(const void *identity, uintptr_t implementation);

/// Test support for the special-file and other-user tests (Spec X29, X30, X31): forks and runs `path` with `argv`
/// (NULL-terminated) in a child whose stdout and stderr go to `output_fd`, with SIGXFSZ at its
/// default action and unblocked, RLIMIT_FSIZE set to `file_size_limit` bytes when it is >= 0,
/// and running as user and group `uid` (supplementary groups cleared) when `uid` >= 0. Only
/// async-signal-safe calls run between fork and exec. Returns the pid, or -1 (errno set). The
/// child exits with 125 when it cannot drop privileges (afterwards its real and effective ids
/// must be `uid` and setuid(0) must fail), with 127 when exec fails (retried on ETXTBSY).
int strata_spawn_restricted(const char *path, char *const argv[], int output_fd, long long file_size_limit, int uid);

#endif
