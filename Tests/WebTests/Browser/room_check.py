#!/usr/bin/env python3
"""Drives heartd-web's pages in headless Chromium (Selenium) and prints one JSON object of results.

WebBrowserTests runs it against heartd --simulate and heartd-web; each check is named on the command line:
  live       tiles appear and follow heart rate; zone colours follow % HRmax
  silence    once the script writes --stop-file, the test silences the sensors (or --silent-device only): its tile says
             "no signal" within 5 s (6.5 s with polling), the others keep streaming
  names      a device named with HTML and script (--xss-device) shows its name as text and runs nothing
  coach      the coach logs in and starts a session from the page (its label holds HTML and script)
  viewer     a viewer's POST to start a session gets 403
  crosssite  a form on another site posting to /api/sessions/start (with the coach logged in) is refused
  overlay    /overlay/<device> has a transparent background
  sessions   the Sessions page lists the finished session (--session UUID); its report opens (heartd's SVG plots shown,
             no script run) and its CSV export downloads (a file with heartd's header and rows)
  people     the coach adds a person named with HTML and script on /people (HRmax 160), assigns the strap (--device) to
             them; the list and the room tile show the name as text (and the tile % of 160), nothing runs
  peopleviewer  a viewer sees /people read-only (no forms); its POSTs to /people/save and /nearby/scan get 403
Exit status 0 when every check passed; the JSON says which failed and why.
"""
import argparse
import http.server
import json
import os
import shutil
import sys
import threading
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

XSS_LABEL = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script> round 7'
ZONE_BACKGROUND = {
    "rest": "rgb(58, 58, 58)", "grey": "rgb(107, 111, 117)", "blue": "rgb(31, 95, 174)",
    "green": "rgb(31, 138, 59)", "yellow": "rgb(184, 147, 0)", "red": "rgb(192, 38, 45)",
}


def zone_for(percent):
    for limit, name in ((90, "red"), (80, "yellow"), (70, "green"), (60, "blue"), (50, "grey")):
        if percent >= limit:
            return name
    return "rest"


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
            if last:
                return last
        except Exception as error:  # the page is still loading
            last = error
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout} s waiting for {what} (last: {last!r})")


DOWNLOADS = "/tmp/hw-downloads-%d" % os.getpid()


def browser():
    options = Options()
    options.add_experimental_option("prefs", {"download.default_directory": DOWNLOADS, "download.prompt_for_download": False})
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,800", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)
    os.makedirs(DOWNLOADS, exist_ok=True)
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": DOWNLOADS})
    return driver


def tiles(driver):
    return driver.execute_script("""
        return Array.from(document.querySelectorAll('.tile')).map(t => ({
          address: t.dataset.address, zone: t.dataset.zone, state: t.dataset.state,
          name: t.querySelector('.name').textContent, bpm: t.querySelector('.bpm').textContent,
          pct: t.querySelector('.pct').textContent, background: getComputedStyle(t).backgroundColor }));""")


def check_live(driver, args):
    driver.get(f"{args.url}/?token={args.token}")
    found = wait_for(lambda: [t for t in tiles(driver) if t["bpm"].isdigit()], 20, "a tile with a heart rate")
    first = {t["address"]: t["bpm"] for t in found}
    wait_for(lambda: any(t["bpm"].isdigit() and t["bpm"] != first.get(t["address"]) for t in tiles(driver)),
             30, "a tile's heart rate to change")
    # Zone colour follows % HRmax: read each streaming tile's numbers and colour at one instant.
    for _ in range(5):
        for tile in tiles(driver):
            if tile["state"] != "streaming" or not tile["bpm"].isdigit():
                continue
            percent = int(tile["pct"].split(" ")[0])
            hrmax = int(tile["pct"].split(" of ")[1])
            assert abs(percent - round(int(tile["bpm"]) * 100 / hrmax)) <= 1, f"% HRmax wrong: {tile}"
            assert tile["zone"] == zone_for(percent), f"zone {tile['zone']} for {percent} %: {tile}"
            assert tile["background"] == ZONE_BACKGROUND[tile["zone"]], f"colour {tile['background']}: {tile}"
        time.sleep(0.5)
    if os.environ.get("HEARTD_WEB_SCREENSHOTS"):  # for a person to look at: the room at 1280x800 and as a phone
        driver.save_screenshot(os.path.join(os.environ["HEARTD_WEB_SCREENSHOTS"], "room-1280x800.png"))
        driver.set_window_size(390, 844)
        time.sleep(1.5)
        driver.save_screenshot(os.path.join(os.environ["HEARTD_WEB_SCREENSHOTS"], "room-phone.png"))
        driver.set_window_size(1280, 800)
    return {"tiles": len(found), "first": first}


