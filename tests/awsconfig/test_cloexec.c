/*
 * The sockets libcurl opens for the tool close on exec: a credential_process
 * the refresher starts while requests are in flight inherits none of them.
 */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "aws/curl_socket.h"

/* The close-on-exec flag of the socket an easy handle connects to a listener
 * on 127.0.0.1 (CURLOPT_CONNECT_ONLY: no request is sent), with or without
 * ddb_http_sockets_close_on_exec. */
static int connected_cloexec(int ours)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(sa);
    int lfd = socket(AF_INET, SOCK_STREAM, 0), flags;
    char url[64];
    curl_socket_t fd = CURL_SOCKET_BAD;
    CURL *e = curl_easy_init();
    cr_assert(lfd >= 0 && e != NULL);
    cr_assert_eq(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    cr_assert_eq(listen(lfd, 1), 0);
    cr_assert_eq(getsockname(lfd, (struct sockaddr *)&sa, &len), 0);
    snprintf(url, sizeof(url), "http://127.0.0.1:%u/", (unsigned)ntohs(sa.sin_port));
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_CONNECT_ONLY, 1L);
    curl_easy_setopt(e, CURLOPT_PROXY, "");
    if (ours)
        ddb_http_sockets_close_on_exec(e);
    cr_assert_eq(curl_easy_perform(e), CURLE_OK);
    cr_assert_eq(curl_easy_getinfo(e, CURLINFO_ACTIVESOCKET, &fd), CURLE_OK);
    cr_assert(fd != CURL_SOCKET_BAD);
    flags = fcntl(fd, F_GETFD);
    cr_assert(flags >= 0);
    curl_easy_cleanup(e);
    close(lfd);
    return (flags & FD_CLOEXEC) != 0;
}

Test(cloexec, the_tools_sockets_close_on_exec)
{
    cr_assert(connected_cloexec(1), "a socket of ours would be inherited by a child");
}

/* The reason for the option: without it, libcurl's socket is inherited (when a
 * libcurl sets the flag itself, this says so, and the option is then redundant). */
Test(cloexec, libcurls_own_sockets_are_inherited)
{
    if (connected_cloexec(0))
        cr_log_warn("this libcurl opens its sockets close-on-exec itself");
}
