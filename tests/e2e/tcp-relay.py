#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Relays stdin/stdout to a TCP port on 127.0.0.1: ssh's ProxyCommand into a container's network
# namespace (`nsenter -t PID -n python3 tcp-relay.py 22`), whose only interfaces are lo and the fabric.
import os
import select
import socket
import sys

s = socket.create_connection(('127.0.0.1', int(sys.argv[1])))
inputs = [0, s]
while inputs:
    for r in select.select(inputs, [], [])[0]:
        if r == 0:
            data = os.read(0, 65536)
            if data:
                s.sendall(data)
            else:
                s.shutdown(socket.SHUT_WR)
                inputs.remove(0)
        else:
            data = s.recv(65536)
            if not data:
                sys.exit(0)
            os.write(1, data)