def check_silence(driver, args):
    driver.get(f"{args.url}/?token={args.token}")
    silent = lambda t: not args.silent_device or t["address"] == args.silent_device
    wait_for(lambda: any(t["state"] == "streaming" and silent(t) for t in tiles(driver)), 20, "a streaming tile")
    with open(args.stop_file, "w") as stop:
        stop.write("stop\n")
    stopped = time.monotonic()
    wait_for(lambda: all(t["state"] == "no-signal" for t in tiles(driver) if silent(t)), 8, "the silent tiles to say no signal")
    elapsed = time.monotonic() - stopped
    assert elapsed <= 6.5, f"no signal after {elapsed:.1f} s"
    texts = driver.execute_script("return Array.from(document.querySelectorAll('.tile')).map(t => [t.dataset.address, t.querySelector('.state').textContent])")
    for address, text in texts:
        if not args.silent_device or address == args.silent_device:
            assert text == "no signal", f"{address} says {text!r}"
        else:
            assert text == "streaming", f"{address}, not silenced, says {text!r}"
    return {"seconds": round(elapsed, 2), "states": texts}


def check_names(driver, args):
    driver.get(f"{args.url}/?token={args.token}")
    tile = wait_for(lambda: [t for t in tiles(driver) if t["address"] == args.xss_device], 20, "the tile named with HTML")[0]
    assert tile["name"] == args.xss_name, f"name shown as {tile['name']!r}"
    assert driver.execute_script("return window.__xss === undefined"), "the name's script ran"
    assert not driver.find_elements(By.CSS_SELECTOR, ".tile .name img, .tile .name script"), "the name became HTML"
    return {"name": tile["name"]}


def login(driver, args):
    driver.get(f"{args.url}/login")
    driver.find_element(By.ID, "password").send_keys(args.password)
    driver.find_element(By.ID, "submit").click()
    wait_for(lambda: driver.find_elements(By.ID, "start"), 10, "the coach's start button")


def check_coach(driver, args):
    login(driver, args)
    driver.find_element(By.ID, "label").send_keys(XSS_LABEL)
    driver.find_element(By.ID, "start").click()
    shown = None
    if args.live:
        shown = wait_for(lambda: driver.find_element(By.ID, "session-label").text == XSS_LABEL and
                         driver.find_element(By.ID, "session-label").text, 15, "the session label as text")
    assert driver.execute_script("return window.__xss === undefined"), "the label's script ran"
    assert not driver.find_elements(By.CSS_SELECTOR, "#session-label img, #session-label script"), "the label became HTML"
    return {"label_shown": shown}


