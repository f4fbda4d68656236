// sandbox-exec: runs a command under the seccomp filters systemd builds for aggregatord.service's
// SystemCallFilter=, SystemCallErrorNumber=EPERM, SystemCallArchitectures=native and
// MemoryDenyWriteExecute=yes, for machines where systemd is not PID 1 (containers, CI).
// Used by systemd/check-sandbox.sh; not installed.
//
//     sandbox-exec ALLOWED_SYSCALLS_FILE COMMAND [ARGUMENT...]
//
// The file holds one system call name per line: the unit's filter already expanded by
// `systemd-analyze syscall-filter`. Names this architecture lacks are skipped, as systemd does.

#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <unistd.h>

__attribute__((noreturn)) static void fail(const char *what, int code) {
    fprintf(stderr, "sandbox-exec: %s: %s\n", what, strerror(code < 0 ? -code : code));
    exit(125);
}

// The allow list: everything else fails with EPERM. seccomp_init admits the native
// architecture only, and a call from another one kills the process (SystemCallArchitectures=native).
static void load_allow_list(const char *path) {
    FILE *file = fopen(path, "r");
    if (file == NULL) fail(path, errno);
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ERRNO(EPERM));
    if (filter == NULL) fail("seccomp_init", ENOMEM);
    char name[128];
    int allowed = 0;
    while (fscanf(file, "%127s", name) == 1) {
        int number = seccomp_syscall_resolve_name(name);
        if (number == __NR_SCMP_ERROR) continue;
        int status = seccomp_rule_add(filter, SCMP_ACT_ALLOW, number, 0);
        if (status < 0) fail(name, status);
        allowed++;
    }
    fclose(file);
    if (allowed == 0) fail("no system call in the allow list", EINVAL);
    int status = seccomp_load(filter);
    if (status < 0) fail("seccomp_load (allow list)", status);
    seccomp_release(filter);
}

// MemoryDenyWriteExecute=yes, the way systemd 252 builds it: a filter of its own, so its EPERM wins
// over the allow list's ALLOW (the kernel applies the strictest answer of all filters). No mapping
// both writable and executable, no page made executable later.
static void load_memory_deny_write_execute(void) {
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
    if (filter == NULL) fail("seccomp_init", ENOMEM);
    const int both = PROT_WRITE | PROT_EXEC;
    int status = seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mmap), 1,
                                  SCMP_A2(SCMP_CMP_MASKED_EQ, both, both));
    if (status == 0)
        status = seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mprotect), 1,
                                  SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
    if (status == 0)
        status = seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(pkey_mprotect), 1,
                                  SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
    if (status == 0)
        status = seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(shmat), 1,
                                  SCMP_A2(SCMP_CMP_MASKED_EQ, SHM_EXEC, SHM_EXEC));
    if (status < 0) fail("seccomp_rule_add (MemoryDenyWriteExecute)", status);
    status = seccomp_load(filter);
    if (status < 0) fail("seccomp_load (MemoryDenyWriteExecute)", status);
    seccomp_release(filter);
}

// Proof that both filters hold before the command runs: a filter that silently failed to apply
// would make the check pass for the wrong reason.
static void probe_filters(void) {
    void *writable_code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (writable_code != MAP_FAILED || errno != EPERM) fail("a writable executable mapping was allowed", EINVAL);
    void *data = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (data == MAP_FAILED) fail("mmap", errno);
    if (mprotect(data, 4096, PROT_READ | PROT_EXEC) == 0 || errno != EPERM)
        fail("making a data page executable was allowed", EINVAL);
    munmap(data, 4096);
    // setpriority belongs to @resources, which the unit removes from @system-service.
    if (setpriority(PRIO_PROCESS, 0, 0) == 0 || errno != EPERM) fail("setpriority was allowed", EINVAL);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: sandbox-exec ALLOWED_SYSCALLS_FILE COMMAND [ARGUMENT...]\n");
        return 2;
    }
    // This order: the allow list does not admit seccomp() itself, so it is loaded last.
    load_memory_deny_write_execute();
    load_allow_list(argv[1]);
    probe_filters();
    execvp(argv[2], argv + 2);
    fail(argv[2], errno);
}
