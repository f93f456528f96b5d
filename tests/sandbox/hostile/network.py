"""Tries every way out: TCP, UDP, DNS, the bridge gateway, the host's addresses, the Docker socket.

targets.json (written by the test) lists host addresses and the port of a host listener.
Each attempt logs one line: `NET <what>: blocked (<reason>)` or `NET <what>: OPEN`.
"""
import json
import os
import socket

from _proto import err_name, log, play


def attempt(what, action):
    try:
        action()
    except (OSError, socket.gaierror) as exc:
        log(f"NET {what}: blocked ({err_name(exc)})")
    else:
        log(f"NET {what}: OPEN")


def tcp(host, port, family=socket.AF_INET):
    def go():
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.settimeout(2)
            s.connect((host, port))
    return go


def udp(host, port):
    def go():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(2)
            s.sendto(b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07example\x03com\x00\x00\x01\x00\x01",
                     (host, port))
            s.recvfrom(512)
    return go


def probe():
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "targets.json")) as f:
        targets = json.load(f)
    port = targets["port"]
    attempt("tcp 1.1.1.1:443", tcp("1.1.1.1", 443))
    attempt("tcp 8.8.8.8:53", tcp("8.8.8.8", 53))
    attempt("tcp [2001:4860:4860::8888]:53", tcp("2001:4860:4860::8888", 53, socket.AF_INET6))
    attempt("udp 8.8.8.8:53", udp("8.8.8.8", 53))
    attempt("dns example.com", lambda: socket.getaddrinfo("example.com", 80))
    attempt("dns localhost-free name pypi.org", lambda: socket.gethostbyname("pypi.org"))
    for host in targets["hosts"]:
        attempt(f"tcp {host}:{port}", tcp(host, port))
        attempt(f"udp {host}:{port}", udp(host, port))
    attempt("docker socket", lambda: socket.socket(socket.AF_UNIX).connect("/var/run/docker.sock"))
    attempt("raw socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP))
    attempt("packet socket", lambda: socket.socket(17, socket.SOCK_RAW, 0))
    interfaces = sorted(name for _, name in socket.if_nameindex())
    log(f"NET interfaces: {','.join(interfaces)}")


play("Escapist", on_init=probe)