def check_viewer(driver, args):
    driver.get(f"{args.url}/?token={args.token}")
    status = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch('/api/sessions/start', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{"label":"viewer"}'})
          .then(r => done(r.status)).catch(e => done(String(e)));""")
    assert status == 403, f"a viewer's start got {status}"
    assert not driver.find_elements(By.ID, "start"), "a viewer sees the start button"
    return {"status": status}


class EvilPage(http.server.BaseHTTPRequestHandler):
    target = ""

    def do_GET(self):
        body = f"""<!doctype html><form id="f" method="post" action="{self.target}/api/sessions/start">
        <input name="label" value="cross-site"><input name="csrf" value="guess"></form>
        <script>document.getElementById('f').submit()</script>""".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_):
        pass


def check_crosssite(driver, args):
    login(driver, args)
    EvilPage.target = args.url
    # Threaded: Chromium opens a spare connection it sends nothing on (and closes only after a minute); a one-thread
    # server would sit reading it, and shutdown() would wait that minute.
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), EvilPage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        # "localhost" is another site than "127.0.0.1": the browser sends no SameSite=Strict cookie, marks it cross-site.
        driver.get(f"http://localhost:{server.server_address[1]}/")
        wait_for(lambda: driver.current_url.startswith(args.url), 10, "the form to post")
        text = driver.find_element(By.TAG_NAME, "body").text
        assert "cross-site request refused" in text or "log in" in text, f"the cross-site post answered: {text!r}"
        return {"answer": text.strip()}
    finally:
        server.shutdown()
        server.server_close()


def check_sessions(driver, args):
    driver.get(f"{args.url}/sessions?token={args.token}")
    row = wait_for(lambda: driver.find_element(By.CSS_SELECTOR, f'tr[data-uuid="{args.session.upper()}"]'), 10, "the session's row")
    report_href = row.find_element(By.CSS_SELECTOR, "a.report").get_attribute("href")
    export = row.find_element(By.CSS_SELECTOR, "a.export[href$='format=csv']")
    export.click()
    csv = wait_for(lambda: [f for f in os.listdir(DOWNLOADS) if f.endswith(".csv")], 30, "the CSV download")[0]
    path = os.path.join(DOWNLOADS, csv)
    text = wait_for(lambda: open(path).read() if os.path.getsize(path) > 0 else None, 10, "the CSV's content")
    lines = text.splitlines()
    assert lines[0].startswith("kind,series,start"), f"CSV header {lines[0]!r}"
    assert len(lines) > 5, f"only {len(lines)} lines exported"
    driver.get(report_href)
    wait_for(lambda: driver.find_elements(By.TAG_NAME, "svg"), 15, "the report's plots")
    # Served sandboxed (CSP `sandbox` without allow-scripts): an opaque origin, so nothing in it could run as this site.
    origin = driver.execute_script("return window.origin")
    assert origin == "null", f"the report is not sandboxed (origin {origin!r})"
    body = driver.find_element(By.TAG_NAME, "body").text
    assert "RMSSD" in body, "the report shows no RMSSD"
    return {"csv": csv, "lines": len(lines), "svgs": len(driver.find_elements(By.TAG_NAME, "svg")), "origin": origin}


PERSON_NAME = '<img src=x onerror="window.__xss=3"><script>window.__xss=4</script> Ana'


def check_people(driver, args):
    login(driver, args)
    driver.get(f"{args.url}/people")
    driver.find_element(By.ID, "person-name").send_keys(PERSON_NAME)
    driver.find_element(By.ID, "person-hrmax").send_keys("160")
    driver.find_element(By.ID, "save-person").click()
    wait_for(lambda: driver.find_element(By.ID, "message").text == "saved", 10, "the person saved")
    listed = driver.execute_script("return Array.from(document.querySelectorAll('#people-table .name')).map(n => n.textContent)")
    assert PERSON_NAME in listed, f"the list shows {listed!r}"
    # Assign the strap: pick the person and the strap by value.
    driver.execute_script("""
        const person = Array.from(document.querySelectorAll('#assign-person option')).find(o => o.textContent === arguments[0]);
        document.getElementById('assign-person').value = person.value;
        document.getElementById('assign-address').value = arguments[1];""", PERSON_NAME, args.device)
    driver.find_element(By.ID, "assign").click()
    wait_for(lambda: driver.find_element(By.ID, "message").text == "assigned", 10, "the strap assigned")
    strap = driver.execute_script("""return Array.from(document.querySelectorAll('#people-table tr[data-uuid]'))
        .filter(r => r.querySelector('.name').textContent === arguments[0]).map(r => r.querySelector('.strap').textContent)""", PERSON_NAME)
    assert strap == [args.device], f"the list says the strap is {strap!r}"
    assert not driver.find_elements(By.CSS_SELECTOR, "#people-table img, #people-table script"), "the name became HTML"
    driver.get(f"{args.url}/")
    tile = wait_for(lambda: [t for t in tiles(driver) if t["address"] == args.device and t["name"] == PERSON_NAME], 20,
                    "the tile to show the person's name")[0]
    wait_for(lambda: any(t["pct"].endswith("of 160") for t in tiles(driver) if t["address"] == args.device), 20,
             "the tile's % of the person's HRmax")
    assert driver.execute_script("return window.__xss === undefined"), "the name's script ran"
    assert not driver.find_elements(By.CSS_SELECTOR, ".tile .name img, .tile .name script"), "the name became HTML"
    if os.environ.get("HEARTD_WEB_SCREENSHOTS"):
        driver.save_screenshot(os.path.join(os.environ["HEARTD_WEB_SCREENSHOTS"], "room-person.png"))
    return {"name": tile["name"]}


def check_peopleviewer(driver, args):
    driver.get(f"{args.url}/people?token={args.token}")
    wait_for(lambda: driver.find_element(By.ID, "people-table"), 10, "the people list")
    assert not driver.find_elements(By.ID, "person-form") and not driver.find_elements(By.ID, "assign-form"), "a viewer sees forms"
    statuses = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const post = (path, body) => fetch(path, {method: 'POST', headers: {'Content-Type': 'application/json'}, body})
          .then(r => r.status).catch(e => String(e));
        Promise.all([post('/people/save', '{"name":"viewer"}'), post('/people/assign', '{"person":"x","address":"A0:9E:1A:00:00:01"}'),
                     post('/nearby/scan', '{"seconds":"1"}')]).then(done);""")
    assert statuses == [403, 403, 403], f"a viewer's changes got {statuses}"
    return {"statuses": statuses}


