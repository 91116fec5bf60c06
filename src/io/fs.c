/*
 * fs.c — the file system around the streams: paths, folders made, checked,
 * synced and removed, and whole files read or written at once (fs.h).
 */
#ifdef __linux__
#define _GNU_SOURCE /* sync_file_range */
#endif
#include "ddbpipe/fs.h"
#include "ddbpipe/sink.h"
#include "ddbpipe/source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/io_internal.h"

int ddb_make_dirs(const char *dir, ddb_error *err)
{
    char *p = strdup(dir);
    int rc = 0;
    if (p == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            rc = ddb_error_set(err, DDB_EIO, "cannot create folder %s: %s", p, strerror(errno));
            goto done;
        }
        *s = '/';
    }
    if (mkdir(p, 0777) != 0 && errno != EEXIST)
        rc = ddb_error_set(err, DDB_EIO, "cannot create folder %s: %s", p, strerror(errno));
done:
    free(p);
    return rc;
}

int ddb_path_is_special(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

int ddb_check_dir_writable(const char *dir, ddb_error *err)
{
    char *p = strdup(dir), *slash;
    struct stat st;
    int rc = 0;
    if (p == NULL)
        return ddb_error_set(err, DDB_ENOMEM, "out of memory");
    while (stat(p, &st) != 0) {
        if (errno != ENOENT && errno != ENOTDIR) {
            rc = ddb_error_set(err, DDB_EIO, "cannot create folder %s: %s: %s", dir, p,
                               strerror(errno));
            goto done;
        }
        if ((slash = strrchr(p, '/')) == NULL) {
            strcpy(p, ".");
        } else if (slash == p) {
            p[1] = '\0';
        } else {
            *slash = '\0';
        }
    }
    if (!S_ISDIR(st.st_mode))
        rc = ddb_error_set(err, DDB_EIO, "cannot create folder %s: %s is not a folder", dir, p);
    else if (access(p, W_OK | X_OK) != 0)
        rc =
            ddb_error_set(err, DDB_EIO, "cannot create folder %s: %s: %s", dir, p, strerror(errno));
done:
    free(p);
    return rc;
}

/* path written whole through a file sink (atomic: see ddb_sink_open_file) */
static int write_whole(const char *path, const void *data, size_t len, int atomic, ddb_error *err)
{
    ddb_sink *sink = NULL;
    int rc;
    if ((rc = ddb_sink_open_file(&sink, path, atomic, err)) == 0 &&
        (rc = ddb_sink_write(sink, data, len, err)) == 0)
        rc = ddb_sink_finish(sink, err);
    ddb_sink_free(sink);
    return rc;
}

int ddb_file_write_atomic(const char *path, const void *data, size_t len, ddb_error *err)
{
    return write_whole(path, data, len, 1, err);
}

int ddb_file_write(const char *path, const void *data, size_t len, ddb_error *err)
{
    return write_whole(path, data, len, 0, err);
}

int ddb_io_fsync_dir(const char *dir, const char *of, ddb_error *err)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;
    if (fd < 0)
        return ddb_error_set(err, DDB_EIO, "open directory %s%s%s: %s", dir, of ? " of " : "",
                             of ? of : "", strerror(errno));
    if (fsync(fd) != 0 && errno != EINVAL && errno != ENOTSUP)
        rc = ddb_error_set(err, DDB_EIO, "fsync directory %s%s%s: %s", dir, of ? " of " : "",
                           of ? of : "", strerror(errno));
    close(fd);
    return rc;
}

int ddb_dir_sync(const char *dir, ddb_error *err)
{
    int fds[64], n = 0, rc = 0;
    DIR *d = opendir(dir);
    struct dirent *e;

    if (d == NULL)
        return ddb_error_set(err, DDB_EIO, "open directory %s: %s", dir, strerror(errno));
    /* every file's writeback started, then each fsynced: the first fsync's
     * journal commit carries the others' blocks, so theirs are quick */
    while ((e = readdir(d)) != NULL && rc == 0) {
        char *p;
        int fd;
        if (e->d_name[0] == '.' && (e->d_name[1] == '\0' || strcmp(e->d_name, "..") == 0))
            continue;
        if ((p = ddb_path_join(dir, e->d_name)) == NULL) {
            rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
            break;
        }
        if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0) {
            rc = ddb_error_set(err, DDB_EIO, "open %s: %s", p, strerror(errno));
        } else if (n == 64) { /* more than a schema folder holds: one by one */
            if (fsync(fd) != 0)
                rc = ddb_error_set(err, DDB_EIO, "fsync %s: %s", p, strerror(errno));
            close(fd);
        } else {
#ifdef __linux__
            sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
            fds[n++] = fd;
        }
        free(p);
    }
    closedir(d);
    for (int i = 0; i < n; i++) {
        if (rc == 0 && fsync(fds[i]) != 0)
            rc = ddb_error_set(err, DDB_EIO, "fsync a file in %s: %s", dir, strerror(errno));
        close(fds[i]);
    }
    return rc != 0 ? rc : ddb_io_fsync_dir(dir, NULL, err);
}

void ddb_remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        char *p;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if ((p = ddb_path_join(dir, e->d_name)) != NULL) {
            unlink(p);
            free(p);
        }
    }
    closedir(d);
    rmdir(dir);
}

const char *ddb_path_base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

char *ddb_path_join(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    char *p;
    if (strcmp(dir, ".") == 0)
        return strdup(name);
    p = malloc(n + strlen(name) + 2);
    if (p != NULL)
        sprintf(p, "%s%s%s", dir, n > 0 && dir[n - 1] == '/' ? "" : "/", name);
    return p;
}

int ddb_file_read_small(char **out, size_t *len, const char *path, size_t max, ddb_error *err)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    int rc = 0;

    *out = NULL;
    if (f == NULL)
        return ddb_error_set(err, errno == ENOENT ? DDB_ENOTFOUND : DDB_EIO, "%s: %s", path,
                             strerror(errno));
    if (fstat(fileno(f), &st) != 0 || (uint64_t)st.st_size > max)
        rc = ddb_error_set(err, DDB_ETOOBIG, "%s: larger than %zu bytes", path, max);
    else if ((*out = malloc((size_t)st.st_size + 1)) == NULL)
        rc = ddb_error_set(err, DDB_ENOMEM, "out of memory");
    else if ((*len = fread(*out, 1, (size_t)st.st_size, f)) != (size_t)st.st_size)
        rc = ddb_error_set(err, DDB_EIO, "%s: read error", path);
    else
        (*out)[*len] = '\0';
    if (rc != 0) {
        free(*out);
        *out = NULL;
    }
    fclose(f);
    return rc;
}
