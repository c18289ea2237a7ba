#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 for the sync fault tests: forwards to 127.0.0.1:UPSTREAM until told to stall.

Usage: stall_proxy.py UPSTREAM_PORT. Prints its listening port on the first line of stdout.
SIGUSR1: stall (stop forwarding in both directions; connections stay open, as behind a dead router).
SIGUSR2: forward again. Exits on SIGTERM or when stdin closes (its test went away).
"""
import selectors, signal, socket, sys, threading, os

upstream_port = int(sys.argv[1])
stalled = threading.Event()
signal.signal(signal.SIGUSR1, lambda *_: stalled.set())
signal.signal(signal.SIGUSR2, lambda *_: stalled.clear())

listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(64)
print(listener.getsockname()[1], flush=True)

def watch_stdin():
    sys.stdin.read()
    os._exit(0)

threading.Thread(target=watch_stdin, daemon=True).start()

def pump(a, b):
    try:
        while True:
            data = a.recv(65536)
            if not data:
                break
            while stalled.is_set():
                threading.Event().wait(0.05)
            b.sendall(data)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

while True:
    client, _ = listener.accept()
    try:
        server = socket.create_connection(("127.0.0.1", upstream_port))
    except OSError:
        client.close()
        continue
    threading.Thread(target=pump, args=(client, server), daemon=True).start()
    threading.Thread(target=pump, args=(server, client), daemon=True).start()
