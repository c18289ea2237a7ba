#!/usr/bin/python3
"""mqtt-latency.py HEARTD HEARTD_MQTT [--sensors 16] [--rate 1] [--seconds 60]

heartd → heartd-mqtt → mosquitto → a subscriber, end to end, with the project's fake BlueZ on a private bus
(scripts/bench/gateway_fixture.py: N sensors on 3 adapters of 6 slots), a real heartd, a real heartd-mqtt and a
real mosquitto on a loopback port, and `mosquitto_sub -F '%U %t %p'` (its receive time, ns) as the subscriber.

Every 1/rate s each sensor sends one Heart Rate notification (contact, an RR of 1 s) whose heart rate counts up
(40–189 bpm, so each value names one notification within 150 s); the sensors are spread evenly over the period.
The send is stamped by this driver just before it asks the fake (a D-Bus call) to notify: the stamp is earlier
than heartd's receipt by the fake's D-Bus round trip, so the latency printed is an upper bound of heartd's receipt
to the subscriber's. Latency is read on `<base>/<sensor>/bpm`.

Printed beside it, in the same run: heartd's and heartd-mqtt's CPU (each process's CPU clock, all threads) over the
measured window, per second and per MQTT message the subscriber received; heartd-mqtt's RSS and peak RSS; and a
baseline: `mosquitto_pub -l` publishing the same message rate through the same broker to the same subscriber (its
own latency and CPU per message: the least an MQTT client costs here).
"""
import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import dbus

from gateway_fixture import Gateway, rss_mb


def process_cpu_ns(pid):
    return time.clock_gettime_ns(((~pid) << 3) | 2)  # CPUCLOCK_SCHED of the thread group: exited threads included


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Subscriber:
    """mosquitto_sub on `topic`, each message with its receive time (ns since 1970)."""

    def __init__(self, port, topic):
        self.proc = subprocess.Popen(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-t", topic, "-F", "%U %t %p"],
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        self.lines = []
        self.lock = threading.Lock()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.proc.stdout:
            parts = line.rstrip("\n").split(" ", 2)
            if len(parts) == 3:
                secs, _, frac = parts[0].partition(".")
                with self.lock:
                    self.lines.append((int(secs) + int(frac or 0) / 10 ** len(frac or "0"), parts[1], parts[2]))

    def taken(self):
        with self.lock:
            lines, self.lines = self.lines, []
        return lines

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] if ordered else float("nan")


def paced(sensors, rate, seconds, send):
    """Calls send(sensor_index, sequence) for every sensor every 1/rate s, the sensors spread over the period."""
    start = time.monotonic() + 0.2
    period = 1.0 / rate
    for seq in range(int(seconds * rate)):
        for k in range(sensors):
            due = start + seq * period + k * period / sensors
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            send(k, seq)


