#!/usr/bin/python3
"""web-latency.py HEARTD HEARTD_WEB [--sensors 32] [--rate 1] [--browsers 20] [--instances 2] [--open tab|window]
                 [--seconds 60] [--warmup 10] [--enforce latency,page,cpu] [--json FILE]

Issue 28's performance figures, side by side in one run: N sensors of the project's fake BlueZ on a private bus
(scripts/bench/gateway_fixture.py, 6 sensors per adapter), heartd capturing them all, heartd-web on loopback, and B
room pages open in headless Chromium: B tabs (or windows, `--open window`) spread over I Chromium processes
(`--instances`). Every page holds its own WebSocket and runs the room page's script on every message; in tab mode
only each instance's front tab paints (as a browser does with background tabs), so that 20 pages' rendering on the
same 2 cores does not stand in for the service's latency.

- Latency: each notification is sent by this script through the fake's Notify (its send time stamped here) with a
  heart rate that names it (a cycle of 100 values per sensor); each page's WebSocket messages are stamped on receipt
  in the page with `performance.timeOrigin + performance.now()` (a wrapper installed before the page's own script
  through the DevTools protocol, Page.addScriptToEvaluateOnNewDocument). Two figures: from heartd's own arrival
  stamp (the `lastNotification` the device message carries) and from the fake's send; median, p99 and max over
  every (notification, browser) pair received in the measured window.
- CPU: heartd's and heartd-web's process CPU clocks over the window (every thread, exited ones too); heartd-web's
  CPU per update (a message of /api/live, fanned out to every browser) and per notification.
- Memory: heartd-web's and heartd's resident and peak resident memory at the end.
- The room page: its weight (the document and every resource it loads, as transferred, from the Resource Timing
  API) and its first paint / first contentful paint (Paint Timing), from the first window.
`--browsers 0`: heartd-web following heartd with no page open (its CPU and memory only: what the fan-out adds is the
difference to a run with pages).
Prints a table with each figure beside its target (issue 28: p99 ≤ 250 ms, page < 150 KB, web CPU ≤ heartd's);
exit status 1 when a target is missed, 2 when the run itself failed.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

import dbus

from gateway_fixture import Gateway, rss_mb

HOOK = """
(function () {
  window.__bench = [];
  const Native = window.WebSocket;
  window.WebSocket = function (url, protocols) {
    const ws = protocols === undefined ? new Native(url) : new Native(url, protocols);
    ws.addEventListener("message", function (event) {
      const t = performance.timeOrigin + performance.now();
      let m; try { m = JSON.parse(event.data); } catch (e) { return; }
      if (m.type === "device" && m.device) window.__bench.push([t, m.device.address, m.device.lastNotification, m.device.bpm]);
      else window.__bench.push([t, m.type]);
    });
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
})();
"""
BPM_BASE, BPM_CYCLE = 70, 100


def process_cpu_ns(pid):
    return time.clock_gettime_ns(((~pid) << 3) | 2)  # CPUCLOCK_SCHED of the thread group: exited threads included


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def chromium(args):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    options = Options()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800",
                     "--no-first-run", "--disable-extensions", "--disable-background-timer-throttling",
                     "--disable-renderer-backgrounding", "--disable-backgrounding-occluded-windows"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)


def open_windows(url, browsers, instances, kind):
    """`browsers` room pages over `instances` Chromium processes, each in a tab or window (`kind`); [(driver, handle)]."""
    drivers, pages = [], []
    for i in range(instances):
        driver = chromium(None)
        drivers.append(driver)
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOOK})
        count = browsers // instances + (1 if i < browsers % instances else 0)
        for n in range(count):
            if n:
                driver.switch_to.new_window(kind)
                driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOOK})
            driver.get(url)
            pages.append((driver, driver.current_window_handle))
    return drivers, pages


def page_figures(driver, handle):
    driver.switch_to.window(handle)
    return driver.execute_script("""
        const nav = performance.getEntriesByType("navigation")[0];
        const resources = performance.getEntriesByType("resource").filter(r => !r.name.includes("/api/"));
        const paint = {}; performance.getEntriesByType("paint").forEach(p => paint[p.name] = p.startTime);
        return {document: nav.transferSize, decoded: nav.decodedBodySize,
                resources: resources.map(r => [r.name, r.transferSize]),
                firstPaint: paint["first-paint"], firstContentfulPaint: paint["first-contentful-paint"],
                domContentLoaded: nav.domContentLoadedEventEnd};""")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("heartd")
    ap.add_argument("heartd_web")
    ap.add_argument("--sensors", type=int, default=32)
    ap.add_argument("--rate", type=float, default=1.0, help="notifications a second per sensor")
    ap.add_argument("--browsers", type=int, default=20)
    ap.add_argument("--instances", type=int, default=2, help="Chromium processes the pages are spread over")
    ap.add_argument("--open", choices=("tab", "window"), default="tab", help="each page in a tab or a window of its own")
    ap.add_argument("--enforce", default="latency,page,cpu",
                    help="the targets whose miss makes the exit status 1 (latency, page, cpu); the others are shown")
    ap.add_argument("--seconds", type=float, default=60.0, help="the measured window")
    ap.add_argument("--warmup", type=float, default=10.0)
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()

    addresses = ["A0:9E:1A:7C:03:%02X" % i for i in range(1, args.sensors + 1)]
    gw = Gateway(args.heartd, addresses, "heartd-webbench.", adapters=(args.sensors + 5) // 6)
    web = drivers = None
    try:
        web_out = os.path.join(gw.tmp, "heartd-web.out")
        web = subprocess.Popen([args.heartd_web, "--socket", gw.socket, "--log-target", "stderr", "--log-level", "warning",
                                "--set", "web.port=0", "--set", "web.client_buffer=1024"],
                               stdout=open(web_out, "w"), stderr=open(os.path.join(gw.tmp, "heartd-web.log"), "w"))
        deadline = time.time() + 60
        url = None
        while url is None and time.time() < deadline and web.poll() is None:
            found = re.search(r"room page at (http://\S+)", open(web_out).read())
            url = found.group(1) if found else None
            time.sleep(0.1)
        if url is None:
            print("web-latency: heartd-web did not start (%s/heartd-web.log)" % gw.tmp, file=sys.stderr)
            gw.keep_files = True
            return 2
        if not gw.wait_subscribed():
            return 2
        drivers, pages = open_windows(url, args.browsers, args.instances, args.open)
        figures = page_figures(*pages[0]) if pages else None  # --browsers 0: what following heartd alone costs

        sent = {a: {} for a in addresses}  # address → bpm → [send times]
        period = 1.0 / args.rate
        start = time.time() + 0.5
        t0 = start + args.warmup
        t1 = t0 + args.seconds
        i = 0
        cpu0 = None
        while True:
            tick = start + (i // args.sensors) * period + (i % args.sensors) * period / args.sensors
            if tick >= t1 + 1:
                break
            if cpu0 is None and tick >= t0:
                cpu0 = (process_cpu_ns(gw.heartd.pid), process_cpu_ns(web.pid), time.time())
            delay = tick - time.time()
            if delay > 0:
                time.sleep(delay)
            address = addresses[i % args.sensors]
            bpm = BPM_BASE + (i // args.sensors) % BPM_CYCLE
            rr = round(60 / bpm * 1024)
            sent[address].setdefault(bpm, []).append(time.time() * 1000)
            gw.ctl.Notify(address, dbus.ByteArray(bytes([0x16, bpm, rr & 0xFF, rr >> 8])))
            i += 1
        time.sleep(1.0)  # the last notifications reach the browsers
        cpu1 = (process_cpu_ns(gw.heartd.pid), process_cpu_ns(web.pid), time.time())  # the window and 1 s after
        web_rss, web_peak = rss_mb(web.pid)
        heartd_rss, heartd_peak = rss_mb(gw.heartd.pid)

        # Pairs of (notification, browser) whose notification was sent within the window [t0, t1).
        from_heartd, from_fake, updates, slowest = [], [], [], []
        for driver, handle in pages:
            driver.switch_to.window(handle)
            records = driver.execute_script("return window.__bench")
            seen = set()
            updates.append(sum(1 for record in records if t0 * 1000 <= record[0] < t1 * 1000))
            for record in records:
                if len(record) < 4 or record[2] is None or record[3] is None:
                    continue
                t, address, last, bpm = record
                if (address, last) in seen:
                    continue  # the beats' RMSSD update repeats the notification's stamp
                seen.add((address, last))
                before = [s for s in sent.get(address, {}).get(bpm, []) if s <= t]
                if not before or not t0 * 1000 <= before[-1] < t1 * 1000:
                    continue
                from_heartd.append(t - last)
                from_fake.append(t - before[-1])
                slowest.append((round(t - last, 1), round(t - before[-1], 1), address, round(before[-1] - t0 * 1000)))
    finally:
        for driver in drivers or []:
            try:
                driver.quit()
            except Exception:
                pass
        if web is not None and web.poll() is None:
            web.terminate()
            web.wait(timeout=20)
        gw.heartd.terminate()
        gw.heartd.wait(timeout=20)
        gw.stop()

    elapsed = cpu1[2] - cpu0[2]
    updates_window = args.seconds
    heartd_ms = (cpu1[0] - cpu0[0]) / 1e6 / elapsed
    web_ms = (cpu1[1] - cpu0[1]) / 1e6 / elapsed
    per_browser = statistics.median(updates) / updates_window if updates else 0.0
    notifications = args.sensors * args.rate
    weight = figures["document"] + sum(size for _, size in figures["resources"]) if figures else 0
    p99 = percentile(from_heartd, 99) if from_heartd else float("inf")
    result = {
        "sensors": args.sensors, "rate": args.rate, "browsers": len(pages), "instances": args.instances, "seconds": elapsed,
        "received": len(from_heartd), "expected": args.sensors * args.rate * args.seconds * len(pages),
        "latency_heartd_ms": {"median": statistics.median(from_heartd), "p99": p99, "max": max(from_heartd)} if from_heartd else None,
        "latency_fake_ms": {"median": statistics.median(from_fake), "p99": percentile(from_fake, 99), "max": max(from_fake)} if from_fake else None,
        "heartd_cpu_ms_per_s": heartd_ms, "web_cpu_ms_per_s": web_ms, "updates_per_s": per_browser,
        "web_cpu_us_per_update": web_ms * 1e3 / per_browser if per_browser else None, "web_cpu_us_per_notification": web_ms * 1e3 / notifications,
        "web_rss_mb": web_rss, "web_peak_mb": web_peak, "heartd_rss_mb": heartd_rss, "heartd_peak_mb": heartd_peak,
        "page_bytes": weight, "page": figures, "load": os.getloadavg(),
        "slowest": sorted(slowest, reverse=True)[:40],
    }
    if args.json:
        with open(args.json, "w") as out:
            json.dump(result, out, indent=1)
    if not pages:  # following heartd with no browser: only the CPU and memory figures mean anything
        print("| %d sensors × %g/s, no browser, %.0f s, load %.1f | figure |" % (args.sensors, args.rate, elapsed, result["load"][0]))
        print("|---|---:|")
        for label, figure in (("heartd-web CPU", "%.2f ms/s" % web_ms), ("heartd CPU (same run)", "%.2f ms/s" % heartd_ms),
                              ("heartd-web CPU per notification", "%.0f µs" % result["web_cpu_us_per_notification"]),
                              ("heartd-web memory, resident / peak", "%.1f / %.1f MB" % (web_rss, web_peak))):
            print("| %s | %s |" % (label, figure))
        return 0
    lat, fake = result["latency_heartd_ms"], result["latency_fake_ms"]
    rows = [
        ("notification (heartd's arrival stamp) → browser, median", "%.1f ms" % lat["median"], ""),
        ("notification (heartd's arrival stamp) → browser, p99", "**%.1f ms**" % lat["p99"], "≤ 250 ms",
         lat["p99"] <= 250, "latency"),
        ("notification (heartd's arrival stamp) → browser, max", "%.1f ms" % lat["max"], ""),
        ("fake BlueZ's send → browser, median / p99", "%.1f / %.1f ms" % (fake["median"], fake["p99"]), ""),
        ("(notification, browser) pairs received", "%d of %d" % (len(from_heartd), result["expected"]), "all",
         len(from_heartd) >= 0.99 * result["expected"], "latency"),
        ("heartd-web CPU", "**%.2f ms/s**" % web_ms, "≤ heartd's", web_ms <= heartd_ms, "cpu"),
        ("heartd CPU (same run)", "%.2f ms/s" % heartd_ms, ""),
        ("heartd-web CPU per update (%.1f updates/s, each to %d browsers)" % (per_browser, len(pages)),
         "%.0f µs" % result["web_cpu_us_per_update"], ""),
        ("heartd-web CPU per notification", "%.0f µs" % result["web_cpu_us_per_notification"], ""),
        ("heartd-web memory, resident / peak", "%.1f / %.1f MB" % (web_rss, web_peak), ""),
        ("heartd memory, resident / peak", "%.1f / %.1f MB" % (heartd_rss, heartd_peak), ""),
        ("room page weight (document + %d resources, transferred)" % len(figures["resources"]),
         "**%.1f KB**" % (weight / 1024), "< 150 KB", weight < 150 * 1024, "page"),
        ("room page first paint / first contentful paint",
         "%.0f / %.0f ms" % (figures["firstPaint"] or -1, figures["firstContentfulPaint"] or -1), ""),
    ]
    enforced = set(args.enforce.split(",")) if args.enforce else set()
    print("| %d sensors × %g/s, %d browsers (%ss in %d headless Chromium), %.0f s, load %.1f | figure | target | met |"
          % (args.sensors, args.rate, len(pages), args.open, args.instances, elapsed, result["load"][0]))
    print("|---|---:|---|---|")
    missed = 0
    for row in rows:
        met = "" if len(row) < 4 else ("yes" if row[3] else "**no**") + ("" if row[4] in enforced else " (not enforced)")
        missed += len(row) > 4 and not row[3] and row[4] in enforced
        print("| %s | %s | %s | %s |" % (row[0], row[1], row[2], met))
    return 1 if missed else 0


sys.exit(main())