def check_overlay(driver, args):
    driver.get(f"{args.url}/overlay/{args.device}?token={args.token}&size=200&colour=%23ff3366")
    wait_for(lambda: driver.find_element(By.ID, "bpm"), 10, "the overlay")
    backgrounds = driver.execute_script("""return [getComputedStyle(document.documentElement).backgroundColor,
        getComputedStyle(document.body).backgroundColor, getComputedStyle(document.getElementById('bpm')).fontSize]""")
    assert backgrounds[0] == "rgba(0, 0, 0, 0)" and backgrounds[1] == "rgba(0, 0, 0, 0)", f"backgrounds {backgrounds}"
    return {"html": backgrounds[0], "body": backgrounds[1], "fontSize": backgrounds[2]}


CHECKS = {"sessions": check_sessions, "live": check_live, "silence": check_silence, "names": check_names, "coach": check_coach, "viewer": check_viewer,
          "crosssite": check_crosssite, "overlay": check_overlay, "people": check_people, "peopleviewer": check_peopleviewer}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--device", default="")
    parser.add_argument("--stop-file", default="")
    parser.add_argument("--silent-device", default="")
    parser.add_argument("--xss-device", default="")
    parser.add_argument("--xss-name", default="")
    parser.add_argument("--session", default="", help="a finished session's UUID (the sessions check)")
    parser.add_argument("--live", action="store_true", help="the live feed runs: the coach check waits for the label")
    parser.add_argument("checks", nargs="+", choices=sorted(CHECKS))
    args = parser.parse_args()
    results, failed = {}, []
    for name in args.checks:
        driver = browser()
        try:
            results[name] = {"ok": True, **CHECKS[name](driver, args)}
        except Exception as error:
            failed.append(name)
            results[name] = {"ok": False, "error": f"{type(error).__name__}: {error}",
                             "console": [entry.get("message") for entry in driver.get_log("browser")][-10:]}
        finally:
            driver.quit()
    shutil.rmtree(DOWNLOADS, ignore_errors=True)
    print(json.dumps({"failed": failed, "results": results}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
