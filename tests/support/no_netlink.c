/* Loaded into the test suite's Chromium (LD_PRELOAD, tests/support/browser_env.py): a routing
 * netlink socket cannot be opened, so Chromium's network-change watcher (AddressTrackerLinux)
 * takes its "always online" path. Without it, each Docker network another test creates or
 * removes aborts the page's requests in flight with net::ERR_NETWORK_CHANGED. Every other
 * socket goes to libc unchanged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/netlink.h>
#include <sys/socket.h>

int socket(int domain, int type, int protocol) {
    static int (*real_socket)(int, int, int);
    if (domain == AF_NETLINK && protocol == NETLINK_ROUTE) {
        errno = EAFNOSUPPORT;
        return -1;
    }
    if (!real_socket) real_socket = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
    return real_socket(domain, type, protocol);
}
