/*
 * credential_process: the profile's command, run with /bin/sh -c (the CLI
 * splits it shell-like and runs it without a shell), stdin from /dev/null,
 * its stdout read as {"Version":1,"AccessKeyId","SecretAccessKey",
 * "SessionToken"?,"Expiration"?}. A failure quotes the first line of the
 * process's stderr, never its stdout. Run again at each refresh when the
 * credentials it gives expire.
 */
#define _GNU_SOURCE /* posix_spawn_file_actions_addclosefrom_np (glibc 2.34) */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "aws/cred_json.h"
#include "aws/cred_source.h"

extern char **environ;

#define PROCESS_MAX_STDOUT (64u << 10)
#define PROCESS_MAX_STDERR 4096u

/* Runs cmd with /bin/sh -c, collecting stdout and the start of stderr. */
static int spawn_collect(const char *cmd, ddb_buf *out, ddb_buf *errb, int *status,
                         const char *what, ddb_error *err)
{
    int po[2] = {-1, -1}, pe[2] = {-1, -1}, rc = 0, open_fds = 2;
    char sh[] = "sh", dash_c[] = "-c", *argv[] = {sh, dash_c, (char *)cmd, NULL};
    posix_spawn_file_actions_t fa;
    pid_t pid;

    /* Reserved up front so the credentials are never left behind by a realloc. */
    if (ddb_buf_reserve(out, PROCESS_MAX_STDOUT + 4096) != 0)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    out->ptr[0] = '\0';
    if (pipe(po) != 0 || pipe(pe) != 0) {
        rc = ddb_error_set(err, DDB_ERROR, "%s: pipe: %s", what, strerror(errno));
        goto done;
    }
    fcntl(po[0], F_SETFD, FD_CLOEXEC);
    fcntl(pe[0], F_SETFD, FD_CLOEXEC);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    posix_spawn_file_actions_addclose(&fa, po[1]);
    posix_spawn_file_actions_addclose(&fa, pe[1]);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    /* nothing else of ours: the connections, libcurl's own socket pairs and
     * files that other threads open while this one spawns (their close-on-exec
     * flag may come after, or never) */
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
    rc = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(po[1]);
    close(pe[1]);
    po[1] = pe[1] = -1;
    if (rc != 0) {
        rc = ddb_error_set(err, DDB_ERROR, "%s: cannot run /bin/sh: %s", what, strerror(rc));
        goto done;
    }
    while (open_fds > 0) {
        struct pollfd pfd[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
        if (poll(pfd, 2, -1) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2; i++) {
            char chunk[4096];
            ddb_buf *b = i ? errb : out;
            ssize_t got;
            if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            got = read(pfd[i].fd, chunk, sizeof(chunk));
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                close(i ? pe[0] : po[0]);
                *(i ? &pe[0] : &po[0]) = -1;
                open_fds--;
            } else if (b->len < (i ? PROCESS_MAX_STDERR : PROCESS_MAX_STDOUT + 1)) {
                ddb_buf_append(b, chunk, (size_t)got);
            }
            OPENSSL_cleanse(chunk, sizeof(chunk));
        }
    }
    /* Close before waiting: a child still writing gets EPIPE, not a hang. */
    for (int i = 0; i < 2; i++) {
        int *fd = i ? &pe[0] : &po[0];
        if (*fd >= 0)
            close(*fd);
        *fd = -1;
    }
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    if (out->oom || errb->oom)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
done:
    for (int i = 0; i < 2; i++) {
        if (po[i] >= 0)
            close(po[i]);
        if (pe[i] >= 0)
            close(pe[i]);
    }
    return rc;
}

int ddb_process_fetch(ddb_aws_credentials **out, const ddb_cred_source *s, ddb_error *err)
{
    static const ddb_cred_fields fields = {
        "AccessKeyId", "SecretAccessKey", "SessionToken", "Expiration", 0, 0, 0};
    ddb_buf o = DDB_BUF_INIT, e = DDB_BUF_INIT;
    json_object *root = NULL, *version = NULL;
    char what[600];
    int status = 0, rc;

    *out = NULL;
    if ((rc = spawn_collect(s->command, &o, &e, &status, s->label, err)) != 0)
        goto done;
    rc = DDB_ERROR;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        size_t n = e.ptr ? strcspn(e.ptr, "\r\n") : 0;
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)e.ptr[i] < 0x20)
                e.ptr[i] = ' ';
        ddb_error_set(err, rc, "%s %s %d%s%.*s", s->label,
                      WIFEXITED(status) ? "exited with status" : "was killed by signal",
                      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                      n ? ": " : " (no message on stderr)", (int)(n > 300 ? 300 : n),
                      n ? e.ptr : "");
        goto done;
    }
    if (o.len > PROCESS_MAX_STDOUT || memchr(o.ptr, '\0', o.len)) {
        ddb_error_set(err, rc, "%s: output is binary or over %u bytes", s->label,
                      PROCESS_MAX_STDOUT);
        goto done;
    }
    snprintf(what, sizeof(what), "%s: output", s->label);
    if ((rc = ddb_cred_json_parse(&root, o.ptr, o.len, what, err)) != 0)
        goto done;
    json_object_object_get_ex(root, "Version", &version);
    if (!json_object_is_type(version, json_type_int) || json_object_get_int64(version) != 1) {
        rc = ddb_error_set(err, DDB_ERROR, "%s: \"Version\" must be the number 1", s->label);
        goto done;
    }
    rc = ddb_cred_from_json(out, root, &fields, s->label, strdup(s->label), err);
done:
    ddb_cred_json_wipe(root);
    json_object_put(root);
    if (o.ptr)
        OPENSSL_cleanse(o.ptr, o.cap);
    ddb_buf_dispose(&o);
    ddb_buf_dispose(&e);
    return rc;
}