def latency_row(label, sent, received, topic_of):
    """sent: {(sensor, value): [stamps]}, received: mosquitto_sub lines; latencies in ms."""
    latencies = []
    for t, topic, payload in received:
        key = topic_of(topic, payload)
        if key in sent and sent[key]:
            latencies.append((t - sent[key].pop(0)) * 1000)
    return latencies


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("heartd")
    ap.add_argument("heartd_mqtt")
    ap.add_argument("--sensors", type=int, default=16)
    ap.add_argument("--rate", type=float, default=1.0)
    ap.add_argument("--seconds", type=float, default=60.0)
    args = ap.parse_args()
    for tool in ("mosquitto", "mosquitto_sub", "mosquitto_pub", "dbus-daemon"):
        if not shutil.which(tool) and not os.path.exists("/usr/sbin/" + tool):
            sys.exit("mqtt-latency: %s missing (apt-get install mosquitto mosquitto-clients dbus-daemon; scripts/setup.sh)" % tool)
    addresses = ["A0:9E:1A:7C:03:%02X" % i for i in range(1, args.sensors + 1)]
    sensor_ids = [a.replace(":", "").lower() for a in addresses]
    tmp = tempfile.mkdtemp(prefix="heartd-mqtt-bench.")
    port = free_port()
    with open(os.path.join(tmp, "mosquitto.conf"), "w") as f:
        f.write("listener %d 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages 100000\n" % port)
    broker = subprocess.Popen([shutil.which("mosquitto") or "/usr/sbin/mosquitto", "-c", os.path.join(tmp, "mosquitto.conf")],
                              stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "mosquitto.log"), "w"))
    config = os.path.join(tmp, "heartd.toml")
    with open(config, "w") as f:
        f.write('[mqtt]\nhost = "127.0.0.1"\nport = %d\nclient_id = "bench"\n' % port)
    gw = Gateway(args.heartd, addresses, "heartd-mqtt-bench.")
    mqtt = None
    ok = False
    try:
        if not gw.wait_subscribed():
            sys.exit(1)
        mqtt = subprocess.Popen([args.heartd_mqtt, "run", "--config", config, "--socket", gw.socket, "--log-level", "warning",
                                 "--log-target", "stderr"], stderr=open(os.path.join(tmp, "heartd-mqtt.log"), "w"))
        sub = Subscriber(port, "heartd/#")
        time.sleep(3.0)  # discovery and retained states published; the subscriber is in
        sub.taken()
        ctl = gw.ctl
        sent = {}

        def notify(k, seq):
            hr = 40 + seq % 150
            sent.setdefault((sensor_ids[k], str(hr)), []).append(time.time())
            ctl.Notify(addresses[k], dbus.ByteArray(bytes([0x16, hr, 0x00, 0x04])))

        paced(args.sensors, args.rate, 2, notify)  # warm-up: first values, RMSSD windows opened
        time.sleep(1.0)
        sub.taken()
        sent.clear()
        c0 = {"heartd": process_cpu_ns(gw.heartd.pid), "heartd-mqtt": process_cpu_ns(mqtt.pid)}
        t0 = time.time()
        paced(args.sensors, args.rate, args.seconds, notify)
        time.sleep(1.0)
        c1 = {"heartd": process_cpu_ns(gw.heartd.pid), "heartd-mqtt": process_cpu_ns(mqtt.pid)}
        dt = time.time() - t0
        received = sub.taken()
        rss, peak = rss_mb(mqtt.pid)
        bpm = [(t, topic, p) for t, topic, p in received if topic.endswith("/bpm")]
        lat = latency_row("heartd", sent, bpm, lambda topic, p: (topic.split("/")[1], p))
        notifications = args.sensors * int(args.seconds * args.rate)
        messages = len(received)

        # Baseline: mosquitto_pub -l, the same number of messages a second to the same broker and subscriber.
        pub = subprocess.Popen(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(port), "-t", "baseline/bpm", "-l"],
                               stdin=subprocess.PIPE, text=True, bufsize=1)
        base_sub = Subscriber(port, "baseline/#")
        time.sleep(1.0)
        per_notification = max(1, round(messages / max(1, notifications)))
        base_sent = {}

        def publish(k, seq):
            for m in range(per_notification):
                value = "%d-%d-%d" % (k, seq, m)
                base_sent[("b", value)] = [time.time()]
                pub.stdin.write(value + "\n")
                pub.stdin.flush()

        b0, bt0 = process_cpu_ns(pub.pid), time.time()
        paced(args.sensors, args.rate, min(args.seconds, 30), publish)
        time.sleep(1.0)
        b1, bdt = process_cpu_ns(pub.pid), time.time() - bt0
        base_received = base_sub.taken()
        base_lat = latency_row("baseline", base_sent, base_received, lambda topic, p: ("b", p))
        pub.stdin.close()
        pub.wait()
        base_sub.stop()
        sub.stop()

        print("## heartd → heartd-mqtt → mosquitto → mosquitto_sub: %d sensors × %g/s, %.0f s (loopback)"
              % (args.sensors, args.rate, dt))
        print()
        print("| | notifications sent | messages received | latency median ms | p99 ms | max ms | CPU ms/s | CPU µs/message | RSS MB | peak RSS MB |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name in ("heartd-mqtt", "heartd"):
            cpu = (c1[name] - c0[name]) / 1e6
            lat_cells = ("%.1f | %.1f | %.1f" % (statistics.median(lat), percentile(lat, 99), max(lat))) if name == "heartd-mqtt" and lat \
                else "  |   |  "
            mem = "%.1f | %.1f" % (rss, peak) if name == "heartd-mqtt" else " | "
            print("| %s | %d | %d | %s | %.3f | %.1f | %s |" % (
                name, notifications, messages if name == "heartd-mqtt" else len(bpm), lat_cells, cpu / dt,
                cpu * 1e3 / max(1, messages), mem))
        bcpu = (b1 - b0) / 1e6
        print("| baseline: mosquitto_pub -l, %d message(s) per notification | %d | %d | %s | %.3f | %.1f | | |" % (
            per_notification, len(base_sent), len(base_received),
            ("%.1f | %.1f | %.1f" % (statistics.median(base_lat), percentile(base_lat, 99), max(base_lat))) if base_lat else " | | ",
            bcpu / bdt, bcpu * 1e3 / max(1, len(base_received))))
        print()
        print("bpm messages matched to a send: %d of %d notifications (latency from the driver's stamp before the fake's "
              "D-Bus Notify, an upper bound)" % (len(lat), notifications))
        ok = len(lat) >= 0.99 * notifications
        if not ok:
            print("mqtt-latency: fewer than 99%% of the notifications reached the subscriber (logs: %s)" % tmp, file=sys.stderr)
    finally:
        if mqtt is not None and mqtt.poll() is None:
            mqtt.terminate()
            try:
                mqtt.wait(timeout=10)
            except subprocess.TimeoutExpired:
                mqtt.kill()
        gw.heartd.terminate()
        try:
            gw.heartd.wait(timeout=20)
        except subprocess.TimeoutExpired:
            gw.heartd.kill()
        gw.stop()
        broker.terminate()
        broker.wait()
        if ok:
            shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(0 if ok else 1)


main()
